//! Kalah's named features for the linear evaluator and Samuel's learner
//! ([`crate::eval::linear::Features`]): `eval = 100 · (own store − opponent's store) +
//! Σ wᵢ·fᵢ`. The store difference is the fixed-weight anchor (Dubner's program's own
//! evaluation); every feature is (value for the side to move) − (value for the opponent),
//! each side seen from its own row (pit 1 on its left, its store after pit 6).

use super::{Kalah, PITS, Side};
use crate::eval::linear::Features;
use crate::game::Game;

/// Identifies this feature set (and its order) in saved weight files.
pub const FEATURE_SET_ID: &str = "kalah-samuel-v2";

/// Number of candidate features (the pool of term replacement).
pub const FEATURE_COUNT: usize = 16;

/// Features active at a time: a fresh model activates the first 12 (the set of
/// `kalah-samuel-v1`), the last 4 queue in reserve.
pub const ACTIVE: usize = 12;

/// Short names, in [`Features::features`] order.
pub const FEATURE_NAMES: [&str; FEATURE_COUNT] = [
    "stones_on_side",
    "empty_pits",
    "exact_to_store",
    "best_capture",
    "all_captures",
    "store_pit",
    "leaving_stones",
    "far_stones",
    "lapping_pits",
    "near_store",
    "extra_turn_chain",
    "decided",
    // Reserve queue.
    "largest_pit",
    "facing_empty",
    "given_away",
    "single_pits",
];

/// One line per feature. "Own" is the side the count is for; the feature is that count
/// for the side to move minus the count for the opponent.
pub const FEATURE_DESCRIPTIONS: [&str; FEATURE_COUNT] = [
    "stones in own pits (they go to the own store when the game ends)",
    "own empty pits (landing places for captures, but fewer moves)",
    "own pits whose sowing ends exactly in the own store (an extra sowing)",
    "most stones one own sowing captures now (the opponent's: as if it were to move)",
    "stones all own sowings capture now, summed over the pits",
    "stones in own pit 6, next to the store",
    "stones that leave the own row if their pit is sown (to the store and beyond)",
    "stones in own pits 1-2, farthest from the store",
    "own pits with 13 stones or more (their sowing goes all the way round)",
    "stones in own pits 4-6, near the store",
    "sowings in a row that end in the own store, taking the rightmost such pit each time",
    "1 if the own store holds more than half of all stones (the game is won)",
    "stones in the own fullest pit (a hoard for the endgame, or a capture target)",
    "stones in own pits facing an empty opponent pit (what a capture there would take)",
    "stones own sowings would drop into the opponent's pits, summed over the own pits",
    "own pits holding exactly one stone (short sowings that often capture)",
];

/// Stones a side's pits hold, pit 1 first, and what follows from them alone.
struct Row {
    pits: [u8; PITS],
}

impl Row {
    /// Pit index `i` (0..6) is `7 − (i + 1)` = `6 − i` slots from the store.
    const fn distance(i: usize) -> usize {
        PITS - i
    }

    fn stones(&self) -> i32 {
        self.pits.iter().map(|&c| i32::from(c)).sum()
    }

    fn empty(&self) -> i32 {
        self.pits.iter().filter(|&&c| c == 0).count() as i32
    }

    /// Pits whose last stone falls in the store: `c ≡ distance (mod 13)`.
    fn exact(&self) -> i32 {
        (0..PITS)
            .filter(|&i| self.pits[i] != 0 && self.pits[i] as usize % 13 == Row::distance(i))
            .count() as i32
    }

    fn leaving(&self) -> i32 {
        (0..PITS)
            .map(|i| {
                i32::from(self.pits[i]) - (self.pits[i] as i32).min(PITS as i32 - 1 - i as i32)
            })
            .sum()
    }

    fn store_pit(&self) -> i32 {
        i32::from(self.pits[PITS - 1])
    }

    fn far(&self) -> i32 {
        self.pits[..2].iter().map(|&c| i32::from(c)).sum()
    }

    fn lapping(&self) -> i32 {
        self.pits.iter().filter(|&&c| c >= 13).count() as i32
    }

