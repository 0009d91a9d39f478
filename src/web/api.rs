//! The routes: the embedded page, and the JSON API under `/api/` (documented in
//! docs/web.md). Every error is a JSON object `{"error": "…"}` with a 4xx status naming
//! what was wrong; bodies are read whole but capped first.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::stream::Stream;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::live::{self, Level, NewGame, Played};
use super::table::Snapshot;
use super::{App, MAX_BODY_BYTES, MAX_UPLOAD_BYTES, assets, models, runs};

/// A refused request: its status and what was wrong.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// 400: malformed or impossible input.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    /// 409: not now (the engine is thinking, it is the engine's move).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }

    /// 429: the server is at its bound of live games.
    fn too_many(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::TOO_MANY_REQUESTS, message)
    }

    #[cfg(test)]
    pub fn message(&self) -> &str {
        &self.message
    }

    fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(json!({ "error": self.message }))).into_response()
    }
}

type ApiResult = Result<Response, ApiError>;

/// The app's routes.
pub fn router(app: App) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/{name}", get(assets::asset))
        .route("/api/info", get(info))
        .route("/api/models", get(models))
        .route("/api/games", get(list_games).post(create_game))
        .route("/api/games/{id}", get(game_state).delete(delete_game))
        .route("/api/games/{id}/events", get(game_events))
        .route("/api/games/{id}/move", post(play_move))
        .route("/api/games/{id}/go", post(go))
        .route("/api/games/{id}/stop", post(stop))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/settings", post(settings))
        .route("/api/games/{id}/record", get(record))
        .route("/api/runs", get(runs::list))
        .route("/api/runs/{name}", get(runs::detail))
        .route("/api/runs/{name}/events", get(runs::events))
        .route("/api/files", get(runs::files))
        .route(
            "/api/replay",
            get(runs::replay_file)
                .post(runs::replay_upload)
                .layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)),
        )
        .fallback(assets::not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(app)
}

/// A JSON body of type `T`; an empty body reads as `{}`.
pub(super) fn json_body<T: DeserializeOwned>(
    body: Result<Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    let bytes = body_bytes(body, MAX_BODY_BYTES)?;
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        &bytes
    };
    serde_json::from_slice(bytes).map_err(|e| ApiError::bad(format!("malformed JSON body: {e}")))
}

/// The body, or why it could not be read (too large: 413).
pub(super) fn body_bytes(
    body: Result<Bytes, BytesRejection>,
    limit: usize,
) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("request body is larger than {limit} bytes"),
            )
        } else {
            ApiError::bad(format!("cannot read the body: {}", rejection.body_text()))
        }
    })
}

/// A query string of type `T`.
pub(super) fn query<T>(query: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    query
        .map(|Query(q)| q)
        .map_err(|e| ApiError::bad(format!("malformed query: {}", e.body_text())))
}

/// A path segment as text.
pub(super) fn segment(path: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    path.map(|Path(s)| s)
        .map_err(|e| ApiError::bad(format!("malformed path: {}", e.body_text())))
}

fn game_id(path: Result<Path<String>, PathRejection>) -> Result<u64, ApiError> {
    let text = segment(path)?;
    text.parse::<u64>()
        .map_err(|_| ApiError::bad(format!("'{text}' is not a game id (a number)")))
}

fn unknown_game(id: u64) -> ApiError {
    ApiError::not_found(format!(
        "no game {id}: it ended, was dropped after being idle, or never existed"
    ))
}

/// Runs `f` on the slot of game `id`, marked as seen now.
fn with_slot<T>(
    app: &App,
    id: u64,
    f: impl FnOnce(&mut super::table::Slot) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    let now = app.now();
    let mut table = app.table();
    let slot = table.touch(id, now).ok_or_else(|| unknown_game(id))?;
    f(slot)
}

fn json_response(status: StatusCode, snapshot: &Snapshot) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        snapshot.json.to_string(),
    )
        .into_response()
}

/// Runs `work` on a blocking thread (file reads, model loads, table allocation).
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(ApiError::internal(format!("the work failed: {e}"))))
}

async fn info(State(app): State<App>) -> Response {
    let config = app.config();
    let games: Vec<Value> = app.games().list().iter().map(|g| g.info()).collect();
    axum::Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "games": games,
        "models_folder": config.models.is_some(),
        "runs_folder": config.runs.is_some(),
        "limits": {
            "max_games": config.max_games,
            "max_depth": config.max_depth,
            "max_movetime_ms": config.max_movetime.as_millis() as u64,
            "idle_timeout_s": config.idle_timeout.as_secs(),
        },
    }))
    .into_response()
}

