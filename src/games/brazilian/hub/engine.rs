//! `evalearn hub`: the engine side of the Hub protocol.
//!
//! Three threads: one reads stdin line by line, one searches (with the helpers of the
//! `threads` parameter beside it, which it starts and stops itself), and the main loop
//! answers commands, starts and stops searches and keeps the clock. The reader and the search
//! hand their news to the main loop over one channel, so it never blocks on either: a
//! `stop`, `ping` or `quit` is answered while a search runs, and the hard time mark is a
//! timeout on that channel. Only the main loop and the search write to stdout, a line at
//! a time under a lock. Nothing is written to stderr: pydraughts merges it into the
//! protocol stream.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::notation;
use super::protocol::{Input, Line, parse_line, quote, read_line, whole_number};
use super::time::{Budget, Level};
use crate::eval::spec::{AnyEvaluator, EvalSpec, ModelWatch, Reload};
use crate::game::{Game, GameRecord};
use crate::games::brazilian::{Brazilian, Move};
use crate::search::time::{RealClock, TimeSource};
use crate::search::{
    DepthReport, Limits, MAX_PLY, SearchConfig, SearchResult, Searcher, Tablebase, WIN,
    WIN_THRESHOLD, max_threads,
};

type HubSearcher = Searcher<Brazilian, AnyEvaluator<Brazilian>>;

/// The one variant evalearn plays over Hub.
pub const VARIANT: &str = "brazilian";
/// Most moves a `pos` command may list.
const MAX_MOVES: usize = 10_000;
/// Largest transposition table `hash` may ask for, in MiB.
pub const MAX_HASH_MIB: usize = 4096;
/// Largest move overhead, in milliseconds.
pub const MAX_OVERHEAD_MS: u64 = 10_000;

/// What the engine starts with; `set-param` changes it.
#[derive(Clone)]
pub struct EngineOptions {
    pub eval: EvalSpec,
    /// Transposition table, MiB.
    pub hash_mib: usize,
    /// Threads of each search (1 to [`max_threads`]), sharing the table.
    pub threads: usize,
    /// Latency allowed for on every clock move.
    pub move_overhead: Duration,
    /// Endgame database of the search.
    pub tablebase: Option<Arc<dyn Tablebase<Brazilian>>>,
    /// What opening the database found (problems, summary): sent as `info message=`
    /// lines after `init` (the engine writes nothing to stderr).
    pub notes: Vec<String>,
}

/// What the main loop hears.
enum Event {
    Input(io::Result<Input>),
    /// Search number `n` has ended (it may have been collected already).
    Finished(u64),
}

/// Lines out, shared by the main loop and the search thread.
struct Output<W: Write> {
    writer: Arc<Mutex<W>>,
}

impl<W: Write> Clone for Output<W> {
    fn clone(&self) -> Self {
        Output {
            writer: Arc::clone(&self.writer),
        }
    }
}

impl<W: Write> Output<W> {
    fn line(&self, text: &str) -> io::Result<()> {
        let mut writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        writer.write_all(text.as_bytes())?;
        writer.write_all(b"\n")?;
        writer.flush()
    }

    fn error(&self, message: &str) -> io::Result<()> {
        self.line(&format!("error message={}", quote(message)))
    }
}

/// A search in progress.
struct Running {
    id: u64,
    /// `None` once joined (a ponder result parked).
    thread: Option<JoinHandle<(HubSearcher, SearchResult<Brazilian>)>>,
    stop: Arc<AtomicBool>,
    /// After this time (on the session's clock) no new iteration starts; `None` while
    /// pondering.
    soft_mark: Arc<Mutex<Option<Duration>>>,
    hard_deadline: Option<Duration>,
    /// `go ponder` not yet followed by `ponder-hit` or `stop`: `done` must wait.
    pondering: bool,
    /// The time marks to start at `ponder-hit`.
    budget: Budget,
    /// A result that came while pondering, held for `ponder-hit` or `stop`.
    parked: Option<SearchResult<Brazilian>>,
}

