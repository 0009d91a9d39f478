//! What the server reads from its two folders: the models to play against, the
//! training runs of `--runs` (each `NAME.metrics.jsonl` beside its model `NAME.bin`,
//! followed live while `evalearn train` writes it), and game files to replay. Only
//! plain names inside the folders are read; a path leaving them is refused.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{Path as UrlPath, Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::Stream;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Games;
use super::api::{ApiError, blocking, body_bytes, query, segment};
use super::live::{WebGame, side_key};
use super::{App, MAX_UPLOAD_BYTES};
use crate::accuracy::heldout;
use crate::game::Outcome;
use crate::learn::config::TrainConfig;
use crate::learn::plot::{CurvePoint, learning_curve_svg};
use crate::learn::train::MetricsLine;

/// Longest metrics file read.
const MAX_METRICS_BYTES: u64 = 64 << 20;
/// Longest game file replayed from `--runs` (uploads: [`MAX_UPLOAD_BYTES`]).
const MAX_REPLAY_BYTES: u64 = 16 << 20;
/// Most positions a replay returns (all games together).
const MAX_REPLAY_PLIES: usize = 50_000;
/// Most files listed, and how deep below `--runs` they are looked for.
const MAX_FILES: usize = 500;
const MAX_FILE_DEPTH: usize = 3;
pub(super) const METRICS_SUFFIX: &str = ".metrics.jsonl";

/// True for a plain file name: no folder, not hidden, printable, not too long.
pub(super) fn plain_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| !c.is_control() && !matches!(c, '/' | '\\' | ':'))
}

/// The path of `relative` inside `dir`, which must not leave it (no `..`, no absolute
/// path, no link pointing out).
pub(super) fn inside(dir: &Path, relative: &str) -> Result<PathBuf, ApiError> {
    let refused = |why: &str| ApiError::bad(format!("path '{relative}' refused: {why}"));
    if relative.is_empty() || relative.len() > 1024 {
        return Err(refused("empty or too long"));
    }
    if relative.contains('\\') || relative.contains('\0') {
        return Err(refused("backslashes and NUL are not allowed"));
    }
    let path = Path::new(relative);
    if path.is_absolute() {
        return Err(refused("absolute paths are not allowed"));
    }
    if !path.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(refused("'..' and '.' are not allowed"));
    }
    let joined = dir.join(path);
    let (Ok(real), Ok(root)) = (joined.canonicalize(), dir.canonicalize()) else {
        return Err(ApiError::not_found(format!("no file '{relative}'")));
    };
    if !real.starts_with(&root) {
        return Err(refused("it leads out of the folder"));
    }
    if !real.is_file() {
        return Err(ApiError::not_found(format!("'{relative}' is not a file")));
    }
    Ok(real)
}

fn runs_dir(app: &App) -> Result<PathBuf, ApiError> {
    app.config()
        .runs
        .clone()
        .ok_or_else(|| ApiError::not_found("the server was started without --runs"))
}

/// Reads a file of at most `max` bytes as text.
fn read_capped(path: &Path, max: u64) -> Result<String, String> {
    let len = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if len > max {
        return Err(format!("{len} bytes, more than the {max} read"));
    }
    std::fs::read_to_string(path).map_err(|e| e.to_string())
}

/// A run's name as the URL gives it: the part of `NAME.metrics.jsonl` before the suffix.
fn run_name(path: Result<UrlPath<String>, PathRejection>) -> Result<String, ApiError> {
    let name = segment(path)?;
    if !plain_file_name(&name) {
        return Err(ApiError::bad(format!("'{name}' is not a run name")));
    }
    Ok(name)
}

/// The metrics lines of a file, checked.
pub(super) fn read_metrics(path: &Path) -> Result<Vec<MetricsLine>, String> {
    let text = read_capped(path, MAX_METRICS_BYTES)?;
    parse_metrics(&text)
}

/// Complete lines only: a line still being written is read next time.
fn parse_metrics(text: &str) -> Result<Vec<MetricsLine>, String> {
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None => "",
    };
    complete
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| serde_json::from_str(line).map_err(|e| format!("line {}: {e}", n + 1)))
        .collect()
}

/// A run's model and the iterations its configuration asks for.
fn run_model(dir: &Path, name: &str) -> (Option<String>, Option<String>, Option<u64>) {
    let file = format!("{name}.bin");
    match crate::io::model::read_header(&dir.join(&file)) {
        Ok(header) => {
            let iterations = TrainConfig::parse_saved(&header.meta.config)
                .ok()
                .map(|c| c.budget.iterations);
            (Some(format!("runs/{file}")), Some(header.game), iterations)
        }
        Err(_) => (None, None, None),
    }
}

