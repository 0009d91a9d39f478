//! Helpers the integration tests share (each test file uses some of them).
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// A fresh folder for one test, under the system's temporary folder, named after the
/// test file, the process and `name` so parallel tests never share one.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "evalearn-{}-{}-{name}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the `evalearn` binary with `args` (stdin closed) and returns what it printed.
pub fn evalearn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evalearn"))
        .args(args)
        .output()
        .expect("run evalearn")
}

/// [`evalearn`], failing the test unless the command succeeded.
pub fn evalearn_ok(args: &[&str]) -> Output {
    let out = evalearn(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
