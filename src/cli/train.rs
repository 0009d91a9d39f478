//! `evalearn train --config FILE [--resume | --restart] [--from-dataset FILE]`: learn an
//! evaluation function by self-play, played here or (`--from-dataset`) beforehand as
//! shards; `--plan` tells where a run stands and refuses what `train` with the same flags
//! would refuse. A run's results are never replaced unasked, and Ctrl-C keeps the last
//! finished iteration.

use std::cell::RefCell;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{HumanDuration, MultiProgress, ProgressBar, ProgressDrawTarget};

use super::args::{alone, check_output, counted, progress_bar};
use super::egdb::EgdbOption;
use super::games::{Games, Job};
use super::interrupt;
use super::{CliError, CliGame};
use crate::game::GameSpec;
use crate::io::dataset::Dataset;
use crate::learn::cluster::{Coordinator, first_round_begun, new_run_key, round_key};
use crate::learn::config::TrainConfig;
use crate::learn::train::{
    GameSupply, MetricsLine, RecordedGames, Stage, StageSeconds, Start, TrainOptions, TrainSummary,
    next_iteration, require_games_played_elsewhere, train,
};

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The training configuration (TOML), e.g. configs/default.toml
    #[arg(long)]
    config: PathBuf,
    /// Continue from the checkpoint beside the model (same config; only [budget] may
    /// change)
    #[arg(long)]
    resume: bool,
    /// Start over although the run has results (checkpoint, metrics, curve, model): they
    /// are first renamed to *.bak (refused if such backups exist already)
    #[arg(long, conflicts_with = "resume")]
    restart: bool,
    /// Learn from the games of this dataset (merged `selfplay --config --shard I/N`
    /// shards) instead of playing them: each iteration takes its games by number, from
    /// the checkpoint if there is one, while the dataset holds them (glem and td)
    #[arg(long, value_name = "FILE", conflicts_with = "workers")]
    from_dataset: Option<PathBuf>,
    /// Learn from games that workers (`selfplay --config CONFIG --worker DIR`, started
    /// anywhere that sees DIR) play: each iteration is published in DIR and its shards
    /// are learned as they arrive (glem and td; docs/cluster.md). A run already started
    /// continues from its checkpoint
    #[arg(long, value_name = "DIR", group = alone::WORKERS)]
    workers: Option<PathBuf>,
    /// With --workers: shards each iteration is split into (at least the workers, for
    /// the slowest to end with the others; at most the games)
    #[arg(long, requires = alone::WORKERS, default_value_t = 8,
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    shards: u64,
    /// Worker threads of the fitting, the self-play games and the evaluation matches
    /// (default: the config's [selfplay] threads; 0: one per core); the results do not
    /// depend on it
    #[arg(long)]
    threads: Option<usize>,
    /// Change nothing: print where the run stands (the next iteration, the iterations
    /// left, the model, a key of the state the next shards play from, the endgame
    /// database), or refuse with status 2 what `train` with the same flags (--resume,
    /// --restart, --workers DIR) would refuse: a bad config, a run with results, a
    /// finished run (budget.iterations done, or budget.minutes of training time used)
    #[arg(long, conflicts_with_all = ["from_dataset", "threads"])]
    plan: bool,
    /// Without a terminal on stderr: also a line there as each stage of an iteration
    /// starts and one with the run's progress (time left, games a second) after it (by
    /// default only the evaluation matches are announced)
    #[arg(long, conflicts_with = "plan")]
    verbose: bool,
    #[command(flatten)]
    egdb: EgdbOption,
}

/// Trains `config` from scratch, as `evalearn train --config CONFIG` does, and returns
/// the path of the model it wrote.
pub fn train_from_scratch(
    games: &Games,
    config: &Path,
    egdb: &EgdbOption,
) -> Result<PathBuf, CliError> {
    let (parsed, _) = TrainConfig::read(config).map_err(|e| CliError::input(e.to_string()))?;
    run(
        games,
        TrainArgs {
            config: config.to_path_buf(),
            resume: false,
            restart: false,
            from_dataset: None,
            workers: None,
            shards: 8,
            threads: None,
            plan: false,
            verbose: false,
            egdb: egdb.clone(),
        },
    )?;
    Ok(parsed.model)
}

