//! The solver's transposition table: proven bounds on `V(pits)`, keyed on the pits alone.
//!
//! The solver searches to the end of the game, so a bound is true whatever search proved
//! it: entries carry no depth, and a store for pits already held *merges* the bounds
//! (highest lower, lowest upper). The key is the twelve counts themselves, so two
//! positions never share an entry by a hash collision — a solver must not be fooled.
//!
//! Entries are 16 bytes, four to a 64-byte bucket (one cache line). **Replacement**: a
//! store for pits already in the bucket merges into them; otherwise it takes an empty slot,
//! else the slot whose subtree cost the least work (log₂ of its nodes), which is the
//! cheapest to find again.

use super::board::Pits;

/// No best move stored.
const NO_MOVE: u8 = u8::MAX;
/// Entries in a bucket.
const WAYS: usize = 4;

#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Entry {
    pits: Pits,
    lower: i8,
    upper: i8,
    /// Index of the best move in generation order, [`NO_MOVE`] if unknown.
    best: u8,
    /// log₂ of the nodes the proof took, plus one; 0 marks an empty slot.
    work: u8,
}

#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Bucket([Entry; WAYS]);

/// What the table knows about some pits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Bounds {
    pub lower: i32,
    pub upper: i32,
    /// Index of the best move found, in generation order.
    pub best: Option<usize>,
}

pub struct BoundTable {
    buckets: Vec<Bucket>,
}

impl BoundTable {
    /// Bytes per entry.
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

    /// A table of at most `mib` MiB (a power-of-two number of buckets, at least one).
    pub fn new(mib: usize) -> Self {
        let bytes = mib.saturating_mul(1 << 20);
        let mut buckets = 1usize;
        while buckets
            .checked_mul(2 * std::mem::size_of::<Bucket>())
            .is_some_and(|b| b <= bytes)
        {
            buckets *= 2;
        }
        BoundTable {
            buckets: vec![Bucket::default(); buckets],
        }
    }

    /// Number of entries.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * WAYS
    }

    /// Bytes allocated.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Entries in use.
    pub fn used(&self) -> usize {
        self.buckets
            .iter()
            .flat_map(|b| b.0.iter())
            .filter(|e| e.work != 0)
            .count()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.buckets.fill(Bucket::default());
    }

    /// The bucket of `pits`: the counts as two words mixed by folded multiplies.
    #[inline(always)]
    fn bucket(&self, pits: &Pits) -> usize {
        let low = u64::from_le_bytes([
            pits[0], pits[1], pits[2], pits[3], pits[4], pits[5], pits[6], pits[7],
        ]);
        let high = u32::from_le_bytes([pits[8], pits[9], pits[10], pits[11]]) as u64;
        let mix = |a: u64, b: u64| {
            let product = (a as u128) * (b as u128);
            (product as u64) ^ ((product >> 64) as u64)
        };
        let hash = mix(low ^ 0xA076_1D64_78BD_642F, high ^ 0xE703_7ED1_A0B4_28DB);
        (hash >> 20) as usize & (self.buckets.len() - 1)
    }

    /// The bounds stored for `pits`, if any.
    #[inline]
    pub fn probe(&self, pits: &Pits) -> Option<Bounds> {
        let bucket = &self.buckets[self.bucket(pits)];
        let entry = bucket.0.iter().find(|e| e.work != 0 && e.pits == *pits)?;
        Some(Bounds {
            lower: i32::from(entry.lower),
            upper: i32::from(entry.upper),
            best: (entry.best != NO_MOVE).then_some(entry.best as usize),
        })
    }

    /// Records that `lower ≤ V(pits) ≤ upper`, proven by a search of `nodes` nodes that
    /// found `best` (an index in generation order) best.
    #[inline]
    pub fn store(&mut self, pits: &Pits, lower: i32, upper: i32, best: Option<usize>, nodes: u64) {
        let index = self.bucket(pits);
        let bucket = &mut self.buckets[index];
        let work = (64 - nodes.leading_zeros()) as u8 + 1;
        let best = best
            .filter(|&b| b < NO_MOVE as usize)
            .map_or(NO_MOVE, |b| b as u8);
        if let Some(entry) = bucket.0.iter_mut().find(|e| e.work != 0 && e.pits == *pits) {
            entry.lower = entry.lower.max(lower as i8);
            entry.upper = entry.upper.min(upper as i8);
            if best != NO_MOVE {
                entry.best = best;
            }
            entry.work = entry.work.max(work);
            return;
        }
        let victim = bucket
            .0
            .iter_mut()
            .min_by_key(|e| e.work)
            .expect("a bucket has entries");
        *victim = Entry {
            pits: *pits,
            lower: lower as i8,
            upper: upper as i8,
            best,
            work,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_merge_and_keys_are_exact() {
        let mut table = BoundTable::new(1);
        assert_eq!(BoundTable::ENTRY_BYTES, 16);
        let pits = [1, 2, 3, 0, 0, 0, 4, 0, 0, 0, 0, 1];
        assert_eq!(table.probe(&pits), None);
        table.store(&pits, -5, 11, Some(3), 100);
        table.store(&pits, 1, 20, None, 10);
        let hit = table.probe(&pits).unwrap();
        assert_eq!((hit.lower, hit.upper, hit.best), (1, 11, Some(3)));
        let mut other = pits;
        other[11] = 2;
        assert_eq!(table.probe(&other), None);
        assert_eq!(table.used(), 1);
        table.clear();
        assert_eq!(table.used(), 0);
    }

    #[test]
    fn a_full_bucket_drops_the_cheapest_entry() {
        let mut table = BoundTable::new(0);
        assert_eq!(table.capacity(), WAYS);
        for n in 0..WAYS as u8 {
            table.store(&[n + 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], 0, 0, None, 1000);
        }
        table.store(&[1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], 0, 0, None, 1);
        table.store(&[2, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], 0, 0, None, 5);
        assert!(table.probe(&[1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]).is_none());
        assert!(table.probe(&[2, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]).is_some());
        assert_eq!(table.used(), WAYS);
    }
}
