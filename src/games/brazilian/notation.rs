//! Text forms of positions and moves: FEN (`W:W21,…,32:B1,…,12`, or algebraic squares,
//! `K` before a king) and moves (`22-17`, `26x17`, `c3-d4`, `e3xc5`, `a1xc3xe5`).

use std::fmt;

use super::board::{BLACK_CROWN, BOARD, Dir, Square, Squares, WHITE_CROWN};
use super::{BLACK, Brazilian, MAX_PIECES_PER_SIDE, Move, Piece, WHITE};
use crate::game::{Game, MoveList, Side};

/// Longest FEN or move text read; longer input is rejected before it is looked at.
pub const MAX_TEXT_LEN: usize = 1024;

/// How squares are written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SquareStyle {
    /// PDN numbers 1..32
    Numeric,
    /// a1..h8
    Algebraic,
}

fn square_name(sq: Square, style: SquareStyle) -> String {
    match style {
        SquareStyle::Numeric => sq.number().to_string(),
        SquareStyle::Algebraic => sq.algebraic(),
    }
}

/// Why a FEN was rejected. `column` counts characters from 1.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FenError {
    Empty,
    TooLong { len: usize },
    BadSideToMove { column: usize, found: String },
    BadSection { column: usize, found: String },
    DuplicateSection { column: usize, colour: &'static str },
    MissingSection { colour: &'static str },
    BadSquare { column: usize, found: String },
    DuplicateSquare { column: usize, square: u8 },
    TooManyPieces { colour: &'static str, count: u32 },
    ManOnCrowningRow { square: u8 },
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => write!(f, "FEN is empty"),
            FenError::TooLong { len } => {
                write!(
                    f,
                    "FEN is {len} characters long; at most {MAX_TEXT_LEN} are read"
                )
            }
            FenError::BadSideToMove { column, found } => write!(
                f,
                "FEN column {column}: side to move must be W or B, found '{found}'"
            ),
            FenError::BadSection { column, found } => write!(
                f,
                "FEN column {column}: expected a piece list starting with W or B, found '{found}'"
            ),
            FenError::DuplicateSection { column, colour } => {
                write!(f, "FEN column {column}: second list of {colour} pieces")
            }
            FenError::MissingSection { colour } => {
                write!(
                    f,
                    "FEN has no list of {colour} pieces (write e.g. W:W21,22:B1,2)"
                )
            }
            FenError::BadSquare { column, found } => write!(
                f,
                "FEN column {column}: '{found}' is not a square (1..32, a dark square a1..h8, \
                 a range like 1-12, K before a king)"
            ),
            FenError::DuplicateSquare { column, square } => {
                write!(f, "FEN column {column}: square {square} is listed twice")
            }
            FenError::TooManyPieces { colour, count } => write!(
                f,
                "FEN gives {colour} {count} pieces; a side has at most {MAX_PIECES_PER_SIDE}"
            ),
            FenError::ManOnCrowningRow { square } => write!(
                f,
                "FEN puts a man on square {square}, its crowning row: it would be a king (K{square})"
            ),
        }
    }
}

impl std::error::Error for FenError {}

/// Why a move text was rejected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MoveError {
    Empty,
    TooLong {
        len: usize,
    },
    /// Not of the form square-square or squarexsquare[x…].
    Syntax {
        column: usize,
        text: String,
    },
    BadSquare {
        column: usize,
        found: String,
    },
    NoPiece {
        square: String,
        side: &'static str,
    },
    /// Well-formed, but no legal move fits; `legal` lists the legal moves.
    NotLegal {
        text: String,
        reason: String,
        legal: Vec<String>,
    },
    /// Several legal moves fit; `candidates` lists them with the squares that tell them
    /// apart.
    Ambiguous {
        text: String,
        candidates: Vec<String>,
    },
    /// The side to move has no legal move: the game is over.
    NoLegalMoves,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Empty => write!(f, "empty move"),
            MoveError::TooLong { len } => {
                write!(
                    f,
                    "move text is {len} characters long; at most {MAX_TEXT_LEN} are read"
                )
            }
            MoveError::Syntax { column, text } => write!(
                f,
                "move '{text}', column {column}: expected squares joined by '-' or 'x' \
                 (22-17, 26x17, c3-d4, e3xc5)"
            ),
            MoveError::BadSquare { column, found } => write!(
                f,
                "move column {column}: '{found}' is not a square (1..32 or a dark square a1..h8)"
            ),
            MoveError::NoPiece { square, side } => {
                write!(f, "there is no {side} piece on {square}")
            }
            MoveError::NotLegal {
                text,
                reason,
                legal,
            } => write!(
                f,
                "{text} is not legal here: {reason}; legal moves: {}",
                legal.join(" ")
            ),
            MoveError::Ambiguous { text, candidates } => write!(
                f,
                "{text} is ambiguous: it could be {}",
                candidates.join(" or ")
            ),
            MoveError::NoLegalMoves => write!(f, "the side to move has no legal move"),
        }
    }
}

