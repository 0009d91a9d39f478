//! The model files the page offers (`GET /api/models`) and the engine it starts with.
//!
//! A file is listed once however it is reached: `--models` and `--runs` may be the same
//! folder (the README's `serve --models models --runs models`) or hold links to one file,
//! so entries are merged by canonical path. A file with a training run beside it
//! (`NAME.metrics.jsonl`) keeps its `runs/` name, the one the training page plays.
//!
//! The engine of each game's first screen is, among the models of the game's standard
//! variant (the one the page plays): a run being trained now, else the model with the
//! highest Elo against the baseline at its run's last evaluation, else the model trained
//! on the most games; without a model, the game's first built-in evaluator.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{Map, Value, json};

use super::runs::{METRICS_SUFFIX, plain_file_name, read_metrics};
use super::{Config, Games};
use crate::game::GameSpec;
use crate::io::model::ModelHeader;
use crate::learn::config::TrainConfig;

/// A run whose metrics file was written within this long (or three of its mean
/// iterations, when longer) and that has iterations left counts as being trained now.
const LIVE_WINDOW: Duration = Duration::from_secs(10 * 60);

/// What a model's training run (its metrics file beside it) says.
#[derive(Default)]
struct Training {
    /// Elo against the baseline at the last evaluation, and that iteration.
    elo: Option<(f64, u64)>,
    iteration: Option<u64>,
    iterations: Option<u64>,
    /// Being trained now: iterations left and written lately.
    live: bool,
    written: Option<SystemTime>,
}

struct Entry {
    path: String,
    also: Vec<String>,
    canonical: PathBuf,
    header: ModelHeader,
    spec: GameSpec,
    training: Training,
}

/// `GET /api/models`: the models, each once, and each game's first engine; `now` is the
/// server's time, which runs' file ages are measured from.
pub(super) fn models_reply(games: &Games, config: &Config, now: SystemTime) -> Value {
    let entries = list(games, config, now);
    let mut defaults = Map::new();
    let mut live_pick: Option<(&'static str, SystemTime)> = None;
    for handle in games.list() {
        let name = handle.name();
        let choice = match handle.parse_options("") {
            Ok(standard) => strongest(&entries, &standard),
            Err(_) => None,
        };
        let value = match choice {
            Some(entry) => {
                if entry.training.live {
                    let written = entry.training.written.unwrap_or(SystemTime::UNIX_EPOCH);
                    if live_pick.is_none_or(|(_, t)| written > t) {
                        live_pick = Some((name, written));
                    }
                }
                json!({ "model": entry.path, "why": why(entry) })
            }
            None => {
                let builtin = handle.builtins().first().copied().unwrap_or_default();
                json!({
                    "eval": builtin,
                    "why": format!(
                        "the built-in {builtin} evaluator (no model of {name} in --models or --runs)"
                    ),
                })
            }
        };
        defaults.insert(name.to_string(), value);
    }
    // A run being trained is what the person most likely came to see.
    let start_game = live_pick.map_or_else(|| games.list()[0].name(), |(name, _)| name);
    json!({
        "models": entries.iter().map(entry_json).collect::<Vec<_>>(),
        "defaults": defaults,
        "start_game": start_game,
    })
}

fn entry_json(entry: &Entry) -> Value {
    let t = &entry.training;
    json!({
        "path": entry.path,
        "also": entry.also,
        "game": entry.header.game,
        "kind": entry.header.kind,
        "revision": entry.header.revision,
        "games": entry.header.meta.games,
        "elo": t.elo.map(|(elo, _)| elo),
        "iteration": t.iteration,
        "iterations": t.iterations,
        "live": t.live,
    })
}

/// Why `entry` is its game's first engine, in words for the page.
fn why(entry: &Entry) -> String {
    let t = &entry.training;
    let name = &entry.path;
    if t.live {
        let of = t.iterations.map_or(String::new(), |n| format!(" of {n}"));
        return format!(
            "{name}, the run being trained (iteration {}{of})",
            t.iteration.unwrap_or(0)
        );
    }
    match t.elo {
        Some((elo, iteration)) => format!(
            "{name}, the strongest model: Elo {elo:+.0} against the baseline at its last \
             evaluation (iteration {iteration})"
        ),
        None => format!(
            "{name}: no model has an evaluation; this one was trained on the most games ({})",
            entry.header.meta.games
        ),
    }
}

/// The first engine among the models of `standard`: a live run (the latest written),
/// else the highest last Elo, else the most training games; ties go to the first listed.
fn strongest<'a>(entries: &'a [Entry], standard: &GameSpec) -> Option<&'a Entry> {
    let rank = |a: &Entry, b: &Entry| -> Ordering {
        let (ta, tb) = (&a.training, &b.training);
        ta.live
            .cmp(&tb.live)
            .then_with(|| match (ta.live, tb.live) {
                (true, true) => ta.written.cmp(&tb.written),
                _ => Ordering::Equal,
            })
            .then_with(|| ta.elo.is_some().cmp(&tb.elo.is_some()))
            .then_with(|| {
                let (ea, eb) = (ta.elo.map_or(0.0, |e| e.0), tb.elo.map_or(0.0, |e| e.0));
                ea.total_cmp(&eb)
            })
            .then_with(|| a.header.meta.games.cmp(&b.header.meta.games))
    };
    entries
        .iter()
        .filter(|e| &e.spec == standard)
        // `max_by` keeps the last of equals: reversed, the first listed wins ties.
        .rev()
        .max_by(|a, b| rank(a, b))
}

