//! Kalah through every command: `--game kalah[…]` or the game learnt from the model or
//! evaluator given; models of one game refused by the other; datasets and game files in
//! Kalah's forms; results that do not depend on the thread count.

use crate::common;
use common::{evalearn, evalearn_ok, stderr, stdout, temp_dir};

use evalearn::eval::Evaluator;
use evalearn::eval::linear::{self, LinearWeights};
use evalearn::eval::spec::EvalSpec;
use evalearn::game::{Game, GameFile};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::kalah::Kalah;
use evalearn::io::dataset::Dataset;
use evalearn::io::model::{ModelHeader, save_model};

#[test]
fn perft_and_moves_of_kalah_and_its_variants() {
    let out = evalearn_ok(&["perft", "--game", "kalah", "--depth", "5"]);
    assert_eq!(stdout(&out).trim(), "12441");
    let out = evalearn_ok(&["perft", "--game", "kalah", "--depth", "2", "--divide"]);
    let text = stdout(&out);
    assert!(text.starts_with("1,2 "), "{text}");
    assert_eq!(text.lines().last(), Some("60"));
    // Kalah(6,4): pit 3 reaches the store with 4 stones, so 3 starts a longer turn.
    let out = evalearn_ok(&["moves", "--game", "kalah:6:4"]);
    assert!(
        stdout(&out).lines().any(|l| l.starts_with("3,")),
        "{}",
        stdout(&out)
    );
    let out = evalearn_ok(&[
        "moves",
        "--game",
        "kalah",
        "--position",
        "B:6,0,7,7,7,7,1,7,6,6,6,6,6,0",
    ]);
    assert_eq!(stdout(&out).lines().count(), 6);
}