/// The engine between lines: options, position, level, and the searcher, which is here
/// whenever no search runs.
struct Session<W: Write> {
    out: Output<W>,
    options: EngineOptions,
    searcher: Option<HubSearcher>,
    watch: Option<ModelWatch>,
    /// The clock the time marks are kept on (the searcher reads the same).
    time: Arc<dyn TimeSource>,
    record: Result<GameRecord<Brazilian>, String>,
    level: Level,
    running: Option<Running>,
    /// Searches started so far.
    searches: u64,
    events: Sender<Event>,
}

/// Whether the loop goes on.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// An engine ready to speak: its options, and its searcher with the evaluator loaded.
pub struct Engine {
    options: EngineOptions,
    searcher: HubSearcher,
    watch: Option<ModelWatch>,
    time: Arc<dyn TimeSource>,
}

impl Engine {
    /// Loads the evaluator, so a bad model is reported before the protocol starts.
    pub fn new(options: EngineOptions) -> Result<Engine, String> {
        let (evaluator, watch) = load_evaluator(&options.eval)?;
        let time: Arc<dyn TimeSource> = Arc::new(RealClock::new());
        Ok(Engine {
            searcher: new_searcher(evaluator, &options, &time),
            watch,
            options,
            time,
        })
    }

    /// The engine keeping its clock on `time` instead of the real clock (tests run it on
    /// a simulated one).
    pub fn with_time_source(mut self, time: Arc<dyn TimeSource>) -> Engine {
        self.searcher = self.searcher.with_time_source(Arc::clone(&time));
        self.time = time;
        self
    }

    /// Runs the engine on `input` and `output` until `quit` or the end of the input.
    /// Errors are output errors (the client went away).
    pub fn run<R, W>(self, input: R, output: W) -> io::Result<()>
    where
        R: BufRead + Send + 'static,
        W: Write + Send + 'static,
    {
        run_session(self, input, output)
    }
}

fn new_searcher(
    evaluator: AnyEvaluator<Brazilian>,
    options: &EngineOptions,
    time: &Arc<dyn TimeSource>,
) -> HubSearcher {
    Searcher::new(evaluator, SearchConfig::FULL, options.hash_mib)
        .with_tablebase(options.tablebase.clone())
        .with_time_source(Arc::clone(time))
        .with_threads(options.threads)
}

/// The evaluator `spec` names, with a watch on its file when it is a model.
fn load_evaluator(
    spec: &EvalSpec,
) -> Result<(AnyEvaluator<Brazilian>, Option<ModelWatch>), String> {
    let (evaluator, header) = spec.load::<Brazilian>().map_err(|e| e.to_string())?;
    let watch = match (spec, header) {
        (EvalSpec::Model(path), Some(header)) => Some(ModelWatch::new(path, header.revision)),
        _ => None,
    };
    Ok((evaluator, watch))
}

fn run_session<R, W>(engine: Engine, input: R, output: W) -> io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let (events, inbox) = mpsc::channel();
    let reader_events = events.clone();
    std::thread::spawn(move || {
        let mut input = input;
        loop {
            let item = read_line(&mut input);
            let end = matches!(item, Ok(Input::End) | Err(_));
            if reader_events.send(Event::Input(item)).is_err() || end {
                break;
            }
        }
    });
    let mut session = Session {
        out: Output {
            writer: Arc::new(Mutex::new(output)),
        },
        options: engine.options,
        searcher: Some(engine.searcher),
        watch: engine.watch,
        time: engine.time,
        record: Ok(GameRecord::new(Brazilian::start())),
        level: Level::default(),
        running: None,
        searches: 0,
        events,
    };
    let result = session.main_loop(&inbox);
    session.stop_and_join();
    result
}

