//! `evalearn play`: a terminal game of Brazilian draughts against the engine, with the
//! model hot-reloaded whenever training writes a new revision.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::CliError;
use super::analyse::format_line;
use crate::eval::spec::{AnyEvaluator, EvalSpec, ModelWatch, Reload};
use crate::game::checkers::pdn::{self, PdnGame, PdnResult};
use crate::game::checkers::{Checkers, Move, Piece, Square};
use crate::game::{EndReason, Game, GameRecord, GameStatus, MoveList, Outcome, Side};
use crate::io::model::ModelHeader;
use crate::search::{Limits, MAX_PLY, SearchConfig, SearchResult, Searcher, format_score};

/// Which sides the person plays.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum HumanSide {
    White,
    Black,
    /// The person plays both sides (the engine only gives hints).
    Both,
    /// The engine plays itself (watch mode).
    None,
}

impl HumanSide {
    fn plays(self, side: Side) -> bool {
        match self {
            HumanSide::White => side == Side::First,
            HumanSide::Black => side == Side::Second,
            HumanSide::Both => true,
            HumanSide::None => false,
        }
    }
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Model file to play against (hot-reloaded when training writes a new revision)
    #[arg(long, conflicts_with = "eval")]
    model: Option<PathBuf>,
    /// Evaluator: `material` or a model file path
    #[arg(long, default_value = "material")]
    eval: String,
    /// The side you play
    #[arg(long, value_enum, default_value_t = HumanSide::White)]
    side: HumanSide,
    /// Engine depth per move
    #[arg(long, conflicts_with = "movetime", value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    depth: Option<u32>,
    /// Engine time per move in milliseconds (default 1000 when no depth is given)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Start position (FEN); the standard start if absent
    #[arg(long)]
    fen: Option<String>,
    /// Where finished games are saved (appended) as PDN
    #[arg(long, default_value = "evalearn-games.pdn")]
    pdn: PathBuf,
    /// Transposition table size in MiB
    #[arg(long = "tt-mb", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=super::analyse::MAX_TT_MIB as u64))]
    tt_mb: u64,
}

