//! The exact Kalah solver (`games::kalah::solve`, `evalearn solve`) against a plain
//! full-width negamax over `Kalah::legal_moves`/`play` that shares nothing with it, and
//! the published values of small Kalah variants.

use crate::common;
use common::{evalearn, evalearn_ok};

use evalearn::arena::perfect::PerfectGame;
use evalearn::arena::players::{Contender, Player};
use evalearn::game::{Game, GameRecord, random_plies};
use evalearn::games::kalah::egdb::SearchDatabases;
use evalearn::games::kalah::evaluators::KalahEval;
use evalearn::games::kalah::solve::Solver;
use evalearn::games::kalah::solve::db::{EndgameDb, MAX_DB_STONES};
use evalearn::games::kalah::{A, B, Kalah, KalahMove, KalahMoves, KalahRules};
use evalearn::search::{Limits, SearchConfig, Searcher, Tablebase};
use rand::RngExt;
use std::sync::Arc;

/// The final store margin for the side to move under perfect play, by brute force.
pub(crate) fn negamax(pos: &Kalah) -> i32 {
    // On the heap: a move list is 32 KiB and the recursion is deep.
    let mut moves = Box::new(KalahMoves::new());
    pos.legal_moves(&mut moves);
    if moves.is_empty() {
        let (a, b) = pos.final_score();
        let margin = a as i32 - b as i32;
        return if pos.side_to_move() == A {
            margin
        } else {
            -margin
        };
    }
    moves.iter().map(|&mv| value_after(pos, mv)).max().unwrap()
}

/// [`negamax`]'s value of playing `mv` in `pos`, for `pos`'s side to move.
fn value_after(pos: &Kalah, mv: KalahMove) -> i32 {
    let child = pos.play(mv);
    let value = negamax(&child);
    if child.side_to_move() == pos.side_to_move() {
        value
    } else {
        -value
    }
}

fn rules(stones: u8, empty_capture: bool) -> KalahRules {
    KalahRules {
        stones,
        empty_capture,
    }
}

/// A random position of `rules` with `in_pits` stones in the pits, the rest in the
/// stores, either side to move.
pub(crate) fn random_position(rules: KalahRules, in_pits: u32, rng: &mut impl rand::Rng) -> Kalah {
    let mut counts = [0u32; 14];
    for _ in 0..in_pits {
        let pit = rng.random_range(0..12);
        counts[if pit < 6 { pit } else { pit + 1 }] += 1;
    }
    let rest = 12 * u32::from(rules.stones) - in_pits;
    let a_store = rng.random_range(0..=rest);
    counts[6] = a_store;
    counts[13] = rest - a_store;
    let side = if rng.random_bool(0.5) { "A" } else { "B" };
    let list: Vec<String> = counts.iter().map(u32::to_string).collect();
    Kalah::parse_position_of(rules, &format!("{side}:{}", list.join(","))).unwrap()
}

#[test]
fn the_solver_equals_brute_force_on_random_small_positions() {
    let mut rng = evalearn::rng::stream(11, 0);
    for empty_capture in [false, true] {
        let rules = rules(2, empty_capture);
        let db = Arc::new(EndgameDb::build(rules, 6));
        let mut plain = Solver::new(rules, 16, None).unwrap();
        let mut with_db = Solver::new(rules, 16, Some(db)).unwrap();
        for i in 0..300 {
            let pos = random_position(rules, 2 + i % 7, &mut rng);
            let expected = negamax(&pos);
            assert_eq!(plain.solve(&pos).unwrap().value, expected, "{pos:?}");
            assert_eq!(with_db.solve(&pos).unwrap().value, expected, "{pos:?}");
        }
    }
}

#[test]
fn the_solver_equals_brute_force_late_in_kalah_6_2_games() {
    for empty_capture in [false, true] {
        let rules = rules(2, empty_capture);
        let mut solver = Solver::new(rules, 64, None).unwrap();
        let mut rng = evalearn::rng::stream(12, u64::from(empty_capture));
        let mut moves = KalahMoves::new();
        let mut checked = 0;
        while checked < 6 {
            let plies = rng.random_range(4..12);
            let Some(pos) = random_plies(Kalah::start_of(rules), plies, &mut rng, &mut moves)
            else {
                continue;
            };
            if pos.stones_in_pits(A) + pos.stones_in_pits(B) > 9 {
                continue;
            }
            assert_eq!(solver.solve(&pos).unwrap().value, negamax(&pos), "{pos:?}");
            checked += 1;
        }
    }
}

