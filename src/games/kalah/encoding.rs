//! Kalah as the learned evaluators read it, always from the side to move ("own" row,
//! then the opponent's): GLEM's atomic features ([`crate::eval::glem::Atoms`]) and the TD
//! network's inputs ([`crate::eval::td::Inputs`]). Samuel's named features are in
//! [`super::features`].
//!
//! # GLEM atoms (30 slots)
//! - Slots 1..6: own pits 1..6; slots 7..12: the opponent's pits 1..6. Each holds a bucket
//!   of its count `c` relative to the pit's distance `d = 7 − pit` to its owner's store:
//!   `0` empty; `1` short (`c < d`: every stone stays in the owner's row); `2` exact
//!   (`c = d`: the last stone falls in the store, an extra sowing); `3` long
//!   (`d < c < 13`: stones reach the other row); `4` lap (`c ≥ 13`). Pit 6 is never
//!   short (its distance is 1).
//! - Slots 13..24: the store difference (own − opponent's) as a thermometer: slot
//!   `18 + k` is 1 when the difference is at least `k`, for `k = −5..6` (the set is closed
//!   under turning the board, `k ↔ 1 − k`). A capture or a sowing into the store moves the
//!   thermometer, which is what GLEM's sums must see.
//! - Slots 25..30: the stones in the own pits minus those in the opponent's, as a coarse
//!   thermometer with thresholds −7, −3, 0, 1, 4, 8 (closed under `t ↔ 1 − t` too): the
//!   stones each side gets when the game ends, which the buckets do not count.
//! - Regions: each row; each pair of facing pits (captures); the two halves a sowing
//!   flows through (own pits 4–6 with the opponent's 1–3, and the reverse); the
//!   store-difference thermometer in two pieces; both thermometers' middles together.
//! - Phases: by the stones left in the pits (0..72), four phases split at 16, 32, 48.
//!
//! # TD inputs (253)
//! Thermometers too, so a count's size is a sum of inputs: own pit `p` (0..6) has inputs
//! `15p + k − 1` for `c ≥ k`, `k = 1..15`; the opponent's pits follow at 90; then the own
//! store `≥ k` for `k = 1..36` (180..215), the opponent's store (216..251), and input 252,
//! 1 when A is to move. At most 73 inputs are 1: every stone counts once, at most.
//! The integer network sums one column per thermometer, not per input: its features
//! ([`crate::eval::td::InputSet::features`]) are the thermometers' levels, at most 15 in a position.

use super::{A, Kalah, PITS};
use crate::eval::glem::{Atoms, MAX_SLOTS, Phases, Region};
use crate::eval::td::{ChangeSink, InputSet, Inputs, phase_bucket};
use crate::game::{Game, Side};

/// Slots of the pits (both rows).
const PIT_SLOTS: usize = 2 * PITS;
/// The store-difference thermometer: slot `MARGIN_ZERO + k` (1-based) for `k` in
/// `MARGIN_LOW..=MARGIN_HIGH`.
const MARGIN_LOW: i32 = -5;
const MARGIN_HIGH: i32 = 6;
const MARGIN_ZERO: i32 = PIT_SLOTS as i32 + 1 - MARGIN_LOW;
/// Thresholds of the row-stones thermometer, whose slots follow the store difference's.
const ROW_THRESHOLDS: [i32; 6] = [-7, -3, 0, 1, 4, 8];
const ROW_FIRST: usize = PIT_SLOTS + (MARGIN_HIGH - MARGIN_LOW + 1) as usize;
const SLOTS: u8 = (ROW_FIRST + ROW_THRESHOLDS.len()) as u8;

/// Bucket digits of a pit.
const EMPTY: u8 = 0;
const SHORT: u8 = 1;
const EXACT: u8 = 2;
const LONG: u8 = 3;
const LAP: u8 = 4;

