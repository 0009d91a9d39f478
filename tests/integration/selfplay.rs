//! Self-play and matches from the command line: reproducible whatever the thread count,
//! shards that merge into the whole run, datasets that survive a killed run, and matches
//! whose statistics make sense.

use crate::common;
use common::{evalearn, evalearn_ok, temp_dir, wait_until_ready};

use std::path::Path;
use std::process::{Command, Stdio};

use evalearn::game::Game;
use evalearn::games::brazilian::Brazilian;
use evalearn::io::dataset::Dataset;

/// 24 games at depth 4 with seed 11 unless `extra` gives another seed.
fn selfplay(out: &Path, extra: &[&str]) {
    let mut args = vec![
        "selfplay",
        "--eval",
        "material",
        "--games",
        "24",
        "--depth",
        "4",
        "--out",
        out.to_str().unwrap(),
    ];
    if !extra.contains(&"--seed") {
        args.extend_from_slice(&["--seed", "11"]);
    }
    args.extend_from_slice(extra);
    evalearn_ok(&args);
}

#[test]
fn the_same_seed_gives_the_same_bytes_on_one_and_two_threads() {
    let dir = temp_dir("repro");
    for (run, extra) in [
        &[][..],
        &["--temperature", "0.5", "--temperature-plies", "8"],
    ]
    .into_iter()
    .enumerate()
    {
        // Files of their own: an existing dataset is not replaced without --force.
        let one = dir.join(format!("one-{run}.bin"));
        let two = dir.join(format!("two-{run}.bin"));
        selfplay(&one, &[&["--threads", "1"], extra].concat());
        selfplay(&two, &[&["--threads", "2"], extra].concat());
        let (a, b) = (std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
        assert_eq!(a, b, "{extra:?}");
        let data = Dataset::<Brazilian>::read(&one, Some(Brazilian::NAME)).unwrap();
        assert_eq!(data.games.len(), 24);
        assert!(data.warning.is_none());
        let indices: Vec<u64> = data.games.iter().map(|g| g.index).collect();
        assert_eq!(indices, (0..24).collect::<Vec<_>>());
        for game in &data.games {
            assert_eq!(game.scores.len(), game.len());
            assert!(!game.is_empty());
        }
    }
    // A different seed, different games.
    let other = dir.join("other.bin");
    let one = dir.join("one-0.bin");
    selfplay(&other, &["--seed", "12"]);
    assert_ne!(std::fs::read(&other).unwrap(), std::fs::read(&one).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_merge_into_the_whole_run() {
    let dir = temp_dir("shards");
    let whole = dir.join("whole.bin");
    selfplay(&whole, &["--threads", "2"]);
    let mut parts = Vec::new();
    for shard in ["1/3", "2/3", "3/3"] {
        let part = dir.join(format!("part{}.bin", &shard[..1]));
        selfplay(&part, &["--shard", shard, "--threads", "1"]);
        parts.push(part);
    }
    let merged = dir.join("merged.bin");
    let mut args = vec!["dataset", "merge", "--out", merged.to_str().unwrap()];
    args.extend(parts.iter().map(|p| p.to_str().unwrap()));
    evalearn_ok(&args);
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&whole).unwrap()
    );

    let info = evalearn_ok(&["dataset", "info", merged.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("games        24"), "{text}");
    // Merging a shard twice is refused.
    let part = parts[0].to_str().unwrap();
    let twice = evalearn(&[
        "dataset",
        "merge",
        "--out",
        dir.join("x.bin").to_str().unwrap(),
        part,
        part,
    ]);
    assert_eq!(twice.status.code(), Some(2));
    let said = String::from_utf8_lossy(&twice.stderr);
    assert!(
        said.contains(&format!("dataset {part}: given twice")),
        "{said}"
    );
    // Two separate runs both number their games from 0: the input where a game is met
    // again is named with the one holding it already, and what merge joins is said.
    let other_run = dir.join("other-run.bin");
    selfplay(&other_run, &["--seed", "12"]);
    let out = dir.join("x.bin");
    let (whole, other_run) = (whole.to_str().unwrap(), other_run.to_str().unwrap());
    let runs = evalearn(&[
        "dataset",
        "merge",
        "--out",
        out.to_str().unwrap(),
        whole,
        other_run,
    ]);
    assert_eq!(runs.status.code(), Some(2));
    let said = String::from_utf8_lossy(&runs.stderr);
    assert!(
        said.starts_with(&format!(
            "error: dataset {other_run}: game 0 is also in {whole}; merge joins the shards of \
             one run"
        )) && said.contains("cannot join separate runs"),
        "{said}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_run_leaves_every_finished_game_readable() {
    let dir = temp_dir("kill");
    let out = dir.join("killed.bin");
    let mut child = Command::new(env!("CARGO_BIN_EXE_evalearn"))
        // Hermetic: no endgame database from the developer's `egdb/` folder.
        .env("EVALEARN_EGDB", "")
        .args([
            "selfplay", "--eval", "material", "--games", "100000", "--depth", "5",
        ])
        .args(["--random-plies", "12"])
        .args(["--threads", "2", "--out", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until a few dozen games are in the file, then kill the run mid-write.
    wait_until_ready(&mut child, "selfplay writing 40,000 bytes", || {
        std::fs::metadata(&out).map_or(0, |m| m.len()) >= 40_000
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let data = Dataset::<Brazilian>::read(&out, Some(Brazilian::NAME)).unwrap();
    assert!(data.games.len() >= 10, "{} games", data.games.len());
    // Every game read back replays legally to a finished game.
    for game in &data.games {
        let mut record = evalearn::game::GameRecord::new(game.positions[0]).with_ply_cap(Some(300));
        for &mv in &game.moves {
            record.play(mv);
        }
        assert_ne!(record.status(), evalearn::game::GameStatus::Ongoing);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_torn_tail_is_skipped_with_a_warning_and_damage_inside_is_an_error() {
    let dir = temp_dir("torn");
    let path = dir.join("data.bin");
    selfplay(&path, &[]);
    let bytes = std::fs::read(&path).unwrap();
    let whole = Dataset::<Brazilian>::decode(&bytes, &path, None).unwrap();
    assert_eq!(whole.games.len(), 24);
    // Every cut inside the last frame loses only the last game.
    let mut cuts = 0;
    for cut in (bytes.len() - 200..bytes.len()).step_by(7) {
        let data = Dataset::<Brazilian>::decode(&bytes[..cut], &path, None).unwrap();
        if data.games.len() == 23 {
            assert!(data.warning.as_ref().unwrap().contains("torn"));
            cuts += 1;
        }
    }
    assert!(cuts > 0);
    // A flipped byte in the first frame is damage before the end: an error.
    let mut damaged = bytes.clone();
    damaged[40] ^= 0x55;
    let error = Dataset::<Brazilian>::decode(&damaged, &path, None).unwrap_err();
    assert!(error.to_string().contains("frame 1"), "{error}");
    // Not a dataset at all.
    assert!(Dataset::<Brazilian>::decode(b"hello", &path, None).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn match_json(args: &[&str], dir: &Path, name: &str) -> serde_json::Value {
    let json = dir.join(name);
    let mut all = vec!["match", "--json", json.to_str().unwrap()];
    all.extend_from_slice(args);
    evalearn_ok(&all);
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

#[test]
fn matches_are_reproducible_and_tell_strong_from_weak() {
    let dir = temp_dir("match");
    let deep_vs_shallow = [
        "--a",
        "material",
        "--b",
        "material",
        "--a-depth",
        "6",
        "--b-depth",
        "2",
        "--games",
        "60",
        "--seed",
        "3",
    ];
    let one = match_json(
        &[&deep_vs_shallow[..], &["--threads", "1"]].concat(),
        &dir,
        "1.json",
    );
    let two = match_json(
        &[&deep_vs_shallow[..], &["--threads", "2"]].concat(),
        &dir,
        "2.json",
    );
    assert_eq!(one, two);
    for key in [
        "games", "wins", "draws", "losses", "score", "elo", "elo_low", "elo_high", "los",
    ] {
        assert!(one.get(key).is_some(), "{key}");
    }
    assert_eq!(one["games"], 60);
    assert!(one["elo_low"].as_f64().unwrap() > 0.0, "{one}");
    assert!(one["score"].as_f64().unwrap() > 0.7, "{one}");

    // The same engine against itself plays each opening's two games alike with colours
    // swapped: every pair scores 1–1, exactly even, and the pairs' spread is 0, so no
    // interval is given (one of zero width would claim certainty).
    let even = match_json(
        &[
            "--a", "material", "--b", "material", "--depth", "4", "--games", "60", "--seed", "4",
        ],
        &dir,
        "even.json",
    );
    assert_eq!(even["score"].as_f64(), Some(0.5), "{even}");
    assert!(
        even["elo_low"].is_null() && even["elo_high"].is_null(),
        "{even}"
    );
    assert_eq!(even["unmeasured"], "all 30 pairs scored 1–1", "{even}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sprt_stops_the_match_once_decided() {
    let dir = temp_dir("sprt");
    let args = [
        "--a",
        "material",
        "--b",
        "material",
        "--a-depth",
        "6",
        "--b-depth",
        "1",
        "--games",
        "400",
        "--sprt",
        "0,100,0.05,0.05",
        "--seed",
        "8",
    ];
    let one = match_json(&[&args[..], &["--threads", "1"]].concat(), &dir, "1.json");
    let two = match_json(&[&args[..], &["--threads", "2"]].concat(), &dir, "2.json");
    assert_eq!(one, two);
    assert_eq!(one["sprt"]["decision"], "accept_h1", "{one}");
    assert_eq!(one["sprt"]["stopped_early"], true);
    assert!(one["games"].as_u64().unwrap() < 400);
    assert!(one["sprt"]["llr"].as_f64().unwrap() >= one["sprt"]["upper"].as_f64().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_selfplay_and_match_arguments_are_exit_status_2() {
    for args in [
        &[
            "selfplay",
            "--eval",
            "material",
            "--games",
            "4",
            "--out",
            "/tmp/x.bin",
        ][..],
        &[
            "selfplay",
            "--eval",
            "material",
            "--games",
            "4",
            "--depth",
            "3",
            "--nodes",
            "9",
            "--out",
            "/tmp/x.bin",
        ],
        &[
            "selfplay",
            "--eval",
            "material",
            "--games",
            "4",
            "--depth",
            "3",
            "--shard",
            "5/4",
            "--out",
            "/tmp/x.bin",
        ],
        &[
            "selfplay",
            "--eval",
            "material",
            "--games",
            "4",
            "--depth",
            "3",
            "--temperature",
            "-1",
            "--out",
            "/tmp/x.bin",
        ],
        &[
            "selfplay",
            "--eval",
            "nope.bin",
            "--games",
            "4",
            "--depth",
            "3",
            "--out",
            "/tmp/x.bin",
        ],
        &[
            "selfplay",
            "--eval",
            "material",
            "--games",
            "400",
            "--depth",
            "3",
            "--random-plies",
            "1",
            "--out",
            "/tmp/x.bin",
        ],
        &[
            "match", "--a", "material", "--b", "material", "--games", "3", "--depth", "2",
        ],
        &[
            "match", "--a", "material", "--b", "material", "--games", "4",
        ],
        &[
            "match",
            "--a",
            "material",
            "--b",
            "material",
            "--games",
            "4",
            "--depth",
            "2",
            "--sprt",
            "10,0,0.05,0.05",
        ],
        &[
            "match",
            "--a",
            "material",
            "--b",
            "material",
            "--games",
            "4",
            "--depth",
            "2",
            "--openings",
            "/nonexistent.fen",
        ],
        &["dataset", "info", "/nonexistent.bin"],
    ] {
        let out = evalearn(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}
