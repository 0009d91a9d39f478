//! Commands never throw work away: `train` refuses to replace a run's results unless told
//! `--resume` or `--restart` (which keeps them as *.bak), and Ctrl-C (SIGINT, sent here
//! with `kill -INT`) stops every stage, keeps what is finished, says what was done and
//! exits with status 130. The signal is sent once the command has announced the stage
//! (a line on stderr), never after a sleep, so no test depends on the machine's speed.

use crate::common::{evalearn, temp_dir};

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use evalearn::eval::Evaluator;
use evalearn::eval::spec::EvalSpec;
use evalearn::games::brazilian::treestats::random_positions;

/// A running `evalearn` whose stdout and stderr lines arrive on channels.
struct Running {
    child: Child,
    stderr: mpsc::Receiver<String>,
    stdout: mpsc::Receiver<String>,
    transcript: Vec<String>,
    printed: Vec<String>,
}

/// What an interrupted command left.
struct Ended {
    status: Option<i32>,
    stdout: String,
    stderr: String,
}

/// The lines of `stream`, sent on a channel as they come.
fn lines_of(stream: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// Waits for a line of `lines` containing `needle`, keeping those read in `kept` (the
/// command ending first fails).
fn wait_for_line(lines: &mpsc::Receiver<String>, kept: &mut Vec<String>, needle: &str) {
    loop {
        let Ok(line) = lines.recv() else {
            panic!(
                "the command ended before printing '{needle}':\n{}",
                kept.join("\n")
            );
        };
        let found = line.contains(needle);
        kept.push(line);
        if found {
            return;
        }
    }
}

impl Running {
    fn start(args: &[&str]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_evalearn"))
            // Hermetic: no endgame database from the developer's `egdb/` folder.
            .env("EVALEARN_EGDB", "")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start evalearn");
        let stdout = lines_of(child.stdout.take().unwrap());
        let stderr = lines_of(child.stderr.take().unwrap());
        Running {
            child,
            stderr,
            stdout,
            transcript: Vec::new(),
            printed: Vec::new(),
        }
    }

    /// Waits for a stderr line containing `needle`.
    fn wait_for(&mut self, needle: &str) {
        wait_for_line(&self.stderr, &mut self.transcript, needle);
    }

    /// Waits for a stdout line containing `needle`.
    fn wait_for_stdout(&mut self, needle: &str) {
        wait_for_line(&self.stdout, &mut self.printed, needle);
    }

    /// Sends SIGINT (as Ctrl-C does) and waits for the command to end.
    fn interrupt(mut self) -> Ended {
        let kill = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let status = self.child.wait().unwrap().code();
        self.transcript.extend(self.stderr.iter());
        self.printed.extend(self.stdout.iter());
        Ended {
            status,
            stdout: self.printed.join("\n"),
            stderr: self.transcript.join("\n"),
        }
    }
}

/// A small GLEM run of two iterations (self-play, fitting, and after the second an
/// evaluation match long enough to be interrupted) writing `DIR/glem.bin`.
fn glem_config(dir: &Path) -> PathBuf {
    let text = format!(
        "learner = \"glem\"\ngame = \"brazilian\"\nseed = 7\nmodel = \"{}\"\n\n\
         [budget]\niterations = 2\n\n\
         [selfplay]\ndepth = 2\ngames_per_iteration = 40\ntemperature = 0.3\nthreads = 2\n\n\
         [evaluation]\nevery = 2\ngames = 100\ndepth = 3\n",
        dir.join("glem.bin").display()
    );
    let path = dir.join("glem.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The files of the run in `dir` with their bytes, sorted by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_none_or(|e| e != "toml"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// What a finished run produced, save its times and folder: the model's values on fixed
/// positions, its revision and game count, and the metrics without their seconds.
fn results(dir: &Path) -> (Vec<i32>, (u64, u64), Vec<String>) {
    let (evaluator, header) = EvalSpec::Model(dir.join("glem.bin")).load().unwrap();
    let header = header.unwrap();
    let values = random_positions(300, 3)
        .iter()
        .map(|p| evaluator.evaluate(p))
        .collect();
    let metrics = std::fs::read_to_string(dir.join("glem.metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["elapsed_s"] = serde_json::Value::Null;
            value["stages"] = serde_json::Value::Null;
            value.to_string()
        })
        .collect();
    (values, (header.revision, header.meta.games), metrics)
}

fn train_ok(config: &Path, extra: &[&str]) -> String {
    let mut args = vec!["train", "--config", config.to_str().unwrap()];
    args.extend(extra);
    let out = evalearn(&args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn train_refuses_to_replace_results_and_restart_keeps_them_as_backups() {
    let dir = temp_dir("refuse");
    let config = glem_config(&dir);
    let config_arg = config.to_str().unwrap();
    let out = train_ok(&config, &[]);
    assert!(
        out.contains("(2 iterations of 40 games)")
            && out.contains("done after 2 iterations: 80 games"),
        "{out}"
    );
    // The next commands, exactly, for the model written.
    let model = dir.join("glem.bin");
    let model = model.to_str().unwrap();
    assert!(
        out.contains(&format!("evalearn play --model {model}")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "evalearn match --a {model} --b material --depth 3 --games 400 --seed 2026"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("evalearn hub --model {model}")),
        "{out}"
    );

    let before = files(&dir);
    assert_eq!(before.len(), 4, "{:?}", before.iter().map(|f| &f.0));
    for extra in [&[][..], &["--from-dataset", "/nonexistent.ds"][..]] {
        let mut args = vec!["train", "--config", config_arg];
        args.extend(extra);
        let out = evalearn(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        if extra.is_empty() {
            assert!(
                err.contains("--resume") && err.contains("--restart"),
                "{err}"
            );
        }
        assert!(files(&dir) == before, "{args:?} changed the run's files");
    }
    // --plan refuses what train with the same flags would, with train's words (a
    // script's pre-check must not pass a run train refuses), and says where --restart
    // puts the files; it writes nothing.
    let refusal = |extra: &[&str]| {
        let out = evalearn(&[&["train", "--config", config_arg][..], extra].concat());
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let refused = refusal(&[]);
    assert_eq!(refusal(&["--plan"]), refused);
    assert!(
        refused
            .contains("--resume`, or start over with `--restart`, which first moves them aside as")
            && refused.contains(&format!("{model}.bak")),
        "{refused}"
    );
    let finished = refusal(&["--plan", "--resume"]);
    assert!(
        finished.contains("the run is finished: 2 of budget.iterations = 2"),
        "{finished}"
    );
    let plan = train_ok(&config, &["--plan", "--restart"]);
    assert!(
        plan.contains("0 of 2 iterations done")
            && plan.contains("2 iterations left")
            && plan.contains("--restart first moves the earlier results aside as")
            && plan.contains(&format!("{model}.bak")),
        "{plan}"
    );
    assert!(files(&dir) == before, "--plan changed the run's files");
    // Metrics or a model alone are results too.
    std::fs::rename(dir.join("glem.ckpt"), dir.join("elsewhere.ckpt.keep")).unwrap();
    let out = evalearn(&["train", "--config", config_arg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--restart"));
    std::fs::rename(dir.join("elsewhere.ckpt.keep"), dir.join("glem.ckpt")).unwrap();
    assert!(files(&dir) == before);

    // --restart: the old files become *.bak, byte for byte; a new run is written.
    let out = train_ok(&config, &["--restart"]);
    assert!(out.contains(".bak"), "{out}");
    let after = files(&dir);
    for (name, bytes) in &before {
        let backup = after
            .iter()
            .find(|(n, _)| *n == format!("{name}.bak"))
            .unwrap_or_else(|| panic!("no backup of {name}"));
        assert_eq!(&backup.1, bytes, "{name}");
        assert!(after.iter().any(|(n, _)| n == name), "{name} not written");
    }
    // Again: the backups would be replaced, so it is refused and nothing changes.
    let out = evalearn(&["train", "--config", config_arg, "--restart"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains(".bak"), "{err}");
    assert_eq!(refusal(&["--restart", "--plan"]), err);
    assert!(files(&dir) == after);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctrl_c_in_each_training_stage_keeps_the_checkpoint_and_resume_ends_as_a_straight_run() {
    let straight = temp_dir("straight");
    train_ok(&glem_config(&straight), &[]);
    let expected = results(&straight);

    // The stage lines of the second iteration, and the stage the report must name.
    let stages = [
        ("iteration 2/2: 40 self-play games", "self-play"),
        ("iteration 2/2: 100 fitting epochs", "fitting"),
        ("iteration 2/2: 100 evaluation games", "evaluation match"),
    ];
    for (line, stage) in stages {
        let dir = temp_dir(&format!("stage-{}", stage.replace(' ', "-")));
        let config = glem_config(&dir);
        // --verbose: a line as each stage starts, to send Ctrl-C in it.
        let mut run = Running::start(&["train", "--config", config.to_str().unwrap(), "--verbose"]);
        run.wait_for(line);
        // The first iteration is checkpointed before the second one starts.
        let kept = files(&dir);
        let ended = run.interrupt();
        assert_eq!(ended.status, Some(130), "{stage}: {}", ended.stderr);
        assert!(
            ended
                .stderr
                .contains(&format!("during the {stage} of iteration 2")),
            "{stage}: {}",
            ended.stderr
        );
        assert!(
            ended.stdout.contains("stopped after 1 iteration: 40 games")
                && ended.stdout.contains("--resume"),
            "{stage}: {}",
            ended.stdout
        );
        assert!(
            files(&dir) == kept,
            "{stage}: the files changed after Ctrl-C"
        );
        train_ok(&config, &["--resume"]);
        assert_eq!(results(&dir), expected, "{stage}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::remove_dir_all(&straight).unwrap();
}

#[test]
fn ctrl_c_in_a_match_prints_the_partial_result_and_keeps_its_games() {
    let dir = temp_dir("interrupt-match");
    let record = dir.join("games.pdn");
    let mut run = Running::start(&[
        "match",
        "--a",
        "material",
        "--b",
        "material",
        "--games",
        "400",
        "--depth",
        "6",
        "--threads",
        "2",
        "--record",
        record.to_str().unwrap(),
    ]);
    // The first progress line comes after a tenth of the pairs.
    run.wait_for("/200 pairs");
    let ended = run.interrupt();
    assert_eq!(ended.status, Some(130), "{}", ended.stderr);
    let line = ended
        .stdout
        .lines()
        .find(|l| l.starts_with("interrupted"))
        .unwrap_or_else(|| panic!("no partial result: {}", ended.stdout));
    let pairs: u64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!((20..200).contains(&pairs), "{line}");
    assert!(
        ended
            .stdout
            .contains(&format!("games        {}", 2 * pairs)),
        "{}",
        ended.stdout
    );
    assert!(ended.stdout.contains("Elo (A − B)"), "{}", ended.stdout);
    let games = std::fs::read_to_string(&record).unwrap();
    assert_eq!(games.matches("[Event ").count() as u64, 2 * pairs);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctrl_c_in_selfplay_keeps_the_finished_games() {
    let dir = temp_dir("interrupt-selfplay");
    let out = dir.join("games.ds");
    let mut run = Running::start(&[
        "selfplay",
        "--eval",
        "material",
        "--games",
        "1000",
        "--depth",
        "4",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    run.wait_for("/1000 games");
    let ended = run.interrupt();
    assert_eq!(ended.status, Some(130), "{}", ended.stderr);
    let said: u64 = ended
        .stdout
        .split("stopped after ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", ended.stdout));
    assert!((100..1000).contains(&said), "{}", ended.stdout);
    let info = evalearn(&["dataset", "info", out.to_str().unwrap()]);
    assert!(info.status.success());
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(info.contains(&format!("games        {said}\n")), "{info}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctrl_c_in_an_endgame_database_build_keeps_the_finished_slices() {
    let dir = temp_dir("egdb-build");
    let out = dir.join("egdb");
    // Five pieces take a minute or more: the signal comes after the first slice.
    let mut run = Running::start(&[
        "egdb",
        "build",
        "--pieces",
        "5",
        "--out",
        out.to_str().unwrap(),
        "--threads",
        "2",
    ]);
    run.wait_for_stdout(" entries ");
    let ended = run.interrupt();
    assert_eq!(
        ended.status,
        Some(130),
        "{}\n{}",
        ended.stdout,
        ended.stderr
    );
    let built: Vec<&str> = ended
        .stdout
        .lines()
        .filter(|l| l.contains(" entries ") && l.contains("won"))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let slices = built.len();
    assert!(
        ended.stderr.contains(&format!(
            "interrupted (Ctrl-C): {slices} slices finished and kept"
        )),
        "{}",
        ended.stderr
    );
    // The kept slices are whole: a check of the folder finds each of them sound (it
    // also names the slices not built yet, if the stop came inside a piece count).
    let check = evalearn(&["egdb", "verify", "--dir", out.to_str().unwrap()]);
    let report = String::from_utf8_lossy(&check.stdout);
    for name in &built {
        assert!(
            report
                .lines()
                .any(|l| l.starts_with(&format!("{name} ")) && l.ends_with(" ok")),
            "{name}: {report}"
        );
    }
    assert!(!report.contains("MISMATCH"), "{report}");
    let files = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "egdb")
        })
        .count();
    assert_eq!(files, slices, "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `evalearn solve` of the start of Kalah(6,6) with a database of `db_stones` kept in
/// `dir`, stopped by Ctrl-C once it has printed a line starting `line`; the status must
/// be 130.
fn interrupted_solve(db_stones: &str, dir: &Path, line: &str) -> Ended {
    let mut run = Running::start(&[
        "solve",
        "--game",
        "kalah",
        "--db-stones",
        db_stones,
        "--db-dir",
        dir.to_str().unwrap(),
    ]);
    run.wait_for_stdout(line);
    let ended = run.interrupt();
    assert_eq!(
        ended.status,
        Some(130),
        "{}\n{}",
        ended.stdout,
        ended.stderr
    );
    ended
}

#[test]
fn ctrl_c_in_a_kalah_solve_reports_the_bounds_proven() {
    let dir = temp_dir("solve");
    // The start of Kalah(6,6) takes hours to solve: the signal comes as the solve starts.
    let ended = interrupted_solve("8", &dir, "tt ");
    // Said before it starts, with what Ctrl-C keeps.
    assert!(
        ended.stderr.starts_with(
            "note: Kalah(6,6) from the start (72 stones in the pits) has not been solved by \
             this program"
        ) && ended
            .stderr
            .contains("Ctrl-C stops it and prints the bounds proven so far"),
        "{}",
        ended.stderr
    );
    assert!(
        ended
            .stderr
            .contains("interrupted (Ctrl-C): solve stopped after"),
        "{}",
        ended.stderr
    );
    assert!(!ended.stdout.contains("value "), "{}", ended.stdout);

    // A database build stopped: nothing of it is written.
    let empty = temp_dir("solve-db");
    let ended = interrupted_solve("20", &empty, "position ");
    assert!(
        ended.stderr.contains("database of 20 stones stopped with"),
        "{}",
        ended.stderr
    );
    assert_eq!(std::fs::read_dir(&empty).map_or(0, |d| d.count()), 0);
    std::fs::remove_dir_all(&dir).unwrap();
    let _ = std::fs::remove_dir_all(&empty);
}
