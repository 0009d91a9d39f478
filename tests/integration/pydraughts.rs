//! `evalearn hub` driven by a client nobody here wrote: pydraughts 0.6.7 (PyPI), in the
//! project's virtual environment `.venv-pydraughts` that `tests/pydraughts/install.sh`
//! makes (`.ci/run` runs it; these tests use no network).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The virtual environment's Python; the test fails, saying how to make it, without.
fn python() -> PathBuf {
    let python = repo().join(".venv-pydraughts/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run tests/pydraughts/install.sh once (it pip-installs the pinned \
         pydraughts into .venv-pydraughts)",
        python.display()
    );
    python
}

/// Runs a script of `tests/pydraughts/`, failing with its output unless it succeeds;
/// returns its last line.
fn run_script(script: &str, args: &[&str]) -> String {
    let out = Command::new(python())
        // Hermetic: no endgame database from the developer's `egdb/` folder.
        .env("EVALEARN_EGDB", "")
        .arg(repo().join("tests/pydraughts").join(script))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{script} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let last = stdout.lines().last().unwrap_or("").to_string();
    assert!(last.starts_with("OK "), "{script}: {stdout}\n{stderr}");
    eprintln!("{script}: {last}");
    last
}

#[test]
fn pydraughts_round_robin_of_two_evalearn_engines() {
    let dir = common::temp_dir("round-robin");
    let pdn = dir.join("tournament.pdn");
    let _ = std::fs::remove_file(&pdn);
    // The td model against material: 20 games at 0.5 s + 0.05 s a move, checked for
    // rules and protocol. The time the moves take is reported, not checked: on a busy
    // machine any clock can be overstepped (`round_robin.py --strict-clock` checks it,
    // as a benchmark for a quiet machine).
    let line = run_script(
        "round_robin.py",
        &[
            env!("CARGO_BIN_EXE_evalearn"),
            "models/td.bin",
            pdn.to_str().unwrap(),
            "20",
            "0.5",
            "0.05",
        ],
    );
    assert!(line.contains("games=20"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pydraughts_hub_engine_game_move_by_move() {
    run_script(
        "hub_game.py",
        &[env!("CARGO_BIN_EXE_evalearn"), "models/td.bin"],
    );
}
