//! `evalearn hub` over pipes (the Hub protocol as Scan defines it), fuzzed in process,
//! and `evalearn match` against it.

use crate::common;
use common::{Piped, evalearn, evalearn_ok, linear_header, save_linear, temp_dir};

use std::io::Write;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use evalearn::game::{Game, GameRecord};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::Material;
use evalearn::games::brazilian::hub::engine::{Engine, EngineOptions};
use evalearn::games::brazilian::hub::notation;
use evalearn::games::brazilian::hub::protocol::parse_line;
use evalearn::games::brazilian::hub::time::Level;
use evalearn::search::time::SimulatedClock;
use evalearn::search::{Limits, MAX_PLY, SearchConfig, Searcher, max_threads};
use proptest::prelude::*;

const START: &str = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";

fn hub(args: &[&str]) -> Piped {
    let mut all = vec!["hub"];
    all.extend_from_slice(args);
    Piped::start(&all)
}

/// Output lines up to and including the first that starts with `command`.
fn until(engine: &mut Piped, command: &str) -> Vec<String> {
    let mut lines = Vec::new();
    loop {
        let line = engine.wait_for("");
        let done = line.split_whitespace().next() == Some(command);
        lines.push(line);
        if done {
            return lines;
        }
    }
}

fn value(line: &str, name: &str) -> Option<String> {
    parse_line(line)
        .unwrap()
        .unwrap()
        .value(name)
        .map(str::to_string)
}

/// The depth an `info` line reports, if any.
fn depth_of(line: &str) -> Option<u32> {
    value(line, "depth").map(|d| d.parse().unwrap())
}

#[test]
fn handshake_then_a_search_that_plays_the_librarys_move() {
    let mut engine = hub(&[]);
    engine.send("hub");
    let handshake = until(&mut engine, "wait");
    assert!(
        handshake[0].starts_with("id name=evalearn version="),
        "{handshake:?}"
    );
    let variant = handshake
        .iter()
        .find(|l| l.starts_with("param name=variant"))
        .expect("variant parameter");
    assert_eq!(value(variant, "values").as_deref(), Some("brazilian"));
    engine.send("set-param name=variant value=brazilian");
    engine.send("init");
    engine.wait_for("ready");

    // After c3-d4 f6-e5 (10-14 23-19 in pydraughts' numbering), depth 6.
    engine.send(&format!("pos pos={START} moves=\"10-14 23-19\""));
    engine.send("level depth=6");
    engine.send("go think");
    let lines = until(&mut engine, "done");
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info")).collect();
    let depths: Vec<String> = infos.iter().filter_map(|l| value(l, "depth")).collect();
    assert_eq!(depths, ["2", "4", "6"], "{lines:?}");
    for info in &infos {
        for name in ["score", "nodes", "time", "nps", "pv"] {
            assert!(value(info, name).is_some(), "{name} missing: {info}");
        }
    }
    // The library's search of the same game gives the same move.
    let mut record = GameRecord::new(Brazilian::start());
    for text in ["10-14", "23-19"] {
        let mv = notation::parse_move(record.position(), text).unwrap();
        record.play(mv);
    }
    let mut searcher = Searcher::new(Material, SearchConfig::FULL, 64);
    let expected = searcher.search(&record, &Limits::depth(6), |_| {});
    let done = lines.last().unwrap();
    assert_eq!(
        value(done, "move"),
        Some(notation::format_move(expected.best_move.unwrap())),
        "{done}"
    );
    assert_eq!(
        value(done, "ponder"),
        Some(notation::format_move(expected.pv[1])),
        "{done}"
    );
    engine.send("quit");
    engine.finish();
}

#[test]
fn ping_is_answered_during_a_search_and_stop_ends_it() {
    let mut engine = hub(&[]);
    engine.send("init");
    engine.wait_for("ready");
    engine.send("pos");
    engine.send("level infinite");
    engine.send("go analyze");
    engine.wait_for("info depth=4");
    engine.send("ping");
    engine.wait_for("pong");
    engine.send("new-game");
    engine.wait_for("error message=\"'new-game' ignored: a search is running");
    engine.send("stop");
    let done = engine.wait_for("done");
    assert!(value(&done, "move").is_some(), "{done}");
    // Straight after `done` the engine takes commands again.
    engine.send("level depth=2");
    engine.send("go think");
    engine.wait_for("done move=");
    engine.send("quit");
    engine.finish();
}