#[test]
fn bad_kalah_input_names_what_and_where_with_status_2() {
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "perft",
                "--game",
                "kalah",
                "--depth",
                "2",
                "--position",
                "A:6,6,6",
            ],
            "3 numbers",
        ),
        (
            &[
                "perft",
                "--game",
                "kalah",
                "--depth",
                "2",
                "--position",
                "A:6,6,6,6,6,6,0,6,6,x,6,6,6,0",
            ],
            "field 10",
        ),
        (
            &[
                "moves",
                "--game",
                "kalah:6:4",
                "--position",
                "A:6,6,6,6,6,6,0,6,6,6,6,6,6,0",
            ],
            "72",
        ),
        (&["perft", "--game", "kalah:7:4", "--depth", "1"], "pits"),
        (&["perft", "--game", "kalah:6:9", "--depth", "1"], "stones"),
        (&["perft", "--game", "go", "--depth", "1"], "unknown game"),
    ];
    for (args, needle) in cases {
        let out = evalearn(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn analyse_and_bench_search_kalah() {
    let out = evalearn_ok(&["analyse", "--game", "kalah", "--depth", "6"]);
    let text = stdout(&out);
    assert!(text.lines().any(|l| l.starts_with("depth 6 ")), "{text}");
    assert!(
        text.lines().last().unwrap().starts_with("bestmove "),
        "{text}"
    );
    // A finished game: no move, and how it ended (B's row is empty: A banks its 5).
    let over = "A:0,1,0,1,2,1,21,0,0,0,0,0,0,46";
    let out = evalearn_ok(&["analyse", "--game", "kalah", "--position", over]);
    let text = stdout(&out);
    assert!(
        text.contains("result B wins, 26-46 (a row is empty)\nbestmove none"),
        "{text}"
    );
    // The evaluator names the game: `stores` is Kalah's.
    let out = evalearn_ok(&["analyse", "--eval", "tseitin", "--depth", "4"]);
    assert!(stdout(&out).contains("bestmove"));
    let out = evalearn_ok(&["bench", "--game", "kalah", "--depth", "8"]);
    let text = stdout(&out);
    let last: Vec<&str> = text.lines().last().unwrap().split_whitespace().collect();
    // The Kalah search's signature (docs/speed.md: bench signature, Kalah). Update it only
    // on purpose.
    assert_eq!(last[..2], ["1068435", "nodes"], "{text}");
    assert_eq!(last.get(3), Some(&"nps"), "{text}");
}

#[test]
fn models_of_one_game_are_refused_by_the_other() {
    let dir = temp_dir("kalah-mismatch");
    let draughts = dir.join("draughts.bin");
    let mut header = ModelHeader::new(
        Brazilian::NAME,
        linear::KIND,
        evalearn::games::brazilian::features::FEATURE_SET_ID,
    );
    save_model(&draughts, &mut header, &LinearWeights::zero::<Brazilian>()).unwrap();
    let path = draughts.to_str().unwrap();
    for args in [
        vec!["analyse", "--game", "kalah", "--eval", path, "--depth", "2"],
        vec![
            "match", "--a", path, "--b", "stores", "--depth", "2", "--games", "2",
        ],
        vec!["play", "--game", "kalah", "--model", path],
        vec!["model", "info", path, "--game", "kalah"],
    ] {
        let out = evalearn(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("brazilian") && err.contains("kalah"),
            "{args:?}: {err}"
        );
    }
    // A Kalah model loads for Kalah, and the game is learnt from it.
    let kalah = dir.join("kalah.bin");
    let mut header = ModelHeader::new(
        Kalah::NAME,
        linear::KIND,
        evalearn::games::kalah::features::FEATURE_SET_ID,
    );
    let mut weights = LinearWeights::zero::<Kalah>();
    weights.weights[0] = 30.0;
    save_model(&kalah, &mut header, &weights).unwrap();
    let (evaluator, _) = EvalSpec::Model(kalah.clone()).load::<Kalah>().unwrap();
    let pos = Kalah::parse_position("A:0,7,7,7,7,7,1,6,6,6,6,6,6,0").unwrap();
    assert_eq!(evaluator.evaluate(&pos), 100 + 30 * (35 - 36));
    assert!(EvalSpec::Model(kalah.clone()).load::<Brazilian>().is_err());
    let out = evalearn_ok(&["analyse", "--eval", kalah.to_str().unwrap(), "--depth", "3"]);
    assert!(stdout(&out).contains("bestmove"));
    let out = evalearn_ok(&["model", "info", kalah.to_str().unwrap()]);
    assert!(stdout(&out).contains("kalah"), "{}", stdout(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn selfplay_does_not_depend_on_threads_and_writes_kalah_records() {
    let dir = temp_dir("selfplay");
    let mut datasets = Vec::new();
    for threads in ["1", "2"] {
        let out_path = dir.join(format!("k{threads}.data"));
        let record = dir.join(format!("k{threads}.klh"));
        evalearn_ok(&[
            "selfplay",
            "--game",
            "kalah:6:4",
            "--eval",
            "stores",
            "--games",
            "12",
            "--depth",
            "3",
            "--temperature",
            "0.5",
            "--threads",
            threads,
            "--seed",
            "9",
            "--out",
            out_path.to_str().unwrap(),
            "--record",
            record.to_str().unwrap(),
        ]);
        datasets.push((
            std::fs::read(&out_path).unwrap(),
            std::fs::read_to_string(&record).unwrap(),
        ));
    }
    assert_eq!(datasets[0], datasets[1], "depends on the thread count");
    let data = Dataset::<Kalah>::read(&dir.join("k1.data"), Some("kalah:6:4")).unwrap();
    assert_eq!(data.games.len(), 12);
    assert!(
        data.games
            .iter()
            .all(|g| g.positions.last().unwrap().is_over())
    );
    let rules = data.games[0].positions[0].rules();
    let games = Kalah::read_games(rules, &datasets[0].1).unwrap();
    assert_eq!(games.len(), 12);
    for (saved, played) in games.iter().zip(&data.games) {
        assert_eq!(saved.moves, played.moves);
        assert_eq!(saved.result, Some(played.outcome));
    }
    assert!(datasets[0].1.contains(" 1) A: "), "{}", datasets[0].1);
    let out = evalearn_ok(&["dataset", "info", dir.join("k2.data").to_str().unwrap()]);
    assert!(stdout(&out).contains("A wins"), "{}", stdout(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_kalah_match_of_the_seeds_evaluations() {
    let dir = temp_dir("kalah-match");
    let record = dir.join("games.klh");
    let out = evalearn_ok(&[
        "match",
        "--game",
        "kalah",
        "--a",
        "tseitin",
        "--b",
        "stores",
        "--depth",
        "3",
        "--games",
        "8",
        "--threads",
        "2",
        "--record",
        record.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert!(text.contains("game         kalah"), "{text}");
    assert!(text.contains("Elo (A − B)"), "{text}");
    let games = Kalah::read_games(
        Default::default(),
        &std::fs::read_to_string(&record).unwrap(),
    )
    .unwrap();
    assert_eq!(games.len(), 8);
    assert_eq!(games[0].tag("A"), Some("A: tseitin (depth 3)"));
    // Evaluators of two games in one match are refused.
    let out = evalearn(&[
        "match", "--a", "material", "--b", "stores", "--depth", "2", "--games", "2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("both must be of one game"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
