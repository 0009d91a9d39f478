//! `evalearn selfplay` and `evalearn dataset`: generating and inspecting self-play data.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, Subcommand};

use super::args::{
    GameArg, LimitArgs, OpeningArgs, advance, alone, check_new_output, eval_spec, load_evaluator,
    progress_bar, typed_flag, write_output,
};
use super::book::read_book;
use super::egdb::EgdbOption;
use super::games::{Games, Job};
use super::interrupt;
use super::{CliError, CliGame};
use crate::arena::engine_game::Exploration;
use crate::arena::matches::{DEFAULT_PLY_CAP, GAMES_TT_MIB};
use crate::arena::players::Engine;
use crate::book::Book;
use crate::eval::spec::{AnyEvaluator, EvalSpec};
use crate::game::{EndReason, Game, SavedGame, Side, player_tag};
use crate::io::dataset::{self, Dataset, DatasetGame, DatasetWriter};
use crate::learn::config::TrainConfig;
use crate::learn::train::plan_shard;
use crate::selfplay::{self, SelfPlayConfig, Shard, Tally};

/// Most games one run plays.
const MAX_GAMES: u64 = 100_000_000;

#[derive(Args, Debug)]
// The search limits are required unless --config gives them (checked in `selfplay_of`).
#[command(mut_group("LimitArgs", |g| g.required(false)))]
pub struct SelfPlayArgs {
    /// Play (a shard of) the next iteration of this training run as `train` would: its
    /// learner's current model (the checkpoint beside the model, or a fresh learner), its
    /// openings, exploration, limits and game numbers; replaces the options that set those
    #[arg(long, value_name = "FILE", group = alone::CONFIG, conflicts_with_all = [
        "game", "eval", "games", "LimitArgs", "seed", "openings",
        "random_plies", "book", "temperature", "temperature_plies", "ply_cap", "tt_mb",
        "no_adjudicate",
    ])]
    config: Option<PathBuf>,
    #[command(flatten)]
    game: GameArg,
    /// Evaluator: a built-in one (draughts `material`; Kalah `stores`, `activity`,
    /// `tseitin`) or a model file path
    #[arg(long, required_unless_present = "config")]
    eval: Option<String>,
    /// Games in the whole run (all shards together)
    #[arg(long, required_unless_present = "config",
          value_parser = clap::value_parser!(u64).range(1..=MAX_GAMES))]
    games: Option<u64>,
    #[command(flatten)]
    limits: LimitArgs,
    /// Worker threads (default: one per core, or the config's); the output does not
    /// depend on it
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of every random choice (openings, exploration)
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    openings: OpeningArgs,
    /// Each game follows this opening book while its position is in it (moves drawn by
    /// the book's weights from the game's own random stream); games then start at the
    /// start position unless --openings or --random-plies is given
    #[arg(long)]
    book: Option<PathBuf>,
    /// Softmax exploration over root move values, temperature in units of 100
    /// centi-units (a man, a stone: 0.5 = 50 centi-units)
    #[arg(long)]
    temperature: Option<f64>,
    /// Plies of each game that explore (with --temperature)
    #[arg(long, default_value_t = 10, requires = "temperature")]
    temperature_plies: u32,
    /// Play only shard I of N (games whose index is I-1 mod N)
    #[arg(long, default_value = "1/1")]
    shard: String,
    /// Plies after which a game stops, counted as a draw (the same default everywhere,
    /// training configs' ply_cap included)
    #[arg(long, default_value_t = DEFAULT_PLY_CAP, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    ply_cap: u32,
    /// Transposition table of each engine in each worker, in MiB (small, as in training's
    /// self-play: the workers' tables share the cache; play, analyse and hub search one
    /// position at a time and default to 64)
    #[arg(long = "tt-mb", default_value_t = GAMES_TT_MIB, value_parser = clap::value_parser!(u64).range(1..=4096))]
    tt_mb: u64,
    /// The dataset to write
    #[arg(long, required_unless_present = "worker")]
    out: Option<PathBuf>,
    /// With --config: be a worker of the run that `train --config CONFIG --workers DIR`
    /// learns, playing the shards of its iterations as they are published in DIR until
    /// the run is done (docs/cluster.md)
    #[arg(long, value_name = "DIR", requires = alone::CONFIG, group = alone::WORKER,
          conflicts_with_all = ["shard", "out", "record"])]
    worker: Option<PathBuf>,
    /// With --worker: its name in the claims of DIR (default: $SLURM_PROCID and the
    /// process id)
    #[arg(long, requires = alone::WORKER)]
    worker_id: Option<String>,
    /// With --worker: leave after playing this many shards (a job slot of bounded
    /// length; the learner hands the rest to the other workers)
    #[arg(long, requires = alone::WORKER, value_parser = clap::value_parser!(u64).range(1..))]
    max_shards: Option<u64>,
    /// Also write the games to a game file (PDN for draughts, the .klh record
    /// for Kalah)
    #[arg(long, visible_alias = "pdn")]
    record: Option<PathBuf>,
    /// Replace an existing --out or --record file
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    egdb: EgdbOption,
    /// Play games on inside the endgame database instead of ending them with its result
    #[arg(long)]
    no_adjudicate: bool,
}

