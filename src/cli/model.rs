//! `evalearn model info PATH`: what a model file holds, in words.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::args::GameArg;
use super::games::{Games, Job};
use super::{CliError, CliGame};
use crate::eval::spec::describe_model_file;
use crate::io::model::{self, ModelHeader};

#[derive(Args, Debug)]
pub struct ModelArgs {
    #[command(subcommand)]
    command: ModelCommand,
}

#[derive(Subcommand, Debug)]
enum ModelCommand {
    /// Print a model file's header (game, evaluator, revision, training metadata) and
    /// what the model holds (a linear model's weights by feature name, a GLEM model's
    /// configurations and phases, a network's size)
    Info {
        /// The model file
        path: PathBuf,
        /// Fail unless the model is of this game (brazilian, kalah[:…])
        #[command(flatten)]
        game: GameArg,
    },
}

pub fn model(games: &Games, args: ModelArgs) -> Result<(), CliError> {
    match args.command {
        ModelCommand::Info { path, game } => {
            let header = model::read_header(&path).map_err(|e| CliError::input(e.to_string()))?;
            if let Some(text) = &game.game {
                let wanted = games
                    .parse(text)
                    .map_err(|e| CliError::input(format!("--game: {e}")))?;
                let recorded = games.parse(&header.game).map_err(|e| {
                    CliError::input(format!("{}: recorded game: {e}", path.display()))
                })?;
                if recorded.family() != wanted.family() {
                    return Err(CliError::input(format!(
                        "{} is a model of {}, not of {}",
                        path.display(),
                        recorded.family(),
                        wanted.family()
                    )));
                }
            }
            println!("{header}");
            let recorded = games
                .parse(&header.game)
                .map_err(|e| CliError::input(format!("{}: recorded game: {e}", path.display())))?;
            games.run(&recorded, Job::ModelInfo(path, Box::new(header)))
        }
    }
}

/// Prints what the model payload holds, checked as any model of game `G` is.
pub(super) fn describe<G: CliGame>(
    _variant: G::Variant,
    path: &std::path::Path,
    header: &ModelHeader,
) -> Result<(), CliError> {
    // Other kinds (checkpoints) have nothing more to show than their header.
    if !G::MODEL_KINDS.iter().any(|k| k.kind == header.kind) {
        return Ok(());
    }
    let text = describe_model_file::<G>(path).map_err(|e| CliError::input(e.to_string()))?;
    print!("{text}");
    Ok(())
}