#[test]
fn small_kalah_values_equal_the_published_ones() {
    // Value = the first player's final margin. Empty-capture rule: Irving, Donkers &
    // Uiterwijk, "Solving Kalah" (2000); standard rule: Rawlings (2015).
    for (stones, empty_capture, published) in [
        (1, false, 2),
        (2, false, 6),
        (3, false, 2),
        (1, true, 2),
        (2, true, 10),
        (3, true, 2),
    ] {
        let rules = rules(stones, empty_capture);
        let db = Arc::new(EndgameDb::build(rules, 10));
        let mut solver = Solver::new(rules, 64, Some(db)).unwrap();
        let solution = solver.solve(&Kalah::start_of(rules)).unwrap();
        assert_eq!(solution.value, published, "{}", rules.name());
        // The principal variation keeps the value to the end of the game.
        let line = solver
            .principal_variation(&Kalah::start_of(rules), &solution)
            .unwrap();
        let mut pos = Kalah::start_of(rules);
        for mv in line {
            pos = pos.play(mv);
        }
        let (a, b) = pos.final_score();
        assert!(pos.is_over());
        assert_eq!(a as i32 - b as i32, published, "{}", rules.name());
    }
}

#[test]
fn solve_from_the_command_line() {
    let out = evalearn_ok(&[
        "solve",
        "--game",
        "kalah:6:2:empty-capture",
        "--pv",
        "--db-stones",
        "8",
        "--tt-mb",
        "16",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("value +10 (A wins by 10"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("pv ")), "{text}");
    let out = evalearn_ok(&[
        "solve",
        "--game",
        "kalah:6:1",
        "--position",
        "B:0,0,0,0,0,1,5,0,0,0,0,1,1,4",
        "--tt-mb",
        "16",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("value "), "{text}");
    // Kalah(6,3), 36 stones: a 12-stone database, not the default 20-stone one.
    let out = evalearn_ok(&["solve", "--game", "kalah:6:3", "--tt-mb", "64"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("db 12 stones: ") && text.contains("value +2 (A wins by 2"),
        "{text}"
    );
    // A question solved in seconds comes without the note of a solve that may not end.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The largest database the help offers is the one accepted.
    let help = String::from_utf8_lossy(&evalearn_ok(&["solve", "--help"]).stdout).into_owned();
    let offered = format!("0 for none, up to {MAX_DB_STONES})");
    assert!(help.contains(&offered), "{help}");
    let too_big = (MAX_DB_STONES + 1).to_string();
    let out = evalearn(&["solve", "--db-stones", &too_big]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: --db-stones {too_big}: at most {MAX_DB_STONES}\n")
    );
    for args in [
        &["solve", "--game", "brazilian"][..],
        &["solve", "--game", "kalah:6:99"],
        &["solve", "--game", "kalah", "--position", "A:1,2,3"],
        &["solve", "--game", "kalah", "--db-stones", "99"],
    ] {
        let out = evalearn(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

/// The search reading the solver's database (`--egdb`): a position the database holds,
/// searched one ply deep, scores its exact final margin in centi-stones, as brute force
/// finds it, whatever the evaluator says.
#[test]
fn a_search_with_the_database_scores_the_exact_margin() {
    for empty_capture in [false, true] {
        let rules = rules(2, empty_capture);
        let databases = SearchDatabases::new(vec![EndgameDb::build(rules, 8)]);
        let tablebase: Arc<dyn Tablebase<Kalah>> = Arc::new(databases);
        let mut searcher =
            Searcher::new(KalahEval::Stores, SearchConfig::FULL, 4).with_tablebase(Some(tablebase));
        let mut rng = evalearn::rng::stream(11, u64::from(empty_capture));
        let mut checked = 0;
        while checked < 150 {
            let pos = random_position(rules, rng.random_range(1..=8), &mut rng);
            if pos.is_over() {
                continue;
            }
            let result = searcher.search_position(&pos, &Limits::depth(1));
            assert_eq!(
                result.score,
                100 * negamax(&pos),
                "{}",
                pos.format_position()
            );
            checked += 1;
        }
    }
}

/// A perfect player whose solver gives up on every move (a cap of 0 nodes) plays the
/// fallback search's moves; with the match's database that search keeps the exact value
/// in every position the database holds, where `stores` alone does not.
#[test]
fn perfects_fallback_search_reads_the_matchs_database() {
    let rules = rules(1, false);
    let db_dir = common::temp_dir("perfect-fallback-db");
    let tablebase: Arc<dyn Tablebase<Kalah>> =
        Arc::new(SearchDatabases::new(vec![EndgameDb::build(rules, 8)]));
    let mut rng = evalearn::rng::stream(5, 0);
    let positions: Vec<Kalah> =
        std::iter::repeat_with(|| random_position(rules, rng.random_range(2..=8), &mut rng))
            .filter(|pos| !pos.is_over())
            .take(150)
            .collect();
    // The number of positions where the perfect player's move loses value.
    let misses = |tablebase: Option<Arc<dyn Tablebase<Kalah>>>| {
        let perfect = Kalah::perfect(rules, tablebase, Some(&db_dir), 0, &mut |_| {}).unwrap();
        let mut player = perfect.player(1).unwrap();
        let misses = positions
            .iter()
            .filter(|pos| {
                let mv = player
                    .think(&GameRecord::new(**pos), &Limits::depth(1))
                    .unwrap()
                    .best_move
                    .unwrap();
                value_after(pos, mv) != negamax(pos)
            })
            .count();
        assert_eq!(perfect.moves().counts(), (0, positions.len() as u64));
        misses
    };
    assert_eq!(misses(Some(tablebase)), 0);
    assert!(
        misses(None) > 0,
        "stores at depth 1 played every move exactly"
    );
}

/// `--egdb DIR` for Kalah reads what `solve --db-dir DIR` wrote; the playing commands
/// and `accuracy --search-egdb` search with it; a folder that is not there is refused.
#[test]
fn the_playing_commands_read_the_solvers_database() {
    let dir = common::temp_dir("kalah-egdb");
    let db = dir.join("db");
    let db_arg = db.to_str().unwrap();
    evalearn_ok(&[
        "solve",
        "--game",
        "kalah:6:1",
        "--db-dir",
        db_arg,
        "--tt-mb",
        "16",
    ]);
    assert!(db.join("standard-12.kdb").is_file());
    let analyse = |egdb: &str| {
        evalearn(&[
            "analyse",
            "--game",
            "kalah:6:1",
            "--depth",
            "2",
            "--egdb",
            egdb,
        ])
    };
    // Kalah(6,1) is a win by 2 for the first player: every reply is in the database.
    let out = analyse(db_arg);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with("depth 2 ") && l.contains(" score +2.00 stones ")),
        "{text}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("egdb: Kalah endgame database: standard capture, 12 stones"),
        "{err}"
    );
    let depth_1 = |extra: &[&str]| {
        let mut args = vec![
            "accuracy",
            "--eval",
            "stores",
            "--game",
            "kalah:6:1",
            "--positions",
            "40",
            "--depths",
            "1",
            "--db-dir",
            db_arg,
            "--threads",
            "2",
        ];
        args.extend_from_slice(extra);
        let text = String::from_utf8_lossy(&evalearn_ok(&args).stdout).into_owned();
        (text.contains("depth 1: optimal moves 100.0%"), text)
    };
    let (exact, text) = depth_1(&["--search-egdb", db_arg]);
    assert!(exact, "{text}");
    // Without the database the same search misses some.
    let (exact, text) = depth_1(&[]);
    assert!(!exact, "{text}");
    // An empty folder: a warning, and the game goes on without.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = analyse(empty.to_str().unwrap());
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no Kalah endgame database in"));
    let out = analyse(dir.join("missing").to_str().unwrap());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such folder"));
}