impl std::error::Error for MoveError {}

/// A square written as a number (1..32) or a dark algebraic square; `None` otherwise.
fn parse_square(token: &str) -> Option<Square> {
    let bytes = token.as_bytes();
    match bytes {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Square::from_file_rank(f - b'a', r - b'1'),
        _ if !bytes.is_empty() && bytes.len() <= 2 && bytes.iter().all(u8::is_ascii_digit) => {
            token.parse().ok().and_then(Square::from_number)
        }
        _ => None,
    }
}

/// Splits `text` at `sep`, yielding each piece with the 1-based character column where it
/// starts.
fn split_with_columns(text: &str, start_column: usize, sep: char) -> Vec<(usize, &str)> {
    let mut parts = Vec::new();
    let mut begin = 0;
    let mut part_column = start_column;
    for (column, (i, c)) in (start_column..).zip(text.char_indices()) {
        if c == sep {
            parts.push((part_column, &text[begin..i]));
            begin = i + c.len_utf8();
            part_column = column + 1;
        }
    }
    parts.push((part_column, &text[begin..]));
    parts
}

/// Trims whitespace from a piece, moving its column past the leading whitespace.
fn trim_with_column((column, s): (usize, &str)) -> (usize, &str) {
    let leading = s.chars().take_while(|c| c.is_whitespace()).count();
    (column + leading, s.trim())
}

pub(super) fn parse_fen(text: &str) -> Result<Brazilian, FenError> {
    if text.len() > MAX_TEXT_LEN {
        return Err(FenError::TooLong { len: text.len() });
    }
    let (column, text) = trim_with_column((1, text));
    let text = text.strip_suffix('.').unwrap_or(text);
    if text.is_empty() {
        return Err(FenError::Empty);
    }
    let fields = split_with_columns(text, column, ':');
    let (side_column, side_text) = trim_with_column(fields[0]);
    let side = match side_text {
        "W" | "w" => WHITE,
        "B" | "b" => BLACK,
        _ => {
            return Err(FenError::BadSideToMove {
                column: side_column,
                found: side_text.to_string(),
            });
        }
    };
    let mut pieces: Vec<(Square, Piece, usize)> = Vec::new();
    let mut seen = [false; 2];
    for &field in &fields[1..] {
        let (column, field) = trim_with_column(field);
        let colour = match field.chars().next() {
            Some('W' | 'w') => WHITE,
            Some('B' | 'b') => BLACK,
            _ => {
                return Err(FenError::BadSection {
                    column,
                    found: field.to_string(),
                });
            }
        };
        if std::mem::replace(&mut seen[colour.index()], true) {
            return Err(FenError::DuplicateSection {
                column,
                colour: Brazilian::side_name(colour),
            });
        }
        let list = &field[1..];
        if list.trim().is_empty() {
            continue;
        }
        for item in split_with_columns(list, column + 1, ',') {
            let (column, item) = trim_with_column(item);
            let bad = || FenError::BadSquare {
                column,
                found: item.to_string(),
            };
            let (king, squares) = match item.strip_prefix(['K', 'k']) {
                Some(rest) => (true, rest.trim_start()),
                None => (false, item),
            };
            let range = match squares.split_once('-') {
                Some((a, b)) => {
                    let a = parse_square(a.trim()).ok_or_else(bad)?;
                    let b = parse_square(b.trim()).ok_or_else(bad)?;
                    if a > b {
                        return Err(bad());
                    }
                    a.number()..=b.number()
                }
                None => {
                    let sq = parse_square(squares).ok_or_else(bad)?;
                    sq.number()..=sq.number()
                }
            };
            for n in range {
                let sq = Square::from_number(n).ok_or_else(bad)?;
                let piece = if king {
                    Piece::King(colour)
                } else {
                    Piece::Man(colour)
                };
                pieces.push((sq, piece, column));
            }
        }
    }
    for colour in [WHITE, BLACK] {
        if !seen[colour.index()] {
            return Err(FenError::MissingSection {
                colour: Brazilian::side_name(colour),
            });
        }
    }
    build_position(pieces, side)
}