#[derive(Args, Debug)]
pub struct DatasetArgs {
    #[command(subcommand)]
    command: DatasetCommand,
}

#[derive(Subcommand, Debug)]
enum DatasetCommand {
    /// Games, positions and results of a dataset
    Info {
        /// The dataset file
        path: PathBuf,
    },
    /// Join the shards of one run (`selfplay --shard I/N`) into one dataset, sorted by
    /// game index (separate runs share game numbers and cannot be joined)
    Merge {
        /// The dataset to write
        #[arg(long)]
        out: PathBuf,
        /// Replace an existing --out file
        #[arg(long)]
        force: bool,
        /// Datasets to join
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
    },
}

pub fn selfplay(games: &Games, args: SelfPlayArgs) -> Result<(), CliError> {
    if let Some(out) = &args.out {
        check_new_output("--out", out, args.force)?;
    }
    if let Some(path) = &args.record {
        check_new_output(typed_flag("--record", &["--pdn"]), path, args.force)?;
    }
    if let Some(path) = args.config.clone() {
        let (config, text) =
            TrainConfig::read(&path).map_err(|e| CliError::input(e.to_string()))?;
        let game = super::train::config_game(games, &path, &config)?;
        return games.run(
            &game,
            Job::SelfPlayRun(Box::new(args), path, Box::new(config), text),
        );
    }
    let Some(eval) = &args.eval else {
        return Err(CliError::input("--eval is needed (or --config)"));
    };
    let spec = eval_spec(games, "--eval", eval)?;
    let game = args.game.resolve(games, &[&spec])?;
    games.run(&game, Job::SelfPlay(Box::new(args), spec))
}

/// A self-play run to play: how, with what, from where.
struct Plan<G: CliGame> {
    config: SelfPlayConfig,
    engine: Engine<G, AnyEvaluator<G>>,
    openings: Vec<G>,
    book: Option<Arc<Book<G>>>,
    /// The players' name in game files.
    player: String,
}

