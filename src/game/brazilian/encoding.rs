//! Brazilian draughts as the learned evaluators read it: GLEM's atomic features (the
//! square contents, [`crate::eval::glem::Atoms`]) and the TD network's inputs (the board
//! one-hot, [`crate::eval::td::Inputs`]). Samuel's named features are in [`super::features`].
//!
//! Both see the board from the side to move ([`Brazilian::relative_masks`]: turned 180° for
//! Black), so one set of weights serves both colours and a position evaluates the same as
//! its colour-swapped mirror.

use crate::eval::glem::{Atoms, MAX_SLOTS, Phases, Region};
use crate::eval::td::{Inputs, phase_bucket};
use crate::game::Side;
use crate::game::brazilian::{Brazilian, Square};

// ---------------------------------------------------------------------------------------
// GLEM atoms: the content of each of the 32 squares
// ---------------------------------------------------------------------------------------

/// Atom values (the thesis's square contents, from the side to move's view).
pub const OWN_KING: i8 = 2;
pub const OWN_MAN: i8 = 1;
pub const EMPTY: i8 = 0;
pub const OPPONENT_MAN: i8 = -1;
pub const OPPONENT_KING: i8 = -2;

/// `INPUT_SQUARE[side][bit]`: the square (0–31) that board bit `bit` is in the inputs
/// seen from `side` — its index in PDN order ([`Square::from_bit_index`]), turned (`n` →
/// `31 − n`) for Black. A table read costs less than that arithmetic in the loop over a
/// step's changed squares. Ghost and off-board bits (0 here) are never set in a kind's
/// mask.
const INPUT_SQUARE: [[u8; 64]; 2] = {
    let mut table = [[0; 64]; 2];
    let mut bit = 0;
    while bit < 64 {
        if let Some(square) = Square::from_bit_index(bit as u32) {
            let n = square.index() as u8;
            table[0][bit] = n;
            table[1][bit] = 31 - n;
        }
        bit += 1;
    }
    table
};

/// Internal digit of a value: `value mod 5` (0 empty, 1 own man, 2 own king,
/// 3 opponent's king, 4 opponent's man), so that a region index is a sum of masks.
#[inline(always)]
const fn digit_of(value: i8) -> u8 {
    value.rem_euclid(5) as u8
}

/// The value of an internal digit (inverse of [`digit_of`]).
const fn value_of(digit: u8) -> i8 {
    match digit {
        0 => EMPTY,
        1 => OWN_MAN,
        2 => OWN_KING,
        3 => OPPONENT_KING,
        _ => OPPONENT_MAN,
    }
}

/// `SPREAD[b]` has byte `k` equal to bit `k` of `b`.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        while k < 8 {
            if b & (1 << k) != 0 {
                table[b] |= 1 << (8 * k);
            }
            k += 1;
        }
        b += 1;
    }
    table
};

