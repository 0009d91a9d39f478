//! Training beyond one machine: `selfplay --config --shard I/N` shards, merged with
//! `dataset merge` and learned from with `train --from-dataset`, give the model of one
//! `train` process with the same seed (GLEM and TD on draughts, GLEM on Kalah); Samuel,
//! incomplete datasets and datasets of another game are refused with exit status 2.
//! `cluster.rs` and `slurm.rs` train through workers instead.

use crate::common;
use common::{evalearn, evalearn_ok, temp_dir};

use std::path::{Path, PathBuf};

use evalearn::eval::EvalGame;
use evalearn::games::brazilian::Brazilian;
use evalearn::games::kalah::Kalah;
use evalearn::io::model::{decode_parts, load_model, read_header};
use evalearn::learn::train::{CHECKPOINT_KIND, Checkpoint, MetricsLine};

const ITERATIONS: u64 = 2;
const GAMES_PER_ITERATION: u64 = 8;

/// A tiny `learner` config on `game` in `dir`, its model in `dir`.
pub(crate) fn config(dir: &Path, game: &str, learner: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    // `samuel-taught`: Samuel's learner taught by the shipped TD model.
    let teacher = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/td.bin");
    let (learner, extra) = match learner {
        "glem" => (
            learner,
            "\n[glem]\nmin_support = 5\nepochs = 5\n".to_string(),
        ),
        "samuel-taught" => (
            "samuel",
            format!(
                "\n[samuel]\nteacher = \"{}\"\nselect_every = 0\n",
                teacher.display()
            ),
        ),
        _ => (learner, String::new()),
    };
    let text = format!(
        "learner = \"{learner}\"\ngame = \"{game}\"\nseed = 9\nmodel = \"{}\"\n\n\
         [budget]\niterations = {ITERATIONS}\n\n\
         [selfplay]\ndepth = 2\ngames_per_iteration = {GAMES_PER_ITERATION}\n\
         temperature = 0.3\nthreads = 2\n\n\
         [evaluation]\nevery = 1\ngames = 4\ndepth = 2\n{extra}",
        dir.join("model.bin").display()
    );
    let path = dir.join("run.toml");
    std::fs::write(&path, text).unwrap();
    path
}

pub(crate) fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// One iteration the sharded way: `shards` shards (one thread each), merged, fitted.
pub(crate) fn sharded_iteration(config: &Path, dir: &Path, round: u64, shards: u64) {
    let mut inputs = Vec::new();
    for shard in 1..=shards {
        let out = dir.join(format!("round{round}-shard{shard}.ds"));
        let shard = format!("{shard}/{shards}");
        let args = ["selfplay", "--config", arg(config), "--shard", &shard];
        evalearn_ok(&[&args[..], &["--threads", "1", "--out", arg(&out)]].concat());
        inputs.push(out);
    }
    let merged = dir.join(format!("round{round}.ds"));
    let mut args = vec!["dataset", "merge", "--out", arg(&merged)];
    args.extend(inputs.iter().map(|p| arg(p)));
    evalearn_ok(&args);
    evalearn_ok(&[
        "train",
        "--config",
        arg(config),
        "--from-dataset",
        arg(&merged),
    ]);
}

/// What a run produced, times and file paths aside: the learner's state in the
/// checkpoint (what the model is saved from), the model's revision and counts, and every
/// metrics line.
pub(crate) fn outcome<G: EvalGame>(dir: &Path) -> (String, (u64, u64, u64), Vec<String>) {
    let (_, checkpoint) =
        load_model::<Checkpoint<G>>(&dir.join("model.ckpt"), None, Some(CHECKPOINT_KIND)).unwrap();
    let header = read_header(&dir.join("model.bin")).unwrap();
    let metrics = std::fs::read_to_string(dir.join("model.metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let l: MetricsLine = serde_json::from_str(line).unwrap();
            format!(
                "{} {} {} {:?} {:?} {:?} {:?} {}",
                l.iteration,
                l.games,
                l.positions,
                l.loss_before,
                l.loss,
                l.eval_games,
                l.elo,
                l.detail
            )
        })
        .collect();
    (
        format!("{:?}", checkpoint.state),
        (header.revision, header.meta.games, header.meta.positions),
        metrics,
    )
}