pub fn run(games: &Games, args: TrainArgs) -> Result<(), CliError> {
    let (mut config, text) =
        TrainConfig::read(&args.config).map_err(|e| CliError::input(e.to_string()))?;
    let game = config_game(games, &args.config, &config)?;
    if args.plan {
        return games.run(
            &game,
            Job::TrainPlan(Box::new(args), Box::new(config), text),
        );
    }
    let Some(threads) = args.threads else {
        return games.run(&game, Job::Train(Box::new(args), Box::new(config), text));
    };
    // The fitting's parallel loops use the current rayon pool, the games their own.
    config.selfplay.threads = threads;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::failure(format!("cannot start {threads} threads: {e}")))?
        .install(|| games.run(&game, Job::Train(Box::new(args), Box::new(config), text)))
}

/// The game a config trains, checked against the games offered.
pub fn config_game(games: &Games, path: &Path, config: &TrainConfig) -> Result<GameSpec, CliError> {
    let Some(game) = &config.game else {
        return Ok(games.default_game());
    };
    games.parse(game).map_err(|e| {
        CliError::input(format!(
            "config {}: game: {e} (got {:?})",
            path.display(),
            game
        ))
    })
}

/// `train --plan`: where the run of `config` stands, in a sentence and then as `key
/// value` lines for scripts (`deploy/slurm`); writes nothing. What `train` with the same
/// flags would refuse (results not to be replaced, a finished run, a learner that cannot
/// learn from workers) is refused alike, so that a script's pre-check is honest.
pub(super) fn plan<G: CliGame>(
    variant: G::Variant,
    args: &TrainArgs,
    config: &TrainConfig,
    text: &str,
) -> Result<(), CliError> {
    let name = args.config.display();
    let game = G::variant_name(variant);
    check_run::<G>(args, config)?;
    let (start, moved) = match begin_of(args, config, text)? {
        Begin::Start(start) => (start, Vec::new()),
        Begin::Restart(files) => (Start::New, files),
    };
    let split = args.workers.is_some();
    let state = next_iteration::<G>(&game, config, text, start, split)
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
    // Started over, the run plays from no checkpoint.
    let key = match start {
        Start::New => new_run_key(text),
        _ => round_key(config, text).map_err(CliError::failure)?,
    };
    let budget = &config.budget;
    let next = state.iteration + 1;
    let left = budget.iterations - state.iteration;
    let games = config.selfplay.games_per_iteration;
    // budget.minutes counts the training sessions' wall time, as the checkpoint keeps it.
    let minutes = budget.minutes.map_or(String::new(), |m| {
        format!(
            ", {:.2} of {m} minutes of training time used",
            state.seconds / 60.0
        )
    });
    // A round is an iteration played by workers.
    let left = if split {
        counted(left, "round", "rounds")
    } else {
        counted(left, "iteration", "iterations")
    };
    let restart = if moved.is_empty() {
        String::new()
    } else {
        format!(
            "; --restart first moves the earlier results aside as {}",
            backups(&moved)
        )
    };
    println!(
        "{} on {game}, model {}: {} of {} done{minutes}; next iteration {next} \
         (games {}–{}), {left} left{restart}",
        config.learner,
        model.display(),
        state.iteration,
        counted(budget.iterations, "iteration", "iterations"),
        state.iteration * games,
        (state.iteration + 1) * games - 1,
    );
    println!("next_iteration {next}");
    println!("rounds_left {}", budget.iterations - state.iteration);
    println!("state {key:016x}");
    println!("egdb {egdb}");
    println!("model {}", model.display());
    Ok(())
}

/// The checks of a run that need its game, made before anything starts (by `train` and
/// `--plan` alike): a margin target needs a game with margins, the model's folder must
/// exist, and workers or a dataset need a learner that learns from games played
/// elsewhere.
fn check_run<G: CliGame>(args: &TrainArgs, config: &TrainConfig) -> Result<(), CliError> {
    let name = args.config.display();
    config
        .training
        .check_target::<G>()
        .map_err(|e| CliError::input(format!("config {name}: {e}")))?;
    check_output(&format!("config {name}: model"), &config.model)?;
    let flag = match (&args.workers, &args.from_dataset) {
        (Some(_), _) => "--workers",
        (None, Some(_)) => "--from-dataset",
        (None, None) => return Ok(()),
    };
    require_games_played_elsewhere::<G>(config).map_err(|e| CliError::input(format!("{flag}: {e}")))
}

