//! PDN (Portable Draughts Notation) games of Brazilian draughts:
//! `[GameType "26,W,8,8,A0,0"]`, the standard tags, an optional `[FEN "…"]` start, moves in
//! numeric or algebraic notation, comments `{…}` and `;…`, variations `(…)`, NAGs `$n`
//! and annotation marks skipped, and a result token (`2-0`, `0-2`, `1-1`, `1-0`, `0-1`,
//! `1/2-1/2`, `*`).

use std::fmt::{self, Write};

use super::notation::{FenError, MoveError};
use super::{Brazilian, WHITE};
use crate::game::{Game, GameFile, GameRecord, Outcome, SavedGame};

/// Longest PDN text read (bytes), and most plies in one game.
pub const MAX_PDN_BYTES: usize = 256 << 20;
pub const MAX_GAME_PLIES: usize = 10_000;
/// Longest tag name or value, and most tags in one game.
const MAX_TAG_LEN: usize = 4096;
const MAX_TAGS: usize = 256;

/// The GameType this crate reads and writes: Brazilian draughts, White first, 8×8,
/// algebraic notation.
pub const GAME_TYPE: &str = "26,W,8,8,A0,0";

/// The result of a game as PDN records it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum PdnResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// `*`: unfinished or unknown.
    Unknown,
}

impl PdnResult {
    fn parse(token: &str) -> Option<PdnResult> {
        Some(match token {
            "2-0" | "1-0" => PdnResult::WhiteWins,
            "0-2" | "0-1" => PdnResult::BlackWins,
            "1-1" | "1/2-1/2" | "½-½" => PdnResult::Draw,
            "*" | "0-0" => PdnResult::Unknown,
            _ => return None,
        })
    }

    /// The token written (draughts convention: 2 points for a win).
    pub fn token(self) -> &'static str {
        match self {
            PdnResult::WhiteWins => "2-0",
            PdnResult::BlackWins => "0-2",
            PdnResult::Draw => "1-1",
            PdnResult::Unknown => "*",
        }
    }

    pub fn from_outcome(outcome: Option<Outcome>) -> PdnResult {
        match outcome {
            Some(Outcome::Win(side)) if side == WHITE => PdnResult::WhiteWins,
            Some(Outcome::Win(_)) => PdnResult::BlackWins,
            Some(Outcome::Draw) => PdnResult::Draw,
            None => PdnResult::Unknown,
        }
    }

    pub fn outcome(self) -> Option<Outcome> {
        match self {
            PdnResult::WhiteWins => Some(Outcome::Win(WHITE)),
            PdnResult::BlackWins => Some(Outcome::Win(WHITE.opponent())),
            PdnResult::Draw => Some(Outcome::Draw),
            PdnResult::Unknown => None,
        }
    }
}

/// One game: its tags in file order, start position, moves and result.
pub type PdnGame = SavedGame<Brazilian>;

/// Why PDN text was rejected: what and where (game number from 1, line and column from 1).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PdnError {
    TooLong {
        len: usize,
    },
    Syntax {
        game: usize,
        line: usize,
        column: usize,
        problem: String,
    },
    Fen {
        game: usize,
        line: usize,
        column: usize,
        error: FenError,
    },
    GameType {
        game: usize,
        line: usize,
        column: usize,
        found: String,
    },
    Move {
        game: usize,
        line: usize,
        column: usize,
        /// Move number as printed in PDN (1 for White's and Black's first moves).
        number: usize,
        side: &'static str,
        error: MoveError,
    },
    TooManyMoves {
        game: usize,
        line: usize,
    },
}

impl fmt::Display for PdnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PdnError::TooLong { len } => write!(
                f,
                "PDN text is {len} bytes; at most {MAX_PDN_BYTES} are read"
            ),
            PdnError::Syntax {
                game,
                line,
                column,
                problem,
            } => write!(
                f,
                "PDN game {game}, line {line}, column {column}: {problem}"
            ),
            PdnError::Fen {
                game,
                line,
                column,
                error,
            } => write!(
                f,
                "PDN game {game}, line {line}, column {column}: bad FEN tag: {error}"
            ),
            PdnError::GameType {
                game,
                line,
                column,
                found,
            } => write!(
                f,
                "PDN game {game}, line {line}, column {column}: GameType \"{found}\" is not \
                 Brazilian draughts (26,…)"
            ),
            PdnError::Move {
                game,
                line,
                column,
                number,
                side,
                error,
            } => write!(
                f,
                "PDN game {game}, line {line}, column {column}: move {number} ({side}): {error}"
            ),
            PdnError::TooManyMoves { game, line } => write!(
                f,
                "PDN game {game}, line {line}: more than {MAX_GAME_PLIES} plies in one game"
            ),
        }
    }
}

