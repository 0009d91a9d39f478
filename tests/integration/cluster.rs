//! Training that uses the machine, on this machine: `train --threads 1` and `--threads 2`
//! make the same model; so do a learner and workers sharing a folder (`train --workers
//! DIR --shards N`, `selfplay --config --worker DIR`) with 1, 2 and 3 shards, for TD and
//! GLEM. A worker gone in the middle of a shard (its claim left behind, untouched), a
//! worker leaving after its `--max-shards` and the learner killed with SIGKILL in the
//! middle of the run and started again change nothing either. The runs print their
//! `time:` summary and record each iteration's stages (that the parts add up is a unit
//! test on set seconds: `cli::train`: no test here asserts on measured time). `slurm.rs`
//! runs the same under a real Slurm.

use crate::common::{
    assert_input_error, evalearn, evalearn_ok, stderr, temp_dir, wait_until_ready,
};
use crate::shard::{arg, config, same_model};

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime};

use evalearn::games::brazilian::Brazilian;
use evalearn::learn::train::MetricsLine;

/// A process of the test writing to a log file; killed if the test fails before it ends.
pub(crate) struct Running {
    child: Child,
    log: PathBuf,
}

impl Running {
    fn start(log: PathBuf, args: &[&str]) -> Running {
        let file = File::create(&log).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_evalearn"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap();
        Running { child, log }
    }

    /// The learner of `run`, splitting each iteration into `shards`, one thread.
    fn learner(run: &Path, pool: &Path, shards: u64, log: PathBuf) -> Running {
        let shards = shards.to_string();
        let args = ["train", "--config", arg(run), "--workers", arg(pool)];
        let rest = ["--shards", &shards, "--threads", "1", "--no-egdb"];
        Running::start(log, &[&args[..], &rest].concat())
    }

    /// A worker of `run` named `id` with `threads` threads, leaving after `max_shards`
    /// if given.
    pub(crate) fn worker(
        run: &Path,
        pool: &Path,
        id: &str,
        threads: usize,
        max_shards: Option<u64>,
        log: PathBuf,
    ) -> Running {
        let threads = threads.to_string();
        let args = ["selfplay", "--config", arg(run), "--worker", arg(pool)];
        let rest = ["--worker-id", id, "--threads", &threads, "--no-egdb"];
        let max = max_shards.map(|n| n.to_string());
        let limit = match &max {
            Some(n) => vec!["--max-shards", n.as_str()],
            None => Vec::new(),
        };
        Running::start(log, &[&args[..], &rest, &limit].concat())
    }

    /// Waits for the process to end, which it must do with status 0; its log. No clock:
    /// a process that hangs is a failure the CI's own time limit reports.
    pub(crate) fn finish(mut self) -> String {
        let status = self.child.wait().unwrap();
        let log = std::fs::read_to_string(&self.log).unwrap();
        assert!(status.success(), "{status}: {log}");
        log
    }