/// The digit of every square (index `n − 1` for square `n`) from the relative masks.
#[inline(always)]
fn digits_of_masks(masks: &[u32; 4]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (b, chunk) in out.chunks_exact_mut(8).enumerate() {
        let byte = |m: u32| SPREAD[((m >> (8 * b)) & 0xFF) as usize];
        let word = byte(masks[0]) + 2 * byte(masks[1]) + 4 * byte(masks[2]) + 3 * byte(masks[3]);
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// True if no legal position has `digit` on `square` (own men on squares 1–4, the side
/// to move's crowning row; opponent's men on 29–32).
const fn impossible(square: u8, digit: u8) -> bool {
    (square <= 4 && digit == 1) || (square >= 29 && digit == 4)
}

/// Number of contents a square can have in a table index (4 on the crowning rows).
const fn radix(square: u8) -> u32 {
    if square <= 4 || square >= 29 { 4 } else { 5 }
}

/// A square's digit in table-index form: on squares 1–4 the impossible own man is
/// dropped (0, 2, 3, 4 become 0, 1, 2, 3); on 29–32 the digits are already 0..3.
#[inline(always)]
const fn compact_digit(square: u8, digit: u8) -> u8 {
    if square <= 4 {
        digit.saturating_sub(1)
    } else if square >= 29 {
        if digit > 3 { 3 } else { digit }
    } else {
        digit
    }
}

/// The default regions (squares on the board turned for the side to move, which plays
/// up: its back rank is 29–32, its crowning row 1–4):
///
/// - the 7 pairs of adjacent rows (`rows 1-2` = 25..32 … `rows 7-8` = 1..8): formations
///   across the board — the back rank guard, the front line, breakthroughs;
/// - the 4 pairs of adjacent files (`files a-b` = 1,5,9,…,29 …): chains and columns along
///   the board, the edges (files a and h), runaway men;
/// - the long diagonal a1–h8 (the "grande diagonal", which decides many king endings)
///   and the two diagonals of the double corners (b8–h2, a7–g1).
///
/// Every square is in 4–5 regions, so every pair of squares in the same row pair, file
/// pair or diagonal can interact. 14 regions, 3,648,125 table entries a phase (7.3 MB as
/// 16-bit entries; 29 MB for the 4 default phases).
fn default_regions() -> Vec<Region> {
    let mut regions = Vec::new();
    for r in 0..7u8 {
        // Row 1 (squares 29..32) is the side to move's back rank.
        let low_row = r + 1;
        let first = 33 - 4 * (low_row + 1);
        let squares: Vec<u8> = (first..first + 8).collect();
        regions.push(Region::new(
            &format!("rows {}-{}", low_row, low_row + 1),
            &squares,
        ));
    }
    for (name, residue) in [
        ("files a-b", 1u8),
        ("files c-d", 2),
        ("files e-f", 3),
        ("files g-h", 0),
    ] {
        let squares: Vec<u8> = (1..=32).filter(|s| s % 4 == residue % 4).collect();
        regions.push(Region::new(name, &squares));
    }
    regions.push(Region::new(
        "diagonal a1-h8",
        &[29, 25, 22, 18, 15, 11, 8, 4],
    ));
    regions.push(Region::new("diagonal b8-h2", &[1, 6, 10, 15, 19, 24, 28]));
    regions.push(Region::new("diagonal a7-g1", &[5, 9, 14, 18, 23, 27, 32]));
    regions
}

impl Atoms for Brazilian {
    /// Square contents relative to the side to move (values −2..2), the board turned for
    /// Black.
    const ATOM_SET_ID: &'static str = "glem-squares-v1";
    const SLOTS: u8 = 32;
    const PHASE_MAX: u32 = 24;

    #[inline]
    fn atom_digits(&self) -> [u8; MAX_SLOTS] {
        digits_of_masks(&self.relative_masks())
    }

    #[inline(always)]
    fn for_each_atom(&self, mut f: impl FnMut(usize, u8)) {
        // Own men, own kings, opponent's men, opponent's kings: digits 1, 2, 4, 3.
        const DIGITS: [u8; 4] = [1, 2, 4, 3];
        for (mask, digit) in self.relative_masks().into_iter().zip(DIGITS) {
            let mut bits = mask;
            while bits != 0 {
                f(bits.trailing_zeros() as usize, digit);
                bits &= bits - 1;
            }
        }
    }

    fn atom_value(digit: u8) -> i8 {
        value_of(digit)
    }

    fn atom_digit(value: i8) -> Option<u8> {
        (-2..=2).contains(&value).then(|| digit_of(value))
    }

    fn radix(square: u8) -> u32 {
        radix(square)
    }

    fn compact_digit(square: u8, digit: u8) -> Option<u8> {
        (!impossible(square, digit)).then(|| compact_digit(square, digit))
    }

    /// The pieces on the board.
    #[inline(always)]
    fn phase_measure(&self) -> u32 {
        (self.side_bits(Side::First) | self.side_bits(Side::Second)).count_ones()
    }

    fn material(&self) -> f64 {
        let m = self.relative_masks();
        m[0].count_ones() as f64 + 3.0 * m[1].count_ones() as f64
            - m[2].count_ones() as f64
            - 3.0 * m[3].count_ones() as f64
    }

    fn default_regions() -> Vec<Region> {
        default_regions()
    }

    /// Four phases: 0–5 pieces (king endings), 6–10, 11–15, 16–24. Each holds about a
    /// quarter of the samples of self-play games (depth-4 material self-play: 26%, 25%,
    /// 22%, 27%; long king endings make small counts common).
    ///
    /// Measured against the material evaluator, 1, 2 and 4 phases play equally well
    /// (within ±15 Elo, with 94k or 943k samples) when the phases are coupled
    /// (GLEM fitting's `phase_l2`); 4 phases give the lowest validation
    /// loss. Uncoupled, 4 phases lose about 30 Elo to 1: each phase sees a quarter of the
    /// data.
    fn default_phases() -> Phases {
        Phases {
            starts: vec![0, 6, 11, 16],
        }
    }
}

// ---------------------------------------------------------------------------------------
// TD inputs: the board one-hot per square and piece kind, and the side to move
// ---------------------------------------------------------------------------------------

/// Number of board inputs: 4 piece kinds × 32 squares.
pub const BOARD_INPUTS: usize = 128;

/// Index of the side-to-move input (1 when White is to move, else 0).
pub const SIDE_INPUT: usize = 128;

impl Inputs for Brazilian {
    /// Input `kind·32 + (n − 1)` is 1 when square `n` (on the board turned for the side to
    /// move) holds a piece of `kind` (0 own man, 1 own king, 2 opponent's man, 3
    /// opponent's king); input [`SIDE_INPUT`] is 1 when White is to move.
    const INPUT_SET_ID: &'static str = "board-onehot-129";
    const INPUTS: usize = BOARD_INPUTS + 1;
    /// A piece on each of the 32 squares (a real position has at most 24) plus the side.
    const MAX_ACTIVE: usize = 33;

    /// By the pieces on the board (0 to 24) in equal ranges ([`phase_bucket`]): with 4
    /// phases 0–6, 7–12, 13–18 and 19–24 pieces.
    #[inline(always)]
    fn phase(&self, phases: usize) -> usize {
        phase_bucket(self.phase_measure(), Self::PHASE_MAX, phases)
    }

    /// Board inputs in increasing order, the side input last.
    #[inline(always)]
    fn for_each_input_as(&self, side: Side, mut f: impl FnMut(usize)) {
        let seen = self.with_side_to_move(side);
        for (kind, mask) in seen.relative_masks().into_iter().enumerate() {
            let mut bits = mask;
            while bits != 0 {
                f(kind * 32 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        if side == Side::First {
            f(SIDE_INPUT);
        }
    }

    /// The squares whose piece changed: a bit set in one board's mask of a kind and not
    /// in the other's (a move changes 2 squares and the captured ones). The masks are
    /// compared before the board is turned for Black, and only the changed squares are
    /// turned (square `n` is `33 − n`).
    #[inline(always)]
    fn for_each_input_change(
        &self,
        next: &Self,
        side: Side,
        mut f: impl FnMut(usize, bool),
    ) -> bool {
        let before = self.with_side_to_move(side).kind_masks();
        let after = next.with_side_to_move(side).kind_masks();
        let squares = &INPUT_SQUARE[side.index()];
        for (kind, (was, is)) in before.into_iter().zip(after).enumerate() {
            let mut changed = was ^ is;
            while changed != 0 {
                let bit = changed.trailing_zeros();
                f(
                    kind * 32 + usize::from(squares[bit as usize & 63]),
                    is >> bit & 1 == 1,
                );
                changed &= changed - 1;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::eval::td::Inputs;
    use crate::game::brazilian::treestats::random_positions;
    use crate::game::brazilian::{Brazilian, MoveList};
    use crate::game::{Game, Side};
    use std::collections::BTreeSet;

    fn inputs(pos: &Brazilian, side: Side) -> BTreeSet<usize> {
        let mut set = BTreeSet::new();
        pos.for_each_input_as(side, |i| {
            set.insert(i);
        });
        set
    }

    /// The changes listed between a position and every position two plies on (captures,
    /// promotions, both colours' points of view) are exactly the inputs that differ
    /// between the two positions' own input lists.
    #[test]
    fn the_changes_of_two_plies_are_the_inputs_that_differ() {
        let (mut moves, mut replies) = (MoveList::new(), MoveList::new());
        let mut pairs = 0;
        for pos in random_positions(120, 9) {
            pos.legal_moves(&mut moves);
            for &mv in moves.iter() {
                let middle = pos.play(mv);
                middle.legal_moves(&mut replies);
                for &reply in replies.iter() {
                    let next = middle.play(reply);
                    for side in [Side::First, Side::Second] {
                        let (before, after) = (inputs(&pos, side), inputs(&next, side));
                        let (mut on, mut off) = (BTreeSet::new(), BTreeSet::new());
                        assert!(pos.for_each_input_change(&next, side, |i, added| {
                            assert!(if added { &mut on } else { &mut off }.insert(i));
                        }));
                        assert_eq!(on, &after - &before, "{side:?}: {pos:?} → {next:?}");
                        assert_eq!(off, &before - &after, "{side:?}: {pos:?} → {next:?}");
                    }
                    pairs += 1;
                }
            }
        }
        assert!(pairs > 1000, "{pairs} pairs");
    }
}