pub(super) fn position_from_pieces(
    pieces: impl IntoIterator<Item = (Square, Piece)>,
    side: Side,
) -> Result<Brazilian, FenError> {
    build_position(pieces.into_iter().map(|(s, p)| (s, p, 0)).collect(), side)
}

/// Builds a position from pieces (with the FEN column each came from), checking that a
/// game could reach it.
fn build_position(pieces: Vec<(Square, Piece, usize)>, side: Side) -> Result<Brazilian, FenError> {
    let (mut white, mut black, mut kings) = (0u64, 0u64, 0u64);
    for (sq, piece, column) in pieces {
        let bit = sq.bit();
        if (white | black) & bit != 0 {
            return Err(FenError::DuplicateSquare {
                column,
                square: sq.number(),
            });
        }
        match piece {
            Piece::Man(colour) | Piece::King(colour) if colour == WHITE => white |= bit,
            _ => black |= bit,
        }
        if let Piece::King(_) = piece {
            kings |= bit;
        }
    }
    for (colour, own, crown) in [(WHITE, white, WHITE_CROWN), (BLACK, black, BLACK_CROWN)] {
        let count = own.count_ones();
        if count > MAX_PIECES_PER_SIDE {
            return Err(FenError::TooManyPieces {
                colour: Brazilian::side_name(colour),
                count,
            });
        }
        if let Some(sq) = Squares(own & crown & !kings).next() {
            return Err(FenError::ManOnCrowningRow {
                square: sq.number(),
            });
        }
    }
    debug_assert_eq!((white | black) & !BOARD, 0);
    Ok(Brazilian::from_boards(white, black, kings, side))
}

pub(super) fn format_fen(pos: &Brazilian, style: SquareStyle) -> String {
    let mut out = String::with_capacity(100);
    out.push(if pos.side_to_move() == WHITE {
        'W'
    } else {
        'B'
    });
    for (colour, letter) in [(WHITE, 'W'), (BLACK, 'B')] {
        out.push(':');
        out.push(letter);
        let items: Vec<String> = pos
            .pieces()
            .filter(|(_, piece)| piece.side() == colour)
            .map(|(sq, piece)| {
                let king = if matches!(piece, Piece::King(_)) {
                    "K"
                } else {
                    ""
                };
                format!("{king}{}", square_name(sq, style))
            })
            .collect();
        out.push_str(&items.join(","));
    }
    out
}

/// Most capture paths enumerated for one move when printing or matching it.
const MAX_PATHS: usize = 4096;

/// Every landing sequence of a capture move (each ending with the end square); empty for
/// a quiet move.
pub(super) fn capture_paths(pos: &Brazilian, mv: Move) -> Vec<Vec<Square>> {
    let mut paths = Vec::new();
    if !mv.is_capture() {
        return paths;
    }
    let from = mv.from().bit();
    let empty = (BOARD & !(pos.white | pos.black)) | from;
    let king = pos.kings & from != 0;
    let mut path = Vec::new();
    walk_captures(
        king,
        from,
        mv.to().bit(),
        mv.captured_bits(),
        empty,
        &mut path,
        &mut paths,
    );
    paths
}

fn walk_captures(
    king: bool,
    at: u64,
    to: u64,
    remaining: u64,
    empty: u64,
    path: &mut Vec<Square>,
    paths: &mut Vec<Vec<Square>>,
) {
    if paths.len() >= MAX_PATHS {
        return;
    }
    if remaining == 0 {
        if at == to {
            paths.push(path.clone());
        }
        return;
    }
    for dir in Dir::ALL {
        let mut victim = dir.shift(at);
        while king && victim & empty != 0 {
            victim = dir.shift(victim);
        }
        if victim & remaining == 0 {
            continue;
        }
        let mut landing = dir.shift(victim) & empty;
        while landing != 0 {
            path.push(Square::from_bit_index(landing.trailing_zeros()).expect("on board"));
            walk_captures(king, landing, to, remaining & !victim, empty, path, paths);
            path.pop();
            landing = if king { dir.shift(landing) & empty } else { 0 };
        }
    }
}

