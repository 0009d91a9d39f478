//! The history of a game above its current position: what the draw rules need
//! (threefold repetition, the quiet-move count) and an optional ply cap for self-play.

use super::{Game, Outcome};

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    /// The side to move had no legal move (no pieces, or all blocked).
    NoMoves,
    /// The same position with the same side to move occurred a third time.
    Repetition,
    /// [`Game::QUIET_DRAW_PLIES`] plies in a row without an irreversible move (Brazilian
    /// draughts: 20 moves by each side with only kings moving and no capture).
    QuietMoveRule,
    /// The record's ply cap was reached; counted as a draw.
    PlyCap,
    /// Stopped on entering an endgame database, with the database's result.
    Adjudicated,
    /// The side to move ran out of time on its game clock and lost.
    TimeForfeit,
}

impl EndReason {
    /// Every reason, in the order of their codes.
    pub const ALL: [EndReason; 6] = [
        EndReason::NoMoves,
        EndReason::Repetition,
        EndReason::QuietMoveRule,
        EndReason::PlyCap,
        EndReason::Adjudicated,
        EndReason::TimeForfeit,
    ];

    /// The reason's number in dataset files.
    pub fn code(self) -> u8 {
        Self::ALL
            .iter()
            .position(|&r| r == self)
            .expect("ALL lists every reason") as u8
    }

    pub fn from_code(code: u8) -> Option<EndReason> {
        Self::ALL.get(code as usize).copied()
    }