    /// Waits until `ready` holds, which this process must bring about
    /// ([`wait_until_ready`]).
    fn wait_until(&mut self, what: &str, ready: impl Fn() -> bool) {
        wait_until_ready(&mut self.child, what, ready);
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tiny config of the shard tests for `learner` in `dir`, with `iterations`.
pub(crate) fn run_config(dir: &Path, learner: &str, iterations: u64) -> PathBuf {
    let path = config(dir, "brazilian", learner);
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("iterations = 2", &format!("iterations = {iterations}"));
    std::fs::write(&path, text).unwrap();
    path
}

/// One `train` process of `learner` with `threads` threads in `dir`; its stdout.
fn straight(dir: &Path, learner: &str, iterations: u64, threads: &str) -> String {
    let run = run_config(dir, learner, iterations);
    let out = evalearn_ok(&["train", "--config", arg(&run), "--threads", threads]);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The learner and `workers` workers of `threads` threads each, `shards` shards an
/// iteration, until the run is done.
fn through_workers(dir: &Path, learner: &str, shards: u64, workers: usize, threads: usize) {
    let run = run_config(dir, learner, 2);
    let pool = dir.join("pool");
    let learner = Running::learner(&run, &pool, shards, dir.join("learner.log"));
    let workers: Vec<Running> = (1..=workers)
        .map(|k| {
            let log = dir.join(format!("worker-{k}.log"));
            Running::worker(&run, &pool, &format!("worker {k}"), threads, None, log)
        })
        .collect();
    let log = learner.finish();
    assert!(log.contains("iteration 2/2"), "{log}");
    for worker in workers {
        let log = worker.finish();
        assert!(log.contains("the run is done"), "{log}");
    }
}

/// The learner's runs at 1 and 2 threads, and through 1, 2 and 3 shards, make one model;
/// the runs print their time summary and record each iteration's stages.
fn the_same_model_whatever_the_split(learner: &str) {
    let root = temp_dir(&format!("cluster-{learner}"));
    let reference = root.join("threads-1");
    let stdout = straight(&reference, learner, 2, "1");
    let time = stdout.lines().find(|l| l.starts_with("time: "));
    assert!(
        time.is_some_and(|l| l.contains("self-play") && l.contains("start-up")),
        "{stdout}"
    );
    let metrics = std::fs::read_to_string(reference.join("model.metrics.jsonl")).unwrap();
    let lines: Vec<MetricsLine> = metrics
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() == 2 && lines.iter().all(|l| l.stages.is_some()));

    let two = root.join("threads-2");
    straight(&two, learner, 2, "2");
    same_model::<Brazilian>(&reference, &two);
    for (shards, workers, threads) in [(1, 1, 1), (2, 2, 1), (3, 2, 2)] {
        let dir = root.join(format!("shards-{shards}"));
        through_workers(&dir, learner, shards, workers, threads);
        same_model::<Brazilian>(&reference, &dir);
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn td_makes_the_same_model_whatever_the_threads_and_shards() {
    the_same_model_whatever_the_split("td");
}

#[test]
fn glem_makes_the_same_model_whatever_the_threads_and_shards() {
    the_same_model_whatever_the_split("glem");
}

/// TD over 6 iterations of 3 shards. A learner is killed while it waits for the first
/// shards; before any worker starts, shard 1 of iteration 1 is claimed by a worker that
/// is gone (its claim untouched for a minute): the next learner hands it out again. The
/// only worker leaves after 4 shards (`--max-shards`: iteration 1's three and one of
/// iteration 2's), so the learner is left waiting in iteration 2 whatever the machine's
/// speed, and is killed (SIGKILL); a learner started again goes on from the checkpoint
/// with two new workers. The model is the one of one process.
#[test]
fn workers_and_a_learner_killed_mid_run_change_nothing() {
    let root = temp_dir("cluster-kills");
    let reference = root.join("straight");
    straight(&reference, "td", 6, "1");

    let dir = root.join("workers");
    let run = run_config(&dir, "td", 6);
    let pool = dir.join("pool");
    // A learner killed while it waits for the first shards: the next takes over.
    let mut zeroth = Running::learner(&run, &pool, 3, dir.join("learner-0.log"));
    let current = pool.join("current");
    zeroth.wait_until("iteration 1 published", || current.exists());
    drop(zeroth);
    let round = std::fs::read_to_string(&current).unwrap();
    let key = round.split_whitespace().next().unwrap();
    let claim = pool.join(format!("rounds/{key}/claim-1"));
    std::fs::write(&claim, "a worker killed mid-shard (pid 1 on elsewhere)\n").unwrap();
    let minute_ago = SystemTime::now() - Duration::from_secs(60);
    File::options()
        .write(true)
        .open(&claim)
        .unwrap()
        .set_modified(minute_ago)
        .unwrap();

    let first = Running::learner(&run, &pool, 3, dir.join("learner-1.log"));
    let log = dir.join("worker-1.log");
    let worker = Running::worker(&run, &pool, "worker 1", 1, Some(4), log);
    let log = worker.finish();
    assert!(
        log.contains("iteration 2: shard") && log.contains("played 4 shards"),
        "{log}"
    );
    // Iteration 2 waits for the two shards nobody plays.
    assert!(dir.join("model.ckpt").exists() && !pool.join("done").exists());
    drop(first);
    let log = std::fs::read_to_string(dir.join("learner-1.log")).unwrap();
    assert!(
        log.contains("the worker playing shard 1 of 3 (a worker killed mid-shard")
            && log.contains("is gone: its shard is played again"),
        "{log}"
    );

    let second = Running::learner(&run, &pool, 3, dir.join("learner-2.log"));
    let workers: Vec<Running> = (2..=3)
        .map(|k| {
            let log = dir.join(format!("worker-{k}.log"));
            Running::worker(&run, &pool, &format!("worker {k}"), 1, None, log)
        })
        .collect();
    let log = second.finish();
    assert!(log.contains("resuming after iteration "), "{log}");
    for worker in workers {
        worker.finish();
    }
    same_model::<Brazilian>(&reference, &dir);
    std::fs::remove_dir_all(&root).unwrap();
}

/// A worker's own options are refused without `--worker`, and `--max-shards 0` with it.
#[test]
fn worker_options_need_a_worker() {
    let dir = temp_dir("cluster-worker-options");
    let run = run_config(&dir, "td", 2);
    let out = dir.join("shard.ds");
    let pool = dir.join("pool");
    let shard = ["selfplay", "--config", arg(&run), "--out", arg(&out)];
    for option in [&["--max-shards", "2"], &["--worker-id", "w"]] {
        let refused = evalearn(&[&shard[..], option].concat());
        assert_eq!(refused.status.code(), Some(2));
        assert!(
            stderr(&refused).contains("<--worker <DIR>>"),
            "{}",
            stderr(&refused)
        );
    }
    let worker = ["selfplay", "--config", arg(&run), "--worker", arg(&pool)];
    assert_input_error(&[&worker[..], &["--max-shards", "0"]].concat());
    assert!(!out.exists() && !pool.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
