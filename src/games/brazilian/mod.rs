//! Brazilian draughts: international rules on the 8×8 board (flying kings, men capture
//! backwards, the capture taking the most pieces is compulsory). The rules as evalearn
//! plays them: docs/rules.md.

pub mod accuracy;
pub mod bench;
pub mod board;
pub mod commands;
pub mod egdb;
pub mod encoding;
mod evaluators;
pub mod features;
pub mod hub;
mod learning;
mod movegen;
mod notation;
mod pack;
pub mod pdn;
pub mod perfect;
mod terminal;
pub mod treestats;
mod web;

pub use board::{Dir, Square, Squares};
pub use evaluators::{KING, MAN, Material};
pub use notation::{FenError, MoveError};
pub use pack::{PackedMove, PackedPosition};

use crate::game::{Game, MoveList, Outcome, Side};
use board::{BLACK_CROWN, WHITE_CROWN};

pub const WHITE: Side = Side::First;
pub const BLACK: Side = Side::Second;

/// Most pieces a side can have (the start position's count).
pub const MAX_PIECES_PER_SIDE: u32 = 12;

/// A bitboard in PDN square order: bit `n − 1` for square `n` (the ghost bits 8, 17 and
/// 26 dropped).
#[inline(always)]
const fn pdn_order(bits: u64) -> u32 {
    ((bits & 0xFF)
        | ((bits >> 1) & 0xFF00)
        | ((bits >> 2) & 0xFF_0000)
        | ((bits >> 3) & 0xFF00_0000)) as u32
}

/// A Brazilian draughts position: three bitboards (see [`board`] for the layout) and the
/// side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Brazilian {
    white: u64,
    black: u64,
    kings: u64,
    side: Side,
}

/// A move: start and end square and the set of captured pieces (two capture paths with
/// the same three are the same move). Packed into one word: captured bitboard in bits
/// 0..35, start bit index in bits 40..46, end bit index in bits 48..54.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u64);

const CAPTURED_MASK: u64 = (1 << 35) - 1;
const FROM_SHIFT: u32 = 40;
const TO_SHIFT: u32 = 48;

impl Move {
    /// From single-bit boards of the start and end squares and the captured bitboard.
    #[inline(always)]
    const fn from_bits(from: u64, to: u64, captured: u64) -> Move {
        Move(
            captured
                | (from.trailing_zeros() as u64) << FROM_SHIFT
                | (to.trailing_zeros() as u64) << TO_SHIFT,
        )
    }

    #[inline(always)]
    const fn start_bit_index(self) -> u32 {
        ((self.0 >> FROM_SHIFT) & 63) as u32
    }

    #[inline(always)]
    const fn end_bit_index(self) -> u32 {
        ((self.0 >> TO_SHIFT) & 63) as u32
    }

    pub fn from(self) -> Square {
        // Moves are only built by the generator, from squares on the board.
        Square::from_bit_index(self.start_bit_index()).expect("a move starts on the board")
    }

    pub fn to(self) -> Square {
        Square::from_bit_index(self.end_bit_index()).expect("a move ends on the board")
    }

    /// Bitboard of the captured pieces.
    #[inline(always)]
    pub const fn captured_bits(self) -> u64 {
        self.0 & CAPTURED_MASK
    }

    /// The captured squares, in PDN order.
    pub fn captured(self) -> Squares {
        Squares(self.captured_bits())
    }

    #[inline(always)]
    pub const fn is_capture(self) -> bool {
        self.captured_bits() != 0
    }

    pub const fn capture_count(self) -> u32 {
        self.captured_bits().count_ones()
    }
}

impl std::fmt::Debug for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.from().number())?;
        if self.is_capture() {
            write!(f, "x{}", self.to().number())?;
            let caps: Vec<String> = self.captured().map(|s| s.number().to_string()).collect();
            write!(f, "[{}]", caps.join(","))
        } else {
            write!(f, "-{}", self.to().number())
        }
    }
}

/// What stands on a square.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Piece {
    Man(Side),
    King(Side),
}

impl Piece {
    pub const fn side(self) -> Side {
        match self {
            Piece::Man(side) | Piece::King(side) => side,
        }
    }
}

impl Brazilian {
    /// A position from bitboards in the layout of [`board`]. Checks nothing; use
    /// [`Brazilian::from_pieces`] for positions from outside the engine.
    const fn from_boards(white: u64, black: u64, kings: u64, side: Side) -> Brazilian {
        Brazilian {
            white,
            black,
            kings,
            side,
        }
    }