    /// A few words for reports.
    pub fn label(self) -> &'static str {
        match self {
            EndReason::NoMoves => "no moves",
            EndReason::Repetition => "repetition",
            EndReason::QuietMoveRule => "20-move rule",
            EndReason::PlyCap => "ply cap",
            EndReason::Adjudicated => "adjudicated",
            EndReason::TimeForfeit => "time forfeit",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameStatus {
    Ongoing,
    Over { outcome: Outcome, reason: EndReason },
}

/// A game from a start position: every position, move and hash so far.
#[derive(Clone, Debug)]
pub struct GameRecord<G: Game> {
    /// `positions[i]` is the position after `i` moves.
    positions: Vec<G>,
    moves: Vec<G::Move>,
    hashes: Vec<u64>,
    /// `quiet_plies[i]`: plies since the last irreversible move, at position `i`.
    quiet_plies: Vec<u32>,
    ply_cap: Option<u32>,
}

impl<G: Game> GameRecord<G> {
    pub fn new(start: G) -> Self {
        GameRecord {
            positions: vec![start],
            moves: Vec::new(),
            hashes: vec![start.hash_key()],
            quiet_plies: vec![0],
            ply_cap: None,
        }
    }

    /// Ends the game as a draw ([`EndReason::PlyCap`]) once `cap` plies are played.
    pub fn with_ply_cap(mut self, cap: Option<u32>) -> Self {
        self.ply_cap = cap;
        self
    }

    pub fn start(&self) -> &G {
        &self.positions[0]
    }

    pub fn position(&self) -> &G {
        self.positions
            .last()
            .expect("a record always holds its start position")
    }

    pub fn moves(&self) -> &[G::Move] {
        &self.moves
    }

    /// Every position from the start to the current one.
    pub fn positions(&self) -> &[G] {
        &self.positions
    }

    /// Plies played so far.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// Plies since the last irreversible move.
    pub fn quiet_plies(&self) -> u32 {
        *self.quiet_plies.last().expect("never empty")
    }

    /// Hashes of the positions since the last irreversible move, oldest first, the
    /// current position last: the only ones a search can repeat.
    pub fn reversible_hashes(&self) -> &[u64] {
        let n = self.quiet_plies() as usize;
        &self.hashes[self.hashes.len() - 1 - n..]
    }

    /// Plays `mv`, which must be legal in the current position.
    pub fn play(&mut self, mv: G::Move) {
        let pos = *self.position();
        let next = pos.play(mv);
        let quiet = if pos.is_irreversible(mv) {
            0
        } else {
            self.quiet_plies() + 1
        };
        self.positions.push(next);
        self.moves.push(mv);
        self.hashes.push(next.hash_key());
        self.quiet_plies.push(quiet);
    }

    /// Takes back the last move; `None` at the start.
    pub fn undo(&mut self) -> Option<G::Move> {
        let mv = self.moves.pop()?;
        self.positions.pop();
        self.hashes.pop();
        self.quiet_plies.pop();
        Some(mv)
    }

    /// How many times the current position has occurred (1 = first time).
    pub fn repetitions(&self) -> usize {
        let current = self.position();
        let hash = *self.hashes.last().expect("never empty");
        let window = self.quiet_plies() as usize + 1;
        let start = self.positions.len() - window;
        (start..self.positions.len())
            .filter(|&i| self.hashes[i] == hash && self.positions[i] == *current)
            .count()
    }

    /// Whether the game is over, by the rules, the draw rules or the ply cap. A side
    /// without moves loses even if a draw rule is met at the same time.
    pub fn status(&self) -> GameStatus {
        if !self.position().has_legal_move() {
            return GameStatus::Over {
                outcome: self.position().outcome_without_moves(),
                reason: EndReason::NoMoves,
            };
        }
        let draw = |reason| GameStatus::Over {
            outcome: Outcome::Draw,
            reason,
        };
        if self.repetitions() >= 3 {
            return draw(EndReason::Repetition);
        }
        if G::QUIET_DRAW_PLIES.is_some_and(|limit| self.quiet_plies() >= limit) {
            return draw(EndReason::QuietMoveRule);
        }
        if self.ply_cap.is_some_and(|cap| self.ply() >= cap as usize) {
            return draw(EndReason::PlyCap);
        }
        GameStatus::Ongoing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::MoveList;
    use crate::games::brazilian::Brazilian;

    fn play_all(record: &mut GameRecord<Brazilian>, moves: &[&str]) {
        for text in moves {
            let mv = record.position().parse_move(text).unwrap();
            record.play(mv);
        }
    }

    #[test]
    fn threefold_repetition_of_king_moves() {
        // The kings' diagonals never meet, so no capture is ever possible.
        let pos = Brazilian::parse_position("W:WK29:BK1").unwrap();
        let mut record = GameRecord::new(pos);
        assert_eq!(record.status(), GameStatus::Ongoing);
        play_all(&mut record, &["29-25", "1-5", "25-29", "5-1"]);
        assert_eq!(record.repetitions(), 2);
        assert_eq!(record.status(), GameStatus::Ongoing);
        play_all(&mut record, &["29-25", "1-5", "25-29", "5-1"]);
        assert_eq!(record.repetitions(), 3);
        assert_eq!(
            record.status(),
            GameStatus::Over {
                outcome: Outcome::Draw,
                reason: EndReason::Repetition
            }
        );
        record.undo();
        assert_eq!(record.status(), GameStatus::Ongoing);
    }

    /// Extends the game by `plies` king moves that never repeat a position and never
    /// offer a capture (depth-first, backtracking); false if there is no such walk.
    fn king_walk(record: &mut GameRecord<Brazilian>, plies: u32) -> bool {
        if plies == 0 {
            return true;
        }
        let mut moves = MoveList::new();
        record.position().legal_moves(&mut moves);
        for &mv in moves.iter() {
            let next = record.position().play(mv);
            if record.position().is_irreversible(mv)
                || next.has_capture()
                || record.positions().contains(&next)
            {
                continue;
            }
            record.play(mv);
            if king_walk(record, plies - 1) {
                return true;
            }
            record.undo();
        }
        false
    }

    #[test]
    fn twenty_king_moves_each_draw() {
        let pos = Brazilian::parse_position("W:WK29,21:BK1,12").unwrap();
        let mut record = GameRecord::new(pos);
        play_all(&mut record, &["21-17", "12-16"]);
        assert_eq!(record.quiet_plies(), 0);
        let man_moves = record.ply();
        assert!(king_walk(&mut record, 40));
        for ply in man_moves..record.ply() {
            let mut prefix = GameRecord::new(*record.start());
            for &mv in &record.moves()[..ply] {
                prefix.play(mv);
            }
            assert_eq!(prefix.status(), GameStatus::Ongoing, "ply {ply}");
        }
        assert_eq!(record.quiet_plies(), 40);
        assert_eq!(
            record.status(),
            GameStatus::Over {
                outcome: Outcome::Draw,
                reason: EndReason::QuietMoveRule
            }
        );
        // A man move restarts the count.
        record.undo();
        let man_move = record.position().parse_move(
            if record.position().side_to_move() == crate::game::Side::First {
                "17-13"
            } else {
                "16-20"
            },
        );
        record.play(man_move.unwrap());
        assert_eq!(record.quiet_plies(), 0);
        assert_eq!(record.status(), GameStatus::Ongoing);
    }

    #[test]
    fn ply_cap_and_no_moves() {
        let mut record = GameRecord::new(Brazilian::start()).with_ply_cap(Some(2));
        play_all(&mut record, &["22-17", "11-15"]);
        assert_eq!(
            record.status(),
            GameStatus::Over {
                outcome: Outcome::Draw,
                reason: EndReason::PlyCap
            }
        );
        // Black's man on h8 is blocked by White's men on g7 and f6.
        let blocked = Brazilian::parse_position("B:W8,11:B4").unwrap();
        assert_eq!(
            GameRecord::new(blocked).status(),
            GameStatus::Over {
                outcome: Outcome::Win(crate::game::Side::First),
                reason: EndReason::NoMoves
            }
        );
    }
}
