//! Text forms of positions and moves.
//!
//! A position is the side to move and the 14 counts of Dubner's `desk[14]`:
//! `A:6,6,6,6,6,6,0,6,6,6,6,6,6,0` is the start (A's pits 1..6, A's store, B's pits 1..6,
//! B's store). A move is the mover's pits of each sowing joined by commas, as Dubner
//! writes compound moves (`A = 1,2`); its game records separate them by spaces
//! (`A: 1 2`), which is read too.

use std::fmt;

use super::sowing::{Sowing, SowingEnd};
use super::{Kalah, KalahMove, KalahRules, MAX_SOWINGS, PITS};
use crate::game::{Game, Side};

/// Longest position or move text read; longer input is rejected before it is split.
pub const MAX_TEXT_LEN: usize = 256;

/// Why a position text (or a packed position) was rejected. Fields count from 1 among
/// the 14 counts.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum KalahPositionError {
    Empty,
    TooLong {
        len: usize,
    },
    /// No `A:` or `B:` before the counts.
    MissingSide,
    UnknownSide {
        found: String,
    },
    FieldCount {
        found: usize,
    },
    NotANumber {
        field: usize,
        found: String,
    },
    CountAboveTotal {
        field: usize,
        found: String,
        total: u32,
    },
    WrongTotal {
        found: u32,
        rules: KalahRules,
    },
    /// The rules themselves are not played ones (stones a pit outside 1..=6).
    BadRules {
        rules: KalahRules,
    },
}

impl fmt::Display for KalahPositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const EXAMPLE: &str = "A:6,6,6,6,6,6,0,6,6,6,6,6,6,0";
        match self {
            KalahPositionError::Empty => {
                write!(f, "kalah position is empty (write e.g. {EXAMPLE})")
            }
            KalahPositionError::TooLong { len } => write!(
                f,
                "kalah position is {len} bytes long; at most {MAX_TEXT_LEN} are read"
            ),
            KalahPositionError::MissingSide => write!(
                f,
                "kalah position must start with the side to move, A: or B: (e.g. {EXAMPLE})"
            ),
            KalahPositionError::UnknownSide { found } => write!(
                f,
                "kalah position: side to move \"{found}\" is neither A nor B"
            ),
            KalahPositionError::FieldCount { found } => write!(
                f,
                "kalah position: {found} numbers, expected 14 (A's pits 1..6, A's store, \
                 B's pits 1..6, B's store)"
            ),
            KalahPositionError::NotANumber { field, found } => {
                write!(
                    f,
                    "kalah position field {field} (\"{found}\"): not a number"
                )
            }
            KalahPositionError::CountAboveTotal {
                field,
                found,
                total,
            } => write!(
                f,
                "kalah position field {field} (\"{found}\"): more than the {total} stones \
                 in play"
            ),
            KalahPositionError::WrongTotal { found, rules } => write!(
                f,
                "kalah position: stones total {found}, {} ({} stones a pit) has {}",
                rules.name(),
                rules.stones,
                rules.total()
            ),
            KalahPositionError::BadRules { rules } => write!(
                f,
                "kalah rules with {} stones a pit are not played (1..=6)",
                rules.stones
            ),
        }
    }
}

impl std::error::Error for KalahPositionError {}

/// Why a move text (or a single sowing) was rejected. Sowings count from 1.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum KalahMoveError {
    Empty,
    TooLong {
        len: usize,
    },
    /// More sowings than a move can hold.
    TooManySowings {
        count: usize,
    },
    NotANumber {
        sowing: usize,
        found: String,
    },
    PitOutOfRange {
        sowing: usize,
        found: String,
    },
    EmptyPit {
        sowing: usize,
        pit: u8,
    },
    /// The text ends while the turn goes on; `example` is one legal way on.
    TurnGoesOn {
        text: String,
        example: String,
    },
    /// More sowings follow one that passed the turn.
    TurnPassed {
        sowing: usize,
        pit: u8,
        text: String,
    },
    /// More sowings follow one that ended the game.
    GameEnded {
        sowing: usize,
        pit: u8,
        text: String,
    },
    /// The game is over: nothing can be sown.
    GameOver,
}