pub(super) fn train_game<G: CliGame>(
    variant: G::Variant,
    args: TrainArgs,
    config: TrainConfig,
    text: String,
) -> Result<(), CliError> {
    // Before anything is written: a run's results are not replaced unasked.
    check_run::<G>(&args, &config)?;
    let start = take_up(begin_of(&args, &config, &text)?)?;
    let stop = interrupt::flag();
    println!(
        "training {} on {} → {} ({} of {}{})",
        config.learner,
        G::variant_name(variant),
        config.model.display(),
        counted(config.budget.iterations, "iteration", "iterations"),
        counted(config.selfplay.games_per_iteration, "game", "games"),
        config
            .budget
            .minutes
            .map_or(String::new(), |m| format!(", at most {m} minutes"))
    );
    let tablebase = args.egdb.load::<G>()?;
    let mut recorded = match &args.from_dataset {
        Some(path) => Some(recorded_games::<G>(variant, path)?),
        None => None,
    };
    let mut coordinator = match &args.workers {
        Some(dir) => Some(
            Coordinator::new(dir, &config, &text, &G::variant_name(variant), args.shards)
                .map_err(CliError::failure)?,
        ),
        None => None,
    };
    let supply: Option<&mut dyn GameSupply<G>> = match (&mut recorded, &mut coordinator) {
        (Some(recorded), _) => Some(recorded),
        (None, Some(coordinator)) => Some(coordinator),
        (None, None) => None,
    };
    let display = RefCell::new(RunDisplay::new(&config, args.verbose));
    // Lines go above the bars when both are on one terminal, to stdout otherwise.
    let mut log = |line: &str| display.borrow().println(line);
    let mut progress =
        |stage: Stage, done: u64, total: u64| display.borrow_mut().stage(stage, done, total);
    let mut on_iteration =
        |finished: u64, line: Option<&MetricsLine>| display.borrow_mut().iteration(finished, line);
    let summary = train::<G>(
        variant,
        &config,
        &text,
        TrainOptions {
            start,
            supply,
            stop: &stop,
            log: &mut log,
            progress: &mut progress,
            on_iteration: &mut on_iteration,
            tablebase,
            learner: None,
        },
    )
    .map_err(CliError::input)?;
    if let Some(coordinator) = &coordinator
        && !summary.interrupted
    {
        coordinator
            .finish(&format!("{} iterations learned", summary.iterations))
            .map_err(CliError::failure)?;
    }
    let display = display.into_inner();
    display.finish();
    println!(
        "{} after {}: {}, {}, {:.0} s of training; model {}, metrics {}, curve {}",
        if summary.interrupted {
            "stopped"
        } else {
            "done"
        },
        counted(summary.iterations, "iteration", "iterations"),
        counted(summary.games, "game", "games"),
        counted(summary.positions, "position", "positions"),
        summary.seconds,
        config.model.display(),
        config.beside_model("metrics.jsonl").display(),
        config.beside_model("curve.svg").display()
    );
    print_time(&summary);
    if summary.interrupted {
        // With a dataset the checkpoint is taken up without --resume.
        let rest = match &args.from_dataset {
            Some(path) => format!("--from-dataset {}", shell_word(path)),
            None => "--resume".to_string(),
        };
        let during = display.stage.map_or(String::new(), |stage| {
            format!(
                " during the {} of iteration {}",
                stage.name(),
                summary.iterations + 1
            )
        });
        let kept = match summary.iterations {
            0 => "no iteration had finished; nothing was written".to_string(),
            n => format!(
                "the checkpoint {} holds iteration {n}",
                config.beside_model("ckpt").display()
            ),
        };
        // Before the first checkpoint there is nothing to resume.
        let command = format!("evalearn train --config {}", shell_word(&args.config));
        match (summary.iterations, &args.from_dataset) {
            (0, None) => println!("start again with: {command}"),
            _ => println!("continue with: {command} {rest}"),
        }
        return Err(interrupt::stopped(format!("stopped{during}; {kept}")));
    }
    if summary.iterations > 0 {
        print_next_commands::<G>(&config);
    }
    Ok(())
}