pub(super) fn format_move(pos: &Brazilian, mv: Move, style: SquareStyle) -> String {
    let from = square_name(mv.from(), style);
    let to = square_name(mv.to(), style);
    if !mv.is_capture() {
        return format!("{from}-{to}");
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let rivals: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|&m| m != mv && m.from() == mv.from() && m.to() == mv.to())
        .collect();
    if rivals.is_empty() {
        return format!("{from}x{to}");
    }
    // One landing square that no rival passes through is enough; else the whole path.
    let rival_paths: Vec<Vec<Square>> =
        rivals.iter().flat_map(|&m| capture_paths(pos, m)).collect();
    let path = pos.capture_path(mv);
    let via = &path[..path.len().saturating_sub(1)];
    if let Some(&sq) = via
        .iter()
        .find(|&&sq| !rival_paths.iter().any(|p| p[..p.len() - 1].contains(&sq)))
    {
        return format!("{from}x{}x{to}", square_name(sq, style));
    }
    let mut text = from;
    for &sq in &path {
        text.push('x');
        text.push_str(&square_name(sq, style));
    }
    text
}

pub(super) fn parse_move(pos: &Brazilian, text: &str) -> Result<Move, MoveError> {
    if text.len() > MAX_TEXT_LEN {
        return Err(MoveError::TooLong { len: text.len() });
    }
    let (column, trimmed) = trim_with_column((1, text));
    if trimmed.is_empty() {
        return Err(MoveError::Empty);
    }
    // Squares separated by '-', 'x' or ':'. A letter x is never part of a square.
    let mut squares = Vec::new();
    let mut token_start = 0;
    let mut token_column = column;
    let mut separators = 0;
    let chars: Vec<(usize, char)> = trimmed.char_indices().collect();
    for (n, &(i, c)) in chars.iter().enumerate() {
        let last = n + 1 == chars.len();
        let is_sep = matches!(c, '-' | 'x' | 'X' | ':');
        if is_sep || last {
            let end = if is_sep { i } else { i + c.len_utf8() };
            let token = trimmed[token_start..end].trim();
            if token.is_empty() {
                return Err(MoveError::Syntax {
                    column: column + n,
                    text: trimmed.to_string(),
                });
            }
            let sq = parse_square(token).ok_or_else(|| MoveError::BadSquare {
                column: token_column,
                found: token.to_string(),
            })?;
            squares.push((sq, token));
            if is_sep {
                separators += 1;
                if last {
                    return Err(MoveError::Syntax {
                        column: column + n + 1,
                        text: trimmed.to_string(),
                    });
                }
            }
            token_start = i + c.len_utf8();
            token_column = column + n + 1;
        }
    }
    if separators == 0 || squares.len() < 2 {
        return Err(MoveError::Syntax {
            column: column + chars.len(),
            text: trimmed.to_string(),
        });
    }
    let (from, from_text) = squares[0];
    let to = squares[squares.len() - 1].0;
    let via: Vec<Square> = squares[1..squares.len() - 1].iter().map(|s| s.0).collect();

    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if moves.is_empty() {
        return Err(MoveError::NoLegalMoves);
    }
    let candidates: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|m| m.from() == from && m.to() == to)
        .filter(|&m| {
            via.is_empty()
                || capture_paths(pos, m)
                    .iter()
                    .any(|path| is_subsequence(&via, &path[..path.len() - 1]))
        })
        .collect();
    match candidates.as_slice() {
        [mv] => Ok(*mv),
        [] => {
            let side = pos.side_to_move();
            if pos.side_bits(side) & from.bit() == 0 {
                return Err(MoveError::NoPiece {
                    square: from_text.to_string(),
                    side: Brazilian::side_name(side),
                });
            }
            let reason = if moves[0].is_capture() {
                let n = moves[0].capture_count();
                let pieces = if n == 1 { "piece" } else { "pieces" };
                format!("capturing is compulsory and the legal captures take {n} {pieces}")
            } else if moves.iter().any(|m| m.from() == from) {
                "that piece cannot go there".to_string()
            } else {
                "that piece cannot move".to_string()
            };
            Err(MoveError::NotLegal {
                text: trimmed.to_string(),
                reason,
                legal: moves.iter().map(|&m| pos.format_move(m)).collect(),
            })
        }
        several => Err(MoveError::Ambiguous {
            text: trimmed.to_string(),
            candidates: several.iter().map(|&m| pos.format_move(m)).collect(),
        }),
    }
}