/// Trains `learner` on `game` in one process and as 2 shards per iteration; the two
/// runs must agree.
fn shards_equal_one_process<G: EvalGame>(game: &str, learner: &str) {
    let root = temp_dir(&format!("shard-{game}-{learner}"));
    let straight = root.join("straight");
    evalearn_ok(&["train", "--config", arg(&config(&straight, game, learner))]);

    let sharded = root.join("sharded");
    let sharded_config = config(&sharded, game, learner);
    for round in 1..=ITERATIONS {
        sharded_iteration(&sharded_config, &sharded, round, 2);
    }
    let expected = outcome::<G>(&straight);
    assert_eq!(
        expected.1,
        (ITERATIONS, ITERATIONS * GAMES_PER_ITERATION, expected.1.2)
    );
    assert_eq!(expected.2.len(), ITERATIONS as usize);
    assert!(
        expected.0 == outcome::<G>(&sharded).0,
        "{game} {learner}: the learner states differ"
    );
    assert_eq!(expected, outcome::<G>(&sharded), "{game} {learner}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn glem_from_two_shards_equals_one_process() {
    shards_equal_one_process::<Brazilian>("brazilian", "glem");
}

#[test]
fn td_from_two_shards_equals_one_process() {
    shards_equal_one_process::<Brazilian>("brazilian", "td");
}

#[test]
fn taught_samuel_from_two_shards_equals_one_process() {
    shards_equal_one_process::<Brazilian>("brazilian", "samuel-taught");
}

#[test]
fn kalah_glem_from_two_shards_equals_one_process() {
    shards_equal_one_process::<Kalah>("kalah", "glem");
}

/// Runs `evalearn ARGS…` expecting exit status 2 and returns its stderr.
fn refused(args: &[&str]) -> String {
    let out = evalearn(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    stderr
}

#[test]
fn samuel_cannot_be_sharded() {
    let dir = temp_dir("shard-samuel");
    let samuel = config(&dir, "brazilian", "samuel");
    let data = dir.join("games.ds");
    evalearn_ok(&[
        "selfplay",
        "--eval",
        "material",
        "--games",
        "8",
        "--depth",
        "2",
        "--out",
        arg(&data),
    ]);
    for args in [
        vec![
            "train",
            "--config",
            arg(&samuel),
            "--from-dataset",
            arg(&data),
        ],
        vec![
            "selfplay",
            "--config",
            arg(&samuel),
            "--out",
            arg(&dir.join("x.ds")),
        ],
    ] {
        let stderr = refused(&args);
        assert!(
            stderr.contains("samuel learner learns during its own"),
            "{stderr}"
        );
    }
    assert!(!dir.join("model.bin").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn incomplete_and_foreign_datasets_are_refused() {
    let dir = temp_dir("shard-refused");
    let glem = config(&dir, "brazilian", "glem");
    let half = dir.join("half.ds");
    evalearn_ok(&[
        "selfplay",
        "--config",
        arg(&glem),
        "--shard",
        "1/2",
        "--out",
        arg(&half),
    ]);
    // Half the games of iteration 1: the missing ones and what the file holds are named.
    let stderr = refused(&[
        "train",
        "--config",
        arg(&glem),
        "--from-dataset",
        arg(&half),
    ]);
    assert!(
        stderr.contains("iteration 1 needs games 0–7, it holds 4 of them (missing 1, 3, 5, 7)")
            && stderr.contains("holds games 0, 2, 4, 6 (4 games)"),
        "{stderr}"
    );
    assert!(!dir.join("model.ckpt").exists(), "nothing learned");

    // A dataset of another game, and of another Kalah variant than the config's.
    let kalah = dir.join("kalah.ds");
    evalearn_ok(&[
        "selfplay",
        "--game",
        "kalah:6:4",
        "--eval",
        "stores",
        "--games",
        "8",
        "--depth",
        "2",
        "--out",
        arg(&kalah),
    ]);
    let stderr = refused(&[
        "train",
        "--config",
        arg(&glem),
        "--from-dataset",
        arg(&kalah),
    ]);
    assert!(
        stderr.contains("games of 'kalah:6:4', expected 'brazilian'"),
        "{stderr}"
    );
    let kalah_glem = config(&dir.join("kalah"), "kalah", "glem");
    let stderr = refused(&[
        "train",
        "--config",
        arg(&kalah_glem),
        "--from-dataset",
        arg(&kalah),
    ]);
    assert!(stderr.contains("expected 'kalah'"), "{stderr}");

    // After a finished run, there is no next iteration to play or learn.
    let whole = dir.join("whole.ds");
    let args = ["selfplay", "--config", arg(&glem), "--out", arg(&whole)];
    evalearn_ok(&args);
    evalearn_ok(&[
        "train",
        "--config",
        arg(&glem),
        "--from-dataset",
        arg(&whole),
    ]);
    let stderr = refused(&[
        "train",
        "--config",
        arg(&glem),
        "--from-dataset",
        arg(&whole),
    ]);
    assert!(
        stderr.contains("iteration 2 needs games 8–15, it holds 0 of them"),
        "{stderr}"
    );
    let done = dir.join("done.ds");
    sharded_iteration(&glem, &dir, 2, 1);
    let stderr = refused(&["selfplay", "--config", arg(&glem), "--out", arg(&done)]);
    assert!(stderr.contains("the run is finished"), "{stderr}");

    // --config sets what the options would.
    let stderr = refused(&[
        "selfplay",
        "--config",
        arg(&glem),
        "--depth",
        "3",
        "--out",
        arg(&done),
    ]);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `train --plan` tells where a split run stands and writes nothing; a finished run,
/// by iterations or by a used time budget (fitting time, checked before the shards
/// play), is refused, by `selfplay --config` too.
#[test]
fn the_plan_of_a_split_run() {
    let dir = temp_dir("shard-plan");
    let run = config(&dir, "brazilian", "glem");
    let plan = |run: &Path| {
        let out = evalearn_ok(&["train", "--config", arg(run), "--plan"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let fresh = plan(&run);
    assert!(
        fresh.contains("glem on brazilian")
            && fresh.contains("\nnext_iteration 1\nrounds_left 2\n")
            && fresh.contains("\negdb none\n")
            && fresh.contains(&format!("\nmodel {}\n", dir.join("model.bin").display())),
        "{fresh}"
    );
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(files, 1, "only the config: --plan writes nothing");
    let state = |plan: &str| {
        plan.lines()
            .find(|l| l.starts_with("state "))
            .unwrap()
            .to_string()
    };

    sharded_iteration(&run, &dir, 1, 2);
    // With results, the plan answers for `train` with the same flags: --resume.
    let stderr = refused(&["train", "--config", arg(&run), "--plan"]);
    assert!(stderr.contains("--resume"), "{stderr}");
    let plan = |run: &Path| {
        let out = evalearn_ok(&["train", "--config", arg(run), "--plan", "--resume"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let after_one = plan(&run);
    assert!(
        after_one.contains("next_iteration 2\nrounds_left 1"),
        "{after_one}"
    );
    assert_ne!(
        state(&fresh),
        state(&after_one),
        "a fit makes another state"
    );

    // Past a time budget that the first fit used: no shard may start.
    let timed = dir.join("timed.toml");
    let text = std::fs::read_to_string(&run)
        .unwrap()
        .replace("iterations = 2", "iterations = 2\nminutes = 1e-12");
    std::fs::write(&timed, text).unwrap();
    let out = dir.join("x.ds");
    for args in [
        vec!["train", "--config", arg(&timed), "--plan", "--resume"],
        vec!["selfplay", "--config", arg(&timed), "--out", arg(&out)],
    ] {
        let stderr = refused(&args);
        assert!(stderr.contains("its time budget is used"), "{stderr}");
    }

    sharded_iteration(&run, &dir, 2, 2);
    let stderr = refused(&["train", "--config", arg(&run), "--plan", "--resume"]);
    assert!(
        stderr.contains("the run is finished: 2 of budget.iterations = 2"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Both runs made the same model: the learner states, revisions, counts and metrics
/// lines (times aside), and byte for byte the same model payload.
pub(crate) fn same_model<G: EvalGame>(expected: &Path, got: &Path) {
    assert_eq!(outcome::<G>(expected), outcome::<G>(got));
    let payload = |dir: &Path| {
        let bytes = std::fs::read(dir.join("model.bin")).unwrap();
        let (header, payload) = decode_parts(&bytes).unwrap();
        (header.kind, header.revision, payload.to_vec())
    };
    assert!(
        payload(expected) == payload(got),
        "the model payloads of {} and {} differ",
        expected.display(),
        got.display()
    );
}
