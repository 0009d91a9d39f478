//! The games evalearn offers: the one place that lists them. Each game's folder holds
//! everything of that game; here it is given its place in the command line's list (the
//! order of `--game`'s help, the first being the default) and its own subcommands are
//! added to evalearn's.

use clap::{ArgMatches, FromArgMatches, Subcommand};

use super::brazilian::{self, Brazilian};
use super::kalah::{self, Kalah};
use crate::cli::{CliError, Games, Handle, OwnCommands};

/// The command line's games: `evalearn`'s `main` runs [`crate::cli::run`] with it.
pub static GAMES: Games = Games::new(
    &[&Handle::<Brazilian>::NEW, &Handle::<Kalah>::NEW],
    &GameCommands,
);

/// The games as `evalearn serve`'s page offers them (for servers started by hand).
pub fn web_games() -> crate::web::Games {
    GAMES.web()
}

/// The subcommands the games bring: Brazilian draughts' endgame database, Hub engine and
/// thesis experiment; Kalah's solver.
struct GameCommands;

impl OwnCommands for GameCommands {
    fn augment(&self, cli: clap::Command) -> clap::Command {
        kalah::commands::Command::augment_subcommands(
            brazilian::commands::Command::augment_subcommands(cli),
        )
    }

    fn run(&self, matches: &ArgMatches) -> Option<Result<(), CliError>> {
        let (name, _) = matches.subcommand()?;
        if brazilian::commands::Command::has_subcommand(name) {
            return Some(
                brazilian::commands::Command::from_arg_matches(matches)
                    .map_err(|e| CliError::input(e.to_string()))
                    .and_then(brazilian::commands::run),
            );
        }
        if kalah::commands::Command::has_subcommand(name) {
            return Some(
                kalah::commands::Command::from_arg_matches(matches)
                    .map_err(|e| CliError::input(e.to_string()))
                    .and_then(kalah::commands::run),
            );
        }
        None
    }
}