    fn near_store(&self) -> i32 {
        self.pits[3..].iter().map(|&c| i32::from(c)).sum()
    }

    fn largest(&self) -> i32 {
        self.pits.iter().map(|&c| i32::from(c)).max().unwrap_or(0)
    }

    /// Stones in own pits whose facing pit in `opponent` is empty (pit i faces the
    /// opponent's pit 7 − i).
    fn facing_empty(&self, opponent: &Row) -> i32 {
        (0..PITS)
            .filter(|&i| opponent.pits[PITS - 1 - i] == 0)
            .map(|i| i32::from(self.pits[i]))
            .sum()
    }

    /// Stones each pit's sowing drops into the opponent's row: past the store, up to six
    /// a lap (the own row and store take the rest; the opponent's store is skipped).
    fn given_away(&self) -> i32 {
        (0..PITS)
            .map(|i| {
                let past_store = (self.pits[i] as usize).saturating_sub(Row::distance(i));
                // Each lap of 13 sown slots past the store is 6 opponent pits, then the
                // own row and store (7).
                let (laps, rest) = (past_store / 13, past_store % 13);
                (laps * PITS + rest.min(PITS)) as i32
            })
            .sum()
    }

    fn singles(&self) -> i32 {
        self.pits.iter().filter(|&&c| c == 1).count() as i32
    }

    /// Greedy chain of store-ending sowings without laps (the Tchoukaillon rule: sow the
    /// rightmost pit whose count equals its distance to the store).
    fn chain(&self) -> i32 {
        let mut pits = self.pits;
        let mut sowings = 0;
        while let Some(i) = (0..PITS)
            .rev()
            .find(|&i| pits[i] != 0 && pits[i] as usize == Row::distance(i))
        {
            let stones = pits[i] as usize;
            pits[i] = 0;
            for p in &mut pits[i + 1..i + stones] {
                *p += 1;
            }
            sowings += 1;
            if pits.iter().all(|&c| c == 0) {
                break;
            }
        }
        sowings
    }
}

/// What `side` could capture with one sowing now: (the most, the sum over its pits).
fn captures(pos: &Kalah, side: Side) -> (i32, i32) {
    let seen = pos.with_side_to_move(side);
    let (mut best, mut all) = (0, 0);
    for pit in 1..=PITS as u8 {
        if let Ok(sowing) = seen.sow(pit) {
            let taken = i32::from(sowing.captured);
            best = best.max(taken);
            all += taken;
        }
    }
    (best, all)
}

/// The features of one side (before differencing).
fn side_features(pos: &Kalah, side: Side) -> [i32; FEATURE_COUNT] {
    let own = Row {
        pits: pos.pits(side),
    };
    let opponent = Row {
        pits: pos.pits(side.opponent()),
    };
    let (best, all) = captures(pos, side);
    let half = pos.rules().total() / 2;
    [
        own.stones(),
        own.empty(),
        own.exact(),
        best,
        all,
        own.store_pit(),
        own.leaving(),
        own.far(),
        own.lapping(),
        own.near_store(),
        own.chain(),
        i32::from(u32::from(pos.store(side)) > half),
        own.largest(),
        own.facing_empty(&opponent),
        own.given_away(),
        own.singles(),
    ]
}

