//! A run whose self-play is spread over long-lived worker processes that share a folder
//! with the learner: `evalearn train --config C --workers DIR` learns, `evalearn
//! selfplay --config C --worker DIR` plays (as many as there are CPUs to give them, on
//! any machines that see the folder). Slurm starts them, as steps of one allocation
//! (`deploy/slurm/`); nothing here depends on it.
//!
//! Each iteration is a *round*: the learner publishes it (`DIR/current`: the round's
//! key, its shard count and its iteration) once the checkpoint it is played from is
//! written; a worker claims one of its shards by creating `DIR/rounds/KEY/claim-K`
//! (exclusively), plays shard K with the model of that checkpoint exactly as
//! `selfplay --config --shard K/N` would, and writes `shard-K.ds` whole (a temporary
//! file, then a rename); the learner learns from the N shards in game order, so the model
//! is the one a single `train` process makes. The key is a checksum of the checkpoint and
//! the config (the `state` of `train --plan`): shards of one key are interchangeable.
//!
//! Failures: a worker touches its claim every [`HEARTBEAT`]; a claim untouched for
//! [`LEASE`] with no shard file (the worker was killed) is removed by the learner and the
//! shard is played again by another worker: a killed worker loses only the games it was
//! playing. A learner restarted on the same folder (`--resume`) finds the round's shards
//! already played. The learner touches `DIR/learner`; workers leave when it is untouched
//! for [`GONE`] or when `DIR/done` appears. The learner fails, loudly, when no shard is
//! finished and no claim is touched for [`GONE`].

use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use super::config::TrainConfig;
use super::learner::TrainGame;
use super::shard::{GameSupply, plan_shard};
use crate::arena::players::Engine;
use crate::game::Game;
use crate::io::dataset::{Dataset, DatasetGame, DatasetWriter};
use crate::io::model::{CHECKSUM_BYTES, checksum};
use crate::search::Tablebase;
use crate::selfplay::{self, Shard};

/// How often a worker touches its claim and the learner its heartbeat.
pub const HEARTBEAT: Duration = Duration::from_secs(1);
/// A claim untouched this long belongs to a worker that is gone.
pub const LEASE: Duration = Duration::from_secs(10);
/// A learner (or every worker) silent this long is gone.
pub const GONE: Duration = Duration::from_secs(120);
/// How often a waiting process looks at the folder.
const POLL: Duration = Duration::from_millis(10);

/// The key of the state the run of `config` (config text `text`) plays its next
/// iteration from: a checksum of its checkpoint (none before the first iteration) and
/// its config. Shards played from one key are interchangeable; any change to either (a
/// fit, a restart, an edit) makes another key.
pub fn round_key(config: &TrainConfig, text: &str) -> Result<u64, String> {
    let checkpoint = config.beside_model("ckpt");
    let bytes = match fs::read(&checkpoint) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", checkpoint.display())),
    };
    Ok(key_of(bytes, text))
}

/// The key of the state a run of config text `text` starts from without a checkpoint
/// (a new run, or one started over with `--restart`).
pub fn new_run_key(text: &str) -> u64 {
    key_of(Vec::new(), text)
}

/// The key of checkpoint `bytes` (empty: none) and config `text`.
fn key_of(mut bytes: Vec<u8>, text: &str) -> u64 {
    // Without the file's own trailing CRC: a CRC over a message and its CRC is the same
    // for every message, which would give every state one key.
    bytes.truncate(bytes.len().saturating_sub(CHECKSUM_BYTES));
    bytes.extend_from_slice(text.as_bytes());
    checksum(&bytes)
}

/// Whether a learner of the run of `config` (config text `text`) published its first
/// round in folder `dir` and ended before its first checkpoint: the files it may have
/// written of that iteration are its own, and a learner started again replaces them.
pub fn first_round_begun(dir: &Path, config: &TrainConfig, text: &str) -> bool {
    let folder = Folder {
        dir: dir.to_path_buf(),
    };
    !config.beside_model("ckpt").exists()
        && folder.read_round().is_some_and(|round| {
            round.iteration == 1 && round_key(config, text).is_ok_and(|key| key == round.key)
        })
}

/// The published round: its key, shard count and iteration (counted from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Round {
    key: u64,
    shards: u64,
    iteration: u64,
}

impl Round {
    fn text(&self) -> String {
        format!("{:016x} {} {}\n", self.key, self.shards, self.iteration)
    }

    fn parse(text: &str) -> Option<Round> {
        let mut words = text.split_whitespace();
        let key = u64::from_str_radix(words.next()?, 16).ok()?;
        let shards = words.next()?.parse().ok()?;
        let iteration = words.next()?.parse().ok()?;
        Some(Round {
            key,
            shards,
            iteration,
        })
    }
}