impl std::error::Error for PdnError {}

/// A cursor over the text that knows its line and column.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    column: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn at_line_start(&self) -> bool {
        self.column == 1
    }
}

/// Reads every game of a PDN text.
pub fn read_games(text: &str) -> Result<Vec<PdnGame>, PdnError> {
    if text.len() > MAX_PDN_BYTES {
        return Err(PdnError::TooLong { len: text.len() });
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut cursor = Cursor {
        text,
        pos: 0,
        line: 1,
        column: 1,
    };
    let mut games = Vec::new();
    let mut game = GameBuilder::new(1);
    loop {
        let (line, column) = (cursor.line, cursor.column);
        let game_number = games.len() + 1;
        let syntax = |problem: String| PdnError::Syntax {
            game: game_number,
            line,
            column,
            problem,
        };
        let Some(c) = cursor.peek() else { break };
        match c {
            _ if c.is_whitespace() => {
                cursor.bump();
            }
            '%' if cursor.at_line_start() => skip_line(&mut cursor),
            ';' => skip_line(&mut cursor),
            '{' => {
                cursor.bump();
                loop {
                    match cursor.bump() {
                        Some('}') => break,
                        Some(_) => {}
                        None => return Err(syntax("comment '{' is never closed".into())),
                    }
                }
            }
            '(' => skip_variation(&mut cursor)
                .map_err(|()| syntax("variation '(' is never closed".into()))?,
            ')' => return Err(syntax("')' without a variation to close".into())),
            '[' => {
                if game.has_moves() {
                    // A tag after moves starts the next game (its result was omitted).
                    games.push(game.finish(PdnResult::Unknown));
                    game = GameBuilder::new(games.len() + 1);
                }
                let (name, value) = read_tag(&mut cursor).map_err(syntax)?;
                if game.tags.len() >= MAX_TAGS {
                    return Err(syntax(format!("more than {MAX_TAGS} tags")));
                }
                game.tag(name, value, line, column)?;
            }
            _ => {
                let start = cursor.pos;
                while let Some(c) = cursor.peek() {
                    if c.is_whitespace() || matches!(c, '{' | '(' | ')' | '[' | ';') {
                        break;
                    }
                    cursor.bump();
                }
                let token = &text[start..cursor.pos];
                if let Some(result) = PdnResult::parse(token) {
                    games.push(game.finish(result));
                    game = GameBuilder::new(games.len() + 1);
                } else {
                    game.token(token, line, column)?;
                }
            }
        }
    }
    if game.has_moves() || !game.tags.is_empty() {
        games.push(game.finish(PdnResult::Unknown));
    }
    Ok(games)
}

fn skip_line(cursor: &mut Cursor) {
    while let Some(c) = cursor.bump() {
        if c == '\n' {
            break;
        }
    }
}

/// Skips a variation, nested ones and comments inside it.
fn skip_variation(cursor: &mut Cursor) -> Result<(), ()> {
    let mut depth = 0usize;
    while let Some(c) = cursor.bump() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(());
                }
            }
            '{' => loop {
                match cursor.bump() {
                    Some('}') => break,
                    Some(_) => {}
                    None => return Err(()),
                }
            },
            _ => {}
        }
    }
    Err(())
}

/// Reads `[Name "value"]`; the cursor is on '['.
fn read_tag(cursor: &mut Cursor) -> Result<(String, String), String> {
    cursor.bump();
    while cursor.peek().is_some_and(|c| c == ' ' || c == '\t') {
        cursor.bump();
    }
    let mut name = String::new();
    while let Some(c) = cursor.peek() {
        if c.is_alphanumeric() || c == '_' {
            if name.len() >= MAX_TAG_LEN {
                return Err("tag name too long".into());
            }
            name.push(c);
            cursor.bump();
        } else {
            break;
        }
    }
    if name.is_empty() {
        return Err("expected a tag name after '['".into());
    }
    while cursor.peek().is_some_and(|c| c == ' ' || c == '\t') {
        cursor.bump();
    }
    if cursor.bump() != Some('"') {
        return Err(format!("tag {name}: expected '\"' before its value"));
    }
    let mut value = String::new();
    loop {
        match cursor.bump() {
            Some('"') => break,
            Some('\\') => match cursor.bump() {
                Some(c) => value.push(c),
                None => return Err(format!("tag {name}: value is never closed")),
            },
            Some('\n') | None => return Err(format!("tag {name}: value is never closed")),
            Some(c) => {
                if value.len() >= MAX_TAG_LEN {
                    return Err(format!("tag {name}: value too long"));
                }
                value.push(c);
            }
        }
    }
    while cursor.peek().is_some_and(|c| c == ' ' || c == '\t') {
        cursor.bump();
    }
    if cursor.bump() != Some(']') {
        return Err(format!("tag {name}: expected ']' after its value"));
    }
    Ok((name, value))
}

