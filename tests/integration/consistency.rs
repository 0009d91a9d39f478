//! One command line: the order of `--help`, limits that conflict, outputs that cannot be
//! written, flags named as typed, statistics that claim no more than the games give,
//! and where `play` keeps its games.

use crate::common;
use common::{
    assert_input_error, evalearn, evalearn_command, evalearn_ok, stderr, stdout, temp_dir,
};

use evalearn::arena::matches::{DEFAULT_PLY_CAP, GAMES_TT_MIB};
use evalearn::games::brazilian::pdn;
use evalearn::learn::config::TrainConfig;

/// The commands in the order `--help` lists them: as a user meets them.
const COMMANDS: [&str; 18] = [
    "train",
    "play",
    "match",
    "tournament",
    "hub",
    "serve",
    "selfplay",
    "dataset",
    "model",
    "analyse",
    "book",
    "egdb",
    "solve",
    "accuracy",
    "bench",
    "perft",
    "moves",
    "treestats",
];

#[test]
fn help_lists_the_commands_in_the_order_a_user_meets_them() {
    let text = stdout(&evalearn_ok(&["--help"]));
    let listed: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    // One line each: a name, then its description.
    for line in &listed {
        let mut words = line.split_whitespace();
        assert!(
            words.next().is_some() && words.next().is_some(),
            "{line:?} is no one-line entry:\n{text}"
        );
    }
    let names: Vec<&str> = listed
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names, [&COMMANDS[..], &["help"]].concat(), "{text}");
}

#[test]
fn help_texts_cite_works_by_author_not_our_source_files() {
    let mut texts = vec![stdout(&evalearn_ok(&["--help"]))];
    for command in COMMANDS {
        texts.push(stdout(&evalearn_ok(&[command, "--help"])));
    }
    for text in texts {
        let lower = text.to_lowercase();
        for word in ["seed's", "the seed ", "digest", "issue ", "shared/spec"] {
            assert!(!lower.contains(word), "{word:?} in:\n{text}");
        }
    }
    let game_help = stdout(&evalearn_ok(&["match", "--help"]));
    assert!(game_help.contains("1..=6 stones a pit"), "{game_help}");
}

#[test]
fn conflicting_limits_are_refused() {
    let base = [
        "match", "--a", "material", "--b", "material", "--games", "2",
    ];
    for (extra, flags) in [
        (
            &["--depth", "20", "--movetime", "10"][..],
            ["--depth", "--movetime"],
        ),
        (&["--nodes", "500", "--depth", "3"], ["--nodes", "--depth"]),
        (
            &["--depth", "2", "--a-depth", "3", "--a-movetime", "10"],
            ["--a-depth", "--a-movetime"],
        ),
        (
            &["--depth", "2", "--b-nodes", "100", "--b-depth", "3"],
            ["--b-nodes", "--b-depth"],
        ),
    ] {
        let args = [&base[..], extra].concat();
        let out = evalearn(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            flags.iter().all(|f| err.contains(f)),
            "{args:?} should name {flags:?}: {err}"
        );
    }
    let out = evalearn(&[
        "tournament",
        "--players",
        "material,material",
        "--games",
        "2",
        "--depth",
        "2",
        "--movetime",
        "10",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn both_show_the_limits_they_use() {
    let out = evalearn_ok(&[
        "match",
        "--a",
        "material",
        "--b",
        "material",
        "--games",
        "2",
        "--depth",
        "1",
        "--b-nodes",
        "50",
    ]);
    let text = stdout(&out);
    assert!(
        text.contains("A: material (depth 1) vs B: material (50 nodes)"),
        "{text}"
    );
    assert!(
        text.contains(&format!("at ply {DEFAULT_PLY_CAP}")),
        "{text}"
    );
    let out = evalearn_ok(&[
        "tournament",
        "--players",
        "material,models/td.bin",
        "--games",
        "2",
        "--nodes",
        "40",
    ]);
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "1 pairing of 2 games, 40 nodes, ply cap {DEFAULT_PLY_CAP}"
        )),
        "{text}"
    );
}

/// The quickest match, self-play, tree statistics and tournament, for the tests of their
/// output files.
const QUICK_MATCH: [&str; 9] = [
    "match", "--a", "material", "--b", "material", "--games", "2", "--depth", "1",
];
const QUICK_SELFPLAY: [&str; 7] = [
    "selfplay", "--eval", "material", "--games", "1", "--depth", "1",
];
const QUICK_TREESTATS: [&str; 9] = [
    "treestats",
    "--positions",
    "1",
    "--depths",
    "1",
    "--seed",
    "1",
    "--algos",
    "ab",
];
const QUICK_TOURNAMENT: [&str; 7] = [
    "tournament",
    "--players",
    "material,models/td.bin",
    "--games",
    "2",
    "--depth",
    "1",
];

