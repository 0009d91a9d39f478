//! Brazilian draughts' own subcommands: its endgame database, the Hub engine and the
//! experiment of Beling's master's thesis (table 6.2).

mod egdb;
mod hub;

pub(crate) use egdb::open_or_fail;
mod treestats;

use clap::Subcommand;

use crate::cli::CliError;

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Play Brazilian draughts over the Hub protocol on stdin/stdout (GUIs, pydraughts, bots)
    #[command(display_order = 5)]
    Hub(hub::HubArgs),
    /// Endgame databases (Brazilian draughts): build, probe, verify, info
    #[command(display_order = 12)]
    Egdb(egdb::EgdbArgs),
    /// Mean search-tree sizes of search algorithms (Beling's master's thesis, table 6.2)
    #[command(display_order = 18)]
    Treestats(treestats::TreeStatsArgs),
}

pub fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Hub(args) => hub::run(args),
        Command::Egdb(args) => egdb::run(args),
        Command::Treestats(args) => treestats::run(args),
    }
}
