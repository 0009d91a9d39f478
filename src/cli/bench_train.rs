//! `evalearn bench --train CONFIG`: how training scales with threads. The config's run,
//! cut to a few iterations, is trained from scratch at 1, 2, 4, … threads (up to the
//! cores there are) in a folder of its own; the table gives games a second, the speed-up
//! and each stage's seconds, then the serial fraction an Amdahl fit of the speed-ups
//! gives and what it predicts for more threads. The models of every thread count must be
//! the same bytes (the bench says so, or fails).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::{CliError, CliGame, interrupt};
use crate::io::model::{decode_parts, read_capped};
use crate::learn::config::TrainConfig;
use crate::learn::train::{Start, TrainOptions, TrainSummary, train};

/// What `--train` measures: the iterations of the cut-down run and the thread counts.
pub struct TrainBench {
    pub config: PathBuf,
    pub iterations: u64,
    pub threads: Vec<usize>,
}

/// One thread count's run.
struct Measured {
    threads: usize,
    summary: TrainSummary,
    payload: Vec<u8>,
}

/// The thread counts measured by default: powers of two below the cores there are, and
/// that count.
pub fn default_threads() -> Vec<usize> {
    let cores = crate::search::max_threads();
    let mut threads: Vec<usize> = std::iter::successors(Some(1), |n| Some(n * 2))
        .take_while(|&n| n < cores)
        .collect();
    threads.push(cores);
    threads
}

/// Runs the bench of `bench` for game `G`, its config already read.
pub(super) fn bench_train<G: CliGame>(
    variant: G::Variant,
    bench: TrainBench,
    mut config: TrainConfig,
    text: String,
) -> Result<(), CliError> {
    let dir = std::env::temp_dir().join(format!("evalearn-bench-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::failure(format!("cannot create {}: {e}", dir.display())))?;
    config.budget.iterations = bench.iterations;
    config.budget.minutes = None;
    println!(
        "bench --train {}: {} iterations of {} games ({} learner, {}), on {}",
        bench.config.display(),
        bench.iterations,
        config.selfplay.games_per_iteration,
        config.learner,
        G::variant_name(variant),
        super::args::machine()
    );
    let stop = interrupt::flag();
    let mut runs = Vec::new();
    for &threads in &bench.threads {
        let run = measure::<G>(variant, &config, &text, &dir, threads, &stop);
        let run = match run {
            Ok(run) => run,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(e);
            }
        };
        print_row(&run, runs.first());
        runs.push(run);
    }
    let _ = std::fs::remove_dir_all(&dir);
    report(&runs)
}

/// Trains the cut-down run at `threads` threads in `dir`.
fn measure<G: CliGame>(
    variant: G::Variant,
    config: &TrainConfig,
    text: &str,
    dir: &Path,
    threads: usize,
    stop: &Arc<AtomicBool>,
) -> Result<Measured, CliError> {
    let mut config = config.clone();
    config.model = dir.join(format!("threads-{threads}.bin"));
    config.selfplay.threads = threads;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::failure(format!("cannot start {threads} threads: {e}")))?;
    let summary = pool
        .install(|| {
            train::<G>(
                variant,
                &config,
                text,
                TrainOptions {
                    start: Start::New,
                    supply: None,
                    stop,
                    log: &mut |_| {},
                    progress: &mut |_, _, _| {},
                    on_iteration: &mut |_, _| {},
                    tablebase: None,
                    learner: None,
                },
            )
        })
        .map_err(CliError::input)?;
    if summary.interrupted {
        return Err(interrupt::stopped("the bench was stopped"));
    }
    let bytes = read_capped(&config.model).map_err(|e| CliError::failure(e.to_string()))?;
    let payload = decode_parts(&bytes)
        .map_err(|e| CliError::failure(e.to_string()))?
        .1
        .to_vec();
    Ok(Measured {
        threads,
        summary,
        payload,
    })
}

fn print_row(run: &Measured, first: Option<&Measured>) {
    if first.is_none() {
        println!(
            "{:>7} {:>9} {:>9} {:>9} {:>10} {:>9} {:>11} {:>7}",
            "threads",
            "seconds",
            "games/s",
            "speed-up",
            "self-play",
            "learning",
            "evaluation",
            "files"
        );
    }
    let s = &run.summary;
    let seconds = s.session_seconds;
    let speedup = first.map_or(1.0, |f| f.summary.session_seconds / seconds);
    println!(
        "{:>7} {:>9.2} {:>9.1} {:>8.2}× {:>9.2}s {:>8.2}s {:>10.2}s {:>6.2}s",
        run.threads,
        seconds,
        s.session_games as f64 / seconds,
        speedup,
        s.stages.selfplay,
        s.stages.learning,
        s.stages.evaluation,
        s.stages.writing
    );
}

/// The serial fraction `s` of an Amdahl fit `T(n) = T(1)·(s + (1 − s)/n)` to the times
/// (least squares on `T(n)/T(1)`), from the runs with more than one thread.
pub fn serial_fraction(times: &[(usize, f64)]) -> Option<f64> {
    let (_, t1) = *times.iter().find(|(n, _)| *n == 1)?;
    let (mut num, mut den) = (0.0, 0.0);
    for &(n, t) in times.iter().filter(|(n, _)| *n > 1) {
        let x = 1.0 - 1.0 / n as f64;
        num += (t / t1 - 1.0 / n as f64) * x;
        den += x * x;
    }
    (den > 0.0).then(|| (num / den).clamp(0.0, 1.0))
}

fn report(runs: &[Measured]) -> Result<(), CliError> {
    let times: Vec<(usize, f64)> = runs
        .iter()
        .map(|r| (r.threads, r.summary.session_seconds))
        .collect();
    if let Some(s) = serial_fraction(&times) {
        let predict = |n: f64| 1.0 / (s + (1.0 - s) / n);
        println!(
            "serial fraction (Amdahl fit): {:.1}% — predicts {:.1}× at 16 threads, {:.1}× at \
             64",
            100.0 * s,
            predict(16.0),
            predict(64.0)
        );
    }
    let same = runs.windows(2).all(|w| w[0].payload == w[1].payload);
    if !same {
        return Err(CliError::failure(
            "the models differ between thread counts: training is not reproducible",
        ));
    }
    println!(
        "models: the same bytes at every thread count ({} runs)",
        runs.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_amdahl_fit_finds_the_serial_fraction() {
        let s = 0.1;
        let times: Vec<(usize, f64)> = [1, 2, 4, 8]
            .iter()
            .map(|&n| (n, 100.0 * (s + (1.0 - s) / n as f64)))
            .collect();
        assert!((serial_fraction(&times).unwrap() - s).abs() < 1e-12);
        assert_eq!(serial_fraction(&[(1, 10.0)]), None);
        assert_eq!(serial_fraction(&[(2, 10.0), (4, 6.0)]), None);
    }
}
