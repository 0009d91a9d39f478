//! `evalearn play`: a terminal game against the engine (Brazilian draughts or Kalah), with
//! the model hot-reloaded whenever training writes a new revision. Each game draws its
//! board and reads typed moves through [`Terminal`] (`draughts.rs`, `kalah.rs`); the
//! session — commands, engine moves, undo, hints, levels, saving — is written once.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use clap::Args;

use super::analyse::format_line;
use super::args::{GameArg, check_output, eval_spec, load_evaluator, search_threads, typed_flag};
use super::book::read_book;
use super::games::{Games, Job};
use super::{CliError, CliGame};
use crate::arena::human::{HumanSide, game_tags};
use crate::book::Book;
use crate::eval::spec::{AnyEvaluator, EvalSpec, ModelWatch, Reload};
use crate::game::view::MoveInput;
use crate::game::{GameRecord, GameStatus, Outcome, SavedGame, Side, player_tag};
use crate::io::model::ModelHeader;
use crate::rng::{self, Rng};
use crate::search::{Limits, MAX_PLY, SearchConfig, SearchResult, Searcher, format_score};

#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    game: GameArg,
    /// Model file to play against (hot-reloaded when training writes a new revision)
    #[arg(long, conflicts_with = "eval")]
    model: Option<PathBuf>,
    /// Evaluator: a built-in one (draughts `material`; Kalah `stores`, `activity`,
    /// `tseitin`) or a model file path; default: the game's baseline
    #[arg(long)]
    eval: Option<String>,
    /// The side you play: first (white, a), second (black, b), both, none
    #[arg(long, value_enum, default_value_t = HumanSide::First)]
    side: HumanSide,
    /// Engine depth per move
    #[arg(long, conflicts_with = "movetime", value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    depth: Option<u32>,
    /// Engine time per move in milliseconds (default 1000 when no depth is given)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Start position (draughts FEN; Kalah `A:` or `B:` and the 14 counts); the standard
    /// start if absent
    #[arg(long, visible_alias = "fen")]
    position: Option<String>,
    /// The game file finished games are added to: PDN for draughts, .klh for Kalah
    /// (default: games.pdn or games.klh in evalearn's data folder, $XDG_DATA_HOME/evalearn
    /// or ~/.local/share/evalearn; named when a game is saved)
    #[arg(long, visible_aliases = ["pdn", "save"])]
    record: Option<PathBuf>,
    /// Opening book: the engine plays its moves (drawn by the book's weights) while the
    /// position is in it
    #[arg(long)]
    book: Option<PathBuf>,
    /// Seed of the engine's book choices (each new game draws from its own stream)
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Transposition table in MiB (64, as analyse and hub: one search at a time; commands
    /// that play many games at once default to 2 per engine and worker)
    #[arg(long = "tt-mb", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=super::analyse::MAX_TT_MIB as u64))]
    tt_mb: u64,
    /// Threads of the engine's search (1 to the threads the machine runs at once)
    #[arg(long, default_value = "1", value_parser = search_threads)]
    threads: usize,
    #[command(flatten)]
    egdb: super::egdb::EgdbOption,
}