/// The shared folder and the names in it.
#[derive(Clone, Debug)]
struct Folder {
    dir: PathBuf,
}

impl Folder {
    fn current(&self) -> PathBuf {
        self.dir.join("current")
    }
    fn learner(&self) -> PathBuf {
        self.dir.join("learner")
    }
    fn done(&self) -> PathBuf {
        self.dir.join("done")
    }
    fn rounds(&self) -> PathBuf {
        self.dir.join("rounds")
    }
    fn round(&self, key: u64) -> PathBuf {
        self.rounds().join(format!("{key:016x}"))
    }
    fn claim(&self, key: u64, shard: u64) -> PathBuf {
        self.round(key).join(format!("claim-{shard}"))
    }
    fn shard(&self, key: u64, shard: u64) -> PathBuf {
        self.round(key).join(format!("shard-{shard}.ds"))
    }

    fn read_round(&self) -> Option<Round> {
        Round::parse(&fs::read_to_string(self.current()).ok()?)
    }
}

/// Seconds since `path` was last touched; `None` if it is not there.
fn age(path: &Path) -> Option<Duration> {
    let modified = fs::metadata(path).and_then(|m| m.modified()).ok()?;
    Some(
        SystemTime::now()
            .duration_since(modified)
            .unwrap_or_default(),
    )
}

/// Touches `path` (if it is there) every [`HEARTBEAT`] from a thread of its own, until
/// dropped: a live worker's claim, a live learner.
pub struct Heartbeat {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Heartbeat {
    pub fn start(path: PathBuf) -> Heartbeat {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                if let Ok(file) = OpenOptions::new().append(true).open(&path) {
                    let _ = file.set_modified(SystemTime::now());
                }
                let slept = Instant::now();
                while slept.elapsed() < HEARTBEAT && !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(POLL);
                }
            }
        });
        Heartbeat {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Writes `text` to `path` atomically.
fn publish(path: &Path, text: &str) -> Result<(), String> {
    crate::io::write_atomic(path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The learner's side: the games of each iteration, played by the workers of the folder.
pub struct Coordinator<'a> {
    folder: Folder,
    config: &'a TrainConfig,
    text: &'a str,
    game: String,
    shards: u64,
    _heartbeat: Heartbeat,
}

impl<'a> Coordinator<'a> {
    /// The learner of the run of `config` over folder `dir` (made if missing), each
    /// iteration in `shards` shards, for game `game` (its variant's name).
    pub fn new(
        dir: &Path,
        config: &'a TrainConfig,
        text: &'a str,
        game: &str,
        shards: u64,
    ) -> Result<Coordinator<'a>, String> {
        let folder = Folder {
            dir: dir.to_path_buf(),
        };
        fs::create_dir_all(folder.rounds())
            .map_err(|e| format!("cannot create {}: {e}", folder.rounds().display()))?;
        let _ = fs::remove_file(folder.done());
        let who = format!("{}@{}\n", std::process::id(), host());
        publish(&folder.learner(), &who)?;
        Ok(Coordinator {
            _heartbeat: Heartbeat::start(folder.learner()),
            folder,
            config,
            text,
            game: game.to_string(),
            shards: shards.max(1),
        })
    }

    /// Says the run is over (workers leave), with `why`.
    pub fn finish(&self, why: &str) -> Result<(), String> {
        publish(&self.folder.done(), &format!("{why}\n"))
    }

    /// Removes the rounds other than `key`'s: their shards are of states gone by.
    fn forget_other_rounds(&self, key: u64) {
        let keep = format!("{key:016x}");
        if let Ok(entries) = fs::read_dir(self.folder.rounds()) {
            for entry in entries.flatten() {
                if entry.file_name().to_string_lossy() != keep {
                    let _ = fs::remove_dir_all(entry.path());
                }
            }
        }
    }

    /// Waits until every shard of `round` is there, reclaiming the shards of workers gone
    /// (their claims untouched for [`LEASE`]); fails when nothing moves for [`GONE`].
    fn wait_for_shards(&self, round: Round, stop: &AtomicBool) -> Result<bool, String> {
        let mut last_progress = Instant::now();
        let mut done_before = 0;
        let mut last_check = Instant::now();
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(false);
            }
            let done = (1..=round.shards)
                .filter(|&k| self.folder.shard(round.key, k).exists())
                .count() as u64;
            if done == round.shards {
                return Ok(true);
            }
            if done > done_before {
                (done_before, last_progress) = (done, Instant::now());
            }
            if last_check.elapsed() >= HEARTBEAT {
                last_check = Instant::now();
                if self.reclaim(round)? {
                    last_progress = Instant::now();
                }
                if last_progress.elapsed() >= GONE {
                    return Err(format!(
                        "iteration {}: no worker has played a shard of {} for {} s ({done} of \
                         {} done, no claim touched): are the workers of {} running?",
                        round.iteration,
                        self.folder.round(round.key).display(),
                        GONE.as_secs(),
                        round.shards,
                        self.folder.dir.display()
                    ));
                }
            }
            std::thread::sleep(POLL);
        }
    }

    /// Removes the claims of workers gone; true if some claim is alive (a worker plays).
    fn reclaim(&self, round: Round) -> Result<bool, String> {
        let mut alive = false;
        for k in 1..=round.shards {
            let claim = self.folder.claim(round.key, k);
            match age(&claim) {
                Some(a) if a >= LEASE && !self.folder.shard(round.key, k).exists() => {
                    let who = fs::read_to_string(&claim).unwrap_or_default();
                    eprintln!(
                        "warning: iteration {}: the worker playing shard {k} of {} ({}) is \
                         gone: its shard is played again",
                        round.iteration,
                        round.shards,
                        who.trim()
                    );
                    let _ = fs::remove_file(&claim);
                }
                Some(_) => alive = true,
                None => {}
            }
        }
        Ok(alive)
    }

    /// The games of `round`'s shards, sorted, each shard checked; a damaged one is
    /// removed (with its claim) to be played again, and `None` returned.
    fn read_round<G: Game>(&self, round: Round) -> Result<Option<Vec<DatasetGame<G>>>, String> {
        let mut games = Vec::new();
        for k in 1..=round.shards {
            let path = self.folder.shard(round.key, k);
            match Dataset::<G>::read(&path, Some(&self.game)) {
                Ok(data) if data.warning.is_none() => games.extend(data.games),
                Ok(_) | Err(_) => {
                    eprintln!(
                        "warning: {} is damaged: the shard is played again",
                        path.display()
                    );
                    let _ = fs::remove_file(&path);
                    let _ = fs::remove_file(self.folder.claim(round.key, k));
                    return Ok(None);
                }
            }
        }
        games.sort_by_key(|g| g.index);
        Ok(Some(games))
    }
}

