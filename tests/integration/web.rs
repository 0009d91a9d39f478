//! `evalearn serve`'s JSON API over loopback: games (moves, the engine's replies, undo,
//! FEN, Kalah's compound moves), every kind of refusal, bounded and abandoned games on a
//! simulated clock, hot reload of a model, the training runs with live metrics, replay,
//! and random requests that must never get a 5xx. Engine searches are depth-limited (or
//! stopped), never timed.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use evalearn::eval::EvalGame;
use evalearn::game::{Game, GameFile};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::kalah::Kalah;
use evalearn::search::time::SimulatedClock;
use evalearn::web::{App, Config, Server};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::{assert_input_error, evalearn, linear_header, save_linear, temp_dir};
use crate::web_http::{Client, Events, PATIENCE, raw};

/// A server on a free loopback port with a simulated clock, `models/` and `runs/`
/// folders in a fresh temporary folder.
pub struct TestServer {
    pub server: Server,
    pub app: App,
    pub clock: Arc<SimulatedClock>,
    pub dir: PathBuf,
}

impl TestServer {
    pub fn start(name: &str, tune: impl FnOnce(&mut Config)) -> TestServer {
        let dir = temp_dir(&format!("web-{name}"));
        std::fs::create_dir_all(dir.join("models")).unwrap();
        std::fs::create_dir_all(dir.join("runs")).unwrap();
        let mut config = Config {
            models: Some(dir.join("models")),
            runs: Some(dir.join("runs")),
            tt_mib: 1,
            poll_interval: Duration::from_millis(20),
            ..Config::default()
        };
        tune(&mut config);
        let clock = Arc::new(SimulatedClock::new());
        let app = App::new(
            evalearn::games::registry::web_games(),
            config,
            clock.clone(),
        );
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let server = Server::start(app.clone(), listener).unwrap();
        TestServer {
            server,
            app,
            clock,
            dir,
        }
    }

