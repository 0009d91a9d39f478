//! `evalearn model info PATH`: what a model file holds, in words.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::args::GameArg;
use super::games::{Games, Job};
use super::{CliError, CliGame};
use crate::eval::glem::{self, GlemModel};
use crate::eval::linear::{self, LinearWeights};
use crate::eval::td;
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
    let load_error = |e: model::ModelError| CliError::input(e.to_string());
    let invalid = |e: String| CliError::input(format!("{}: {e}", path.display()));
    let game = Some(header.game.as_str());
    match header.kind.as_str() {
        linear::KIND => {
            let (_, weights) = model::load_model::<LinearWeights>(path, game, Some(linear::KIND))
                .map_err(load_error)?;
            weights.validate::<G>().map_err(invalid)?;
            print_linear::<G>(&weights);
            Ok(())
        }
        glem::KIND => {
            let (_, glem) =
                model::load_model::<GlemModel>(path, game, Some(glem::KIND)).map_err(load_error)?;
            glem.validate::<G>().map_err(invalid)?;
            println!(
                "{} configurations in {} regions, {} phases (starting at {:?}), scale {}; \
                 compiled tables {} entries",
                glem.configurations.len(),
                glem.regions.len(),
                glem.phases.count(),
                glem.phases.starts,
                glem.scale,
                glem.table_entries::<G>()
            );
            Ok(())
        }
        td::KIND => {
            let (_, weights) = td::load_weights(path, game).map_err(load_error)?;
            weights.validate::<G>().map_err(invalid)?;
            let outputs = match weights.phases {
                1 => "one sigmoid output".to_string(),
                n => format!("{n} sigmoid outputs, one per game phase"),
            };
            println!(
                "network {}–{}–{} ({} inputs, {} sigmoid hidden units, {outputs})",
                G::INPUTS,
                weights.hidden,
                weights.phases,
                G::INPUTS,
                weights.hidden
            );
            println!("phases:      {}", weights.phases);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A linear model's active features with their weights and since when they are active,
/// its reserve queue and the term replacements that led there.
fn print_linear<G: CliGame>(weights: &LinearWeights) {
    let names = G::FEATURE_NAMES;
    let entered = |i: usize| {
        weights
            .replaced
            .iter()
            .rev()
            .find(|r| usize::from(r.added) == i)
            .map(|r| r.game)
    };
    println!(
        "active features: {} of a pool of {} (weights in centi-units per unit of feature; the \
         anchor keeps its fixed weight):",
        weights.active.len(),
        names.len()
    );
    for &i in &weights.active {
        let i = usize::from(i);
        let since = match entered(i) {
            Some(game) => format!("entered at game {game}"),
            None => "active from the start".to_string(),
        };
        println!("    {:<24} {:>9.2}   {since}", names[i], weights.weights[i]);
    }
    let reserve: Vec<&str> = weights
        .reserve
        .iter()
        .map(|&i| names[usize::from(i)])
        .collect();
    println!("reserve, next first: {}", reserve.join(", "));
    println!(
        "replacements: {} (the active feature least correlated with winning, |r|, makes way \
         for the reserve's head)",
        weights.replaced.len()
    );
    for r in &weights.replaced {
        println!(
            "    game {:>6}: {:<24} → {:<24} |r| {:.3}",
            r.game,
            names[usize::from(r.removed)],
            names[usize::from(r.added)],
            r.measure
        );
    }
}
