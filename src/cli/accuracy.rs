//! `evalearn accuracy`: how close an evaluator is to perfect play, on positions whose
//! exact values are known (the draughts endgame database; Kalah positions solved
//! exactly). See [`crate::accuracy`] for what is measured.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;

use super::args::{advance, eval_spec, load_evaluator, progress_bar};
use super::solve::{KalahDbArgs, parse_game};
use super::{CliError, interrupt};
use crate::accuracy::{self, Case, Probability, Report, Settings};
use crate::eval::EvalGame;
use crate::eval::glem::{self, GlemModel};
use crate::eval::spec::{AnyEvaluator, EvalSpec};
use crate::game::Game;
use crate::game::brazilian::Brazilian;
use crate::game::brazilian::egdb::Egdb;
use crate::game::kalah::solve::Solver;
use crate::game::kalah::solve::cache::{CachedSolver, SolvedCache};
use crate::game::kalah::{Kalah, KalahRules};
use crate::io::dataset::Dataset;
use crate::search::MAX_PLY;

/// Most positions a run measures.
const MAX_POSITIONS: u64 = 1_000_000;
/// Kalah variants solved here: more stones a pit take far too long to solve.
pub const MAX_SOLVED_STONES: u8 = 4;
/// Seconds between saves of the solved values while solving.
const SAVE_EVERY_SECONDS: u64 = 30;
/// Most stones in the pits of the late positions solved in any Kalah variant.
const MAX_LATE_PIT_STONES: u32 = 30;

#[derive(Args, Debug)]
pub struct AccuracyArgs {
    /// Evaluator: a built-in one (`material`; `stores`, `activity`, `tseitin`) or a model
    /// file
    #[arg(long)]
    eval: String,
    /// Brazilian draughts: the endgame database folder the positions and their values
    /// come from
    #[arg(long, conflicts_with = "game")]
    egdb: Option<PathBuf>,
    /// Kalah: kalah:6:STONES[:empty-capture] with at most 4 stones a pit (positions from
    /// seeded self-play games, solved exactly)
    #[arg(long)]
    game: Option<String>,
    /// Positions measured
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_POSITIONS))]
    positions: u64,
    /// Seed of the positions drawn
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Search depths, comma-separated; 0 is the static evaluation's own choice (each
    /// move's result evaluated statically, through quiescence)
    #[arg(long, default_value = "0,2,4,6")]
    depths: String,
    /// Draughts: piece counts drawn and their weights, PIECES:WEIGHT,... (default: equal
    /// weights for 3 pieces up to the most the database holds completely)
    #[arg(long, conflicts_with = "from")]
    mix: Option<String>,
    /// Positions from a dataset instead (draughts: those inside the database)
    #[arg(long)]
    from: Option<PathBuf>,
    /// Kalah: only positions with at most this many stones in the pits (late ones, far
    /// cheaper to solve; any variant, kalah:6:6 included, with at most 30)
    #[arg(long, conflicts_with = "from", value_parser = clap::value_parser!(u32).range(1..=72))]
    max_pit_stones: Option<u32>,
    /// Static values within ±this many centi-units predict a draw
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(i32).range(0..=20_000))]
    draw_band: i32,
    /// Transposition table of each searcher (and of the Kalah solver ×16), MiB
    #[arg(long = "tt-mb", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=4096))]
    tt_mb: u64,
    #[command(flatten)]
    db: KalahDbArgs,
    /// Also write the figures as JSON to this file
    #[arg(long)]
    json: Option<PathBuf>,
    /// Replace an existing --json file
    #[arg(long)]
    force: bool,
}