/// An engine run in this process on a simulated clock that moves only when the test
/// says: lines in through a pipe, lines out through a channel. The time marks are then
/// checked exactly, however slow or busy the machine.
struct Simulated {
    clock: Arc<SimulatedClock>,
    input: Option<std::io::PipeWriter>,
    lines: Receiver<String>,
    transcript: Vec<String>,
    thread: Option<JoinHandle<std::io::Result<()>>>,
}

/// The engine's output, a line at a time into a channel.
struct ToChannel {
    lines: Sender<String>,
    partial: Vec<u8>,
}

impl Write for ToChannel {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(buf);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let text = String::from_utf8_lossy(&line[..end]).into_owned();
            // The test may have stopped listening; the engine's output is then moot.
            let _ = self.lines.send(text);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Simulated {
    /// The material evaluator with `move_overhead_ms` of move overhead, searching on
    /// `threads` threads.
    fn start(move_overhead_ms: u64, threads: usize) -> Simulated {
        let options = EngineOptions {
            eval: evalearn::eval::spec::EvalSpec::Builtin("material".into()),
            hash_mib: 4,
            threads,
            move_overhead: Duration::from_millis(move_overhead_ms),
            tablebase: None,
            notes: Vec::new(),
        };
        let clock = Arc::new(SimulatedClock::new());
        let engine = Engine::new(options)
            .unwrap()
            .with_time_source(Arc::clone(&clock) as _);
        let (reader, writer) = std::io::pipe().unwrap();
        let (send, lines) = mpsc::channel();
        let output = ToChannel {
            lines: send,
            partial: Vec::new(),
        };
        let thread =
            std::thread::spawn(move || engine.run(std::io::BufReader::new(reader), output));
        Simulated {
            clock,
            input: Some(writer),
            lines,
            transcript: Vec::new(),
            thread: Some(thread),
        }
    }

    fn send(&mut self, line: &str) {
        let input = self.input.as_mut().expect("input still open");
        writeln!(input, "{line}").unwrap();
    }

    /// Output lines up to and including the first that starts with `command`. The
    /// patience is a failure timeout only (a hang), far above any delay load causes.
    fn until(&mut self, command: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| {
                    panic!(
                        "no '{command}' line; transcript:\n{}",
                        self.transcript.join("\n")
                    )
                });
            self.transcript.push(line.clone());
            let found = line.split_whitespace().next() == Some(command);
            lines.push(line);
            if found {
                return lines;
            }
        }
    }

    /// Waits for an info line of at least `depth`, then checks with `ping` that the
    /// engine is still searching: no `done` came. Returns the deepest depth reported.
    fn searching_at(&mut self, depth: u32) -> u32 {
        let reached = loop {
            let info = self.until("info");
            let line = info.last().unwrap();
            assert!(!info.iter().any(|l| l.starts_with("done")), "{info:?}");
            if let Some(d) = depth_of(line)
                && d >= depth
            {
                break d;
            }
        };
        let lines = self.still_searching();
        lines
            .iter()
            .filter(|l| l.starts_with("info"))
            .filter_map(|l| depth_of(l))
            .fold(reached, u32::max)
    }

    /// Checks with `ping` that no `done` came; the engine has then taken every line
    /// sent before.
    fn still_searching(&mut self) -> Vec<String> {
        self.send("ping");
        let lines = self.until("pong");
        assert!(
            !lines.iter().any(|l| l.starts_with("done")),
            "done while the simulated clock stood before its marks: {lines:?}"
        );
        lines
    }

    /// Waits for `done` and checks its move is legal in `pos`.
    fn done_legal(&mut self, pos: &Brazilian) {
        let done = self.until("done").pop().unwrap();
        let text = value(&done, "move").unwrap_or_else(|| panic!("no move: {done}"));
        notation::parse_move(pos, &text).unwrap_or_else(|e| panic!("{done}: {e}"));
    }

    /// Ends the input and waits for the engine, which must end cleanly.
    fn finish(mut self) {
        drop(self.input.take());
        self.thread.take().unwrap().join().unwrap().unwrap();
    }
}

#[test]
fn ponder_waits_for_ponder_hit_then_keeps_to_the_clock() {
    ponder_then_clock(1);
}