#[test]
fn unusable_outputs_exit_2_naming_the_flag_as_typed() {
    let dir = temp_dir("unusable-outputs");
    let folder = dir.to_str().unwrap();
    // Under the test's folder: were a command to create folders (it runs as root here,
    // maybe), it would create them there.
    let missing = dir.join("no-such-folder").join("x.out");
    let missing = missing.to_str().unwrap();
    let afile = dir.join("a-file");
    std::fs::write(&afile, "").unwrap();
    let ok_out = dir.join("ok.ds");
    let ok_out = ok_out.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        ([&QUICK_SELFPLAY[..], &["--out", missing]].concat(), "--out"),
        ([&QUICK_SELFPLAY[..], &["--out", folder]].concat(), "--out"),
        (
            [&QUICK_SELFPLAY[..], &["--out", ok_out, "--record", missing]].concat(),
            "--record",
        ),
        (
            [&QUICK_SELFPLAY[..], &["--out", ok_out, "--pdn", missing]].concat(),
            "--pdn",
        ),
        ([&QUICK_MATCH[..], &["--json", missing]].concat(), "--json"),
        (
            [&QUICK_MATCH[..], &["--record", folder]].concat(),
            "--record",
        ),
        ([&QUICK_MATCH[..], &["--pdn", missing]].concat(), "--pdn"),
        (
            [&QUICK_TOURNAMENT[..], &["--markdown", missing]].concat(),
            "--markdown",
        ),
        (
            [&QUICK_TOURNAMENT[..], &["--json", missing]].concat(),
            "--json",
        ),
        (
            vec!["dataset", "merge", "--out", missing, "/nonexistent/in.ds"],
            "--out",
        ),
        (
            vec![
                "book", "build", "--eval", "material", "--depth", "1", "--out", missing,
            ],
            "--out",
        ),
        (
            [&QUICK_TREESTATS[..], &["--json", missing]].concat(),
            "--json",
        ),
        (
            vec!["egdb", "build", "--pieces", "2", "--out", missing],
            "--out",
        ),
        (
            vec![
                "egdb",
                "build",
                "--pieces",
                "2",
                "--out",
                afile.to_str().unwrap(),
            ],
            "--out",
        ),
        (vec!["analyse", "--depth", "1", "--egdb", missing], "--egdb"),
        (
            vec![
                "play", "--side", "none", "--depth", "1", "--record", missing,
            ],
            "--record",
        ),
        (
            vec!["play", "--side", "none", "--depth", "1", "--save", missing],
            "--save",
        ),
    ];
    for (args, flag) in cases {
        let out = evalearn(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!("error: {flag} ")),
            "{args:?}: {err}"
        );
        // Refused before any work: no game was played.
        assert!(stdout(&out).is_empty(), "{args:?}: {}", stdout(&out));
    }
    assert!(!std::path::Path::new(ok_out).exists());
    assert!(!dir.join("no-such-folder").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every command writing a result file the user names refuses an existing one unless
/// `--force` is given (the message and the refusal of `book build --out`), before any
/// work, and leaves it as it was; with `--force` it is replaced.
#[test]
fn existing_results_are_replaced_only_with_force() {
    let dir = temp_dir("existing-outputs");
    let kept = dir.join("kept");
    let kept = kept.to_str().unwrap();
    let fresh = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (ds, json) = (fresh("new.ds"), fresh("new.json"));
    // A dataset to merge, written before `kept` exists.
    let input = fresh("in.ds");
    evalearn_ok(&[&QUICK_SELFPLAY[..], &["--out", &input]].concat());
    let cases: Vec<(Vec<&str>, &str)> = vec![
        ([&QUICK_SELFPLAY[..], &["--out", kept]].concat(), "--out"),
        (
            [&QUICK_SELFPLAY[..], &["--out", &ds, "--record", kept]].concat(),
            "--record",
        ),
        (
            [&QUICK_SELFPLAY[..], &["--out", &ds, "--pdn", kept]].concat(),
            "--pdn",
        ),
        ([&QUICK_MATCH[..], &["--json", kept]].concat(), "--json"),
        (
            [&QUICK_MATCH[..], &["--json", &json, "--record", kept]].concat(),
            "--record",
        ),
        (
            [&QUICK_TOURNAMENT[..], &["--markdown", kept]].concat(),
            "--markdown",
        ),
        (
            [&QUICK_TOURNAMENT[..], &["--json", kept]].concat(),
            "--json",
        ),
        (vec!["dataset", "merge", "--out", kept, &input], "--out"),
        ([&QUICK_TREESTATS[..], &["--json", kept]].concat(), "--json"),
    ];
    for (args, flag) in cases {
        std::fs::write(kept, "results").unwrap();
        // The other outputs are new to each case (a forced run wrote them).
        for other in [&ds, &json] {
            let _ = std::fs::remove_file(other);
        }
        let out = evalearn(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            format!("error: {flag} {kept}: the file exists; give --force to replace it\n"),
            "{args:?}"
        );
        assert!(stdout(&out).is_empty(), "{args:?}: {}", stdout(&out));
        assert_eq!(std::fs::read(kept).unwrap(), b"results", "{args:?}");
        evalearn_ok(&[&args[..], &["--force"]].concat());
        assert_ne!(std::fs::read(kept).unwrap(), b"results", "{args:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn position_errors_name_the_flag_as_typed() {
    for flag in ["--fen", "--position"] {
        for command in ["perft", "moves", "analyse", "play"] {
            let mut args = vec![command, flag, "W:W33:Bxx"];
            if command == "perft" {
                args.extend(["--depth", "1"]);
            }
            assert_input_error(&args);
            let err = stderr(&evalearn(&args));
            assert!(
                err.starts_with(&format!("error: {flag}: ")),
                "{args:?}: {err}"
            );
        }
    }
}

#[test]
fn intervals_of_zero_width_are_never_printed() {
    let dir = temp_dir("zero-width");
    let json = dir.join("m.json");
    // One pair: whatever its games, a single pair has no interval.
    let out = evalearn_ok(&[
        "match",
        "--a",
        "material",
        "--b",
        "material",
        "--games",
        "2",
        "--depth",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    let line = text.lines().find(|l| l.starts_with("Elo")).unwrap();
    assert!(line.contains("n/a ("), "{text}");
    assert!(text.contains("(1 pair;"), "{text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(
        report["elo_low"].is_null() && report["elo_high"].is_null(),
        "{report}"
    );
    assert!(report["unmeasured"].is_string(), "{report}");

    // A tournament of one pair: neither its row nor its table gives an interval.
    let tournament = evalearn_ok(&[
        "tournament",
        "--game",
        "kalah",
        "--players",
        "stores,activity",
        "--games",
        "2",
        "--depth",
        "1",
    ]);
    let text = stdout(&tournament);
    let row = text
        .lines()
        .find(|l| l.starts_with("stores vs activity"))
        .unwrap();
    assert!(row.contains("Elo n/a ("), "{text}");
    assert!(text.contains("| n/a ("), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_ply_cap_and_one_games_table_size_across_commands() {
    let config = TrainConfig::parse("learner = \"td\"\nmodel = \"m.bin\"\n").unwrap();
    assert_eq!(config.selfplay.ply_cap, DEFAULT_PLY_CAP);
    assert_eq!(config.selfplay.tt_mb as u64, GAMES_TT_MIB);
    for command in ["match", "tournament", "selfplay"] {
        let help = stdout(&evalearn_ok(&[command, "--help"]));
        assert!(
            help.contains(&format!("[default: {DEFAULT_PLY_CAP}]")),
            "{command}: {help}"
        );
        assert!(
            help.contains(&format!("[default: {GAMES_TT_MIB}]")),
            "{command}: {help}"
        );
    }
}

/// `play --side none` (the engine plays itself) with `args`, in `cwd`, with the data
/// folder `data`: its output.
fn watch(cwd: &std::path::Path, data: &std::path::Path, args: &[&str]) -> String {
    let out = evalearn_command()
        .current_dir(cwd)
        .env("XDG_DATA_HOME", data)
        .args(["play", "--side", "none", "--depth", "1"])
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn play_records_where_told_or_in_the_data_folder_it_names() {
    let dir = temp_dir("play-record");
    let cwd = dir.join("cwd");
    let data = dir.join("data");
    std::fs::create_dir_all(&cwd).unwrap();

    let record = dir.join("mine.pdn");
    let text = watch(&cwd, &data, &["--record", record.to_str().unwrap()]);
    assert!(
        text.contains(&format!("game saved to {}", record.display())),
        "{text}"
    );
    let games = pdn::read_games(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(games.len(), 1);
    // Each engine move is said once.
    let said = text.lines().filter(|l| l.contains(" plays ")).count();
    assert_eq!(said, games[0].moves.len(), "{text}");
    assert!(!text.lines().any(|l| l.starts_with("engine: ")), "{text}");

    // Not told: the data folder, named at the start and when saved; the working
    // folder stays empty.
    let text = watch(&cwd, &data, &[]);
    let default = data.join("evalearn").join("games.pdn");
    assert!(
        text.contains(&format!("Games are saved to {}", default.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!("game saved to {}", default.display())),
        "{text}"
    );
    assert_eq!(
        pdn::read_games(&std::fs::read_to_string(&default).unwrap())
            .unwrap()
            .len(),
        1
    );
    assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
