//! `evalearn accuracy` and the `perfect` player: hand-made cases with known values, Kalah
//! cases against brute force, the command's figures against a direct computation, a
//! perfect evaluator scoring 100%, and bad input.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use evalearn::accuracy::{self, Case, Settings};
use evalearn::arena::perfect::{ExactMover, Perfect, PerfectGame, parse_spec};
use evalearn::arena::players::{Contender, Player};
use evalearn::eval::Evaluator;
use evalearn::game::{Game, GameRecord};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::Material as MaterialEval;
use evalearn::games::brazilian::accuracy as draughts;
use evalearn::games::brazilian::egdb::Egdb;
use evalearn::games::kalah::accuracy as kalah;
use evalearn::games::kalah::evaluators::KalahEval;
use evalearn::games::kalah::solve::Solver;
use evalearn::games::kalah::solve::cache::{CachedSolver, SolvedCache};
use evalearn::games::kalah::{A, B, Kalah, KalahMove, KalahRules};
use evalearn::search::{Limits, SearchConfig, Searcher, Tablebase};

use crate::common::{evalearn, evalearn_ok, temp_dir};
use crate::egdb::database;
use crate::kalah_solve::negamax;

fn settings(depths: &[u32]) -> Settings {
    Settings {
        depths: depths.to_vec(),
        draw_band: 50,
        probability: None,
        tt_mib: 1,
    }
}

/// The evaluator's chosen moves and value losses worked out here, searcher by hand.
fn direct_figures<G: Game, E: Evaluator<G> + Clone>(
    cases: &[Case<G>],
    evaluator: &E,
    depth: u32,
) -> (u64, i64) {
    let mut searcher = Searcher::new(evaluator.clone(), SearchConfig::FULL, 1);
    let (mut optimal, mut lost) = (0, 0i64);
    for case in cases {
        let mv = searcher
            .search_position(&case.position, &Limits::depth(depth.max(1)))
            .best_move
            .unwrap();
        let value = case.moves.iter().find(|m| m.0 == mv).unwrap().1;
        optimal += u64::from(value == case.value);
        lost += i64::from(case.value - value);
    }
    (optimal, lost)
}

#[test]
fn three_kings_against_one_won_off_the_diagonal_and_drawn_on_it() {
    let egdb = &database(4).1;
    let won = Brazilian::parse_position("W:WK29,K30,K31:BK5").unwrap();
    let drawn = Brazilian::parse_position("W:WK6,K7,K28:BK29").unwrap();
    let won_case = draughts::case_of(egdb.as_ref(), &won).unwrap();
    let drawn_case = draughts::case_of(egdb.as_ref(), &drawn).unwrap();
    assert_eq!(won_case.value, 1);
    assert_eq!(drawn_case.value, 0);
    // A move giving the black king the long diagonal throws the win away: it exists
    // among the won position's moves, and no move of the drawn one wins.
    assert!(won_case.is_critical());
    assert!(drawn_case.moves.iter().all(|&(_, v)| v <= 0));
    // Each move's value is the database's value of the position after it.
    for case in [&won_case, &drawn_case] {
        for &(mv, value) in &case.moves {
            let after = egdb.probe(&case.position.play(mv)).unwrap();
            assert_eq!(value, -draughts::value_of(after));
        }
    }

    let cases = vec![won_case, drawn_case];
    let settings = settings(&[0, 2, 4]);
    let verdicts = accuracy::verdicts(&cases, &MaterialEval, &settings);
    let report = accuracy::report(&cases, &verdicts, &settings);
    for (figures, depth) in report.depths.iter().zip([0, 2, 4]) {
        let (optimal, lost) = direct_figures(&cases, &MaterialEval, depth);
        assert_eq!(figures.optimal.hits, optimal, "depth {depth}");
        assert_eq!(figures.lost.sum as i64, lost, "depth {depth}");
    }
    // Material counts 3 kings against 1 as a clear win in both: the won one is predicted
    // right, the drawn one wrong.
    let confusion = report.static_figures.confusion;
    assert_eq!(confusion[0], [1, 0, 0]);
    assert_eq!(confusion[1], [1, 0, 0]);
    assert_eq!(report.static_figures.agreement.hits, 1);
}

