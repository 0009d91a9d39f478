//! One sowing (Dubner's `scatterStones`, rules 1.1–1.4 and 2): the only code that moves
//! stones. Move generation, [`Game::play`](crate::game::Game::play), move parsing and the
//! single-sowing API of the play command all go through [`sow`].
//!
//! A sowing is seen from the mover: its 13 *slots* are its own pits 0..5, its store 6 and
//! the opponent's pits 7..12 (the opponent's store is never sown into). Slot `r` of A is
//! desk index `r`; slot `r` of B is desk index `(r + 7) mod 14`, which skips A's store.
//!
//! The sowing works on a [`Desk`]: the 14 counts as the bytes of one `u128`. Sowing `n`
//! stones from a pit adds one precomputed word (a 1 in each slot the stones reach, for
//! `n mod 13`) and `n / 13` times the word of a whole lap, instead of a loop per stone;
//! no byte carries into the next, as every count stays at most the total (72).

use super::{Kalah, KalahRules, PITS};
use crate::game::Side;

/// Slots of one lap: own pits, own store, opponent's pits.
pub(super) const SLOTS: usize = 13;
/// The mover's store, as a slot.
pub(super) const STORE_SLOT: usize = 6;
/// Desk index of A's store and of B's store.
pub(super) const STORE: [usize; 2] = [6, 13];
/// Desk index of each side's pit 1.
pub(super) const BASE: [usize; 2] = [0, 7];

/// Desk index of slot `r` (0..13) of the side with index `side`.
const fn slot_index(side: usize, r: usize) -> usize {
    if side == 0 { r } else { (r + 7) % 14 }
}

/// Desk index of slot `r` (0..13) of `side`.
#[inline(always)]
const fn desk(side: Side, r: usize) -> usize {
    slot_index(side.index(), r)
}

/// The byte of desk index `i` set to one.
const fn one_at(i: usize) -> u128 {
    1 << (8 * i)
}

/// A 1 in every slot of a side: what a whole lap adds.
const LAP: [u128; 2] = {
    let mut table = [0; 2];
    let mut side = 0;
    while side < 2 {
        let mut r = 0;
        while r < SLOTS {
            table[side] |= one_at(slot_index(side, r));
            r += 1;
        }
        side += 1;
    }
    table
};

/// `RUN[side][pit][k]`: a 1 in each of the `k` slots after pit `pit` (0..6), wrapping.
const RUN: [[[u128; SLOTS]; PITS]; 2] = {
    let mut table = [[[0; SLOTS]; PITS]; 2];
    let mut side = 0;
    while side < 2 {
        let mut pit = 0;
        while pit < PITS {
            let mut k = 1;
            while k < SLOTS {
                let slot = (pit + k) % SLOTS;
                table[side][pit][k] = table[side][pit][k - 1] | one_at(slot_index(side, slot));
                k += 1;
            }
            pit += 1;
        }
        side += 1;
    }
    table
};

/// The bytes of each side's six pits.
const ROW: [u128; 2] = [0xFFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF << 56];

/// The 14 counts of Dubner's `desk[14]` as the low 14 bytes of one word (byte `i` is
/// `desk[i]`; the top two bytes stay zero).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Desk(u128);

impl Desk {
    #[inline(always)]
    pub(super) fn load(counts: &[u8; 14]) -> Desk {
        let mut bytes = [0; 16];
        bytes[..14].copy_from_slice(counts);
        Desk(u128::from_le_bytes(bytes))
    }

    #[inline(always)]
    pub(super) fn counts(self) -> [u8; 14] {
        let bytes = self.0.to_le_bytes();
        let mut counts = [0; 14];
        counts.copy_from_slice(&bytes[..14]);
        counts
    }

    /// The count at desk index `i`.
    #[inline(always)]
    pub(super) const fn at(self, i: usize) -> u8 {
        (self.0 >> (8 * i)) as u8
    }

    /// Stones in `side`'s pit `pit` (0..6).
    #[inline(always)]
    pub(super) const fn pit(self, side: Side, pit: usize) -> u8 {
        self.at(BASE[side.index()] + pit)
    }

    #[inline(always)]
    const fn clear(&mut self, i: usize) {
        self.0 &= !(0xFF << (8 * i));
    }

    /// True if `side`'s six pits are empty.
    #[inline(always)]
    pub(super) const fn row_empty(self, side: Side) -> bool {
        self.0 & ROW[side.index()] == 0
    }

    /// Moves every stone in `side`'s pits to its store (the sweep at the end of a game).
    #[inline(always)]
    fn sweep(&mut self, side: Side) {
        let base = BASE[side.index()];
        let mut swept = 0;
        for i in base..base + PITS {
            swept += self.0 >> (8 * i) & 0xFF;
        }
        self.0 = (self.0 & !ROW[side.index()]) + (swept << (8 * STORE[side.index()]));
    }
}

/// The slot the last stone of a sowing of `stones` stones from own pit `pit` (0..6) lands
/// in. A 13th stone lands in the emptied pit itself.
#[inline(always)]
pub(super) const fn last_slot(pit: usize, stones: usize) -> usize {
    (pit + stones) % SLOTS
}

/// True if a sowing of `stones` from pit `pit` (0..6) ends in the mover's store, i.e.
/// earns another sowing (unless it empties the mover's row and ends the game).
#[inline(always)]
pub(super) const fn ends_in_store(pit: usize, stones: usize) -> bool {
    stones != 0 && last_slot(pit, stones) == STORE_SLOT
}

/// How a sowing ended, for the turn.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum SowingEnd {
    /// The last stone fell in the mover's store: the same side sows again (rule 1.2).
    SowsAgain,
    /// The turn passes to the opponent.
    TurnPasses,
    /// A row is empty: the stones left were swept to their owner's store and the game
    /// is over (rules 1.4 and 2).
    GameOver,
}

