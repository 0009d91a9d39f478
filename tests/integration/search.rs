//! The search: every algorithm agrees with plain minimax, wins are found fastest, the
//! draw rules work inside the tree, limits are honoured and results are deterministic.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use evalearn::eval::Evaluator;
use evalearn::game::{Game, GameRecord, MoveList};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::Material;
use evalearn::games::brazilian::treestats;
use evalearn::search::time::{Clock, SimulatedClock, TimeSource};
use evalearn::search::{INFINITY, Limits, SearchConfig, Searcher, WIN};

/// Plain negamax with the engine's leaf rules: quiescence over compulsory captures, a
/// side without moves loses, a position repeating one since the last irreversible move
/// on the path is a draw, and so is the quiet-move limit.
fn minimax(pos: &Brazilian, depth: i32, ply: i32, path: &mut Vec<u64>, quiet: u32) -> i32 {
    if ply > 0 {
        let n = path.len();
        let reach = (quiet as usize).min(n - 1);
        if (2..=reach)
            .step_by(2)
            .any(|back| path[n - 1 - back] == path[n - 1])
        {
            return 0;
        }
    }
    if depth == 0 {
        return quiesce(pos, ply);
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if moves.is_empty() {
        return -(WIN - ply);
    }
    if quiet >= Brazilian::QUIET_DRAW_PLIES.unwrap() {
        return 0;
    }
    let mut best = -INFINITY;
    for &mv in moves.iter() {
        let child = pos.play(mv);
        path.push(child.hash_key());
        let child_quiet = if pos.is_irreversible(mv) {
            0
        } else {
            quiet + 1
        };
        best = best.max(-minimax(&child, depth - 1, ply + 1, path, child_quiet));
        path.pop();
    }
    best
}

fn quiesce(pos: &Brazilian, ply: i32) -> i32 {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if moves.is_empty() {
        return -(WIN - ply);
    }
    if pos.is_quiet() {
        return Material.evaluate(pos);
    }
    moves
        .iter()
        .map(|&mv| -quiesce(&pos.play(mv), ply + 1))
        .max()
        .expect("captures to make")
}

fn position(fen: &str) -> Brazilian {
    Brazilian::parse_position(fen).unwrap()
}

#[test]
fn every_algorithm_without_table_matches_minimax_at_depths_1_to_5() {
    let positions = treestats::random_positions(350, 77);
    let without_table = |name: &str| SearchConfig {
        transposition_table: false,
        ..SearchConfig::named(name).unwrap()
    };
    let algorithms = [
        ("ab", without_table("ab")),
        ("pvs", without_table("pvs")),
        ("pvs+asp", without_table("pvs+asp+tt")),
        ("mtdf", without_table("mtdf")),
        ("ab+id", without_table("ab+id")),
        // Forcing moves first, killers and history reorder moves, never change values.
        (
            "full",
            SearchConfig {
                etc: false,
                ..without_table("full")
            },
        ),
    ];
    let mut searchers: Vec<_> = algorithms
        .iter()
        .map(|&(name, config)| (name, Searcher::new(Material, config, 1)))
        .collect();
    let mut compared = 0;
    for pos in &positions {
        for depth in 1..=5 {
            let expected = minimax(pos, depth, 0, &mut vec![pos.hash_key()], 0);
            for (name, searcher) in &mut searchers {
                let result = searcher.search_position(pos, &Limits::depth(depth as u32));
                assert_eq!(
                    result.score,
                    expected,
                    "{name} at depth {depth} on {}",
                    pos.format_position()
                );
                // The move played must achieve the value.
                let mv = result.best_move.unwrap();
                let child = pos.play(mv);
                let quiet = u32::from(!pos.is_irreversible(mv));
                let value = -minimax(
                    &child,
                    depth - 1,
                    1,
                    &mut vec![pos.hash_key(), child.hash_key()],
                    quiet,
                );
                assert_eq!(value, expected, "{name} move at depth {depth}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 350 * 5 * 6);
}

#[test]
fn the_full_search_agrees_with_minimax_on_values() {
    // With the table on, values at exact depth; positions early in the game have no
    // transpositions at different depths within five plies.
    let mut searcher = Searcher::new(Material, SearchConfig::FULL, 4);
    for pos in treestats::random_positions(105, 3) {
        for depth in 1..=5 {
            let expected = minimax(&pos, depth, 0, &mut vec![pos.hash_key()], 0);
            let result = searcher.search_position(&pos, &Limits::depth(depth as u32));
            assert_eq!(result.score, expected, "{}", pos.format_position());
        }
    }
}

/// Forcing moves first shrinks the engine's tree, late move reductions shrink it more
/// (docs/speed.md's tree sizes, on a small sample).
#[test]
fn forcing_moves_first_and_reductions_shrink_the_tree() {
    let positions = treestats::random_positions(60, 2026);
    let mean = |name: &str| {
        treestats::measure(
            &positions,
            SearchConfig::named(name).unwrap(),
            8,
            4,
            None,
            &|| {},
        )
        .main
    };
    let (without, full, reduced) = (mean("full-forcing"), mean("full"), mean("full+lmr"));
    assert!(
        full < 0.95 * without,
        "full {full}, without forcing first {without}"
    );
    assert!(reduced < 0.9 * full, "full+lmr {reduced}, full {full}");
}

#[test]
fn three_kings_win_against_one_in_three_plies() {
    // Black's king is cornered on h8, whose one diagonal runs to White's king on a1.
    // 31-22 offers the king on c3: Black must take it (4x25, landing on b2 since a1 is
    // occupied) and 29x takes Black's last piece. 30-25 wins as fast: every square the
    // king can go to is then taken by the king on b2. No win is shorter (Black has a
    // move now and no capture is possible for White).
    let pos = position("W:WK29,K30,K31:BK4");
    assert!(!pos.has_capture());
    for (name, config) in SearchConfig::NAMED {
        let mut searcher = Searcher::new(Material, config, 4);
        let result = searcher.search_position(&pos, &Limits::depth(6));
        assert_eq!(result.score, WIN - 3, "{name}");
        let first = pos.format_move(result.best_move.unwrap());
        assert!(first == "31-22" || first == "30-25", "{name}: {first}");
        // The line ends the game: Black has nothing left after the third ply.
        assert_eq!(result.pv.len(), 3, "{name}");
        let end = result.pv.iter().fold(pos, |at, &mv| at.play(mv));
        assert!(!end.has_legal_move(), "{name}");
    }
}

#[test]
fn the_shortest_win_is_preferred() {
    // 15-11 blocks Black's only man (h8 behind g7 and f6): Black cannot move and loses
    // at once. Other moves win later or not at all.
    let pos = position("W:W8,15:B4");
    let mut searcher = Searcher::new(Material, SearchConfig::FULL, 4);
    let result = searcher.search_position(&pos, &Limits::depth(9));
    assert_eq!(result.score, WIN - 1);
    assert_eq!(pos.format_move(result.best_move.unwrap()), "15-11");
}

#[test]
fn a_multi_capture_shot_is_found() {
    // 22-17 (c3-b4) gives a man. Black must take it: 13x22 (a5xc3) is the only capture,
    // since c5xa3 is blocked by the man on a3 and e1 stops the capture going on over d2.
    // Then 26x10 (d2xb4xd6) takes two: White is two men up and wins.
    let pos = position("W:W21,22,26,31:B4,13,14");
    let mut searcher = Searcher::new(Material, SearchConfig::FULL, 4);
    let result = searcher.search_position(&pos, &Limits::depth(10));
    let line: Vec<String> = {
        let mut at = pos;
        result.pv[..3]
            .iter()
            .map(|&mv| {
                let text = at.format_move(mv);
                at = at.play(mv);
                text
            })
            .collect()
    };
    assert_eq!(line, ["22-17", "13x22", "26x10"]);
    assert!(
        result.score >= evalearn::search::WIN_THRESHOLD,
        "{}",
        result.score
    );
}

/// Extends the game by `plies` king moves that never repeat a position and never offer a
/// capture (depth-first with backtracking).
fn king_walk(record: &mut GameRecord<Brazilian>, plies: u32) -> bool {
    if plies == 0 {
        return true;
    }
    let mut moves = MoveList::new();
    record.position().legal_moves(&mut moves);
    for &mv in moves.iter() {
        let next = record.position().play(mv);
        if record.position().is_irreversible(mv)
            || next.has_capture()
            || record.positions().contains(&next)
        {
            continue;
        }
        record.play(mv);
        if king_walk(record, plies - 1) {
            return true;
        }
        record.undo();
    }
    false
}

#[test]
fn the_quiet_move_rule_draws_inside_the_tree() {
    // Black's lone king against three: lost, unless 38 king moves have gone by: then
    // two more quiet plies draw by the 20-move rule, and Black only has to avoid being
    // captured for one move.
    let mut record = GameRecord::new(position("B:WK1,K2,K3:BK30"));
    assert!(king_walk(&mut record, 38));
    assert_eq!(record.quiet_plies(), 38);
    let pos = *record.position();
    assert_eq!(pos.side_to_move(), evalearn::game::Side::Second);
    let mut searcher = Searcher::new(Material, SearchConfig::FULL, 4);
    let fresh = searcher.search_position(&pos, &Limits::depth(8));
    assert!(fresh.score <= -600, "{}", fresh.score);
    let late = searcher.search(&record, &Limits::depth(8), |_| {});
    assert_eq!(late.score, 0);
}

#[test]
fn repeating_a_position_of_the_game_is_a_draw() {
    // White (a king against king and man) is a man down; going back to a position the
    // game has already seen draws, which the search prefers.
    let start = position("W:WK25:BK1,12");
    let alone = Searcher::new(Material, SearchConfig::FULL, 4)
        .search_position(&start, &Limits::depth(4))
        .score;
    assert!(alone < 0, "{alone}");
    let mut record = GameRecord::new(start);
    for text in ["25-29", "1-5", "29-25", "5-1"] {
        let mv = record.position().parse_move(text).unwrap();
        record.play(mv);
    }
    assert_eq!(*record.position(), start);
    let mut searcher = Searcher::new(Material, SearchConfig::FULL, 4);
    let result = searcher.search(&record, &Limits::depth(4), |_| {});
    assert_eq!(result.score, 0);
    assert_eq!(start.format_move(result.best_move.unwrap()), "25-29");
}

#[test]
fn limits_are_honoured_and_a_legal_move_comes_back() {
    let pos = Brazilian::start();
    let mut legal = MoveList::new();
    pos.legal_moves(&mut legal);
    let mut searcher = Searcher::new(Material, SearchConfig::FULL, 4);

    for nodes in [1, 10, 1000, 50_000] {
        let result = searcher.search_position(&pos, &Limits::nodes(nodes));
        assert!(result.nodes.total() <= nodes, "{nodes}: {:?}", result.nodes);
        assert!(result.stopped);
        assert!(legal.contains(&result.best_move.unwrap()));
    }

    let result = searcher.search_position(&pos, &Limits::depth(7));
    assert_eq!(result.depth, 7);
    assert!(!result.stopped);

    // Time limits, on a simulated clock that moves 1 ms at every reading: the search
    // reads it once every 1024 nodes, so time passes with the work done, the same on
    // any machine, however slow or busy.
    let ticking = || Arc::new(SimulatedClock::ticking(Duration::from_millis(1)));
    let timed = |clock: Arc<SimulatedClock>| {
        Searcher::new(Material, SearchConfig::FULL, 4).with_time_source(clock)
    };
    let limits = Limits {
        depth: Some(40),
        movetime: Some(Duration::from_millis(100)),
        ..Limits::default()
    };
    let result = timed(ticking()).search_position(&pos, &limits);
    assert!(result.stopped);
    assert!(legal.contains(&result.best_move.unwrap()));
    // Stopped at the reading that showed 100 ms: about a hundred readings' worth of
    // nodes, and never more.
    let nodes = result.nodes.total();
    assert!((90 * 1024..=100 * 1024).contains(&nodes), "{nodes} nodes");
    assert!(result.elapsed >= Duration::from_millis(100), "{result:?}");
    let again = timed(ticking()).search_position(&pos, &limits);
    assert_eq!(
        (again.nodes, again.best_move),
        (result.nodes, result.best_move)
    );
    // A clock that stands still never stops a search: the depth does.
    let still = Arc::new(SimulatedClock::new());
    let limits = Limits {
        depth: Some(6),
        movetime: Some(Duration::from_millis(1)),
        ..Limits::default()
    };
    let result = timed(still).search_position(&pos, &limits);
    assert_eq!((result.depth, result.stopped), (6, false));

    // A game clock with no other limit: 400 ms left gives a soft budget of 16 ms (no
    // iteration starts after 8 ms) and a hard one of 48 ms.
    let clock = Clock {
        left: Duration::from_millis(400),
        increment: Duration::ZERO,
        moves_to_go: None,
    };
    let budget = clock.budget(Duration::ZERO);
    let (mark, hard) = (budget.last_iteration_start().unwrap(), budget.hard.unwrap());
    assert_eq!(
        (mark, hard),
        (Duration::from_millis(8), Duration::from_millis(48))
    );
    let limits = Limits {
        clock: Some(clock),
        ..Limits::default()
    };
    let source = ticking();
    let mut ended = Vec::new();
    let result = timed(Arc::clone(&source))
        .search(&GameRecord::new(pos), &limits, |it| ended.push(it.elapsed));
    assert!(result.stopped);
    assert!(legal.contains(&result.best_move.unwrap()));
    // Every iteration but the last ended before the mark (or the search would have
    // stopped after it), and the search ended by the hard mark at the latest (the
    // reading that stopped it and the one that timed it come after).
    let (last, before) = ended.split_last().unwrap();
    assert!(before.iter().all(|&t| t < mark), "{ended:?}");
    assert!(*last < hard + Duration::from_millis(2), "{ended:?}");
    assert!(
        result.elapsed <= hard + Duration::from_millis(2),
        "{result:?}"
    );
    assert!(source.now() > mark);

    // The stop flag, raised by another thread.
    let stop = Arc::new(AtomicBool::new(false));
    let raiser = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            stop.store(true, Ordering::Relaxed);
        })
    };
    let limits = Limits {
        depth: Some(40),
        stop: Some(stop),
        ..Limits::default()
    };
    let result = searcher.search_position(&pos, &limits);
    raiser.join().unwrap();
    assert!(result.stopped);
    assert!(legal.contains(&result.best_move.unwrap()));

    // Stopped before it starts (a busy machine, a deadline already past): the first
    // iteration is still completed and reported, so there is a searched move and a line.
    let mut reported = Vec::new();
    let limits = Limits {
        depth: Some(40),
        stop: Some(Arc::new(AtomicBool::new(true))),
        ..Limits::default()
    };
    let result = searcher.search(&GameRecord::new(pos), &limits, |it| reported.push(it.depth));
    // (The flag is read every few thousand nodes: a short second iteration may finish.)
    assert!(reported.first().is_some_and(|&d| d <= 2), "{reported:?}");
    assert!(result.stopped && result.depth >= 1 && !result.pv.is_empty());
    assert!(legal.contains(&result.best_move.unwrap()));
}

#[test]
fn searches_are_deterministic_and_independent_of_earlier_searches() {
    let positions = treestats::random_positions(20, 9);
    let mut reused = Searcher::new(Material, SearchConfig::FULL, 4);
    for pos in &positions {
        for limits in [Limits::depth(8), Limits::nodes(20_000)] {
            let a = reused.search_position(pos, &limits);
            let b = Searcher::new(Material, SearchConfig::FULL, 4).search_position(pos, &limits);
            assert_eq!(a.best_move, b.best_move);
            assert_eq!(a.score, b.score);
            assert_eq!(a.nodes, b.nodes);
            assert_eq!(a.pv, b.pv);
        }
    }
}

#[test]
fn a_position_without_moves_returns_no_move_and_a_loss() {
    let pos = position("B:W8,11:B4");
    let result =
        Searcher::new(Material, SearchConfig::FULL, 1).search_position(&pos, &Limits::depth(5));
    assert_eq!(result.best_move, None);
    assert_eq!(result.score, -WIN);
}
