//! Kalah game files (`.klh`, after Dubner's `lastgame.klh`): Dubner's record, one
//! line per round with each side's compound move as pits separated by spaces, under tags:
//!
//! ```text
//! [Event "evalearn play"]
//! [Game "kalah"]
//! [A "human"]
//! [B "evalearn"]
//! [Result "32-40"]
//!  1) A: 1 4 B: 5
//!  2) A: 6 B: 1
//! Stones in the stores at the end: A 32, B 40
//! ```
//!
//! `Game` holds the variant name, `Start` the start position when it is not the
//! variant's, `Result` the final stores `A-B` (or `*` unfinished; `A wins`, `B wins` or
//! `draw` for an unfinished game whose result was decided otherwise). A game whose
//! first mover is B starts with `1) B: …`. The last line is written for finished games.
//! Games are separated by blank lines.

use std::fmt::Write;

use super::{A, B, Kalah, KalahMove, KalahRules, notation};
use crate::game::{Game, GameFile, Outcome, SavedGame, Side};

/// Longest game file read (bytes).
pub const MAX_KLH_BYTES: usize = 64 << 20;
/// Most moves (compound moves, one per side per round) in one game.
pub const MAX_GAME_MOVES: usize = 10_000;
/// Longest tag name or value, and most tags in one game.
const MAX_TAG_LEN: usize = 4096;
const MAX_TAGS: usize = 256;
/// The final line, before the stores.
const FINAL_LINE: &str = "Stones in the stores at the end:";

/// The result a game file states.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum StatedResult {
    /// `*`
    Unknown,
    /// `A-B`: the final stores.
    Stores(u32, u32),
    /// `A wins`, `B wins`, `draw`: decided without playing to the end.
    Decided(Outcome),
}

impl StatedResult {
    fn parse(value: &str) -> Option<StatedResult> {
        let value = value.trim();
        Some(match value {
            "*" | "" => StatedResult::Unknown,
            "A wins" => StatedResult::Decided(Outcome::Win(A)),
            "B wins" => StatedResult::Decided(Outcome::Win(B)),
            "draw" => StatedResult::Decided(Outcome::Draw),
            _ => {
                let (a, b) = value.split_once('-')?;
                StatedResult::Stores(parse_count(a)?, parse_count(b)?)
            }
        })
    }

    fn outcome(self) -> Option<Outcome> {
        match self {
            StatedResult::Unknown => None,
            StatedResult::Stores(a, b) => Some(outcome_of(a, b)),
            StatedResult::Decided(outcome) => Some(outcome),
        }
    }
}

fn parse_count(text: &str) -> Option<u32> {
    let text = text.trim();
    if text.is_empty() || text.len() > 4 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn outcome_of(a: u32, b: u32) -> Outcome {
    match a.cmp(&b) {
        std::cmp::Ordering::Greater => Outcome::Win(A),
        std::cmp::Ordering::Less => Outcome::Win(B),
        std::cmp::Ordering::Equal => Outcome::Draw,
    }
}

/// The `Result` tag of a game ending in `last` with the stated `result`.
fn result_value(last: &Kalah, result: Option<Outcome>) -> String {
    if last.is_over() {
        let (a, b) = last.final_score();
        return format!("{a}-{b}");
    }
    match result {
        None => "*".to_string(),
        Some(Outcome::Win(side)) => format!("{} wins", Kalah::side_name(side)),
        Some(Outcome::Draw) => "draw".to_string(),
    }
}

fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace(['\n', '\r'], " ")
}

/// Writes one game: tags (Event first if present, Game, Start if needed, the others in
/// order, Result last), one line per round, and the final stores if the game is over.
pub fn write_game(game: &SavedGame<Kalah>) -> String {
    let mut out = String::new();
    let mut record = game.start;
    let mut moves = Vec::with_capacity(game.moves.len());
    for &mv in &game.moves {
        moves.push((record.side_to_move(), mv));
        record = record.play(mv);
    }
    let last = record;

    let mut tags: Vec<(&str, String)> = Vec::new();
    if let Some(event) = game.tag("Event") {
        tags.push(("Event", event.to_string()));
    }
    tags.push(("Game", game.start.rules().name()));
    if game.start != Kalah::start_of(game.start.rules()) {
        tags.push(("Start", game.start.format_position()));
    }
    for (name, value) in &game.tags {
        if !matches!(name.as_str(), "Event" | "Game" | "Start" | "Result") {
            tags.push((name, value.clone()));
        }
    }
    tags.push(("Result", result_value(&last, game.result)));
    for (name, value) in &tags {
        let _ = writeln!(out, "[{name} \"{}\"]", escape(value));
    }

    let mut round = 0;
    let mut line_open = false;
    for (side, mv) in moves {
        if side == A || !line_open {
            if line_open {
                out.push('\n');
            }
            round += 1;
            let _ = write!(out, "{round:>2})");
            line_open = true;
        }
        let _ = write!(
            out,
            " {}: {}",
            Kalah::side_name(side),
            notation::format_move(mv, " ")
        );
    }
    if line_open {
        out.push('\n');
    }
    if last.is_over() {
        let (a, b) = last.final_score();
        let _ = writeln!(out, "{FINAL_LINE} A {a}, B {b}");
    }
    // The blank line that separates games.
    out.push('\n');
    out
}