/// The learning curve of a run's lines (the evaluations among them).
fn curve(name: &str, lines: &[MetricsLine]) -> String {
    let points: Vec<CurvePoint> = lines
        .iter()
        .filter_map(|l| {
            Some(CurvePoint {
                games: l.games,
                elo: l.elo?,
                low: l.elo_low?,
                high: l.elo_high?,
            })
        })
        .collect();
    let held_out: Vec<(u64, f64)> = lines
        .iter()
        .filter_map(|l| {
            let rate = l.held_out.as_ref()?.optimal_move_rate(heldout::DEPTHS[1])?;
            Some((l.games, rate))
        })
        .collect();
    learning_curve_svg(
        &format!("{name}: Elo against the baseline"),
        &points,
        &held_out,
    )
}

fn run_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(METRICS_SUFFIX).map(str::to_string))
        .filter(|n| plain_file_name(n))
        .collect();
    names.sort();
    names
}

/// `GET /api/runs`: every run with its last line.
pub(super) async fn list(State(app): State<App>) -> Result<Response, ApiError> {
    let dir = runs_dir(&app)?;
    let runs = blocking(move || {
        Ok(run_names(&dir)
            .into_iter()
            .map(|name| {
                let (model, game, iterations) = run_model(&dir, &name);
                let lines = read_metrics(&dir.join(format!("{name}{METRICS_SUFFIX}")));
                let (count, last, error) = match lines {
                    Ok(lines) => (lines.len(), lines.last().cloned(), None),
                    Err(e) => (0, None, Some(e)),
                };
                json!({
                    "name": name,
                    "model": model,
                    "game": game,
                    "iterations": iterations,
                    "lines": count,
                    "last": last,
                    "error": error,
                })
            })
            .collect::<Vec<_>>())
    })
    .await?;
    Ok(axum::Json(json!({ "runs": runs })).into_response())
}

/// `GET /api/runs/NAME`: the run's lines, model and learning curve.
pub(super) async fn detail(
    State(app): State<App>,
    path: Result<UrlPath<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let dir = runs_dir(&app)?;
    let name = run_name(path)?;
    let value = blocking(move || {
        let file = dir.join(format!("{name}{METRICS_SUFFIX}"));
        if !file.is_file() {
            return Err(ApiError::not_found(format!("no run '{name}' in --runs")));
        }
        let lines = read_metrics(&file)
            .map_err(|e| ApiError::bad(format!("{name}{METRICS_SUFFIX}: {e}")))?;
        let (model, game, iterations) = run_model(&dir, &name);
        Ok(json!({
            "name": name,
            "model": model,
            "game": game,
            "iterations": iterations,
            "curve_svg": curve(&name, &lines),
            "lines": lines,
        }))
    })
    .await?;
    Ok(axum::Json(value).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct From {
    /// Lines the client already has.
    from: Option<usize>,
}

/// The file's identity: a rewrite (train writes the file anew each iteration) changes it.
fn stamp(path: &Path) -> Option<(u64, Option<SystemTime>)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()))
}

