//! The client side of the Hub protocol: runs an external draughts engine (Scan,
//! `evalearn hub`, any Hub engine) as a [`Player`] in matches.
//!
//! Every reply is checked: a move that is not legal, a dead engine or one that does not
//! answer in time ends the match with a message naming the engine, the position and the
//! line.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::notation;
use super::protocol::{Input, Line, parse_line, read_line};
use crate::arena::players::Player;
use crate::game::{Game, GameRecord};
use crate::games::brazilian::Brazilian;
use crate::search::{Limits, NodeCounts, SearchResult, WIN};

/// Time for the handshake and `init` (an engine may load large files there).
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// Time a search limited by depth or nodes may take.
const UNTIMED_MOVE_TIMEOUT: Duration = Duration::from_secs(600);
/// Time to answer `done` after `stop`.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// A running Hub engine.
pub struct HubClient {
    command: String,
    name: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<Input>>,
}

impl HubClient {
    /// Starts `command` (run by `sh -c`, so it may carry arguments and quotes), does the
    /// handshake, chooses the Brazilian variant and waits for `ready`.
    pub fn start(command: &str) -> Result<HubClient, String> {
        let mut child = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("exec {command}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("hub engine '{command}': cannot start: {e}"))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let item = read_line(&mut reader);
                let end = matches!(item, Ok(Input::End) | Err(_));
                if send.send(item).is_err() || end {
                    break;
                }
            }
        });
        let mut client = HubClient {
            command: command.to_string(),
            name: command.to_string(),
            child,
            stdin,
            lines,
        };
        if let Err(e) = client.handshake() {
            return Err(client.not_started().unwrap_or(e));
        }
        Ok(client)
    }

    /// After a failed handshake: why, when the shell could not run the command at all
    /// (its exit status 127, not found; 126, not executable), instead of the broken pipe
    /// or closed output that follows from it.
    fn not_started(&mut self) -> Option<String> {
        // The engine is gone or going (its pipes are closed): a moment to collect it,
        // ample on a loaded machine; only a failed start waits.
        let until = Instant::now() + Duration::from_secs(5);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        };
        let what = match status.code()? {
            127 => "command not found",
            126 => "the command cannot be run (not executable)",
            _ => return None,
        };
        Some(format!(
            "hub engine '{}': {what}; give the engine's command line after hub: (the \
             program, then its arguments), e.g. --b 'hub:target/release/evalearn hub --eval \
             material'",
            self.command
        ))
    }

    /// The engine's name as its `id` line gives it.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn handshake(&mut self) -> Result<(), String> {
        self.send("hub")?;
        let deadline = Instant::now() + START_TIMEOUT;
        let mut variants: Option<Vec<String>> = None;
        loop {
            let line = self.receive(deadline, "the answer to hub")?;
            match line.command.as_str() {
                "wait" => break,
                "id" => {
                    if let Some(name) = line.value("name") {
                        self.name = match line.value("version") {
                            Some(version) => format!("{name} {version}"),
                            None => name.to_string(),
                        };
                    }
                }
                "param" if line.value("name") == Some("variant") => {
                    let values = line.value("values").or(line.value("value")).unwrap_or("");
                    variants = Some(values.split_whitespace().map(String::from).collect());
                }
                _ => {}
            }
        }
        match variants {
            Some(list) if list.iter().any(|v| v == super::engine::VARIANT) => {
                self.send(&format!(
                    "set-param name=variant value={}",
                    super::engine::VARIANT
                ))?;
            }
            Some(list) => {
                return Err(self.failure(&format!(
                    "does not play Brazilian draughts (variants: {})",
                    list.join(" ")
                )));
            }
            None => {
                return Err(self.failure(
                    "has no variant parameter, so it plays international draughts, not Brazilian",
                ));
            }
        }
        self.send("init")?;
        let deadline = Instant::now() + START_TIMEOUT;
        while self.receive(deadline, "ready")?.command != "ready" {}
        Ok(())
    }

    fn failure(&self, what: &str) -> String {
        format!("hub engine '{}' ({}): {what}", self.command, self.name)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| self.failure(&format!("cannot send '{line}': {e}")))
    }

    /// The next well-formed line, waiting until `deadline` at most.
    fn receive(&mut self, deadline: Instant, waiting_for: &str) -> Result<Line, String> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let item = match self.lines.recv_timeout(left) {
                Ok(item) => item,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(self.failure(&format!("no {waiting_for} in time")));
                }
                Err(RecvTimeoutError::Disconnected) => Ok(Input::End),
            };
            match item {
                Ok(Input::Line(text)) => match parse_line(&text) {
                    Ok(Some(line)) => return Ok(line),
                    Ok(None) => {}
                    Err(e) => {
                        return Err(self.failure(&format!("malformed line '{text}': {e}")));
                    }
                },
                Ok(Input::TooLong(len)) => {
                    return Err(self.failure(&format!("sent a line of {len} bytes")));
                }
                Ok(Input::NotUtf8) => return Err(self.failure("sent a line that is not UTF-8")),
                Ok(Input::End) | Err(_) => {
                    let status = self
                        .child
                        .try_wait()
                        .ok()
                        .flatten()
                        .map_or("still running".to_string(), |s| s.to_string());
                    return Err(self.failure(&format!(
                        "closed its output while we waited for {waiting_for} ({status})"
                    )));
                }
            }
        }
    }

    /// The `level` line for `limits` and how long to wait for `done`.
    fn level(limits: &Limits) -> Result<(String, Duration), String> {
        let mut args = Vec::new();
        if let Some(depth) = limits.depth {
            args.push(format!("depth={depth}"));
        }
        if let Some(nodes) = limits.nodes {
            args.push(format!("nodes={nodes}"));
        }
        let mut timeout = UNTIMED_MOVE_TIMEOUT;
        if let Some(t) = limits.movetime {
            args.push(format!("move-time={}", t.as_secs_f64()));
            timeout = 10 * t + Duration::from_secs(30);
        }
        if let Some(clock) = limits.clock {
            // The Hub's `time` leaves out this move's increment, which it adds first.
            let time = clock.left.saturating_sub(clock.increment);
            args.push(format!("time={}", time.as_secs_f64()));
            args.push(format!("inc={}", clock.increment.as_secs_f64()));
            if let Some(moves) = clock.moves_to_go {
                args.push(format!("moves={moves}"));
            }
            timeout = clock.left + Duration::from_secs(30);
        }
        if args.is_empty() {
            return Err("a hub engine needs a depth, node or time limit".to_string());
        }
        Ok((format!("level {}", args.join(" ")), timeout))
    }
}