/// `selfplay --eval`: the games the options describe.
pub(super) fn selfplay_of<G: CliGame>(
    variant: G::Variant,
    args: SelfPlayArgs,
    spec: EvalSpec,
) -> Result<(), CliError> {
    let Some(games) = args.games else {
        return Err(CliError::input("--games is needed (or --config)"));
    };
    let limits = args.limits.limits();
    if limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none() {
        return Err(CliError::input(
            "one of --depth, --nodes, --movetime is needed (or --config)",
        ));
    }
    let shard = Shard::parse(&args.shard).map_err(CliError::input)?;
    let exploration = match args.temperature {
        Some(t) if t.is_finite() && t > 0.0 => Some(Exploration {
            temperature: t,
            plies: args.temperature_plies,
        }),
        Some(t) => {
            return Err(CliError::input(format!(
                "--temperature {t}: must be above 0"
            )));
        }
        None => None,
    };
    let (evaluator, _) = load_evaluator::<G>(variant, &spec)?;
    let book = match &args.book {
        Some(path) => Some(read_book::<G>(variant, path)?),
        None => None,
    };
    let openings = if book.is_some()
        && args.openings.openings.is_none()
        && args.openings.random_plies.is_none()
    {
        vec![G::start_of(variant)]
    } else {
        args.openings.openings(variant, games as usize, args.seed)?
    };
    let config = SelfPlayConfig {
        games,
        first_game: 0,
        limits,
        seed: args.seed,
        exploration,
        ply_cap: args.ply_cap,
        threads: args.threads.unwrap_or(0),
        shard,
        tt_mib: args.tt_mb as usize,
        adjudicate: !args.no_adjudicate,
    };
    let plan = Plan {
        config,
        engine: Engine::new(evaluator, args.egdb.load::<G>()?),
        openings,
        book,
        player: spec.to_string(),
    };
    play(variant, plan, out_of(&args), args.record.as_deref())
}

/// The dataset to write (clap requires it but with --worker).
fn out_of(args: &SelfPlayArgs) -> &Path {
    args.out
        .as_deref()
        .expect("--out is required but with --worker")
}

/// `selfplay --config`: a shard of the next iteration of a training run, or a worker of
/// the run.
pub(super) fn selfplay_of_run<G: CliGame>(
    variant: G::Variant,
    args: SelfPlayArgs,
    path: &Path,
    config: TrainConfig,
    text: String,
) -> Result<(), CliError> {
    if let Some(dir) = &args.worker {
        return worker::<G>(variant, &args, dir, &config, &text);
    }
    let shard = Shard::parse(&args.shard).map_err(CliError::input)?;
    let run = plan_shard::<G>(variant, &config, &text, shard, args.threads)
        .map_err(|e| CliError::input(format!("--config {}: {e}", path.display())))?;
    let games = shard.games(run.selfplay.first_game, run.selfplay.games);
    let iteration = run.finished + 1;
    println!(
        "selfplay: iteration {iteration}/{} of {}, games {}–{}: shard {} plays {} of them \
         with {}",
        config.budget.iterations,
        path.display(),
        run.selfplay.first_game,
        run.selfplay.first_game + run.selfplay.games - 1,
        args.shard,
        games.len(),
        match (&run.teacher, run.finished) {
            (Some(teacher), _) => format!("the learner's teacher {teacher}"),
            (None, 0) => "the fresh learner's evaluator".to_string(),
            (None, finished) => format!("the model of iteration {finished}"),
        }
    );
    let plan = Plan {
        config: run.selfplay,
        engine: Engine::new(run.evaluator, args.egdb.load::<G>()?),
        openings: run.openings,
        book: None,
        player: format!("{} iteration {iteration}", config.model.display()),
    };
    play(variant, plan, out_of(&args), args.record.as_deref())
}