impl Features for Kalah {
    const FEATURE_SET_ID: &'static str = FEATURE_SET_ID;
    const RETIRED_SETS: &'static [(&'static str, &'static str)] =
        &[("kalah-samuel-v1", "configs/kalah-samuel.toml")];
    const FEATURE_NAMES: &'static [&'static str] = &FEATURE_NAMES;
    const ACTIVE: usize = ACTIVE;
    const FEATURE_DESCRIPTIONS: &'static [&'static str] = &FEATURE_DESCRIPTIONS;

    /// 100 centi-units a stone of store difference: Dubner's evaluation.
    #[inline]
    fn anchor(&self) -> i32 {
        100 * self.store_margin()
    }

    fn features(&self, out: &mut [i32]) {
        let own = side_features(self, self.side_to_move());
        let theirs = side_features(self, self.side_to_move().opponent());
        for ((slot, a), b) in out[..FEATURE_COUNT].iter_mut().zip(own).zip(theirs) {
            *slot = a - b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kalah::{A, B};

    fn features(text: &str) -> Vec<(&'static str, i32)> {
        let pos = Kalah::parse_position(text).unwrap();
        let mut out = [0; FEATURE_COUNT];
        pos.features(&mut out);
        FEATURE_NAMES
            .iter()
            .zip(out)
            .filter(|(_, v)| *v != 0)
            .map(|(n, v)| (*n, v))
            .collect()
    }

    #[test]
    fn the_start_is_symmetric() {
        assert!(features("A:6,6,6,6,6,6,0,6,6,6,6,6,6,0").is_empty());
        assert_eq!(Kalah::start().anchor(), 0);
        assert_eq!(FEATURE_DESCRIPTIONS.len(), FEATURE_NAMES.len());
    }

    #[test]
    fn features_of_a_hand_checked_position() {
        // A: pits 1..6 = 0,0,4,3,0,1 (store 30); B: 2,0,0,0,0,0 (store 32) — to move A.
        // A's pit 3 (4 stones) reaches the store exactly, and so does pit 6 (1 stone);
        // pit 4 (3 stones) is 3 from the store: exact too. A's pit 3 sown ends in the store,
        // no capture; B's pit 1 (2 stones) lands in its empty pit 3, facing A's pit 4 (3):
        // B captures 3 + 1.
        let got = features("A:0,0,4,3,0,1,30,2,0,0,0,0,0,32");
        let get = |name: &str| got.iter().find(|(n, _)| *n == name).map_or(0, |(_, v)| *v);
        assert_eq!(get("stones_on_side"), 8 - 2);
        assert_eq!(get("empty_pits"), 3 - 5);
        assert_eq!(get("exact_to_store"), 3);
        assert_eq!(get("best_capture"), -4);
        assert_eq!(get("store_pit"), 1);
        assert_eq!(get("far_stones"), -2);
        // Greedy chain for A: pit 6 (1), then pit 4 (3: 5, 6, store), then pit 6 and pit 5
        // again; B has none.
        assert!(get("extra_turn_chain") >= 3, "{got:?}");
        // Reserve features: A's fullest pit 4 against B's 2; A's pits 3 (4 stones) and 4
        // (3) face B's empty pits 4 and 3, B's only stones face A's non-empty pit 6; no
        // sowing passes a store; A's pit 6 holds a single stone.
        assert_eq!(get("largest_pit"), 2);
        assert_eq!(get("facing_empty"), 7);
        assert_eq!(get("given_away"), 0);
        assert_eq!(get("single_pits"), 1);
    }

    #[test]
    fn stones_given_away_and_single_pits() {
        // A: pit 1 holds 20 (6 to the store, then 6 into B's pits, B's store skipped, 7
        // round the own row and store, 1 more into B's pit 1: 7 given), pit 6 holds 9 (1 to
        // the store, 6 to B, 2 back home: 6 given). B's single stones in pits 1 and 2 stay
        // home. A's pit 1 faces B's empty pit 6; B's pit 2 faces A's empty pit 5.
        let got = features("A:20,0,0,0,0,9,10,1,1,0,0,0,0,31");
        let get = |name: &str| got.iter().find(|(n, _)| *n == name).map_or(0, |(_, v)| *v);
        assert_eq!(get("given_away"), 13);
        assert_eq!(get("single_pits"), -2);
        assert_eq!(get("largest_pit"), 19);
        assert_eq!(get("facing_empty"), 20 - 1);
    }

    #[test]
    fn features_are_antisymmetric() {
        let pos = Kalah::parse_position("A:0,0,4,3,0,1,30,2,0,0,0,0,0,32").unwrap();
        let mut a = [0; FEATURE_COUNT];
        let mut b = [0; FEATURE_COUNT];
        pos.features(&mut a);
        pos.with_side_to_move(B).features(&mut b);
        assert_eq!(a.map(|x| -x), b);
        assert_eq!(pos.anchor(), -pos.with_side_to_move(B).anchor());
        assert_eq!(pos.with_side_to_move(A).anchor(), -200);
    }
}
