//! The endgame database: `V(pits)` for every pit configuration with at most N stones in
//! the pits, whatever the stores hold and whoever moves (pits are turned to the side to
//! move, so one table serves both sides).
//!
//! **Index.** A configuration `c_0..c_11` with `t` stones is the 12-subset
//! `{s_k + k}` of the naturals, `s_k = c_0 + … + c_k`; its rank in the combinatorial
//! number system, `Σ_k C(s_k + k, k + 1)`, numbers the configurations with at most N
//! stones `0..C(N + 12, 12)` without a gap, fewer stones first (the `k = 11` term is
//! `C(t + 11, 12)`, the count of configurations with fewer than `t` stones). The index
//! does not depend on N, so a table for N holds the one for every smaller N as a prefix.
//!
//! **Build.** By stone count, bottom-up: a sowing never adds stones to the pits, and one
//! that ends in the store or captures or passes the store removes some, so a level only
//! needs lower levels — except for sowings that stay in the mover's own row. Those move
//! stones forward, so `Σ pit number × stones` (each row counted from its owner's pit 1)
//! grows with each of them and no chain of them comes back: the values within a level are
//! filled by memoised recursion along such chains. The recursion goes one *sowing* at a
//! time (the same side sows again after a store ending), not one compound move, so a
//! position costs at most six sowings however many compound moves it has.
//!
//! The levels are split into chunks computed in parallel; each value is a function of the
//! configuration alone, so the table does not depend on the number of threads or on which
//! thread computes a value first (two threads may both compute one; they store the same).

use std::sync::atomic::{AtomicBool, AtomicI8, Ordering::Relaxed};

use rayon::prelude::*;

use super::board::{AfterSowing, Pits, final_value, sow_once, stones};
use crate::games::kalah::{KalahRules, PITS};

/// The largest database built: `C(38, 12)` ≈ 2.7e9 configurations, one byte each.
pub const MAX_DB_STONES: u32 = 26;
/// Pits in a configuration.
const CELLS: usize = 2 * PITS;
/// A value not computed yet (values are within ±stones, far from it).
const UNKNOWN: i8 = i8::MIN;
/// Configurations one parallel task computes: big enough that unranking its first one
/// is negligible, small enough to spread a level over the threads.
const CHUNK: u64 = 1 << 15;

/// Rows of the binomial table: `s_k + k` reaches `MAX_DB_STONES + 11`.
const BINOMIAL_ROWS: usize = MAX_DB_STONES as usize + CELLS + 1;

