//! Positions and moves as the Hub protocol writes them for Brazilian draughts, in the
//! form pydraughts sends and reads.
//!
//! - Position (`pos pos=…`): the side to move (`W`/`B`), then one character per dark
//!   square in PDN order (square 1 = b8 … 32 = g1, as everywhere else in evalearn):
//!   `w`/`b` a man, `W`/`B` a king, `e` empty. Start: `Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww`.
//! - Moves (`moves="…"`, `done move=…`): squares numbered the other way round, from
//!   White's side — 1 = a1, 2 = c1, 5 = b2 … 32 = h8 — as pydraughts numbers the
//!   Brazilian board for Hub engines. A quiet move is `from-to`; a capture
//!   `fromxtoxc1xc2…` with every captured square (in any order; written ascending).

use std::fmt;

use crate::game::Game;
use crate::games::brazilian::{BLACK, Brazilian, FenError, Move, Piece, Square, WHITE};

/// Characters of a Hub position: the side to move and 32 squares.
const POSITION_LEN: usize = 33;

/// The square Hub move notation numbers `number` (1 = a1 … 32 = h8).
pub fn square_from_hub(number: u32) -> Option<Square> {
    if !(1..=32).contains(&number) {
        return None;
    }
    let rank = ((number - 1) / 4) as u8;
    let file = (2 * ((number - 1) % 4)) as u8 + rank % 2;
    Square::from_file_rank(file, rank)
}

/// The Hub move-notation number of `sq`.
pub fn hub_number(sq: Square) -> u32 {
    u32::from(sq.rank()) * 4 + u32::from(sq.file()) / 2 + 1
}

/// Why a Hub position was rejected. Columns count characters from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    Length { found: usize },
    SideToMove { found: char },
    Square { column: usize, found: char },
    Illegal(FenError),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Length { found } => write!(
                f,
                "position has {found} characters; expected {POSITION_LEN} (side to move W or B, \
                 then w, b, W, B or e for each of the 32 squares)"
            ),
            PositionError::SideToMove { found } => {
                write!(
                    f,
                    "position column 1: side to move must be W or B, found '{found}'"
                )
            }
            PositionError::Square { column, found } => write!(
                f,
                "position column {column}: square {} must be w, b, W, B or e, found '{found}'",
                column - 1
            ),
            PositionError::Illegal(e) => write!(f, "position: {e}"),
        }
    }
}

impl std::error::Error for PositionError {}

/// Reads a Hub position.
pub fn parse_position(text: &str) -> Result<Brazilian, PositionError> {
    let count = text.chars().count();
    if count != POSITION_LEN {
        return Err(PositionError::Length { found: count });
    }
    let mut chars = text.chars();
    let side = match chars.next() {
        Some('W' | 'w') => WHITE,
        Some('B' | 'b') => BLACK,
        found => {
            return Err(PositionError::SideToMove {
                found: found.unwrap_or(' '),
            });
        }
    };
    let mut pieces = Vec::with_capacity(32);
    for (i, c) in chars.enumerate() {
        let sq = Square::from_number(i as u8 + 1).expect("32 squares");
        let piece = match c {
            'w' => Piece::Man(WHITE),
            'b' => Piece::Man(BLACK),
            'W' => Piece::King(WHITE),
            'B' => Piece::King(BLACK),
            'e' | 'E' => continue,
            found => {
                return Err(PositionError::Square {
                    column: i + 2,
                    found,
                });
            }
        };
        pieces.push((sq, piece));
    }
    Brazilian::from_pieces(pieces, side).map_err(PositionError::Illegal)
}

/// Writes a position as Hub reads it.
pub fn format_position(pos: &Brazilian) -> String {
    let mut text = String::with_capacity(POSITION_LEN);
    text.push(if pos.side_to_move() == WHITE {
        'W'
    } else {
        'B'
    });
    for sq in Square::all() {
        text.push(match pos.piece_at(sq) {
            None => 'e',
            Some(Piece::Man(side)) if side == WHITE => 'w',
            Some(Piece::Man(_)) => 'b',
            Some(Piece::King(side)) if side == WHITE => 'W',
            Some(Piece::King(_)) => 'B',
        });
    }
    text
}

/// Writes a move in Hub notation.
pub fn format_move(mv: Move) -> String {
    if !mv.is_capture() {
        return format!("{}-{}", hub_number(mv.from()), hub_number(mv.to()));
    }
    let mut captured: Vec<u32> = mv.captured().map(hub_number).collect();
    captured.sort_unstable();
    let mut text = format!("{}x{}", hub_number(mv.from()), hub_number(mv.to()));
    for number in captured {
        text.push('x');
        text.push_str(&number.to_string());
    }
    text
}

/// Why a Hub move was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    Syntax {
        text: String,
    },
    /// Well formed but not a legal move here; `legal` lists the legal ones.
    Illegal {
        text: String,
        legal: String,
    },
    /// Start and end squares of several legal captures, told apart only by the captured
    /// squares, which were not given.
    Ambiguous {
        text: String,
    },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax { text } => write!(
                f,
                "'{text}' is not a Hub move (from-to, or fromxto followed by xSQUARE for each \
                 captured piece; squares 1..32 numbered from a1)"
            ),
            MoveError::Illegal { text, legal } => {
                write!(f, "'{text}' is not legal here; legal moves: {legal}")
            }
            MoveError::Ambiguous { text } => write!(
                f,
                "'{text}' matches several captures; add the captured squares"
            ),
        }
    }
}

impl std::error::Error for MoveError {}

