//! The search on several threads (Lazy SMP, `src/search/searcher/smp.rs`), in both games:
//! a legal move from a completed search, time limits kept on a simulated clock (which
//! only the main thread reads), `stop` reaching the helpers, a shared table full of
//! garbage never making a move illegal, and one thread searching exactly as before.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use evalearn::eval::Evaluator;
use evalearn::game::{Game, GameRecord, random_plies};
use evalearn::games::brazilian::{Brazilian, Material};
use evalearn::games::kalah::Kalah;
use evalearn::games::kalah::evaluators::KalahEval;
use evalearn::search::time::SimulatedClock;
use evalearn::search::tt::Bound;
use evalearn::search::{Limits, SearchConfig, SearchResult, Searcher};
use rand::RngExt;

/// `count` positions of `G` a random 0–39 plies from the start, each with a move to play.
fn random_positions<G: Game>(count: usize, seed: u64) -> Vec<G> {
    let mut rng = evalearn::rng::stream(seed, 0);
    let mut moves = G::Moves::default();
    let mut positions = Vec::new();
    while positions.len() < count {
        let plies = rng.random_range(0..40);
        if let Some(pos) =
            random_plies(G::start(), plies, &mut rng, &mut moves).filter(|pos| pos.has_legal_move())
        {
            positions.push(pos);
        }
    }
    positions
}

/// The result's move is legal in `pos` and its line is a line of legal moves from it,
/// starting with that move.
fn assert_legal<G: Game>(pos: &G, result: &SearchResult<G>) {
    let mut moves = G::Moves::default();
    pos.legal_moves(&mut moves);
    let best = result.best_move.expect("a position with moves gets a move");
    assert!(moves.contains(&best), "{pos:?}: {best:?} is not legal");
    assert_eq!(result.pv.first(), Some(&best), "{pos:?}: {result:?}");
    let mut at = *pos;
    for &mv in &result.pv {
        at.legal_moves(&mut moves);
        assert!(
            moves.contains(&mv),
            "{pos:?}: line {:?} leaves the rules",
            result.pv
        );
        at = at.play(mv);
    }
}

/// Searches on 2 to 4 threads with a move time, on a clock that moves 1 ms at every
/// reading: only the main thread reads it (every 1024 of its nodes), so each search ends
/// at the reading that shows the move time, however the threads were scheduled.
fn keeps_the_move_time<G: Game, E: Evaluator<G> + Clone>(evaluator: E, seed: u64) {
    let tick = Duration::from_millis(1);
    let movetime = Duration::from_millis(30);
    let limits = Limits {
        depth: Some(60),
        movetime: Some(movetime),
        ..Limits::default()
    };
    for (i, pos) in random_positions::<G>(12, seed).iter().enumerate() {
        let threads = 2 + i % 3;
        let mut searcher = Searcher::new(evaluator.clone(), SearchConfig::FULL, 4)
            .with_threads(threads)
            .with_time_source(Arc::new(SimulatedClock::ticking(tick)));
        let result = searcher.search_position(pos, &limits);
        assert_legal(pos, &result);
        assert!(result.depth > 0, "{pos:?}: no iteration completed");
        // A search that saw every line to its end stops early; any other at the move
        // time, and the final reading of the clock is one tick on.
        assert!(
            result.elapsed <= movetime + 2 * tick,
            "{threads} threads: {result:?}"
        );
        if result.stopped {
            assert!(result.elapsed >= movetime, "{threads} threads: {result:?}");
        }
    }
}

#[test]
fn searches_on_several_threads_keep_the_move_time_and_return_a_legal_move() {
    keeps_the_move_time::<Brazilian, _>(Material, 1);
    keeps_the_move_time::<Kalah, _>(KalahEval::Stores, 2);
}

/// A search without a limit but depth 60, stopped by its caller's flag once it has
/// reported depth 6: the helpers stop with the main thread, so the search returns.
fn stop_reaches_the_helpers<G: Game, E: Evaluator<G> + Clone>(evaluator: E, seed: u64) {
    let mut searcher = Searcher::new(evaluator, SearchConfig::FULL, 4).with_threads(3);
    for pos in random_positions::<G>(4, seed) {
        let stop = Arc::new(AtomicBool::new(false));
        let limits = Limits {
            depth: Some(60),
            stop: Some(Arc::clone(&stop)),
            ..Limits::default()
        };
        let result = searcher.search(&GameRecord::new(pos), &limits, |iteration| {
            if iteration.depth >= 6 {
                stop.store(true, Ordering::Relaxed);
            }
        });
        assert_legal(&pos, &result);
        assert!(result.depth >= 6 || !result.stopped, "{result:?}");
    }
}

