//! Training on a real Slurm cluster: `deploy/slurm/test-cluster.sh` starts a single-node
//! cluster for this test (Debian's slurmctld, slurmd and munge, installed with apt-get
//! when missing) and `deploy/slurm/submit.sh` runs training chains under it, side by
//! side. GLEM and TD (under `--export=NONE`) runs of 2 iterations × 2 shards give the
//! models of one `train` process; a failing shard cancels the rest of its chain, and
//! submitting again plays that shard alone and finishes the run; a used time budget ends
//! a chain with its pending jobs cancelled; a second submission on a queued chain, a
//! typo'd config, a samuel config, a finished run, more rounds than are left, requests
//! no node can hold, a missing binary and options submit.sh sets itself are refused
//! before anything is submitted. Nothing here waits on a clock except as a failure
//! timeout.

use crate::common::{evalearn_ok, temp_dir};
use crate::shard::{arg, config, outcome};

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use evalearn::eval::EvalGame;
use evalearn::game::brazilian::Brazilian;
use evalearn::io::model::decode_parts;

/// Longest wait for a chain to end before the test fails (the chains take seconds).
const CHAIN_TIMEOUT: Duration = Duration::from_secs(900);

fn slurm_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/slurm")
}

/// A running test cluster: `test-cluster.sh` holding its daemons while a `cat` it runs
/// reads our pipe; closing the pipe (on drop, also when a test panics) makes the script
/// cancel what is queued and stop the daemons it started.
struct Cluster {
    child: Child,
    stdin: Option<ChildStdin>,
    conf: PathBuf,
}