/// Reads a Hub move and finds it among the legal moves of `pos`. A capture given as
/// `fromxto` alone is accepted when only one legal capture joins those squares.
pub fn parse_move(pos: &Brazilian, text: &str) -> Result<Move, MoveError> {
    let syntax = || MoveError::Syntax {
        text: text.chars().take(40).collect(),
    };
    if text.len() > 200 {
        return Err(syntax());
    }
    let capture = text.contains('x');
    let separator = if capture { 'x' } else { '-' };
    let mut squares = Vec::with_capacity(14);
    for part in text.split(separator) {
        let number: u32 = part
            .parse()
            .ok()
            .filter(|_| part.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(syntax)?;
        squares.push(square_from_hub(number).ok_or_else(syntax)?);
    }
    if squares.len() < 2 || (!capture && squares.len() != 2) {
        return Err(syntax());
    }
    let (from, to) = (squares[0], squares[1]);
    let captured: u64 = squares[2..].iter().fold(0, |bits, sq| bits | sq.bit());
    let mut list = <Brazilian as Game>::Moves::default();
    pos.legal_moves(&mut list);
    let mut found = list.iter().copied().filter(|mv| {
        mv.from() == from
            && mv.to() == to
            && mv.is_capture() == capture
            && (squares.len() == 2 || mv.captured_bits() == captured)
    });
    match (found.next(), found.next()) {
        (Some(mv), None) => Ok(mv),
        (Some(_), Some(_)) => Err(MoveError::Ambiguous { text: text.into() }),
        (None, _) => Err(MoveError::Illegal {
            text: text.into(),
            legal: list
                .iter()
                .map(|&mv| format_move(mv))
                .collect::<Vec<_>>()
                .join(" "),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";

    #[test]
    fn numbering_runs_from_a1() {
        let names: Vec<String> = [1, 2, 4, 5, 9, 13, 29, 32]
            .iter()
            .map(|&n| square_from_hub(n).unwrap().algebraic())
            .collect();
        assert_eq!(names, ["a1", "c1", "g1", "b2", "a3", "b4", "b8", "h8"]);
        for sq in Square::all() {
            assert_eq!(square_from_hub(hub_number(sq)), Some(sq));
        }
        assert_eq!(square_from_hub(0), None);
        assert_eq!(square_from_hub(33), None);
    }

    #[test]
    fn start_position_and_first_moves_match_pydraughts() {
        let pos = parse_position(START).unwrap();
        assert_eq!(pos, Brazilian::start());
        assert_eq!(format_position(&pos), START);
        let mut list = <Brazilian as Game>::Moves::default();
        pos.legal_moves(&mut list);
        let mut moves: Vec<String> = list.iter().map(|&m| format_move(m)).collect();
        moves.sort_by_key(|m| {
            m.split('-')
                .map(|s| s.parse::<u32>().unwrap())
                .collect::<Vec<_>>()
        });
        // pydraughts 0.6.7: Board("brazilian").legal_moves() as hub moves.
        assert_eq!(
            moves,
            ["9-13", "10-13", "10-14", "11-14", "11-15", "12-15", "12-16"]
        );
        // After 9-13 pydraughts sends this position for Black.
        let after = pos.play(parse_move(&pos, "9-13").unwrap());
        assert_eq!(format_position(&after), "Bbbbbbbbbbbbbeeeeweeeewwwwwwwwwww");
    }

    #[test]
    fn every_move_of_random_games_round_trips_captures_in_any_order() {
        let mut list = <Brazilian as Game>::Moves::default();
        let mut multi = 0;
        for game in 0..200 {
            let mut rng = crate::rng::stream(7, game);
            for plies in [10, 30, 50] {
                let Some(pos) =
                    crate::game::random_plies(Brazilian::start(), plies, &mut rng, &mut list)
                else {
                    continue;
                };
                assert_eq!(parse_position(&format_position(&pos)), Ok(pos));
                pos.legal_moves(&mut list);
                for &mv in list.iter() {
                    let text = format_move(mv);
                    assert_eq!(parse_move(&pos, &text), Ok(mv), "{text}");
                    let parts: Vec<&str> = text.split('x').collect();
                    if parts.len() > 3 {
                        multi += 1;
                        let mut reordered = parts[..2].to_vec();
                        reordered.extend(parts[2..].iter().rev());
                        assert_eq!(parse_move(&pos, &reordered.join("x")), Ok(mv));
                    }
                }
            }
        }
        assert!(multi > 0, "no multiple capture met");
    }

    #[test]
    fn bad_input_is_named() {
        assert_eq!(parse_position("W"), Err(PositionError::Length { found: 1 }));
        let bad = format!("X{}", &START[1..]);
        assert!(matches!(
            parse_position(&bad),
            Err(PositionError::SideToMove { found: 'X' })
        ));
        let bad = format!("{}z{}", &START[..5], &START[6..]);
        assert_eq!(
            parse_position(&bad),
            Err(PositionError::Square {
                column: 6,
                found: 'z'
            })
        );
        // A white man on its crowning row (square 1 = b8).
        let bad = format!("Ww{}", &START[2..]);
        assert!(matches!(
            parse_position(&bad),
            Err(PositionError::Illegal(_))
        ));
        let pos = Brazilian::start();
        for text in [
            "", "9", "9-", "-13", "9-13-17", "a-b", "0-4", "9-33", "+9-13", "9x13",
        ] {
            assert!(parse_move(&pos, text).is_err(), "{text}");
        }
        assert!(matches!(
            parse_move(&pos, "1-5"),
            Err(MoveError::Illegal { .. })
        ));
    }
}