impl<G: Game> GameSupply<G> for Coordinator<'_> {
    fn take(
        &mut self,
        first: u64,
        count: u64,
        stop: &AtomicBool,
        _log: &mut dyn FnMut(&str),
    ) -> Result<Option<Vec<DatasetGame<G>>>, String> {
        let round = Round {
            key: round_key(self.config, self.text)?,
            shards: self.shards.min(count),
            iteration: first / count + 1,
        };
        fs::create_dir_all(self.folder.round(round.key)).map_err(|e| {
            format!(
                "cannot create {}: {e}",
                self.folder.round(round.key).display()
            )
        })?;
        publish(&self.folder.current(), &round.text())?;
        self.forget_other_rounds(round.key);
        loop {
            if !self.wait_for_shards(round, stop)? {
                return Ok(None);
            }
            if let Some(games) = self.read_round::<G>(round)? {
                let expected: Vec<u64> = (first..first + count).collect();
                let found: Vec<u64> = games.iter().map(|g| g.index).collect();
                if found != expected {
                    return Err(format!(
                        "iteration {}: the shards of {} hold other games than {first}–{} \
                         (played from another config?)",
                        round.iteration,
                        self.folder.round(round.key).display(),
                        first + count - 1
                    ));
                }
                return Ok(Some(games));
            }
        }
    }

    fn timed(&self) -> bool {
        true
    }
}

/// This machine's name, for the files that say who plays or learns.
fn host() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "?".to_string())
}

/// What a worker did.
pub struct WorkSummary {
    pub shards: u64,
    pub games: u64,
    /// Why it stopped, in words.
    pub ended: String,
}