/// A game being read.
struct Reader {
    number: usize,
    rules: KalahRules,
    tags: Vec<(String, String)>,
    start: Kalah,
    current: Kalah,
    moves: Vec<KalahMove>,
    /// Move lines read so far.
    rounds: usize,
    result: Option<(StatedResult, usize)>,
    /// The final line's stores and its line number.
    final_stores: Option<(u32, u32, usize)>,
}

impl Reader {
    fn new(number: usize, rules: KalahRules) -> Reader {
        let start = Kalah::start_of(rules);
        Reader {
            number,
            rules,
            tags: Vec::new(),
            start,
            current: start,
            moves: Vec::new(),
            rounds: 0,
            result: None,
            final_stores: None,
        }
    }

    fn error(&self, line: usize, problem: impl std::fmt::Display) -> String {
        format!("kalah game {}, line {line}: {problem}", self.number)
    }

    fn has_body(&self) -> bool {
        self.rounds > 0 || self.final_stores.is_some()
    }

    fn is_empty(&self) -> bool {
        self.tags.is_empty() && !self.has_body()
    }

    fn tag(&mut self, line_number: usize, line: &str) -> Result<(), String> {
        let (name, value) = read_tag(line).map_err(|p| self.error(line_number, p))?;
        if self.tags.len() >= MAX_TAGS {
            return Err(self.error(line_number, format!("more than {MAX_TAGS} tags")));
        }
        if self.tags.iter().any(|(k, _)| *k == name) {
            return Err(self.error(line_number, format!("second {name} tag")));
        }
        match name.as_str() {
            "Game" => {
                let options = value
                    .strip_prefix(super::NAME)
                    .filter(|rest| rest.is_empty() || rest.starts_with(':'))
                    .ok_or_else(|| {
                        self.error(line_number, format!("game \"{value}\" is not kalah"))
                    })?;
                let rules = KalahRules::parse(options.strip_prefix(':').unwrap_or(options))
                    .map_err(|e| self.error(line_number, e))?;
                if rules != self.rules {
                    return Err(self.error(
                        line_number,
                        format!(
                            "the game is {}, but {} is being read",
                            rules.name(),
                            self.rules.name()
                        ),
                    ));
                }
            }
            "Start" => {
                let start = Kalah::parse_position_of(self.rules, &value)
                    .map_err(|e| self.error(line_number, format!("Start tag: {e}")))?;
                self.start = start;
                self.current = start;
            }
            "Result" => {
                let result = StatedResult::parse(&value).ok_or_else(|| {
                    self.error(
                        line_number,
                        format!(
                            "Result \"{value}\": expected the final stores A-B (e.g. 32-40), \
                             *, A wins, B wins or draw"
                        ),
                    )
                })?;
                self.result = Some((result, line_number));
            }
            _ => {}
        }
        self.tags.push((name, value));
        Ok(())
    }