/// What the engine said about its search so far.
#[derive(Default)]
struct Info {
    depth: u32,
    score: i32,
    nodes: u64,
    pv: Vec<<Brazilian as Game>::Move>,
}

impl Info {
    fn read(&mut self, line: &Line, pos: &Brazilian) {
        if let Some(depth) = line.value("depth").and_then(|d| d.parse().ok()) {
            self.depth = depth;
        }
        if let Some(score) = line.value("score").and_then(|s| s.parse::<f64>().ok()) {
            self.score = centi_units(score);
        }
        if let Some(nodes) = line.value("nodes").and_then(|n| n.parse().ok()) {
            self.nodes = nodes;
        }
        if let Some(pv) = line.value("pv") {
            // As far as it is legal: an engine's line is for show.
            self.pv.clear();
            let mut at = *pos;
            for text in pv.split_whitespace() {
                let Ok(mv) = notation::parse_move(&at, text) else {
                    break;
                };
                self.pv.push(mv);
                at = at.play(mv);
            }
        }
    }
}

/// A Hub score (men, wins as `100 − plies/100`) in evalearn's centi-units.
fn centi_units(men: f64) -> i32 {
    if !men.is_finite() {
        return 0;
    }
    let centi = (men * 100.0).round().clamp(-10_000.0, 10_000.0) as i32;
    if centi.abs() > 9_000 {
        let plies = 10_000 - centi.abs();
        centi.signum() * (WIN - plies)
    } else {
        centi
    }
}