fn is_subsequence(needle: &[Square], haystack: &[Square]) -> bool {
    let mut rest = haystack.iter();
    needle.iter().all(|n| rest.any(|h| h == n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fen(text: &str) -> Brazilian {
        Brazilian::parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn start_fen_round_trip() {
        let start = Brazilian::start();
        let text = start.format_position();
        assert_eq!(
            text,
            "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
        );
        assert_eq!(fen(&text), start);
        assert_eq!(fen("W:W21-32:B1-12"), start);
        assert_eq!(fen(&start.to_fen_algebraic()), start);
        assert_eq!(
            fen("W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"),
            start
        );
    }

    #[test]
    fn fen_errors_name_the_place() {
        let err = |t: &str| Brazilian::parse_position(t).unwrap_err();
        assert_eq!(
            err("X:W21:B1"),
            FenError::BadSideToMove {
                column: 1,
                found: "X".into()
            }
        );
        assert_eq!(
            err("W:W21,33:B1"),
            FenError::BadSquare {
                column: 7,
                found: "33".into()
            }
        );
        assert_eq!(
            err("W:W21,b1:B1"),
            FenError::BadSquare {
                column: 7,
                found: "b1".into()
            }
        );
        assert_eq!(
            err("W:W21:B21"),
            FenError::DuplicateSquare {
                column: 8,
                square: 21
            }
        );
        assert_eq!(err("W:W21"), FenError::MissingSection { colour: "black" });
        assert_eq!(err("W:W1:B5"), FenError::ManOnCrowningRow { square: 1 });
        assert!(matches!(
            err("W:W1-13:B20"),
            FenError::TooManyPieces { count: 13, .. }
        ));
        assert_eq!(err(""), FenError::Empty);
    }

    #[test]
    fn moves_in_both_notations() {
        let start = Brazilian::start();
        let mv = start.parse_move("22-17").unwrap();
        assert_eq!(start.parse_move("c3-b4").unwrap(), mv);
        assert_eq!(start.format_move(mv), "22-17");
        assert_eq!(start.format_move_algebraic(mv), "c3-b4");
        assert!(matches!(
            start.parse_move("22-19"),
            Err(MoveError::NotLegal { .. })
        ));
        assert!(matches!(
            start.parse_move("17-13"),
            Err(MoveError::NoPiece { .. })
        ));
        assert!(matches!(
            start.parse_move("22"),
            Err(MoveError::Syntax { .. })
        ));
        assert!(matches!(
            start.parse_move("22-i9"),
            Err(MoveError::BadSquare { column: 4, .. })
        ));
    }

    #[test]
    fn ambiguous_captures_need_the_path() {
        // The king on 30 (c1) takes three men two ways and may end on 17 or 21 after
        // either: four moves, in pairs with the same start and end.
        let pos = fen("W:WK30:B5,8,14,15,26");
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        assert_eq!(moves.len(), 4);
        let mut texts: Vec<String> = moves.iter().map(|&m| pos.format_move(m)).collect();
        texts.sort();
        assert_eq!(texts, ["30x12x17", "30x12x21", "30x19x17", "30x19x21"]);
        for &mv in moves.iter() {
            assert_eq!(pos.parse_move(&pos.format_move(mv)), Ok(mv));
            assert_eq!(pos.parse_move(&pos.format_move_algebraic(mv)), Ok(mv));
            let full: Vec<String> = std::iter::once(mv.from())
                .chain(pos.capture_path(mv))
                .map(|s| s.number().to_string())
                .collect();
            assert_eq!(pos.parse_move(&full.join("x")), Ok(mv));
        }
        assert!(matches!(
            pos.parse_move("30x17"),
            Err(MoveError::Ambiguous { ref candidates, .. }) if candidates.len() == 2
        ));
    }

    #[test]
    fn a_ring_of_captures_is_one_move() {
        // The man on 23 (e3) can take the four men round d5 clockwise or anticlockwise
        // and lands back on 23 either way: one move.
        let pos = fen("W:W23:B10,11,18,19");
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        assert_eq!(moves.len(), 1);
        assert_eq!(pos.format_move(moves[0]), "23x23");
        assert_eq!(moves[0].capture_count(), 4);
        let after = pos.play(moves[0]);
        assert_eq!(after.format_position(), "B:W23:B");
    }
}