/// The database's values as an evaluator: every quiet position scored exactly.
#[derive(Clone)]
struct Oracle(Arc<Egdb>);

impl Evaluator<Brazilian> for Oracle {
    fn evaluate(&self, pos: &Brazilian) -> i32 {
        10_000 * draughts::value_of(self.0.probe(pos).expect("inside the database"))
    }
    fn name(&self) -> String {
        "oracle".to_string()
    }
}

#[test]
fn a_perfect_evaluator_scores_100_percent_and_material_does_not() {
    let egdb = &database(4).1;
    let cases = draughts::sample(egdb, &[(3, 1.0), (4, 1.0)], 150, 9).unwrap();
    assert_eq!(cases.len(), 150);
    let settings = settings(&[0, 1, 2]);
    let verdicts = accuracy::verdicts(&cases, &Oracle(Arc::clone(egdb)), &settings);
    let report = accuracy::report(&cases, &verdicts, &settings);
    for figures in &report.depths {
        assert_eq!(figures.optimal.hits, 150, "depth {}", figures.depth);
        assert_eq!(figures.lost.sum, 0.0);
    }
    assert_eq!(report.static_figures.agreement.hits, 150);
    let material = accuracy::report(
        &cases,
        &accuracy::verdicts(&cases, &MaterialEval, &settings),
        &settings,
    );
    assert!(material.depths[0].optimal.hits < 150);
    assert!(material.critical > 0 && material.critical < 150);
}

#[test]
fn kalah_cases_equal_brute_force() {
    let rules = KalahRules {
        stones: 1,
        empty_capture: false,
    };
    let positions = kalah::selfplay_positions(rules, 25, 4, None).unwrap();
    assert_eq!(positions.len(), 25);
    // The same seed draws the same positions.
    assert_eq!(
        kalah::selfplay_positions(rules, 25, 4, None).unwrap(),
        positions
    );
    let mut exact = CachedSolver {
        solver: Solver::new(rules, 4, None).unwrap(),
        cache: SolvedCache::open(None, rules).0,
    };
    let small: Vec<&Kalah> = positions.iter().filter(|p| brute_forceable(p)).collect();
    assert!(small.len() >= 5, "{}", small.len());
    for pos in small {
        let case = kalah::case_of(&mut exact, pos).unwrap();
        assert_eq!(case.value, negamax(pos), "{}", pos.format_position());
        for &(mv, value) in &case.moves {
            assert_eq!(
                value,
                -negamax(&pos.play(mv)),
                "{} {mv:?}",
                pos.format_position()
            );
        }
    }
}

/// Few enough stones in the pits for the brute-force negamax.
fn brute_forceable(pos: &Kalah) -> bool {
    pos.stones_in_pits(A) + pos.stones_in_pits(B) <= 8
}

#[test]
fn the_capped_solver_gives_up_and_stays_right() {
    let rules = KalahRules {
        stones: 2,
        empty_capture: false,
    };
    let start = Kalah::start_of(rules);
    let mut solver = Solver::new(rules, 16, None).unwrap();
    assert_eq!(solver.best_move_capped(&start, 10).unwrap(), None);
    let (mv, solution) = solver.best_move_capped(&start, u64::MAX).unwrap().unwrap();
    let mut fresh = Solver::new(rules, 16, None).unwrap();
    assert_eq!(solution.value, fresh.solve(&start).unwrap().value);
    let after = start.play(mv);
    assert_eq!(-fresh.solve(&after).unwrap().value, solution.value);
}

