//! `evalearn bench`: the engine's speed and signature on each game's fixed positions.

use std::path::PathBuf;

use clap::Args;

use super::args::{GameArg, alone, counted, load_evaluator, optional_eval};
use super::bench_train::{TrainBench, default_threads};
use super::games::{Games, Job};
use super::{CliError, CliGame};
use crate::eval::EvalGame;
use crate::eval::spec::EvalSpec;
use crate::learn::config::TrainConfig;
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
    /// Instead: how training scales with threads — the run of this config, cut to
    /// `--iterations`, trained at each of `--threads` (docs/speed.md)
    #[arg(long, group = alone::TRAIN, conflicts_with_all = ["depth", "eval", "game"])]
    train: Option<PathBuf>,
    /// With --train: iterations of the cut-down run
    #[arg(long, requires = alone::TRAIN, default_value_t = 100,
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    iterations: u64,
    /// Threads of each search, comma-separated to compare counts (default 1; at most the
    /// threads the machine runs at once): the time to the same depth, whose node count
    /// varies from run to run on more than one thread. With --train: the thread counts
    /// of training (default: 1, 2, 4, … and the cores there are)
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=4096))]
    threads: Vec<u64>,
}

pub fn bench(games: &Games, args: BenchArgs) -> Result<(), CliError> {
    if let Some(path) = &args.train {
        let (config, text) = TrainConfig::read(path).map_err(|e| CliError::input(e.to_string()))?;
        let game = super::train::config_game(games, path, &config)?;
        let threads = match args.threads.is_empty() {
            true => default_threads(),
            false => args.threads.iter().map(|&n| n as usize).collect(),
        };
        let bench = TrainBench {
            config: path.clone(),
            iterations: args.iterations,
            threads,
        };
        return games.run(&game, Job::BenchTrain(bench, Box::new(config), text));
    }
    for &threads in &args.threads {
        crate::search::check_threads(threads as usize)
            .map_err(|e| CliError::input(format!("--threads: {e}")))?;
    }
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
    let counts: Vec<usize> = match args.threads.is_empty() {
        true => vec![1],
        false => args.threads.iter().map(|&n| n as usize).collect(),
    };
    let mut runs = Vec::new();
    for &threads in &counts {
        let report = bench::run::<G, _>(
            evaluator.clone(),
            depth,
            bench::DEFAULT_TT_MIB,
            threads,
            |i, pos, result| {
                let best = result
                    .best_move
                    .map_or("none".to_string(), |m| pos.format_move(m));
                let seconds = result.elapsed.as_secs_f64();
                eprintln!(
                    "{:>2}/{count} nodes {:>10} time {seconds:>7.3} s nps {:>9} score {:>8} \
                     bestmove {best}",
                    i + 1,
                    result.nodes.total(),
                    (result.nodes.total() as f64 / seconds.max(1e-9)) as u64,
                    format_score::<G>(result.score),
                );
            },
        );
        eprintln!(
            "{} main + {} quiescence nodes in {:.3} s ({spec}, {})",
            report.nodes.main,
            report.nodes.quiescence,
            report.elapsed.as_secs_f64(),
            counted(threads as u64, "thread", "threads"),
        );
        runs.push((threads, report));
    }
    match runs.as_slice() {
        [(_, report)] => println!("{} nodes {} nps", report.nodes.total(), report.nps()),
        _ => print_comparison(&runs, depth),
    }
    Ok(())
}

/// The bench at several thread counts: each count's time to `depth`, and how many times
/// faster it got there than the first count.
fn print_comparison(runs: &[(usize, bench::BenchReport)], depth: u32) {
    let first = runs[0].1.elapsed.as_secs_f64();
    println!(
        "{:>7} {:>9} {:>11} {:>11}  time to depth {depth}",
        "threads", "time (s)", "nodes", "nps"
    );
    for (threads, report) in runs {
        let seconds = report.elapsed.as_secs_f64();
        println!(
            "{threads:>7} {seconds:>9.3} {:>11} {:>11}  {:.2}× the first count's speed",
            report.nodes.total(),
            report.nps(),
            first / seconds.max(1e-9)
        );
    }
}
