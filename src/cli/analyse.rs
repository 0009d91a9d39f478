//! `evalearn analyse`: search one position and show each iteration.

use std::time::Duration;

use clap::Args;

use super::args::{GameArg, load_evaluator, optional_eval, search_threads};
use super::egdb::EgdbOption;
use super::games::{Games, Job};
use super::{CliError, CliGame, position_arg};

use crate::game::{EndReason, GameRecord};
use crate::search::{DepthReport, Limits, MAX_PLY, SearchConfig, Searcher, format_score};

/// Depth searched when no limit is given.
const DEFAULT_DEPTH: u32 = 12;
/// Largest transposition table accepted, in MiB.
pub const MAX_TT_MIB: usize = 16 * 1024;

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    #[command(flatten)]
    game: GameArg,
    /// Position (draughts FEN; Kalah `A:` or `B:` and the 14 counts); the start if absent
    #[arg(long, visible_alias = "fen")]
    position: Option<String>,
    /// Deepest iteration (default 12 when no other limit is given)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    depth: Option<u32>,
    /// Most nodes, quiescence included (deterministic on one thread; on more, the main
    /// thread's)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Time for the whole search, in milliseconds
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Transposition table in MiB (64, as play and hub: one search at a time; commands
    /// that play many games at once default to 2 per engine and worker)
    #[arg(long = "tt-mb", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=MAX_TT_MIB as u64))]
    tt_mb: u64,
    /// Threads of the search (1 to the threads the machine runs at once): helpers share
    /// the table; the line printed is the main thread's, the node counts all threads'
    #[arg(long, default_value = "1", value_parser = search_threads)]
    threads: usize,
    /// Print draughts moves in algebraic notation
    #[arg(long)]
    algebraic: bool,
    /// Evaluator: a built-in one (draughts `material`; Kalah `stores`, `activity`,
    /// `tseitin`) or a model file path; default: the game's baseline
    #[arg(long)]
    eval: Option<String>,
    #[command(flatten)]
    egdb: EgdbOption,
}

/// A line of moves from `pos`, space-separated.
pub fn format_line<G: CliGame>(pos: &G, line: &[G::Move], algebraic: bool) -> String {
    let mut pos = *pos;
    let mut words = Vec::with_capacity(line.len());
    for &mv in line {
        words.push(pos.notation(mv, algebraic));
        pos = pos.play(mv);
    }
    words.join(" ")
}

pub fn analyse(games: &Games, args: AnalyseArgs) -> Result<(), CliError> {
    let (game, spec) = optional_eval(games, &args.game, args.eval.as_deref())?;
    games.run(&game, Job::Analyse(args, spec))
}

pub(super) fn analyse_of<G: CliGame>(
    variant: G::Variant,
    args: AnalyseArgs,
    spec: Option<crate::eval::spec::EvalSpec>,
) -> Result<(), CliError> {
    let pos: G = position_arg(variant, args.position.as_deref())?;
    let mut limits = Limits {
        depth: args.depth,
        nodes: args.nodes,
        movetime: args.movetime.map(Duration::from_millis),
        ..Limits::default()
    };
    if limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none() {
        limits.depth = Some(DEFAULT_DEPTH);
    }
    let spec = spec.unwrap_or_else(|| {
        crate::eval::spec::EvalSpec::Builtin(<G as crate::eval::EvalGame>::BUILTINS[0].into())
    });
    let (evaluator, _) = load_evaluator::<G>(variant, &spec)?;
    let mut searcher = Searcher::new(evaluator, SearchConfig::FULL, args.tt_mb as usize)
        .with_tablebase(args.egdb.load::<G>()?)
        .with_threads(args.threads);
    let record = GameRecord::new(pos);
    let result = searcher.search(&record, &limits, |it: &DepthReport<G>| {
        let seconds = it.elapsed.as_secs_f64();
        println!(
            "depth {} score {} nodes {} nps {} time {} pv {}",
            it.depth,
            format_score::<G>(it.score),
            it.nodes.total(),
            (it.nodes.total() as f64 / seconds.max(1e-6)) as u64,
            it.elapsed.as_millis(),
            format_line(&pos, &it.pv, args.algebraic)
        );
    });
    if let Some(value) = result.exact {
        println!("egdb {value}");
    }
    match result.best_move {
        Some(mv) => println!("bestmove {}", pos.format_move(mv)),
        None => {
            // Over: say how it ended (the side to move has nothing to play).
            let end = pos.describe_end(pos.outcome_without_moves(), EndReason::NoMoves);
            eprintln!("no legal move: the game is over");
            println!("result {end}");
            println!("bestmove none");
        }
    }
    Ok(())
}