/// With helper threads too: only the main thread reads the clock, and it stops them.
#[test]
fn ponder_and_the_clock_work_on_two_threads() {
    ponder_then_clock(2);
    clock_moves(2);
}

fn ponder_then_clock(threads: usize) {
    let mut engine = Simulated::start(20, threads);
    let start = Brazilian::start();
    engine.send(&format!("pos pos={START}"));
    engine.send("level move-time=0.05");
    engine.send("go ponder");
    engine.searching_at(4);
    // Far beyond the move time: pondering has no clock.
    engine.clock.advance(Duration::from_secs(10));
    engine.searching_at(6);
    // The move's clock starts at ponder-hit: 30 ms (50 less the overhead), all of it
    // searched. Past half of it new iterations still start (a clock's soft mark would
    // let only the one under way end): two more depths are reported.
    engine.send("ponder-hit");
    engine.still_searching(); // and ponder-hit was taken
    engine.clock.advance(Duration::from_millis(29));
    let reached = engine.searching_at(8);
    engine.searching_at(reached + 2);
    engine.clock.advance(Duration::from_millis(2));
    engine.done_legal(&start);

    // A ponder search that ends by itself (depth 2) still waits, and `stop` releases it.
    engine.send("level depth=2");
    engine.send("go ponder");
    engine.until("info");
    engine.still_searching();
    engine.send("stop");
    engine.done_legal(&start);
    engine.finish();
}

#[test]
fn a_clock_move_keeps_to_its_time_marks_on_a_simulated_clock() {
    clock_moves(1);
}

fn clock_moves(threads: usize) {
    let overhead = Duration::from_millis(20);
    let mut engine = Simulated::start(overhead.as_millis() as u64, threads);
    let start = Brazilian::start();
    engine.send("pos");
    for (text, left) in [
        ("level time=1 inc=0", 1.0),
        ("level time=0.1 inc=0.02", 0.12),
        ("level moves=1 time=0.3", 0.3),
    ] {
        let level = Level::parse(&parse_line(text).unwrap().unwrap(), MAX_PLY as u32 - 8);
        let budget = level.unwrap().budget(overhead);
        let (mark, hard) = (budget.last_iteration_start().unwrap(), budget.hard.unwrap());
        assert!(hard.as_secs_f64() < 0.9 * left, "{text}: {budget:?}");
        engine.send(text);
        engine.send("go think");
        // The clock stands still: the search deepens whatever time passes for real.
        engine.searching_at(4);
        engine.clock.advance(mark - Duration::from_millis(1));
        engine.searching_at(6);
        // At the hard mark the move is played.
        engine.clock.advance(hard - mark + Duration::from_millis(1));
        engine.done_legal(&start);
    }
    // Past the soft mark only: the iteration under way is the last.
    engine.send("level time=60 inc=0");
    engine.send("go think");
    engine.searching_at(4);
    engine.clock.advance(Duration::from_millis(1250));
    engine.done_legal(&start);
    engine.finish();
}

#[test]
fn bad_lines_get_an_error_line_and_the_engine_plays_on() {
    let mut engine = hub(&[]);
    let bad: &[&[u8]] = &[
        b"fly away",
        b"pos pos=Wxx",
        b"pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves=\"9-13 9-13\"",
        b"pos moves=\"1-5\"",
        b"pos colour=red",
        b"level depth=0",
        b"level time=abc",
        b"level speed=3",
        b"set-param name=variant value=frisian",
        b"set-param name=hash value=0",
        b"set-param name=threads value=0",
        b"set-param name=eval value=/nonexistent/model.bin",
        b"set-param name=colour value=red",
        b"set-param value=3",
        b"go sideways",
        b"pos moves=\"unclosed",
        b"=5",
        b"\xff\xfe not text",
    ];
    for line in bad {
        engine.send_bytes(line);
        engine.send_bytes(b"\n");
        let answer = engine.wait_for("");
        assert!(
            answer.starts_with("error message="),
            "{}: {answer}",
            String::from_utf8_lossy(line)
        );
        if line.starts_with(b"go") {
            assert_eq!(engine.wait_for(""), "done");
        }
    }
    let long = vec![b'x'; 200_000];
    engine.send_bytes(&long);
    engine.send_bytes(b"\n");
    let answer = engine.wait_for("error");
    assert!(answer.contains("200000 bytes"), "{answer}");
    // `go` after a rejected position says so and answers a bare `done`.
    engine.send("pos pos=Wxx");
    engine.wait_for("error");
    engine.send("go think");
    assert!(engine.wait_for("error").contains("no valid position"));
    assert_eq!(engine.wait_for(""), "done");
    // Still alive, and still playing.
    engine.send("ping");
    engine.wait_for("pong");
    engine.send("pos");
    engine.send("level depth=3");
    engine.send("go think");
    engine.wait_for("done move=");
    engine.send("quit");
    engine.finish();
}