    /// A position from a list of pieces, checked for what a real game can reach: each
    /// square at most once, at most 12 pieces a side, no man on its own crowning row.
    pub fn from_pieces(
        pieces: impl IntoIterator<Item = (Square, Piece)>,
        side: Side,
    ) -> Result<Brazilian, FenError> {
        notation::position_from_pieces(pieces, side)
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let bit = sq.bit();
        let king = self.kings & bit != 0;
        let side = if self.white & bit != 0 {
            WHITE
        } else if self.black & bit != 0 {
            BLACK
        } else {
            return None;
        };
        Some(if king {
            Piece::King(side)
        } else {
            Piece::Man(side)
        })
    }

    /// Every piece with its square, in PDN order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Squares(self.white | self.black).filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }

    /// Bitboards (layout of [`board`]): all pieces of `side`.
    pub const fn side_bits(&self, side: Side) -> u64 {
        match side {
            Side::First => self.white,
            Side::Second => self.black,
        }
    }

    /// Bitboard of all kings, both colours.
    pub const fn king_bits(&self) -> u64 {
        self.kings
    }

    /// Numbers of (men, kings) of `side`.
    pub const fn count(&self, side: Side) -> (u32, u32) {
        let own = self.side_bits(side);
        (
            (own & !self.kings).count_ones(),
            (own & self.kings).count_ones(),
        )
    }

    /// True if the side to move has a capture (then only captures are legal).
    pub fn has_capture(&self) -> bool {
        movegen::has_capture(self)
    }

    /// The same position with the other side to move (for tests and analysis tools).
    pub const fn with_side_to_move(self, side: Side) -> Brazilian {
        Brazilian { side, ..self }
    }

    /// The same game seen from the other side: the board turned 180° (square `n` becomes
    /// `33 − n`), the colours swapped, the other side to move. Learned evaluators value a
    /// position and its mirror the same.
    pub const fn mirrored(self) -> Brazilian {
        Brazilian {
            white: board::rotate(self.black),
            black: board::rotate(self.white),
            kings: board::rotate(self.kings),
            side: self.side.opponent(),
        }
    }

    /// The board from the side to move's point of view, as four masks in PDN square order
    /// (bit `n − 1` for square `n`): own men, own kings, opponent's men, opponent's kings.
    /// For Black the board is turned 180° (square `n` becomes `33 − n`), so the side to
    /// move always plays up the board, as White does. Learned evaluators use this so one
    /// set of weights serves both colours.
    pub fn relative_masks(&self) -> [u32; 4] {
        let masks = self.kind_masks().map(pdn_order);
        match self.side {
            Side::First => masks,
            Side::Second => masks.map(u32::reverse_bits),
        }
    }

    /// [`Brazilian::relative_masks`] before the board is turned: own men, own kings,
    /// opponent's men, opponent's kings of the side to move, as bitboards.
    #[inline(always)]
    pub(crate) const fn kind_masks(&self) -> [u64; 4] {
        let (own, their) = match self.side {
            Side::First => (self.white, self.black),
            Side::Second => (self.black, self.white),
        };
        [
            own & !self.kings,
            own & self.kings,
            their & !self.kings,
            their & self.kings,
        ]
    }

    /// The position with `side` to move whose [`Brazilian::relative_masks`] are `masks`.
    fn from_relative_masks(masks: [u32; 4], side: Side) -> Brazilian {
        let masks = match side {
            Side::First => masks,
            Side::Second => masks.map(u32::reverse_bits),
        };
        // Insert the ghost bits 8, 17 and 26 again.
        let ghosted = |bits: u32| -> u64 {
            let b = bits as u64;
            (b & 0xFF) | ((b & 0xFF00) << 1) | ((b & 0xFF_0000) << 2) | ((b & 0xFF00_0000) << 3)
        };
        let own = ghosted(masks[0] | masks[1]);
        let their = ghosted(masks[2] | masks[3]);
        let kings = ghosted(masks[1] | masks[3]);
        match side {
            Side::First => Brazilian::from_boards(own, their, kings, side),
            Side::Second => Brazilian::from_boards(their, own, kings, side),
        }
    }

    /// FEN with algebraic squares, e.g. `W:Wa1,c1,…:Bb6,…`.
    pub fn to_fen_algebraic(&self) -> String {
        notation::format_fen(self, notation::SquareStyle::Algebraic)
    }