/// Plays `plan` into the dataset `out` (and the game file `record`), with a progress bar
/// and a closing summary.
fn play<G: CliGame>(
    variant: G::Variant,
    plan: Plan<G>,
    out: &Path,
    record: Option<&Path>,
) -> Result<(), CliError> {
    let config = &plan.config;
    let mut writer = DatasetWriter::create(out, &G::variant_name(variant))
        .map_err(|e| CliError::failure(format!("--out: {e}")))?;
    let total = config.shard.games(config.first_game, config.games).len() as u64;
    let bar = progress_bar(
        total,
        "[{bar:30}] {pos}/{len} games, {per_sec:1}, eta {eta}  {msg}",
    );
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut games: Vec<DatasetGame<G>> = Vec::new();
    let mut write_error = None;
    // Ctrl-C, or a write that failed: the games finished so far are kept.
    let stop = interrupt::flag();
    let book = plan.book.as_deref();
    selfplay::run_with_book(config, &plan.engine, &plan.openings, book, &stop, |game| {
        tally.add(&game);
        if write_error.is_none()
            && let Err(e) = writer.append(&game)
        {
            write_error = Some(e);
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let seconds = started.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!(
            "first/draw/second {}/{}/{}  {:.0} positions/s",
            tally.first_wins,
            tally.draws,
            tally.second_wins,
            tally.positions as f64 / seconds
        ));
        advance(&bar, "games");
        if record.is_some() {
            games.push(game);
        }
    })
    .map_err(CliError::failure)?;
    bar.finish_and_clear();
    let out_error = |e: dataset::DatasetError| CliError::failure(format!("--out: {e}"));
    if let Some(e) = write_error {
        return Err(out_error(e));
    }
    writer.finish().map_err(out_error)?;
    if let Some(path) = record {
        games.sort_by_key(|g| g.index);
        let text = games
            .iter()
            .map(|g| G::write_game(&saved_game(g, &plan.player)))
            .collect::<Vec<_>>()
            .join("\n");
        write_output(typed_flag("--record", &["--pdn"]), path, text.as_bytes())?;
    }
    let seconds = started.elapsed().as_secs_f64();
    let interrupted = interrupt::raised(&stop);
    println!(
        "selfplay{}: {} games, {} positions in {:.1} s ({:.2} games/s, {:.0} positions/s); \
         {} wins {}, draws {} ({} at the ply cap), {} wins {}; written to {}",
        if interrupted {
            format!(" stopped after {} of {total} games", tally.games)
        } else {
            String::new()
        },
        tally.games,
        tally.positions,
        seconds,
        tally.games as f64 / seconds.max(1e-9),
        tally.positions as f64 / seconds.max(1e-9),
        G::side_name(Side::First),
        tally.first_wins,
        tally.draws,
        tally.capped,
        G::side_name(Side::Second),
        tally.second_wins,
        out.display()
    );
    if interrupted {
        return Err(interrupt::stopped(format!(
            "the {} finished games are in {}",
            tally.games,
            out.display()
        )));
    }
    Ok(())
}

/// A dataset game for a game file, both sides named after the evaluator.
pub fn saved_game<G: Game>(game: &DatasetGame<G>, player: &str) -> SavedGame<G> {
    let tags = vec![
        ("Event".to_string(), "evalearn selfplay".to_string()),
        ("Round".to_string(), (game.index + 1).to_string()),
        (player_tag::<G>(Side::First), player.to_string()),
        (player_tag::<G>(Side::Second), player.to_string()),
    ];
    SavedGame {
        tags,
        start: game.positions[0],
        moves: game.moves.clone(),
        result: Some(game.outcome),
    }
}

pub fn dataset(games: &Games, args: DatasetArgs) -> Result<(), CliError> {
    if let DatasetCommand::Merge { out, force, .. } = &args.command {
        check_new_output("--out", out, *force)?;
    }
    let first = match &args.command {
        DatasetCommand::Info { path } => path,
        DatasetCommand::Merge { inputs, .. } => &inputs[0],
    };
    let name = dataset::read_game_name(first).map_err(|e| CliError::input(e.to_string()))?;
    let game = games
        .parse(&name)
        .map_err(|e| CliError::input(format!("dataset {}: {e}", first.display())))?;
    games.run(&game, Job::Dataset(args, name))
}