#[test]
fn threads_are_a_parameter_bounded_by_the_machine() {
    let max = max_threads();
    let mut engine = hub(&[]);
    engine.send("hub");
    let handshake = until(&mut engine, "wait");
    let param = handshake
        .iter()
        .find(|l| l.starts_with("param name=threads"))
        .unwrap_or_else(|| panic!("no threads parameter: {handshake:?}"));
    assert_eq!(value(param, "value").as_deref(), Some("1"), "{param}");
    assert_eq!(value(param, "type").as_deref(), Some("int"), "{param}");
    assert_eq!(value(param, "min").as_deref(), Some("1"), "{param}");
    assert_eq!(value(param, "max"), Some(max.to_string()), "{param}");
    for refused in [0, max + 1] {
        engine.send(&format!("set-param name=threads value={refused}"));
        let error = engine.wait_for("error");
        assert!(
            error.contains(&format!(
                "set-param threads={refused}: expected threads from 1 to {max}"
            )),
            "{error}"
        );
    }
    // Two threads where the machine has two cores (one on a machine with one).
    engine.send(&format!("set-param name=threads value={}", max.min(2)));
    engine.send("ping");
    assert_eq!(engine.wait_for(""), "pong");
    engine.send("init");
    engine.wait_for("ready");
    engine.send(&format!("pos pos={START}"));
    engine.send("level depth=6");
    engine.send("go think");
    let done = until(&mut engine, "done").pop().unwrap();
    let text = value(&done, "move").unwrap_or_else(|| panic!("no move: {done}"));
    notation::parse_move(&Brazilian::start(), &text).unwrap_or_else(|e| panic!("{done}: {e}"));
    engine.send("quit");
    engine.finish();
    // The command line's --threads is the parameter's start.
    common::assert_input_error(&["hub", "--threads", &(max + 1).to_string()]);
}

#[test]
fn end_of_input_during_a_search_ends_the_engine() {
    let mut engine = hub(&[]);
    engine.send("level infinite");
    engine.send("go analyze");
    engine.wait_for("info depth=2");
    // Closes stdin; the engine must stop searching and exit with success (the patience
    // only bounds a hang, far above any delay load causes).
    engine.close_input();
    let status = engine.exit_within(Duration::from_secs(120));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}

