//! `evalearn accuracy`: how close an evaluator is to perfect play, on positions whose
//! exact values are known (the draughts endgame database; Kalah positions solved
//! exactly). See [`crate::accuracy`] for what is measured.

use std::path::PathBuf;

use clap::Args;

use super::args::{GameArg, SolverDbArgs, eval_spec, load_evaluator};
use super::egdb::EgdbOption;
use super::games::{Games, Job};
use super::{CliError, CliGame, interrupt};
use crate::accuracy::cases::{AccuracyError, AccuracyOptions};
use crate::accuracy::{self, Case, Probability, Report, Settings};
use crate::eval::spec::{AnyEvaluator, EvalSpec};
use crate::eval::{EvalGame, Evaluator};
use crate::search::{MAX_PLY, SharedTablebase};

/// Most positions a run measures.
const MAX_POSITIONS: u64 = 1_000_000;

#[derive(Args, Debug)]
pub struct AccuracyArgs {
    /// Evaluator: a built-in one (`material`; `stores`, `activity`, `tseitin`) or a model
    /// file
    #[arg(long)]
    pub eval: String,
    /// Brazilian draughts: the endgame database folder the positions and their values
    /// come from
    #[arg(long, conflicts_with = "game")]
    pub egdb: Option<PathBuf>,
    /// Kalah: kalah:6:STONES[:empty-capture] with at most 4 stones a pit (positions from
    /// seeded self-play games, solved exactly)
    #[arg(long)]
    pub game: Option<String>,
    /// Positions measured
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_POSITIONS))]
    pub positions: u64,
    /// Seed of the positions drawn
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Search depths, comma-separated; 0 is the static evaluation's own choice (each
    /// move's result evaluated statically, through quiescence)
    #[arg(long, default_value = "0,2,4,6")]
    pub depths: String,
    /// Draughts: piece counts drawn and their weights, PIECES:WEIGHT,... (default: equal
    /// weights for 3 pieces up to the most the database holds completely)
    #[arg(long, conflicts_with = "from")]
    pub mix: Option<String>,
    /// Positions from a dataset instead (draughts: those inside the database)
    #[arg(long)]
    pub from: Option<PathBuf>,
    /// Kalah: only positions with at most this many stones in the pits (late ones, far
    /// cheaper to solve; any variant, kalah:6:6 included, with at most 30)
    #[arg(long, conflicts_with = "from", value_parser = clap::value_parser!(u32).range(1..=72))]
    pub max_pit_stones: Option<u32>,
    /// Static values within ±this many centi-units predict a draw
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(i32).range(0..=20_000))]
    pub draw_band: i32,
    /// Transposition table of each thread's searcher (and Kalah solver: ×16), MiB
    #[arg(long = "tt-mb", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub tt_mb: u64,
    /// Threads solving and searching the positions (default: one per core); the figures
    /// do not depend on it
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[command(flatten)]
    pub db: SolverDbArgs,
    /// The depth searches also read the endgame database in this folder, as the playing
    /// commands' `--egdb` does (Kalah: the solver's folder, e.g. the `--db-dir`); the
    /// static figures stay the evaluator's own
    #[arg(long)]
    pub search_egdb: Option<PathBuf>,
    /// Also write the figures as JSON to this file
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Replace an existing --json file
    #[arg(long)]
    pub force: bool,
}

impl AccuracyArgs {
    /// The options the game draws its positions by.
    fn options(&self) -> AccuracyOptions {
        AccuracyOptions {
            egdb: self.egdb.clone(),
            positions: self.positions,
            seed: self.seed,
            mix: self.mix.clone(),
            from: self.from.clone(),
            max_pit_stones: self.max_pit_stones,
            tt_mb: self.tt_mb,
            db_dir: self.db.db_dir.clone(),
            db_stones: self.db.db_stones,
        }
    }
}

