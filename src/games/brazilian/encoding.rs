//! Brazilian draughts as the learned evaluators read it: GLEM's atomic features (the
//! square contents, [`crate::eval::glem::Atoms`]) and the TD network's inputs (the board
//! one-hot, [`crate::eval::td::Inputs`]). Samuel's named features are in [`super::features`].
//!
//! Both see the board from the side to move ([`Brazilian::relative_masks`]: turned 180° for
//! Black), so one set of weights serves both colours and a position evaluates the same as
//! its colour-swapped mirror.

use crate::eval::glem::{Atoms, MAX_SLOTS, Phases, Region};
use crate::eval::td::{ChangeSink, InputSet, Inputs, phase_bucket};
use crate::game::Side;
use crate::games::brazilian::{Brazilian, Square};

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

/// Byte `k` (below `8 · chunks`) of the result is `weights[i]` for the mask `i` that has
/// bit `k` (0 where none has; at most one has): a few table reads for the whole board.
#[inline(always)]
fn bytes_of_masks<const N: usize>(masks: [u64; 4], weights: [u64; 4], chunks: usize) -> [u8; N] {
    let mut out = [0u8; N];
    for (b, chunk) in out.chunks_exact_mut(8).take(chunks).enumerate() {
        let byte = |m: u64| SPREAD[((m >> (8 * b)) & 0xFF) as usize];
        let word = (0..4).map(|i| weights[i] * byte(masks[i])).sum::<u64>();
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// The digit of every square (index `n − 1` for square `n`) from the relative masks.
#[inline(always)]
fn digits_of_masks(masks: &[u32; 4]) -> [u8; 32] {
    bytes_of_masks(masks.map(u64::from), [1, 2, 4, 3], 4)
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
// TD inputs: the board one-hot per square and piece kind, the side to move, and (in the
// second set) the contents of each pair of adjacent squares
// ---------------------------------------------------------------------------------------

/// Number of board inputs: 4 piece kinds × 32 squares.
pub const BOARD_INPUTS: usize = 128;

/// Index of the side-to-move input (1 when White is to move, else 0).
pub const SIDE_INPUT: usize = 128;

/// The input set `"board"`: the board one-hot and the side to move.
pub const BOARD: usize = 0;

/// The input set `"board-pairs"`: [`BOARD`]'s inputs, then one per pair of diagonally
/// adjacent squares and what the pair holds ([`PAIRS`]).
pub const BOARD_PAIRS: usize = 1;

/// The pairs of diagonally adjacent squares, as square indices (`n − 1` for square `n`)
/// on the board the inputs see, the square nearer square 1 first: 7 pairs of rows × 7.
/// In the order of the first square, then of the second.
pub const PAIRS: [(u8, u8); 49] = {
    let mut out = [(0u8, 0u8); 49];
    let mut n = 0;
    let mut a = 0;
    while a < 28 {
        let (row, col) = (a / 4, 2 * (a % 4) + (a / 4 + 1) % 2);
        let mut b = a + 1;
        while b < 32 {
            let (row_b, col_b) = (b / 4, 2 * (b % 4) + (b / 4 + 1) % 2);
            if row_b == row + 1 && (col_b + 1 == col || col_b == col + 1) {
                out[n] = (a as u8, b as u8);
                n += 1;
            }
            b += 1;
        }
        a += 1;
    }
    assert!(n == 49);
    out
};

/// What a pair input tells apart: each square's content (0 empty, 1 own man, 2 own
/// king, 3 opponent's man, 4 opponent's king), 5 × 5; two empty squares have no input.
const PAIR_CONTENTS: usize = 25;

/// The content of a square holding each piece kind (own man, own king, opponent's man,
/// opponent's king), as [`PAIR_CONTENTS`] counts it.
const KIND_CONTENTS: [u64; 4] = [1, 2, 3, 4];

/// Index of the first pair input: pair `p` holding contents `(c, d)` is input
/// `FIRST_PAIR_INPUT + 25·p + 5·c + d`.
pub const FIRST_PAIR_INPUT: usize = SIDE_INPUT + 1;

/// `PAIR_BITS[side][p]`: the board bits of the squares of [`PAIRS`]`[p]` as the inputs
/// from `side` see them (turned for Black: square index `n` is `31 − n`). 64 rows, so
/// that a pair's bit in a `u64` indexes it without a bounds check.
const PAIR_BITS: [[(u8, u8); 64]; 2] = {
    let mut table = [[(0u8, 0u8); 64]; 2];
    let mut p = 0;
    while p < 49 {
        let (a, b) = PAIRS[p];
        let (turned_a, turned_b) = (31 - a, 31 - b);
        table[0][p] = (a + a / 8, b + b / 8);
        table[1][p] = (turned_a + turned_a / 8, turned_b + turned_b / 8);
        p += 1;
    }
    table
};

/// `BIT_PAIRS[side][bit]`: the pairs (bit `p` for [`PAIRS`]`[p]`) that board bit `bit`'s
/// square is in, as the inputs from `side` see it.
const BIT_PAIRS: [[u64; 64]; 2] = {
    let mut table = [[0u64; 64]; 2];
    let mut side = 0;
    while side < 2 {
        let mut p = 0;
        while p < 49 {
            let (a, b) = PAIR_BITS[side][p];
            table[side][a as usize] |= 1 << p;
            table[side][b as usize] |= 1 << p;
            p += 1;
        }
        side += 1;
    }
    table
};

/// The content (as [`PAIR_CONTENTS`] counts it) of each board bit in the kind masks
/// `masks` ([`Brazilian::kind_masks`]), a byte each (bits 0 to 34 of the board, the rest
/// 0), after which each pair of a step's changes reads two bytes.
#[inline(always)]
fn contents_by_bit(masks: &[u64; 4]) -> [u8; 64] {
    bytes_of_masks(*masks, KIND_CONTENTS, 5)
}

impl Inputs for Brazilian {
    /// [`BOARD`]: input `kind·32 + (n − 1)` is 1 when square `n` (on the board turned for
    /// the side to move) holds a piece of `kind` (0 own man, 1 own king, 2 opponent's
    /// man, 3 opponent's king); input [`SIDE_INPUT`] is 1 when White is to move. At most a
    /// piece on each of the 32 squares (a real position has at most 24) and the side.
    ///
    /// [`BOARD_PAIRS`] adds, for each of the 49 pairs of adjacent squares, an input for
    /// what the pair holds unless both are empty: the patterns of two squares (a man and
    /// the square before it, a chain, a king's neighbour) that the one-hot board leaves to
    /// the hidden units, as GLEM's regions give them to its tables.
    const INPUT_SETS: &'static [InputSet] = &[
        InputSet::new("board", "board-onehot-129", BOARD_INPUTS + 1, 33),
        InputSet::new(
            "board-pairs",
            "board-pairs-1354",
            FIRST_PAIR_INPUT + PAIRS.len() * PAIR_CONTENTS,
            33 + PAIRS.len(),
        ),
    ];

    /// By the pieces on the board (0 to 24) in equal ranges ([`phase_bucket`]): with 4
    /// phases 0–6, 7–12, 13–18 and 19–24 pieces.
    #[inline(always)]
    fn phase(&self, phases: usize) -> usize {
        phase_bucket(self.phase_measure(), Self::PHASE_MAX, phases)
    }

    /// Board inputs in increasing order, the side input, then the pairs in order.
    #[inline(always)]
    fn for_each_input_as(&self, set: usize, side: Side, mut f: impl FnMut(usize)) {
        let masks = self.with_side_to_move(side).relative_masks();
        for (kind, mask) in masks.into_iter().enumerate() {
            let mut bits = mask;
            while bits != 0 {
                f(kind * 32 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        if side == Side::First {
            f(SIDE_INPUT);
        }
        if set == BOARD_PAIRS {
            let contents: [u8; 32] = bytes_of_masks(masks.map(u64::from), KIND_CONTENTS, 4);
            for (p, &(a, b)) in PAIRS.iter().enumerate() {
                let held = usize::from(contents[usize::from(a)]) * 5
                    + usize::from(contents[usize::from(b)]);
                if held != 0 {
                    f(FIRST_PAIR_INPUT + p * PAIR_CONTENTS + held);
                }
            }
        }
    }

    /// The squares whose piece changed: a bit set in one board's mask of a kind and not
    /// in the other's (a move changes 2 squares and the captured ones). The masks are
    /// compared before the board is turned for Black, and only the changed squares are
    /// turned (square `n` is `33 − n`). With the pairs, only the (at most 4) pairs of
    /// each changed square are compared, by table.
    #[inline(always)]
    fn for_each_input_change(
        &self,
        set: usize,
        next: &Self,
        side: Side,
        f: &mut impl ChangeSink,
    ) -> bool {
        let before = self.with_side_to_move(side).kind_masks();
        let after = next.with_side_to_move(side).kind_masks();
        let squares = &INPUT_SQUARE[side.index()];
        let mut changed_bits = 0;
        for (kind, (was, is)) in before.into_iter().zip(after).enumerate() {
            changed_bits |= was ^ is;
            // Gone, then come: each loop pushes one kind of change.
            for (mut bits, on) in [(was & !is, false), (is & !was, true)] {
                while bits != 0 {
                    let bit = bits.trailing_zeros() as usize;
                    f.push(kind * 32 + usize::from(squares[bit & 63]), on);
                    bits &= bits - 1;
                }
            }
        }
        if set == BOARD_PAIRS {
            let (bit_pairs, pair_bits) = (&BIT_PAIRS[side.index()], &PAIR_BITS[side.index()]);
            let mut pairs = 0;
            while changed_bits != 0 {
                pairs |= bit_pairs[changed_bits.trailing_zeros() as usize & 63];
                changed_bits &= changed_bits - 1;
            }
            let (old, new) = (contents_by_bit(&before), contents_by_bit(&after));
            let held = |contents: &[u8; 64], (a, b): (u8, u8)| {
                usize::from(contents[usize::from(a) & 63]) * 5
                    + usize::from(contents[usize::from(b) & 63])
            };
            while pairs != 0 {
                let p = pairs.trailing_zeros() as usize;
                let squares = pair_bits[p & 63];
                // A changed square changes what each of its pairs holds.
                let (was, is) = (held(&old, squares), held(&new, squares));
                let first = FIRST_PAIR_INPUT + p * PAIR_CONTENTS;
                f.push_if(was != 0, first + was, false);
                f.push_if(is != 0, first + is, true);
                pairs &= pairs - 1;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{BOARD, BOARD_PAIRS, FIRST_PAIR_INPUT, PAIRS};
    use crate::eval::td::{Inputs, active_inputs, input_set};
    use crate::game::{Game, Side};
    use crate::games::brazilian::treestats::random_positions;
    use crate::games::brazilian::{Brazilian, MoveList};
    use std::collections::BTreeSet;

    fn inputs(pos: &Brazilian, set: usize, side: Side) -> BTreeSet<usize> {
        let mut inputs = BTreeSet::new();
        pos.for_each_input_as(set, side, |i| {
            inputs.insert(i);
        });
        inputs
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
                    for (set, side) in [BOARD, BOARD_PAIRS]
                        .into_iter()
                        .flat_map(|set| [(set, Side::First), (set, Side::Second)])
                    {
                        let (before, after) = (inputs(&pos, set, side), inputs(&next, set, side));
                        let (mut on, mut off) = (BTreeSet::new(), BTreeSet::new());
                        assert!(
                            pos.for_each_input_change(set, &next, side, &mut |i, added| {
                                assert!(if added { &mut on } else { &mut off }.insert(i));
                            })
                        );
                        let case = format!("set {set}, {side:?}: {pos:?} → {next:?}");
                        assert_eq!(on, &after - &before, "{case}");
                        assert_eq!(off, &before - &after, "{case}");
                    }
                    pairs += 1;
                }
            }
        }
        assert!(pairs > 1000, "{pairs} pairs");
    }

    /// The pairs are the 49 pairs of diagonally adjacent squares, and a position's pair
    /// inputs say what each pair holds: in the start position, 12 + 12 own and
    /// opponent's men in rows of 4, the 7 pairs across rows 3–4 and 5–6 each hold a man
    /// and an empty square, the 14 pairs of the men's own row pairs two men.
    #[test]
    fn pair_inputs_name_adjacent_squares_and_their_contents() {
        let number = |n: u8| n + 1;
        assert!(PAIRS.contains(&(0, 4)) && PAIRS.contains(&(0, 5)) && PAIRS.contains(&(3, 7)));
        assert!(!PAIRS.contains(&(3, 8)) && !PAIRS.contains(&(4, 5)));
        for &(a, b) in &PAIRS {
            assert!(b / 4 == a / 4 + 1, "{}-{}", number(a), number(b));
        }
        let start = Brazilian::start();
        let pairs: Vec<usize> = active_inputs(&start, BOARD_PAIRS)
            .into_iter()
            .filter(|&i| i >= FIRST_PAIR_INPUT)
            .map(|i| (i - FIRST_PAIR_INPUT) % 25)
            .collect();
        // Two own men 1·5 + 1, two opponent's 3·5 + 3; one side empty: 1 or 3 and 0.
        let count = |held: usize| pairs.iter().filter(|&&h| h == held).count();
        assert_eq!((count(6), count(18)), (14, 14));
        assert_eq!(count(1) + count(5) + count(3) + count(15), 14);
        assert_eq!(pairs.len(), 42);
        let board = active_inputs(&start, BOARD);
        assert_eq!(active_inputs(&start, BOARD_PAIRS)[..board.len()], board[..]);
        assert_eq!(input_set::<Brazilian>(BOARD_PAIRS).inputs, 129 + 49 * 25);
    }
}
