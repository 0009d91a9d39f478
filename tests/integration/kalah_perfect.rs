//! Kalah matches report the final margins: the printed and JSON mean is the mean of the
//! recorded games' store differences, and against the `perfect` player it is what the
//! other side loses (perfect play never gives up value over a pair of games).

use std::path::Path;

use crate::common;
use common::{evalearn_ok, stdout, temp_dir};

use evalearn::game::{Game, GameFile, SavedGame};
use evalearn::games::kalah::{Kalah, KalahRules};

fn json_of(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Each recorded game's final margin for the match's A: replayed to its end, where the
/// side to move has no move and the stores (with the pits swept) decide.
fn margins_for_a(rules: KalahRules, record: &Path) -> Vec<i32> {
    let games: Vec<SavedGame<Kalah>> =
        Kalah::read_games(rules, &std::fs::read_to_string(record).unwrap()).unwrap();
    games
        .iter()
        .map(|game| {
            let end = game.moves.iter().fold(game.start, |pos, &mv| pos.play(mv));
            assert!(!end.has_legal_move(), "every game is played to its end");
            // Kalah's player A moves first; the tag says which engine that was.
            let a_first = game.tag("A").unwrap().starts_with("A: ");
            let first_margin = if end.side_to_move() == evalearn::games::kalah::A {
                end.final_margin()
            } else {
                -end.final_margin()
            };
            if a_first { first_margin } else { -first_margin }
        })
        .collect()
}

/// `evalearn match` of `a` against `b` in `rules` with the `extra` flags: its report,
/// its JSON and the recorded games' margins for A.
fn run_match(
    dir: &Path,
    name: &str,
    rules: &str,
    a: &str,
    b: &str,
    extra: &[&str],
) -> (String, serde_json::Value, Vec<i32>) {
    let record = dir.join(format!("{name}.klh"));
    let json = dir.join(format!("{name}.json"));
    let mut args = vec![
        "match",
        "--game",
        rules,
        "--a",
        a,
        "--b",
        b,
        "--threads",
        "2",
        "--record",
        record.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let text = stdout(&evalearn_ok(&args));
    let rules = KalahRules::parse(rules.strip_prefix("kalah:").unwrap()).unwrap();
    (text, json_of(&json), margins_for_a(rules, &record))
}

#[test]
fn the_mean_margin_is_the_mean_of_the_recorded_games() {
    let dir = temp_dir("kalah-margins");
    let (text, json, margins) = run_match(
        &dir,
        "tseitin-stores",
        "kalah:6:4",
        "tseitin",
        "stores",
        &["--depth", "2", "--games", "12", "--seed", "3"],
    );
    assert_eq!(margins.len(), 12);
    let mean = margins.iter().sum::<i32>() as f64 / 12.0;
    let reported = json["mean_margin"].as_f64().unwrap();
    assert!(
        (reported - mean).abs() < 1e-9,
        "{reported} vs {mean}: {margins:?}"
    );
    assert_eq!(json["margin_games"], 12);
    assert_eq!(json["margin_units"], "stones");
    let [low, high] = [0, 1].map(|i| json["mean_margin_interval"][i].as_f64().unwrap());
    assert!(low <= mean && mean <= high, "{low} {mean} {high}");
    // The interval is over pairs: the spread of the six pairs' means.
    let pair_means: Vec<f64> = margins
        .chunks(2)
        .map(|p| f64::from(p[0] + p[1]) / 2.0)
        .collect();
    let variance = pair_means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / 5.0;
    assert!((high - mean - 1.96 * (variance / 6.0).sqrt()).abs() < 1e-9);
    assert!(
        text.contains(&format!("margin       A {mean:+.2} stones a game")),
        "{text}"
    );
    // Neither side plays perfectly: no line about perfect play.
    assert!(!text.contains("perfect play") && json.get("lost_to_perfect").is_none());
}

#[test]
fn perfect_play_never_gives_up_value_over_a_pair() {
    let dir = temp_dir("kalah-perfect");
    let db_dir = dir.join("db");
    let opening = ["--games", "16", "--random-plies", "2", "--seed", "5"];
    // Perfect against itself: each pair's two margins cancel exactly.
    let (text, json, margins) = run_match(
        &dir,
        "perfect-perfect",
        "kalah:6:1",
        "perfect",
        "perfect",
        &[
            &["--depth", "1", "--db-dir", db_dir.to_str().unwrap()],
            &opening[..],
        ]
        .concat(),
    );
    assert_eq!(margins.len(), 16);
    for pair in margins.chunks(2) {
        assert_eq!(pair[0] + pair[1], 0, "{margins:?}");
    }
    assert_eq!(json["mean_margin"], 0.0);
    assert_eq!(json["mean_margin_interval"], serde_json::json!([0.0, 0.0]));
    assert!(
        text.contains("margin       A +0.00 stones a game"),
        "{text}"
    );
    // The database was kept in --db-dir.
    assert!(db_dir.join("standard-12.kdb").exists());

    // Against a shallow `stores`: perfect never ends a pair behind, and the stones the
    // other side loses are the margin perfect play holds it to.
    let (text, json, margins) = run_match(
        &dir,
        "stores-perfect",
        "kalah:6:1",
        "stores",
        "perfect",
        &[
            &["--depth", "1", "--db-dir", db_dir.to_str().unwrap()],
            &opening[..],
        ]
        .concat(),
    );
    for pair in margins.chunks(2) {
        assert!(pair[0] + pair[1] <= 0, "{margins:?}");
    }
    let lost = -(margins.iter().sum::<i32>() as f64) / margins.len() as f64;
    let reported = &json["lost_to_perfect"];
    assert_eq!(reported["side"], "A");
    assert!(
        (reported["mean"].as_f64().unwrap() - lost).abs() < 1e-9,
        "{json}"
    );
    assert!(
        text.contains(&format!(
            "vs perfect   A loses {lost:.2} stones a game against perfect play"
        )),
        "{text}"
    );
    // Every turn of Kalah(6,1) is in the 12-stone database: all of perfect's are exact.
    let turns = perfect_turns(&dir.join("stores-perfect.klh"));
    assert_eq!(json["perfect_moves"], turns);
    assert_eq!(json["perfect_exact_moves"], turns);
    assert!(
        text.contains(&format!(
            "exact moves  B (perfect) played {turns} of its {turns} moves exactly (100.0%)"
        )),
        "{text}"
    );
}

/// The turns B played in the recorded games.
fn perfect_turns(record: &Path) -> u64 {
    let rules = KalahRules::parse("6:1").unwrap();
    let games: Vec<SavedGame<Kalah>> =
        Kalah::read_games(rules, &std::fs::read_to_string(record).unwrap()).unwrap();
    games
        .iter()
        .map(|game| {
            // A's turns are the even ones when it moved first.
            let b_first = !game.tag("A").unwrap().starts_with("A: ");
            let odd = game.moves.len() as u64 / 2;
            if b_first {
                game.moves.len() as u64 - odd
            } else {
                odd
            }
        })
        .sum()
}

#[test]
fn draughts_matches_print_no_margin() {
    let out = evalearn_ok(&[
        "match", "--a", "material", "--b", "material", "--depth", "1", "--games", "2",
    ]);
    assert!(!stdout(&out).contains("margin"), "{}", stdout(&out));
}