/// A game's refusal as the command's: its message, and exit status 2 (input), 1
/// (failure) or 130 (Ctrl-C).
impl From<AccuracyError> for CliError {
    fn from(error: AccuracyError) -> CliError {
        match error {
            AccuracyError::Input(message) => CliError::input(message),
            AccuracyError::Failure(message) => CliError::failure(message),
            AccuracyError::Stopped(message) => CliError {
                message,
                status: interrupt::STATUS,
            },
        }
    }
}

/// The command line's errors met while a game draws its positions (its databases opened,
/// Ctrl-C), kept as they are: the same message and exit status once turned back.
impl From<CliError> for AccuracyError {
    fn from(error: CliError) -> AccuracyError {
        match error.status {
            2 => AccuracyError::Input(error.message),
            interrupt::STATUS => AccuracyError::Stopped(error.message),
            _ => AccuracyError::Failure(error.message),
        }
    }
}

pub fn accuracy(games: &Games, args: AccuracyArgs) -> Result<(), CliError> {
    if let Some(path) = &args.json {
        super::args::check_new_output("--json", path, args.force)?;
    }
    if args.game.is_none() && args.egdb.is_none() {
        return Err(CliError::input(
            "give where the positions come from: --egdb DIR (a game's endgame database) or \
             --game GAME (a game whose positions are solved)",
        ));
    }
    let spec = eval_spec(games, "--eval", &args.eval)?;
    let game = GameArg {
        game: args.game.clone(),
    }
    .resolve(games, &[&spec])?;
    games.run(&game, Job::Accuracy(Box::new(args), spec))
}

/// `accuracy` for game `G`: the game draws the positions
/// ([`crate::accuracy::cases::AccuracyGame`]), the evaluator's searches are measured on
/// them.
pub(super) fn accuracy_of<G: CliGame>(
    variant: G::Variant,
    args: AccuracyArgs,
    spec: EvalSpec,
) -> Result<(), CliError> {
    let depths = parse_depths(&args.depths)?;
    let options = args.options();
    G::check_accuracy_options(variant, &options)?;
    let evaluator = load_evaluator::<G>(variant, &spec)?.0;
    let settings = Settings {
        depths,
        draw_band: args.draw_band,
        probability: evaluator
            .logit_scale()
            .map(|centi_per_logit| Probability::Logistic { centi_per_logit }),
        tt_mib: args.tt_mb as usize,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| CliError::failure(format!("cannot start worker threads: {e}")))?;
    let tablebase = match &args.search_egdb {
        Some(dir) => EgdbOption {
            egdb: Some(dir.clone()),
            no_egdb: false,
        }
        .load::<G>()?,
        None => None,
    };
    let (cases, units) = pool.install(|| G::accuracy_cases(variant, &options))?;
    let report = pool.install(|| measure(&cases, &evaluator, &settings, tablebase.as_ref()));
    println!("evaluator {spec}");
    print!("{}", report.text(units));
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report.json()).expect("JSON of numbers");
        crate::io::write_atomic(path, format!("{text}\n").as_bytes())
            .map_err(|e| CliError::failure(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// Reads `--depths`: comma-separated depths, each at most the search's limit.
fn parse_depths(text: &str) -> Result<Vec<u32>, CliError> {
    let max = MAX_PLY as u32 - 8;
    let depths: Vec<u32> = text
        .split(',')
        .map(|part| {
            part.trim()
                .parse::<u32>()
                .ok()
                .filter(|&d| d <= max)
                .ok_or_else(|| {
                    CliError::input(format!(
                        "--depths {text}: '{part}' is not a depth 0..={max}"
                    ))
                })
        })
        .collect::<Result<_, _>>()?;
    let mut seen = depths.clone();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() != depths.len() {
        return Err(CliError::input(format!(
            "--depths {text}: a depth is given twice"
        )));
    }
    Ok(depths)
}

fn measure<G: EvalGame>(
    cases: &[Case<G>],
    evaluator: &AnyEvaluator<G>,
    settings: &Settings,
    tablebase: Option<&SharedTablebase<G>>,
) -> Report {
    let verdicts = accuracy::verdicts_with(cases, evaluator, settings, tablebase);
    accuracy::report(cases, &verdicts, settings)
}