/// A game being read.
struct GameBuilder {
    number: usize,
    tags: Vec<(String, String)>,
    record: GameRecord<Brazilian>,
}

impl GameBuilder {
    fn new(number: usize) -> Self {
        GameBuilder {
            number,
            tags: Vec::new(),
            record: GameRecord::new(Brazilian::start()),
        }
    }

    fn has_moves(&self) -> bool {
        self.record.ply() > 0
    }

    fn tag(
        &mut self,
        name: String,
        value: String,
        line: usize,
        column: usize,
    ) -> Result<(), PdnError> {
        match name.as_str() {
            "FEN" => {
                let start = Brazilian::parse_position(&value).map_err(|error| PdnError::Fen {
                    game: self.number,
                    line,
                    column,
                    error,
                })?;
                self.record = GameRecord::new(start);
            }
            "GameType" => {
                let kind = value.split(',').next().unwrap_or("").trim();
                if kind != "26" {
                    return Err(PdnError::GameType {
                        game: self.number,
                        line,
                        column,
                        found: value,
                    });
                }
            }
            _ => {}
        }
        self.tags.push((name, value));
        Ok(())
    }

    /// A movetext token: a move number, a move (with annotation marks), or a NAG.
    fn token(&mut self, token: &str, line: usize, column: usize) -> Result<(), PdnError> {
        if token.starts_with('$') && token[1..].chars().all(|c| c.is_ascii_digit()) {
            return Ok(());
        }
        // A move number, possibly glued to its move: "12." "12..." "12.c3-d4".
        let digits = token.chars().take_while(|c| c.is_ascii_digit()).count();
        let mut rest = token;
        let mut column = column;
        if digits > 0 && token[digits..].starts_with('.') {
            let dots = token[digits..].chars().take_while(|&c| c == '.').count();
            rest = &token[digits + dots..];
            column += digits + dots;
        }
        let rest = rest.trim_end_matches(['!', '?']);
        if rest.is_empty() {
            return Ok(());
        }
        let pos = *self.record.position();
        let number = pos_move_number(&self.record);
        let mv = pos.parse_move(rest).map_err(|error| PdnError::Move {
            game: self.number,
            line,
            column,
            number,
            side: Brazilian::side_name(pos.side_to_move()),
            error,
        })?;
        if self.record.ply() >= MAX_GAME_PLIES {
            return Err(PdnError::TooManyMoves {
                game: self.number,
                line,
            });
        }
        self.record.play(mv);
        Ok(())
    }

    fn finish(self, result: PdnResult) -> PdnGame {
        let mut game = PdnGame::from_record(&self.record, self.tags, result.outcome());
        if game.tag("Result").is_none() || result != PdnResult::Unknown {
            set_tag(&mut game.tags, "Result", result.token());
        }
        game
    }
}

/// The PDN move number of the move about to be played (1 for the first move of each side
/// from a White-to-move start).
fn pos_move_number(record: &GameRecord<Brazilian>) -> usize {
    let offset = usize::from(record.start().side_to_move() != WHITE);
    (record.ply() + offset) / 2 + 1
}

fn set_tag(tags: &mut Vec<(String, String)>, name: &str, value: &str) {
    match tags.iter_mut().find(|(k, _)| k == name) {
        Some(tag) => tag.1 = value.to_string(),
        None => tags.push((name.to_string(), value.to_string())),
    }
}