pub fn accuracy(args: AccuracyArgs) -> Result<(), CliError> {
    let depths = parse_depths(&args.depths)?;
    if let Some(path) = &args.json
        && path.exists()
        && !args.force
    {
        return Err(CliError::input(format!(
            "--json {}: the file exists; give --force to replace it",
            path.display()
        )));
    }
    let spec = eval_spec("--eval", &args.eval)?;
    let settings = |probability| Settings {
        depths: depths.clone(),
        draw_band: args.draw_band,
        probability,
        tt_mib: args.tt_mb as usize,
    };
    let (report, units) = match (&args.egdb, &args.game) {
        (Some(dir), None) => {
            if args.db.db_dir.is_some()
                || args.db.db_stones.is_some()
                || args.max_pit_stones.is_some()
            {
                return Err(CliError::input(
                    "--db-dir, --db-stones and --max-pit-stones are for Kalah; draughts reads --egdb",
                ));
            }
            let evaluator = load_evaluator::<Brazilian>((), &spec)?.0;
            let settings = settings(probability_of(&spec, &evaluator)?);
            (draughts(&args, dir, &evaluator, &settings)?, "result steps")
        }
        (None, Some(game)) => {
            let rules = parse_game(game)?;
            let late = args
                .max_pit_stones
                .is_some_and(|most| most <= MAX_LATE_PIT_STONES);
            if rules.stones > MAX_SOLVED_STONES && !late {
                return Err(CliError::input(format!(
                    "--game {game}: accuracy solves Kalah with at most {MAX_SOLVED_STONES} \
                     stones a pit (kalah:6:1 .. kalah:6:{MAX_SOLVED_STONES}), or late positions \
                     of any variant with --max-pit-stones {MAX_LATE_PIT_STONES} or fewer"
                )));
            }
            if args.mix.is_some() {
                return Err(CliError::input("--mix is for draughts (--egdb)"));
            }
            let evaluator = load_evaluator::<Kalah>(rules, &spec)?.0;
            let settings = settings(probability_of(&spec, &evaluator)?);
            (kalah(&args, rules, &evaluator, &settings)?, "stones")
        }
        _ => {
            return Err(CliError::input(
                "give --egdb DIR (Brazilian draughts) or --game kalah:6:STONES (Kalah), one of them",
            ));
        }
    };
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

/// The win probability of the evaluator's values, if it has one: TD's output is
/// `σ(value / 100)`, GLEM's `σ(value / scale)`.
fn probability_of<G: EvalGame>(
    spec: &EvalSpec,
    evaluator: &AnyEvaluator<G>,
) -> Result<Option<Probability>, CliError> {
    Ok(match (evaluator, spec) {
        (AnyEvaluator::Td(_), _) => Some(Probability::Logistic {
            centi_per_logit: 100.0,
        }),
        (AnyEvaluator::Glem(_), EvalSpec::Model(path)) => {
            let (_, model) =
                crate::io::model::load_model::<GlemModel>(path, None, Some(glem::KIND))
                    .map_err(|e| CliError::input(format!("--eval: {e}")))?;
            Some(Probability::Logistic {
                centi_per_logit: f64::from(model.scale),
            })
        }
        _ => None,
    })
}

/// Positions of a dataset of game `G` (its variant's exact name).
fn dataset_positions<G: Game>(path: &Path, variant: &str) -> Result<Vec<G>, CliError> {
    let dataset = Dataset::<G>::read(path, Some(variant))
        .map_err(|e| CliError::input(format!("--from: {e}")))?;
    if let Some(warning) = &dataset.warning {
        eprintln!("warning: {warning}");
    }
    Ok(dataset
        .games
        .into_iter()
        .flat_map(|g| g.positions)
        .collect())
}

fn draughts(
    args: &AccuracyArgs,
    dir: &Path,
    evaluator: &AnyEvaluator<Brazilian>,
    settings: &Settings,
) -> Result<Report, CliError> {
    let opened = Egdb::open(dir);
    for problem in &opened.problems {
        eprintln!("warning: egdb: {problem}");
    }
    let egdb = opened.egdb;
    if egdb.slice_count() == 0 {
        return Err(CliError::input(format!(
            "--egdb {}: no endgame database there (build one with `evalearn egdb build`)",
            dir.display()
        )));
    }
    println!(
        "egdb {}: {} slices, complete up to {} pieces",
        dir.display(),
        egdb.slice_count(),
        opened.complete_up_to
    );
    let count = args.positions as usize;
    let cases = match &args.from {
        Some(path) => {
            let positions = dataset_positions::<Brazilian>(path, Brazilian::NAME)?;
            let cases = accuracy::draughts::from_positions(&egdb, positions, count, args.seed);
            println!(
                "positions from {}: {} inside the database",
                path.display(),
                cases.len()
            );
            cases
        }
        None => {
            let mix = match &args.mix {
                Some(text) => accuracy::draughts::parse_mix(text)
                    .map_err(|e| CliError::input(format!("--mix {text}: {e}")))?,
                None if opened.complete_up_to >= 3 => {
                    (3..=opened.complete_up_to).map(|p| (p, 1.0)).collect()
                }
                None => {
                    return Err(CliError::input(format!(
                        "--egdb {}: not complete for 3 pieces; give --mix",
                        dir.display()
                    )));
                }
            };
            let text: Vec<String> = mix.iter().map(|(p, w)| format!("{p}:{w}")).collect();
            println!("mix {} (pieces:weight)", text.join(","));
            accuracy::draughts::sample(&egdb, &mix, count, args.seed)
                .map_err(|e| CliError::input(format!("--mix: {e}")))?
        }
    };
    Ok(measure(&cases, evaluator, settings))
}

fn kalah(
    args: &AccuracyArgs,
    rules: KalahRules,
    evaluator: &AnyEvaluator<Kalah>,
    settings: &Settings,
) -> Result<Report, CliError> {
    println!("game {}", rules.name());
    let count = args.positions as usize;
    let positions = match &args.from {
        Some(path) => dataset_positions::<Kalah>(path, &rules.name())?,
        None => accuracy::kalah::selfplay_positions(rules, count, args.seed, args.max_pit_stones)
            .map_err(CliError::failure)?,
    };
    let most_stones = positions
        .iter()
        .map(|p| {
            crate::game::kalah::solve::board::stones(&crate::game::kalah::solve::board::pits_of(p))
        })
        .max()
        .unwrap_or(0);
    let stop = interrupt::flag();
    let db = args
        .db
        .open(rules, most_stones, &stop, |line| println!("{line}"))?;
    let solver = Solver::new(rules, 16 * args.tt_mb as usize, db)
        .map_err(CliError::failure)?
        .with_stop(Arc::clone(&stop));
    let folder = args.db.folder();
    let (cache, warning) = SolvedCache::open(folder.as_deref(), rules);
    if let Some(warning) = warning {
        eprintln!("warning: {warning}");
    }
    let known = cache.len();
    let mut exact = CachedSolver { solver, cache };
    let bar = progress_bar(
        count as u64,
        "[{bar:30}] {pos}/{len} positions solved, eta {eta}",
    );
    let started = Instant::now();
    let mut last_save = Instant::now();
    let save = |exact: &mut CachedSolver| {
        if let Err(e) = exact.cache.save() {
            eprintln!("warning: {e}");
        }
    };
    let mut cases: Vec<Case<Kalah>> = Vec::with_capacity(count);
    let chosen = accuracy::choose_positions(
        accuracy::kalah::distinct_playable(positions),
        count,
        args.seed,
    );
    for pos in &chosen {
        let case = accuracy::kalah::case_of(&mut exact, pos);
        if interrupt::raised(&stop) {
            bar.finish_and_clear();
            let added = exact.cache.added();
            save(&mut exact);
            return Err(interrupt::stopped(format!(
                "{} of {count} positions solved; {added} new values kept in the cache{}, so a \
                 second run starts from them",
                cases.len(),
                folder
                    .as_deref()
                    .map_or(String::new(), |f| format!(" in {}", f.display()))
            )));
        }
        if let Some(case) = case {
            cases.push(case);
        }
        advance(&bar, "positions");
        if last_save.elapsed().as_secs() >= SAVE_EVERY_SECONDS {
            save(&mut exact);
            last_save = Instant::now();
        }
    }
    bar.finish_and_clear();
    let added = exact.cache.added();
    save(&mut exact);
    println!(
        "solved {} positions in {:.1} s ({} values known before, {} new, {} nodes)",
        cases.len(),
        started.elapsed().as_secs_f64(),
        known,
        added,
        exact.solver.nodes()
    );
    Ok(measure(&cases, evaluator, settings))
}

fn measure<G: EvalGame>(
    cases: &[Case<G>],
    evaluator: &AnyEvaluator<G>,
    settings: &Settings,
) -> Report {
    let verdicts = accuracy::verdicts(cases, evaluator, settings);
    accuracy::report(cases, &verdicts, settings)
}
