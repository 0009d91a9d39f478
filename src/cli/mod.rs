//! The `evalearn` command line: one binary, one subcommand per job.

pub mod accuracy;
mod analyse;
pub mod args;
mod bench;
mod bench_train;
mod book;
pub mod egdb;
mod games;
pub mod interrupt;
mod matches;
mod model;
mod perft;
pub(crate) mod play;
mod selfplay;
mod serve;
mod tournament;
mod train;

use std::process::ExitCode;

pub use games::Games;
pub(crate) use games::{Handle, OwnCommands};

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::accuracy::cases::AccuracyGame;
use crate::accuracy::heldout::HeldOutGame;
use crate::arena::perfect::PerfectGame;
use crate::arena::players::EngineProtocol;
use crate::eval::EvalGame;
use crate::game::GameFile;
use crate::game::view::Terminal;
use crate::learn::TrainGame;
use crate::search::EgdbGame;
use crate::search::bench::Bench;
use crate::web::WebGame;

#[derive(Parser, Debug)]
#[command(
    name = "evalearn",
    version,
    about = "Learns evaluation functions for board games by self-play",
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Listed in the order a user meets them: train a model, play it, measure it, serve it;
// then the data, model and analysis tools; the developers' checks last.
#[derive(Subcommand, Debug)]
enum Command {
    /// Learn an evaluation function by self-play (Samuel, GLEM or TD-Leaf(λ))
    #[command(display_order = 1)]
    Train(train::TrainArgs),
    /// Play a game against the engine in the terminal (or watch it play itself)
    #[command(display_order = 2)]
    Play(play::PlayArgs),
    /// Play two engines against each other and report the Elo difference
    #[command(display_order = 3)]
    Match(Box<matches::MatchArgs>),
    /// Round robin of evaluators (optionally trained first): table and ratings
    #[command(display_order = 4)]
    Tournament(Box<tournament::TournamentArgs>),
    /// Play, watch training and replay games in the browser (a local web app)
    #[command(display_order = 6)]
    Serve(serve::ServeArgs),
    /// Play games of an evaluator against itself and write them as a dataset
    #[command(display_order = 7)]
    Selfplay(selfplay::SelfPlayArgs),
    /// Inspect or merge self-play datasets
    #[command(display_order = 8)]
    Dataset(selfplay::DatasetArgs),
    /// Inspect model files
    #[command(display_order = 9)]
    Model(model::ModelArgs),
    /// Search a position: one line per iteration, then `bestmove MOVE`
    #[command(display_order = 10)]
    Analyse(analyse::AnalyseArgs),
    /// Build, inspect or probe opening books
    #[command(display_order = 11)]
    Book(book::BookArgs),
    /// How close an evaluator is to perfect play, on positions with exact values
    #[command(display_order = 14)]
    Accuracy(accuracy::AccuracyArgs),
    /// Search fixed positions; the last line is `NODES nodes NPS nps`
    #[command(display_order = 15)]
    Bench(bench::BenchArgs),
    /// Count the leaf nodes of the move tree (move-generator check and speed test)
    #[command(display_order = 16)]
    Perft(perft::PerftArgs),
    /// List the legal moves of a position, one per line
    #[command(display_order = 17)]
    Moves(perft::MovesArgs),
}

/// A failed command: the message for stderr and the exit status.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub status: u8,
}

impl CliError {
    /// Bad arguments or malformed input: exit status 2.
    pub fn input(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            status: 2,
        }
    }

    /// The command could not do its work (I/O and the like): exit status 1.
    pub fn failure(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            status: 1,
        }
    }
}

/// Parses the arguments, runs the command and returns the exit status. `games` are the
/// games offered (the registry's: [`crate::games::registry::GAMES`]), with their own
/// subcommands.
pub fn run(games: &Games) -> ExitCode {
    let own = games.own();
    let command = own.augment(Cli::command());
    let result = match command.try_get_matches() {
        Err(err) => Err(err),
        Ok(matches) => match own.run(&matches) {
            Some(result) => Ok(result),
            None => Cli::from_arg_matches(&matches).map(|cli| run_command(games, cli.command)),
        },
    };
    match result {
        Err(err) => {
            let _ = err.print();
            ExitCode::from(if err.use_stderr() { 2 } else { 0 })
        }
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(err)) => {
            eprintln!("error: {}", err.message);
            ExitCode::from(err.status)
        }
    }
}

fn run_command(games: &Games, command: Command) -> Result<(), CliError> {
    match command {
        Command::Perft(args) => perft::perft(games, args),
        Command::Moves(args) => perft::moves(games, args),
        Command::Analyse(args) => analyse::analyse(games, args),
        Command::Bench(args) => bench::bench(games, args),
        Command::Play(args) => play::play(games, args),
        Command::Model(args) => model::model(games, args),
        Command::Selfplay(args) => selfplay::selfplay(games, args),
        Command::Dataset(args) => selfplay::dataset(games, args),
        Command::Match(args) => matches::run(games, *args),
        Command::Book(args) => book::book(games, args),
        Command::Tournament(args) => tournament::tournament(games, *args),
        Command::Train(args) => train::run(games, args),
        Command::Accuracy(args) => accuracy::accuracy(games, args),
        Command::Serve(args) => serve::serve(games, args),
    }
}

/// Everything the commands need of a game, each part a trait a game implements in its
/// folder: evaluation ([`EvalGame`]), its files ([`GameFile`]) and texts for people
/// ([`Terminal`]), its bench positions ([`Bench`]), learning ([`TrainGame`]), and what
/// some games have and others keep the defaults of — external engines
/// ([`EngineProtocol`]), endgame databases ([`EgdbGame`]), a perfect player
/// ([`PerfectGame`]), positions with exact values ([`HeldOutGame`],
/// [`AccuracyGame`]) — and the browser's view of it ([`WebGame`]).
pub(crate) trait CliGame:
    EvalGame
    + GameFile
    + Terminal
    + Bench
    + TrainGame
    + EngineProtocol
    + EgdbGame
    + PerfectGame
    + HeldOutGame
    + AccuracyGame
    + WebGame
{
}

impl<G> CliGame for G where
    G: EvalGame
        + GameFile
        + Terminal
        + Bench
        + TrainGame
        + EngineProtocol
        + EgdbGame
        + PerfectGame
        + HeldOutGame
        + AccuracyGame
        + WebGame
{
}

/// Reads `--position` (`--fen`) in `variant`, or the variant's start when absent; an
/// error names the flag as typed.
fn position_arg<G: CliGame>(variant: G::Variant, text: Option<&str>) -> Result<G, CliError> {
    match text {
        None => Ok(G::start_of(variant)),
        Some(text) => G::parse_position_of(variant, text).map_err(|e| {
            CliError::input(format!(
                "{}: {e}",
                args::typed_flag("--position", &["--fen"])
            ))
        }),
    }
}
