//! The three hand-made Kalah evaluations of Dubner's Kalah program (its section 5),
//! from the side to move's point of view, in centi-units of a stone:
//!
//! - `stores`: the difference of the stores — Dubner's program's `estimate`, the baseline
//!   learned Kalah models are measured against;
//! - `activity`: P. Rechenberg's `W = Ka·Da − Kb·Db` (the store times the sum of the pits'
//!   activities, [`pit_activity`]), taken as centi-units as it stands;
//! - `tseitin`: G. S. Tseitin's `W = (Ka + 17.3/(37 − Ka) − 40/Da) − (Kb + 17.3/(37 − Kb) −
//!   40/Db)` as Dubner writes it, in stones (×100).
//!
//! `Ka`, `Kb` are the stores, `Da`, `Db` the sums of the pit activities of the side to move
//! and of the opponent. Tseitin's 37 is one more than half the stones of Kalah(6,6); for
//! other stone counts it is half the total plus one. A store above half the stones has
//! won: the formula's pole there is replaced by a decided value.

use crate::eval::{EVAL_LIMIT, Evaluator};
use crate::game::Game;
use crate::games::kalah::{Kalah, PITS};

/// A hand-made Kalah evaluation, chosen by name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KalahEval {
    Stores,
    Activity,
    Tseitin,
}

/// Most stones a pit can hold (Kalah(6,6) has 72 in all).
const MAX_COUNT: usize = 72;

/// Slots a sowing passes in one lap: own pits, own store, opponent's pits.
const SLOTS: usize = 13;

/// `ACTIVITY[i][c]`: the activity of a pit with index `i` (0..6, pit `i + 1`) holding
/// `c` stones.
const ACTIVITY: [[i32; MAX_COUNT + 1]; PITS] = {
    let mut table = [[0; MAX_COUNT + 1]; PITS];
    let mut i = 0;
    while i < PITS {
        let mut c = 1;
        while c <= MAX_COUNT {
            let (mut own, mut theirs) = (0, 0);
            let mut k = 1;
            while k <= c {
                let slot = (i + k) % SLOTS;
                if slot < PITS {
                    own += 1;
                } else if slot > PITS {
                    theirs += 1;
                }
                k += 1;
            }
            table[i][c] = own - theirs + 7;
            c += 1;
        }
        i += 1;
    }
    table
};

/// A pit's activity (Dubner, after Rechenberg): the stones its sowing puts in the
/// owner's pits (not the store) minus the stones it puts in the opponent's pits, plus 7;
/// 0 for an empty pit. `pit` is 1..=6.
pub fn pit_activity(pit: u8, stones: u8) -> i32 {
    ACTIVITY[(pit as usize - 1).min(PITS - 1)][(stones as usize).min(MAX_COUNT)]
}

/// The sum of the activities of a row of pits (pit 1 first).
fn row_activity(pits: &[u8; PITS]) -> i32 {
    (1..=PITS as u8)
        .zip(pits)
        .map(|(pit, &stones)| pit_activity(pit, stones))
        .sum()
}

/// Centi-units of a decided position (a store above half the stones): beyond any
/// undecided Tseitin value, below [`EVAL_LIMIT`].
const DECIDED: i32 = EVAL_LIMIT / 2;

/// Tseitin's per-side term `K + 17.3/(H + 1 − K) − 40/D`, for `K ≤ H`.
fn tseitin_term(store: u8, activity: i32, half: u32) -> f64 {
    let k = f64::from(store);
    let d = f64::from(activity.max(1));
    k + 17.3 / (f64::from(half + 1) - k) - 40.0 / d
}

