//! `evalearn train --config FILE [--resume | --from-dataset FILE]`: learn an evaluation
//! function by self-play, played here or (`--from-dataset`) beforehand as shards;
//! `--plan` tells where a run split into shards stands.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;

use super::args::progress_bar;
use super::egdb::EgdbOption;
use super::{CliError, CliGame};
use crate::io::dataset::Dataset;
use crate::io::model::checksum;
use crate::learn::config::TrainConfig;
use crate::learn::train::{RecordedGames, Stage, Start, TrainOptions, next_split_iteration, train};
use crate::with_game;

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The training configuration (TOML), e.g. configs/default.toml
    #[arg(long)]
    config: PathBuf,
    /// Continue from the checkpoint beside the model (same config; only [budget] may
    /// change)
    #[arg(long)]
    resume: bool,
    /// Learn from the games of this dataset (merged `selfplay --config --shard I/N`
    /// shards) instead of playing them: each iteration takes its games by number, from
    /// the checkpoint if there is one, while the dataset holds them (glem and td)
    #[arg(long, value_name = "FILE")]
    from_dataset: Option<PathBuf>,
    /// Worker threads of the fitting, the self-play games and the evaluation matches
    /// (default: the config's [selfplay] threads; 0: one per core); the results do not
    /// depend on it
    #[arg(long)]
    threads: Option<usize>,
    /// Change nothing: print where the run stands when split into shards (the next
    /// iteration, the rounds left, the model, a key of the state the next shards play
    /// from, the endgame database); refuse with status 2 a bad config, a learner whose
    /// games cannot be played as shards (samuel) and a finished run (budget.iterations
    /// done, or budget.minutes of fitting time used)
    #[arg(long, conflicts_with_all = ["resume", "from_dataset", "threads"])]
    plan: bool,
    #[command(flatten)]
    egdb: EgdbOption,
}

/// Trains `config` from scratch, as `evalearn train --config CONFIG` does, and returns
/// the path of the model it wrote.
pub fn train_from_scratch(config: &Path, egdb: &EgdbOption) -> Result<PathBuf, CliError> {
    let (parsed, _) = TrainConfig::read(config).map_err(|e| CliError::input(e.to_string()))?;
    run(TrainArgs {
        config: config.to_path_buf(),
        resume: false,
        from_dataset: None,
        threads: None,
        plan: false,
        egdb: egdb.clone(),
    })?;
    Ok(parsed.model)
}

pub fn run(args: TrainArgs) -> Result<(), CliError> {
    let (mut config, text) =
        TrainConfig::read(&args.config).map_err(|e| CliError::input(e.to_string()))?;
    let game = config.game_spec();
    if args.plan {
        return with_game!(game, plan(&args, &config, &text));
    }
    let Some(threads) = args.threads else {
        return with_game!(game, train_game(args, config, text));
    };
    // The fitting's parallel loops use the current rayon pool, the games their own.
    config.selfplay.threads = threads;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::failure(format!("cannot start {threads} threads: {e}")))?
        .install(|| with_game!(game, train_game(args, config, text)))
}

/// `train --plan`: where the run of `config` stands when split into shards, in a
/// sentence and then as `key value` lines for scripts (`deploy/slurm`); writes nothing.
fn plan<G: CliGame>(
    variant: G::Variant,
    args: &TrainArgs,
    config: &TrainConfig,
    text: &str,
) -> Result<(), CliError> {
    let name = args.config.display();
    let game = G::variant_name(variant);
    let state = next_split_iteration::<G>(&game, config, text)
        .map_err(|e| CliError::input(format!("--config {name}: {e}")))?;
    let absolute = |path: &Path| {
        std::path::absolute(path)
            .map_err(|e| CliError::input(format!("--config {name}: {}: {e}", path.display())))
    };
    let model = absolute(&config.model)?;
    let egdb = match args.egdb.folder::<G>() {
        Some(dir) => absolute(&dir)?.display().to_string(),
        None => "none".to_string(),
    };
    // Shards played from one state and config are interchangeable; any change to either
    // (a fit, a restart, an edit) makes another key.
    let checkpoint = config.beside_model("ckpt");
    let mut bytes = match std::fs::read(&checkpoint) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => {
            return Err(CliError::failure(format!(
                "cannot read {}: {e}",
                checkpoint.display()
            )));
        }
    };
    bytes.extend_from_slice(text.as_bytes());
    let budget = &config.budget;
    let next = state.iteration + 1;
    let left = budget.iterations - state.iteration;
    let games = config.selfplay.games_per_iteration;
    let minutes = budget.minutes.map_or(String::new(), |m| {
        format!(
            ", {:.2} of {m} minutes of fitting used",
            state.seconds / 60.0
        )
    });
    println!(
        "{} on {game}, model {}: {} of {} iterations done{minutes}; next iteration {next} \
         (games {}–{}), {left} round{} left",
        config.learner.name(),
        model.display(),
        state.iteration,
        budget.iterations,
        state.iteration * games,
        (state.iteration + 1) * games - 1,
        if left == 1 { "" } else { "s" }
    );
    println!("next_iteration {next}");
    println!("rounds_left {left}");
    println!("state {:016x}", checksum(&bytes));
    println!("egdb {egdb}");
    println!("model {}", model.display());
    Ok(())
}

