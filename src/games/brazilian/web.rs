//! Brazilian draughts in the browser: the board as the page draws it, the legal moves as
//! the person clicks them.

use serde_json::{Value, json};

use super::{Brazilian, Piece, Square};
use crate::game::{Game, Side};
use crate::web::WebGame;

impl WebGame for Brazilian {
    /// `pieces[n - 1]` is what stands on square n: `w`, `W` (king), `b`, `B` or null.
    fn board(&self) -> Value {
        let pieces: Vec<Value> = Square::all()
            .map(|sq| match self.piece_at(sq) {
                Some(Piece::Man(Side::First)) => json!("w"),
                Some(Piece::King(Side::First)) => json!("W"),
                Some(Piece::Man(Side::Second)) => json!("b"),
                Some(Piece::King(Side::Second)) => json!("B"),
                None => Value::Null,
            })
            .collect();
        json!({ "pieces": pieces })
    }

    /// Every legal move with its squares: the page highlights the landing squares as
    /// the person clicks them, and offers the captured pieces when two moves share both
    /// ends.
    fn legal(&self) -> Value {
        let mut moves = <Brazilian as Game>::Moves::default();
        self.legal_moves(&mut moves);
        Value::Array(
            moves
                .iter()
                .map(|&mv| {
                    let mut detail = self.move_detail(mv);
                    detail["text"] = json!(self.format_move(mv));
                    detail
                })
                .collect(),
        )
    }

    fn move_detail(&self, mv: Self::Move) -> Value {
        let number = |sq: Square| sq.number();
        let paths: Vec<Vec<u8>> = if mv.is_capture() {
            self.capture_paths(mv)
                .iter()
                .map(|path| path.iter().copied().map(number).collect())
                .collect()
        } else {
            vec![vec![mv.to().number()]]
        };
        json!({
            "from": mv.from().number(),
            "to": mv.to().number(),
            "captured": mv.captured().map(number).collect::<Vec<_>>(),
            "paths": paths,
        })
    }

    /// The squares' numbers and places on the board (file and rank, 0-based from a1).
    fn layout() -> Value {
        let squares: Vec<Value> = Square::all()
            .map(|sq| json!({ "n": sq.number(), "file": sq.file(), "rank": sq.rank() }))
            .collect();
        json!({ "squares": squares })
    }
}
