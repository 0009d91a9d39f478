//! The `evalearn` binary as scripts use it: output format and exit statuses.

use crate::common;
use common::{evalearn, evalearn_ok, stderr, stdout, temp_dir};

#[test]
fn perft_prints_the_count_last() {
    let out = evalearn(&["perft", "--depth", "6"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().last(), Some("37628"));
    assert!(stderr(&out).contains("Mnps"), "{}", stderr(&out));
}

#[test]
fn a_closed_stdout_ends_the_output_without_a_panic() {
    // `evalearn perft --divide | head -1`: the reader is gone before the first line.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_evalearn"))
        // Hermetic: no endgame database from the developer's `egdb/` folder.
        .env("EVALEARN_EGDB", "")
        .args(["perft", "--depth", "3", "--divide"])
        .stdout(writer)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

#[test]
fn perft_divide_lists_root_moves_then_the_total() {
    let out = evalearn(&["perft", "--depth", "3", "--divide"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "{text}");
    assert_eq!(lines[7], "302");
    let sum: u64 = lines[..7]
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 302);
    assert!(lines.contains(&"22-18 40"), "{text}");
}

#[test]
fn perft_from_a_fen() {
    let out = evalearn(&["perft", "--fen", "W:WK30:B5,8,14,15,26", "--depth", "1"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out).trim(), "4");
}

#[test]
fn moves_lists_one_legal_move_per_line() {
    let out = evalearn(&["moves", "--fen", "W:W23:B10,11,18,19"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "23x23\n");
    let out = evalearn(&["moves", "--algebraic"]);
    assert_eq!(stdout(&out).lines().count(), 7);
    assert!(stdout(&out).contains("c3-d4"));
}

#[test]
fn bad_input_is_exit_status_2_with_a_message() {
    for args in [
        &["perft", "--fen", "W:W33:B1", "--depth", "2"][..],
        &["perft", "--depth", "x"],
        &["perft"],
        &["perft", "--depth", "-1"],
        &["moves", "--fen", "Q:W1:B2"],
        &["moves", "--fen", ""],
        &["no-such-command"],
    ] {
        let out = evalearn(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!stderr(&out).trim().is_empty(), "{args:?}");
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
    let out = evalearn(&["moves", "--fen", "W:W21,33:B1"]);
    assert!(stderr(&out).contains("column 7"), "{}", stderr(&out));
}

#[test]
fn analyse_prints_iterations_then_bestmove() {
    let out = evalearn(&["analyse", "--fen", "W:WK29,K30,K31:BK4", "--depth", "6"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.last().unwrap();
    assert!(
        *last == "bestmove 31-22" || *last == "bestmove 30-25",
        "{text}"
    );
    let first = lines[0];
    for key in ["depth ", " score ", " nodes ", " nps ", " time ", " pv "] {
        assert!(first.contains(key), "{first}");
    }
    assert!(first.contains("score win in 3"), "{first}");

    let out = evalearn(&["analyse", "--nodes", "5000"]);
    assert!(out.status.success());
    assert!(
        stdout(&out)
            .lines()
            .last()
            .unwrap()
            .starts_with("bestmove ")
    );
    let out = evalearn(&["analyse", "--movetime", "50", "--algebraic"]);
    assert!(out.status.success());
}

#[test]
fn bench_ends_with_its_signature_line() {
    let out = evalearn(&["bench", "--depth", "6"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let last = text.lines().last().unwrap();
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words.len(), 4, "{last}");
    assert_eq!((words[1], words[3]), ("nodes", "nps"));
    // The node count is the engine's signature: move generation, ordering and pruning
    // changes show up here (README: `evalearn bench`). Update it only on purpose.
    assert_eq!(words[0], "38163", "bench --depth 6 signature");
}

/// `--threads` of one search: analyse, match (per engine), bench; more than the machine
/// runs at once, or none, is bad input. Two threads where the machine has two cores.
#[test]
fn searches_on_several_threads_from_the_command_line() {
    let max = evalearn::search::max_threads();
    let two = max.min(2).to_string();
    for game in ["brazilian", "kalah"] {
        let out = evalearn_ok(&["analyse", "--game", game, "--threads", &two, "--depth", "8"]);
        let text = stdout(&out);
        assert!(text.lines().any(|l| l.starts_with("depth 8 ")), "{text}");
        assert!(
            text.lines().last().unwrap().starts_with("bestmove "),
            "{text}"
        );
    }
    let a_match = [
        "match", "--a", "material", "--b", "material", "--games", "2",
    ];
    let out = evalearn_ok(&[&a_match[..], &["--depth", "4", "--a-threads", &two]].concat());
    let text = stdout(&out);
    assert!(text.contains("games        2 "), "{text}");
    if max >= 2 {
        assert!(
            text.contains("A: material (depth 4, 2 threads) vs B: material (depth 4)"),
            "{text}"
        );
    }
    let out = evalearn_ok(&["bench", "--depth", "4", "--threads", &format!("1,{two}")]);
    let text = stdout(&out);
    assert!(text.starts_with("threads  time (s)"), "{text}");
    assert_eq!(text.lines().count(), 3, "{text}");
    // One thread is the signature run, whatever the flag.
    let out = evalearn_ok(&["bench", "--depth", "6", "--threads", "1"]);
    assert!(stdout(&out).starts_with("38163 nodes "), "{}", stdout(&out));

    let over = (max + 1).to_string();
    let hub_match = ["match", "--a", "material", "--b", "hub:/nonexistent/engine"];
    for args in [
        vec!["analyse", "--threads", &over],
        vec!["analyse", "--threads", "0"],
        vec!["play", "--threads", &over],
        vec!["serve", "--threads", &over],
        vec!["bench", "--threads", &over],
        [&a_match[..], &["--depth", "2", "--search-threads", &over]].concat(),
        [&a_match[..], &["--depth", "2", "--a-threads", "0"]].concat(),
        // An external engine's threads are its own.
        [
            &hub_match[..],
            &["--games", "2", "--depth", "2", "--b-threads", "1"],
        ]
        .concat(),
    ] {
        common::assert_input_error(&args);
    }
}

#[test]
fn treestats_prints_the_table_and_writes_json() {
    let dir = temp_dir("treestats");
    let json = dir.join("table.json");
    let out = evalearn(&[
        "treestats",
        "--positions",
        "35",
        "--depths",
        "2,6",
        "--seed",
        "1",
        "--algos",
        "ab,pvs+asp+tt,full",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("[1,510]"),
        "thesis figure beside pvs+asp+tt: {text}"
    );
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for algo in ["ab", "pvs+asp+tt", "full"] {
        for depth in ["2", "6"] {
            assert!(table[algo][depth].as_f64().unwrap() > 0.0, "{algo} {depth}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_search_arguments_are_exit_status_2() {
    for args in [
        &["analyse", "--depth", "0"][..],
        &["analyse", "--depth", "abc"],
        &["analyse", "--nodes", "0"],
        &["analyse", "--movetime", "-5"],
        &["analyse", "--tt-mb", "999999"],
        &["analyse", "--fen", "W:W21,21:B1"],
        &["bench", "--depth", "0"],
        &["bench", "--depth", "many"],
        &[
            "treestats",
            "--positions",
            "10",
            "--depths",
            "4",
            "--seed",
            "1",
            "--algos",
            "nope",
        ],
        &[
            "treestats",
            "--positions",
            "0",
            "--depths",
            "4",
            "--seed",
            "1",
        ],
        &["treestats", "--positions", "10", "--seed", "1"],
    ] {
        common::assert_input_error(args);
    }
}

/// Two searches with one evaluator: the same games whichever side is named first, and
/// an unknown name refused.
#[test]
fn a_match_compares_searches_by_name() {
    let report = |args: &[&str]| -> serde_json::Value {
        let dir = temp_dir("search-match");
        let json = dir.join("report.json");
        let mut all = vec![
            "match", "--a", "material", "--b", "material", "--games", "8", "--depth", "5", "--json",
        ];
        all.push(json.to_str().unwrap());
        all.extend_from_slice(args);
        let out = common::evalearn_ok(&all);
        assert!(stdout(&out).contains("search full+lmr"), "{}", stdout(&out));
        let value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        value
    };
    let a = report(&["--b-search", "full+lmr"]);
    let b = report(&["--a-search", "full+lmr"]);
    assert_eq!(a["games"], 8);
    assert_eq!(a["wins"], b["losses"]);
    assert_eq!(a["losses"], b["wins"]);
    common::assert_input_error(&[
        "match",
        "--a",
        "material",
        "--b",
        "material",
        "--games",
        "2",
        "--depth",
        "2",
        "--a-search",
        "fastest",
    ]);
}

#[test]
fn a_match_on_a_game_clock_reports_time_losses() {
    let dir = temp_dir("clock-match");
    for (game, a, b) in [
        ("brazilian", "material", "material"),
        ("kalah", "stores", "stores"),
    ] {
        let json = dir.join(format!("{game}.json"));
        let out = evalearn(&[
            "match",
            "--game",
            game,
            "--a",
            a,
            "--b",
            b,
            "--games",
            "2",
            "--clock",
            "1+0.02",
            "--json",
            json.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{game}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("(clock 1+0.02 s)"), "{text}");
        assert!(text.contains("lost on time A "), "{text}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(report["games"], 2);
        assert!(report["lost_on_time"]["a"].is_u64(), "{report}");
    }
    // A clock with a depth cap: both apply.
    let out = evalearn(&[
        "match", "--a", "material", "--b", "material", "--games", "2", "--clock", "5", "--depth",
        "3",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("(clock 5+0 s, depth 3)"),
        "{}",
        stdout(&out)
    );
    for bad in ["0", "0+0", "x", "1+", "-2+1", "100000"] {
        common::assert_input_error(&[
            "match", "--a", "material", "--b", "material", "--games", "2", "--clock", bad,
        ]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An option that needs another is refused without it, also beside an option the other
/// conflicts with (clap 4.6 let those through: `src/cli/args.rs`, `alone`).
#[test]
fn options_that_need_another_are_refused_without_it() {
    let book = [
        "match", "--a", "material", "--b", "material", "--games", "2",
    ];
    for (args, needed) in [
        (
            vec!["bench", "--depth", "2", "--iterations", "5"],
            "--train",
        ),
        (
            [
                &book[..],
                &["--depth", "1", "--random-plies", "4", "--book-plies", "6"],
            ]
            .concat(),
            "--book",
        ),
        (
            vec![
                "train",
                "--config",
                "configs/td.toml",
                "--plan",
                "--shards",
                "3",
            ],
            "--workers",
        ),
        // Once a panic: the plain self-play path, with no dataset named.
        (
            vec![
                "selfplay", "--eval", "material", "--games", "2", "--depth", "1", "--worker",
                "pool",
            ],
            "--config",
        ),
    ] {
        let out = evalearn(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("required") && err.contains(needed),
            "{args:?}: {err}"
        );
    }
}