    pub fn client(&self) -> Client {
        Client::new(self.server.addr())
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn new_game(client: &mut Client, request: Value) -> Value {
    let reply = client.post("/api/games", &request.to_string());
    assert_eq!(reply.status, 201, "{}", reply.text());
    reply.json()
}

fn id(state: &Value) -> String {
    state["id"].as_str().unwrap().to_string()
}

fn texts(state: &Value) -> Vec<String> {
    state["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect()
}

/// Long-polls the game until `done` holds (a failure after the patience runs out).
fn wait_until(client: &mut Client, game: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + PATIENCE;
    let mut version = 0;
    loop {
        let reply = client.get(&format!("/api/games/{game}?since={version}"));
        assert_eq!(reply.status, 200, "{}", reply.text());
        let state = reply.json();
        if done(&state) {
            return state;
        }
        assert!(
            Instant::now() < deadline,
            "the game never got there: {state}"
        );
        version = state["version"].as_u64().unwrap();
    }
}

/// The engine moves and the game waits for the person again.
fn engine_reply(client: &mut Client, game: &str, plies: usize) -> Value {
    let reply = client.post(&format!("/api/games/{game}/go"), "{}");
    assert_eq!(reply.status, 202, "{}", reply.text());
    wait_until(client, game, |s| {
        s["thinking"] == json!(false) && s["moves"].as_array().unwrap().len() == plies
    })
}

#[test]
fn a_draughts_game_moves_replies_undoes_and_downloads() {
    let server = TestServer::start("draughts", |_| {});
    let mut client = server.client();
    let state = new_game(&mut client, json!({ "level": { "depth": 2 } }));
    let game = id(&state);
    assert_eq!(
        state["position"],
        json!(Brazilian::start().format_position())
    );
    assert_eq!(state["to_move"], json!("first"));
    assert_eq!(state["thinking"], json!(false));
    let legal = state["legal"].as_array().unwrap();
    assert_eq!(legal.len(), 7);
    let from_22: Vec<&Value> = legal.iter().filter(|m| m["from"] == json!(22)).collect();
    assert_eq!(from_22.len(), 2);
    assert_eq!(state["board"]["pieces"][21], json!("w"));
    assert_eq!(state["board"]["pieces"][0], json!("b"));

    let moved = client.post(&format!("/api/games/{game}/move"), r#"{"move":"22-18"}"#);
    assert_eq!(moved.status, 200, "{}", moved.text());
    let moved = moved.json();
    assert_eq!(texts(&moved), ["22-18"]);
    assert_eq!(moved["last_move"]["from"], json!(22));
    assert_eq!(moved["last_move"]["to"], json!(18));
    // Black's turn belongs to the engine.
    let early = client.post(&format!("/api/games/{game}/move"), r#"{"move":"9-13"}"#);
    assert_eq!(early.status, 409, "{}", early.text());
    assert!(early.error().contains("engine's move"), "{}", early.error());

    let replied = engine_reply(&mut client, &game, 2);
    let search = &replied["last_search"];
    assert_eq!(search["depth"], json!(2));
    assert!(
        search["score_text"].as_str().unwrap().ends_with("men"),
        "{search}"
    );
    let after = Brazilian::start().play(Brazilian::start().parse_move("22-18").unwrap());
    let reply_move = after.parse_move(search["move"].as_str().unwrap()).unwrap();
    assert_eq!(
        replied["position"],
        json!(after.play(reply_move).format_position())
    );

    let download = client.get(&format!("/api/games/{game}/record"));
    assert_eq!(download.status, 200);
    assert!(
        download
            .header("content-disposition")
            .unwrap()
            .contains(".pdn")
    );
    let games = Brazilian::read_games((), &download.text()).unwrap();
    assert_eq!(games[0].moves.len(), 2);
    assert_eq!(games[0].tag("White"), Some("human"));

    let undone = client.post(&format!("/api/games/{game}/undo"), "");
    assert_eq!(undone.status, 200, "{}", undone.text());
    let undone = undone.json();
    assert!(texts(&undone).is_empty());
    assert_eq!(
        undone["position"],
        json!(Brazilian::start().format_position())
    );
    let nothing = client.post(&format!("/api/games/{game}/undo"), "");
    assert_eq!(nothing.status, 400);
    assert!(nothing.error().contains("nothing to take back"));

    // A hint does not play.
    let hint = client.post(&format!("/api/games/{game}/go"), r#"{"hint":true}"#);
    assert_eq!(hint.status, 202, "{}", hint.text());
    let hinted = wait_until(&mut client, &game, |s| {
        s["thinking"] == json!(false) && !s["hint"].is_null()
    });
    assert!(texts(&hinted).is_empty());
    assert!(
        Brazilian::start()
            .parse_move(hinted["hint"]["move"].as_str().unwrap())
            .is_ok()
    );
}

#[test]
fn a_game_from_a_fen_offers_every_capture_path() {
    let server = TestServer::start("fen", |_| {});
    let mut client = server.client();
    // A white king on 29 takes 25, 18 and 11, then lands on 8 or 4 (two moves sharing
    // the start square and the captured pieces).
    let fen = "W:WK29:B25,18,11,1";
    let state = new_game(&mut client, json!({ "position": fen, "human": "both" }));
    let normal = Brazilian::parse_position(fen).unwrap().format_position();
    assert_eq!(state["position"], json!(normal));
    assert_eq!(state["board"]["pieces"][28], json!("W"));
    let legal = state["legal"].as_array().unwrap();
    assert_eq!(legal.len(), 2, "{legal:?}");
    for mv in legal {
        assert_eq!(mv["captured"], json!([11, 18, 25]));
        let path = mv["paths"][0].as_array().unwrap();
        assert_eq!(path.len(), 3);
        assert_eq!(path.last(), Some(&mv["to"]));
    }
    let game = id(&state);
    let played = client.post(&format!("/api/games/{game}/move"), r#"{"move":"29x4"}"#);
    assert_eq!(played.status, 200, "{}", played.text());
    assert_eq!(played.json()["position"], json!("B:WK4:B1"));
    // Two captures sharing both ends, told apart by the pieces they take and their
    // landing squares.
    let state = new_game(
        &mut client,
        json!({ "position": "W:WK13:B7,9,10,26", "human": "both" }),
    );
    let legal = state["legal"].as_array().unwrap();
    let to_30: Vec<&Value> = legal.iter().filter(|m| m["to"] == json!(30)).collect();
    assert_eq!(to_30.len(), 2, "{legal:?}");
    assert_ne!(to_30[0]["captured"], to_30[1]["captured"]);
    assert_ne!(to_30[0]["text"], to_30[1]["text"]);
    // A quiet move is refused when a capture exists.
    let state = new_game(
        &mut client,
        json!({ "position": "W:W27,32:B23,14,1", "human": "both" }),
    );
    let refused = client.post(
        &format!("/api/games/{}/move", id(&state)),
        r#"{"move":"32-28"}"#,
    );
    assert_eq!(refused.status, 400);
    assert!(
        refused.error().contains("a capture is compulsory: 27x9"),
        "{}",
        refused.error()
    );
}

#[test]
fn a_kalah_turn_is_entered_sowing_by_sowing() {
    let server = TestServer::start("kalah", |_| {});
    let mut client = server.client();
    let state = new_game(&mut client, json!({ "game": "kalah", "human": "both" }));
    let game = id(&state);
    assert_eq!(state["legal"], json!([1, 2, 3, 4, 5, 6]));
    assert_eq!(state["board"]["pits"][0], json!([6, 6, 6, 6, 6, 6]));
    assert_eq!(state["score_unit"], json!("stones"));

    // Pit 1 ends in the store: the turn goes on and nothing is played yet.
    let partial = client.post(&format!("/api/games/{game}/move"), r#"{"move":"1"}"#);
    assert_eq!(partial.status, 200, "{}", partial.text());
    let partial = partial.json();
    assert_eq!(partial["partial"]["text"], json!("1"));
    assert_eq!(partial["partial"]["board"]["stores"], json!([1, 0]));
    assert_eq!(partial["partial"]["legal"], json!([2, 3, 4, 5, 6]));
    let unchanged = client.get(&format!("/api/games/{game}")).json();
    assert!(texts(&unchanged).is_empty());

    let whole = client.post(&format!("/api/games/{game}/move"), r#"{"move":"1,2"}"#);
    assert_eq!(whole.status, 200, "{}", whole.text());
    let whole = whole.json();
    let start = Kalah::start();
    let expected = start.play(start.parse_move("1,2").unwrap());
    assert_eq!(whole["position"], json!(expected.format_position()));
    let steps = whole["last_move"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["pit"], json!(1));
    assert_eq!(steps[1]["board"], whole["board"]);

    let empty = client.post(&format!("/api/games/{game}/move"), r#"{"move":"9"}"#);
    assert_eq!(empty.status, 400);
    assert!(!empty.error().is_empty());
    // The engine plays B, with the stones unit.
    let settings = client.post(
        &format!("/api/games/{game}/settings"),
        r#"{"human":"a","level":{"depth":3}}"#,
    );
    assert_eq!(settings.status, 200, "{}", settings.text());
    let replied = engine_reply(&mut client, &game, 2);
    assert!(
        replied["last_search"]["score_text"]
            .as_str()
            .unwrap()
            .contains("stones")
            || replied["last_search"]["score_text"]
                .as_str()
                .unwrap()
                .contains(" in ")
    );
    let download = client.get(&format!("/api/games/{game}/record"));
    let games = Kalah::read_games(Default::default(), &download.text()).unwrap();
    assert_eq!(games[0].moves.len(), 2);
}

#[test]
fn refusals_are_4xx_with_a_message_naming_the_problem() {
    let server = TestServer::start("refusals", |_| {});
    let mut client = server.client();
    let cases: [(&str, &str, Option<&str>, u16, &str); 14] = [
        (
            "POST",
            "/api/games",
            Some("{bad json"),
            400,
            "malformed JSON",
        ),
        (
            "POST",
            "/api/games",
            Some(r#"{"colour":"white"}"#),
            400,
            "unknown field",
        ),
        (
            "POST",
            "/api/games",
            Some(r#"{"game":"chess"}"#),
            400,
            "unknown game",
        ),
        (
            "POST",
            "/api/games",
            Some(r#"{"position":"W:W99"}"#),
            400,
            "position",
        ),
        (
            "POST",
            "/api/games",
            Some(r#"{"level":{"depth":0}}"#),
            400,
            "level.depth",
        ),
        (
            "POST",
            "/api/games",
            Some(r#"{"level":{"depth":3,"nodes":5}}"#),
            400,
            "exactly one",
        ),
        (
            "POST",
            "/api/games",
            Some(r#"{"human":"martian"}"#),
            400,
            "human",
        ),
        (
            "POST",
            "/api/games",
            Some(r#"{"eval":"stores","game":"brazilian"}"#),
            400,
            "kalah",
        ),
        (
            "POST",
            "/api/games",
            Some(r#"{"model":"../secret.bin"}"#),
            400,
            "folder",
        ),
        (
            "POST",
            "/api/games",
            Some(r#"{"model":"models/../x.bin"}"#),
            400,
            "plain file name",
        ),
        ("GET", "/api/games/12345", None, 404, "no game 12345"),
        ("GET", "/api/games/abc", None, 400, "not a game id"),
        ("GET", "/api/nothing", None, 404, "no API route"),
        (
            "GET",
            "/api/replay?path=../../etc/passwd",
            None,
            400,
            "refused",
        ),
    ];
    for (method, path, body, status, words) in cases {
        let reply = client.send(method, path, body).unwrap();
        assert_eq!(reply.status, status, "{method} {path}: {}", reply.text());
        assert!(
            reply.error().contains(words),
            "{method} {path}: '{}' should mention '{words}'",
            reply.error()
        );
    }
    let state = new_game(&mut client, json!({}));
    let game = id(&state);
    for (body, words) in [
        (r#"{"move":"22-15"}"#, "not legal"),
        (r#"{"move":"hello"}"#, "move"),
        (r#"{"mv":"22-18"}"#, "unknown field"),
        (r#"{"move":7}"#, "invalid type"),
    ] {
        let reply = client.post(&format!("/api/games/{game}/move"), body);
        assert_eq!(reply.status, 400, "{body}: {}", reply.text());
        assert!(reply.error().contains(words), "{body}: {}", reply.error());
    }
    // Oversize bodies: 64 KiB for requests, 1 MiB for uploads.
    let big = format!(r#"{{"move":"{}"}}"#, "x".repeat(70_000));
    let reply = client.post(&format!("/api/games/{game}/move"), &big);
    assert_eq!(reply.status, 413);
    assert!(reply.error().contains("65536"), "{}", reply.error());
    let huge = "1. 22-18 9-13 ".repeat(80_000);
    let reply = client.post("/api/replay?name=big.pdn", &huge);
    assert_eq!(reply.status, 413, "{}", reply.text());
    // Paths leaving the served files, sent as they are.
    for path in [
        "/../../etc/passwd",
        "/assets/../../Cargo.toml",
        "/assets/..%2f..%2fCargo.toml",
        "/assets/%2e%2e/Cargo.toml",
        "/api/runs/..%2fsecret",
    ] {
        let reply = client.get(path);
        assert!(
            matches!(reply.status, 400 | 404),
            "{path}: {}",
            reply.text()
        );
        assert!(!reply.text().contains("[package]"), "{path}");
    }
    assert_eq!(client.get("/assets/app.js").status, 200);
    assert_eq!(client.get("/assets/nothing.js").status, 404);
}

#[test]
fn games_are_bounded_and_abandoned_ones_dropped_on_the_simulated_clock() {
    let server = TestServer::start("bounded", |c| {
        c.max_games = 2;
        c.idle_timeout = Duration::from_secs(600);
    });
    let mut client = server.client();
    let first = new_game(&mut client, json!({}));
    let second = new_game(&mut client, json!({}));
    let third = client.post("/api/games", "{}");
    assert_eq!(third.status, 429, "{}", third.text());
    assert!(
        third.error().contains("2 games are live"),
        "{}",
        third.error()
    );

    // The first is watched by a page: never idle. The second is looked at later.
    let mut events = Events::open(
        server.server.addr(),
        &format!("/api/games/{}/events", id(&first)),
    );
    let initial = events.next();
    assert_eq!(initial.name, "state");
    server.clock.advance(Duration::from_secs(400));
    assert_eq!(
        client.get(&format!("/api/games/{}", id(&second))).status,
        200
    );
    server.clock.advance(Duration::from_secs(400));
    assert_eq!(server.app.drop_idle_games(), 0);
    server.clock.advance(Duration::from_secs(201));
    assert_eq!(server.app.drop_idle_games(), 1);
    assert_eq!(
        client.get(&format!("/api/games/{}", id(&second))).status,
        404
    );
    assert_eq!(
        client.get(&format!("/api/games/{}", id(&first))).status,
        200
    );
    assert_eq!(server.app.live_games(), 1);
    // Room again; a deleted game frees its place too.
    let fourth = new_game(&mut client, json!({}));
    assert_eq!(
        client.delete(&format!("/api/games/{}", id(&fourth))).status,
        204
    );
    assert_eq!(
        client.delete(&format!("/api/games/{}", id(&fourth))).status,
        404
    );

    // The watcher sees the moves as they are played.
    let game = id(&first);
    client.post(&format!("/api/games/{game}/move"), r#"{"move":"21-17"}"#);
    let event = events.wait_for("state", |data| data.contains("21-17"));
    let state: Value = serde_json::from_str(&event.data).unwrap();
    assert_eq!(texts(&state), ["21-17"]);
    // Once the page is gone, the game can be dropped.
    drop(events);
    let deadline = Instant::now() + PATIENCE;
    loop {
        server.clock.advance(Duration::from_secs(601));
        if server.app.drop_idle_games() == 1 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the closed stream never released the game"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn the_server_answers_while_a_search_runs_and_stop_plays_the_best_move_so_far() {
    let server = TestServer::start("busy", |c| c.max_movetime = Duration::from_secs(3600));
    let mut client = server.client();
    // Limited only by a node count no search reaches: it runs until stopped.
    let busy = new_game(
        &mut client,
        json!({ "human": "second", "level": { "nodes": 1_000_000_000_000_000u64 } }),
    );
    let busy_id = id(&busy);
    let go = client.post(&format!("/api/games/{busy_id}/go"), "{}");
    assert_eq!(go.status, 202, "{}", go.text());
    assert_eq!(go.json()["thinking"], json!(true));
    let again = client.post(&format!("/api/games/{busy_id}/go"), "{}");
    assert_eq!(again.status, 409);
    let blocked = client.post(&format!("/api/games/{busy_id}/undo"), "");
    assert_eq!(blocked.status, 409);

    // Meanwhile another game is played and the page is served.
    let mut other = server.client();
    assert_eq!(other.get("/").status, 200);
    assert_eq!(other.get("/api/info").status, 200);
    let quick = new_game(&mut other, json!({ "level": { "depth": 1 } }));
    let quick_id = id(&quick);
    assert_eq!(
        other
            .post(
                &format!("/api/games/{quick_id}/move"),
                r#"{"move":"24-20"}"#
            )
            .status,
        200
    );
    engine_reply(&mut other, &quick_id, 2);
    // The live search reports its iterations, with nodes and nodes per second.
    let live = wait_until(&mut client, &busy_id, |s| {
        s["search"]["info"]["nps"].is_u64() || !s["last_search"].is_null()
    });
    assert_eq!(live["thinking"], json!(true));
    let info = &live["search"]["info"];
    assert!(info["depth"].as_u64().unwrap() >= 1);
    assert!(!info["pv"].as_array().unwrap().is_empty());
    assert!(info["nodes"].as_u64().unwrap() >= 1, "{info}");
    // A rate is shown, whatever its size: that depends on the machine's speed and load
    // (the arithmetic is the unit test of `nodes_per_second`, on given durations).
    assert!(info["nps"].is_u64(), "{info}");

    let stop = client.post(&format!("/api/games/{busy_id}/stop"), "");
    assert_eq!(stop.status, 200);
    let done = wait_until(&mut client, &busy_id, |s| s["thinking"] == json!(false));
    assert_eq!(texts(&done).len(), 1);
    assert_eq!(done["last_search"]["stopped"], json!(true));
}

#[test]
fn a_new_model_revision_is_loaded_before_the_engine_moves() {
    let server = TestServer::start("reload", |_| {});
    let model = server.dir.join("models").join("trained.bin");
    let mut header = linear_header();
    save_linear(&model, &mut header, 0.0);
    let mut client = server.client();
    let listed = client.get("/api/models").json();
    assert_eq!(listed["models"][0]["path"], json!("models/trained.bin"));
    assert_eq!(listed["models"][0]["revision"], json!(1));

    let state = new_game(
        &mut client,
        json!({ "model": "models/trained.bin", "level": { "depth": 2 } }),
    );
    let game = id(&state);
    assert_eq!(state["game"], json!("brazilian"));
    assert_eq!(state["engine"]["revision"], json!(1));
    client.post(&format!("/api/games/{game}/move"), r#"{"move":"22-18"}"#);
    let replied = engine_reply(&mut client, &game, 2);
    assert!(replied["notices"].as_array().unwrap().is_empty());

    // Training writes revision 2.
    header.meta.games = 200;
    save_linear(&model, &mut header, 1.5);
    let mv = replied["legal"][0]["text"].as_str().unwrap().to_string();
    client.post(
        &format!("/api/games/{game}/move"),
        &json!({ "move": mv }).to_string(),
    );
    let reloaded = engine_reply(&mut client, &game, 4);
    assert_eq!(reloaded["engine"]["revision"], json!(2));
    let notices = reloaded["notices"].as_array().unwrap();
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0]["text"], json!("model revision 2 loaded"));

    // A model of the other game is refused for this one.
    let wrong = client.post(
        "/api/games",
        r#"{"model":"models/trained.bin","game":"kalah"}"#,
    );
    assert_eq!(wrong.status, 400);
    assert!(wrong.error().contains("brazilian"), "{}", wrong.error());
}

#[test]
fn each_model_file_is_listed_once_and_the_strongest_or_the_live_run_comes_first() {
    // The README's `serve --models models --runs models`: one folder twice.
    let server = TestServer::start("strongest", |c| c.runs = c.models.clone());
    let folder = server.dir.join("models");
    // Finished runs (5 of 5 iterations): the last evaluation decides.
    write_run(&folder, "strong", &[(4, Some(150.0)), (5, None)]);
    write_run(&folder, "weak", &[(4, None), (5, Some(40.0))]);
    // A model without a run: more games, but no evaluation.
    let mut header = linear_header();
    header.meta.games = 1_000_000;
    save_linear(&folder.join("plain.bin"), &mut header, 0.5);
    let mut client = server.client();
    let reply = client.get("/api/models").json();
    let models = reply["models"].as_array().unwrap();
    let paths: Vec<&str> = models.iter().map(|m| m["path"].as_str().unwrap()).collect();
    // A run keeps its runs/ name (the training page's), a plain model its models/ one.
    assert_eq!(
        paths,
        ["models/plain.bin", "runs/strong.bin", "runs/weak.bin"]
    );
    assert_eq!(models[0]["also"], json!(["runs/plain.bin"]));
    assert_eq!(models[0]["elo"], Value::Null);
    assert_eq!(models[1]["also"], json!(["models/strong.bin"]));
    assert_eq!(models[1]["elo"], json!(150.0));
    assert_eq!(models[1]["iteration"], json!(5));
    assert_eq!(models[1]["iterations"], json!(5));
    assert_eq!(models[1]["live"], json!(false));
    let first = &reply["defaults"]["brazilian"];
    assert_eq!(first["model"], json!("runs/strong.bin"));
    assert!(
        first["why"].as_str().unwrap().contains("strongest"),
        "{first}"
    );
    assert_eq!(
        reply["defaults"]["kalah"]["eval"],
        json!(Kalah::BUILTINS[0])
    );
    assert_eq!(reply["start_game"], json!("brazilian"));
    // Either name plays the file.
    for name in ["runs/strong.bin", "models/strong.bin"] {
        let state = new_game(&mut client, json!({ "model": name }));
        assert_eq!(state["engine"]["model"], json!(name));
    }

    // A run being trained (2 of 5 iterations, just written) comes first, weak as it is.
    // Ages are read on the server's simulated clock: "just" however slow the machine.
    write_run(&folder, "fresh", &[(1, None), (2, Some(-30.0))]);
    let reply = client.get("/api/models").json();
    let first = &reply["defaults"]["brazilian"];
    assert_eq!(first["model"], json!("runs/fresh.bin"));
    assert!(
        first["why"].as_str().unwrap().contains("being trained"),
        "{first}"
    );
    let fresh = &reply["models"][0];
    assert_eq!(fresh["path"], json!("runs/fresh.bin"));
    assert_eq!(fresh["live"], json!(true));
    assert_eq!(reply["models"].as_array().unwrap().len(), 4);

    // Eleven minutes on without a new line, it is no longer taken for a live run.
    server.clock.advance(Duration::from_secs(11 * 60));
    let reply = client.get("/api/models").json();
    assert_eq!(
        reply["defaults"]["brazilian"]["model"],
        json!("runs/strong.bin")
    );
    let fresh = reply["models"].as_array().unwrap().iter();
    let fresh = fresh
        .filter(|m| m["path"] == json!("runs/fresh.bin"))
        .collect::<Vec<_>>();
    assert_eq!(fresh[0]["live"], json!(false));
}

#[test]
fn without_evaluations_the_most_trained_model_comes_first_and_a_link_is_listed_once() {
    let server = TestServer::start("most-games", |_| {});
    let models = server.dir.join("models");
    let mut header = linear_header();
    for (name, games) in [("few", 10), ("many", 1000), ("same", 1000)] {
        header.meta.games = games;
        save_linear(&models.join(format!("{name}.bin")), &mut header, 0.5);
    }
    std::os::unix::fs::symlink(
        models.join("many.bin"),
        server.dir.join("runs").join("link.bin"),
    )
    .unwrap();
    let mut client = server.client();
    let reply = client.get("/api/models").json();
    let listed = reply["models"].as_array().unwrap();
    assert_eq!(listed.len(), 3, "{reply}");
    assert_eq!(listed[1]["path"], json!("models/many.bin"));
    assert_eq!(listed[1]["also"], json!(["runs/link.bin"]));
    // Most games; of equals, the first listed.
    let first = &reply["defaults"]["brazilian"];
    assert_eq!(first["model"], json!("models/many.bin"));
    assert!(
        first["why"].as_str().unwrap().contains("most games"),
        "{first}"
    );
    let state = new_game(&mut client, json!({ "model": "runs/link.bin" }));
    assert_eq!(state["engine"]["model"], json!("runs/link.bin"));

    // No model at all: the game's first built-in evaluator.
    let bare = TestServer::start("no-models", |c| {
        c.models = None;
        c.runs = None;
    });
    let reply = bare.client().get("/api/models").json();
    assert_eq!(reply["models"], json!([]));
    assert_eq!(
        reply["defaults"]["brazilian"],
        json!({
            "eval": Brazilian::BUILTINS[0],
            "why": format!(
                "the built-in {} evaluator (no model of brazilian in --models or --runs)",
                Brazilian::BUILTINS[0]
            ),
        })
    );
    assert_eq!(reply["start_game"], json!("brazilian"));
}

/// A metrics line of iteration `i` (with an evaluation when `elo` is given).
fn metrics_line(i: u64, elo: Option<f64>) -> String {
    json!({
        "iteration": i, "games": i * 100, "positions": i * 10_000,
        "loss_before": 0.02, "loss": 0.01,
        "eval_games": elo.map(|_| 100), "score": elo.map(|_| 0.6),
        "elo": elo, "elo_low": elo.map(|e| e - 50.0), "elo_high": elo.map(|e| e + 50.0),
        "elapsed_s": i as f64 * 10.0, "detail": "test",
    })
    .to_string()
}

/// A run `name` in `dir`: its model (configured for 5 iterations) and `lines` lines.
pub fn write_run(dir: &Path, name: &str, lines: &[(u64, Option<f64>)]) {
    let mut header = linear_header();
    header.meta.config =
        format!("learner = \"samuel\"\nmodel = \"{name}.bin\"\n[budget]\niterations = 5\n");
    save_linear(&dir.join(format!("{name}.bin")), &mut header, 0.5);
    let text: String = lines
        .iter()
        .map(|&(i, elo)| metrics_line(i, elo) + "\n")
        .collect();
    std::fs::write(dir.join(format!("{name}.metrics.jsonl")), text).unwrap();
}

#[test]
fn runs_are_listed_and_a_written_line_reaches_a_subscribed_client() {
    let server = TestServer::start("runs", |_| {});
    let runs = server.dir.join("runs");
    write_run(&runs, "demo", &[(1, Some(10.0)), (2, None)]);
    std::fs::write(runs.join("broken.metrics.jsonl"), "not json\n").unwrap();
    let mut client = server.client();
    let listed = client.get("/api/runs").json();
    let list = listed["runs"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    let broken = &list[0];
    assert_eq!(broken["name"], json!("broken"));
    assert!(broken["error"].as_str().unwrap().contains("line 1"));
    let demo = &list[1];
    assert_eq!(demo["lines"], json!(2));
    assert_eq!(demo["iterations"], json!(5));
    assert_eq!(demo["model"], json!("runs/demo.bin"));
    assert_eq!(demo["last"]["iteration"], json!(2));

    let detail = client.get("/api/runs/demo").json();
    assert_eq!(detail["lines"].as_array().unwrap().len(), 2);
    assert_eq!(
        detail["curve_svg"]
            .as_str()
            .unwrap()
            .matches("<circle")
            .count(),
        1
    );
    assert_eq!(client.get("/api/runs/nothing").status, 404);
    assert_eq!(client.get("/api/runs/.hidden").status, 400);

    // Subscribed after the two lines it has: the next one written arrives, with the
    // curve redrawn (train rewrites the file whole, atomically).
    let mut events = Events::open(server.server.addr(), "/api/runs/demo/events?from=2");
    let mut text = std::fs::read_to_string(runs.join("demo.metrics.jsonl")).unwrap();
    text.push_str(&(metrics_line(3, Some(40.0)) + "\n"));
    evalearn::io::write_atomic(&runs.join("demo.metrics.jsonl"), text.as_bytes()).unwrap();
    let event = events.wait_for("line", |_| true);
    let data: Value = serde_json::from_str(&event.data).unwrap();
    assert_eq!(data["n"], json!(3));
    assert_eq!(data["line"]["iteration"], json!(3));
    assert_eq!(
        data["curve_svg"]
            .as_str()
            .unwrap()
            .matches("<circle")
            .count(),
        2
    );
    // An appended line too.
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(runs.join("demo.metrics.jsonl"))
        .unwrap();
    writeln!(file, "{}", metrics_line(4, None)).unwrap();
    drop(file);
    let event = events.wait_for("line", |_| true);
    let data: Value = serde_json::from_str(&event.data).unwrap();
    assert_eq!(data["n"], json!(4));

    // Play against the run's model.
    let state = new_game(&mut client, json!({ "model": "runs/demo.bin" }));
    assert_eq!(state["engine"]["model"], json!("runs/demo.bin"));
}

#[test]
fn game_files_are_replayed_from_the_runs_folder_or_an_upload() {
    let server = TestServer::start("replay", |_| {});
    let games = server.dir.join("runs").join("games");
    std::fs::create_dir_all(&games).unwrap();
    std::fs::write(games.join("sample.pdn"), SAMPLE_PDN).unwrap();
    let mut client = server.client();
    let files = client.get("/api/files").json();
    assert_eq!(files["files"][0]["path"], json!("games/sample.pdn"));
    assert_eq!(files["files"][0]["game"], json!("brazilian"));

    let replay = client.get("/api/replay?path=games/sample.pdn");
    assert_eq!(replay.status, 200, "{}", replay.text());
    let replay = replay.json();
    let expected = Brazilian::read_games((), SAMPLE_PDN).unwrap()[0].record();
    let positions = replay["games"][0]["positions"].as_array().unwrap();
    assert_eq!(positions.len(), expected.ply() + 1);
    assert_eq!(
        positions.last().unwrap()["position"],
        json!(expected.position().format_position())
    );
    assert_eq!(positions[1]["move"], json!("22-18"));
    assert_eq!(replay["games"][0]["result"], json!("draw"));

    // An upload of a Kalah record.
    let klh =
        "[Event \"t\"]\n[Game \"kalah\"]\n[A \"a\"]\n[B \"b\"]\n[Result \"*\"]\n 1) A: 1 2 B: 5\n";
    let uploaded = client.post("/api/replay?name=t.klh", klh);
    assert_eq!(uploaded.status, 200, "{}", uploaded.text());
    let uploaded = uploaded.json();
    assert_eq!(uploaded["game"], json!("kalah"));
    assert_eq!(
        uploaded["games"][0]["positions"].as_array().unwrap().len(),
        3
    );

    for (path, status) in [
        ("/api/replay?path=/etc/passwd", 400),
        ("/api/replay?path=games/../../x.pdn", 400),
        ("/api/replay?path=games/none.pdn", 404),
        ("/api/replay", 400),
    ] {
        let reply = client.get(path);
        assert_eq!(reply.status, status, "{path}: {}", reply.text());
    }
    let bad = client.post("/api/replay?name=x.pdn", "1. 22-18 22-18");
    assert_eq!(bad.status, 400);
    assert!(!bad.error().is_empty());
}

/// A short game in PDN (a draw agreed after three moves each).
pub const SAMPLE_PDN: &str = "[Event \"sample\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-1\"]\n\n1. 22-18 11-15 2. 18x11 8x15 3. 21-17 9-13 1-1\n";

fn fuzz_method() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["GET", "POST", "DELETE", "PUT"])
}

fn fuzz_path() -> impl Strategy<Value = String> {
    let known = prop::sample::select(vec![
        "/api/games".to_string(),
        "/api/games/1".to_string(),
        "/api/games/1/move".to_string(),
        "/api/games/1/go".to_string(),
        "/api/games/1/undo".to_string(),
        "/api/games/1/settings".to_string(),
        "/api/games/1/record".to_string(),
        "/api/games/1/stop".to_string(),
        "/api/replay".to_string(),
        "/api/replay?name=x.klh".to_string(),
        "/api/runs/x".to_string(),
        "/api/models".to_string(),
    ]);
    let random = "/[a-z0-9/._%?=&-]{0,40}";
    prop_oneof![known, random.prop_map(|s: String| s)]
}

fn fuzz_body() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "\\PC{0,200}",
        prop::sample::select(vec![
            r#"{"move":"22-18"}"#.to_string(),
            r#"{"move":"1,2,3"}"#.to_string(),
            r#"{"game":"kalah","position":"A:99,0"}"#.to_string(),
            r#"{"level":{"nodes":1}}"#.to_string(),
            r#"{"hint":true}"#.to_string(),
            r#"{"human":"none","level":{"movetime_ms":1}}"#.to_string(),
        ]),
        ("[0-9a-z]{1,8}", "\\PC{0,30}").prop_map(|(k, v)| json!({ k: v }).to_string()),
    ]
}

#[test]
fn random_requests_never_get_a_server_error() {
    let server = TestServer::start("fuzz", |c| c.max_movetime = Duration::from_secs(5));
    let addr = server.server.addr();
    let mut client = server.client();
    new_game(&mut client, json!({ "level": { "depth": 1 } }));
    let client = std::cell::RefCell::new(client);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(
            &(fuzz_method(), fuzz_path(), fuzz_body()),
            |(method, path, body)| {
                let reply = client
                    .borrow_mut()
                    .send(method, &path, Some(&body))
                    .map_err(|e| TestCaseError::fail(format!("{method} {path}: {e}")))?;
                prop_assert!(
                    reply.status < 500,
                    "{} {} {:?}: {} {}",
                    method,
                    path,
                    body,
                    reply.status,
                    reply.text()
                );
                Ok(())
            },
        )
        .unwrap();
    // Raw garbage, then the server still answers.
    for bytes in [
        &b"\0\0\0\0"[..],
        b"GET / HTTP/9.9\r\n\r\n",
        b"POST /api/games HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n{",
        b"GET /api/games/1 HTTP/1.1\r\nHost: \xff\xfe\r\n\r\n",
    ] {
        let status = raw(addr, bytes).unwrap();
        assert!(status.is_none_or(|s| s < 500), "{bytes:?}: {status:?}");
    }
    assert_eq!(server.client().get("/api/info").status, 200);
}

#[test]
fn serve_refuses_a_folder_that_is_not_one_and_a_port_in_use() {
    assert_input_error(&["serve", "--port", "0", "--models", "/nonexistent/models"]);
    assert_input_error(&["serve", "--port", "0", "--max-depth", "0"]);
    // A port in use is the user's to change: status 2, and how.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = evalearn(&["serve", "--port", &port]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen on 127.0.0.1:{port}"))
            && stderr.contains("--port N"),
        "{stderr}"
    );
}