impl Evaluator<Kalah> for KalahEval {
    #[inline]
    fn evaluate(&self, pos: &Kalah) -> i32 {
        let own = pos.side_to_move();
        let (ka, kb) = (pos.store(own), pos.store(own.opponent()));
        let value = match self {
            KalahEval::Stores => 100 * (i32::from(ka) - i32::from(kb)),
            KalahEval::Activity => {
                let da = row_activity(&pos.pits(own));
                let db = row_activity(&pos.pits(own.opponent()));
                i32::from(ka) * da - i32::from(kb) * db
            }
            KalahEval::Tseitin => {
                let half = pos.rules().total() / 2;
                let margin = 100 * (i32::from(ka) - i32::from(kb));
                if u32::from(ka) > half {
                    DECIDED + margin
                } else if u32::from(kb) > half {
                    -DECIDED + margin
                } else {
                    let da = row_activity(&pos.pits(own));
                    let db = row_activity(&pos.pits(own.opponent()));
                    let w = tseitin_term(ka, da, half) - tseitin_term(kb, db, half);
                    (100.0 * w).round() as i32
                }
            }
        };
        value.clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    fn name(&self) -> String {
        match self {
            KalahEval::Stores => "stores",
            KalahEval::Activity => "activity",
            KalahEval::Tseitin => "tseitin",
        }
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::EvalGame;
    use crate::games::kalah::{A, B};

    fn pos(text: &str) -> Kalah {
        Kalah::parse_position(text).unwrap()
    }

    #[test]
    fn pit_activity_follows_the_seed() {
        // Pit 1 with 6 stones: pits 2..6 (5 own), then the store: 5 − 0 + 7.
        assert_eq!(pit_activity(1, 6), 12);
        // Pit 6 with 3 stones: store, then B's pits 1 and 2: 0 − 2 + 7.
        assert_eq!(pit_activity(6, 3), 5);
        // Pit 3 with 13 stones: one whole lap, 6 own (its own pit last), 6 opponent's.
        assert_eq!(pit_activity(3, 13), 7);
        assert_eq!(pit_activity(4, 0), 0);
        // Every non-empty pit is positive, as the +7 intends.
        for pit in 1..=6 {
            for stones in 1..=72 {
                assert!(pit_activity(pit, stones) > 0, "pit {pit}, {stones} stones");
            }
        }
    }

    #[test]
    fn stores_is_the_difference_for_the_side_to_move() {
        let p = pos("A:0,7,7,7,7,7,5,6,6,6,6,5,0,3");
        assert_eq!(KalahEval::Stores.evaluate(&p), 200);
        assert_eq!(KalahEval::Stores.evaluate(&p.with_side_to_move(B)), -200);
        assert_eq!(KalahEval::Stores.evaluate(&Kalah::start()), 0);
    }

    #[test]
    fn activity_and_tseitin_are_antisymmetric_and_zero_at_the_start() {
        for eval in [KalahEval::Activity, KalahEval::Tseitin] {
            assert_eq!(eval.evaluate(&Kalah::start()), 0, "{eval:?}");
        }
        let p = pos("A:0,7,7,7,7,7,5,6,6,6,6,5,0,3");
        let swapped = pos("B:6,6,6,6,5,0,3,0,7,7,7,7,7,5");
        for eval in [KalahEval::Activity, KalahEval::Tseitin] {
            assert_eq!(eval.evaluate(&p), eval.evaluate(&swapped), "{eval:?}");
        }
        // Rechenberg: A's store 5 × A's activity − B's store 3 × B's activity.
        let da: i32 = (1..=6).map(|n| pit_activity(n, p.pit(A, n))).sum();
        let db: i32 = (1..=6).map(|n| pit_activity(n, p.pit(B, n))).sum();
        assert_eq!(KalahEval::Activity.evaluate(&p), 5 * da - 3 * db);
        // Tseitin by hand.
        let term = |k: f64, d: i32| k + 17.3 / (37.0 - k) - 40.0 / d as f64;
        let w = term(5.0, da) - term(3.0, db);
        assert_eq!(KalahEval::Tseitin.evaluate(&p), (100.0 * w).round() as i32);
    }

    #[test]
    fn a_decided_store_is_a_large_value() {
        let won = pos("A:1,0,0,0,0,1,40,1,1,0,0,0,0,28");
        assert!(KalahEval::Tseitin.evaluate(&won) >= DECIDED);
        assert!(KalahEval::Tseitin.evaluate(&won.with_side_to_move(B)) <= -DECIDED);
    }

    #[test]
    fn names_round_trip() {
        for &name in Kalah::BUILTINS {
            assert_eq!(Kalah::builtin(name).unwrap().name(), name);
        }
        assert!(Kalah::builtin("material").is_none());
    }
}
