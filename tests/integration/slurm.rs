//! Training on a real Slurm cluster: `deploy/slurm/test-cluster.sh` starts a single-node
//! cluster for this test (Debian's slurmctld, slurmd and munge, installed with apt-get when
//! missing) and `deploy/slurm/submit.sh` submits runs to it as one job each: the learner in
//! the batch step, two workers as job steps. GLEM and TD (under `--export=NONE`) give the
//! models of one `train` process. With the run held back by the test (a shard it claims
//! itself, workers stopped with SIGSTOP, so that it cannot end meanwhile, whatever the
//! machine's speed) and the learner stopped, a worker killed with SIGKILL and another's
//! step cancelled with scancel are started again, the learner killed with SIGKILL is
//! started again from its checkpoint, and the model is still the same; with no restarts
//! allowed, workers killed end the job FAILED with a message, and submitting again finishes
//! the run. A used time budget ends the job. A second submission of a queued run, a typo'd
//! config, a samuel config, a finished run, requests no node can hold, a missing binary and
//! options submit.sh sets itself are refused before anything is submitted. Nothing here
//! waits on a clock.

use crate::cluster::{Running, run_config};
use crate::common::{evalearn_ok, temp_dir};
use crate::shard::{arg, config, same_model};

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use evalearn::games::brazilian::Brazilian;
use evalearn::learn::cluster::Heartbeat;

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
        self.try_client(args)
            .unwrap_or_else(|error| panic!("{args:?}: {error}"))
    }

    /// Runs a Slurm client: its stdout, or its stderr if it failed.
    fn try_client(&self, args: &[&str]) -> Result<String, String> {
        let out = self
            .command(args[0], Path::new("/"))
            .args(&args[1..])
            .output()
            .unwrap();
        if out.status.success() {
            Ok(text(&out.stdout))
        } else {
            Err(text(&out.stderr))
        }
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

/// A job as submit.sh printed it.
#[derive(Debug)]
struct Submitted {
    id: u64,
    name: String,
    stdout: String,
}

impl Submitted {
    fn parse(stdout: &str) -> Submitted {
        let line = stdout
            .lines()
            .find_map(|l| l.strip_prefix("submitted job "))
            .unwrap_or_else(|| panic!("no job submitted: {stdout}"));
        let (id, rest) = line.split_once(" (").unwrap();
        let (name, _) = rest.split_once(')').unwrap();
        Submitted {
            id: id.parse().unwrap(),
            name: name.to_string(),
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

/// [`submit`] with the test's binary, which must submit a job.
fn submit_ok(cluster: &Cluster, dir: &Path, args: &[&str]) -> Submitted {
    let mut all = vec!["--evalearn", env!("CARGO_BIN_EXE_evalearn")];
    all.extend(args);
    let out = submit(cluster, dir, &all, &[]);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    Submitted::parse(&text(&out.stdout))
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

fn state(jobs: &BTreeMap<u64, BTreeMap<String, String>>, id: u64) -> &str {
    &jobs[&id]["JobState"]
}

/// The job's log (the batch step's output: the learner and run.sh).
fn run_log(work: &Path, job: &Submitted) -> String {
    std::fs::read_to_string(work.join(format!("logs/run.job-{}.log", job.id))).unwrap_or_default()
}

/// Waits until `ready` holds (`what`, named in the log for whoever finds a run stuck).
/// No clock: a wait that never ends is a failure the CI's own time limit reports.
fn wait_until(what: &str, ready: impl Fn() -> bool) {
    eprintln!("waiting until {what}");
    while !ready() {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The processes of this machine (the cluster's only node) whose arguments include
/// each of `words`.
fn processes_with(words: &[&str]) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
            let program = Path::new(std::str::from_utf8(args.first()?).ok()?);
            let evalearn = program.file_name() == Some(OsStr::new("evalearn"));
            let all = words.iter().all(|w| args.contains(&w.as_bytes()));
            (evalearn && all).then_some(pid)
        })
        .collect()
}

/// The pid of the one evalearn process with `words`, once it runs.
fn process(words: &[&str]) -> u32 {
    wait_until(&format!("an evalearn process with {words:?}"), || {
        processes_with(words).len() == 1
    });
    processes_with(words)[0]
}

fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill {signal} {pid}");
}

/// The learner of `job` (pool `pool`), stopped with SIGSTOP: from here on the run waits
/// for the test. The callers hold the run back (a [`HeldClaim`], stopped workers), so it
/// cannot have ended.
fn stopped_learner(pool: &Path) -> u32 {
    let pool = pool.to_str().unwrap();
    let learner = process(&["train", "--workers", pool]);
    signal(learner, "-STOP");
    assert!(!Path::new(pool).join("done").exists(), "the run ended");
    learner
}

/// Shard `shard` of the first iteration of `run` (pool `pool`), claimed by the test
/// before the job starts: no worker can play it, so the run cannot get past its first
/// iteration until the claim is dropped, however fast the machine. The claim is touched
/// as a worker touches its own (the learner hands out again only claims untouched for
/// 10 s); dropping it removes the claim.
struct HeldClaim {
    path: PathBuf,
    _heartbeat: Heartbeat,
}

impl HeldClaim {
    fn new(run: &Path, pool: &Path, shard: u64) -> HeldClaim {
        let plan = evalearn_ok(&["train", "--config", arg(run), "--plan", "--no-egdb"]);
        let plan = text(&plan.stdout);
        let key = plan
            .lines()
            .find_map(|l| l.strip_prefix("state "))
            .unwrap_or_else(|| panic!("no state in the plan: {plan}"));
        let round = pool.join("rounds").join(key);
        std::fs::create_dir_all(&round).unwrap();
        let path = round.join(format!("claim-{shard}"));
        std::fs::write(&path, "held by the test\n").unwrap();
        HeldClaim {
            _heartbeat: Heartbeat::start(path.clone()),
            path,
        }
    }

    /// The folder of the round the claim is in.
    fn round(&self) -> &Path {
        self.path.parent().unwrap()
    }
}

impl Drop for HeldClaim {
    /// The heartbeat touches only a file that is there: once removed, the claim stays
    /// gone.
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Worker `k`'s evalearn process in `job`.
fn worker(job: &Submitted, k: u32) -> u32 {
    process(&["--worker-id", &format!("worker {k} of job {}", job.id)])
}

/// A run of `learner` over `iterations` in `dir`, trained by one `train` process.
fn straight(dir: &Path, learner: &str, iterations: u64) -> PathBuf {
    let run = run_config(dir, learner, iterations);
    evalearn_ok(&["train", "--config", arg(&run)]);
    dir.to_path_buf()
}

/// GLEM, 2 workers: a job held behind a user's dependency blocks a second submission
/// until cancelled as submit.sh says; then the run equals one process, its logs are
/// under WORKDIR/logs, and the finished run is refused.
fn glem_run(cluster: &Cluster, root: &Path, reference: &Path) {
    let dir = root.join("glem");
    let run = run_config(&dir, "glem", 2);
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
    let jobs = cluster.jobs(&dir);
    assert!(
        jobs[&held.id]["Dependency"].contains(&format!("afterany:{hold}")),
        "{jobs:#?}"
    );
    assert_eq!(jobs[&held.id]["NumTasks"], "2", "{jobs:#?}");

    let stderr = submit_refused(cluster, &dir, &args);
    let hint = format!("scancel --name={}", held.name);
    assert!(
        stderr.contains("queued or running") && stderr.contains(&hint),
        "{stderr}"
    );
    cluster.client(&["scancel", &format!("--name={}", held.name)]);
    cluster.client(&["scancel", hold]);
    assert_eq!(state(&cluster.settle(&dir), held.id), "CANCELLED");

    let job = submit_ok(cluster, &dir, &args);
    let started = "next iteration 1 (games 0–7), 2 rounds left";
    assert!(job.stdout.contains(started), "{}", job.stdout);
    let jobs = cluster.settle(&dir);
    let log = run_log(&work, &job);
    assert_eq!(state(&jobs, job.id), "COMPLETED", "{log}");
    assert!(
        log.contains("iteration 2/2") && log.contains("the run is done"),
        "{log}"
    );
    for k in 1..=2 {
        let worker = work.join(format!("logs/worker-{k}.job-{}.log", job.id));
        let worker = std::fs::read_to_string(worker).unwrap();
        assert!(worker.contains("the run is done"), "{worker}");
    }
    same_model::<Brazilian>(reference, &dir);

    let stderr = submit_refused(cluster, &dir, &args);
    assert!(stderr.contains("the run is finished"), "{stderr}");
}

/// TD, 2 workers, with the site default `SBATCH_EXPORT=NONE` and the binary named by a
/// relative `EVALEARN`: the job gets everything as arguments.
fn td_without_environment(cluster: &Cluster, root: &Path, reference: &Path) {
    let dir = root.join("td");
    let run = run_config(&dir, "td", 2);
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_evalearn"), dir.join("bin/evalearn")).unwrap();
    let out = submit(
        cluster,
        &dir,
        &[arg(&run), "work", "2"],
        &[("SBATCH_EXPORT", "NONE"), ("EVALEARN", "bin/evalearn")],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let job = Submitted::parse(&text(&out.stdout));
    let jobs = cluster.settle(&dir);
    let log = run_log(&dir.join("work"), &job);
    assert_eq!(state(&jobs, job.id), "COMPLETED", "{log}");
    same_model::<Brazilian>(reference, &dir);
}

/// TD, 6 iterations, 2 workers, 3 shards an iteration. The test holds shard 3 of
/// iteration 1 until both workers are stopped, then plays it itself: iteration 1 is
/// learned and the run waits in iteration 2. The learner is stopped; worker 1 is killed
/// (SIGKILL), worker 2's step cancelled (scancel): both are started again. Then the
/// learner is killed (SIGKILL): it is started again and resumes from its checkpoint. The
/// model is the one of one process.
fn killed_and_started_again(cluster: &Cluster, root: &Path, reference: &Path) {
    let dir = root.join("kills");
    let run = run_config(&dir, "td", 6);
    let pool = dir.join("work/pool");
    let held = HeldClaim::new(&run, &pool, 3);
    let job = submit_ok(cluster, &dir, &["--shards", "3", arg(&run), "work", "2"]);
    let work = dir.join("work").canonicalize().unwrap();
    // The workers play shards 1 and 2 of iteration 1 and wait for the held one; stopped
    // there, they play nothing more. Shard 3 is then played by a worker of the test's
    // own that leaves after it: iteration 1 is learned and iteration 2 waits.
    wait_until("shards 1 and 2 played", || {
        (1..=2).all(|k| held.round().join(format!("shard-{k}.ds")).exists())
    });
    let workers = [worker(&job, 1), worker(&job, 2)];
    for pid in workers {
        signal(pid, "-STOP");
    }
    drop(held);
    let log = Running::worker(&run, &pool, "the test", 1, Some(1), dir.join("third.log"));
    let log = log.finish();
    assert!(log.contains("played 1 shards"), "{log}");
    let checkpoint = dir.join("model.ckpt");
    wait_until("iteration 1 learned", || checkpoint.exists());
    let learner = stopped_learner(&work.join("pool"));

    signal(workers[0], "-KILL");
    signal(workers[1], "-CONT");
    let steps = cluster.client(&["squeue", "-h", "--steps", "-o", "%i %j"]);
    let step = steps
        .lines()
        .find_map(|l| l.strip_suffix(&format!(" {}-worker-2", job.name)))
        .unwrap_or_else(|| panic!("no step of worker 2 of {}: {steps}", job.name));
    // On a loaded machine scancel has answered "Invalid job id specified" for this step
    // while the step ended, its worker killed (status 137) all the same. What the test
    // needs is that the step ends: an error is accepted once squeue no longer lists it.
    let mut tries = 0;
    while let Err(error) = cluster.try_client(&["scancel", step]) {
        let listed = cluster
            .client(&["squeue", "-h", "--steps", "-o", "%i"])
            .lines()
            .any(|l| l.trim() == step);
        if !listed {
            break;
        }
        tries += 1;
        assert!(tries < 600, "scancel {step}, still listed: {error}");
        std::thread::sleep(Duration::from_millis(100));
    }
    wait_until("both workers started again", || {
        let log = run_log(&work, &job);
        ["worker 1 ended", "worker 2 ended"]
            .iter()
            .all(|w| log.contains(w))
    });
    let log = run_log(&work, &job);
    assert_eq!(
        log.matches("before the run: starting it again").count(),
        2,
        "{log}"
    );
    signal(learner, "-KILL");

    let jobs = cluster.settle(&dir);
    let log = run_log(&work, &job);
    assert_eq!(state(&jobs, job.id), "COMPLETED", "{log}");
    assert!(
        log.contains("the learner ended with status 137: starting it again")
            && log.contains("resuming after iteration ")
            && log.contains("the run is done"),
        "{log}"
    );
    same_model::<Brazilian>(reference, &dir);
}

/// TD, 6 iterations, `--restarts 0`: both workers killed while the learner is stopped
/// (and the test holds a shard of iteration 1) end the job FAILED, saying why; submitted
/// again, the run finishes with the model of one process.
fn no_restarts_fail_loudly(cluster: &Cluster, root: &Path, reference: &Path) {
    let dir = root.join("no-restarts");
    let run = run_config(&dir, "td", 6);
    let args = [arg(&run), "work", "2"];
    // Iteration 1 cannot end while the test holds one of its shards.
    let held = HeldClaim::new(&run, &dir.join("work/pool"), 1);
    let job = submit_ok(cluster, &dir, &[&["--restarts", "0"][..], &args].concat());
    let work = dir.join("work").canonicalize().unwrap();
    stopped_learner(&work.join("pool"));
    for k in 1..=2 {
        signal(worker(&job, k), "-KILL");
    }
    let jobs = cluster.settle(&dir);
    let log = run_log(&work, &job);
    assert_eq!(state(&jobs, job.id), "FAILED", "{log}");
    assert!(
        log.contains("before the run; no restart left")
            && log.contains("error: every worker has ended and none can be started again"),
        "{log}"
    );

    drop(held);
    let again = submit_ok(cluster, &dir, &args);
    let jobs = cluster.settle(&dir);
    let log = run_log(&work, &again);
    assert_eq!(state(&jobs, again.id), "COMPLETED", "{log}");
    same_model::<Brazilian>(reference, &dir);
}

/// A time budget used before the first iteration ends the job at once, its workers
/// with it; a run whose checkpoint used its budget is refused.
fn time_budget_ends_the_run(cluster: &Cluster, root: &Path) {
    let budget = |run: &Path| {
        let text = std::fs::read_to_string(run)
            .unwrap()
            .replace("iterations = 1", "iterations = 3\nminutes = 1e-12");
        std::fs::write(run, text).unwrap();
    };
    let dir = root.join("minutes");
    let run = run_config(&dir, "glem", 1);
    budget(&run);
    let job = submit_ok(cluster, &dir, &[arg(&run), "work", "2"]);
    let jobs = cluster.settle(&dir);
    let log = run_log(&dir.join("work"), &job);
    assert_eq!(state(&jobs, job.id), "COMPLETED", "{log}");
    assert!(
        log.contains("time budget of 0.000000000001 minutes used")
            && log.contains("done after 0 iterations")
            && log.contains("the run is done"),
        "{log}"
    );

    let dir = root.join("minutes-used");
    let run = straight(&dir, "glem", 1).join("run.toml");
    budget(&run);
    let stderr = submit_refused(cluster, &dir, &[arg(&run), "work", "2"]);
    assert!(stderr.contains("time budget is used"), "{stderr}");
}

/// What submit.sh refuses before submitting anything.
fn refusals(cluster: &Cluster, root: &Path) {
    let dir = root.join("refused");
    let run = run_config(&dir, "glem", 2);
    let work = dir.join("work");
    let (run, work) = (arg(&run), arg(&work));

    let stderr = submit_refused(cluster, &dir, &["glme.toml", work, "2"]);
    assert!(stderr.contains("config glme.toml"), "{stderr}");
    assert!(!dir.join("work").exists(), "refused before making WORKDIR");
    let samuel = config(&dir.join("samuel"), "brazilian", "samuel");
    let stderr = submit_refused(cluster, &dir, &[arg(&samuel), work, "2"]);
    assert!(stderr.contains("samuel learner"), "{stderr}");
    let stderr = submit_refused(cluster, &dir, &[run, work, "0"]);
    assert!(stderr.contains("WORKERS '0'"), "{stderr}");
    let stderr = submit_refused(cluster, &dir, &["--cpus", "4096", run, work, "2"]);
    assert!(stderr.contains("cannot run on this cluster"), "{stderr}");
    let stderr = submit_refused(cluster, &dir, &["--mem", "100T", run, work, "2"]);
    assert!(stderr.contains("cannot run on this cluster"), "{stderr}");
    let stderr = submit_refused(cluster, &dir, &[run, work, "2", "--", "--partition=nosuch"]);
    assert!(stderr.contains("cannot run on this cluster"), "{stderr}");
    let stderr = submit_refused(cluster, &dir, &[run, work, "2", "--array=1-3"]);
    assert!(stderr.contains("--array=1-3: submit.sh sets"), "{stderr}");
    let stderr = submit_refused(cluster, &dir, &["--restarts", "many", run, work, "2"]);
    assert!(stderr.contains("--restarts 'many'"), "{stderr}");

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
fn training_runs_under_a_real_slurm() {
    let root = temp_dir("slurm");
    let glem = straight(&root.join("glem-one-process"), "glem", 2);
    let td = straight(&root.join("td-one-process"), "td", 2);
    let td6 = straight(&root.join("td6-one-process"), "td", 6);
    let cluster = Cluster::start();
    std::thread::scope(|s| {
        s.spawn(|| glem_run(&cluster, &root, &glem));
        s.spawn(|| td_without_environment(&cluster, &root, &td));
        s.spawn(|| killed_and_started_again(&cluster, &root, &td6));
        s.spawn(|| no_restarts_fail_loudly(&cluster, &root, &td6));
        s.spawn(|| time_budget_ends_the_run(&cluster, &root));
        s.spawn(|| refusals(&cluster, &root));
    });
    drop(cluster);
    std::fs::remove_dir_all(&root).unwrap();
}
