//! `evalearn serve` in a real browser: each test starts its own server (on a free port,
//! stopped by pid, also on failure) and runs one scenario of tests/browser/e2e.mjs, which
//! drives Debian's chromium with playwright-core and saves a screenshot under
//! target/web-screenshots/. tests/browser/install.sh installs both.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use evalearn::game::{Game, GameFile};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::kalah::Kalah;

use crate::common::{one_browser, temp_dir};
use crate::web::{SAMPLE_PDN, write_run};

fn browser_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser")
}

/// Fails with what to run when chromium or playwright-core is missing.
fn require_browser() {
    let missing: Vec<&str> = [
        (
            Path::new("/usr/bin/chromium").to_path_buf(),
            "chromium (/usr/bin/chromium)",
        ),
        (
            browser_dir().join("node_modules/playwright-core/package.json"),
            "playwright-core (tests/browser/node_modules)",
        ),
    ]
    .iter()
    .filter(|(path, _)| !path.exists())
    .map(|(_, what)| *what)
    .collect();
    assert!(
        missing.is_empty(),
        "the browser tests need {}: run tests/browser/install.sh (apt-get chromium, npm ci)",
        missing.join(" and ")
    );
}

/// `evalearn serve` on a free port; killed (by its pid) when dropped.
struct Serve {
    child: Child,
    url: String,
}

impl Serve {
    /// Serves `folder` as both `--runs` and `--models` (as the README's command does).
    fn start(folder: &Path, args: &[&str]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_evalearn"))
            .env("EVALEARN_EGDB", "")
            .args(["serve", "--port", "0", "--tt-mb", "4", "--runs"])
            .arg(folder)
            .arg("--models")
            .arg(folder)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start evalearn serve");
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| {
                let _ = child.kill();
                panic!("evalearn serve printed no address: {line:?}")
            })
            .trim_end_matches('/')
            .to_string();
        Serve { child, url }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs scenario `name` against a fresh server whose runs folder `prepare` fills.
fn scenario(name: &str, expect_fen: Option<String>, prepare: impl FnOnce(&Path)) {
    let expect: Vec<(&str, String)> = expect_fen.map(|f| ("EXPECT_FEN", f)).into_iter().collect();
    scenario_with(name, &expect, None, &[], prepare);
}

/// Runs scenario `name` with `expect` in its environment against a fresh server of
/// `folder` (default: a fresh runs folder that `prepare` fills) and `args`.
fn scenario_with(
    name: &str,
    expect: &[(&str, String)],
    folder: Option<&Path>,
    args: &[&str],
    prepare: impl FnOnce(&Path),
) {
    require_browser();
    // One browser at a time.
    let _one = one_browser();
    let dir = temp_dir(&format!("browser-{name}"));
    prepare(&dir);
    let serve = Serve::start(folder.unwrap_or(&dir), args);
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/web-screenshots");
    let mut node = Command::new("node");
    node.current_dir(browser_dir())
        .arg("e2e.mjs")
        .arg(name)
        .env("EVALEARN_URL", &serve.url)
        .env("EVALEARN_SHOTS", &shots)
        .env("EVALEARN_RUNS", &dir);
    for (key, value) in expect {
        node.env(key, value);
    }
    let out = node.output().expect("run node (is nodejs installed?)");
    drop(serve);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "browser scenario {name} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What the first screen of the default game must show: the start, the engine
/// `engine` (a value of the engine list), `models` models of the game listed.
fn first_screen(engine: &str, models: usize) -> Vec<(&'static str, String)> {
    vec![
        ("EXPECT_FEN", Brazilian::start().format_position()),
        ("EXPECT_ENGINE", engine.to_string()),
        ("EXPECT_MODELS", models.to_string()),
    ]
}

#[test]
fn browser_the_first_screen_is_a_game_against_the_strongest_model() {
    // Finished runs (5 of 5 iterations): the strongest by its last evaluation wins,
    // whatever the other's later lines or more games say.
    let expect = first_screen("model:runs/strong.bin", 2);
    scenario_with("first-screen", &expect, None, &[], |dir| {
        write_run(dir, "strong", &[(4, Some(150.0)), (5, None)]);
        write_run(dir, "weak", &[(4, None), (5, Some(40.0))]);
    });
}

#[test]
fn browser_nodes_per_second_are_shown_while_the_engine_thinks() {
    scenario_with(
        "nodes-per-second",
        &[],
        None,
        &["--max-seconds", "3600"],
        |_| {},
    );
}

/// The shipped draughts model with the highest Elo at its last evaluation, as
/// `model:runs/NAME.bin` (each has its run beside it), and how many there are.
fn strongest_shipped() -> (String, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut best: Option<(f64, String)> = None;
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".bin") else {
            continue;
        };
        let header = evalearn::io::model::read_header(&dir.join(&name)).unwrap();
        if header.game != Brazilian::NAME {
            continue;
        }
        count += 1;
        let metrics = std::fs::read_to_string(dir.join(format!("{stem}.metrics.jsonl"))).unwrap();
        let elo = metrics
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()?["elo"].as_f64())
            .unwrap();
        if best.as_ref().is_none_or(|(b, _)| elo > *b) {
            best = Some((elo, format!("model:runs/{name}")));
        }
    }
    (best.unwrap().1, count)
}

#[test]
fn browser_the_readme_command_plays_the_strongest_shipped_model() {
    let (engine, models) = strongest_shipped();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let expect = first_screen(&engine, models);
    scenario_with("readme-command", &expect, Some(&shipped), &[], |_| {});
}

#[test]
fn browser_a_draughts_move_and_the_engines_reply() {
    scenario("draughts-move", None, |_| {});
}

#[test]
fn browser_illegal_clicks_are_refused_with_the_reason() {
    scenario("draughts-illegal", None, |_| {});
}

#[test]
fn browser_a_multi_capture_entered_by_clicks() {
    let pos = Brazilian::parse_position("W:W27:B23,14,1").unwrap();
    let after = pos.play(pos.parse_move("27x9").unwrap());
    scenario(
        "draughts-multicapture",
        Some(after.format_position()),
        |_| {},
    );
}

#[test]
fn browser_two_captures_sharing_both_ends_are_told_apart_by_their_pieces() {
    scenario("draughts-choose", None, |_| {});
}

#[test]
fn browser_undo_takes_back_the_move_and_the_reply() {
    let start = Brazilian::start().format_position();
    scenario("draughts-undo", Some(start), |_| {});
}

#[test]
fn browser_a_kalah_compound_move() {
    let start = Kalah::start();
    let after = start.play(start.parse_move("1,2").unwrap());
    scenario("kalah-compound", Some(after.format_position()), |_| {});
}

#[test]
fn browser_the_learning_curve_gains_a_point_when_a_line_is_written() {
    scenario("runs-live", None, |dir| {
        write_run(dir, "demo", &[(1, Some(-20.0)), (2, Some(35.0))]);
    });
}

#[test]
fn browser_a_pdn_replayed_to_its_last_position() {
    let last = Brazilian::read_games((), SAMPLE_PDN).unwrap()[0]
        .record()
        .position()
        .format_position();
    scenario("replay-pdn", Some(last), |dir| {
        std::fs::create_dir_all(dir.join("games")).unwrap();
        std::fs::write(dir.join("games/sample.pdn"), SAMPLE_PDN).unwrap();
    });
}