/// The files of a run that a new start would replace: checkpoint, metrics, curve, model.
fn run_files(config: &TrainConfig) -> [PathBuf; 5] {
    [
        config.beside_model("best.bin"),
        config.beside_model("ckpt"),
        config.beside_model("metrics.jsonl"),
        config.beside_model("curve.svg"),
        config.model.clone(),
    ]
}

/// The backup `--restart` keeps of `path`: `PATH.bak`.
fn backup(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".bak");
    PathBuf::from(name)
}

/// Where `train` starts a run, decided before anything is written.
enum Begin {
    Start(Start),
    /// `--restart`: these files of the run are renamed to `*.bak` first, then the run
    /// starts anew.
    Restart(Vec<PathBuf>),
}

/// The run's files, one after the other.
fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The backups `--restart` renames `paths` to, one after the other.
fn backups(paths: &[PathBuf]) -> String {
    list(&paths.iter().map(|p| backup(p)).collect::<Vec<_>>())
}

/// Where the run starts; writes nothing (`--plan` asks it too). A run with results
/// (checkpoint, metrics, curve or model) is continued only with `--resume` (or a
/// checkpoint with `--from-dataset`) and started over only with `--restart`, which
/// renames those files to `*.bak` (refused if any backup is there already); anything
/// else is refused with status 2. A learner of workers (`--workers`) takes up the
/// checkpoint by itself, and the files of a learner killed in its first iteration.
fn begin_of(args: &TrainArgs, config: &TrainConfig, text: &str) -> Result<Begin, CliError> {
    if args.resume {
        return Ok(Begin::Start(Start::Resume));
    }
    let name = shell_word(&args.config);
    let existing: Vec<PathBuf> = run_files(config)
        .into_iter()
        .filter(|p| p.exists())
        .collect();
    if args.restart {
        let taken: Vec<PathBuf> = existing
            .iter()
            .map(|p| backup(p))
            .filter(|b| b.exists())
            .collect();
        if !taken.is_empty() {
            return Err(CliError::input(format!(
                "--restart: the backups of an earlier restart are still there ({}); move or \
                 delete them first, or continue the run with `evalearn train --config {name} \
                 --resume`",
                list(&taken)
            )));
        }
        return Ok(Begin::Restart(existing));
    }
    let checkpoint = config.beside_model("ckpt");
    let elsewhere = args.from_dataset.is_some() || args.workers.is_some();
    if elsewhere && checkpoint.exists() {
        return Ok(Begin::Start(Start::Continue));
    }
    // A learner killed in its first iteration left that iteration's files.
    if let Some(pool) = &args.workers
        && first_round_begun(pool, config, text)
    {
        return Ok(Begin::Start(Start::Continue));
    }
    if existing.is_empty() {
        return Ok(Begin::Start(if elsewhere {
            Start::Continue
        } else {
            Start::New
        }));
    }
    let resume = if checkpoint.exists() {
        format!("continue it with `evalearn train --config {name} --resume`, or ")
    } else {
        String::new()
    };
    // Say where --restart puts the files, a shipped model among them perhaps.
    Err(CliError::input(format!(
        "--config {name}: this run has results already ({}); {resume}start over with \
         `--restart`, which first moves them aside as {}",
        list(&existing),
        backups(&existing)
    )))
}

/// Makes the start `begin` asks for: `--restart`'s renames, said; the run's start.
fn take_up(begin: Begin) -> Result<Start, CliError> {
    let existing = match begin {
        Begin::Start(start) => return Ok(start),
        Begin::Restart(existing) => existing,
    };
    for path in &existing {
        std::fs::rename(path, backup(path)).map_err(|e| {
            CliError::failure(format!("--restart: cannot rename {}: {e}", path.display()))
        })?;
    }
    if !existing.is_empty() {
        println!(
            "restarting: the earlier results are kept as {}",
            backups(&existing)
        );
    }
    Ok(Start::New)
}