    /// The squares a capture lands on, in order, ending with its end square; empty for a
    /// quiet move. One path is chosen when several capture the same pieces.
    pub fn capture_path(&self, mv: Move) -> Vec<Square> {
        notation::capture_paths(self, mv)
            .into_iter()
            .next()
            .unwrap_or_default()
    }

    /// Every path of a capture (its landing squares, ending with its end square): a
    /// king may take the same pieces in different orders. Empty for a quiet move.
    pub fn capture_paths(&self, mv: Move) -> Vec<Vec<Square>> {
        notation::capture_paths(self, mv)
    }
}

/// Folded 128-bit product (as in wyhash): every bit of either factor reaches every bit
/// of the result.
#[inline(always)]
const fn fold_multiply(a: u64, b: u64) -> u64 {
    let product = (a as u128) * (b as u128);
    (product as u64) ^ ((product >> 64) as u64)
}

impl Game for Brazilian {
    type Move = Move;
    type Moves = MoveList<Move>;
    /// Brazilian draughts has no rule options.
    type Variant = ();
    type PositionError = FenError;
    type MoveError = MoveError;
    type Packed = PackedPosition;
    type PackedMove = PackedMove;

    const NAME: &'static str = "brazilian";
    const QUIET_DRAW_PLIES: Option<u32> = Some(40);
    const SCORE_UNITS: &'static str = "men";

    fn variant(&self) {}

    fn variant_name((): ()) -> String {
        Self::NAME.to_string()
    }

    fn parse_variant(options: &str) -> Result<(), String> {
        if options.is_empty() {
            Ok(())
        } else {
            Err(format!("brazilian has no rule options (got '{options}')"))
        }
    }

    fn start_of((): ()) -> Brazilian {
        // Black holds squares 1..12 (bits 0..12 without ghost 8), White 21..32 (bits
        // 22..34 without ghost 26).
        const BLACK_START: u64 = 0x1EFF;
        const WHITE_START: u64 = (0xF << 22) | (0xFF << 27);
        Brazilian::from_boards(WHITE_START, BLACK_START, 0, WHITE)
    }

    #[inline(always)]
    fn side_to_move(&self) -> Side {
        self.side
    }

    fn side_name(side: Side) -> &'static str {
        match side {
            Side::First => "white",
            Side::Second => "black",
        }
    }

    #[inline]
    fn legal_moves(&self, moves: &mut MoveList<Move>) {
        movegen::generate(self, moves);
    }

    #[inline]
    fn count_legal_moves(&self, scratch: &mut MoveList<Move>) -> u64 {
        movegen::count(self, scratch)
    }

    /// Quiet moves are neither listed nor played: a reply position differs from this
    /// one only by the move's squares.
    #[inline(always)]
    fn count_replies(&self, list: &mut MoveList<Move>, scratch: &mut MoveList<Move>) -> u64 {
        movegen::count_replies(self, list, scratch)
    }

    #[inline]
    fn has_legal_move(&self) -> bool {
        movegen::has_legal_move(self)
    }

    #[inline(always)]
    fn is_quiet(&self) -> bool {
        !movegen::has_capture(self)
    }

    /// Indexed by the start and end squares' bit indices (below 35, ghosts unused), which
    /// the move holds as they are: no conversion to square numbers on the hot path.
    const HISTORY_SIZE: usize = 35 << 6;

    #[inline(always)]
    fn history_index(&self, mv: Move) -> usize {
        (mv.start_bit_index() | mv.end_bit_index() << 6) as usize
    }

    #[inline(always)]
    fn play(&self, mv: Move) -> Brazilian {
        let from = 1u64 << mv.start_bit_index();
        let to = 1u64 << mv.end_bit_index();
        let captured = mv.captured_bits();
        let (mut us, mut them, crown) = match self.side {
            Side::First => (self.white, self.black, WHITE_CROWN),
            Side::Second => (self.black, self.white, BLACK_CROWN),
        };
        let was_king = self.kings & from != 0;
        // `from == to` happens when a king's capture returns to its start square.
        us = (us & !from) | to;
        them &= !captured;
        let mut kings = self.kings & !captured & !from;
        if was_king || to & crown != 0 {
            kings |= to;
        }
        match self.side {
            Side::First => Brazilian::from_boards(us, them, kings, BLACK),
            Side::Second => Brazilian::from_boards(them, us, kings, WHITE),
        }
    }

    fn outcome_without_moves(&self) -> Outcome {
        Outcome::Win(self.side.opponent())
    }

    #[inline(always)]
    fn is_irreversible(&self, mv: Move) -> bool {
        mv.is_capture() || self.kings & (1u64 << mv.start_bit_index()) == 0
    }

    /// A function of the three masks and the side to move only (as the thesis engine's mix64 of
    /// the masks, listing 6.4), so any move order reaching a position gives the same key:
    /// two independent folded multiplies and a final one, a few cycles.
    #[inline(always)]
    fn hash_key(&self) -> u64 {
        const K: [u64; 5] = [
            0xA076_1D64_78BD_642F,
            0xE703_7ED1_A0B4_28DB,
            0x8EBC_6AF0_9C88_C6E3,
            0x5899_65CC_7537_4CC3,
            0x1D8E_4E27_C47D_124F,
        ];
        let side = match self.side {
            Side::First => 0,
            Side::Second => 1 << 63,
        };
        let a = fold_multiply(self.white ^ K[0], self.black ^ K[1]);
        let b = fold_multiply(self.kings ^ side ^ K[2], K[3]);
        fold_multiply(a ^ K[4], b ^ K[0])
    }

    fn parse_position_of((): (), text: &str) -> Result<Brazilian, FenError> {
        notation::parse_fen(text)
    }

    fn format_position(&self) -> String {
        notation::format_fen(self, notation::SquareStyle::Numeric)
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        notation::parse_move(self, text)
    }

    fn format_move(&self, mv: Move) -> String {
        notation::format_move(self, mv, notation::SquareStyle::Numeric)
    }

    fn pack(&self) -> PackedPosition {
        PackedPosition::pack(self)
    }

    fn unpack(packed: &PackedPosition) -> Result<Brazilian, String> {
        packed.unpack()
    }

    fn pack_move(&self, mv: Move) -> PackedMove {
        PackedMove::pack(mv)
    }

    fn unpack_move(&self, packed: &PackedMove) -> Result<Move, String> {
        packed.unpack(self)
    }
}