async fn models(State(app): State<App>) -> ApiResult {
    let config = app.config().clone();
    let games = app.games().clone();
    let now = app.wall_time();
    let reply = blocking(move || Ok(models::models_reply(&games, &config, now))).await?;
    Ok(axum::Json(reply).into_response())
}

async fn list_games(State(app): State<App>) -> Response {
    let games: Vec<Value> = app
        .table()
        .list()
        .into_iter()
        .map(|(id, snapshot)| {
            let state: Value = serde_json::from_str(&snapshot.json).unwrap_or(Value::Null);
            json!({
                "id": id.to_string(),
                "variant": state["variant"],
                "plies": state["moves"].as_array().map_or(0, Vec::len),
                "thinking": state["thinking"],
            })
        })
        .collect();
    axum::Json(json!({ "games": games })).into_response()
}

async fn create_game(State(app): State<App>, body: Result<Bytes, BytesRejection>) -> ApiResult {
    let request: NewGame = json_body(body)?;
    let now = app.now();
    app.drop_idle_games();
    let max = app.config().max_games;
    if app.live_games() >= max {
        return Err(full(max));
    }
    let config = app.config().clone();
    let games = app.games().clone();
    let game = blocking(move || {
        let model = match &request.model {
            Some(name) => {
                let path = live::model_path(&config, name)?;
                let header = live::model_header(&path)?;
                Some((name.clone(), path, header))
            }
            None => None,
        };
        let spec = live::resolve_game(&games, &request, model.as_ref().map(|(_, _, h)| h))?;
        let model = model.map(|(name, path, _)| (name, path));
        games
            .handle(&spec)
            .new_game(&spec, &request, model, &config)
    })
    .await?;
    let inserted = app.table().insert(game, now, max);
    match inserted {
        Some((_, snapshot)) => Ok(json_response(StatusCode::CREATED, &snapshot)),
        None => Err(full(max)),
    }
}