/// The seven tags every PDN game starts with, in order, with their placeholder values.
const ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// Writes one game: the seven-tag roster, GameType, FEN when the start is not the
/// standard one, other tags, then the moves in algebraic notation, 80 columns wide.
pub fn write_game(game: &PdnGame) -> String {
    let mut tags: Vec<(String, String)> = ROSTER
        .iter()
        .map(|&(name, default)| {
            let value = game.tag(name).unwrap_or(default);
            (name.to_string(), value.to_string())
        })
        .collect();
    set_tag(
        &mut tags,
        "Result",
        PdnResult::from_outcome(game.result).token(),
    );
    tags.push(("GameType".into(), GAME_TYPE.into()));
    if game.start != Brazilian::start() {
        tags.push(("FEN".into(), game.start.format_position()));
    }
    for (name, value) in &game.tags {
        if !tags.iter().any(|(k, _)| k == name) {
            tags.push((name.clone(), value.clone()));
        }
    }
    let mut out = String::new();
    for (name, value) in &tags {
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(out, "[{name} \"{escaped}\"]");
    }
    out.push('\n');

    let mut words = Vec::with_capacity(game.moves.len() * 3 / 2 + 1);
    let mut record = GameRecord::new(game.start);
    for &mv in &game.moves {
        let pos = *record.position();
        if pos.side_to_move() == WHITE {
            words.push(format!("{}.", pos_move_number(&record)));
        } else if record.ply() == 0 {
            words.push(format!("{}...", pos_move_number(&record)));
        }
        words.push(pos.format_move_algebraic(mv));
        record.play(mv);
    }
    words.push(PdnResult::from_outcome(game.result).token().to_string());
    let mut line_len = 0;
    for word in words {
        if line_len > 0 && line_len + 1 + word.len() > 80 {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(&word);
        line_len += word.len();
    }
    out.push_str("\n\n");
    out
}

impl GameFile for Brazilian {
    const FILE_EXTENSION: &'static str = "pdn";
    const MAX_FILE_BYTES: usize = MAX_PDN_BYTES;

    fn write_game(game: &PdnGame) -> String {
        write_game(game)
    }

    fn read_games((): (), text: &str) -> Result<Vec<PdnGame>, String> {
        read_games(text).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"[Event "Test match"]
[White "Little Polish"]
[Black "Winbraz"]
[Result "1-1"]
[GameType "26,W,8,8,A0,0"]

1. c3-d4 {a comment} f6-g5 2. g3-f4 ; line comment
 b6-a5 3. d4-c5 (3. b2-c3 h6-g7) d6xb4 4. a3xc5 $1 1-1
"#;

    #[test]
    fn reads_a_game_with_comments_and_variations() {
        let games = read_games(SAMPLE).unwrap();
        assert_eq!(games.len(), 1);
        let game = &games[0];
        assert_eq!(game.moves.len(), 7);
        assert_eq!(game.result, Some(Outcome::Draw));
        assert_eq!(game.tag("White"), Some("Little Polish"));
    }

    #[test]
    fn write_then_read_gives_the_same_game() {
        let game = &read_games(SAMPLE).unwrap()[0];
        let text = write_game(game);
        let again = read_games(&text).unwrap();
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].moves, game.moves);
        assert_eq!(again[0].start, game.start);
        assert_eq!(again[0].result, game.result);
        assert_eq!(write_game(&again[0]), text);
    }

    #[test]
    fn errors_say_where() {
        let err = read_games("1. c3-d4 f6-g5 2. c3-d4").unwrap_err();
        match err {
            PdnError::Move {
                game: 1,
                line: 1,
                column: 19,
                number: 2,
                side: "white",
                ..
            } => {}
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            read_games("[GameType \"20\"]\n1. 32-28 *"),
            Err(PdnError::GameType { .. })
        ));
        assert!(matches!(
            read_games("1. c3-d4 {open"),
            Err(PdnError::Syntax {
                line: 1,
                column: 10,
                ..
            })
        ));
        assert!(matches!(
            read_games("[FEN \"W:W33:B1\"]"),
            Err(PdnError::Fen { .. })
        ));
    }

    #[test]
    fn several_games_and_a_setup_position() {
        let text = "[FEN \"B:W21,22:B9,10\"]\n1... 9-13 2. 22-18 *\n\n1. 22-17 2-0\n";
        let games = read_games(text).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves.len(), 2);
        assert_eq!(games[0].result, None);
        assert_eq!(games[1].start, Brazilian::start());
        assert_eq!(games[1].result, Some(Outcome::Win(WHITE)));
        let written = write_game(&games[0]);
        assert!(written.contains("[FEN \"B:W21,22:B9,10\"]"), "{written}");
        assert!(written.contains("1... b6-a5 2. c3-d4 *"), "{written}");
    }
}
