//! Kalah cases: positions from seeded self-play games of a variant (or a dataset), each
//! move's value solved exactly ([`CachedSolver`]: solved values are kept on disk).

use std::collections::HashSet;

use rand::RngExt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Instant;

use super::commands::solve::KalahDb;
use super::solve::Solver;
use super::solve::cache::SolvedCache;
use super::solve::db::EndgameDb;
use crate::accuracy::Case;
use crate::accuracy::cases::{AccuracyError, AccuracyGame, AccuracyOptions, dataset_positions};
use crate::accuracy::heldout::HeldOutGame;
use crate::arena::engine_game::{Exploration, GameRules, play_engine_game};
use crate::arena::workers::run_workers;
use crate::cli::args::{SolverDbArgs, advance, progress_bar};
use crate::cli::interrupt;
use crate::game::Game;
use crate::games::kalah::evaluators::KalahEval;
use crate::games::kalah::solve::board::{pits_of, stones};
use crate::games::kalah::solve::cache::{CachedSolver, ExactValues, SharedCacheSolver};
use crate::games::kalah::{Kalah, KalahMove, KalahMoves, KalahRules};
use crate::search::Tablebase;
use crate::search::{Limits, SearchConfig, Searcher};

/// The games the positions come from: the `stores` evaluator at this depth, every
/// move drawn by softmax over the root values at this temperature (stones), so games
/// are varied but plausible.
pub const SELFPLAY_DEPTH: u32 = 2;
pub const SELFPLAY_TEMPERATURE: f64 = 1.0;
/// Plies after which a self-play game stops.
const PLY_CAP: u32 = 400;

/// `count` different positions of `rules`' games, each with two moves or more: game
/// `i` is played from random stream `i` of `seed`, and one of its positions (uniformly
/// among those before the end, with at most `max_pit_stones` stones in the pits when
/// given) is taken. Fails if the games keep repeating positions.
pub fn selfplay_positions(
    rules: KalahRules,
    count: usize,
    seed: u64,
    max_pit_stones: Option<u32>,
) -> Result<Vec<Kalah>, String> {
    let mut searcher = Searcher::new(KalahEval::Stores, SearchConfig::FULL, 4);
    let rules_of_game = GameRules {
        ply_cap: PLY_CAP,
        exploration: Some(Exploration {
            temperature: SELFPLAY_TEMPERATURE,
            plies: PLY_CAP,
        }),
        adjudicator: None,
    };
    let mut seen = HashSet::new();
    let mut positions = Vec::with_capacity(count);
    let mut moves = KalahMoves::new();
    let max_games = 1000 + 20 * count as u64;
    let mut index = 0;
    while positions.len() < count {
        if index >= max_games {
            return Err(format!(
                "only {} different positions of {} in {max_games} games",
                positions.len(),
                rules.name()
            ));
        }
        let mut rng = crate::rng::stream(seed, index);
        let game = play_engine_game(
            index,
            Kalah::start_of(rules),
            rules_of_game,
            &mut rng,
            |record, exact| {
                let limits = Limits {
                    depth: Some(SELFPLAY_DEPTH),
                    exact_root_values: exact,
                    ..Limits::default()
                };
                searcher.search(record, &limits, |_| {})
            },
        );
        index += 1;
        let ongoing = game.positions.len().saturating_sub(1).max(1);
        // Stones in the pits only fall as a game goes on: the late positions are a tail.
        let first = max_pit_stones.map_or(0, |most| {
            game.positions[..ongoing]
                .iter()
                .position(|p| stones(&pits_of(p)) <= most)
                .unwrap_or(ongoing)
        });
        if first == ongoing {
            continue;
        }
        let pos = game.positions[rng.random_range(first..ongoing)];
        pos.legal_moves(&mut moves);
        if moves.len() >= 2 && seen.insert(pos) {
            positions.push(pos);
        }
    }
    Ok(positions)
}