fn full(max: usize) -> ApiError {
    ApiError::too_many(format!(
        "{max} games are live, the most this server plays at once: finish one (DELETE \
         /api/games/ID) or wait until an idle one is dropped"
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Since {
    /// Answer once the game's version is past this (or after a while anyway).
    since: Option<u64>,
}

/// Longest wait of `GET /api/games/ID?since=V`.
const LONG_POLL: Duration = Duration::from_secs(20);

async fn game_state(
    State(app): State<App>,
    path: Result<Path<String>, PathRejection>,
    since: Result<Query<Since>, QueryRejection>,
) -> ApiResult {
    let id = game_id(path)?;
    let since = query(since)?.since;
    let now = app.now();
    let mut receiver = {
        let mut table = app.table();
        let slot = table.touch(id, now).ok_or_else(|| unknown_game(id))?;
        match since {
            Some(v) if slot.current().version <= v => slot.subscribe(),
            _ => return Ok(json_response(StatusCode::OK, &slot.current())),
        }
    };
    let since = since.unwrap_or(0);
    let waited = tokio::time::timeout(LONG_POLL, async {
        receiver
            .wait_for(|s| s.version > since)
            .await
            .map(|snapshot| snapshot.clone())
    })
    .await;
    match waited {
        Ok(Ok(snapshot)) => Ok(json_response(StatusCode::OK, &snapshot)),
        // Timed out: the state as it is.
        Err(_) => {
            let snapshot = receiver.borrow().clone();
            Ok(json_response(StatusCode::OK, &snapshot))
        }
        Ok(Err(_)) => Err(unknown_game(id)),
    }
}

async fn delete_game(
    State(app): State<App>,
    path: Result<Path<String>, PathRejection>,
) -> ApiResult {
    let id = game_id(path)?;
    if app.table().remove(id) {
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(unknown_game(id))
    }
}

/// Keeps a game watched while an event stream is open.
struct Watching {
    app: App,
    id: u64,
}

impl Drop for Watching {
    fn drop(&mut self) {
        let now = self.app.now();
        if let Some(slot) = self.app.table().touch(self.id, now) {
            slot.watchers = slot.watchers.saturating_sub(1);
        }
    }
}

/// Server-sent events: `state` with the game's state now and after every change (the
/// engine's iterations included), until the game is dropped.
async fn game_events(
    State(app): State<App>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let id = game_id(path)?;
    let now = app.now();
    let receiver = {
        let mut table = app.table();
        let slot = table.touch(id, now).ok_or_else(|| unknown_game(id))?;
        slot.watchers += 1;
        slot.subscribe()
    };
    let watching = Watching { app, id };
    let stream = futures_util::stream::unfold(
        (receiver, watching, true),
        |(mut receiver, watching, first)| async move {
            if !first && receiver.changed().await.is_err() {
                return None;
            }
            let snapshot = receiver.borrow_and_update().clone();
            let event = Event::default().event("state").data(&*snapshot.json);
            Some((Ok(event), (receiver, watching, false)))
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    /// The move in the game's notation (`22-17`, `26x17`, `c3-d4`; Kalah `1,2` or the
    /// first sowings of a turn that goes on).
    #[serde(rename = "move")]
    text: String,
}

async fn play_move(
    State(app): State<App>,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let id = game_id(path)?;
    let request: MoveRequest = json_body(body)?;
    with_slot(&app, id, |slot| {
        if slot.search.is_some() {
            return Err(ApiError::conflict(
                "the engine is thinking: stop it first (POST /api/games/ID/stop)",
            ));
        }
        match slot.game.play(&request.text)? {
            Played::Moved => Ok(json_response(StatusCode::OK, &slot.publish(id))),
            Played::Partial(partial) => {
                Ok(axum::Json(json!({ "id": id.to_string(), "partial": partial })).into_response())
            }
        }
    })
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct GoRequest {
    /// Search for a hint instead of playing.
    #[serde(default)]
    hint: bool,
}

/// Starts the engine on the current position (a move, or a hint); answers at once
/// (202) while the search runs on a blocking thread.
async fn go(
    State(app): State<App>,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let id = game_id(path)?;
    let request: GoRequest = json_body(body)?;
    let now = app.now();
    let stop = Arc::new(AtomicBool::new(false));
    let (job, snapshot) = {
        let mut table = app.table();
        let slot = table.touch(id, now).ok_or_else(|| unknown_game(id))?;
        if slot.search.is_some() {
            return Err(ApiError::conflict("the engine is already thinking"));
        }
        let job = slot
            .game
            .begin_search(request.hint, app.config(), stop.clone())?;
        slot.search = Some(super::table::Running {
            stop,
            hint: request.hint,
            info: None,
        });
        (job, slot.publish(id))
    };
    let searching = app.clone();
    tokio::task::spawn_blocking(move || {
        let reporter = searching.clone();
        let finish = job(&mut |info| {
            if let Some(slot) = reporter.table().get_mut(id) {
                if let Some(search) = &mut slot.search {
                    search.info = Some(info);
                }
                slot.publish(id);
            }
        });
        // The game may have been dropped meanwhile: then the result goes with it.
        if let Some(slot) = searching.table().get_mut(id) {
            finish(slot.game.as_mut());
            slot.search = None;
            slot.publish(id);
        }
    });
    Ok(json_response(StatusCode::ACCEPTED, &snapshot))
}

/// Stops the engine's search: it plays (or hints) the best move found so far.
async fn stop(State(app): State<App>, path: Result<Path<String>, PathRejection>) -> ApiResult {
    let id = game_id(path)?;
    let now = app.now();
    let mut table = app.table();
    let slot = table.touch(id, now).ok_or_else(|| unknown_game(id))?;
    if let Some(search) = &slot.search {
        search
            .stop
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(json_response(StatusCode::OK, &slot.current()))
}

async fn undo(State(app): State<App>, path: Result<Path<String>, PathRejection>) -> ApiResult {
    let id = game_id(path)?;
    with_slot(&app, id, |slot| {
        if slot.search.is_some() {
            return Err(ApiError::conflict("the engine is thinking: stop it first"));
        }
        slot.game.undo()?;
        Ok(json_response(StatusCode::OK, &slot.publish(id)))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsRequest {
    human: Option<String>,
    level: Option<Level>,
}

/// Changes who the person plays and the engine's level, for the engine's next search.
async fn settings(
    State(app): State<App>,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let id = game_id(path)?;
    let request: SettingsRequest = json_body(body)?;
    let human = request
        .human
        .as_deref()
        .map(live::parse_human)
        .transpose()?;
    let level = request
        .level
        .map(|level| level.checked(app.config()))
        .transpose()?;
    with_slot(&app, id, |slot| {
        if let Some(human) = human {
            slot.game.set_human(human);
        }
        if let Some(level) = level {
            slot.game.set_level(level);
        }
        Ok(json_response(StatusCode::OK, &slot.publish(id)))
    })
}

/// The game as a file (PDN, `.klh`) to download.
async fn record(State(app): State<App>, path: Result<Path<String>, PathRejection>) -> ApiResult {
    let id = game_id(path)?;
    let (name, text) = with_slot(&app, id, |slot| Ok(slot.game.record_file(id)))?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        text,
    )
        .into_response())
}

/// The page's address for an API path that is no route.
pub(super) fn no_route(uri: &Uri) -> ApiError {
    ApiError::not_found(format!("no API route {}", uri.path()))
}
