//! Brazilian draughts in the terminal: the board with both coordinates, moves typed in
//! numeric or algebraic notation (a start square or prefix naming one move is enough).

use crate::game::view::{MoveInput, Terminal};
use crate::game::{EndReason, Game, MoveList, Outcome, Side};
use crate::games::brazilian::{Brazilian, Move, Piece, Square};

impl Terminal for Brazilian {
    const MOVE_HELP: &'static str = "\
Type a move in numeric (22-17, 26x17) or algebraic (c3-d4, e3xc5) notation; a start
square or any prefix that names one legal move is enough.";
    const OPENING_PLIES: u32 = 6;

    fn render(&self, flipped: bool) -> String {
        render_board(self, flipped)
    }

    fn describe_move(&self, mv: Move) -> String {
        both_notations(self, mv)
    }

    fn notation(&self, mv: Move, algebraic: bool) -> String {
        if algebraic {
            self.format_move_algebraic(mv)
        } else {
            self.format_move(mv)
        }
    }

    fn read_move(&self, text: &str) -> MoveInput<Brazilian> {
        match resolve_move(self, text) {
            Ok(mv) => MoveInput::Move(mv),
            Err(why) => MoveInput::Invalid(why),
        }
    }

    fn describe_end(&self, outcome: Outcome, reason: EndReason) -> String {
        let result = match outcome {
            Outcome::Win(side) => format!("{} wins", Brazilian::side_name(side)),
            Outcome::Draw => "draw".to_string(),
        };
        let why = match reason {
            EndReason::NoMoves => "the side to move has no move",
            EndReason::Repetition => "the same position for the third time",
            EndReason::QuietMoveRule => "20 king moves each without a capture",
            EndReason::PlyCap => "move limit",
            EndReason::Adjudicated => "the endgame database's verdict",
            EndReason::TimeForfeit => "out of time",
        };
        format!("{result} ({why})")
    }
}

/// `22-17 (c3-b4)`.
pub fn both_notations(pos: &Brazilian, mv: Move) -> String {
    format!(
        "{} ({})",
        pos.format_move(mv),
        pos.format_move_algebraic(mv)
    )
}

/// The board with both coordinates: files a–h and ranks 1–8 around it, and on each empty
/// dark square its PDN number. `w`/`W` White man/king, `b`/`B` Black man/king.
pub fn render_board(pos: &Brazilian, flipped: bool) -> String {
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
pub fn resolve_move(pos: &Brazilian, text: &str) -> Result<Move, String> {
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
        // Captures are compulsory (the largest one): name them, not the typing.
        [] if moves.iter().all(|m| m.is_capture()) => Err(format!(
            "not a legal move: a capture is compulsory: {}",
            moves
                .iter()
                .map(|&m| pos.format_move(m))
                .collect::<Vec<_>>()
                .join(", ")
        )),
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
        let start = Brazilian::start();
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
        // White's 22 can take 18: a quiet move is answered with the capture.
        let capture = <Brazilian as Game>::parse_position_of((), "W:W22,31:B18,1").unwrap();
        let error = resolve_move(&capture, "31-26").unwrap_err();
        assert_eq!(error, "not a legal move: a capture is compulsory: 22x15");
    }

    #[test]
    fn the_board_shows_pieces_numbers_and_coordinates() {
        let board = render_board(&Brazilian::start(), false);
        let lines: Vec<&str> = board.lines().collect();
        assert_eq!(lines.len(), 10, "{board}");
        assert_eq!(lines[0], "    a  b  c  d  e  f  g  h");
        assert_eq!(lines[1], "8      b     b     b     b  8");
        assert_eq!(lines[4], "5  13    14    15    16     5");
        assert_eq!(lines[8], "1   w     w     w     w     1");
        let flipped = render_board(&Brazilian::start(), true);
        assert_eq!(
            flipped.lines().nth(1),
            Some("1      w     w     w     w  1")
        );
        assert_eq!(flipped.lines().next(), Some("    h  g  f  e  d  c  b  a"));
    }
}