fn train_game<G: CliGame>(
    variant: G::Variant,
    args: TrainArgs,
    config: TrainConfig,
    text: String,
) -> Result<(), CliError> {
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        // Ctrl-C: finish nothing new, keep the last checkpoint, exit.
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::Relaxed) {
                std::process::exit(130);
            }
            eprintln!(
                "\nstopping: the last finished iteration is checkpointed (Ctrl-C again to quit at once)"
            );
        });
    }
    println!(
        "training {} on {} → {} ({} iterations of {} games{})",
        config.learner.name(),
        G::variant_name(variant),
        config.model.display(),
        config.budget.iterations,
        config.selfplay.games_per_iteration,
        config
            .budget
            .minutes
            .map_or(String::new(), |m| format!(", at most {m} minutes"))
    );
    let tablebase = args.egdb.load::<G>()?;
    let recorded = match &args.from_dataset {
        Some(path) => Some(recorded_games::<G>(variant, path)?),
        None => None,
    };
    let start = match (args.resume, recorded.is_some()) {
        (true, _) => Start::Resume,
        (false, true) => Start::Continue,
        (false, false) => Start::New,
    };
    let bar = progress_bar(
        config.selfplay.games_per_iteration,
        "[{bar:30}] {pos}/{len} {msg}, {per_sec:1}, eta {eta}",
    );
    // A hidden bar (output not a terminal) prints nothing, so print the lines directly.
    let mut log = |line: &str| {
        if bar.is_hidden() {
            println!("{line}");
        } else {
            bar.println(line);
        }
    };
    // One bar, restarted for each stage of each iteration.
    let mut stage = None;
    let mut progress = |now: Stage, done: u64, total: u64| {
        if stage != Some(now) || done <= 1 {
            stage = Some(now);
            bar.reset();
            bar.set_length(total);
            bar.set_message(now.unit());
        }
        bar.set_position(done);
    };
    let summary = train::<G>(
        variant,
        &config,
        &text,
        TrainOptions {
            start,
            recorded,
            stop: &stop,
            log: &mut log,
            progress: &mut progress,
            tablebase,
        },
    )
    .map_err(CliError::input)?;
    bar.finish_and_clear();
    println!(
        "{} after {} iterations: {} games, {} positions, {:.0} s of training; model {}, \
         metrics {}, curve {}",
        if summary.interrupted {
            "stopped"
        } else {
            "done"
        },
        summary.iterations,
        summary.games,
        summary.positions,
        summary.seconds,
        config.model.display(),
        config.beside_model("metrics.jsonl").display(),
        config.beside_model("curve.svg").display()
    );
    if summary.interrupted {
        // With a dataset the checkpoint is taken up without --resume.
        let rest = match &args.from_dataset {
            Some(path) => format!("--from-dataset {}", path.display()),
            None => "--resume".to_string(),
        };
        println!(
            "continue with: evalearn train --config {} {rest}",
            args.config.display()
        );
    }
    Ok(())
}

/// The games of the dataset at `path`, which must be of the run's game and variant.
fn recorded_games<G: CliGame>(
    variant: G::Variant,
    path: &Path,
) -> Result<RecordedGames<G>, CliError> {
    let data = Dataset::<G>::read(path, Some(&G::variant_name(variant)))
        .map_err(|e| CliError::input(e.to_string()))?;
    if let Some(warning) = &data.warning {
        eprintln!("warning: {warning}");
    }
    RecordedGames::new(path, data.games).map_err(CliError::input)
}