impl Player<Brazilian> for HubClient {
    fn new_game(&mut self) -> Result<(), String> {
        self.send("new-game")
    }

    fn think(
        &mut self,
        record: &GameRecord<Brazilian>,
        limits: &Limits,
    ) -> Result<SearchResult<Brazilian>, String> {
        let started = Instant::now();
        let pos = *record.position();
        let moves: Vec<String> = record
            .moves()
            .iter()
            .map(|&mv| notation::format_move(mv))
            .collect();
        let (level, timeout) = Self::level(limits)?;
        self.send(&format!(
            "pos pos={} moves=\"{}\"",
            notation::format_position(record.start()),
            moves.join(" ")
        ))?;
        self.send(&level)?;
        self.send("go think")?;
        let mut info = Info::default();
        let mut deadline = started + timeout;
        let mut stopped = false;
        let mut errors = Vec::new();
        let done = loop {
            let line = match self.receive(deadline, "done") {
                Ok(line) => line,
                // Out of time: ask for the move found so far (an engine that died is
                // not waited for).
                Err(_) if !stopped && matches!(self.child.try_wait(), Ok(None)) => {
                    self.send("stop")?;
                    stopped = true;
                    deadline = Instant::now() + STOP_GRACE;
                    continue;
                }
                Err(e) => return Err(e),
            };
            match line.command.as_str() {
                "done" => break line,
                "info" => info.read(&line, &pos),
                "error" => errors.push(line.value("message").unwrap_or("").to_string()),
                _ => {}
            }
        };
        let fen = notation::format_position(&pos);
        let Some(text) = done.value("move") else {
            return Err(self.failure(&format!(
                "answered 'done' without a move in position {fen}{}",
                if errors.is_empty() {
                    String::new()
                } else {
                    format!(" (it said: {})", errors.join("; "))
                }
            )));
        };
        let best = notation::parse_move(&pos, text)
            .map_err(|e| self.failure(&format!("played an illegal move in position {fen}: {e}")))?;
        if info.pv.first() != Some(&best) {
            info.pv = vec![best];
        }
        Ok(SearchResult {
            exact: None,
            best_move: Some(best),
            score: info.score,
            depth: info.depth,
            pv: info.pv,
            nodes: NodeCounts {
                main: info.nodes,
                quiescence: 0,
            },
            elapsed: started.elapsed(),
            stopped,
            root_values: Vec::new(),
        })
    }
}

impl Drop for HubClient {
    /// `quit`, a moment to obey, then the process is killed.
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_come_back_in_centi_units() {
        assert_eq!(centi_units(1.25), 125);
        assert_eq!(centi_units(-0.4), -40);
        assert_eq!(centi_units(99.93), WIN - 7);
        assert_eq!(centi_units(-99.92), -(WIN - 8));
        assert_eq!(centi_units(f64::NAN), 0);
        assert_eq!(centi_units(1e300), WIN);
    }

    #[test]
    fn levels_follow_the_limits() {
        let (line, _) = HubClient::level(&Limits::depth(6)).unwrap();
        assert_eq!(line, "level depth=6");
        let (line, timeout) =
            HubClient::level(&Limits::movetime(Duration::from_millis(250))).unwrap();
        assert_eq!(line, "level move-time=0.25");
        assert_eq!(timeout, Duration::from_millis(32_500));
        assert!(HubClient::level(&Limits::default()).is_err());
        let clock = Limits {
            clock: Some(crate::search::time::Clock {
                left: Duration::from_millis(10_500),
                increment: Duration::from_millis(500),
                moves_to_go: None,
            }),
            ..Limits::default()
        };
        assert_eq!(HubClient::level(&clock).unwrap().0, "level time=10 inc=0.5");
    }
}