/// The bucket of `count` stones in pit index `i` (0..6) of its owner's row.
#[inline(always)]
const fn bucket(i: usize, count: u8) -> u8 {
    let distance = (PITS - i) as u8;
    if count == 0 {
        EMPTY
    } else if count < distance {
        SHORT
    } else if count == distance {
        EXACT
    } else if count < 13 {
        LONG
    } else {
        LAP
    }
}

/// The own row, then the opponent's, from the side to move.
#[inline(always)]
fn rows(pos: &Kalah) -> [[u8; PITS]; 2] {
    let own = pos.side_to_move();
    [pos.pits(own), pos.pits(own.opponent())]
}

/// Own stones in pits minus the opponent's.
#[inline(always)]
fn row_difference(pos: &Kalah) -> i32 {
    let own = pos.side_to_move();
    pos.stones_in_pits(own) as i32 - pos.stones_in_pits(own.opponent()) as i32
}

/// Slot index (0-based) of the store-difference slots that are 1: those for `k ≤ margin`.
#[inline(always)]
fn margin_slots(pos: &Kalah) -> std::ops::Range<usize> {
    let top = pos.store_margin().clamp(MARGIN_LOW - 1, MARGIN_HIGH);
    // Slot `MARGIN_ZERO + k` (1-based) is index `MARGIN_ZERO + k − 1`.
    let first = (MARGIN_ZERO + MARGIN_LOW - 1) as usize;
    first..(MARGIN_ZERO + top) as usize
}

fn region(name: &str, slots: impl IntoIterator<Item = usize>) -> Region {
    let slots: Vec<u8> = slots.into_iter().map(|s| s as u8).collect();
    Region::new(name, &slots)
}

impl Atoms for Kalah {
    const ATOM_SET_ID: &'static str = "kalah-glem-buckets-v2";
    const SLOTS: u8 = SLOTS;
    const PHASE_MAX: u32 = 72;

    fn atom_digits(&self) -> [u8; MAX_SLOTS] {
        let mut digits = [0; MAX_SLOTS];
        self.for_each_atom(|slot, digit| digits[slot] = digit);
        digits
    }

    #[inline(always)]
    fn for_each_atom(&self, mut f: impl FnMut(usize, u8)) {
        for (r, row) in rows(self).iter().enumerate() {
            for (i, &count) in row.iter().enumerate() {
                if count != 0 {
                    f(r * PITS + i, bucket(i, count));
                }
            }
        }
        for slot in margin_slots(self) {
            f(slot, 1);
        }
        let rows = row_difference(self);
        for (i, &t) in ROW_THRESHOLDS.iter().enumerate() {
            if rows >= t {
                f(ROW_FIRST + i, 1);
            }
        }
    }

    fn atom_value(digit: u8) -> i8 {
        digit as i8
    }

    fn atom_digit(value: i8) -> Option<u8> {
        (0..=4).contains(&value).then_some(value as u8)
    }

    fn radix(slot: u8) -> u32 {
        match slot as usize {
            // Pit 6 of either row is never short.
            6 | 12 => 4,
            s if s <= PIT_SLOTS => 5,
            _ => 2,
        }
    }

    fn compact_digit(slot: u8, digit: u8) -> Option<u8> {
        match slot as usize {
            6 | 12 => match digit {
                SHORT => None,
                EMPTY => Some(0),
                d => Some(d - 1),
            },
            s if s <= PIT_SLOTS => Some(digit),
            _ => (digit <= 1).then_some(digit),
        }
    }

    #[inline(always)]
    fn phase_measure(&self) -> u32 {
        self.stones_in_pits(A) + self.stones_in_pits(A.opponent())
    }

    fn material(&self) -> f64 {
        f64::from(self.store_margin())
    }

