//! `evalearn model info PATH`: what a model file holds, in words.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::CliError;
use super::args::GameArg;
use crate::game::GameSpec;
use crate::io::model;

#[derive(Args, Debug)]
pub struct ModelArgs {
    #[command(subcommand)]
    command: ModelCommand,
}

#[derive(Subcommand, Debug)]
enum ModelCommand {
    /// Print a model file's header: game, evaluator, revision, training metadata
    Info {
        /// The model file
        path: PathBuf,
        /// Fail unless the model is of this game (brazilian, kalah[:…])
        #[command(flatten)]
        game: GameArg,
    },
}

pub fn model(args: ModelArgs) -> Result<(), CliError> {
    match args.command {
        ModelCommand::Info { path, game } => {
            let header = model::read_header(&path).map_err(|e| CliError::input(e.to_string()))?;
            if let Some(text) = &game.game {
                let wanted =
                    GameSpec::parse(text).map_err(|e| CliError::input(format!("--game: {e}")))?;
                let recorded = GameSpec::parse(&header.game).map_err(|e| {
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
            Ok(())
        }
    }
}