impl<W: Write + Send + 'static> Session<W> {
    fn main_loop(&mut self, inbox: &Receiver<Event>) -> io::Result<()> {
        loop {
            let deadline = self.running.as_ref().and_then(|r| r.hard_deadline);
            let event = match deadline {
                Some(deadline) => match inbox.recv_timeout(self.time.wait_until(deadline)) {
                    Ok(event) => event,
                    Err(RecvTimeoutError::Timeout) => {
                        if self.time.now() >= deadline
                            && let Some(running) = &mut self.running
                        {
                            running.stop.store(true, Ordering::Relaxed);
                            running.hard_deadline = None;
                        }
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => return Ok(()),
                },
                None => match inbox.recv() {
                    Ok(event) => event,
                    Err(_) => return Ok(()),
                },
            };
            match event {
                Event::Finished(id) => self.finished(id)?,
                Event::Input(Ok(Input::Line(text))) => {
                    if self.handle(&text)? == Flow::Quit {
                        return Ok(());
                    }
                }
                Event::Input(Ok(Input::TooLong(len))) => self.out.error(&format!(
                    "line of {len} bytes ignored: at most {} are read",
                    super::protocol::MAX_LINE_LEN
                ))?,
                Event::Input(Ok(Input::NotUtf8)) => {
                    self.out.error("line ignored: it is not UTF-8 text")?
                }
                Event::Input(Ok(Input::End) | Err(_)) => return Ok(()),
            }
        }
    }

    fn handle(&mut self, text: &str) -> io::Result<Flow> {
        let line = match parse_line(text) {
            Ok(Some(line)) => line,
            Ok(None) => return Ok(Flow::Continue),
            Err(e) => {
                self.out.error(&format!("malformed line: {e}"))?;
                return Ok(Flow::Continue);
            }
        };
        // While a search runs only these are allowed (Scan's rule); anything else would
        // change what the search is answering.
        match line.command.as_str() {
            "quit" => return Ok(Flow::Quit),
            "ping" => self.out.line("pong")?,
            "stop" => self.stop()?,
            "ponder-hit" => self.ponder_hit()?,
            command if self.running.is_some() => self.out.error(&format!(
                "'{command}' ignored: a search is running (send stop first)"
            ))?,
            "hub" => self.hub()?,
            "init" => {
                for note in &self.options.notes {
                    self.out.line(&format!("info message={}", quote(note)))?;
                }
                self.out.line("ready")?
            }
            "set-param" => {
                if let Err(e) = self.set_param(&line) {
                    self.out.error(&e)?;
                }
            }
            "new-game" => self.record = Ok(GameRecord::new(Brazilian::start())),
            "pos" => {
                self.record = read_position(&line);
                if let Err(e) = &self.record {
                    self.out.error(e)?;
                }
            }
            "level" => match Level::parse(&line, MAX_PLY as u32 - 8) {
                Ok(level) => self.level = level,
                Err(e) => self.out.error(&e)?,
            },
            "go" => self.go(&line)?,
            other => self.out.error(&format!(
                "unknown command '{}' (known: hub init ping set-param new-game pos level go \
                 ponder-hit stop quit)",
                other.chars().take(40).collect::<String>()
            ))?,
        }
        Ok(Flow::Continue)
    }

    fn hub(&self) -> io::Result<()> {
        let eval = match &self.options.eval {
            EvalSpec::Builtin(name) => name.clone(),
            EvalSpec::Model(path) => path.display().to_string(),
        };
        for line in [
            format!(
                "id name=evalearn version={} author={}",
                env!("CARGO_PKG_VERSION"),
                quote("the evalearn developers")
            ),
            format!("param name=variant value={VARIANT} type=enum values={VARIANT}"),
            format!("param name=eval value={} type=string", quote(&eval)),
            format!(
                "param name=hash value={} type=int min=1 max={MAX_HASH_MIB}",
                self.options.hash_mib
            ),
            format!(
                "param name=threads value={} type=int min=1 max={}",
                self.options.threads,
                max_threads()
            ),
            format!(
                "param name=move-overhead value={} type=int min=0 max={MAX_OVERHEAD_MS}",
                self.options.move_overhead.as_millis()
            ),
            "wait".to_string(),
        ] {
            self.out.line(&line)?;
        }
        Ok(())
    }

    fn set_param(&mut self, line: &Line) -> Result<(), String> {
        let name = line
            .value("name")
            .ok_or("set-param: missing name=PARAMETER")?;
        let value = line
            .value("value")
            .ok_or_else(|| format!("set-param name={name}: missing value=VALUE"))?;
        match name {
            "variant" if value == VARIANT => Ok(()),
            "variant" => Err(format!(
                "set-param variant: evalearn plays '{VARIANT}' only, not '{value}'"
            )),
            "eval" => {
                let spec = EvalSpec::parse_for::<Brazilian>(value)
                    .map_err(|e| format!("set-param eval: {e}"))?;
                let (evaluator, watch) =
                    load_evaluator(&spec).map_err(|e| format!("set-param eval: {e}"))?;
                *self.idle_searcher().evaluator_mut() = evaluator;
                self.watch = watch;
                self.options.eval = spec;
                Ok(())
            }
            "hash" => {
                let mib = whole_number(
                    &format!("set-param {name}"),
                    value,
                    1,
                    MAX_HASH_MIB as u64,
                    "MiB",
                )? as usize;
                if mib != self.options.hash_mib {
                    self.options.hash_mib = mib;
                    let evaluator = self.idle_searcher().evaluator().clone();
                    self.searcher = Some(new_searcher(evaluator, &self.options, &self.time));
                }
                Ok(())
            }
            "threads" => {
                let max = max_threads();
                let threads = whole_number(
                    &format!("set-param {name}"),
                    value,
                    1,
                    max as u64,
                    "threads",
                )
                .map_err(|e| format!("{e} (this machine runs {max} at once)"))?;
                self.options.threads = threads as usize;
                self.idle_searcher().set_threads(threads as usize);
                Ok(())
            }
            "move-overhead" => {
                let ms = whole_number(
                    &format!("set-param {name}"),
                    value,
                    0,
                    MAX_OVERHEAD_MS,
                    "milliseconds",
                )?;
                self.options.move_overhead = Duration::from_millis(ms);
                Ok(())
            }
            // Sent by the lidraughts bot bridge to every engine; the clock comes with
            // each `level` anyway.
            "initial-time" => Ok(()),
            other => Err(format!(
                "set-param: unknown parameter '{}' (known: variant eval hash threads move-overhead)",
                other.chars().take(40).collect::<String>()
            )),
        }
    }

    /// The searcher, home because no search runs (commands that need it are refused
    /// during a search).
    fn idle_searcher(&mut self) -> &mut HubSearcher {
        self.searcher
            .as_mut()
            .expect("no search runs, so the searcher is home")
    }

    /// A new revision of the model file replaces the evaluator before a search.
    fn reload_model(&mut self) -> io::Result<()> {
        let (Some(watch), Some(searcher)) = (&mut self.watch, &mut self.searcher) else {
            return Ok(());
        };
        match watch.check::<Brazilian>() {
            Reload::Unchanged => Ok(()),
            Reload::Loaded(loaded) => {
                let (evaluator, header) = *loaded;
                *searcher.evaluator_mut() = evaluator;
                self.out.line(&format!(
                    "info message={}",
                    quote(&format!("model reloaded: revision {}", header.revision))
                ))
            }
            Reload::Failed(why) => self.out.line(&format!(
                "info message={}",
                quote(&format!(
                    "new model file not loaded ({why}); playing on with the previous one"
                ))
            )),
        }
    }

    fn go(&mut self, line: &Line) -> io::Result<()> {
        let Go {
            mode,
            record,
            only_move,
        } = match self.prepare_go(line) {
            Ok(go) => go,
            Err(e) => {
                self.out.error(&e)?;
                return self.out.line("done");
            }
        };
        self.reload_model()?;
        let level = match mode {
            Mode::Analyze => Level::Fixed {
                depth: None,
                nodes: None,
                move_time: None,
            },
            _ => self.level.clone(),
        };
        let budget = level.budget(self.options.move_overhead);
        // A forced move on the clock costs no time.
        if let Some(mv) = only_move
            && mode == Mode::Think
            && budget.hard.is_some()
        {
            return self
                .out
                .line(&format!("done move={}", notation::format_move(mv)));
        }
        self.start_search(mode, record, &level, budget);
        Ok(())
    }

    /// Reads `go` and checks there is something to search.
    fn prepare_go(&mut self, line: &Line) -> Result<Go, String> {
        let mode = match line.args.first().map(|a| a.name.as_str()) {
            None | Some("think") => Mode::Think,
            Some("ponder") => Mode::Ponder,
            Some("analyze" | "analyse") => Mode::Analyze,
            Some(other) => {
                return Err(format!(
                    "go {}: expected think, ponder or analyze",
                    other.chars().take(40).collect::<String>()
                ));
            }
        };
        let record = match &self.record {
            Ok(record) => record.clone(),
            Err(e) => return Err(format!("go: no valid position ({e})")),
        };
        let mut list = <Brazilian as Game>::Moves::default();
        record.position().legal_moves(&mut list);
        if list.is_empty() {
            return Err("go: the side to move has no legal move".to_string());
        }
        Ok(Go {
            mode,
            record,
            only_move: (list.len() == 1).then(|| list[0]),
        })
    }

    /// Starts the search thread; its clock starts now unless it ponders.
    fn start_search(
        &mut self,
        mode: Mode,
        record: GameRecord<Brazilian>,
        level: &Level,
        budget: Budget,
    ) {
        let (depth, nodes) = level.depth_and_nodes();
        let stop = Arc::new(AtomicBool::new(false));
        let limits = Limits {
            depth,
            nodes,
            stop: Some(Arc::clone(&stop)),
            ..Limits::default()
        };
        let now = self.time.now();
        let pondering = mode == Mode::Ponder;
        let soft_mark = Arc::new(Mutex::new(None));
        self.searches += 1;
        let thread = self.spawn_search(record, limits, Arc::clone(&soft_mark), Arc::clone(&stop));
        let mut running = Running {
            id: self.searches,
            thread: Some(thread),
            stop,
            soft_mark,
            hard_deadline: None,
            pondering,
            budget,
            parked: None,
        };
        if !pondering {
            running.start_clock(now);
        }
        self.running = Some(running);
    }

    fn spawn_search(
        &mut self,
        record: GameRecord<Brazilian>,
        limits: Limits,
        soft_mark: Arc<Mutex<Option<Duration>>>,
        stop: Arc<AtomicBool>,
    ) -> JoinHandle<(HubSearcher, SearchResult<Brazilian>)> {
        let mut searcher = self.searcher.take().expect("no search runs yet");
        let out = self.out.clone();
        let events = self.events.clone();
        let id = self.searches;
        let time = Arc::clone(&self.time);
        std::thread::spawn(move || {
            let result = searcher.search(&record, &limits, |iteration| {
                let _ = out.line(&info_line(iteration));
                let mark = *soft_mark.lock().unwrap_or_else(|p| p.into_inner());
                if mark.is_some_and(|mark| time.now() >= mark) {
                    stop.store(true, Ordering::Relaxed);
                }
            });
            let _ = events.send(Event::Finished(id));
            (searcher, result)
        })
    }

    /// Search `id` ended: `done`, unless a ponder search must wait for `ponder-hit`.
    fn finished(&mut self, id: u64) -> io::Result<()> {
        match &self.running {
            Some(running) if running.id == id && running.thread.is_some() => self.collect(),
            _ => Ok(()), // collected already, by `stop`
        }
    }

    /// Waits for the running search's thread (which has ended or been told to stop) and
    /// says `done`, or parks the result while pondering.
    fn collect(&mut self) -> io::Result<()> {
        let Some(running) = &mut self.running else {
            return Ok(());
        };
        if let Some(thread) = running.thread.take() {
            match thread.join() {
                Ok((searcher, result)) => {
                    self.searcher = Some(searcher);
                    running.parked = Some(result);
                }
                Err(_) => {
                    // The searcher went down with its thread: the engine cannot go on.
                    self.running = None;
                    self.out.error("the search failed; the engine stops")?;
                    return Err(io::Error::other("the search thread failed"));
                }
            }
        }
        if running.pondering {
            return Ok(());
        }
        let result = running.parked.take();
        self.running = None;
        match result.and_then(|r| r.best_move.map(|mv| (mv, r.pv.get(1).copied()))) {
            Some((mv, reply)) => {
                let mut text = format!("done move={}", notation::format_move(mv));
                if let Some(reply) = reply {
                    text.push_str(&format!(" ponder={}", notation::format_move(reply)));
                }
                self.out.line(&text)
            }
            None => self.out.line("done"),
        }
    }

    /// `stop`: the search ends now and says `done` (a parked ponder result included).
    fn stop(&mut self) -> io::Result<()> {
        let Some(running) = &mut self.running else {
            return Ok(());
        };
        running.stop.store(true, Ordering::Relaxed);
        running.pondering = false;
        self.collect()
    }

    fn ponder_hit(&mut self) -> io::Result<()> {
        let Some(running) = &mut self.running else {
            return Ok(());
        };
        if !running.pondering {
            return Ok(());
        }
        running.pondering = false;
        running.start_clock(self.time.now());
        if running.thread.is_none() {
            return self.collect();
        }
        Ok(())
    }

    /// Stops a running search and waits for its thread (at quit).
    fn stop_and_join(&mut self) {
        if let Some(running) = self.running.take() {
            running.stop.store(true, Ordering::Relaxed);
            if let Some(thread) = running.thread {
                let _ = thread.join();
            }
        }
    }
}