/// The model files of both folders, each once; checkpoints (not `.bin`), unreadable files
/// and models of no game served are left out.
fn list(games: &Games, config: &Config, now: SystemTime) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for (folder, dir) in [("models", &config.models), ("runs", &config.runs)] {
        let Some(dir) = dir else { continue };
        for name in model_names(dir) {
            let path = dir.join(&name);
            let label = format!("{folder}/{name}");
            let Ok(canonical) = path.canonicalize() else {
                continue;
            };
            let metrics = dir.join(format!(
                "{}{METRICS_SUFFIX}",
                name.strip_suffix(".bin").unwrap_or(&name)
            ));
            if let Some(known) = entries.iter_mut().find(|e| e.canonical == canonical) {
                // The runs folder's name of a run is the more telling one.
                if folder == "runs" && metrics.is_file() {
                    let old = std::mem::replace(&mut known.path, label);
                    known.also.push(old);
                    known.training = training(&metrics, &known.header, now);
                } else {
                    known.also.push(label);
                }
                continue;
            }
            let Ok(header) = crate::io::model::read_header(&path) else {
                continue;
            };
            let Ok(spec) = games.parse(&header.game) else {
                continue;
            };
            if !games.handle(&spec).reads_kind(&header.kind) {
                continue;
            }
            entries.push(Entry {
                path: label,
                also: Vec::new(),
                canonical,
                training: training(&metrics, &header, now),
                header,
                spec,
            });
        }
    }
    entries
}

/// The `.bin` files of `dir` with plain names, sorted.
fn model_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".bin") && plain_file_name(n))
        .collect();
    names.sort();
    names
}

/// What the metrics file `metrics` says of the run that wrote the model of `header`
/// (nothing when there is none or it does not read), its age taken at `now`.
fn training(metrics: &Path, header: &ModelHeader, now: SystemTime) -> Training {
    let Ok(lines) = read_metrics(metrics) else {
        return Training::default();
    };
    let Some(last) = lines.last() else {
        return Training::default();
    };
    let budget = TrainConfig::parse_saved(&header.meta.config)
        .ok()
        .map(|c| c.budget);
    let written = std::fs::metadata(metrics).and_then(|m| m.modified()).ok();
    let iterations_left = budget
        .as_ref()
        .is_some_and(|b| last.iteration < b.iterations);
    let time_left = budget
        .as_ref()
        .and_then(|b| b.minutes)
        .is_none_or(|minutes| last.elapsed_s < minutes * 60.0);
    // A stopped run's file ages; a live one is rewritten every iteration.
    let mean_iteration = Duration::try_from_secs_f64(last.elapsed_s / last.iteration.max(1) as f64)
        .unwrap_or(Duration::ZERO);
    let window = LIVE_WINDOW.max(mean_iteration.saturating_mul(3));
    let recent = written
        .and_then(|w| now.duration_since(w).ok())
        .is_some_and(|age| age <= window)
        // A time stamp from the future (another machine's clock) is recent.
        || written.is_some_and(|w| w > now);
    Training {
        // Only Elo against the baseline ranks models of different runs.
        elo: lines.iter().rev().find_map(|l| {
            let elo = l.elo.filter(|e| e.is_finite() && l.opponent.is_none())?;
            Some((elo, l.iteration))
        }),
        iteration: Some(last.iteration),
        iterations: budget.map(|b| b.iterations),
        live: iterations_left && time_left && recent,
        written,
    }
}