pub(super) fn dataset_of<G: CliGame>(
    _variant: G::Variant,
    args: DatasetArgs,
    name: String,
) -> Result<(), CliError> {
    match args.command {
        DatasetCommand::Info { path } => {
            let data =
                Dataset::<G>::read(&path, None).map_err(|e| CliError::input(e.to_string()))?;
            if let Some(warning) = &data.warning {
                eprintln!("warning: {warning}");
            }
            let mut tally = Tally::default();
            let mut reasons = [0u64; EndReason::ALL.len()];
            for game in &data.games {
                tally.add(game);
                reasons[game.reason.code() as usize] += 1;
            }
            let lengths: Vec<usize> = data.games.iter().map(DatasetGame::len).collect();
            println!("dataset {} ({} games)", path.display(), data.game);
            println!("games        {}", tally.games);
            println!("positions    {}", tally.positions);
            if let (Some(min), Some(max)) = (lengths.iter().min(), lengths.iter().max()) {
                println!(
                    "plies        {min}..{max}, mean {:.1}",
                    tally.positions as f64 / tally.games as f64
                );
            }
            println!(
                "results      {} wins {}, draws {}, {} wins {}",
                G::side_name(Side::First),
                tally.first_wins,
                tally.draws,
                G::side_name(Side::Second),
                tally.second_wins
            );
            let endings: Vec<String> = EndReason::ALL
                .iter()
                .zip(reasons)
                .map(|(reason, n)| format!("{} {n}", reason.label()))
                .collect();
            println!("endings      {}", endings.join(", "));
            Ok(())
        }
        DatasetCommand::Merge { out, inputs, .. } => {
            let mut games = Vec::new();
            // Which input each game index came from, to name both holders of a game.
            let mut holder: HashMap<u64, usize> = HashMap::new();
            for (i, input) in inputs.iter().enumerate() {
                let data = Dataset::<G>::read(input, Some(&name))
                    .map_err(|e| CliError::input(e.to_string()))?;
                if let Some(warning) = &data.warning {
                    eprintln!("warning: {warning}");
                }
                for game in &data.games {
                    if let Some(first) = holder.insert(game.index, i) {
                        return Err(CliError::input(duplicate_game(
                            &inputs, first, i, game.index,
                        )));
                    }
                }
                games.extend(data.games);
            }
            // Its errors are then only --out's (checked above: a full disk, say).
            Dataset::write_sorted(&out, &name, &games)
                .map_err(|e| CliError::failure(e.to_string()))?;
            println!("merged {} games into {}", games.len(), out.display());
            Ok(())
        }
    }
}

/// Why `dataset merge` refuses game `index` of `inputs[second]`, already met in
/// `inputs[first]`: merge joins the shards of one run, whose games are numbered apart;
/// separate runs all number theirs from 0.
fn duplicate_game(inputs: &[PathBuf], first: usize, second: usize, index: u64) -> String {
    let path = inputs[second].display();
    let place = if first == second {
        format!("dataset {path}: game {index} appears twice in it")
    } else if inputs[first] == inputs[second] {
        format!("dataset {path}: given twice")
    } else {
        format!(
            "dataset {path}: game {index} is also in {}",
            inputs[first].display()
        )
    };
    format!(
        "{place}; merge joins the shards of one run (`selfplay --shard I/N` with the same \
         options and seed, or `selfplay --config … --shard I/N`), whose games are numbered \
         apart, and cannot join separate runs, which all number their games from 0"
    )
}

/// `selfplay --config CONFIG --worker DIR`: plays the run's shards as its learner
/// publishes them, until the run is done.
fn worker<G: CliGame>(
    variant: G::Variant,
    args: &SelfPlayArgs,
    dir: &Path,
    config: &TrainConfig,
    text: &str,
) -> Result<(), CliError> {
    let id = args
        .worker_id
        .clone()
        .unwrap_or_else(|| match std::env::var("SLURM_PROCID") {
            Ok(rank) => format!(
                "task {rank} of job {}",
                std::env::var("SLURM_JOB_ID").unwrap_or_default()
            ),
            Err(_) => format!("pid {}", std::process::id()),
        });
    let stop = interrupt::flag();
    let tablebase = args.egdb.load::<G>()?;
    println!("selfplay: worker {id} of the run in {}", dir.display());
    let summary = crate::learn::cluster::work::<G>(
        variant,
        dir,
        config,
        text,
        &id,
        args.threads.unwrap_or(config.selfplay.threads),
        args.max_shards,
        tablebase,
        &stop,
        &mut |line| println!("{line}"),
    )
    .map_err(CliError::failure)?;
    println!(
        "selfplay: worker {id} played {} shards ({} games); {}",
        summary.shards, summary.games, summary.ended
    );
    if interrupt::raised(&stop) {
        return Err(interrupt::stopped("the worker was stopped"));
    }
    Ok(())
}