impl Running {
    /// The move's clock starts: from now on the time marks apply.
    fn start_clock(&mut self, now: Duration) {
        if let Some(mark) = self.budget.last_iteration_start() {
            *self.soft_mark.lock().unwrap_or_else(|p| p.into_inner()) = Some(now + mark);
        }
        self.hard_deadline = self.budget.hard.map(|hard| now + hard);
    }
}

/// A `go` ready to search: the mode, the game, and the move when it is the only one.
struct Go {
    mode: Mode,
    record: GameRecord<Brazilian>,
    only_move: Option<Move>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Think,
    Ponder,
    Analyze,
}

/// Reads `pos [pos=POSITION] [moves="M1 M2 …"]`: the start position when `pos` is absent.
fn read_position(line: &Line) -> Result<GameRecord<Brazilian>, String> {
    for arg in &line.args {
        if !["pos", "moves"].contains(&arg.name.as_str()) {
            return Err(format!(
                "pos: unknown argument '{}' (known: pos, moves)",
                arg.name.chars().take(40).collect::<String>()
            ));
        }
    }
    let start = match line.value("pos") {
        Some(text) => notation::parse_position(text).map_err(|e| format!("pos: {e}"))?,
        None => Brazilian::start(),
    };
    let mut record = GameRecord::new(start);
    let moves = line.value("moves").unwrap_or("");
    for (i, text) in moves.split_whitespace().enumerate() {
        if i == MAX_MOVES {
            return Err(format!("pos: more than {MAX_MOVES} moves"));
        }
        let mv = notation::parse_move(record.position(), text)
            .map_err(|e| format!("pos: move {}: {e}", i + 1))?;
        record.play(mv);
    }
    Ok(record)
}

