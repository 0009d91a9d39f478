//! `evalearn analyse`: search one position and show each iteration.

use std::time::Duration;

use clap::Args;

use super::{CliError, position_arg};
use crate::eval::spec::EvalSpec;
use crate::game::checkers::Checkers;
use crate::game::{Game, GameRecord};
use crate::search::{Iteration, Limits, MAX_PLY, SearchConfig, Searcher, format_score};

/// Depth searched when no limit is given.
const DEFAULT_DEPTH: u32 = 12;
/// Largest transposition table accepted, in MiB.
pub const MAX_TT_MIB: usize = 16 * 1024;

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// Position (FEN); the start position if absent
    #[arg(long)]
    fen: Option<String>,
    /// Deepest iteration (default 12 when no other limit is given)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    depth: Option<u32>,
    /// Most nodes, quiescence included (deterministic)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Time for the whole search, in milliseconds
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Transposition table size in MiB
    #[arg(long = "tt-mb", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=MAX_TT_MIB as u64))]
    tt_mb: u64,
    /// Print the principal variation in algebraic notation
    #[arg(long)]
    algebraic: bool,
    /// Evaluator: `material` or a model file path
    #[arg(long, default_value = "material")]
    eval: String,
}

/// A line of moves from `pos`, space-separated.
pub fn format_line(pos: &Checkers, line: &[<Checkers as Game>::Move], algebraic: bool) -> String {
    let mut pos = *pos;
    let mut words = Vec::with_capacity(line.len());
    for &mv in line {
        words.push(if algebraic {
            pos.format_move_algebraic(mv)
        } else {
            pos.format_move(mv)
        });
        pos = pos.play(mv);
    }
    words.join(" ")
}

pub fn analyse(args: AnalyseArgs) -> Result<(), CliError> {
    let pos = position_arg(args.fen.as_deref())?;
    let mut limits = Limits {
        depth: args.depth,
        nodes: args.nodes,
        movetime: args.movetime.map(Duration::from_millis),
        ..Limits::default()
    };
    if limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none() {
        limits.depth = Some(DEFAULT_DEPTH);
    }
    let spec = EvalSpec::parse(&args.eval).map_err(CliError::input)?;
    let (evaluator, _) = spec.load().map_err(|e| CliError::input(e.to_string()))?;
    let mut searcher = Searcher::new(evaluator, SearchConfig::FULL, args.tt_mb as usize);
    let record = GameRecord::new(pos);
    let result = searcher.search(&record, &limits, |it: &Iteration<Checkers>| {
        let seconds = it.elapsed.as_secs_f64();
        println!(
            "depth {} score {} nodes {} nps {} time {} pv {}",
            it.depth,
            format_score(it.score),
            it.nodes.total(),
            (it.nodes.total() as f64 / seconds.max(1e-6)) as u64,
            it.elapsed.as_millis(),
            format_line(&pos, &it.pv, args.algebraic)
        );
    });
    match result.best_move {
        Some(mv) => println!("bestmove {}", pos.format_move(mv)),
        None => {
            eprintln!(
                "no legal move: {} has lost",
                Checkers::side_name(pos.side_to_move())
            );
            println!("bestmove none");
        }
    }
    Ok(())
}
