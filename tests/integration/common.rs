//! Helpers the integration tests share (each test file uses some of them).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The folder of this test run's files: under cargo's folder for integration tests'
/// temporary files (`target/tmp`, which `cargo clean` empties), named after the process.
/// Nothing goes to the system's /tmp. The first call removes the folders of earlier
/// runs whose process is gone (a failed test keeps its files until then, to be looked at).
pub fn run_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let prefix = format!("evalearn-{}-", env!("CARGO_CRATE_NAME"));
        if let Ok(entries) = std::fs::read_dir(root) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let gone = name
                    .strip_prefix(&prefix)
                    .and_then(|pid| pid.parse::<u32>().ok())
                    .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
                if gone {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        let dir = root.join(format!("{prefix}{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// A fresh folder for one test in [`run_dir`], named `name` so that parallel tests never
/// share one.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = run_dir().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `evalearn` binary, hermetic: no endgame database from the developer's `egdb/`
/// folder, and a data folder (where `play` keeps games by default) under the system's
/// temporary folder instead of the developer's home.
pub fn evalearn_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_evalearn"));
    command
        .env("EVALEARN_EGDB", "")
        .env("EVALEARN_KALAH_DB", "")
        .env("XDG_DATA_HOME", run_dir().join("data"));
    command
}

/// Runs the `evalearn` binary with `args` (stdin closed) and returns what it printed.
pub fn evalearn(args: &[&str]) -> Output {
    evalearn_command()
        .args(args)
        .output()
        .expect("run evalearn")
}

/// Runs `evalearn ARGS…`, failing the test unless it is refused as bad input: exit
/// status 2 with a message on stderr.
pub fn assert_input_error(args: &[&str]) {
    let out = evalearn(args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!out.stderr.is_empty(), "{args:?}");
}

/// What a command printed on stdout, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What a command printed on stderr, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
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

/// Waits until `ready` holds, which `child` must bring about: if it ends first (and
/// `ready` still does not hold), the test fails with `what`. No clock, so however fast or
/// busy the machine; a child that hangs is a failure the CI's own time limit reports.
pub fn wait_until_ready(child: &mut std::process::Child, what: &str, ready: impl Fn() -> bool) {
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(ready(), "{what}: the process ended ({status}) first");
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// A running `evalearn` subcommand driven through pipes; its output lines arrive on a
/// channel and are kept as a transcript for failure messages.
pub struct Piped {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    pub transcript: Vec<String>,
}

impl Piped {
    /// Starts `evalearn ARGS…` with stderr shown.
    pub fn start(args: &[&str]) -> Piped {
        use std::io::BufRead;
        let mut child = evalearn_command()
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .expect("start evalearn");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Piped {
            child,
            stdin,
            lines,
            transcript: Vec::new(),
        }
    }

    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The next output line, if one comes within `timeout`.
    pub fn next_line(&mut self, timeout: std::time::Duration) -> Option<String> {
        let line = self.lines.recv_timeout(timeout).ok()?;
        self.transcript.push(line.clone());
        Some(line)
    }

    /// Reads output until a line contains `needle` (a hang guard of 5 minutes a line, far
    /// above any load); returns that line.
    pub fn wait_for(&mut self, needle: &str) -> String {
        loop {
            let line = self
                .next_line(std::time::Duration::from_secs(300))
                .unwrap_or_else(|| {
                    panic!(
                        "no line with '{needle}'; transcript:\n{}",
                        self.transcript.join("\n")
                    )
                });
            if line.contains(needle) {
                return line;
            }
        }
    }

    /// Closes stdin (end of input for the process).
    pub fn close_input(&mut self) {
        drop(self.stdin.take());
    }

    /// Closes stdin, waits for the process (which must succeed) and returns everything
    /// it printed.
    pub fn finish(mut self) -> Vec<String> {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        // The process has exited: its stdout ends, and the reader sends every line
        // before it drops the channel, however long a busy machine makes it take.
        while let Ok(line) = self.lines.recv() {
            self.transcript.push(line);
        }
        assert!(status.success(), "{}", self.transcript.join("\n"));
        self.transcript
    }

    /// Waits up to `timeout` for the process to exit by itself; its status, or `None`
    /// (the process is then killed).
    pub fn exit_within(mut self, timeout: std::time::Duration) -> Option<std::process::ExitStatus> {
        let until = std::time::Instant::now() + timeout;
        while std::time::Instant::now() < until {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }
}

/// `train --config CONFIG`, then the same with `--plan` (which must answer as `train`
/// does): each run's output with the extra arguments it had.
pub fn train_and_plan(config: &std::path::Path) -> Vec<(&'static [&'static str], Output)> {
    let config = config.to_str().unwrap();
    [&[][..], &["--plan"][..]]
        .into_iter()
        .map(|plan| {
            (
                plan,
                evalearn(&[&["train", "--config", config][..], plan].concat()),
            )
        })
        .collect()
}

/// Saves a draughts linear model whose every weight is `weight` (hot-reload tests);
/// `header` counts the revisions.
pub fn save_linear(
    path: &std::path::Path,
    header: &mut evalearn::io::model::ModelHeader,
    weight: f32,
) {
    use evalearn::games::brazilian::Brazilian;
    let mut weights = evalearn::eval::linear::LinearWeights::zero::<Brazilian>();
    weights.weights.iter_mut().for_each(|w| *w = weight);
    evalearn::io::model::save_model(path, header, &weights).unwrap();
}

/// The header of a fresh draughts linear model.
pub fn linear_header() -> evalearn::io::model::ModelHeader {
    use evalearn::game::Game;
    evalearn::io::model::ModelHeader::new(
        evalearn::games::brazilian::Brazilian::NAME,
        evalearn::eval::linear::KIND,
        evalearn::games::brazilian::features::FEATURE_SET_ID,
    )
}

/// Held by each browser test: one chromium at a time is enough for two cores.
pub static ONE_BROWSER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Takes [`ONE_BROWSER`] (a test that failed holding it still leaves it usable).
pub fn one_browser() -> std::sync::MutexGuard<'static, ()> {
    ONE_BROWSER.lock().unwrap_or_else(|e| e.into_inner())
}
