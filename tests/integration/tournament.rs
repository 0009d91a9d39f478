//! `evalearn tournament`: every pair plays once, each pairing is the same match as
//! `evalearn match` with the same seed, ratings are anchored at the baseline, `--train`
//! trains the configs first, and bad player lists are refused.

use crate::common;
use common::{assert_input_error, evalearn_ok, temp_dir};

/// `A B W–D–L` of a line of `match`'s report, to compare with the round robin's rows.
fn match_row(a: &str, b: &str) -> String {
    let out = evalearn_ok(&[
        "match",
        "--a",
        a,
        "--b",
        b,
        "--games",
        "8",
        "--depth",
        "2",
        "--seed",
        "3",
        "--threads",
        "2",
    ]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.starts_with("A  "))
        .unwrap()
        .to_string();
    // "A            W wins, D draws, L losses: score S%"
    let numbers: Vec<&str> = line
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .filter(|s| !s.is_empty())
        .collect();
    format!("{}–{}–{}", numbers[0], numbers[1], numbers[2])
}

#[test]
fn a_round_robin_plays_every_pair_as_match_would() {
    let dir = temp_dir("tournament-round-robin");
    let table = dir.join("table.md");
    let json = dir.join("table.json");
    let out = evalearn_ok(&[
        "tournament",
        "--players",
        "models/samuel.bin,models/td.bin,material",
        "--games",
        "8",
        "--depth",
        "2",
        "--seed",
        "3",
        "--threads",
        "2",
        "--markdown",
        table.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let text = std::fs::read_to_string(&table).unwrap();
    assert!(stdout.contains(&text), "{stdout}");
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| A "))
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    for (a, b, spec_a, spec_b) in [
        ("samuel", "td", "models/samuel.bin", "models/td.bin"),
        ("samuel", "material", "models/samuel.bin", "material"),
        ("td", "material", "models/td.bin", "material"),
    ] {
        let row = rows
            .iter()
            .find(|r| r.starts_with(&format!("| {a} | {b} |")))
            .unwrap_or_else(|| panic!("no {a}–{b} row in {text}"));
        assert!(row.contains(&match_row(spec_a, spec_b)), "{row}");
    }
    assert!(text.contains("relative to material"), "{text}");
    assert!(text.contains("material 0"), "{text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["pairings"].as_array().unwrap().len(), 3);
    assert_eq!(report["ratings"][2], 0.0);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn train_first_then_play_the_trained_model() {
    let dir = temp_dir("tournament-train-first");
    let model = dir.join("tiny.bin");
    let config = dir.join("tiny.toml");
    std::fs::write(
        &config,
        format!(
            "learner = \"td\"\nseed = 2\nmodel = \"{}\"\n\n[budget]\niterations = 1\n\n\
             [selfplay]\ndepth = 1\ngames_per_iteration = 4\nthreads = 2\n\n\
             [evaluation]\nevery = 1\ngames = 4\ndepth = 1\n",
            model.display()
        ),
    )
    .unwrap();
    let out = evalearn_ok(&[
        "tournament",
        "--train",
        config.to_str().unwrap(),
        "--players",
        "material",
        "--games",
        "4",
        "--depth",
        "1",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(model.exists() && dir.join("tiny.curve.svg").exists());
    assert!(stdout.contains("| tiny | material |"), "{stdout}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn bad_player_lists_are_refused() {
    for args in [
        &[
            "tournament",
            "--players",
            "material",
            "--games",
            "4",
            "--depth",
            "1",
        ][..],
        &[
            "tournament",
            "--players",
            "material,material",
            "--games",
            "4",
            "--depth",
            "1",
        ],
        &[
            "tournament",
            "--players",
            "material,stores",
            "--games",
            "4",
            "--depth",
            "1",
        ],
        &[
            "tournament",
            "--players",
            "material,/nonexistent.bin",
            "--games",
            "4",
            "--depth",
            "1",
        ],
        &[
            "tournament",
            "--players",
            "material,models/td.bin",
            "--games",
            "3",
            "--depth",
            "1",
        ],
        &[
            "tournament",
            "--players",
            "material,models/td.bin",
            "--games",
            "4",
        ],
    ] {
        assert_input_error(args);
    }
}
