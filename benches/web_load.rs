//! The load check of `evalearn serve` (a command, not a timed test):
//!
//!     cargo bench --bench web_load -- [--clients 32] [--seconds 20] [--depth 2]
//!
//! Starts the server in this process on a free loopback port (room for one live game a
//! client) and runs that many clients, each playing quick draughts games against the
//! engine over HTTP for a bounded time: a move, the engine asked to reply, a long poll
//! until it has. Prints the requests served, the latency percentiles of the requests
//! (the long polls, which wait for the engine, are counted but timed apart) and the
//! errors (any status other than the expected one).

#[path = "../tests/integration/web_http.rs"]
mod web_http;

use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use evalearn::search::time::RealClock;
use evalearn::web::{App, Config, Server};
use serde_json::{Value, json};
use web_http::Client;

struct Tally {
    requests: u64,
    long_polls: u64,
    games: u64,
    plies: u64,
    latencies: Vec<Duration>,
    errors: Vec<String>,
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let clients = arg("--clients", 32) as usize;
    let seconds = arg("--seconds", 20);
    let depth = arg("--depth", 2);
    let config = Config {
        max_games: clients,
        tt_mib: 4,
        ..Config::default()
    };
    let app = App::new(
        evalearn::games::registry::web_games(),
        config,
        Arc::new(RealClock::new()),
    );
    let server = Server::start(app, TcpListener::bind("127.0.0.1:0").unwrap()).unwrap();
    let addr = server.addr();
    let until = Instant::now() + Duration::from_secs(seconds);
    println!("web load check: {clients} clients, {seconds} s, engine depth {depth}, server {addr}");
    let started = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|_| std::thread::spawn(move || play(addr, until, depth)))
        .collect();
    let tallies: Vec<Tally> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let wall = started.elapsed().as_secs_f64();
    let mut latencies: Vec<Duration> = tallies.iter().flat_map(|t| t.latencies.clone()).collect();
    latencies.sort();
    let pct = |p: f64| {
        let i = ((latencies.len() as f64 - 1.0) * p).round() as usize;
        latencies.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    let sum = |f: fn(&Tally) -> u64| tallies.iter().map(f).sum::<u64>();
    let requests = sum(|t| t.requests);
    let errors: Vec<&String> = tallies.iter().flat_map(|t| &t.errors).collect();
    println!(
        "requests served: {requests} ({:.0}/s) plus {} long polls; games {}, plies {}",
        requests as f64 / wall,
        sum(|t| t.long_polls),
        sum(|t| t.games),
        sum(|t| t.plies)
    );
    println!(
        "latency ms: p50 {:.2}, p95 {:.2}, p99 {:.2}, max {:.2}",
        pct(0.50),
        pct(0.95),
        pct(0.99),
        pct(1.0)
    );
    println!("errors: {}", errors.len());
    for e in errors.iter().take(10) {
        println!("  {e}");
    }
    drop(server);
    if !errors.is_empty() {
        std::process::exit(1);
    }
}

/// One client: games against the engine until `until`.
fn play(addr: std::net::SocketAddr, until: Instant, depth: u64) -> Tally {
    let mut tally = Tally {
        requests: 0,
        long_polls: 0,
        games: 0,
        plies: 0,
        latencies: Vec::new(),
        errors: Vec::new(),
    };
    let mut client = Client::new(addr);
    while Instant::now() < until {
        let request = json!({ "level": { "depth": depth } }).to_string();
        let Some(mut state) = call(
            &mut client,
            &mut tally,
            "POST",
            "/api/games",
            Some(&request),
            201,
        ) else {
            return tally;
        };
        let id = state["id"].as_str().unwrap_or("0").to_string();
        tally.games += 1;
        while Instant::now() < until && state["status"]["over"] == json!(false) {
            let Some(mv) = state["legal"][0]["text"].as_str().map(str::to_string) else {
                break;
            };
            let body = json!({ "move": mv }).to_string();
            let Some(moved) = call(
                &mut client,
                &mut tally,
                "POST",
                &format!("/api/games/{id}/move"),
                Some(&body),
                200,
            ) else {
                return tally;
            };
            tally.plies += 1;
            if moved["status"]["over"] == json!(true) {
                break;
            }
            let Some(thinking) = call(
                &mut client,
                &mut tally,
                "POST",
                &format!("/api/games/{id}/go"),
                Some("{}"),
                202,
            ) else {
                return tally;
            };
            // Long polls until the engine has moved (timed apart: they wait for it).
            let mut version = thinking["version"].as_u64().unwrap_or(0);
            loop {
                let reply = client.send("GET", &format!("/api/games/{id}?since={version}"), None);
                tally.long_polls += 1;
                match reply {
                    Ok(r) if r.status == 200 => {
                        let s = r.json_or_null();
                        version = s["version"].as_u64().unwrap_or(version);
                        if s["thinking"] == json!(false) {
                            state = s;
                            break;
                        }
                    }
                    other => {
                        tally.errors.push(format!("long poll: {other:?}"));
                        return tally;
                    }
                }
            }
            tally.plies += 1;
        }
        call(
            &mut client,
            &mut tally,
            "DELETE",
            &format!("/api/games/{id}"),
            None,
            204,
        );
    }
    tally
}

/// One timed request; `None` (an error counted) unless it got status `expect`.
fn call(
    client: &mut Client,
    tally: &mut Tally,
    method: &str,
    path: &str,
    body: Option<&str>,
    expect: u16,
) -> Option<Value> {
    let t = Instant::now();
    let reply = client.send(method, path, body);
    tally.latencies.push(t.elapsed());
    tally.requests += 1;
    match reply {
        Ok(r) if r.status == expect => Some(r.json_or_null()),
        Ok(r) => {
            tally
                .errors
                .push(format!("{method} {path}: {} {}", r.status, r.text()));
            None
        }
        Err(e) => {
            tally.errors.push(format!("{method} {path}: {e}"));
            None
        }
    }
}

trait JsonOrNull {
    fn json_or_null(&self) -> Value;
}

impl JsonOrNull for web_http::Reply {
    fn json_or_null(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}
