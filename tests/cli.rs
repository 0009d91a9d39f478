//! The `evalearn` binary as scripts use it: output format and exit statuses.

use std::process::{Command, Output};

fn evalearn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evalearn"))
        .args(args)
        .output()
        .expect("run evalearn")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn perft_prints_the_count_last() {
    let out = evalearn(&["perft", "--depth", "6"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().last(), Some("37628"));
    assert!(stderr(&out).contains("Mnps"), "{}", stderr(&out));
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