/// The case of `pos` with every move's value solved (`None` with fewer than two moves).
pub fn case_of(solver: &mut impl ExactValues, pos: &Kalah) -> Option<Case<Kalah>> {
    let mut moves = KalahMoves::new();
    pos.legal_moves(&mut moves);
    if moves.len() < 2 {
        return None;
    }
    let children: Vec<_> = moves
        .iter()
        .map(|&mv| (mv, move_value(solver, pos, mv)))
        .collect();
    Case::from_children(*pos, children)
}

/// The exact value of the position after `mv`, for the side to move there.
fn move_value(solver: &mut impl ExactValues, pos: &Kalah, mv: KalahMove) -> i32 {
    let child = pos.play(mv);
    child.store_margin() + solver.future_value(&pits_of(&child))
}

/// `positions` without duplicates and without those with fewer than two moves, in order.
pub fn distinct_playable(positions: impl IntoIterator<Item = Kalah>) -> Vec<Kalah> {
    let mut seen = HashSet::new();
    let mut moves = KalahMoves::new();
    positions
        .into_iter()
        .filter(|p| {
            p.legal_moves(&mut moves);
            moves.len() >= 2 && seen.insert(*p)
        })
        .collect()
}

/// Kalah variants solved whole here: more stones a pit take far too long to solve.
pub const MAX_SOLVED_STONES: u8 = 4;
/// Seconds between saves of the solved values while solving.
const SAVE_EVERY_SECONDS: u64 = 30;
/// Most stones in the pits of the late positions solved in any Kalah variant.
const MAX_LATE_PIT_STONES: u32 = 30;

impl AccuracyGame for Kalah {
    fn check_accuracy_options(
        rules: KalahRules,
        options: &AccuracyOptions,
    ) -> Result<(), AccuracyError> {
        let late = options
            .max_pit_stones
            .is_some_and(|most| most <= MAX_LATE_PIT_STONES);
        if rules.stones > MAX_SOLVED_STONES && !late {
            return Err(AccuracyError::Input(format!(
                "--game {}: accuracy solves Kalah with at most {MAX_SOLVED_STONES} \
                 stones a pit (kalah:6:1 .. kalah:6:{MAX_SOLVED_STONES}), or late positions \
                 of any variant with --max-pit-stones {MAX_LATE_PIT_STONES} or fewer",
                rules.name()
            )));
        }
        if options.mix.is_some() {
            return Err(AccuracyError::Input(
                "--mix is for draughts (--egdb)".to_string(),
            ));
        }
        Ok(())
    }

    fn accuracy_cases(
        rules: KalahRules,
        options: &AccuracyOptions,
    ) -> Result<(Vec<Case<Kalah>>, &'static str), AccuracyError> {
        Ok((accuracy_cases(options, rules)?, "stones"))
    }
}

