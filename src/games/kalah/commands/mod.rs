//! Kalah's own subcommand: the exact solver.

pub(crate) mod solve;

use clap::Subcommand;

use crate::cli::CliError;

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Solve a Kalah position exactly: the final store margin under perfect play
    #[command(display_order = 13)]
    Solve(solve::SolveArgs),
}

pub fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Solve(args) => solve::run(args),
    }
}
