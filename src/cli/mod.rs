//! The `evalearn` command line: one binary, one subcommand per job.

mod accuracy;
mod analyse;
mod args;
mod bench;
mod book;
mod egdb;
mod hub;
mod interrupt;
mod matches;
mod model;
mod perft;
pub(crate) mod play;
mod selfplay;
mod serve;
mod solve;
mod tournament;
mod train;
mod treestats;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::accuracy::heldout::HeldOutGame;
use crate::arena::perfect::PerfectGame;
use crate::eval::EvalGame;
use crate::hub::HubGame;
use crate::search::bench::Bench;

#[derive(Parser, Debug)]
#[command(
    name = "evalearn",
    version,
    about = "Learns evaluation functions for board games (Brazilian draughts, Kalah) by self-play",
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
    Train(train::TrainArgs),
    /// Play a game against the engine in the terminal (or watch it play itself)
    Play(play::PlayArgs),
    /// Play two engines against each other and report the Elo difference
    Match(Box<matches::MatchArgs>),
    /// Round robin of evaluators (optionally trained first): table and ratings
    Tournament(Box<tournament::TournamentArgs>),
    /// Play Brazilian draughts over the Hub protocol on stdin/stdout (GUIs, pydraughts, bots)
    Hub(hub::HubArgs),
    /// Play, watch training and replay games in the browser (a local web app)
    Serve(serve::ServeArgs),
    /// Play games of an evaluator against itself and write them as a dataset
    Selfplay(selfplay::SelfPlayArgs),
    /// Inspect or merge self-play datasets
    Dataset(selfplay::DatasetArgs),
    /// Inspect model files
    Model(model::ModelArgs),
    /// Search a position: one line per iteration, then `bestmove MOVE`
    Analyse(analyse::AnalyseArgs),
    /// Build, inspect or probe opening books
    Book(book::BookArgs),
    /// Endgame databases (Brazilian draughts): build, probe, verify, info
    Egdb(egdb::EgdbArgs),
    /// Solve a Kalah position exactly: the final store margin under perfect play
    Solve(solve::SolveArgs),
    /// How close an evaluator is to perfect play, on positions with exact values
    Accuracy(accuracy::AccuracyArgs),
    /// Search fixed positions; the last line is `NODES nodes NPS nps`
    Bench(bench::BenchArgs),
    /// Count the leaf nodes of the move tree (move-generator check and speed test)
    Perft(perft::PerftArgs),
    /// List the legal moves of a position, one per line
    Moves(perft::MovesArgs),
    /// Mean search-tree sizes of search algorithms (Beling's master's thesis, table 6.2)
    Treestats(treestats::TreeStatsArgs),
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

/// Parses the arguments, runs the command and returns the exit status.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Perft(args) => perft::perft(args),
        Command::Moves(args) => perft::moves(args),
        Command::Analyse(args) => analyse::analyse(args),
        Command::Bench(args) => bench::bench(args),
        Command::Treestats(args) => treestats::treestats(args),
        Command::Play(args) => play::play(args),
        Command::Model(args) => model::model(args),
        Command::Selfplay(args) => selfplay::selfplay(args),
        Command::Dataset(args) => selfplay::dataset(args),
        Command::Match(args) => matches::run(*args),
        Command::Book(args) => book::book(args),
        Command::Tournament(args) => tournament::tournament(*args),
        Command::Train(args) => train::run(args),
        Command::Solve(args) => solve::solve(args),
        Command::Accuracy(args) => accuracy::accuracy(args),
        Command::Hub(args) => hub::hub(args),
        Command::Serve(args) => serve::serve(args),
        Command::Egdb(args) => egdb::egdb(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", err.message);
            ExitCode::from(err.status)
        }
    }
}

/// Everything a command needs of a game: evaluation and learning ([`EvalGame`]), its
/// bench positions, its terminal interface, external engines ([`HubGame`]) and endgame
/// databases ([`egdb::EgdbGame`]), its perfect player ([`PerfectGame`]) and its held-out
/// accuracy sample ([`HeldOutGame`]).
pub trait CliGame:
    EvalGame + Bench + play::Terminal + HubGame + egdb::EgdbGame + PerfectGame + HeldOutGame
{
}

impl<G: EvalGame + Bench + play::Terminal + HubGame + egdb::EgdbGame + PerfectGame + HeldOutGame>
    CliGame for G
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