    fn default_regions() -> Vec<Region> {
        let mut regions = vec![
            region("own pits", 1..=PITS),
            region("opponent's pits", PITS + 1..=PIT_SLOTS),
        ];
        // Own pit n faces the opponent's pit 7 − n (slot 6 + 7 − n).
        for n in 1..=PITS {
            regions.push(region(&format!("facing pits {n}"), [n, 2 * PITS + 1 - n]));
        }
        regions.push(region(
            "own 4-6, opponent's 1-3",
            (4..=9).collect::<Vec<_>>(),
        ));
        regions.push(region("opponent's 4-6, own 1-3", [10, 11, 12, 1, 2, 3]));
        let margin: Vec<usize> = (PIT_SLOTS + 1..=ROW_FIRST).collect();
        let (low, high) = margin.split_at(margin.len() / 2);
        regions.push(region("store difference, low", low.to_vec()));
        regions.push(region("store difference, high", high.to_vec()));
        // Store differences 0 and 1 with the whole row-stones thermometer.
        let mut ends = margin[margin.len() / 2 - 1..margin.len() / 2 + 1].to_vec();
        ends.extend(ROW_FIRST + 1..=SLOTS as usize);
        regions.push(region("stores and rows", ends));
        regions
    }

    fn default_phases() -> Phases {
        Phases {
            starts: vec![0, 16, 32, 48],
        }
    }
}

/// Thermometer inputs per pit, and per store.
const PIT_LEVELS: usize = 15;
const STORE_LEVELS: usize = 36;
const STORE_INPUTS: usize = PIT_SLOTS * PIT_LEVELS;
const SIDE_INPUT: usize = STORE_INPUTS + 2 * STORE_LEVELS;

impl Inputs for Kalah {
    /// One set, `"thermometers"`. Its features are the thermometers' levels: feature
    /// `first + level − 1` of a thermometer (the index of its last input that is 1)
    /// stands for its inputs `first..first + level`, so a position has one feature per
    /// non-empty pit or store and the side's.
    const INPUT_SETS: &'static [InputSet] = &[InputSet {
        name: "thermometers",
        id: "kalah-thermometer-253",
        inputs: SIDE_INPUT + 1,
        max_active: 73,
        features: SIDE_INPUT + 1,
        max_active_features: PIT_SLOTS + 2 + 1,
    }];

    /// By the stones left in the pits (0 to all of them) in equal ranges
    /// ([`phase_bucket`]): in Kalah(6,6) with 4 phases 0–18, 19–36, 37–54 and 55–72.
    #[inline(always)]
    fn phase(&self, phases: usize) -> usize {
        phase_bucket(self.phase_measure(), self.rules().total(), phases)
    }

    #[inline(always)]
    fn for_each_input_as(&self, _set: usize, side: Side, mut f: impl FnMut(usize)) {
        for_each_level(self, side, |slot, count, levels| {
            for k in 0..count.min(levels) {
                f(slot + k);
            }
        });
        if side == A {
            f(SIDE_INPUT);
        }
    }

    #[inline(always)]
    fn feature_inputs(_set: usize, feature: usize) -> std::ops::Range<usize> {
        let first = match feature {
            f if f < STORE_INPUTS => f - f % PIT_LEVELS,
            f if f < SIDE_INPUT => f - (f - STORE_INPUTS) % STORE_LEVELS,
            f => f,
        };
        first..feature + 1
    }

    #[inline(always)]
    fn for_each_feature_as(&self, _set: usize, side: Side, mut f: impl FnMut(usize)) {
        for &(first, level) in &levels(self, side) {
            if level > 0 {
                f(first + level - 1);
            }
        }
        if side == A {
            f(SIDE_INPUT);
        }
    }

    /// The thermometers whose level changed: the old level's feature off, the new one's
    /// on. Listed unless that is more than `next`'s features (a long sowing).
    #[inline(always)]
    fn for_each_feature_change(
        &self,
        _set: usize,
        next: &Self,
        side: Side,
        f: &mut impl ChangeSink,
    ) -> bool {
        let (before, after) = (levels(self, side), levels(next, side));
        let (mut changes, mut active) = (0, 0);
        for (&(_, was), &(_, is)) in before.iter().zip(&after) {
            if was != is {
                changes += usize::from(was > 0) + usize::from(is > 0);
            }
            active += usize::from(is > 0);
        }
        if changes > active {
            return false;
        }
        for (&(first, was), &(_, is)) in before.iter().zip(&after) {
            if was != is {
                // A level of 0 has no feature: its index is written, not kept.
                f.push_if(was > 0, first + was.saturating_sub(1), false);
                f.push_if(is > 0, first + is.saturating_sub(1), true);
            }
        }
        true
    }
}