    /// A line `N) A: p p … B: p p …`.
    fn move_line(&mut self, line_number: usize, line: &str) -> Result<(), String> {
        if self.final_stores.is_some() {
            return Err(self.error(line_number, "moves after the final line"));
        }
        let (number, body) = line
            .split_once(')')
            .ok_or_else(|| self.error(line_number, "expected N) A: … B: …"))?;
        let expected = self.rounds + 1;
        if parse_count(number) != Some(expected as u32) {
            return Err(self.error(
                line_number,
                format!("round number \"{}\", expected {expected}", number.trim()),
            ));
        }
        self.rounds = expected;
        // "A:" and "B:" may touch the pits: split them off.
        let spaced = body.replace(':', " : ");
        let mut tokens = spaced.split_whitespace().peekable();
        let mut turns = 0;
        while let Some(token) = tokens.next() {
            let side = match token {
                "A" | "a" => A,
                "B" | "b" => B,
                _ => {
                    return Err(self.error(
                        line_number,
                        format!("expected A: or B: before a move, found \"{token}\""),
                    ));
                }
            };
            if tokens.next() != Some(":") {
                return Err(self.error(line_number, format!("expected ':' after {token}")));
            }
            turns += 1;
            // A round is A's move then B's; the first round may be B's move alone.
            let to_move = self.current.side_to_move();
            if side != to_move {
                return Err(self.error(
                    line_number,
                    format!("{token}: it is {}'s move here", Kalah::side_name(to_move)),
                ));
            }
            let in_order = match (turns, side) {
                (1, Side::First) | (2, Side::Second) => true,
                (1, Side::Second) => self.moves.is_empty(),
                _ => false,
            };
            if !in_order {
                return Err(self.error(
                    line_number,
                    format!(
                        "{token}'s move out of place: each line holds A's move, then B's \
                         (only a game's first line may hold B's move alone)"
                    ),
                ));
            }
            let mut pits = String::new();
            while let Some(&pit) = tokens.peek() {
                if matches!(pit, "A" | "a" | "B" | "b") {
                    break;
                }
                pits.push_str(pit);
                pits.push(' ');
                tokens.next();
            }
            if self.moves.len() >= MAX_GAME_MOVES {
                return Err(self.error(
                    line_number,
                    format!("more than {MAX_GAME_MOVES} moves in one game"),
                ));
            }
            let mv = self.current.parse_move(&pits).map_err(|e| {
                self.error(
                    line_number,
                    format!("round {expected}, {token}'s move \"{}\": {e}", pits.trim()),
                )
            })?;
            self.current = self.current.play(mv);
            self.moves.push(mv);
        }
        if turns == 0 {
            return Err(self.error(line_number, "a round without moves"));
        }
        Ok(())
    }

    /// `Stones in the stores at the end: A 32, B 40`.
    fn final_line(&mut self, line_number: usize, rest: &str) -> Result<(), String> {
        let bad = || self.error(line_number, format!("expected \"{FINAL_LINE} A n, B m\""));
        let (a, b) = rest.split_once(',').ok_or_else(bad)?;
        let a = a.trim().strip_prefix('A').and_then(parse_count);
        let b = b.trim().strip_prefix('B').and_then(parse_count);
        let (Some(a), Some(b)) = (a, b) else {
            return Err(bad());
        };
        if self.final_stores.is_some() {
            return Err(self.error(line_number, "a second final line"));
        }
        self.final_stores = Some((a, b, line_number));
        Ok(())
    }

    /// Checks the stated results against the replayed game.
    fn finish(self) -> Result<SavedGame<Kalah>, String> {
        let over = self.current.is_over();
        let score = self.current.final_score();
        if let Some((a, b, line)) = self.final_stores {
            if !over {
                return Err(self.error(line, "final stores given, but the game is not over"));
            }
            if (a, b) != score {
                return Err(self.error(
                    line,
                    format!(
                        "final stores A {a}, B {b}, but the moves end with A {}, B {}",
                        score.0, score.1
                    ),
                ));
            }
        }
        let stated = self.result.map(|(r, _)| r);
        if let Some((result, line)) = self.result {
            let agrees = match result {
                StatedResult::Unknown => true,
                StatedResult::Stores(a, b) => !over || (a, b) == score,
                StatedResult::Decided(outcome) => {
                    !over || outcome == self.current.outcome_without_moves()
                }
            };
            if !agrees {
                return Err(self.error(
                    line,
                    format!(
                        "Result does not agree with the moves, which end {}-{}",
                        score.0, score.1
                    ),
                ));
            }
        }
        let result = if over {
            Some(self.current.outcome_without_moves())
        } else {
            stated.and_then(StatedResult::outcome)
        };
        Ok(SavedGame {
            tags: self.tags,
            start: self.start,
            moves: self.moves,
            result,
        })
    }
}