/// A perfect player tells its exact mover when a game starts (the Kalah solver then
/// forgets what earlier games' capped solves left in its table).
#[test]
fn a_perfect_player_passes_a_new_game_on() {
    struct Counting(Arc<AtomicUsize>);
    impl ExactMover<Kalah> for Counting {
        fn exact_move(&mut self, _: &Kalah) -> Option<(KalahMove, i32)> {
            None
        }
        fn new_game(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
    let games = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&games);
    let perfect = Perfect::new(move || Box::new(Counting(Arc::clone(&counter))), None);
    let mut player = perfect.player(1).unwrap();
    player.start_game(7).unwrap();
    player.new_game().unwrap();
    assert_eq!(games.load(Ordering::Relaxed), 2);
}

#[test]
fn perfect_players_move_exactly() {
    assert_eq!(parse_spec("perfect"), Some(Ok(2_000_000)));
    assert_eq!(parse_spec("perfect:500"), Some(Ok(500)));
    assert!(parse_spec("perfect:x").unwrap().is_err());
    assert_eq!(parse_spec("material"), None);

    let egdb = Arc::clone(&database(4).1);
    let tablebase: Arc<dyn Tablebase<Brazilian>> = egdb.clone();
    let perfect = Brazilian::perfect((), Some(tablebase), None, 1, &mut |_| {}).unwrap();
    let mut player = perfect.player(1).unwrap();
    let won = Brazilian::parse_position("W:WK29,K30,K31:BK5").unwrap();
    let mv = player
        .think(&GameRecord::new(won), &Limits::depth(1))
        .unwrap()
        .best_move
        .unwrap();
    assert_eq!(draughts::value_of(egdb.probe(&won.play(mv)).unwrap()), -1);
    assert!(Brazilian::perfect((), None, None, 1, &mut |_| {}).is_err());

    let rules = KalahRules {
        stones: 1,
        empty_capture: false,
    };
    // Its database in a folder of the test's own, not `kalah-db/` in the checkout.
    let db_dir = temp_dir("perfect-players-db");
    let perfect = Kalah::perfect(rules, None, Some(&db_dir), u64::MAX, &mut |_| {}).unwrap();
    let mut player = perfect.player(1).unwrap();
    let positions = kalah::selfplay_positions(rules, 25, 2, None).unwrap();
    for pos in positions.into_iter().filter(brute_forceable) {
        let mv = player
            .think(&GameRecord::new(pos), &Limits::depth(1))
            .unwrap()
            .best_move
            .unwrap();
        assert_eq!(
            -negamax(&pos.play(mv)),
            negamax(&pos),
            "{}",
            pos.format_position()
        );
    }
}

fn json_of(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The JSON's figures of each depth equal `report`'s.
fn assert_json_matches(json: &serde_json::Value, report: &accuracy::Report) {
    assert_eq!(json["positions"], report.positions);
    for figures in &report.depths {
        let d = &json["depths"][figures.depth.to_string()];
        assert_eq!(d["optimal_moves"], figures.optimal.hits);
        assert_eq!(d["value_lost_total"].as_f64().unwrap(), figures.lost.sum);
        let close = |key: &str, want: f64| {
            assert!(
                (d[key].as_f64().unwrap() - want).abs() < 1e-12,
                "{key}: {d}"
            );
        };
        close("optimal_move_rate", figures.optimal.value());
        close("mean_value_lost", figures.lost.value());
    }
    assert_eq!(
        json["static"]["agreement"]["hits"],
        report.static_figures.agreement.hits
    );
}

#[test]
fn the_draughts_command_equals_a_direct_computation_and_keeps_files() {
    let (dir, egdb) = database(4);
    let out_dir = temp_dir("accuracy-draughts");
    let json = out_dir.join("material.json");
    let (d, j) = (dir.to_str().unwrap(), json.to_str().unwrap());
    let args = [
        "accuracy",
        "--eval",
        "material",
        "--egdb",
        d,
        "--positions",
        "60",
        "--seed",
        "5",
        "--depths",
        "0,2",
        "--mix",
        "3:1,4:2",
        "--json",
        j,
    ];
    let out = evalearn_ok(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("depth 2: optimal moves"), "{text}");

    let cases = draughts::sample(egdb, &[(3, 1.0), (4, 2.0)], 60, 5).unwrap();
    let settings = settings(&[0, 2]);
    let report = accuracy::report(
        &cases,
        &accuracy::verdicts(&cases, &MaterialEval, &settings),
        &settings,
    );
    assert_json_matches(&json_of(&json), &report);

    // The file is not replaced unless --force says so.
    let out = evalearn(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    let mut forced = args.to_vec();
    forced.push("--force");
    evalearn_ok(&forced);
    std::fs::remove_dir_all(&out_dir).unwrap();
}

#[test]
fn the_kalah_command_equals_a_direct_computation_and_reuses_solved_values() {
    let out_dir = temp_dir("accuracy-kalah");
    let (json, db_dir) = (out_dir.join("stores.json"), out_dir.join("db"));
    let (j, db) = (json.to_str().unwrap(), db_dir.to_str().unwrap());
    let args = [
        "accuracy",
        "--eval",
        "stores",
        "--game",
        "kalah:6:2",
        "--positions",
        "30",
        "--seed",
        "2",
        "--depths",
        "0,3",
        "--db-dir",
        db,
        "--db-stones",
        "6",
        "--json",
        j,
        "--force",
    ];
    let out = evalearn_ok(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("0 values known before"), "{text}");
    assert!(
        db_dir.join("standard-6.kdb").exists() && db_dir.join("solved-standard.kvals").exists()
    );

    let rules = KalahRules {
        stones: 2,
        empty_capture: false,
    };
    let mut exact = CachedSolver {
        solver: Solver::new(rules, 16, None).unwrap(),
        cache: SolvedCache::open(None, rules).0,
    };
    let positions = kalah::selfplay_positions(rules, 30, 2, None).unwrap();
    let cases: Vec<_> = positions
        .iter()
        .map(|p| kalah::case_of(&mut exact, p).unwrap())
        .collect();
    let settings = settings(&[0, 3]);
    let report = accuracy::report(
        &cases,
        &accuracy::verdicts(&cases, &KalahEval::Stores, &settings),
        &settings,
    );
    assert_json_matches(&json_of(&json), &report);

    // A second run reads the database and the solved values instead of searching.
    let out = evalearn_ok(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("read from"), "{text}");
    assert!(text.contains(" 0 new, 0 nodes"), "{text}");
    assert_json_matches(&json_of(&json), &report);
    std::fs::remove_dir_all(&out_dir).unwrap();
}

#[test]
fn a_match_against_perfect_play_never_favours_the_model() {
    let out = evalearn_ok(&[
        "match",
        "--game",
        "kalah:6:1",
        "--a",
        "stores",
        "--b",
        "perfect",
        "--games",
        "8",
        "--depth",
        "2",
        "--threads",
        "1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("A ")).unwrap();
    let score: f64 = line
        .rsplit("score ")
        .next()
        .unwrap()
        .trim_end_matches('%')
        .parse()
        .unwrap();
    // Each opening is played from both sides: perfect play scores at least half of
    // every pair.
    assert!(score <= 50.0, "{text}");
}

/// The report says how many of the perfect side's moves were exact: from an opening of
/// five pieces with a capture to make, the perfect side searches its one move there when
/// it has White, and every later position is in the 4-piece database.
#[test]
fn a_match_counts_the_perfect_sides_exact_moves() {
    let (egdb, _) = database(4);
    let dir = temp_dir("perfect-exact-moves");
    let openings = dir.join("opening.fen");
    std::fs::write(&openings, "W:W22,K30:B18,K1,K5\n").unwrap();
    let json = dir.join("match.json");
    let out = evalearn_ok(&[
        "match",
        "--a",
        "material",
        "--b",
        "perfect",
        "--egdb",
        egdb.to_str().unwrap(),
        "--openings",
        openings.to_str().unwrap(),
        "--games",
        "2",
        "--depth",
        "2",
        "--threads",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let json = json_of(&json);
    let moves = json["perfect_moves"].as_u64().unwrap();
    let exact = json["perfect_exact_moves"].as_u64().unwrap();
    assert_eq!(moves - exact, 1, "{text}");
    assert!(
        text.contains(&format!(
            "exact moves  B (perfect) played {exact} of its {moves} moves exactly"
        )),
        "{text}"
    );
}

#[test]
fn bad_input_is_refused_naming_the_flag() {
    let (dir, _) = database(3);
    let egdb = format!("--eval material --egdb {} --positions 5", dir.display());
    let cases = [
        (format!("{egdb} --depths 0,x"), "--depths"),
        (format!("{egdb} --depths 2,2"), "--depths"),
        (format!("{egdb} --mix 9:1"), "--mix"),
        (format!("{egdb} --mix 4:1"), "--mix"),
        (
            "--eval stores --game kalah:6:6 --positions 5".to_string(),
            "--max-pit-stones",
        ),
        (
            "--eval stores --game kalah:6:6 --max-pit-stones 40 --positions 5".to_string(),
            "--game",
        ),
        (format!("{egdb} --max-pit-stones 10"), "--max-pit-stones"),
        ("--eval stores --positions 5".to_string(), "--egdb"),
        (
            "--eval /no/such/model.bin --game kalah:6:2 --positions 5".to_string(),
            "model.bin",
        ),
        (
            "--eval material --egdb /no/such/dir --positions 5".to_string(),
            "--egdb",
        ),
    ];
    for (args, flag) in &cases {
        let all: Vec<&str> = std::iter::once("accuracy").chain(args.split(' ')).collect();
        let out = evalearn(&all);
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(flag), "{all:?}: {stderr}");
    }
    let perfect = "match --game kalah:6:1 --a stores --b perfect:0 --games 2 --depth 1";
    let out = evalearn(&perfect.split(' ').collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--b"));
}

/// Positions are solved and searched on every thread, and the figures are the same
/// whatever the thread count (each run with a folder of its own: nothing is read back).
#[test]
fn kalah_accuracy_is_the_same_on_one_and_two_threads() {
    let out_dir = temp_dir("accuracy-threads");
    let run = |threads: &str| {
        let json = out_dir.join(format!("{threads}.json"));
        let db = out_dir.join(format!("db-{threads}"));
        let out = evalearn_ok(&[
            "accuracy",
            "--eval",
            "stores",
            "--game",
            "kalah:6:2",
            "--positions",
            "60",
            "--seed",
            "5",
            "--depths",
            "0,2,4",
            "--db-stones",
            "6",
            "--db-dir",
            db.to_str().unwrap(),
            "--threads",
            threads,
            "--json",
            json.to_str().unwrap(),
        ]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            text.contains("solved 60 positions in ")
                && text.contains(&format!(
                    " on {threads} thread{} (0 values known before",
                    if threads == "1" { "" } else { "s" }
                )),
            "{text}"
        );
        (std::fs::read(&json).unwrap(), text)
    };
    let (one, one_text) = run("1");
    let (two, two_text) = run("2");
    assert_eq!(
        one, two,
        "JSON of 1 thread and of 2 differ:\n{one_text}\n{two_text}"
    );
    let figures = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with("solved ") && !l.starts_with("db "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(figures(&one_text), figures(&two_text));
    std::fs::remove_dir_all(&out_dir).unwrap();
}

#[test]
fn late_kalah_positions_of_any_variant_are_solved() {
    let out = evalearn_ok(&[
        "accuracy",
        "--eval",
        "stores",
        "--game",
        "kalah:6:6",
        "--max-pit-stones",
        "14",
        "--db-stones",
        "10",
        "--positions",
        "20",
        "--depths",
        "0,2",
        "--db-dir",
        temp_dir("accuracy-late").to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("solved 20 positions"), "{text}");
    let rules = KalahRules::default();
    let positions = kalah::selfplay_positions(rules, 20, 1, Some(14)).unwrap();
    assert!(positions.iter().all(|p| {
        use evalearn::games::kalah::solve::board::{pits_of, stones};
        stones(&pits_of(p)) <= 14
    }));
}