impl fmt::Display for KalahMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KalahMoveError::Empty => write!(f, "empty move (write the pits sown, e.g. 1,2)"),
            KalahMoveError::TooLong { len } => write!(
                f,
                "move text is {len} bytes long; at most {MAX_TEXT_LEN} are read"
            ),
            KalahMoveError::TooManySowings { count } => write!(
                f,
                "move of {count} sowings; a turn has at most {MAX_SOWINGS}"
            ),
            KalahMoveError::NotANumber { sowing, found } => {
                write!(f, "sowing {sowing} (\"{found}\"): not a number")
            }
            KalahMoveError::PitOutOfRange { sowing, found } => {
                write!(f, "sowing {sowing} (\"{found}\"): pits are numbered 1..6")
            }
            KalahMoveError::EmptyPit { sowing, pit } => {
                write!(f, "sowing {sowing}: pit {pit} is empty")
            }
            KalahMoveError::TurnGoesOn { text, example } => write!(
                f,
                "the turn goes on after {text}: add the next sowing (e.g. {example})"
            ),
            KalahMoveError::TurnPassed { sowing, pit, text } => write!(
                f,
                "the turn has passed after sowing {sowing} (pit {pit} of \"{text}\"): \
                 nothing may follow it"
            ),
            KalahMoveError::GameEnded { sowing, pit, text } => write!(
                f,
                "the game ended after sowing {sowing} (pit {pit} of \"{text}\"): nothing \
                 may follow it"
            ),
            KalahMoveError::GameOver => write!(f, "the game is over: nothing can be sown"),
        }
    }
}

impl std::error::Error for KalahMoveError {}

/// The checks every position from outside passes (text, datasets, hand-built counts):
/// played rules, no count above the total, the rules' total in all.
pub(super) fn check_position(
    rules: KalahRules,
    counts: [u32; 14],
    side: Side,
) -> Result<Kalah, KalahPositionError> {
    if !rules.is_valid() {
        return Err(KalahPositionError::BadRules { rules });
    }
    let total = rules.total();
    let mut sum = 0;
    let mut desk = [0u8; 14];
    for (i, &count) in counts.iter().enumerate() {
        if count > total {
            return Err(KalahPositionError::CountAboveTotal {
                field: i + 1,
                found: count.to_string(),
                total,
            });
        }
        sum += count;
        // At most the total, which is at most 72.
        desk[i] = count as u8;
    }
    if sum != total {
        return Err(KalahPositionError::WrongTotal { found: sum, rules });
    }
    Ok(Kalah {
        counts: desk,
        side,
        rules,
    })
}

pub(super) fn parse_position(rules: KalahRules, text: &str) -> Result<Kalah, KalahPositionError> {
    if text.len() > MAX_TEXT_LEN {
        return Err(KalahPositionError::TooLong { len: text.len() });
    }
    let text = text.trim();
    if text.is_empty() {
        return Err(KalahPositionError::Empty);
    }
    let Some((side_text, list)) = text.split_once(':') else {
        return Err(KalahPositionError::MissingSide);
    };
    let side = match side_text.trim() {
        "A" | "a" => Side::First,
        "B" | "b" => Side::Second,
        other => {
            return Err(KalahPositionError::UnknownSide {
                found: other.to_string(),
            });
        }
    };
    let fields = list.split(',').count();
    if fields != 14 {
        return Err(KalahPositionError::FieldCount { found: fields });
    }
    let total = rules.total();
    let mut counts = [0u32; 14];
    for (i, field) in list.split(',').enumerate() {
        let field = field.trim();
        if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
            return Err(KalahPositionError::NotANumber {
                field: i + 1,
                found: field.to_string(),
            });
        }
        counts[i] = field
            .parse::<u32>()
            .ok()
            .filter(|&count| count <= total)
            .ok_or_else(|| KalahPositionError::CountAboveTotal {
                field: i + 1,
                found: field.to_string(),
                total,
            })?;
    }
    check_position(rules, counts, side)
}

pub(super) fn format_position(pos: &Kalah) -> String {
    let mut text = String::with_capacity(48);
    text.push_str(Kalah::side_name(pos.side_to_move()));
    text.push(':');
    for (i, count) in pos.counts().iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&count.to_string());
    }
    text
}

/// The pits of `mv` joined by `separator` (`,` in move texts, ` ` in game records).
pub(super) fn format_move(mv: KalahMove, separator: &str) -> String {
    let pits: Vec<String> = mv.sowings().map(|pit| pit.to_string()).collect();
    pits.join(separator)
}

/// Reads a move sowing by sowing with [`Kalah::sow`], so exactly the legal moves pass.
pub(super) fn parse_move(pos: &Kalah, text: &str) -> Result<KalahMove, KalahMoveError> {
    let (mv, current, end) = sow_text(pos, text)?;
    if end == SowingEnd::SowsAgain {
        let so_far = format_move(mv, ",");
        let next = (1..=PITS as u8)
            .find(|&p| current.pit(current.side_to_move(), p) > 0)
            .unwrap_or(1);
        return Err(KalahMoveError::TurnGoesOn {
            example: format!("{so_far},{next}"),
            text: so_far,
        });
    }
    Ok(mv)
}