#[test]
fn a_stop_flag_ends_a_search_on_several_threads() {
    stop_reaches_the_helpers::<Brazilian, _>(Material, 3);
    stop_reaches_the_helpers::<Kalah, _>(KalahEval::Stores, 4);
}

/// While searches on two threads run, another thread fills their shared table with
/// garbage under the keys of the positions they search: values, bounds, depths, and best
/// moves by any index, most beyond the move list. Moves and lines stay legal.
fn garbage_in_the_table<G: Game, E: Evaluator<G> + Clone>(evaluator: E, seed: u64) {
    let mut searcher = Searcher::new(evaluator, SearchConfig::FULL, 1).with_threads(2);
    let positions = random_positions::<G>(6, seed);
    let mut keys = Vec::new();
    let mut moves = G::Moves::default();
    for pos in &positions {
        keys.push(pos.hash_key());
        pos.legal_moves(&mut moves);
        for &mv in moves.iter() {
            let child = pos.play(mv);
            keys.push(child.hash_key());
            let mut grandchildren = G::Moves::default();
            child.legal_moves(&mut grandchildren);
            keys.extend(grandchildren.iter().map(|&m| child.play(m).hash_key()));
        }
    }
    let done = AtomicBool::new(false);
    thread::scope(|scope| {
        let mut table = searcher.share_table();
        let (keys, done) = (&keys, &done);
        scope.spawn(move || {
            let mut rng = evalearn::rng::stream(seed, 1);
            let bounds = [Bound::Upper, Bound::Lower, Bound::Exact];
            while !done.load(Ordering::Relaxed) {
                // The generation of the search under way.
                table.sync();
                for _ in 0..1000 {
                    let key = keys[rng.random_range(0..keys.len())];
                    let best = rng.random_range(0..400usize);
                    table.store(
                        key,
                        rng.random_range(-1000..1000),
                        bounds[rng.random_range(0..3)],
                        rng.random_range(0..=255),
                        Some(best),
                    );
                }
            }
        });
        for pos in &positions {
            for limits in [Limits::depth(8), Limits::nodes(30_000)] {
                let result = searcher.search_position(pos, &limits);
                assert_legal(pos, &result);
            }
        }
        done.store(true, Ordering::Relaxed);
    });
}

#[test]
fn garbage_in_the_shared_table_never_makes_a_move_illegal() {
    garbage_in_the_table::<Brazilian, _>(Material, 5);
    garbage_in_the_table::<Kalah, _>(KalahEval::Stores, 6);
}

/// On one thread the search is the single-threaded one, node for node, also after
/// searches on more threads.
fn one_thread_is_unchanged<G: Game, E: Evaluator<G> + Clone>(evaluator: E, seed: u64) {
    let mut switched = Searcher::new(evaluator.clone(), SearchConfig::FULL, 4).with_threads(3);
    for pos in random_positions::<G>(6, seed) {
        let limits = Limits::depth(7);
        switched.set_threads(3);
        assert_legal(&pos, &switched.search_position(&pos, &limits));
        switched.set_threads(1);
        let after = switched.search_position(&pos, &limits);
        let alone = Searcher::new(evaluator.clone(), SearchConfig::FULL, 4)
            .with_threads(1)
            .search_position(&pos, &limits);
        let plain =
            Searcher::new(evaluator.clone(), SearchConfig::FULL, 4).search_position(&pos, &limits);
        for result in [&after, &alone] {
            assert_eq!(
                (result.nodes, result.best_move, result.score, &result.pv),
                (plain.nodes, plain.best_move, plain.score, &plain.pv),
                "{pos:?}"
            );
        }
    }
}

#[test]
fn one_thread_searches_node_for_node_as_before() {
    one_thread_is_unchanged::<Brazilian, _>(Material, 7);
    one_thread_is_unchanged::<Kalah, _>(KalahEval::Stores, 8);
}

#[test]
fn depth_limited_searches_on_several_threads_complete_their_depth() {
    let mut searcher = Searcher::new(Material, SearchConfig::FULL, 4).with_threads(2);
    for pos in random_positions::<Brazilian>(10, 9) {
        let result = searcher.search_position(&pos, &Limits::depth(8));
        assert_legal(&pos, &result);
        assert!(!result.stopped, "{result:?}");
        // Deeper iterations are skipped only when the search saw every line's end.
        assert!(result.depth <= 8 && result.depth > 0, "{result:?}");
    }
}