/// `path` as one word for a shell command line (quoted if it must be).
fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./-+=:,@%".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// What to do with the model just trained: the exact commands.
fn print_next_commands<G: CliGame>(config: &TrainConfig) {
    let model = shell_word(&config.model);
    let eval = &config.evaluation;
    let baseline = G::BUILTINS[0];
    let mut next = vec![
        (
            "play it:".to_string(),
            format!("evalearn play --model {model}"),
        ),
        (
            format!("match it with {baseline}:"),
            // The match the docs' figures come from: 400 games, opening seed 2026.
            format!(
                "evalearn match --a {model} --b {baseline} --depth {} --games {} --seed 2026",
                eval.depth,
                eval.games.max(400).next_multiple_of(2)
            ),
        ),
    ];
    if let Some((protocol, command)) = G::PROTOCOL {
        next.push((
            format!("as a {protocol} engine (GUIs):"),
            format!("evalearn {command} --model {model}"),
        ));
    }
    let width = next.iter().map(|(label, _)| label.chars().count()).max();
    println!("next:");
    for (label, command) in next {
        println!("  {label:<width$} {command}", width = width.unwrap_or(0));
    }
}

/// Where this session's time went: its stages' shares of the wall time, games and
/// positions a second.
fn print_time(summary: &TrainSummary) {
    if let Some(line) = time_line(summary) {
        println!("{line}");
    }
}

/// The `time:` line of a session: the wall time, each stage's share and seconds, and the
/// rest as start-up, so that the parts add up to the wall time; `None` for a session
/// that played no game.
fn time_line(summary: &TrainSummary) -> Option<String> {
    let wall = summary.session_seconds;
    if summary.session_games == 0 || wall <= 0.0 {
        return None;
    }
    Some(format!(
        "time: {wall:.1} s: {}, start-up {:.0}% ({:.1} s); {:.1} games/s, {:.0} positions/s",
        summary.stages.shares(wall),
        100.0 * summary.other_seconds() / wall,
        summary.other_seconds(),
        summary.session_games as f64 / wall,
        summary.session_positions as f64 / wall
    ))
}

/// The training's progress on stderr: a line for the whole run (iteration i/N, time
/// left, games per second, last Elo) above the bar of the current stage on a terminal.
/// Otherwise, for a log a person reads, only a line as an evaluation match starts (the
/// one long stage), or with `--verbose` a line as each stage starts and one on the run
/// after each iteration; the iterations' own lines are on stdout either way.
struct RunDisplay {
    /// Whether stderr is a terminal, where the bars are drawn.
    terminal: bool,
    verbose: bool,
    /// Whether stdout is that terminal too, so that lines go above the bars.
    lines_above_bars: bool,
    bars: MultiProgress,
    run: ProgressBar,
    stage_bar: ProgressBar,
    iterations: u64,
    games_per_iteration: u64,
    /// Iterations finished, and how many of them in this session.
    finished: u64,
    session_iterations: u64,
    session: Instant,
    last_elo: Option<String>,
    /// This session's seconds in each stage, from the metrics lines.
    stages: StageSeconds,
    /// The stage in progress (or the last one).
    stage: Option<Stage>,
}

impl RunDisplay {
    fn new(config: &TrainConfig, verbose: bool) -> RunDisplay {
        let terminal = std::io::stderr().is_terminal();
        let lines_above_bars = terminal && std::io::stdout().is_terminal();
        let bars = MultiProgress::with_draw_target(if terminal {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        });
        let run = bars.add(progress_bar(
            config.budget.iterations,
            "run   [{bar:30}] iteration {pos}/{len} {msg}",
        ));
        let stage_bar = bars.add(progress_bar(
            0,
            "stage [{bar:30}] {pos}/{len} {msg}, {per_sec:1}, eta {eta}",
        ));
        RunDisplay {
            terminal,
            verbose,
            lines_above_bars,
            bars,
            run,
            stage_bar,
            iterations: config.budget.iterations,
            games_per_iteration: config.selfplay.games_per_iteration,
            finished: 0,
            session_iterations: 0,
            session: Instant::now(),
            last_elo: None,
            stages: StageSeconds::default(),
            stage: None,
        }
    }

    fn println(&self, line: &str) {
        if self.lines_above_bars {
            let _ = self.bars.println(line);
        } else {
            println!("{line}");
        }
    }