const COMMANDS_HELP: &str = "\
Commands:
  moves              list the legal moves
  undo               take back your last move (and the engine's reply)
  hint               ask the engine for a move
  flip               turn the board around
  level depth N      engine searches N plies per move
  level time MS      engine thinks MS milliseconds per move
  new                start a new game
  position           show the position's text (also: fen)
  position TEXT      start a new game from a position (also: fen TEXT)
  load FILE          load the first game of a game file (play on from its end)
  save FILE          save this game
  help               this text
  quit               leave (an unfinished game with moves is saved too)";

struct Session<G: CliGame> {
    variant: G::Variant,
    record: GameRecord<G>,
    start: G,
    human: HumanSide,
    limits: Limits,
    searcher: Searcher<G, AnyEvaluator<G>>,
    /// The model in play, when there is one: its header and the watch on its file.
    model: Option<(ModelHeader, ModelWatch)>,
    /// The built-in evaluator's name when no model is in play.
    builtin: String,
    flipped: bool,
    last_search: Option<String>,
    /// A turn the person is typing part by part (Kalah sowings): the text so far and
    /// the position it leads to.
    pending: Option<(String, G)>,
    save_path: PathBuf,
    saved: bool,
    out: std::io::Stdout,
    book: Option<Arc<Book<G>>>,
    seed: u64,
    /// Games started in this session: the stream of the current game's book choices.
    games: u64,
    book_rng: Rng,
}

pub fn play(games: &Games, args: PlayArgs) -> Result<(), CliError> {
    let spec = match (&args.model, &args.eval) {
        (Some(path), _) => Some(EvalSpec::Model(path.clone())),
        (None, Some(text)) => Some(eval_spec(games, "--eval", text)?),
        (None, None) => None,
    };
    let game = args.game.resolve(games, &spec.iter().collect::<Vec<_>>())?;
    games.run(&game, Job::Play(Box::new(args), spec))
}

pub(super) fn play_game<G: CliGame>(
    variant: G::Variant,
    args: PlayArgs,
    spec: Option<EvalSpec>,
) -> Result<(), CliError> {
    let spec = spec.unwrap_or_else(|| EvalSpec::Builtin(G::BUILTINS[0].to_string()));
    let (evaluator, header) = load_evaluator::<G>(variant, &spec)?;
    let start: G = super::position_arg(variant, args.position.as_deref())?;
    let model = match (&spec, header) {
        (EvalSpec::Model(path), Some(header)) => {
            let watch = ModelWatch::new(path, header.revision);
            Some((header, watch))
        }
        _ => None,
    };
    let book = match &args.book {
        Some(path) => Some(read_book::<G>(variant, path)?),
        None => None,
    };
    let save_path = match &args.record {
        Some(path) => {
            check_output(typed_flag("--record", &["--pdn", "--save"]), path)?;
            path.clone()
        }
        None => default_record::<G>()?,
    };
    let mut session = Session {
        variant,
        record: GameRecord::new(start),
        start,
        human: args.side,
        limits: match (args.depth, args.movetime) {
            (Some(depth), _) => Limits::depth(depth),
            (None, Some(ms)) => Limits::movetime(Duration::from_millis(ms)),
            (None, None) => Limits::movetime(Duration::from_millis(1000)),
        },
        searcher: Searcher::new(evaluator, SearchConfig::FULL, args.tt_mb as usize)
            .with_tablebase(args.egdb.load::<G>()?)
            .with_threads(args.threads),
        model,
        builtin: spec.to_string(),
        flipped: args.side == HumanSide::Second,
        last_search: None,
        pending: None,
        save_path,
        saved: false,
        out: std::io::stdout(),
        book,
        seed: args.seed,
        games: 0,
        book_rng: rng::stream(args.seed, 0),
    };
    let you = match args.side {
        HumanSide::First | HumanSide::Second => {
            let side = if args.side == HumanSide::First {
                Side::First
            } else {
                Side::Second
            };
            player_tag::<G>(side)
        }
        HumanSide::Both => "both sides".to_string(),
        HumanSide::None => "watching".to_string(),
    };
    let commands = match args.side {
        HumanSide::None => "Type quit to stop watching",
        _ => "Type help for commands",
    };
    let threads = match args.threads {
        1 => String::new(),
        n => format!(" on {n} threads"),
    };
    session.say(&format!(
        "evalearn play ({}): you are {you}; the engine uses {}{threads}. Games are saved to \
         {}. {commands}.",
        G::variant_name(variant),
        session.engine_label(),
        session.save_path.display()
    ));
    if args.side == HumanSide::None {
        return session.watch();
    }
    session.run()
}

impl<G: CliGame> Session<G> {
    fn say(&mut self, text: &str) {
        let _ = writeln!(self.out, "{text}");
        let _ = self.out.flush();
    }

    fn engine_label(&self) -> String {
        match &self.model {
            Some((header, watch)) => format!(
                "model {} ({}, revision {})",
                watch.path().display(),
                header.kind,
                header.revision
            ),
            None => format!("the {} evaluator", self.builtin),
        }
    }

    fn position(&self) -> G {
        *self.record.position()
    }

    /// Watch mode: the engine plays both sides while lines typed meanwhile (read by a
    /// thread of their own, so that the games go on) are looked at between moves.
    fn watch(&mut self) -> Result<(), CliError> {
        let (typed, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::stdin().lines().map_while(Result::ok) {
                if typed.send(line).is_err() {
                    break;
                }
            }
        });
        self.show_board();
        loop {
            let status = self.record.status();
            if status != GameStatus::Ongoing {
                self.announce(status);
                self.autosave(status);
                return Ok(());
            }
            while let Ok(line) = lines.try_recv() {
                match line.trim() {
                    "" => {}
                    "quit" | "exit" | "stop" => {
                        self.say("stopped watching");
                        self.quit();
                        return Ok(());
                    }
                    other => self.say(&format!(
                        "{other}: while watching, only quit (or Ctrl-C) is understood; it \
                         stops the game and saves it"
                    )),
                }
            }
            self.engine_move();
        }
    }

    fn run(&mut self) -> Result<(), CliError> {
        let stdin = std::io::stdin();
        let interactive = stdin.is_terminal();
        let mut lines = stdin.lock().lines();
        self.show_board();
        loop {
            let status = self.record.status();
            let ongoing = status == GameStatus::Ongoing;
            if ongoing && !self.human.plays(self.position().side_to_move()) {
                self.engine_move();
                continue;
            }
            if !ongoing && !self.saved {
                self.announce(status);
                self.autosave(status);
            }
            if interactive {
                let side = G::side_name(self.position().side_to_move());
                let typed = self
                    .pending
                    .as_ref()
                    .map_or(String::new(), |(text, _)| format!(" {text},"));
                let _ = write!(self.out, "{side}>{typed} ");
                let _ = self.out.flush();
            }
            let Some(line) = lines.next() else {
                // End of input: leave, saving an unfinished game that has moves.
                self.quit();
                return Ok(());
            };
            let line = line.map_err(|e| CliError::failure(format!("cannot read input: {e}")))?;
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if !interactive {
                self.say(&format!("> {line}"));
            }
            if self.command(line, ongoing) {
                return Ok(());
            }
        }
    }

    /// Runs one input line; true to leave.
    fn command(&mut self, line: &str, ongoing: bool) -> bool {
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match word {
            "quit" | "exit" => {
                self.quit();
                return true;
            }
            "help" => {
                let text = format!("{}\n{COMMANDS_HELP}", G::MOVE_HELP);
                self.say(&text);
            }
            "moves" => {
                let pos = self.position();
                let mut moves = G::Moves::default();
                pos.legal_moves(&mut moves);
                let texts: Vec<String> = moves.iter().map(|&m| pos.describe_move(m)).collect();
                self.say(&format!("legal moves: {}", texts.join(", ")));
            }
            "flip" => {
                self.flipped = !self.flipped;
                self.show_board();
            }
            "undo" => self.undo(),
            "hint" => {
                if !ongoing {
                    self.say("the game is over");
                } else {
                    let result = self.think();
                    let pos = self.position();
                    if let Some(mv) = result.best_move {
                        self.say(&format!(
                            "hint: {}   {}",
                            pos.describe_move(mv),
                            search_summary(&pos, &result)
                        ));
                    }
                }
            }
            "level" => self.level(rest),
            "new" => self.new_game(self.start),
            "position" | "fen" if rest.is_empty() => {
                let text = self.position().format_position();
                self.say(&format!("{word} {text}"));
            }
            "position" | "fen" => match G::parse_position_of(self.variant, rest) {
                Ok(pos) => {
                    self.start = pos;
                    self.new_game(pos);
                }
                Err(e) => self.say(&format!("not a position: {e}")),
            },
            "load" => self.load(Path::new(rest)),
            "save" if rest.is_empty() => self.say("save FILE: give the file to save the game to"),
            "save" => {
                let result = self.current_result();
                match self.write_game(Path::new(rest), result, false) {
                    Ok(()) => self.say(&format!("saved to {rest}")),
                    // The path, as load says it: the error alone does not tell which.
                    Err(e) => self.say(&format!("cannot save to {rest}: {e}")),
                }
            }
            _ if !ongoing => self.say("the game is over: new, undo, load, save or quit"),
            // No game's moves are made of letters alone (squares have digits).
            _ if word.len() > 1 && word.chars().all(|c| c.is_ascii_alphabetic()) => self.say(
                &format!("unknown command {word}: type help for the commands"),
            ),
            _ => self.human_move(line),
        }
        false
    }

    fn human_move(&mut self, text: &str) {
        let pos = self.position();
        let typed = match &self.pending {
            Some((so_far, _)) => format!("{so_far},{text}"),
            None => text.to_string(),
        };
        match pos.read_move(&typed) {
            MoveInput::Move(mv) => {
                self.pending = None;
                self.record.play(mv);
                self.saved = false;
                self.last_search = None;
                self.show_board();
            }
            MoveInput::Continue(shown) => {
                self.pending = Some((typed, shown));
                self.show_board();
            }
            MoveInput::Invalid(why) => self.say(&why),
        }
    }

    /// Searches the current position with the engine's settings.
    fn think(&mut self) -> SearchResult<G> {
        self.searcher.search(&self.record, &self.limits, |_| {})
    }

    fn engine_move(&mut self) {
        self.reload_model();
        let pos = self.position();
        if let Some(book) = &self.book
            && let Some(mv) = book.choose(&pos, &mut self.book_rng)
        {
            let moves = book.probe(&pos).unwrap_or(&[]);
            let score = moves.iter().find(|m| m.mv == mv).map_or(0, |m| m.score);
            let line = format!(
                "{} plays {}   [book, score {}, {} book move{}]",
                G::side_name(pos.side_to_move()),
                pos.describe_move(mv),
                format_score::<G>(score),
                moves.len(),
                if moves.len() == 1 { "" } else { "s" }
            );
            self.played_by_engine(mv, line);
            return;
        }
        let result = self.think();
        let Some(mv) = result.best_move else {
            return;
        };
        let line = format!(
            "{} plays {}   {}",
            G::side_name(pos.side_to_move()),
            pos.describe_move(mv),
            search_summary(&pos, &result)
        );
        self.played_by_engine(mv, line);
    }

    /// Says the engine's move `mv` (`line`: the move and why), plays it and shows the
    /// board; the line is kept for redrawing the board (`flip`), not repeated under this
    /// board.
    fn played_by_engine(&mut self, mv: G::Move, line: String) {
        self.say(&line);
        self.record.play(mv);
        self.saved = false;
        self.last_search = None;
        self.show_board();
        self.last_search = Some(line);
    }

    /// Before each engine move: a new revision of the model file replaces the evaluator;
    /// a file that cannot be loaded leaves the current one in play (said once).
    fn reload_model(&mut self) {
        let Some((_, watch)) = &mut self.model else {
            return;
        };
        match watch.check::<G>() {
            Reload::Unchanged => {}
            Reload::Loaded(loaded) => {
                let (evaluator, header) = *loaded;
                *self.searcher.evaluator_mut() = evaluator;
                let meta = &header.meta;
                let line = format!(
                    "model reloaded: revision {} ({} games, {} positions seen, seed {})",
                    header.revision, meta.games, meta.positions, meta.seed
                );
                if let Some((current, _)) = &mut self.model {
                    *current = header;
                }
                self.say(&line);
            }
            Reload::Failed(why) => {
                let revision = self.model.as_ref().map_or(0, |(h, _)| h.revision);
                self.say(&format!(
                    "warning: cannot load the new model file ({why}); playing on with revision {revision}"
                ));
            }
        }
    }

    fn undo(&mut self) {
        if self.pending.take().is_some() {
            self.say("turn started again");
            self.show_board();
            return;
        }
        if self.record.undo().is_none() {
            self.say("nothing to take back");
            return;
        }
        // Back to a position where the person is to move.
        while !self.human.plays(self.position().side_to_move()) && self.record.undo().is_some() {}
        self.saved = false;
        self.last_search = None;
        self.show_board();
    }

    fn level(&mut self, rest: &str) {
        let mut words = rest.split_whitespace();
        let (kind, value) = (
            words.next(),
            words.next().and_then(|v| v.parse::<u64>().ok()),
        );
        match (kind, value) {
            (Some("depth"), Some(d)) if (1..=(MAX_PLY as u64 - 8)).contains(&d) => {
                self.limits = Limits::depth(d as u32);
                self.say(&format!("engine searches {d} plies per move"));
            }
            (Some("time"), Some(ms)) if ms >= 1 => {
                self.limits = Limits::movetime(Duration::from_millis(ms));
                self.say(&format!("engine thinks {ms} ms per move"));
            }
            _ => self.say("usage: level depth N (1..120) | level time MS"),
        }
    }

    fn new_game(&mut self, start: G) {
        self.games += 1;
        self.book_rng = rng::stream(self.seed, self.games);
        self.record = GameRecord::new(start);
        self.pending = None;
        self.saved = false;
        self.last_search = None;
        self.say("new game");
        self.show_board();
    }

    fn load(&mut self, path: &Path) {
        let games = std::fs::metadata(path)
            .map_err(|e| e.to_string())
            .and_then(|meta| {
                if meta.len() > G::MAX_FILE_BYTES as u64 {
                    Err(format!("larger than {} bytes", G::MAX_FILE_BYTES))
                } else {
                    std::fs::read_to_string(path).map_err(|e| e.to_string())
                }
            })
            .and_then(|text| G::read_games(self.variant, &text));
        match games {
            Ok(games) if !games.is_empty() => {
                self.record = games[0].record();
                self.start = *self.record.start();
                self.pending = None;
                self.saved = false;
                self.last_search = None;
                self.say(&format!(
                    "loaded {} moves from {}",
                    self.record.ply(),
                    path.display()
                ));
                self.show_board();
            }
            Ok(_) => self.say(&format!("{}: no game in it", path.display())),
            Err(e) => self.say(&format!("cannot load {}: {e}", path.display())),
        }
    }

    fn current_result(&self) -> Option<Outcome> {
        match self.record.status() {
            GameStatus::Over { outcome, .. } => Some(outcome),
            GameStatus::Ongoing => None,
        }
    }

    fn announce(&mut self, status: GameStatus) {
        let GameStatus::Over { outcome, reason } = status else {
            return;
        };
        let text = self.position().describe_end(outcome, reason);
        self.say(&format!("game over: {text}"));
    }

    fn autosave(&mut self, status: GameStatus) {
        let result = match status {
            GameStatus::Over { outcome, .. } => Some(outcome),
            GameStatus::Ongoing => None,
        };
        let path = self.save_path.clone();
        match self.write_game(&path, result, true) {
            Ok(()) => self.say(&format!("game saved to {}", path.display())),
            Err(e) => self.say(&format!(
                "warning: cannot save the game to {}: {e}",
                path.display()
            )),
        }
        self.saved = true;
    }

    fn quit(&mut self) {
        if !self.saved && self.record.ply() > 0 {
            let status = self.record.status();
            self.autosave(status);
        }
    }

    /// Writes the game to `path` in the game's file format (appending to the games
    /// already there when `append`), atomically.
    fn write_game(&self, path: &Path, result: Option<Outcome>, append: bool) -> Result<(), String> {
        let tags = game_tags::<G>("evalearn play", self.human, &self.engine_label());
        let game = SavedGame::from_record(&self.record, tags, result);
        let mut text = String::new();
        if append && let Ok(old) = std::fs::read_to_string(path) {
            text.push_str(old.trim_end());
            if !text.is_empty() {
                text.push_str("\n\n");
            }
        }
        text.push_str(&G::write_game(&game));
        crate::io::write_atomic(path, text.as_bytes()).map_err(|e| e.to_string())
    }

    fn show_board(&mut self) {
        let pos = match &self.pending {
            Some((_, shown)) => *shown,
            None => self.position(),
        };
        let mut text = pos.render(self.flipped);
        let to_move = G::side_name(pos.side_to_move());
        let last = self.record.moves().last().map(|&mv| {
            let before = self.record.positions()[self.record.ply() - 1];
            before.describe_move(mv)
        });
        text.push_str(&format!(
            "move {}, {to_move} to move{}",
            self.record.ply() / 2 + 1,
            last.map_or(String::new(), |l| format!(", last move {l}"))
        ));
        if let Some((typed, _)) = &self.pending {
            text.push_str(&format!(
                "\nthe turn goes on after {typed}: type the next sowing (undo starts the turn again)"
            ));
        }
        if let Some(search) = &self.last_search {
            text.push_str(&format!("\nengine: {search}"));
        }
        self.say(&text);
    }
}