impl Kalah {
    /// Sows the pits of a move text (`1,2`, or the first sowings of a turn that goes on,
    /// `1`): the sowings, the position after them (the same side to move while the turn
    /// goes on) and how the last one ended. For a person typing a turn part by part.
    pub fn sow_text(&self, text: &str) -> Result<(KalahMove, Kalah, SowingEnd), KalahMoveError> {
        sow_text(self, text)
    }

    /// Sows the side to move's pit `pit` (1..=6): one sowing of a compound move, for a
    /// player typing one sowing at a time.
    pub fn sow(&self, pit: u8) -> Result<Sowing, KalahMoveError> {
        if self.is_over() {
            return Err(KalahMoveError::GameOver);
        }
        if !(1..=PITS as u8).contains(&pit) {
            return Err(KalahMoveError::PitOutOfRange {
                sowing: 1,
                found: pit.to_string(),
            });
        }
        if self.pit(self.side, pit) == 0 {
            return Err(KalahMoveError::EmptyPit { sowing: 1, pit });
        }
        Ok(self.sow_unchecked(pit as usize - 1))
    }
}

/// Sows the pits of a move text from `pos`, one after another, checking each: the
/// sowings so far, the position after them and how the last one ended (the turn may go
/// on: a person types a compound move one sowing at a time).
pub(super) fn sow_text(
    pos: &Kalah,
    text: &str,
) -> Result<(KalahMove, Kalah, SowingEnd), KalahMoveError> {
    if text.len() > MAX_TEXT_LEN {
        return Err(KalahMoveError::TooLong { len: text.len() });
    }
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(KalahMoveError::Empty);
    }
    if pos.is_over() {
        return Err(KalahMoveError::GameOver);
    }
    // Commas or runs of spaces separate sowings; an empty field between commas is an
    // error, not skipped.
    let tokens = trimmed.split(',').flat_map(|part| {
        let words = part.split_whitespace();
        let empty = part.trim().is_empty().then_some("");
        words.chain(empty)
    });
    let count = tokens.clone().count();
    if count > MAX_SOWINGS {
        return Err(KalahMoveError::TooManySowings { count });
    }
    let mut current = *pos;
    let mut mv = KalahMove::default();
    let mut end = SowingEnd::SowsAgain;
    for (k, token) in tokens.enumerate() {
        let sowing = k + 1;
        if !token.bytes().all(|b| b.is_ascii_digit()) || token.is_empty() {
            return Err(KalahMoveError::NotANumber {
                sowing,
                found: token.to_string(),
            });
        }
        let pit = token
            .parse::<u8>()
            .ok()
            .filter(|p| (1..=PITS as u8).contains(p))
            .ok_or_else(|| KalahMoveError::PitOutOfRange {
                sowing,
                found: token.to_string(),
            })?;
        match end {
            SowingEnd::SowsAgain => {}
            SowingEnd::TurnPasses => {
                return Err(KalahMoveError::TurnPassed {
                    sowing: k,
                    pit: mv.last(),
                    text: trimmed.to_string(),
                });
            }
            SowingEnd::GameOver => {
                return Err(KalahMoveError::GameEnded {
                    sowing: k,
                    pit: mv.last(),
                    text: trimmed.to_string(),
                });
            }
        }
        if current.pit(current.side_to_move(), pit) == 0 {
            return Err(KalahMoveError::EmptyPit { sowing, pit });
        }
        let sown = current.sow_unchecked(pit as usize - 1);
        current = sown.position;
        end = sown.end;
        mv = mv
            .then(pit)
            .ok_or(KalahMoveError::TooManySowings { count })?;
    }
    Ok((mv, current, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_text() {
        let start = Kalah::start();
        assert_eq!(start.format_position(), "A:6,6,6,6,6,6,0,6,6,6,6,6,6,0");
        assert_eq!(
            Kalah::parse_position(" a : 6, 6,6,6,6,6,0 ,6,6,6,6,6,6,0 "),
            Ok(start)
        );
    }

    #[test]
    fn move_texts() {
        let start = Kalah::start();
        let mv = KalahMove::from_pits(&[1, 2]).unwrap();
        assert_eq!(start.parse_move("1,2"), Ok(mv));
        assert_eq!(start.parse_move(" 1 2 "), Ok(mv));
        assert_eq!(start.parse_move("1, 2"), Ok(mv));
        assert_eq!(start.format_move(mv), "1,2");
        assert_eq!(
            start.parse_move("1,,2"),
            Err(KalahMoveError::NotANumber {
                sowing: 2,
                found: String::new()
            })
        );
    }
}