/// `GET /api/runs/NAME/events?from=K`: server-sent events, `line` for every line after the
/// first K as it is written (with the learning curve redrawn), `reset` if the file
/// starts again shorter.
pub(super) async fn events(
    State(app): State<App>,
    path: Result<UrlPath<String>, PathRejection>,
    from: Result<Query<From>, QueryRejection>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let dir = runs_dir(&app)?;
    let name = run_name(path)?;
    let from = query(from)?.from.unwrap_or(0);
    let file = dir.join(format!("{name}{METRICS_SUFFIX}"));
    if !file.is_file() {
        return Err(ApiError::not_found(format!("no run '{name}' in --runs")));
    }
    let every = app.config().poll_interval;
    struct Follow {
        file: PathBuf,
        name: String,
        sent: usize,
        seen: Option<(u64, Option<SystemTime>)>,
        queue: VecDeque<Event>,
    }
    let follow = Follow {
        file,
        name,
        sent: from,
        seen: None,
        queue: VecDeque::new(),
    };
    let stream = futures_util::stream::unfold(follow, move |mut f| async move {
        loop {
            if let Some(event) = f.queue.pop_front() {
                return Some((Ok(event), f));
            }
            let now = stamp(&f.file);
            if now != f.seen {
                f.seen = now;
                if let Ok(lines) = read_metrics(&f.file) {
                    if lines.len() < f.sent {
                        f.sent = 0;
                        f.queue
                            .push_back(Event::default().event("reset").data("{}"));
                    }
                    if lines.len() > f.sent {
                        let svg = curve(&f.name, &lines);
                        for (n, line) in lines.iter().enumerate().skip(f.sent) {
                            let data = json!({
                                "n": n + 1,
                                "line": line,
                                "curve_svg": if n + 1 == lines.len() { json!(svg) } else { Value::Null },
                            });
                            f.queue
                                .push_back(Event::default().event("line").data(data.to_string()));
                        }
                        f.sent = lines.len();
                    }
                }
                if !f.queue.is_empty() {
                    continue;
                }
            }
            tokio::time::sleep(every).await;
        }
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// `GET /api/files`: the game files (`.pdn`, `.klh`) in `--runs`, a few folders deep.
pub(super) async fn files(State(app): State<App>) -> Result<Response, ApiError> {
    let dir = runs_dir(&app)?;
    let games = app.games().clone();
    let found = blocking(move || {
        let mut found = Vec::new();
        collect_files(&games, &dir, &dir, 0, &mut found);
        found.sort_by(|a: &Value, b: &Value| a["path"].as_str().cmp(&b["path"].as_str()));
        Ok(found)
    })
    .await?;
    Ok(axum::Json(json!({ "files": found })).into_response())
}

fn collect_files(games: &Games, root: &Path, dir: &Path, depth: usize, found: &mut Vec<Value>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if found.len() >= MAX_FILES {
            return;
        }
        let path = entry.path();
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !plain_file_name(&name) {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && depth + 1 < MAX_FILE_DEPTH {
            collect_files(games, root, &path, depth + 1, found);
        } else if kind.is_file()
            && let Some(game) = game_of_name(games, &name)
            && let Ok(relative) = path.strip_prefix(root)
        {
            let bytes = entry.metadata().map_or(0, |m| m.len());
            found.push(json!({
                "path": relative.to_string_lossy(),
                "game": game,
                "bytes": bytes,
            }));
        }
    }
}

/// The game a file's extension says (`.pdn` draughts, `.klh` Kalah: each game's
/// [`GameFile::FILE_EXTENSION`](crate::game::GameFile::FILE_EXTENSION)).
fn game_of_name(games: &Games, name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    games
        .list()
        .iter()
        .find(|g| lower.ends_with(&format!(".{}", g.extension())))
        .map(|g| g.name())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ReplayQuery {
    /// A file inside `--runs` (GET).
    path: Option<String>,
    /// The uploaded file's name (POST): its extension tells the game.
    name: Option<String>,
    /// The game, when no name tells it: `brazilian`, `kalah`.
    game: Option<String>,
}

/// `GET /api/replay?path=REL`: the games of a file inside `--runs`.
pub(super) async fn replay_file(
    State(app): State<App>,
    params: Result<Query<ReplayQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let params = query(params)?;
    let relative = params
        .path
        .ok_or_else(|| ApiError::bad("give the file: ?path=FILE inside --runs"))?;
    let dir = runs_dir(&app)?;
    let games = app.games().clone();
    let value = blocking(move || {
        let path = inside(&dir, &relative)?;
        let text = read_capped(&path, MAX_REPLAY_BYTES)
            .map_err(|e| ApiError::bad(format!("{relative}: {e}")))?;
        let family = params
            .game
            .clone()
            .or_else(|| game_of_name(&games, &relative).map(str::to_string));
        replay_text(&games, family.as_deref(), &text)
            .map_err(|e| ApiError::bad(format!("{relative}: {e}")))
    })
    .await?;
    Ok(axum::Json(value).into_response())
}

/// `POST /api/replay?name=FILE`: the games of an uploaded file (at most 1 MiB).
pub(super) async fn replay_upload(
    State(app): State<App>,
    params: Result<Query<ReplayQuery>, QueryRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let params = query(params)?;
    let bytes = body_bytes(body, MAX_UPLOAD_BYTES)?;
    let text = String::from_utf8(bytes.to_vec())
        .map_err(|e| ApiError::bad(format!("the file is not UTF-8 text: {e}")))?;
    let games = app.games().clone();
    let family = params.game.or_else(|| {
        params
            .name
            .as_deref()
            .and_then(|name| game_of_name(&games, name))
            .map(str::to_string)
    });
    let value =
        blocking(move || replay_text(&games, family.as_deref(), &text).map_err(ApiError::bad))
            .await?;
    Ok(axum::Json(value).into_response())
}

/// The games of a game file's text: `family` (`brazilian`, `kalah`, or a variant) or,
/// absent, the file's `Game` tag decides; the default game's files without one.
fn replay_text(games: &Games, family: Option<&str>, text: &str) -> Result<Value, String> {
    let tagged = game_tag(text);
    let spec = match (family, tagged) {
        // A Kalah file names its variant in its Game tag.
        (Some(f), Some(tag)) if f.split(':').next() == tag.split(':').next() => games.parse(tag)?,
        (Some(f), _) => games.parse(f)?,
        (None, Some(tag)) => games.parse(tag)?,
        (None, None) => games.default_game(),
    };
    games.handle(&spec).replay(&spec, text)
}

/// The value of the first `[Game "…"]` tag.
fn game_tag(text: &str) -> Option<&str> {
    text.lines()
        .take(200)
        .find_map(|line| line.trim().strip_prefix("[Game \"")?.strip_suffix("\"]"))
}

pub(super) fn replay_games<G: WebGame>(variant: G::Variant, text: &str) -> Result<Value, String> {
    let games = G::read_games(variant, text)?;
    if games.is_empty() {
        return Err("no game in the file".to_string());
    }
    let plies: usize = games.iter().map(|g| g.moves.len() + 1).sum();
    if plies > MAX_REPLAY_PLIES {
        return Err(format!(
            "{plies} positions, more than the {MAX_REPLAY_PLIES} replayed at once"
        ));
    }
    let games: Vec<Value> = games
        .iter()
        .map(|game| {
            let record = game.record();
            let positions = record.positions();
            let steps: Vec<Value> = positions
                .iter()
                .enumerate()
                .map(|(ply, pos)| {
                    let before = ply
                        .checked_sub(1)
                        .map(|p| (positions[p], record.moves()[p]));
                    json!({
                        "position": pos.format_position(),
                        "to_move": side_key(pos.side_to_move()),
                        "board": pos.board(),
                        "move": before.map(|(b, mv)| b.format_move(mv)),
                        "last_move": before.map(|(b, mv)| b.move_detail(mv)),
                    })
                })
                .collect();
            json!({
                "tags": game.tags,
                "result": match game.result {
                    Some(Outcome::Win(side)) => json!(format!("{} wins", G::side_name(side))),
                    Some(Outcome::Draw) => json!("draw"),
                    None => Value::Null,
                },
                "positions": steps,
            })
        })
        .collect();
    Ok(json!({
        "game": G::NAME,
        "variant": G::variant_name(variant),
        "names": [G::side_name(crate::game::Side::First), G::side_name(crate::game::Side::Second)],
        "games": games,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_and_paths_inside_the_folder_are_read() {
        for good in ["demo", "glem.bin", "a b.pdn", "x-1_2.metrics.jsonl"] {
            assert!(plain_file_name(good), "{good}");
        }
        for bad in [
            "",
            ".hidden",
            "a/b",
            "..",
            "a\\b",
            "c:x",
            "a\nb",
            &"x".repeat(256),
        ] {
            assert!(!plain_file_name(bad), "{bad:?}");
        }
        let dir = std::env::temp_dir().join(format!("evalearn-web-inside-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("games")).unwrap();
        std::fs::write(dir.join("games/a.pdn"), "").unwrap();
        assert!(inside(&dir, "games/a.pdn").is_ok());
        for (bad, words) in [
            ("../a.pdn", "'..'"),
            ("games/../../a.pdn", "'..'"),
            ("./games/a.pdn", "'..'"),
            ("/etc/passwd", "absolute"),
            ("games\\a.pdn", "backslash"),
            ("", "empty"),
        ] {
            let err = inside(&dir, bad).unwrap_err();
            assert!(err.message().contains(words), "{bad}: {}", err.message());
        }
        assert!(inside(&dir, "games/none.pdn").is_err());
        assert!(inside(&dir, "games").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_line_being_written_is_read_next_time() {
        let line = r#"{"iteration":1,"games":10,"positions":100,"loss_before":0.5,"loss":0.25,"eval_games":null,"score":null,"elo":null,"elo_low":null,"elo_high":null,"elapsed_s":1.0,"detail":""}"#;
        assert_eq!(parse_metrics(&format!("{line}\n")).unwrap().len(), 1);
        assert_eq!(
            parse_metrics(&format!("{line}\n{}", &line[..20]))
                .unwrap()
                .len(),
            1
        );
        assert!(parse_metrics("{}\n").unwrap_err().starts_with("line 1:"));
    }

    #[test]
    fn the_game_of_a_file_comes_from_its_name_or_its_tag() {
        let games = crate::games::registry::web_games();
        assert_eq!(game_of_name(&games, "x.PDN"), Some("brazilian"));
        assert_eq!(game_of_name(&games, "x.klh"), Some("kalah"));
        assert_eq!(game_of_name(&games, "x.txt"), None);
        let klh = "[Game \"kalah:6:4\"]\n 1) A: 1\n";
        let replay = replay_text(&games, None, klh).unwrap();
        assert_eq!(replay["variant"], json!("kalah:6:4"));
        assert!(replay_text(&games, Some("chess"), klh).is_err());
    }
}
