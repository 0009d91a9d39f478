//! `evalearn bench`: the engine's speed and signature on fixed positions.

use clap::Args;

use super::CliError;
use crate::eval::Material;
use crate::search::{MAX_PLY, bench, format_score};

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Depth of every search
    #[arg(long, default_value_t = bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    depth: u32,
}

pub fn bench(args: BenchArgs) -> Result<(), CliError> {
    let count = bench::POSITIONS.len();
    let report = bench::run(
        Material,
        args.depth,
        bench::DEFAULT_TT_MIB,
        |i, pos, result| {
            let best = result.best_move.map_or("none".to_string(), |m| {
                use crate::game::Game;
                pos.format_move(m)
            });
            eprintln!(
                "{:>2}/{count} nodes {:>10} score {:>8} bestmove {best}",
                i + 1,
                result.nodes.total(),
                format_score(result.score),
            );
        },
    );
    eprintln!(
        "{} main + {} quiescence nodes in {:.3} s",
        report.nodes.main,
        report.nodes.quiescence,
        report.elapsed.as_secs_f64()
    );
    println!("{} nodes {} nps", report.nodes.total(), report.nps());
    Ok(())
}