impl Cluster {
    fn start() -> Cluster {
        let mut child = Command::new("bash")
            .arg(slurm_dir().join("test-cluster.sh"))
            .args(["sh", "-c", "echo \"$SLURM_CONF\"; exec cat >/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run deploy/slurm/test-cluster.sh");
        let messages = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().unwrap();
        let sink = Arc::clone(&messages);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut text = sink.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        if line.trim().is_empty() {
            let status = child.wait().unwrap();
            // The reader thread has the script's last words once the pipe closes.
            std::thread::sleep(Duration::from_millis(200));
            panic!(
                "the Slurm test cluster did not start ({status}); deploy/slurm/test-cluster.sh \
                 needs root and Debian's slurmctld, slurmd, slurm-client and munge (it \
                 installs them with apt-get): run `deploy/slurm/test-cluster.sh true` as root. \
                 It said:\n{}",
                messages.lock().unwrap()
            );
        }
        Cluster {
            stdin: child.stdin.take(),
            child,
            conf: PathBuf::from(line.trim()),
        }
    }

    /// `program` with the cluster's clients pointed at it, run from `dir`, with no
    /// endgame database and none of the environment the scripts could lean on.
    fn command(&self, program: impl AsRef<OsStr>, dir: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(dir)
            .env("SLURM_CONF", &self.conf)
            .env("EVALEARN_EGDB", "")
            .env_remove("EVALEARN")
            .env_remove("SBATCH_EXPORT");
        command
    }

    /// Runs a Slurm client, which must succeed; its stdout.
    fn client(&self, args: &[&str]) -> String {
        let out = self
            .command(args[0], Path::new("/"))
            .args(&args[1..])
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    }

    /// Every job the cluster knows whose working folder is `dir` (each scenario submits
    /// from its own), by id: its `scontrol show job` fields.
    fn jobs(&self, dir: &Path) -> BTreeMap<u64, BTreeMap<String, String>> {
        let work_dir = format!("WorkDir={}", dir.display());
        self.client(&["scontrol", "show", "jobs", "-o"])
            .lines()
            .filter(|line| line.split_whitespace().any(|field| field == work_dir))
            .map(|line| {
                let fields: BTreeMap<String, String> = line
                    .split_whitespace()
                    .filter_map(|f| f.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                (fields["JobId"].parse().unwrap(), fields)
            })
            .collect()
    }

    /// Waits until no job submitted from `dir` is pending or running; the final jobs.
    fn settle(&self, dir: &Path) -> BTreeMap<u64, BTreeMap<String, String>> {
        let started = Instant::now();
        loop {
            let jobs = self.jobs(dir);
            let busy = jobs.values().any(|job| {
                matches!(
                    job["JobState"].as_str(),
                    "PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING" | "SUSPENDED"
                )
            });
            if !busy {
                return jobs;
            }
            assert!(
                started.elapsed() < CHAIN_TIMEOUT,
                "jobs of {} still queued after {CHAIN_TIMEOUT:?}: {jobs:#?}",
                dir.display()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A chain as submit.sh printed it: per iteration, the shards' array job (none when all
/// were played already) and the fitting job; and the chain's job name.
#[derive(Debug)]
struct Chain {
    name: String,
    rounds: Vec<(Option<u64>, u64)>,
    stdout: String,
}

impl Chain {
    fn parse(stdout: &str) -> Chain {
        let rounds = stdout
            .lines()
            .filter_map(|line| {
                let rest = line.strip_prefix("iteration ")?;
                let (_, rest) = rest.split_once(": shards job ")?;
                let (array, rest) = rest.split_once(' ')?;
                let (_, fit) = rest.rsplit_once("fitting job ")?;
                Some((array.parse().ok(), fit.trim().parse().unwrap()))
            })
            .collect();
        let name = stdout
            .split("cancel with: scancel --name=")
            .nth(1)
            .map(|rest| rest.trim().to_string())
            .unwrap_or_default();
        Chain {
            name,
            rounds,
            stdout: stdout.to_string(),
        }
    }
}

/// `submit.sh ARGS…` run from `dir` with `env` set; exit status, stdout, stderr.
fn submit(cluster: &Cluster, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = cluster.command("bash", dir);
    command.arg(slurm_dir().join("submit.sh")).args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

/// [`submit`] with the test's binary, which must submit a chain.
fn submit_ok(cluster: &Cluster, dir: &Path, args: &[&str]) -> Chain {
    let mut all = vec!["--evalearn", env!("CARGO_BIN_EXE_evalearn")];
    all.extend(args);
    let out = submit(cluster, dir, &all, &[]);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    Chain::parse(&text(&out.stdout))
}

/// [`submit`] with the test's binary, which must refuse with status 2 and submit
/// nothing; its stderr.
fn submit_refused(cluster: &Cluster, dir: &Path, args: &[&str]) -> String {
    let before = cluster.jobs(dir).len();
    let mut all = vec!["--evalearn", env!("CARGO_BIN_EXE_evalearn")];
    all.extend(args);
    let out = submit(cluster, dir, &all, &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains("nothing submitted"), "{args:?}: {stderr}");
    assert_eq!(cluster.jobs(dir).len(), before, "{args:?} submitted jobs");
    stderr
}

/// The state of every job and array task of a settled chain, by job id (array tasks
/// by their own ids, found through ArrayJobId).
fn states(jobs: &BTreeMap<u64, BTreeMap<String, String>>, id: u64) -> Vec<String> {
    jobs.values()
        .filter(|job| {
            job["JobId"] == id.to_string() || job.get("ArrayJobId") == Some(&id.to_string())
        })
        .map(|job| job["JobState"].clone())
        .collect()
}

fn all_completed(jobs: &BTreeMap<u64, BTreeMap<String, String>>) {
    for job in jobs.values() {
        assert_eq!(job["JobState"], "COMPLETED", "{jobs:#?}");
    }
}

/// Both runs made the same model: the learner states, revisions, counts and metrics
/// lines (times aside), and byte for byte the same model payload.
fn same_model<G: EvalGame>(straight: &Path, split: &Path) {
    assert_eq!(outcome::<G>(straight), outcome::<G>(split));
    let payload = |dir: &Path| {
        let bytes = std::fs::read(dir.join("model.bin")).unwrap();
        let (header, payload) = decode_parts(&bytes).unwrap();
        (header.kind, header.revision, payload.to_vec())
    };
    assert!(
        payload(straight) == payload(split),
        "the model payloads of {} and {} differ",
        straight.display(),
        split.display()
    );
}

/// A run of `learner` in `dir` with the shard tests' tiny config (2 iterations of 8
/// games at depth 2), trained by one `train` process.
fn straight(dir: &Path, learner: &str) -> PathBuf {
    evalearn_ok(&["train", "--config", arg(&config(dir, "brazilian", learner))]);
    dir.to_path_buf()
}

/// GLEM, 2 iterations × 2 shards: a chain held behind a user's dependency keeps its own
/// order and blocks a second submission until cancelled as submit.sh says; then the run
/// proper equals one process, and the finished run is refused.
fn glem_chain(cluster: &Cluster, root: &Path, reference: &Path) {
    let dir = root.join("glem");
    let run = config(&dir, "brazilian", "glem");
    let work = dir.join("work");
    let args = [arg(&run), arg(&work), "2"];
    let hold = cluster.client(&[
        "sbatch",
        "--parsable",
        "--hold",
        "--job-name=evalearn-test-hold",
        "--output=/dev/null",
        "--wrap=true",
    ]);
    let hold = hold.trim();
    let after_hold = format!("--dependency=afterany:{hold}");
    let held = submit_ok(cluster, &dir, &[&args[..], &["--", &after_hold]].concat());
    assert_eq!(held.rounds.len(), 2, "{held:?}");
    let jobs = cluster.jobs(&dir);
    let dependency = |id: u64| jobs[&id]["Dependency"].clone();
    let (Some(array1), fit1) = held.rounds[0] else {
        panic!("{held:?}")
    };
    let (Some(array2), _) = held.rounds[1] else {
        panic!("{held:?}")
    };
    assert!(
        dependency(array1).contains(&format!("afterany:{hold}")),
        "{jobs:#?}"
    );
    assert!(
        dependency(fit1).contains(&format!("afterok:{array1}"))
            && dependency(fit1).contains("singleton"),
        "{jobs:#?}"
    );
    assert!(
        dependency(array2).contains(&format!("afterok:{fit1}")),
        "{jobs:#?}"
    );

    let stderr = submit_refused(cluster, &dir, &args);
    let hint = format!("scancel --name={}", held.name);
    assert!(
        stderr.contains("queued or running") && stderr.contains(&hint),
        "{stderr}"
    );
    cluster.client(&["scancel", &format!("--name={}", held.name)]);
    cluster.client(&["scancel", hold]);
    for job in cluster.settle(&dir).values() {
        assert_eq!(job["JobState"], "CANCELLED", "{job:#?}");
    }

    let cancelled = cluster.jobs(&dir);
    let chain = submit_ok(cluster, &dir, &args);
    let started = "next iteration 1 (games 0–7), 2 rounds left";
    assert!(chain.stdout.contains(started), "{}", chain.stdout);
    let mut jobs = cluster.settle(&dir);
    jobs.retain(|id, _| !cancelled.contains_key(id));
    all_completed(&jobs);
    same_model::<Brazilian>(reference, &dir);
    let logs = std::fs::read_dir(work.join("logs")).unwrap().count();
    assert_eq!(logs, 6, "a log per shard and fit, under WORKDIR/logs");

    let stderr = submit_refused(cluster, &dir, &args);
    assert!(stderr.contains("the run is finished"), "{stderr}");
}

/// TD, 2 iterations × 2 shards with the site default `SBATCH_EXPORT=NONE` and the
/// binary named by a relative `EVALEARN`: the jobs get everything as arguments.
fn td_chain_without_environment(cluster: &Cluster, root: &Path, reference: &Path) {
    let dir = root.join("td");
    let run = config(&dir, "brazilian", "td");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_evalearn"), dir.join("bin/evalearn")).unwrap();
    let out = submit(
        cluster,
        &dir,
        &[arg(&run), "work", "2"],
        &[("SBATCH_EXPORT", "NONE"), ("EVALEARN", "bin/evalearn")],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(Chain::parse(&text(&out.stdout)).rounds.len(), 2);
    all_completed(&cluster.settle(&dir));
    same_model::<Brazilian>(reference, &dir);
}

/// GLEM whose shard 2 of iteration 1 cannot write its file: the chain's other jobs are
/// cancelled, none left pending; submitted again, shard 2 alone plays, and the run
/// equals one process.
fn failed_shard_rerun(cluster: &Cluster, root: &Path, reference: &Path) {
    let dir = root.join("glem-failed-shard");
    let run = config(&dir, "brazilian", "glem");
    let work = dir.join("work");
    let plan = text(&evalearn_ok(&["train", "--config", arg(&run), "--plan"]).stdout);
    let state = plan.lines().find_map(|l| l.strip_prefix("state ")).unwrap();
    // A folder where the shard's file goes: the shard fails to write it.
    let blocker = work.join(format!("shards/{state}/shard-2-of-2.ds.part"));
    std::fs::create_dir_all(&blocker).unwrap();
    let args = [arg(&run), arg(&work), "2"];
    let chain = submit_ok(cluster, &dir, &args);
    let jobs = cluster.settle(&dir);
    let (Some(array1), fit1) = chain.rounds[0] else {
        panic!("{chain:?}")
    };
    let mut shard_states = states(&jobs, array1);
    shard_states.sort();
    assert_eq!(shard_states, ["COMPLETED", "FAILED"], "{jobs:#?}");
    let (Some(array2), fit2) = chain.rounds[1] else {
        panic!("{chain:?}")
    };
    for id in [fit1, array2, fit2] {
        assert!(
            states(&jobs, id).iter().all(|s| s == "CANCELLED"),
            "job {id}: {jobs:#?}"
        );
    }
    assert!(!dir.join("model.ckpt").exists(), "nothing learned");

    std::fs::remove_dir(&blocker).unwrap();
    let before: Vec<u64> = jobs.keys().copied().collect();
    let chain = submit_ok(cluster, &dir, &args);
    assert!(
        chain.stdout.contains("shards job")
            && chain
                .stdout
                .contains("shard 2 of 2, the others played already"),
        "{}",
        chain.stdout
    );
    let jobs = cluster.settle(&dir);
    let (Some(rerun), _) = chain.rounds[0] else {
        panic!("{chain:?}")
    };
    let tasks: Vec<&String> = jobs
        .values()
        .filter(|job| job.get("ArrayJobId") == Some(&rerun.to_string()))
        .map(|job| &job["ArrayTaskId"])
        .collect();
    assert_eq!(tasks, ["2"], "only shard 2 is played again");
    for (id, job) in &jobs {
        if !before.contains(id) {
            assert_eq!(job["JobState"], "COMPLETED", "{jobs:#?}");
        }
    }
    same_model::<Brazilian>(reference, &dir);
}

/// A time budget used up by the first fit: the shards of the next iterations never
/// start (their jobs are cancelled by the fit, not failed), and the run is finished.
fn time_budget_ends_chain(cluster: &Cluster, root: &Path) {
    let dir = root.join("glem-minutes");
    let run = config(&dir, "brazilian", "glem");
    let text_of_run = std::fs::read_to_string(&run)
        .unwrap()
        .replace("iterations = 2", "iterations = 3\nminutes = 1e-12");
    std::fs::write(&run, text_of_run).unwrap();
    let work = dir.join("work");
    let args = [arg(&run), arg(&work), "2"];
    let chain = submit_ok(cluster, &dir, &args);
    assert_eq!(chain.rounds.len(), 3, "{chain:?}");
    let jobs = cluster.settle(&dir);
    let (Some(array1), fit1) = chain.rounds[0] else {
        panic!("{chain:?}")
    };
    for id in [array1, fit1] {
        assert!(
            states(&jobs, id).iter().all(|s| s == "COMPLETED"),
            "{jobs:#?}"
        );
    }
    for &(array, fit) in &chain.rounds[1..] {
        for id in [array.unwrap(), fit] {
            assert!(
                states(&jobs, id).iter().all(|s| s == "CANCELLED"),
                "{jobs:#?}"
            );
        }
    }
    let log = work.join(format!("logs/iteration-1.fit.job-{fit1}.log"));
    let log = std::fs::read_to_string(log).unwrap();
    assert!(
        log.contains("the run stops after iteration 1") && log.contains("time budget is used"),
        "{log}"
    );
    let stderr = submit_refused(cluster, &dir, &args);
    assert!(stderr.contains("time budget is used"), "{stderr}");
}

/// What submit.sh refuses before submitting anything.
fn refusals(cluster: &Cluster, root: &Path) {
    let dir = root.join("refused");
    let run = config(&dir, "brazilian", "glem");
    let work = dir.join("work");
    let (run, work) = (arg(&run), arg(&work));

    let stderr = submit_refused(cluster, &dir, &["glme.toml", work, "2"]);
    assert!(stderr.contains("config glme.toml"), "{stderr}");
    assert!(!dir.join("work").exists(), "refused before making WORKDIR");
    let samuel = config(&dir.join("samuel"), "brazilian", "samuel");
    let stderr = submit_refused(cluster, &dir, &[arg(&samuel), work, "2"]);
    assert!(stderr.contains("samuel learner"), "{stderr}");
    let stderr = submit_refused(cluster, &dir, &[run, work, "2", "3"]);
    assert!(
        stderr.contains("ROUNDS 3: the run has 2 iteration(s) left"),
        "{stderr}"
    );
    let stderr = submit_refused(cluster, &dir, &[run, work, "2", "0"]);
    assert!(stderr.contains("ROUNDS 0"), "{stderr}");
    let stderr = submit_refused(cluster, &dir, &["--shard-cpus", "4096", run, work, "2"]);
    assert!(
        stderr.contains("a shard") && stderr.contains("cannot run on this cluster"),
        "{stderr}"
    );
    let stderr = submit_refused(cluster, &dir, &["--fit-mem", "100T", run, work, "2"]);
    assert!(
        stderr.contains("the fitting job") && stderr.contains("cannot run"),
        "{stderr}"
    );
    let stderr = submit_refused(cluster, &dir, &[run, work, "2", "--", "--partition=nosuch"]);
    assert!(stderr.contains("cannot run on this cluster"), "{stderr}");
    let stderr = submit_refused(cluster, &dir, &[run, work, "2", "--array=1-3"]);
    assert!(stderr.contains("--array=1-3: submit.sh sets"), "{stderr}");

    // No --evalearn, no EVALEARN, no evalearn on the PATH.
    let out = submit(
        cluster,
        &dir,
        &[run, work, "2"],
        &[("PATH", "/usr/bin:/bin")],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no evalearn binary"), "{stderr}");
    assert!(cluster.jobs(&dir).is_empty(), "nothing submitted");
}

#[test]
fn training_chains_under_a_real_slurm() {
    let root = temp_dir("slurm");
    let glem = straight(&root.join("glem-one-process"), "glem");
    let td = straight(&root.join("td-one-process"), "td");
    let cluster = Cluster::start();
    std::thread::scope(|s| {
        s.spawn(|| glem_chain(&cluster, &root, &glem));
        s.spawn(|| td_chain_without_environment(&cluster, &root, &td));
        s.spawn(|| failed_shard_rerun(&cluster, &root, &glem));
        s.spawn(|| time_budget_ends_chain(&cluster, &root));
        s.spawn(|| refusals(&cluster, &root));
    });
    drop(cluster);
    std::fs::remove_dir_all(&root).unwrap();
}