/// The `accuracy` command's positions: from seeded self-play games of the variant (or
/// `--from` a dataset), each solved exactly, its solved values kept in the database
/// folder's cache so a second run starts from them.
fn accuracy_cases(
    options: &AccuracyOptions,
    rules: KalahRules,
) -> Result<Vec<Case<Kalah>>, AccuracyError> {
    println!("game {}", rules.name());
    let count = options.positions as usize;
    let positions = match &options.from {
        Some(path) => dataset_positions::<Kalah>(path, &rules.name())?,
        None => selfplay_positions(rules, count, options.seed, options.max_pit_stones)
            .map_err(AccuracyError::Failure)?,
    };
    let most_stones = positions
        .iter()
        .map(|p| stones(&pits_of(p)))
        .max()
        .unwrap_or(0);
    let stop = interrupt::flag();
    let solver_db = SolverDbArgs {
        db_dir: options.db_dir.clone(),
        db_stones: options.db_stones,
    };
    let db = solver_db.open(rules, most_stones, &stop, |line| println!("{line}"))?;
    let tt_mib = 16 * options.tt_mb as usize;
    Solver::check_db(rules, db.as_deref()).map_err(AccuracyError::Failure)?;
    let folder = solver_db.folder();
    let (cache, warning) = SolvedCache::open(folder.as_deref(), rules);
    if let Some(warning) = warning {
        eprintln!("warning: {warning}");
    }
    let known = cache.len();
    let cache = RwLock::new(cache);
    let save = || {
        let saved = cache.write().unwrap_or_else(PoisonError::into_inner).save();
        if let Err(e) = saved {
            eprintln!("warning: {e}");
        }
    };
    let chosen =
        crate::accuracy::choose_positions(distinct_playable(positions), count, options.seed);
    let started = Instant::now();
    let nodes = AtomicU64::new(0);
    let cases = solve_cases(
        &chosen,
        || SharedCacheSolver {
            solver: Solver::new(rules, tt_mib, db.clone())
                .expect("the rules and database checked above")
                .with_stop(Arc::clone(&stop)),
            cache: &cache,
        },
        &stop,
        &nodes,
        save,
    )?;
    // Counted from the sizes: a save in between resets the cache's own count.
    let added = cache.read().unwrap_or_else(PoisonError::into_inner).len() - known;
    save();
    if interrupt::raised(&stop) {
        return Err(AccuracyError::from(interrupt::stopped(format!(
            "{} of {count} positions solved; {added} new values kept in the cache{}, so a \
             second run starts from them",
            cases.len(),
            folder
                .as_deref()
                .map_or(String::new(), |f| format!(" in {}", f.display()))
        ))));
    }
    println!(
        "solved {} positions in {:.1} s on {} ({} values known before, {} new, {} nodes)",
        cases.len(),
        started.elapsed().as_secs_f64(),
        match rayon::current_num_threads() {
            1 => "1 thread".to_string(),
            n => format!("{n} threads"),
        },
        known,
        added,
        nodes.load(Ordering::Relaxed)
    );
    Ok(cases)
}

/// The cases of `chosen`, each move of each position solved as a job on every thread
/// (`new_solver` makes a thread's solver); a position some move of which was left
/// unsolved (Ctrl-C) is left out. `save` keeps the solved values now and then.
fn solve_cases<'a>(
    chosen: &[Kalah],
    new_solver: impl Fn() -> SharedCacheSolver<'a> + Sync,
    stop: &AtomicBool,
    nodes: &AtomicU64,
    save: impl Fn(),
) -> Result<Vec<Case<Kalah>>, AccuracyError> {
    // A job is one move of one position: a position's moves are solved on every thread,
    // which matters when a few early positions cost most of the time.
    let mut moves = KalahMoves::new();
    let mut children: Vec<(usize, KalahMove)> = Vec::new();
    // Per position, its moves not solved yet.
    let mut unsolved: Vec<usize> = Vec::with_capacity(chosen.len());
    for (index, pos) in chosen.iter().enumerate() {
        pos.legal_moves(&mut moves);
        children.extend(moves.iter().map(|&mv| (index, mv)));
        unsolved.push(moves.len());
    }
    let bar = progress_bar(
        chosen.len() as u64,
        "[{bar:30}] {pos}/{len} positions solved, eta {eta}",
    );
    let mut last_save = Instant::now();
    let mut values: Vec<Option<i32>> = vec![None; children.len()];
    let jobs: Vec<u64> = (0..children.len() as u64).collect();
    // Every value found goes to the shared cache. Values are exact, so the cases do not
    // depend on the thread count.
    run_workers(
        rayon::current_num_threads(),
        &jobs,
        stop,
        new_solver,
        |exact, job| {
            let (index, mv) = children[job as usize];
            let before = exact.solver.nodes();
            let value = move_value(exact, &chosen[index], mv);
            nodes.fetch_add(exact.solver.nodes() - before, Ordering::Relaxed);
            // A solve cut short by Ctrl-C gave a bound, not the value: it is dropped.
            (job as usize, (!exact.solver.stopped()).then_some(value))
        },
        |(job, value)| {
            let Some(value) = value else { return };
            values[job] = Some(value);
            let index = children[job].0;
            unsolved[index] -= 1;
            if unsolved[index] == 0 {
                advance(&bar, "positions");
            }
            if last_save.elapsed().as_secs() >= SAVE_EVERY_SECONDS {
                save();
                last_save = Instant::now();
            }
        },
    )
    .map_err(AccuracyError::Failure)?;
    // Each position whose every move was solved, in order (its moves are consecutive).
    let mut cases: Vec<Case<Kalah>> = Vec::with_capacity(chosen.len());
    let mut next = 0;
    for group in children.chunk_by(|a, b| a.0 == b.0) {
        let solved: Option<Vec<(KalahMove, i32)>> = group
            .iter()
            .zip(&values[next..])
            .map(|(&(_, mv), value)| value.map(|v| (mv, v)))
            .collect();
        next += group.len();
        if let Some(case) = solved.and_then(|moves| Case::from_children(chosen[group[0].0], moves))
        {
            cases.push(case);
        }
    }
    bar.finish_and_clear();
    Ok(cases)
}