impl Brazilian {
    /// A legal move in algebraic notation (`c3-d4`, `e3xc5`, `a1xc3xe5` when needed).
    pub fn format_move_algebraic(&self, mv: Move) -> String {
        notation::format_move(self, mv, notation::SquareStyle::Algebraic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_squares() {
        let start = Brazilian::start();
        for sq in Square::all() {
            let expected = match sq.number() {
                1..=12 => Some(Piece::Man(BLACK)),
                21..=32 => Some(Piece::Man(WHITE)),
                _ => None,
            };
            assert_eq!(start.piece_at(sq), expected, "square {}", sq.number());
        }
    }

    #[test]
    fn relative_masks_turn_the_board_for_black() {
        let bit = |n: u32| 1u32 << (n - 1);
        let pos = Brazilian::parse_position("W:W21,K30:B5,K12").unwrap();
        assert_eq!(pos.relative_masks(), [bit(21), bit(30), bit(5), bit(12)]);
        let turned = pos.with_side_to_move(BLACK).relative_masks();
        assert_eq!(
            turned,
            [bit(33 - 5), bit(33 - 12), bit(33 - 21), bit(33 - 30)]
        );
        // The start position looks the same to both sides.
        let start = Brazilian::start();
        assert_eq!(
            start.relative_masks(),
            start.with_side_to_move(BLACK).relative_masks()
        );
    }

    #[test]
    fn mirrored_turns_the_board_and_swaps_the_colours() {
        let pos = Brazilian::parse_position("W:W21,K30:B5,K12").unwrap();
        assert_eq!(
            pos.mirrored(),
            Brazilian::parse_position("B:W28,K21:B12,K3").unwrap()
        );
        assert_eq!(pos.mirrored().mirrored(), pos);
        assert_eq!(pos.mirrored().relative_masks(), pos.relative_masks());
    }

    #[test]
    fn a_capture_ending_on_its_start_square_keeps_the_king() {
        let pos = Brazilian::parse_position("W:WK29:B18,19,26,27").unwrap();
        let a1 = Square::from_number(29).unwrap().bit();
        let captured = [18, 19, 26, 27]
            .iter()
            .map(|&n| Square::from_number(n).unwrap().bit())
            .fold(0, |acc, b| acc | b);
        let next = pos.play(Move::from_bits(a1, a1, captured));
        assert_eq!(
            next.piece_at(Square::from_number(29).unwrap()),
            Some(Piece::King(WHITE))
        );
        assert_eq!(next.count(WHITE), (0, 1));
        assert_eq!(next.count(BLACK), (0, 0));
        assert_eq!(next.side_to_move(), BLACK);
    }
}