/// A worker: plays the shards of the rounds of folder `dir` for the run of `config`
/// (config text `text`) until the learner says the run is done, or is gone, or `stop` is
/// raised, or it has played `max_shards`. `id` names it in claims (and spreads the
/// workers over the shards); `threads` are its self-play threads (0: all cores); `log`
/// hears a line per shard.
#[allow(clippy::too_many_arguments)]
pub fn work<G: TrainGame>(
    variant: G::Variant,
    dir: &Path,
    config: &TrainConfig,
    text: &str,
    id: &str,
    threads: usize,
    max_shards: Option<u64>,
    tablebase: Option<Arc<dyn Tablebase<G>>>,
    stop: &Arc<AtomicBool>,
    log: &mut dyn FnMut(&str),
) -> Result<WorkSummary, String> {
    let folder = Folder {
        dir: dir.to_path_buf(),
    };
    let game = G::variant_name(variant);
    let mut summary = WorkSummary {
        shards: 0,
        games: 0,
        ended: String::new(),
    };
    let offset = checksum(id.as_bytes());
    let started = Instant::now();
    loop {
        if stop.load(Ordering::Relaxed) {
            summary.ended = "stopped".to_string();
            return Ok(summary);
        }
        if let Ok(why) = fs::read_to_string(folder.done()) {
            summary.ended = format!("the run is done: {}", why.trim());
            return Ok(summary);
        }
        if max_shards.is_some_and(|max| summary.shards >= max) {
            summary.ended = "it has played the shards it was given (--max-shards)".to_string();
            return Ok(summary);
        }
        let learner_gone = match age(&folder.learner()) {
            Some(a) => a >= GONE,
            None => started.elapsed() >= GONE,
        };
        if learner_gone {
            return Err(format!(
                "no learner at {} for {} s: leaving",
                dir.display(),
                GONE.as_secs()
            ));
        }
        let Some(round) = folder.read_round() else {
            std::thread::sleep(POLL);
            continue;
        };
        // The checkpoint the round is played from is written before the round is
        // published; a round whose key is not the checkpoint's is over.
        if round_key(config, text)? != round.key {
            std::thread::sleep(POLL);
            continue;
        }
        let Some(shard) = claim(&folder, round, offset, id)? else {
            std::thread::sleep(POLL);
            continue;
        };
        let played = play_shard::<G>(
            variant, &folder, round, shard, config, text, &game, threads, &tablebase, stop,
        );
        match played {
            Ok(Some(games)) => {
                summary.shards += 1;
                summary.games += games;
                log(&format!(
                    "iteration {}: shard {shard} of {} played ({games} games)",
                    round.iteration, round.shards
                ));
            }
            Ok(None) => {
                let _ = fs::remove_file(folder.claim(round.key, shard));
            }
            Err(e) => {
                let _ = fs::remove_file(folder.claim(round.key, shard));
                return Err(e);
            }
        }
    }
}

/// Claims a shard of `round` nobody plays or has played, starting the search at a place
/// of its own (`offset`); `None` when there is none.
fn claim(folder: &Folder, round: Round, offset: u64, id: &str) -> Result<Option<u64>, String> {
    for i in 0..round.shards {
        let k = (offset + i) % round.shards + 1;
        if folder.shard(round.key, k).exists() {
            continue;
        }
        let path = folder.claim(round.key, k);
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut file) => {
                let _ = writeln!(file, "{id} (pid {} on {})", std::process::id(), host());
                return Ok(Some(k));
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            // The round's folder is gone: the learner moved on.
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot create {}: {e}", path.display())),
        }
    }
    Ok(None)
}

/// Plays shard `shard` of `round` into its file; the games played, or `None` if the
/// round was over before the shard was (or `stop` was raised).
#[allow(clippy::too_many_arguments)]
fn play_shard<G: TrainGame>(
    variant: G::Variant,
    folder: &Folder,
    round: Round,
    shard: u64,
    config: &TrainConfig,
    text: &str,
    game: &str,
    threads: usize,
    tablebase: &Option<Arc<dyn Tablebase<G>>>,
    stop: &Arc<AtomicBool>,
) -> Result<Option<u64>, String> {
    let _heartbeat = Heartbeat::start(folder.claim(round.key, shard));
    let which = Shard::parse(&format!("{shard}/{}", round.shards))?;
    let plan = plan_shard::<G>(variant, config, text, which, Some(threads))?;
    if plan.finished + 1 != round.iteration {
        return Ok(None);
    }
    let engine = Engine::new(plan.evaluator, tablebase.clone());
    let mut games = Vec::new();
    selfplay::run(&plan.selfplay, &engine, &plan.openings, stop, |g| {
        games.push(g)
    })?;
    let expected = which
        .games(plan.selfplay.first_game, plan.selfplay.games)
        .len();
    if games.len() < expected {
        return Ok(None);
    }
    if !folder.round(round.key).is_dir() {
        // The learner moved on (the shard was played by another worker meanwhile).
        return Ok(None);
    }
    let part = folder
        .round(round.key)
        .join(format!("shard-{shard}.ds.{}.part", std::process::id()));
    let mut writer = DatasetWriter::create(&part, game).map_err(|e| e.to_string())?;
    for g in &games {
        writer.append(g).map_err(|e| e.to_string())?;
    }
    writer.finish().map_err(|e| e.to_string())?;
    if let Err(e) = fs::rename(&part, folder.shard(round.key, shard)) {
        let _ = fs::remove_file(&part);
        if !folder.round(round.key).is_dir() {
            return Ok(None);
        }
        return Err(format!(
            "cannot write shard {shard} of iteration {}: {e}",
            round.iteration
        ));
    }
    Ok(Some(games.len() as u64))
}