/// `BINOMIAL[n][k]` = C(n, k) for k ≤ 12.
const BINOMIAL: [[u64; CELLS + 1]; BINOMIAL_ROWS] = {
    let mut table = [[0; CELLS + 1]; BINOMIAL_ROWS];
    let mut n = 0;
    while n < BINOMIAL_ROWS {
        table[n][0] = 1;
        let mut k = 1;
        while k <= CELLS && n > 0 {
            table[n][k] = table[n - 1][k - 1] + table[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    table
};

/// Configurations with at most `stones` stones: C(stones + 12, 12).
pub const fn configurations(stones: u32) -> u64 {
    BINOMIAL[stones as usize + CELLS][CELLS]
}

/// The index of a configuration of at most [`MAX_DB_STONES`] stones (see the module docs).
#[inline(always)]
pub fn rank(pits: &Pits) -> u64 {
    let mut prefix = 0;
    let mut index = 0;
    for (k, &count) in pits.iter().enumerate() {
        prefix += count as usize;
        index += BINOMIAL[prefix + k][k + 1];
    }
    index
}

/// The configuration of index `index` (the inverse of [`rank`]); `index` must be below
/// `configurations(MAX_DB_STONES)`.
pub fn unrank(mut index: u64) -> Pits {
    // Recover the subset {x_k = s_k + k}, largest element first.
    let mut x = [0usize; CELLS];
    for k in (0..CELLS).rev() {
        let mut v = k;
        while v + 1 < BINOMIAL_ROWS && BINOMIAL[v + 1][k + 1] <= index {
            v += 1;
        }
        x[k] = v;
        index -= BINOMIAL[v][k + 1];
    }
    let mut pits = [0; CELLS];
    pits[0] = x[0] as u8;
    for k in 1..CELLS {
        pits[k] = (x[k] - x[k - 1] - 1) as u8;
    }
    pits
}

/// Steps to the configuration of the next index with the same stone count (the colex
/// successor of the subset); false after the last one.
#[inline(always)]
pub fn next_same_total(pits: &mut Pits) -> bool {
    let Some(j) = (0..CELLS - 1).find(|&j| pits[j + 1] > 0) else {
        return false;
    };
    let below: u8 = pits[..=j].iter().sum();
    pits[..j].fill(0);
    pits[j] = below + 1;
    pits[j + 1] -= 1;
    true
}

/// The name of a capture rule: the only rule the values depend on.
pub fn rule_name(rules: KalahRules) -> &'static str {
    if rules.empty_capture {
        "empty-capture"
    } else {
        "standard"
    }
}

/// `V(pits)` for every configuration with at most [`EndgameDb::stones`] stones.
pub struct EndgameDb {
    rules: KalahRules,
    stones: u32,
    values: Vec<AtomicI8>,
}

impl EndgameDb {
    /// Builds the database of every configuration with at most `stones` stones under
    /// `rules` (only its capture rule matters: the stones a pit started with do not).
    ///
    /// # Panics
    /// If `stones` is above [`MAX_DB_STONES`] (callers check user input first).
    pub fn build(rules: KalahRules, stones: u32) -> EndgameDb {
        let never = AtomicBool::new(false);
        let (db, _) = EndgameDb::build_until(rules, stones, &never);
        db
    }

    /// Builds as [`EndgameDb::build`] does until `stop` is raised (looked at between
    /// chunks of a level): the database and the number of stone counts (levels, from 0)
    /// complete in it, `stones + 1` when the build finished.
    pub fn build_until(rules: KalahRules, stones: u32, stop: &AtomicBool) -> (EndgameDb, u32) {
        assert!(stones <= MAX_DB_STONES, "database of {stones} stones");
        let size = configurations(stones) as usize;
        let db = EndgameDb {
            rules,
            stones,
            values: (0..size).map(|_| AtomicI8::new(UNKNOWN)).collect(),
        };
        for level in 0..=stones {
            if !db.build_level(level, stop) {
                return (db, level);
            }
        }
        (db, stones + 1)
    }

    /// A database from its values in index order (as [`EndgameDb::to_bytes`] gave
    /// them, read back from a file): checked for length and range, never panics.
    pub fn from_bytes(rules: KalahRules, stones: u32, bytes: &[u8]) -> Result<EndgameDb, String> {
        if stones > MAX_DB_STONES {
            return Err(format!("{stones} stones, more than {MAX_DB_STONES}"));
        }
        if bytes.len() as u64 != configurations(stones) {
            return Err(format!(
                "{} values, but a database of {stones} stones has {}",
                bytes.len(),
                configurations(stones)
            ));
        }
        // |V| never exceeds the stones in the pits.
        if let Some(at) = bytes
            .iter()
            .position(|&b| (b as i8).unsigned_abs() as u32 > stones)
        {
            return Err(format!(
                "value {} at index {at} is out of range",
                bytes[at] as i8
            ));
        }
        Ok(EndgameDb {
            rules,
            stones,
            values: bytes.iter().map(|&b| AtomicI8::new(b as i8)).collect(),
        })
    }

    /// The values in index order, one byte each (two's complement).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.values.iter().map(|v| v.load(Relaxed) as u8).collect()
    }

    /// The capture rule's name (`standard` or `empty-capture`), as files name it.
    pub fn rule_name(&self) -> &'static str {
        rule_name(self.rules)
    }

    /// Most stones in the pits of a configuration the database holds.
    pub const fn stones(&self) -> u32 {
        self.stones
    }

    /// Configurations held (one byte each).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True for the database of no stones at all (it still holds the empty board).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// True if the database's values hold under `rules` (same capture rule).
    pub fn serves(&self, rules: KalahRules) -> bool {
        self.rules.empty_capture == rules.empty_capture
    }

    /// `V(pits)`: the margin the side to move banks from here on under perfect play, or
    /// `None` if the pits hold more stones than the database.
    #[inline(always)]
    pub fn value(&self, pits: &Pits) -> Option<i32> {
        (stones(pits) <= self.stones).then(|| self.stored(pits))
    }

    /// The value of a configuration known to be in the table and computed.
    #[inline(always)]
    pub(super) fn stored(&self, pits: &Pits) -> i32 {
        let value = self.values[rank(pits) as usize].load(Relaxed);
        debug_assert_ne!(value, UNKNOWN, "{pits:?}");
        i32::from(value)
    }

    /// Fills every configuration of `level` stones, in parallel chunks.
    /// False if `stop` was raised before the level was complete.
    fn build_level(&self, level: u32, stop: &AtomicBool) -> bool {
        let first = if level == 0 {
            0
        } else {
            configurations(level - 1)
        };
        let end = configurations(level);
        let chunks = (end - first).div_ceil(CHUNK);
        (0..chunks).into_par_iter().for_each(|chunk| {
            if stop.load(Relaxed) {
                return;
            }
            let start = first + chunk * CHUNK;
            let stop = (start + CHUNK).min(end);
            let mut pits = unrank(start);
            for index in start..stop {
                if self.values[index as usize].load(Relaxed) == UNKNOWN {
                    let value = self.compute(&pits);
                    self.values[index as usize].store(value, Relaxed);
                }
                next_same_total(&mut pits);
            }
        });
        !stop.load(Relaxed)
    }

    /// `V(pits)` from the values of what one sowing leads to. The successors are ranked
    /// first and read after, so the (mostly cache-missing) reads overlap.
    fn compute(&self, pits: &Pits) -> i8 {
        if let Some(value) = final_value(pits) {
            return value as i8;
        }
        // (index of the successor, banked, +1 same side sows again / −1 turn passes).
        let mut successors = [(0u64, 0i32, 0i32); PITS];
        let mut count = 0;
        let mut best = i32::MIN;
        for pit in 0..PITS {
            if pits[pit] == 0 {
                continue;
            }
            let (banked, after) = sow_once(pits, self.rules, pit);
            let (next, sign) = match after {
                AfterSowing::SowsAgain(next) => (next, 1),
                AfterSowing::TurnPasses(next) => (next, -1),
                AfterSowing::GameOver => {
                    best = best.max(banked);
                    continue;
                }
            };
            successors[count] = (rank(&next), banked, sign);
            count += 1;
        }
        for &(index, banked, sign) in &successors[..count] {
            best = best.max(banked + sign * self.value_during_build(index));
        }
        best as i8
    }

    /// The value of a successor: stored, or (same level, reached by sowings within a
    /// row) computed now and stored.
    fn value_during_build(&self, index: u64) -> i32 {
        let slot = &self.values[index as usize];
        let value = slot.load(Relaxed);
        if value != UNKNOWN {
            return i32::from(value);
        }
        let value = self.compute(&unrank(index));
        slot.store(value, Relaxed);
        i32::from(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_numbers_small_configurations_without_gaps() {
        let mut seen = vec![false; configurations(4) as usize];
        for index in 0..configurations(4) {
            let pits = unrank(index);
            assert_eq!(rank(&pits), index, "{pits:?}");
            assert!(!seen[index as usize]);
            seen[index as usize] = true;
        }
        assert_eq!(configurations(0), 1);
        assert_eq!(configurations(1), 13);
        assert_eq!(configurations(20), 225_792_840);
    }

    #[test]
    fn next_follows_the_index_within_a_level() {
        for level in [1u32, 3, 7] {
            let mut pits = unrank(configurations(level - 1));
            let mut index = configurations(level - 1);
            loop {
                assert_eq!(rank(&pits), index);
                assert_eq!(stones(&pits), level);
                index += 1;
                if !next_same_total(&mut pits) {
                    break;
                }
            }
            assert_eq!(index, configurations(level));
        }
        let big = [3, 0, 1, 7, 2, 0, 4, 1, 0, 0, 5, 3];
        assert_eq!(unrank(rank(&big)), big);
        let top = [MAX_DB_STONES as u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(rank(&top), configurations(MAX_DB_STONES) - 1);
        assert_eq!(unrank(rank(&top)), top);
    }
}
