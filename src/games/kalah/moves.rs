//! Compound moves: every sowing of one turn as one `Copy` value, and their generation.
//!
//! Figures behind the sizes (from an exhaustive enumeration over every distribution of at
//! most 72 stones in one side's six pits): at most 28 sowings ending in the store in one
//! turn, so at most 29 sowings in a move (42 fit in a `u128`); and at most 1,204 distinct
//! compound moves in one position (A's pits 16,5,4,40,2,1; 6,5,4,3,2,1 gives 912), so a
//! move list of 2,048 always has room.

use super::sowing::{Desk, SowingEnd, ends_in_store, sow};
use super::{Kalah, PITS};
use crate::game::MoveList;

/// Bits per sowing in a [`KalahMove`].
const BITS: u32 = 3;
/// Most sowings a [`KalahMove`] holds.
pub const MAX_SOWINGS: usize = (u128::BITS / BITS) as usize;
/// Room for every legal move of any position (1,204 at most; see the module docs).
pub const MAX_KALAH_MOVES: usize = 2048;
/// The move buffer of Kalah.
pub type KalahMoves = MoveList<KalahMove, MAX_KALAH_MOVES>;

/// A compound move: sowing `k` in bits `3k..3k+3`, holding the pit (1..6, counted from
/// the mover's side); 0 ends the list. `Default` (0) is no move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct KalahMove(pub u128);

impl KalahMove {
    /// The move sowing `pits` (each 1..=6) in order; `None` if a pit is out of range,
    /// there is none or more than [`MAX_SOWINGS`]. Legality is not checked.
    pub fn from_pits(pits: &[u8]) -> Option<KalahMove> {
        if pits.is_empty() || pits.len() > MAX_SOWINGS {
            return None;
        }
        let mut bits = 0u128;
        for (k, &pit) in pits.iter().enumerate() {
            if !(1..=PITS as u8).contains(&pit) {
                return None;
            }
            bits |= (pit as u128) << (BITS * k as u32);
        }
        Some(KalahMove(bits))
    }

    /// The move with `pit` (1..=6) sown after this move's sowings, or `None` if it is full.
    #[inline(always)]
    pub const fn then(self, pit: u8) -> Option<KalahMove> {
        let len = self.len();
        if len >= MAX_SOWINGS || pit == 0 || pit as usize > PITS {
            return None;
        }
        Some(KalahMove(self.0 | (pit as u128) << (BITS * len as u32)))
    }

    /// The pits sown, in order (1..=6, from the mover's side). A field that is no pit
    /// (0, or 7 in bits that did not come from a move) ends the list.
    pub fn sowings(self) -> impl Iterator<Item = u8> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            let pit = (bits & 7) as u8;
            bits >>= BITS;
            (1..=PITS as u8).contains(&pit).then_some(pit)
        })
    }

    /// Number of sowings.
    #[inline(always)]
    pub const fn len(self) -> usize {
        (u128::BITS - self.0.leading_zeros()).div_ceil(BITS) as usize
    }

    /// True for the default value, which is no move.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The first pit sown (1..=6; 0 for no move).
    #[inline(always)]
    pub const fn first(self) -> u8 {
        (self.0 & 7) as u8
    }

    /// The last pit sown (1..=6; 0 for no move).
    #[inline(always)]
    pub const fn last(self) -> u8 {
        match self.len() {
            0 => 0,
            n => ((self.0 >> (BITS * (n as u32 - 1))) & 7) as u8,
        }
    }
}

impl std::fmt::Debug for KalahMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for pit in self.sowings() {
            if !first {
                f.write_str(",")?;
            }
            write!(f, "{pit}")?;
            first = false;
        }
        if first {
            f.write_str("-")?;
        }
        Ok(())
    }
}

impl Kalah {
    /// Calls `emit` with every legal move, depth-first with the pits in increasing order
    /// at each level, as Dubner's `next` walks them (`1,2`, `1,3`, … `1,6`, `2`, `3`, …
    /// from the start). Only sowings ending in the store are played out: any other
    /// sowing of a non-empty pit ends the move whatever it does.
    #[inline(always)]
    pub(super) fn for_each_move(&self, mut emit: impl FnMut(KalahMove)) {
        if self.is_over() {
            return;
        }
        walk(Desk::load(&self.counts), self, KalahMove(0), 0, &mut emit);
    }
}

/// One level of the walk: the sowings after `prefix` (`depth` sowings) in `desk`.
/// Recursion is at most 29 deep (see the module docs) and allocates nothing.
fn walk(desk: Desk, pos: &Kalah, prefix: KalahMove, depth: u32, emit: &mut impl FnMut(KalahMove)) {
    for pit in 0..PITS {
        let stones = desk.pit(pos.side, pit) as usize;
        if stones == 0 {
            continue;
        }
        let mv = KalahMove(prefix.0 | ((pit as u128 + 1) << (BITS * depth)));
        if !ends_in_store(pit, stones) {
            emit(mv);
            continue;
        }
        let mut next = desk;
        match sow(&mut next, pos.side, pos.rules, pit).0 {
            SowingEnd::SowsAgain => walk(next, pos, mv, depth + 1, emit),
            SowingEnd::TurnPasses | SowingEnd::GameOver => emit(mv),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_bits() {
        let mv = KalahMove::from_pits(&[1, 2, 6]).unwrap();
        assert_eq!(mv.0, 1 | 2 << 3 | 6 << 6);
        assert_eq!(mv.len(), 3);
        assert_eq!(mv.first(), 1);
        assert_eq!(mv.last(), 6);
        assert_eq!(mv.sowings().collect::<Vec<_>>(), [1, 2, 6]);
        assert_eq!(format!("{mv:?}"), "1,2,6");
        assert_eq!(KalahMove::from_pits(&[1, 2]).unwrap().then(6), Some(mv));
        assert_eq!(KalahMove::default().len(), 0);
        assert_eq!(KalahMove::default().last(), 0);
        assert_eq!(KalahMove::from_pits(&[]), None);
        assert_eq!(KalahMove::from_pits(&[7]), None);
        assert_eq!(KalahMove::from_pits(&[0]), None);
        let full = KalahMove::from_pits(&[6; MAX_SOWINGS]).unwrap();
        assert_eq!(full.len(), MAX_SOWINGS);
        assert_eq!(full.sowings().count(), MAX_SOWINGS);
        assert_eq!(full.then(1), None);
        assert_eq!(KalahMove::from_pits(&[1; MAX_SOWINGS + 1]), None);
        assert_eq!(
            KalahMove(1 | 7 << 3 | 2 << 6).sowings().collect::<Vec<_>>(),
            [1]
        );
        let one_bit_pits = KalahMove::from_pits(&[1; MAX_SOWINGS]).unwrap();
        assert_eq!(one_bit_pits.len(), MAX_SOWINGS);
        assert_eq!(one_bit_pits.last(), 1);
    }
}
