//! Brazilian draughts positions and moves in dataset form (see [`crate::io::dataset`]).

use serde::{Deserialize, Serialize};

use super::{BLACK, Brazilian, Move, Piece, Square, WHITE};
use crate::game::{Game, MoveList, Side};

/// A position in file form: PDN square `n` is bit `n − 1` of each mask.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PackedPosition {
    pub white: u32,
    pub black: u32,
    pub kings: u32,
    pub white_to_move: bool,
}

impl PackedPosition {
    pub fn pack(pos: &Brazilian) -> PackedPosition {
        let mut packed = PackedPosition {
            white: 0,
            black: 0,
            kings: 0,
            white_to_move: pos.side_to_move() == WHITE,
        };
        for (sq, piece) in pos.pieces() {
            let bit = 1u32 << sq.index();
            match piece.side() {
                Side::First => packed.white |= bit,
                Side::Second => packed.black |= bit,
            }
            if matches!(piece, Piece::King(_)) {
                packed.kings |= bit;
            }
        }
        packed
    }

    /// The position, checked like any position from outside (no square twice, at most
    /// 12 pieces a side, no man on its crowning row, no king on an empty square).
    pub fn unpack(&self) -> Result<Brazilian, String> {
        if self.kings & !(self.white | self.black) != 0 {
            return Err("a king on an empty square".to_string());
        }
        let mut pieces = Vec::with_capacity(24);
        for (mask, side) in [(self.white, WHITE), (self.black, BLACK)] {
            for i in 0..32 {
                if mask & (1 << i) != 0 {
                    let sq = Square::from_number(i as u8 + 1).expect("i < 32");
                    let king = self.kings & (1 << i) != 0;
                    pieces.push((
                        sq,
                        if king {
                            Piece::King(side)
                        } else {
                            Piece::Man(side)
                        },
                    ));
                }
            }
        }
        let side = if self.white_to_move { WHITE } else { BLACK };
        Brazilian::from_pieces(pieces, side).map_err(|e| e.to_string())
    }
}

/// A move in file form: start and end square numbers and the captured squares (bit
/// `n − 1` for square `n`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PackedMove {
    pub from: u8,
    pub to: u8,
    pub captured: u32,
}

impl PackedMove {
    pub fn pack(mv: Move) -> PackedMove {
        PackedMove {
            from: mv.from().number(),
            to: mv.to().number(),
            captured: mv.captured().fold(0, |acc, sq| acc | 1 << sq.index()),
        }
    }

    /// The legal move of `pos` this describes.
    pub fn unpack(&self, pos: &Brazilian) -> Result<Move, String> {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        moves
            .iter()
            .copied()
            .find(|&mv| PackedMove::pack(mv) == *self)
            .ok_or_else(|| {
                format!(
                    "move {}-{} is not legal in {}",
                    self.from,
                    self.to,
                    pos.format_position()
                )
            })
    }
}