/// Reads `[Name "value"]` (the whole line, trimmed).
fn read_tag(line: &str) -> Result<(String, String), String> {
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or("a tag is [Name \"value\"] on one line")?
        .trim();
    let name_len = inner
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(inner.len());
    let (name, rest) = inner.split_at(name_len);
    if name.is_empty() {
        return Err("expected a tag name after '['".into());
    }
    if name.len() > MAX_TAG_LEN {
        return Err("tag name too long".into());
    }
    let rest = rest.trim();
    let quoted = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| format!("tag {name}: the value must be in double quotes"))?;
    if quoted.len() > MAX_TAG_LEN {
        return Err(format!("tag {name}: value too long"));
    }
    let mut value = String::with_capacity(quoted.len());
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(c) => value.push(c),
                None => return Err(format!("tag {name}: value ends in '\\'")),
            },
            '"' => return Err(format!("tag {name}: '\"' inside the value (write \\\")")),
            c => value.push(c),
        }
    }
    Ok((name.to_string(), value))
}

/// Reads every game of a `.klh` text, replaying and checking each move.
pub fn read_games(rules: KalahRules, text: &str) -> Result<Vec<SavedGame<Kalah>>, String> {
    if text.len() > MAX_KLH_BYTES {
        return Err(format!(
            "kalah game file is {} bytes; at most {MAX_KLH_BYTES} are read",
            text.len()
        ));
    }
    if !rules.is_valid() {
        return Err(format!("kalah rules {rules:?} are not played"));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut games = Vec::new();
    let mut game = Reader::new(1, rules);
    // A blank line ends a game with moves; after tags alone it ends the game only if
    // tags follow (a game without moves), else the moves after it are the game's.
    let mut blank_after_tags = false;
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let line = line.trim();
        if line.is_empty() {
            if game.has_body() {
                let next = Reader::new(game.number + 1, rules);
                games.push(std::mem::replace(&mut game, next).finish()?);
            } else {
                blank_after_tags = !game.tags.is_empty();
            }
            continue;
        }
        if line.starts_with('[') {
            if game.has_body() || blank_after_tags {
                let next = Reader::new(game.number + 1, rules);
                games.push(std::mem::replace(&mut game, next).finish()?);
            }
            blank_after_tags = false;
            game.tag(line_number, line)?;
        } else if let Some(rest) = line.strip_prefix(FINAL_LINE) {
            game.final_line(line_number, rest)?;
        } else if line.starts_with(|c: char| c.is_ascii_digit()) {
            game.move_line(line_number, line)?;
        } else {
            let shown: String = line.chars().take(40).collect();
            return Err(game.error(
                line_number,
                format!("expected a tag, a move line \"N) A: … B: …\" or the final line, found \"{shown}\""),
            ));
        }
    }
    if !game.is_empty() {
        games.push(game.finish()?);
    }
    Ok(games)
}

impl GameFile for Kalah {
    const FILE_EXTENSION: &'static str = "klh";
    const MAX_FILE_BYTES: usize = MAX_KLH_BYTES;

    fn write_game(game: &SavedGame<Kalah>) -> String {
        write_game(game)
    }

    fn read_games(rules: KalahRules, text: &str) -> Result<Vec<SavedGame<Kalah>>, String> {
        read_games(rules, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "[Event \"evalearn play\"]
[Game \"kalah\"]
[A \"human\"]
[B \"evalearn (model models/kalah-td.bin)\"]
[Result \"*\"]
 1) A: 1 4 B: 5
 2) A: 6 B: 1
";

    #[test]
    fn reads_and_writes_the_sample() {
        let games = read_games(KalahRules::default(), SAMPLE).unwrap();
        assert_eq!(games.len(), 1);
        let game = &games[0];
        assert_eq!(game.moves.len(), 4);
        assert_eq!(game.result, None);
        assert_eq!(game.tag("A"), Some("human"));
        assert_eq!(write_game(game), format!("{SAMPLE}\n"));
    }

    #[test]
    fn errors_name_game_and_line() {
        let text = format!("{SAMPLE}\n 1) A: 1 3 B: 7\n");
        let err = read_games(KalahRules::default(), &text).unwrap_err();
        assert!(err.starts_with("kalah game 2, line 9:"), "{err}");
        assert!(err.contains("pits are numbered 1..6"), "{err}");
        let err = read_games(KalahRules::default(), " 2) A: 1 3\n").unwrap_err();
        assert!(
            err.contains("line 1: round number \"2\", expected 1"),
            "{err}"
        );
        let err = read_games(KalahRules::default(), " 1) B: 1\n").unwrap_err();
        assert!(err.contains("it is A's move"), "{err}");
    }
}
