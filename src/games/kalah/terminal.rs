//! Kalah in the terminal: the board as Dubner draws it (B's store and pits 6..1 on top,
//! A's pits 1..6 and store below), moves typed one sowing at a time or whole.

use crate::game::view::{MoveInput, Terminal};
use crate::game::{EndReason, Game, Outcome, Side};
use crate::games::kalah::{A, B, Kalah, KalahMove, KalahMoveError, PITS, SowingEnd};

impl Terminal for Kalah {
    const MOVE_HELP: &'static str = "\
Type the pit you sow, 1..6 counted from your left. When the last stone falls in your
store you sow again: the board is shown and you type the next pit. A whole turn may also
be typed at once, the pits joined by commas (1,2).";
    /// Four whole turns (1,907 move paths from the start).
    const OPENING_PLIES: u32 = 4;

    fn render(&self, flipped: bool) -> String {
        render_board(self, flipped)
    }

    fn describe_move(&self, mv: KalahMove) -> String {
        self.format_move(mv)
    }

    fn read_move(&self, text: &str) -> MoveInput<Kalah> {
        match self.sow_text(text) {
            Ok((mv, _, SowingEnd::TurnPasses | SowingEnd::GameOver)) => MoveInput::Move(mv),
            Ok((_, position, SowingEnd::SowsAgain)) => MoveInput::Continue(position),
            Err(error @ KalahMoveError::EmptyPit { .. }) => {
                MoveInput::Invalid(format!("not a legal move: {error}"))
            }
            Err(error) => MoveInput::Invalid(format!("not a move: {error}")),
        }
    }

    fn describe_end(&self, outcome: Outcome, reason: EndReason) -> String {
        let (a, b) = self.final_score();
        let result = match outcome {
            Outcome::Win(side) => format!("{} wins", Kalah::side_name(side)),
            Outcome::Draw => "draw".to_string(),
        };
        match reason {
            EndReason::NoMoves => format!("{result}, {a}-{b} (a row is empty)"),
            EndReason::PlyCap => format!("{result} (move limit)"),
            EndReason::Adjudicated => format!("{result} (adjudicated)"),
            EndReason::TimeForfeit => format!("{result} (out of time)"),
            EndReason::Repetition | EndReason::QuietMoveRule => result,
        }
    }
}

/// The board as Dubner draws it: the top side's name, pit numbers 6..1 and pits, its
/// store on the left; the bottom side's pits 1..6, numbers and name, its store on the
/// right. Normally B is on top; `flipped` puts A there.
///
/// ```text
///   B   6    5    4    3    2    1
/// +----+----+----+----+----+----+----+----+
/// |    |  6 |  6 |  6 |  6 |  6 |  6 |    |
/// |  0 +----+----+----+----+----+----+  0 |
/// |    |  6 |  6 |  6 |  6 |  6 |  6 |    |
/// +----+----+----+----+----+----+----+----+
///        1    2    3    4    5    6    A
/// ```
pub fn render_board(pos: &Kalah, flipped: bool) -> String {
    let (top, bottom): (Side, Side) = if flipped { (A, B) } else { (B, A) };
    let line = format!("{}+\n", "+----".repeat(PITS + 2));
    let row = |counts: [u8; PITS]| -> String {
        let cells: String = counts.iter().map(|c| format!(" {c:>2} |")).collect();
        format!("|    |{cells}    |\n")
    };
    let mut top_pits = pos.pits(top);
    top_pits.reverse();
    let top_numbers: String = (1..=PITS).rev().map(|n| format!(" {n:>2}  ")).collect();
    let bottom_numbers: String = (1..=PITS).map(|n| format!(" {n:>2}  ")).collect();
    let mut out = format!("  {}  {top_numbers}\n", Kalah::side_name(top));
    out.push_str(&line);
    out.push_str(&row(top_pits));
    out.push_str(&format!(
        "| {:>2} {}+ {:>2} |\n",
        pos.store(top),
        "+----".repeat(PITS),
        pos.store(bottom)
    ));
    out.push_str(&row(pos.pits(bottom)));
    out.push_str(&line);
    out.push_str(&format!(
        "     {bottom_numbers}  {}\n",
        Kalah::side_name(bottom)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_is_drawn_as_the_seed_draws_it() {
        let pos = Kalah::parse_position("A:1,2,3,4,5,6,7,8,9,10,11,0,0,6").unwrap();
        let board = render_board(&pos, false);
        let lines: Vec<&str> = board.lines().collect();
        assert_eq!(
            lines,
            [
                "  B    6    5    4    3    2    1  ",
                "+----+----+----+----+----+----+----+----+",
                "|    |  0 |  0 | 11 | 10 |  9 |  8 |    |",
                "|  6 +----+----+----+----+----+----+  7 |",
                "|    |  1 |  2 |  3 |  4 |  5 |  6 |    |",
                "+----+----+----+----+----+----+----+----+",
                "       1    2    3    4    5    6    A",
            ],
            "{board}"
        );
        let flipped = render_board(&pos, true);
        assert!(flipped.lines().next().unwrap().starts_with("  A"));
        assert!(flipped.contains("|  7 +----"));
    }

    #[test]
    fn a_turn_is_typed_one_sowing_at_a_time() {
        let start = Kalah::start();
        let MoveInput::Continue(after) = start.read_move("1") else {
            panic!("pit 1 ends in the store")
        };
        assert_eq!(after.side_to_move(), A);
        assert_eq!(after.store(A), 1);
        let MoveInput::Move(mv) = start.read_move("1,2") else {
            panic!("1,2 is a whole move")
        };
        assert_eq!(start.format_move(mv), "1,2");
        assert!(matches!(start.read_move("7"), MoveInput::Invalid(_)));
        assert!(matches!(start.read_move("2,3"), MoveInput::Invalid(_)));
    }
}