/// Where `play` keeps games when not told (`--record`): `games.EXT` in evalearn's data
/// folder, `$XDG_DATA_HOME/evalearn` or else `~/.local/share/evalearn` (created), never
/// the working folder.
fn default_record<G: CliGame>() -> Result<PathBuf, CliError> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let folder = absolute("XDG_DATA_HOME")
        .or_else(|| absolute("HOME").map(|home| home.join(".local").join("share")))
        .ok_or_else(|| {
            CliError::input(
                "no data folder to save games in (neither XDG_DATA_HOME nor HOME is set): \
                 give --record FILE",
            )
        })?
        .join("evalearn");
    std::fs::create_dir_all(&folder).map_err(|e| {
        CliError::input(format!(
            "cannot create the data folder {} ({e}): give --record FILE",
            folder.display()
        ))
    })?;
    let path = folder.join(format!("games.{}", G::FILE_EXTENSION));
    check_output("the data folder's game file", &path)?;
    Ok(path)
}

fn search_summary<G: CliGame>(pos: &G, result: &SearchResult<G>) -> String {
    format!(
        "[depth {}, score {}, {:.2} s] {}",
        result.depth,
        format_score::<G>(result.score),
        result.elapsed.as_secs_f64(),
        format_line(pos, &result.pv, false)
    )
}