/// Sows the stones of `side`'s pit `pit` (0..6) in `desk` and applies what follows: a
/// capture (rule 1.3, or [`KalahRules::empty_capture`]) and the end of the game. Returns
/// how the sowing ended and the stones a capture moved to the store (0 if none). An
/// empty pit sows nothing (callers only sow non-empty pits).
#[inline(always)]
pub(super) fn sow(
    desk_word: &mut Desk,
    side: Side,
    rules: KalahRules,
    pit: usize,
) -> (SowingEnd, u8) {
    let origin = desk(side, pit);
    let stones = desk_word.at(origin) as usize;
    desk_word.clear(origin);
    // Whole laps put the same number in every slot, the emptied pit included; the rest
    // go one each into the slots after the origin.
    let laps = (stones / SLOTS) as u128;
    desk_word.0 += laps * LAP[side.index()] + RUN[side.index()][pit][stones % SLOTS];
    let slot = last_slot(pit, stones);

    let mut captured = 0;
    let store = STORE[side.index()];
    if stones != 0 && slot < PITS && desk_word.at(desk(side, slot)) == 1 {
        // The last stone fell in an own pit that was empty: own pit i faces the
        // opponent's pit 7 − i, i.e. slot 12 − slot.
        let own = desk(side, slot);
        let opposite = desk(side, 2 * PITS - slot);
        let taken = desk_word.at(opposite);
        if taken > 0 || rules.empty_capture {
            captured = taken + 1;
            desk_word.clear(own);
            desk_word.clear(opposite);
            desk_word.0 += (captured as u128) << (8 * store);
        }
    }

    let other = side.opponent();
    let end = if desk_word.row_empty(side) {
        // Rule 1.4: the mover has nothing left; the opponent keeps its stones.
        desk_word.sweep(other);
        SowingEnd::GameOver
    } else if slot == STORE_SLOT && stones != 0 {
        SowingEnd::SowsAgain
    } else if desk_word.row_empty(other) {
        // Rule 2: the opponent, now to move, has nothing to sow.
        desk_word.sweep(side);
        SowingEnd::GameOver
    } else {
        SowingEnd::TurnPasses
    };
    (end, captured)
}

/// One sowing of the play command: the position after it and how it ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Sowing {
    /// The position after the sowing: the same side to move if it sows again, else the
    /// opponent (also when the game is over, as after [`Game::play`](crate::game::Game::play)).
    pub position: Kalah,
    pub end: SowingEnd,
    /// Stones a capture moved to the mover's store (0 if none).
    pub captured: u8,
}

impl Sowing {
    /// True if the same player sows again.
    pub const fn turn_goes_on(&self) -> bool {
        matches!(self.end, SowingEnd::SowsAgain)
    }
}

impl Kalah {
    /// [`Kalah::sow`] of a non-empty pit given as 0..6, in a position that is not over.
    #[inline(always)]
    pub(super) fn sow_unchecked(&self, pit: usize) -> Sowing {
        let mut desk = Desk::load(&self.counts);
        let (end, captured) = sow(&mut desk, self.side, self.rules, pit);
        let side = match end {
            SowingEnd::SowsAgain => self.side,
            SowingEnd::TurnPasses | SowingEnd::GameOver => self.side.opponent(),
        };
        Sowing {
            position: Kalah {
                counts: desk.counts(),
                side,
                rules: self.rules,
            },
            end,
            captured,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_cover_the_desk_but_the_opponents_store() {
        for side in [Side::First, Side::Second] {
            let mut seen = [false; 14];
            for r in 0..SLOTS {
                seen[desk(side, r)] = true;
            }
            let opponents_store = STORE[side.opponent().index()];
            for (i, &s) in seen.iter().enumerate() {
                assert_eq!(s, i != opponents_store, "{side:?} desk {i}");
            }
            assert_eq!(desk(side, STORE_SLOT), STORE[side.index()]);
            assert_eq!(desk(side, 0), BASE[side.index()]);
        }
    }

    #[test]
    fn laps_fill_the_emptied_pit() {
        // A sows 13 stones from pit 1: one in each slot, the last back in pit 1, which
        // was emptied, so it captures B's pit 6 (desk 12) with its own stone.
        let mut desk = Desk::load(&[13, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 4, 0]);
        let (end, captured) = sow(&mut desk, Side::First, KalahRules::default(), 0);
        assert_eq!(end, SowingEnd::TurnPasses);
        assert_eq!(captured, 5 + 1);
        assert_eq!(desk.counts(), [0, 2, 1, 1, 1, 1, 7, 2, 2, 2, 2, 2, 0, 0]);
    }

    #[test]
    fn runs_and_rows() {
        assert_eq!(RUN[0][5][2], one_at(6) | one_at(7));
        // B's run from pit 6 skips A's store (desk 6).
        assert_eq!(RUN[1][5][3], one_at(13) | one_at(0) | one_at(1));
        assert_eq!(RUN[1][0][12], LAP[1] & !one_at(7));
        assert_eq!(LAP[0].count_ones(), 13);
        assert_eq!(LAP[1] & one_at(6), 0);
        let desk = Desk::load(&[0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 9]);
        assert!(desk.row_empty(Side::First) && desk.row_empty(Side::Second));
        let desk = Desk::load(&[0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 1, 9]);
        assert!(desk.row_empty(Side::First) && !desk.row_empty(Side::Second));
        let mut swept = desk;
        swept.sweep(Side::Second);
        assert_eq!(swept.counts(), [0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 10]);
    }
}
