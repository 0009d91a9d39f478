//! `evalearn model info PATH`: what a model file holds, in words; `evalearn model average`:
//! TD networks made one.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::args::GameArg;
use super::games::{Games, Job};
use super::{CliError, CliGame};
use crate::eval::spec::describe_model_file;
use crate::eval::td::{self, MlpWeights};
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
    /// Average TD networks: write one network whose output is the mean of theirs (their
    /// hidden units side by side, at most 128 in all), an ensemble that loads as one model
    Average {
        /// The TD model files: two or more, of one game and input set
        #[arg(required = true, num_args = 2..)]
        models: Vec<PathBuf>,
        /// Where to write the averaged network
        #[arg(long, value_name = "PATH")]
        out: PathBuf,
        /// Replace --out if it exists
        #[arg(long)]
        force: bool,
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
        ModelCommand::Average { models, out, force } => average(&models, &out, force),
    }
}

/// Writes the network whose output logit is the mean of the TD networks `models`'
/// ([`MlpWeights::average`]) to `out`, its header recording where it came from.
fn average(models: &[PathBuf], out: &Path, force: bool) -> Result<(), CliError> {
    if out.exists() && !force {
        return Err(CliError::input(format!(
            "--out {}: the file exists; give --force to replace it",
            out.display()
        )));
    }
    let mut headers = Vec::with_capacity(models.len());
    let mut nets = Vec::with_capacity(models.len());
    for path in models {
        let (header, net) =
            td::load_weights(path, None).map_err(|e| CliError::input(e.to_string()))?;
        if let Some(first) = headers.first().map(|h: &ModelHeader| &h.game)
            && *first != header.game
        {
            return Err(CliError::input(format!(
                "{}: a model of {}, the first is of {first}",
                path.display(),
                header.game
            )));
        }
        headers.push(header);
        nets.push(net);
    }
    let averaged = MlpWeights::average(&nets).map_err(CliError::input)?;
    let mut header = ModelHeader::new(headers[0].game.clone(), td::KIND, &averaged.features);
    header.meta.seed = headers[0].meta.seed;
    header.meta.games = headers.iter().map(|h| h.meta.games).sum();
    header.meta.positions = headers.iter().map(|h| h.meta.positions).sum();
    let mut config = String::from("# evalearn model average: the mean output logit of\n");
    for (k, (path, h)) in models.iter().zip(&headers).enumerate() {
        // A few kilobytes of the header at most, whatever the paths.
        if config.len() > 4096 {
            config.push_str(&format!("# and {} more\n", models.len() - k));
            break;
        }
        let name = path.display().to_string().replace(['\n', '\r'], " ");
        config.push_str(&format!(
            "# {name} (seed {}, {} games)\n",
            h.meta.seed, h.meta.games
        ));
    }
    header.meta.config = config;
    model::save_model(out, &mut header, &averaged).map_err(|e| CliError::failure(e.to_string()))?;
    println!(
        "wrote {}: {} hidden units, the mean of {} networks",
        out.display(),
        averaged.hidden,
        nets.len()
    );
    Ok(())
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
