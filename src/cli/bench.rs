//! `evalearn bench`: the engine's speed and signature on each game's fixed positions.

use clap::Args;

use super::args::{GameArg, load_evaluator, optional_eval};
use super::games::{Games, Job};
use super::{CliError, CliGame};
use crate::eval::EvalGame;
use crate::eval::spec::EvalSpec;
use crate::search::bench;
use crate::search::{MAX_PLY, format_score};

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    game: GameArg,
    /// Depth of every search (default: 14 for draughts, the game's bench depth otherwise)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    depth: Option<u32>,
    /// Evaluator: a built-in one (draughts `material`; Kalah `stores`, `activity`,
    /// `tseitin`) or a model file path; default: the game's baseline, whose node count is
    /// the engine's signature
    #[arg(long)]
    eval: Option<String>,
}

pub fn bench(games: &Games, args: BenchArgs) -> Result<(), CliError> {
    let (game, spec) = optional_eval(games, &args.game, args.eval.as_deref())?;
    games.run(&game, Job::Bench(args, spec))
}

/// The bench always uses the game's standard variant (its positions are written for it).
pub(super) fn bench_of<G: CliGame>(
    variant: G::Variant,
    args: BenchArgs,
    spec: Option<EvalSpec>,
) -> Result<(), CliError> {
    let spec = spec.unwrap_or_else(|| EvalSpec::Builtin(<G as EvalGame>::BUILTINS[0].into()));
    let (evaluator, _) = load_evaluator::<G>(variant, &spec)?;
    let count = G::BENCH_POSITIONS.len();
    let depth = args.depth.unwrap_or(G::BENCH_DEPTH);
    let report = bench::run::<G, _>(evaluator, depth, bench::DEFAULT_TT_MIB, |i, pos, result| {
        let best = result
            .best_move
            .map_or("none".to_string(), |m| pos.format_move(m));
        eprintln!(
            "{:>2}/{count} nodes {:>10} score {:>8} bestmove {best}",
            i + 1,
            result.nodes.total(),
            format_score::<G>(result.score),
        );
    });
    eprintln!(
        "{} main + {} quiescence nodes in {:.3} s ({spec})",
        report.nodes.main,
        report.nodes.quiescence,
        report.elapsed.as_secs_f64()
    );
    println!("{} nodes {} nps", report.nodes.total(), report.nps());
    Ok(())
}