/// Most stones in the pits of the held-out positions, and the size of the database they
/// are solved with (every configuration of at most this many stones).
pub const HELD_OUT_PIT_STONES: u32 = 24;
pub const HELD_OUT_DB_STONES: u32 = 12;
/// The solver's table for the held-out sample, MiB.
const HELD_OUT_TT_MIB: usize = 32;

impl HeldOutGame for Kalah {
    fn held_out_cases(
        rules: KalahRules,
        _tablebase: Option<&Arc<dyn Tablebase<Kalah>>>,
        count: usize,
        seed: u64,
    ) -> Result<(Vec<Case<Kalah>>, String), String> {
        let positions = selfplay_positions(rules, count, seed, Some(HELD_OUT_PIT_STONES))?;
        let db = Arc::new(EndgameDb::build(rules, HELD_OUT_DB_STONES));
        let solver = Solver::new(rules, HELD_OUT_TT_MIB, Some(db))?;
        let (cache, _) = SolvedCache::open(None, rules);
        let mut exact = CachedSolver { solver, cache };
        let cases = positions
            .iter()
            .filter_map(|pos| case_of(&mut exact, pos))
            .collect();
        Ok((
            cases,
            format!(
                "late positions (at most {HELD_OUT_PIT_STONES} stones in the pits) of self-play games, solved"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accuracy::{Settings, Verdict, report};

    #[test]
    fn the_static_margin_error_is_measured_in_stones() {
        let settings = Settings {
            depths: vec![0],
            draw_band: 50,
            probability: None,
            tt_mib: 1,
        };
        // Two Kalah positions of exact values +4 and −2, valued +2.50 and +1.00 stones:
        // off by 1.5 and 3, 2.25 on average.
        let start = Kalah::start();
        let mut moves = <Kalah as Game>::Moves::default();
        start.legal_moves(&mut moves);
        let first = moves[0];
        let cases = [
            Case::from_children(
                start,
                moves.iter().map(|&m| (m, if m == first { -4 } else { 1 })),
            )
            .unwrap(),
            Case::from_children(start, moves.iter().map(|&m| (m, 2))).unwrap(),
        ];
        assert_eq!((cases[0].value, cases[1].value), (4, -2));
        let verdicts = [
            Verdict {
                chosen: vec![first],
                static_value: 250,
            },
            Verdict {
                chosen: vec![first],
                static_value: 100,
            },
        ];
        let kalah = report(&cases, &verdicts, &settings);
        let error = kalah.static_figures.margin_error.unwrap();
        assert_eq!(error.value(), 2.25);
        assert!(kalah.text("stones").contains("static: margin off by 2.25"));
        assert_eq!(kalah.json()["static"]["margin_error"]["value"], 2.25);
    }
}