const HELP: &str = "\
Type a move in numeric (22-17, 26x17) or algebraic (c3-d4, e3xc5) notation; a start
square or any prefix that names one legal move is enough. Commands:
  moves              list the legal moves
  undo               take back your last move (and the engine's reply)
  hint               ask the engine for a move
  flip               turn the board around
  level depth N      engine searches N plies per move
  level time MS      engine thinks MS milliseconds per move
  new                start a new game
  fen                show the position as FEN
  fen FEN            start a new game from a position
  load FILE.pdn      load the first game of a PDN file (play on from its end)
  save FILE.pdn      save this game as PDN
  help               this text
  quit               leave (an unfinished game with moves is saved too)";

struct Session {
    record: GameRecord<Checkers>,
    start: Checkers,
    human: HumanSide,
    limits: Limits,
    searcher: Searcher<Checkers, AnyEvaluator>,
    /// The model in play, when there is one: its header and the watch on its file.
    model: Option<(ModelHeader, ModelWatch)>,
    flipped: bool,
    last_search: Option<String>,
    pdn_path: PathBuf,
    saved: bool,
    out: std::io::Stdout,
}

pub fn play(args: PlayArgs) -> Result<(), CliError> {
    let spec = match &args.model {
        Some(path) => EvalSpec::Model(path.clone()),
        None => EvalSpec::parse(&args.eval).map_err(CliError::input)?,
    };
    let (evaluator, header) = spec.load().map_err(|e| CliError::input(e.to_string()))?;
    let start = match &args.fen {
        Some(text) => Checkers::parse_position(text).map_err(|e| CliError::input(e.to_string()))?,
        None => Checkers::start(),
    };
    let model = match (&spec, header) {
        (EvalSpec::Model(path), Some(header)) => {
            let watch = ModelWatch::new(path, header.revision);
            Some((header, watch))
        }
        _ => None,
    };
    let mut session = Session {
        record: GameRecord::new(start),
        start,
        human: args.side,
        limits: match (args.depth, args.movetime) {
            (Some(depth), _) => Limits::depth(depth),
            (None, Some(ms)) => Limits::movetime(Duration::from_millis(ms)),
            (None, None) => Limits::movetime(Duration::from_millis(1000)),
        },
        searcher: Searcher::new(evaluator, SearchConfig::FULL, args.tt_mb as usize),
        model,
        flipped: args.side == HumanSide::Black,
        last_search: None,
        pdn_path: args.pdn.clone(),
        saved: false,
        out: std::io::stdout(),
    };
    session.say(&format!(
        "evalearn play: you are {}; the engine uses {}. Type help for commands.",
        match args.side {
            HumanSide::White => "White",
            HumanSide::Black => "Black",
            HumanSide::Both => "both sides",
            HumanSide::None => "watching",
        },
        session.engine_label()
    ));
    session.run()
}

impl Session {
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
            None => "the material evaluator".to_string(),
        }
    }

    fn position(&self) -> Checkers {
        *self.record.position()
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
                if self.human == HumanSide::None {
                    return Ok(());
                }
            }
            if interactive {
                let side = Checkers::side_name(self.position().side_to_move());
                let _ = write!(self.out, "{side}> ");
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
            "help" => self.say(HELP),
            "moves" => {
                let pos = self.position();
                let mut moves = MoveList::new();
                pos.legal_moves(&mut moves);
                let texts: Vec<String> = moves.iter().map(|&m| both_notations(&pos, m)).collect();
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
                            both_notations(&pos, mv),
                            search_summary(&pos, &result)
                        ));
                    }
                }
            }
            "level" => self.level(rest),
            "new" => self.new_game(self.start),
            "fen" if rest.is_empty() => {
                let fen = self.position().format_position();
                self.say(&format!("fen {fen}"));
            }
            "fen" => match Checkers::parse_position(rest) {
                Ok(pos) => {
                    self.start = pos;
                    self.new_game(pos);
                }
                Err(e) => self.say(&format!("not a position: {e}")),
            },
            "load" => self.load(Path::new(rest)),
            "save" => {
                let result = self.current_result();
                match self.write_pdn(Path::new(rest), result, false) {
                    Ok(()) => self.say(&format!("saved to {rest}")),
                    Err(e) => self.say(&format!("cannot save: {e}")),
                }
            }
            _ if !ongoing => self.say("the game is over: new, undo, load, save or quit"),
            _ => self.human_move(line),
        }
        false
    }

    fn human_move(&mut self, text: &str) {
        let pos = self.position();
        match resolve_move(&pos, text) {
            Ok(mv) => {
                self.record.play(mv);
                self.saved = false;
                self.last_search = None;
                self.show_board();
            }
            Err(why) => self.say(&why),
        }
    }

    /// Searches the current position with the engine's settings.
    fn think(&mut self) -> SearchResult<Checkers> {
        self.searcher.search(&self.record, &self.limits, |_| {})
    }

    fn engine_move(&mut self) {
        self.reload_model();
        let pos = self.position();
        let result = self.think();
        let Some(mv) = result.best_move else {
            return;
        };
        let line = format!(
            "{} plays {}   {}",
            Checkers::side_name(pos.side_to_move()),
            both_notations(&pos, mv),
            search_summary(&pos, &result)
        );
        self.say(&line);
        self.last_search = Some(line);
        self.record.play(mv);
        self.saved = false;
        self.show_board();
    }

    /// Before each engine move: a new revision of the model file replaces the evaluator;
    /// a file that cannot be loaded leaves the current one in play (said once).
    fn reload_model(&mut self) {
        let Some((_, watch)) = &mut self.model else {
            return;
        };
        match watch.check() {
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

    fn new_game(&mut self, start: Checkers) {
        self.record = GameRecord::new(start);
        self.saved = false;
        self.last_search = None;
        self.say("new game");
        self.show_board();
    }

    fn load(&mut self, path: &Path) {
        let games = std::fs::metadata(path)
            .map_err(|e| e.to_string())
            .and_then(|meta| {
                if meta.len() > pdn::MAX_PDN_BYTES as u64 {
                    Err(format!("larger than {} bytes", pdn::MAX_PDN_BYTES))
                } else {
                    std::fs::read_to_string(path).map_err(|e| e.to_string())
                }
            })
            .and_then(|text| pdn::read_games(&text).map_err(|e| e.to_string()));
        match games {
            Ok(games) if !games.is_empty() => {
                self.record = games[0].record();
                self.start = *self.record.start();
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

    fn current_result(&self) -> PdnResult {
        match self.record.status() {
            GameStatus::Over { outcome, .. } => PdnResult::from_outcome(Some(outcome)),
            GameStatus::Ongoing => PdnResult::Unknown,
        }
    }

    fn announce(&mut self, status: GameStatus) {
        let GameStatus::Over { outcome, reason } = status else {
            return;
        };
        let result = match outcome {
            Outcome::Win(side) => format!("{} wins", Checkers::side_name(side)),
            Outcome::Draw => "draw".to_string(),
        };
        let why = match reason {
            EndReason::NoMoves => "the side to move has no move",
            EndReason::Repetition => "the same position for the third time",
            EndReason::QuietMoveRule => "20 king moves each without a capture",
            EndReason::PlyCap => "move limit",
        };
        self.say(&format!("game over: {result} ({why})"));
    }

    fn autosave(&mut self, status: GameStatus) {
        let result = match status {
            GameStatus::Over { outcome, .. } => PdnResult::from_outcome(Some(outcome)),
            GameStatus::Ongoing => PdnResult::Unknown,
        };
        let path = self.pdn_path.clone();
        match self.write_pdn(&path, result, true) {
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

    /// Writes the game as PDN to `path` (appending to the games already there when
    /// `append`), atomically.
    fn write_pdn(&self, path: &Path, result: PdnResult, append: bool) -> Result<(), String> {
        let engine = format!("evalearn ({})", self.engine_label());
        let name = |side| {
            if self.human.plays(side) {
                "human".to_string()
            } else {
                engine.clone()
            }
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        // "YYYY-MM-DD hh:mm:ss UTC" → PDN's "YYYY.MM.DD".
        let date = crate::io::model::format_utc(now)[..10].replace('-', ".");
        let tags = vec![
            ("Event".to_string(), "evalearn play".to_string()),
            ("Site".to_string(), "evalearn".to_string()),
            ("Date".to_string(), date),
            ("White".to_string(), name(Side::First)),
            ("Black".to_string(), name(Side::Second)),
        ];
        let game = PdnGame::from_record(&self.record, tags, result);
        let mut text = String::new();
        if append && let Ok(old) = std::fs::read_to_string(path) {
            text.push_str(old.trim_end());
            if !text.is_empty() {
                text.push_str("\n\n");
            }
        }
        text.push_str(&pdn::write_game(&game));
        crate::io::write_atomic(path, text.as_bytes()).map_err(|e| e.to_string())
    }

    fn show_board(&mut self) {
        let pos = self.position();
        let mut text = render_board(&pos, self.flipped);
        let to_move = Checkers::side_name(pos.side_to_move());
        let last = self.record.moves().last().map(|&mv| {
            let before = self.record.positions()[self.record.ply() - 1];
            both_notations(&before, mv)
        });
        text.push_str(&format!(
            "move {}, {to_move} to move{}",
            self.record.ply() / 2 + 1,
            last.map_or(String::new(), |l| format!(", last move {l}"))
        ));
        if let Some(search) = &self.last_search {
            text.push_str(&format!("\nengine: {search}"));
        }
        self.say(&text);
    }
}

/// `22-17 (c3-b4)`.
fn both_notations(pos: &Checkers, mv: Move) -> String {
    format!(
        "{} ({})",
        pos.format_move(mv),
        pos.format_move_algebraic(mv)
    )
}

fn search_summary(pos: &Checkers, result: &SearchResult<Checkers>) -> String {
    format!(
        "[depth {}, score {}, {:.2} s] {}",
        result.depth,
        format_score(result.score),
        result.elapsed.as_secs_f64(),
        format_line(pos, &result.pv, false)
    )
}

/// The board with both coordinates: files a–h and ranks 1–8 around it, and on each empty
/// dark square its PDN number. `w`/`W` White man/king, `b`/`B` Black man/king.
pub fn render_board(pos: &Checkers, flipped: bool) -> String {
    let files: Vec<u8> = if flipped {
        (0..8).rev().collect()
    } else {
        (0..8).collect()
    };
    let ranks: Vec<u8> = if flipped {
        (0..8).collect()
    } else {
        (0..8).rev().collect()
    };
    let letters: String = files
        .iter()
        .map(|&f| format!("{:>3}", (b'a' + f) as char))
        .collect();
    let mut out = format!("  {letters}\n");
    for &rank in &ranks {
        out.push_str(&format!("{} ", rank + 1));
        for &file in &files {
            let cell = match Square::from_file_rank(file, rank) {
                None => "   ".to_string(),
                Some(sq) => match pos.piece_at(sq) {
                    Some(Piece::Man(Side::First)) => "  w".to_string(),
                    Some(Piece::King(Side::First)) => "  W".to_string(),
                    Some(Piece::Man(Side::Second)) => "  b".to_string(),
                    Some(Piece::King(Side::Second)) => "  B".to_string(),
                    None => format!("{:>3}", sq.number()),
                },
            };
            out.push_str(&cell);
        }
        out.push_str(&format!("  {}\n", rank + 1));
    }
    out.push_str(&format!("  {letters}\n"));
    out
}

/// The legal move a person means by `text`: a full move in either notation, or a start
/// square (`22`, `c3`) or prefix (`22-1`) that only one legal move fits.
pub fn resolve_move(pos: &Checkers, text: &str) -> Result<Move, String> {
    let error = match pos.parse_move(text) {
        Ok(mv) => return Ok(mv),
        Err(e) => e,
    };
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if moves.is_empty() {
        return Err("the side to move has no legal move".to_string());
    }
    let typed: Vec<&str> = text
        .trim()
        .split(['-', 'x', 'X', ':'])
        .map(str::trim)
        .collect();
    let algebraic = typed[0].starts_with(|c: char| c.is_ascii_alphabetic());
    let name = |sq: Square| {
        if algebraic {
            sq.algebraic()
        } else {
            sq.number().to_string()
        }
    };
    let fits = |mv: &Move| {
        let mut path = vec![name(mv.from())];
        path.extend(pos.capture_path(*mv).into_iter().map(name));
        if !mv.is_capture() {
            path.push(name(mv.to()));
        }
        // The start square must be typed whole; later squares follow the path, the
        // last one possibly unfinished (or empty after a trailing separator).
        let k = typed.len() - 1;
        typed[0] == path[0]
            && (k == 0
                || (k < path.len()
                    && typed[1..k].iter().zip(&path[1..k]).all(|(t, p)| t == p)
                    && path[k].starts_with(typed[k])))
    };
    let candidates: Vec<Move> = moves.iter().copied().filter(fits).collect();
    match candidates.as_slice() {
        [mv] => Ok(*mv),
        [] => Err(format!("not a legal move: {error}")),
        several => Err(format!(
            "ambiguous: {text} could be {}",
            several
                .iter()
                .map(|&m| both_notations(pos, m))
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_name_one_move_or_say_why_not() {
        let start = Checkers::start();
        let text = |r: Result<Move, String>| r.map(|m| start.format_move(m));
        assert_eq!(text(resolve_move(&start, "21")), Ok("21-17".to_string()));
        assert_eq!(text(resolve_move(&start, "a3")), Ok("21-17".to_string()));
        assert_eq!(text(resolve_move(&start, "22-18")), Ok("22-18".to_string()));
        assert!(
            resolve_move(&start, "22-1")
                .unwrap_err()
                .contains("ambiguous")
        );
        assert!(
            resolve_move(&start, "22")
                .unwrap_err()
                .contains("ambiguous")
        );
        assert!(
            resolve_move(&start, "2")
                .unwrap_err()
                .contains("not a legal move")
        );
        assert!(
            resolve_move(&start, "17-13")
                .unwrap_err()
                .contains("not a legal move")
        );
        assert!(
            resolve_move(&start, "c3-")
                .unwrap_err()
                .contains("ambiguous")
        );
    }

    #[test]
    fn the_board_shows_pieces_numbers_and_coordinates() {
        let board = render_board(&Checkers::start(), false);
        let lines: Vec<&str> = board.lines().collect();
        assert_eq!(lines.len(), 10, "{board}");
        assert_eq!(lines[0], "    a  b  c  d  e  f  g  h");
        assert_eq!(lines[1], "8      b     b     b     b  8");
        assert_eq!(lines[4], "5  13    14    15    16     5");
        assert_eq!(lines[8], "1   w     w     w     w     1");
        let flipped = render_board(&Checkers::start(), true);
        assert_eq!(
            flipped.lines().nth(1),
            Some("1      w     w     w     w  1")
        );
        assert_eq!(flipped.lines().next(), Some("    h  g  f  e  d  c  b  a"));
    }
}