#[test]
fn the_model_is_reloaded_between_moves() {
    let dir = temp_dir("hub-reload");
    let model = dir.join("model.bin");
    let mut header = linear_header();
    save_linear(&model, &mut header, 0.0);
    let mut engine = hub(&["--model", model.to_str().unwrap()]);
    engine.send("level depth=2");
    engine.send("go think");
    let first = until(&mut engine, "done");
    assert!(!first.iter().any(|l| l.contains("reloaded")), "{first:?}");
    save_linear(&model, &mut header, 1.0);
    engine.send("go think");
    let second = until(&mut engine, "done");
    assert!(
        second[0].starts_with("info message=\"model reloaded: revision 2"),
        "{second:?}"
    );
    std::fs::write(&model, b"not a model").unwrap();
    engine.send("go think");
    let third = until(&mut engine, "done");
    assert!(third[0].contains("not loaded"), "{third:?}");
    assert!(third.last().unwrap().starts_with("done move="));
    engine.send("quit");
    engine.finish();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_hub_arguments_are_exit_status_2() {
    for args in [
        &["hub", "--model", "/nonexistent/model.bin"][..],
        &["hub", "--eval", "stores"],
        &["hub", "--model", "models/kalah-td.bin"],
        &["hub", "--tt-mb", "0"],
        &["hub", "--threads", "0"],
    ] {
        common::assert_input_error(args);
    }
}

#[test]
fn a_match_against_evalearn_hub_replays_the_match_in_process() {
    let dir = temp_dir("hub-match");
    let bin = env!("CARGO_BIN_EXE_evalearn");
    let hub_spec = format!("hub:{bin} hub --tt-mb 2");
    let common = ["match", "--a", "material", "--games", "8", "--depth", "4"];
    let with_hub = dir.join("hub.pdn");
    let in_process = dir.join("local.pdn");
    let out = evalearn_ok(
        &[
            &common[..],
            &["--b", &hub_spec, "--record", with_hub.to_str().unwrap()],
        ]
        .concat(),
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("games        8"), "{report}");
    evalearn_ok(
        &[
            &common[..],
            &["--b", "material", "--record", in_process.to_str().unwrap()],
        ]
        .concat(),
    );
    // Same games move for move: the engine over Hub searches exactly as in process.
    let moves = |path: &Path| -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('['))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(moves(&with_hub), moves(&in_process));
    // The docs' notation `hub:"COMMAND ARGS"`, taken literally inside the shell's single
    // quotes: the quotes around the command are dropped, the same engine plays.
    let quoted = dir.join("quoted.pdn");
    evalearn_ok(
        &[
            &common[..],
            &["--b", &format!("hub:\"{bin} hub --tt-mb 2\"")],
            &["--record", quoted.to_str().unwrap()],
        ]
        .concat(),
    );
    assert_eq!(moves(&quoted), moves(&with_hub));

    // Hub engines play draughts only; a command that is not an engine is named.
    let out = evalearn(&[
        "match", "--game", "kalah", "--a", "stores", "--b", &hub_spec, "--games", "2", "--depth",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = evalearn(&[
        "match",
        "--a",
        "material",
        "--b",
        "hub:/nonexistent/engine",
        "--games",
        "2",
        "--depth",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Said as what it is, with the form to use (not the broken pipe that follows).
    assert!(
        stderr.contains(
            "error: hub engine '/nonexistent/engine': command not found; give the \
             engine's command line after hub:"
        ) && stderr.contains("e.g. --b 'hub:")
            && !stderr.contains("Broken pipe"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Output for the in-process sessions: counts lines, keeps nothing.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Pieces of lines the fuzzer strings together: every command, arguments good and bad,
/// quotes, and noise.
const WORDS: &[&str] = &[
    "hub",
    "init",
    "ping",
    "set-param",
    "new-game",
    "pos",
    "level",
    "go",
    "think",
    "ponder",
    "analyze",
    "ponder-hit",
    "stop",
    "name=hash",
    "value=1",
    "name=threads",
    "value=2",
    "name=variant",
    "value=brazilian",
    "pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww",
    "pos=B",
    "moves=\"9-13 22-18\"",
    "moves=\"",
    "moves=\"12-16 21-17 16x21\"",
    "depth=3",
    "depth=99999999999",
    "nodes=500",
    "move-time=0.01",
    "time=0.05",
    "inc=0.01",
    "moves=2",
    "infinite",
    "=",
    "\"",
    "x",
    "é",
    "\t",
    "-1",
    "1e999",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Any input ends in a clean stop at its end: no panic, no hang.
    #[test]
    fn any_input_is_survived(
        lines in prop::collection::vec(
            prop_oneof![
                prop::collection::vec(prop::sample::select(WORDS), 0..6).prop_map(|w| w.join(" ")),
                ".{0,40}",
            ],
            0..30,
        )
    ) {
        let input = lines.join("\n").into_bytes();
        let out = Lines::default();
        let options = EngineOptions {
            eval: evalearn::eval::spec::EvalSpec::Builtin("material".into()),
            hash_mib: 1,
            threads: 1,
            move_overhead: Duration::from_millis(10),
            tablebase: None,
            notes: Vec::new(),
        };
        // On a clock that stands still, no search ends by time: only the input's end, or
        // its `stop` and `quit`, end them, the same on any machine.
        let clock = Arc::new(SimulatedClock::new());
        Engine::new(options)
            .unwrap()
            .with_time_source(clock)
            .run(std::io::Cursor::new(input), out.clone())
            .unwrap();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        // Every line out is a Hub line.
        for line in text.lines() {
            prop_assert!(parse_line(line).is_ok(), "{}", line);
        }
    }
}