/// Scores in men as Scan writes them; a win `p` plies away is `(10000 − p) / 100`,
/// which pydraughts reads back as a win.
fn score_text(score: i32) -> String {
    let plies = WIN - score.abs();
    if score.abs() >= WIN_THRESHOLD {
        let sign = if score < 0 { "-" } else { "" };
        format!("{sign}{:.2}", f64::from(10_000 - plies) / 100.0)
    } else {
        format!("{:.2}", f64::from(score) / 100.0)
    }
}

fn info_line(iteration: &DepthReport<Brazilian>) -> String {
    let seconds = iteration.elapsed.as_secs_f64();
    let nodes = iteration.nodes.total();
    let mnps = if seconds > 0.0 {
        nodes as f64 / seconds / 1e6
    } else {
        0.0
    };
    let pv: Vec<String> = iteration
        .pv
        .iter()
        .map(|&mv| notation::format_move(mv))
        .collect();
    format!(
        "info depth={} score={} nodes={nodes} time={seconds:.3} nps={mnps:.2} pv={}",
        iteration.depth,
        score_text(iteration.score),
        quote(&pv.join(" "))
    )
}

/// The options of `--model PATH` / `--eval SPEC` (default `material`).
pub fn options_from_args(
    model: Option<PathBuf>,
    eval: Option<&str>,
    hash_mib: usize,
    threads: usize,
    move_overhead_ms: u64,
) -> Result<EngineOptions, String> {
    let eval = match (model, eval) {
        (Some(path), _) => EvalSpec::Model(path),
        (None, Some(text)) => EvalSpec::parse_for::<Brazilian>(text)?,
        (None, None) => EvalSpec::Builtin("material".to_string()),
    };
    Ok(EngineOptions {
        eval,
        hash_mib,
        threads,
        move_overhead: Duration::from_millis(move_overhead_ms),
        tablebase: None,
        notes: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_in_men_and_wins_read_as_wins() {
        assert_eq!(score_text(125), "1.25");
        assert_eq!(score_text(-40), "-0.40");
        assert_eq!(score_text(0), "0.00");
        assert_eq!(score_text(WIN - 7), "99.93");
        assert_eq!(score_text(-(WIN - 8)), "-99.92");
    }
}