    fn stage(&mut self, stage: Stage, done: u64, total: u64) {
        if self.stage != Some(stage) || done == 0 {
            self.stage = Some(stage);
            self.stage_bar.reset();
            self.stage_bar.set_length(total);
            self.stage_bar.set_message(stage.unit());
            if !self.terminal && (self.verbose || stage == Stage::Evaluation) {
                eprintln!(
                    "iteration {}/{}: {total} {}",
                    self.finished + 1,
                    self.iterations,
                    stage.unit()
                );
            }
        }
        self.stage_bar.set_position(done);
    }

    fn iteration(&mut self, finished: u64, line: Option<&MetricsLine>) {
        self.finished = finished;
        if let Some(line) = line {
            self.session_iterations += 1;
            if let Some(stages) = &line.stages {
                self.stages.add(stages);
            }
            if let (Some(elo), Some(low), Some(high)) = (line.elo, line.elo_low, line.elo_high) {
                self.last_elo = Some(format!("{elo:+.0} [{low:+.0}, {high:+.0}]"));
            }
        }
        self.run.set_position(finished);
        let seconds = self.session.elapsed().as_secs_f64();
        let mut message = String::new();
        if self.session_iterations > 0 {
            let left = self.iterations.saturating_sub(finished);
            let eta = seconds / self.session_iterations as f64 * left as f64;
            message.push_str(&format!(
                ", eta {}, {:.2} games/s",
                HumanDuration(Duration::from_secs_f64(eta)),
                (self.session_iterations * self.games_per_iteration) as f64 / seconds.max(1e-9)
            ));
        }
        if let Some(elo) = &self.last_elo {
            message.push_str(&format!(", last Elo {elo}"));
        }
        if self.stages.total() > 0.0 {
            let total = self.stages.total();
            let share = |s: f64| 100.0 * s / total;
            message.push_str(&format!(
                ", time in self-play {:.0}% · learning {:.0}% · evaluation {:.0}% · files {:.0}%",
                share(self.stages.selfplay),
                share(self.stages.learning),
                share(self.stages.evaluation),
                share(self.stages.writing)
            ));
        }
        self.run.set_message(message.clone());
        if !self.terminal && self.verbose && line.is_some() {
            eprintln!("run: iteration {finished}/{}{message}", self.iterations);
        }
    }

    fn finish(&self) {
        self.stage_bar.finish_and_clear();
        self.run.finish_and_clear();
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::iteration::StageSeconds;

    fn summary(wall: f64, stages: StageSeconds, games: u64) -> TrainSummary {
        TrainSummary {
            iterations: 1,
            games,
            positions: 10 * games,
            seconds: wall,
            interrupted: false,
            last: None,
            session_seconds: wall,
            session_games: games,
            session_positions: 10 * games,
            stages,
        }
    }

    /// The seconds in a `time:` line's parentheses.
    fn parts(line: &str) -> Vec<f64> {
        line.split('(')
            .skip(1)
            .map(|part| part.split(' ').next().unwrap().parse().unwrap())
            .collect()
    }

    #[test]
    fn the_time_line_adds_up_to_the_wall_time() {
        let stages = StageSeconds {
            selfplay: 6.04,
            learning: 2.03,
            evaluation: 1.01,
            writing: 0.46,
        };
        let line = time_line(&summary(10.0, stages, 100)).unwrap();
        assert!(
            line.starts_with("time: 10.0 s: self-play 60% (6.0 s)"),
            "{line}"
        );
        assert!(
            line.contains("start-up 5% (0.5 s)") && line.ends_with("10.0 games/s, 100 positions/s"),
            "{line}"
        );
        let parts = parts(&line);
        assert_eq!(parts.len(), 5, "four stages and the start-up: {line}");
        // Each part is printed to 0.1 s.
        let sum: f64 = parts.iter().sum();
        assert!((sum - 10.0).abs() <= 0.25, "{parts:?}");
        // Stages measured past the wall time leave no negative start-up.
        let over = StageSeconds {
            selfplay: 11.0,
            ..stages
        };
        let line = time_line(&summary(10.0, over, 100)).unwrap();
        assert!(line.contains("start-up 0% (0.0 s)"), "{line}");
        // A session without games has no line.
        assert_eq!(time_line(&summary(10.0, stages, 0)), None);
    }
}