/// The thermometer slots from `side`'s point of view: its pits, the opponent's pits, its
/// store, the opponent's store; calls `f(first input, count, levels)` for each.
#[inline(always)]
fn for_each_level(pos: &Kalah, side: Side, mut f: impl FnMut(usize, usize, usize)) {
    for (r, row) in [pos.pits(side), pos.pits(side.opponent())]
        .iter()
        .enumerate()
    {
        for (i, &count) in row.iter().enumerate() {
            f((r * PITS + i) * PIT_LEVELS, count as usize, PIT_LEVELS);
        }
    }
    for (r, owner) in [side, side.opponent()].into_iter().enumerate() {
        let count = pos.store(owner) as usize;
        f(STORE_INPUTS + r * STORE_LEVELS, count, STORE_LEVELS);
    }
}

/// Every thermometer slot's first input and level (how many of its inputs are 1), in
/// [`for_each_level`] order.
#[inline(always)]
fn levels(pos: &Kalah, side: Side) -> [(usize, usize); PIT_SLOTS + 2] {
    let mut out = [(0, 0); PIT_SLOTS + 2];
    let mut n = 0;
    for_each_level(pos, side, |first, count, levels| {
        out[n] = (first, count.min(levels));
        n += 1;
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::glem::atom_values;
    use crate::eval::td::active_inputs;
    use crate::games::kalah::B;

    fn pos(text: &str) -> Kalah {
        Kalah::parse_position(text).unwrap()
    }

    #[test]
    fn buckets_follow_the_distance_to_the_store() {
        // Pit 1 (distance 6): 0, 5, 6, 7, 13 stones.
        assert_eq!(
            [0, 5, 6, 7, 13].map(|c| bucket(0, c)),
            [EMPTY, SHORT, EXACT, LONG, LAP]
        );
        // Pit 6 (distance 1) is never short.
        assert_eq!([0, 1, 2].map(|c| bucket(5, c)), [EMPTY, EXACT, LONG]);
    }

    #[test]
    fn td_phases_bucket_the_stones_left_in_the_pits() {
        let start = Kalah::start();
        assert_eq!(start.phase(1), 0);
        assert_eq!(start.phase(4), 3, "72 stones in the pits: the last phase");
        // 4 phases of Kalah(6,6): 0–18, 19–36, 37–54, 55–72 stones left.
        for (left, phase) in [
            (0, 0),
            (18, 0),
            (19, 1),
            (36, 1),
            (37, 2),
            (54, 2),
            (55, 3),
            (72, 3),
        ] {
            assert_eq!(phase_bucket(left, 72, 4), phase, "{left} stones");
        }
        let mut pos = start;
        let mut moves = <Kalah as Game>::Moves::default();
        let mut last = start.phase(4);
        loop {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            pos = pos.play(moves[0]);
            let left = pos.stones_in_pits(A) + pos.stones_in_pits(A.opponent());
            for phases in 1..=crate::eval::td::MAX_PHASES {
                assert_eq!(pos.phase(phases), phase_bucket(left, 72, phases));
            }
            // Stones only leave the pits.
            assert!(pos.phase(4) <= last);
            last = pos.phase(4);
        }
        assert_eq!(last, 0);
    }

    #[test]
    fn atoms_from_the_side_to_move() {
        let p = pos("A:0,0,4,3,0,1,30,2,0,0,0,0,0,32");
        let v = atom_values(&p);
        assert_eq!(&v[..6], &[0, 0, 2, 2, 0, 2]);
        assert_eq!(&v[6..12], &[1, 0, 0, 0, 0, 0]);
        // Store difference −2: slots for k = −5..−2 are 1; rows 8 − 2 = 6 ≥ −7, −3, 0, 1, 4.
        let ones: Vec<i32> = (0..12)
            .filter(|&j| v[12 + j] == 1)
            .map(|j| j as i32 + MARGIN_LOW)
            .collect();
        assert_eq!(ones, (-5..=-2).collect::<Vec<_>>());
        assert_eq!(&v[24..30], &[1, 1, 1, 1, 1, 0]);
        assert_eq!(SLOTS, 30);
        // B to move sees the rows and the differences turned.
        let w = atom_values(&p.with_side_to_move(B));
        assert_eq!(&w[..6], &v[6..12]);
        assert_eq!(&w[6..12], &v[..6]);
        assert_eq!((0..12).filter(|&j| w[12 + j] == 1).count(), 8);
        assert_eq!(&w[24..30], &[1, 0, 0, 0, 0, 0]);
        // Every value fits its slot's table.
        for (slot, &value) in (1..=SLOTS).zip(&v) {
            assert!(
                Kalah::compact_digit(slot, value as u8).is_some(),
                "slot {slot} value {value}"
            );
        }
    }

    #[test]
    fn regions_are_valid() {
        let regions = Kalah::default_regions();
        for r in &regions {
            r.validate::<Kalah>().unwrap();
        }
        Kalah::default_phases().validate::<Kalah>().unwrap();
    }

    #[test]
    fn inputs_are_thermometers() {
        let p = pos("A:0,0,4,3,0,1,30,2,0,0,0,0,0,32");
        let active = active_inputs(&p, 0);
        // 8 own pit stones, 2 opponent's, stores capped at 36 (30 and 32), A to move.
        assert_eq!(active.len(), 8 + 2 + 30 + 32 + 1);
        assert!(active.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(active.last(), Some(&SIDE_INPUT));
        assert!(active.len() <= Kalah::INPUT_SETS[0].max_active);
        let start = active_inputs(&Kalah::start(), 0);
        assert_eq!(start.len(), 72 + 1);
    }

    /// The features of a position, each expanded to its inputs (in the order listed).
    fn feature_expansion(pos: &Kalah, side: Side) -> Vec<usize> {
        let mut inputs = Vec::new();
        let mut count = 0;
        pos.for_each_feature_as(0, side, |f| {
            inputs.extend(Kalah::feature_inputs(0, f));
            count += 1;
        });
        assert!(count <= Kalah::INPUT_SETS[0].max_active_features);
        inputs
    }

    #[test]
    fn features_stand_for_the_inputs_and_their_changes_lead_from_one_to_the_next() {
        let mut moves = <Kalah as Game>::Moves::default();
        let mut rng = crate::rng::stream(11, 0);
        for game in 0..40 {
            let mut pos = Kalah::start();
            for _ in 0..200 {
                for side in [A, B] {
                    let mut inputs = Vec::new();
                    pos.for_each_input_as(0, side, |i| inputs.push(i));
                    assert_eq!(feature_expansion(&pos, side), inputs, "game {game}");
                }
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                let next = pos.play(moves[rand::RngExt::random_range(&mut rng, 0..moves.len())]);
                for side in [A, B] {
                    let mut features = Vec::new();
                    pos.for_each_feature_as(0, side, |f| features.push(f));
                    let listed = pos.for_each_feature_change(0, &next, side, &mut |f, on| {
                        if on {
                            assert!(!features.contains(&f));
                            features.push(f);
                        } else {
                            let at = features.iter().position(|&g| g == f).unwrap();
                            features.swap_remove(at);
                        }
                    });
                    if listed {
                        let mut expected = Vec::new();
                        next.for_each_feature_as(0, side, |f| expected.push(f));
                        features.sort_unstable();
                        assert_eq!(features, expected);
                    }
                }
                pos = next;
            }
        }
    }
}
