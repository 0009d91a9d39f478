//! `evalearn selfplay` and `evalearn dataset`: generating and inspecting self-play data.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use clap::{Args, Subcommand};

use super::args::{
    GameArg, LimitArgs, OpeningArgs, advance, eval_spec, load_evaluator, progress_bar,
};
use super::book::read_book;
use super::egdb::EgdbOption;
use super::{CliError, CliGame};
use crate::arena::engine_game::Exploration;
use crate::arena::players::Engine;
use crate::eval::spec::EvalSpec;
use crate::game::{EndReason, Game, GameSpec, SavedGame, Side, player_tag};
use crate::io::dataset::{self, Dataset, DatasetGame, DatasetWriter};
use crate::selfplay::{self, SelfPlayConfig, Shard, Tally};
use crate::with_game;

/// Most games one run plays.
const MAX_GAMES: u64 = 100_000_000;

#[derive(Args, Debug)]
pub struct SelfPlayArgs {
    #[command(flatten)]
    game: GameArg,
    /// Evaluator: a built-in one (draughts `material`; Kalah `stores`, `activity`,
    /// `tseitin`) or a model file path
    #[arg(long)]
    eval: String,
    /// Games in the whole run (all shards together)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_GAMES))]
    games: u64,
    #[command(flatten)]
    limits: LimitArgs,
    /// Worker threads (default: one per core); the output does not depend on it
    #[arg(long, default_value_t = 0)]
    threads: usize,
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
    /// Plies after which a game stops, counted as a draw
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    ply_cap: u32,
    /// Transposition table of each worker, in MiB
    #[arg(long = "tt-mb", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=4096))]
    tt_mb: u64,
    /// The dataset to write
    #[arg(long)]
    out: PathBuf,
    /// Also write the games to a game file (PDN for draughts, the seed's record form
    /// for Kalah)
    #[arg(long, visible_alias = "pdn")]
    record: Option<PathBuf>,
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
    /// Join datasets (e.g. shards of one run) into one, sorted by game index
    Merge {
        /// The dataset to write
        #[arg(long)]
        out: PathBuf,
        /// Datasets to join
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
    },
}

pub fn selfplay(args: SelfPlayArgs) -> Result<(), CliError> {
    let spec = eval_spec("--eval", &args.eval)?;
    let game = args.game.resolve(&[&spec])?;
    with_game!(game, selfplay_of(args, spec))
}

fn selfplay_of<G: CliGame>(
    variant: G::Variant,
    args: SelfPlayArgs,
    spec: EvalSpec,
) -> Result<(), CliError> {
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
        args.openings
            .openings(variant, args.games as usize, args.seed)?
    };
    let config = SelfPlayConfig {
        games: args.games,
        first_game: 0,
        limits: args.limits.limits(),
        seed: args.seed,
        exploration,
        ply_cap: args.ply_cap,
        threads: args.threads,
        shard,
        tt_mib: args.tt_mb as usize,
        adjudicate: !args.no_adjudicate,
    };
    let engine = Engine::new(evaluator, args.egdb.load::<G>()?);
    let mut writer = DatasetWriter::create(&args.out, &G::variant_name(variant))
        .map_err(|e| CliError::failure(e.to_string()))?;
    let total = shard.games(0, args.games).len() as u64;
    let bar = progress_bar(
        total,
        "[{bar:30}] {pos}/{len} games, {per_sec:1}, eta {eta}  {msg}",
    );
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut games: Vec<DatasetGame<G>> = Vec::new();
    let mut write_error = None;
    let stop = AtomicBool::new(false);
    let book = book.as_deref();
    selfplay::run_with_book(&config, &engine, &openings, book, &stop, |game| {
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
        if args.record.is_some() {
            games.push(game);
        }
    })
    .map_err(CliError::failure)?;
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(CliError::failure(e.to_string()));
    }
    writer
        .finish()
        .map_err(|e| CliError::failure(e.to_string()))?;
    if let Some(path) = &args.record {
        games.sort_by_key(|g| g.index);
        let name = spec.to_string();
        let text = games
            .iter()
            .map(|g| G::write_game(&saved_game(g, &name)))
            .collect::<Vec<_>>()
            .join("\n");
        crate::io::write_atomic(path, text.as_bytes())
            .map_err(|e| CliError::failure(format!("cannot write {}: {e}", path.display())))?;
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "selfplay: {} games, {} positions in {:.1} s ({:.2} games/s, {:.0} positions/s); \
         {} wins {}, draws {} ({} at the ply cap), {} wins {}; written to {}",
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
        args.out.display()
    );
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

pub fn dataset(args: DatasetArgs) -> Result<(), CliError> {
    let first = match &args.command {
        DatasetCommand::Info { path } => path,
        DatasetCommand::Merge { inputs, .. } => &inputs[0],
    };
    let name = dataset::read_game_name(first).map_err(|e| CliError::input(e.to_string()))?;
    let game = GameSpec::parse(&name)
        .map_err(|e| CliError::input(format!("dataset {}: {e}", first.display())))?;
    with_game!(game, dataset_of(args, name))
}

fn dataset_of<G: CliGame>(
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
        DatasetCommand::Merge { out, inputs } => {
            let mut games = Vec::new();
            for input in &inputs {
                let data = Dataset::<G>::read(input, Some(&name))
                    .map_err(|e| CliError::input(e.to_string()))?;
                if let Some(warning) = &data.warning {
                    eprintln!("warning: {warning}");
                }
                games.extend(data.games);
            }
            Dataset::write_sorted(&out, &name, &games)
                .map_err(|e| CliError::input(e.to_string()))?;
            println!("merged {} games into {}", games.len(), out.display());
            Ok(())
        }
    }
}
