//! Transposition table: what earlier visits learned about a position, shared by all the
//! threads of a search.
//!
//! Entries are 16 bytes (full 64-bit key, value, bound, depth, best move as its index in
//! the generated move list, search generation), four to a 64-byte bucket (one cache
//! line). **Replacement policy**: a store for a key already in the bucket overwrites it;
//! otherwise it takes an empty slot or one left by an earlier search; otherwise it
//! replaces the shallowest entry of the bucket.
//!
//! **Shared without locks** (Lazy SMP: the threads of one search probe and store the same
//! entries): an entry is two 64-bit words, its data and its key xor its data, each read
//! and written atomically, the pair not. A thread may read one word of one store and the
//! other of another (a torn entry); the key it recovers (the xor of the two words) is
//! then another key, so the entry is a miss, never a hit under a wrong key (as with any
//! 64-bit hash, a false match is as likely as a collision, 2⁻⁶⁴). A store that races with
//! another may leave either, or a torn entry that nothing matches: a lost entry, which a
//! table may lose anyway. The best move is an index that the search checks against the
//! position's move list before playing it.
//!
//! A new game starts a new generation ([`TranspositionTable::new_search`]), and entries of
//! older generations count as empty for probes and stores alike: the search behaves
//! exactly as with a cleared table, while starting costs nothing. Between the moves of
//! one game the entries stay ([`TranspositionTable::next_move`]); each records which move
//! stored it, and when a bucket is full the entries of earlier moves go first. The
//! searcher that made the table keeps its generation; the helpers' handles
//! ([`TranspositionTable::share`]) take it up ([`TranspositionTable::sync`]) as each
//! search starts.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// What a stored value means relative to the true value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The true value is at most the stored one (every move failed low).
    Upper,
    /// The true value is at least the stored one (a move failed high).
    Lower,
    Exact,
}

/// No best move stored.
const NO_MOVE: u16 = u16::MAX;

/// The depth of a result that no static value went into: every line below it ended the
/// game, so it holds at any depth (searches never reach this many plies).
pub const RESOLVED: u32 = u8::MAX as u32;

/// An entry to store: its key and what its data word packs.
struct Entry {
    key: u64,
    value: i16,
    generation: u16,
    depth: u8,
    /// Bits 0–1: 0 = empty, then Upper, Lower, Exact; bits 2–7: the move of the game
    /// (its search, modulo 64) that stored the entry.
    flags: u8,
    best: u16,
}

impl Entry {
    /// The data word: value, generation, depth, flags and best move, low bits first.
    #[inline(always)]
    fn data(&self) -> u64 {
        u64::from(self.value as u16)
            | u64::from(self.generation) << 16
            | u64::from(self.depth) << 32
            | u64::from(self.flags) << 40
            | u64::from(self.best) << 48
    }
}

/// The depth of a data word (see [`Entry::data`]).
#[inline(always)]
fn depth_of(data: u64) -> u8 {
    (data >> 32) as u8
}

/// The flags of a data word.
#[inline(always)]
fn flags_of(data: u64) -> u8 {
    (data >> 40) as u8
}

/// An entry in the table: the key xor the data, and the data.
#[derive(Default)]
#[repr(C)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    /// The entry's key, recovered from the two words (another key if they come from two
    /// stores), and its data.
    #[inline(always)]
    fn load(&self) -> (u64, u64) {
        let data = self.data.load(Ordering::Relaxed);
        (self.check.load(Ordering::Relaxed) ^ data, data)
    }

    #[inline(always)]
    fn store(&self, entry: &Entry) {
        let data = entry.data();
        self.check.store(entry.key ^ data, Ordering::Relaxed);
        self.data.store(data, Ordering::Relaxed);
    }

    fn clear(&self) {
        self.check.store(0, Ordering::Relaxed);
        self.data.store(0, Ordering::Relaxed);
    }
}

#[derive(Default)]
#[repr(C, align(64))]
struct Bucket([Slot; 4]);

/// A probe hit.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Hit {
    pub value: i32,
    pub bound: Bound,
    pub depth: u32,
    /// Index of the best move in the position's generated move list.
    pub best: Option<usize>,
}

/// A handle to a table: the entries (shared with the handles [`TranspositionTable::share`]
/// makes) and the generation and age this handle's searcher probes and stores with.
pub struct TranspositionTable {
    buckets: Arc<[Bucket]>,
    /// The generation and age of the table's searches (generation << 8 | age), set by the
    /// handle that made the table and taken up by the others.
    stamp: Arc<AtomicU32>,
    generation: u16,
    /// The search within the generation, modulo 64, shifted into place in `flags`.
    age: u8,
}

const BOUND_BITS: u8 = 0b11;
const AGE_STEP: u8 = 1 << 2;

impl TranspositionTable {
    /// Bytes per entry.
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Slot>();

    /// A table of at most `mib` MiB (rounded down to a power-of-two number of buckets,
    /// at least one).
    pub fn new(mib: usize) -> Self {
        let bytes = mib.saturating_mul(1 << 20);
        let mut buckets = 1usize;
        while buckets * 2 * std::mem::size_of::<Bucket>() <= bytes {
            buckets *= 2;
        }
        let table = TranspositionTable {
            buckets: (0..buckets).map(|_| Bucket::default()).collect(),
            stamp: Arc::new(AtomicU32::new(0)),
            generation: 1,
            age: 0,
        };
        table.publish();
        table
    }

    /// Another handle to the same entries, for a helper thread of the same search.
    pub fn share(&self) -> TranspositionTable {
        TranspositionTable {
            buckets: Arc::clone(&self.buckets),
            stamp: Arc::clone(&self.stamp),
            generation: self.generation,
            age: self.age,
        }
    }

    /// Takes up the generation and age the table's maker set for the search starting.
    pub fn sync(&mut self) {
        let stamp = self.stamp.load(Ordering::Acquire);
        self.generation = (stamp >> 8) as u16;
        self.age = stamp as u8;
    }

    fn publish(&self) {
        let stamp = u32::from(self.generation) << 8 | u32::from(self.age);
        self.stamp.store(stamp, Ordering::Release);
    }

    /// Number of entries.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * 4
    }

    /// Starts a new search: every entry stored so far counts as empty from now on.
    pub fn new_search(&mut self) {
        self.age = 0;
        if self.generation == u16::MAX {
            self.buckets.iter().flat_map(|b| &b.0).for_each(Slot::clear);
            self.generation = 1;
        } else {
            self.generation += 1;
        }
        self.publish();
    }

    /// Starts the search of the next move of the same game: the entries stay, and those
    /// stored until now are the first replaced.
    pub fn next_move(&mut self) {
        self.age = self.age.wrapping_add(AGE_STEP) & !BOUND_BITS;
        self.publish();
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> usize {
        // The top bits pick the bucket; the low bits are mixed into them by the hash.
        (key >> 32) as usize & (self.buckets.len() - 1)
    }

    /// Asks the CPU to start loading `key`'s bucket, so a probe shortly after does not
    /// wait for memory (the table is far larger than the caches).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket: *const Bucket = &self.buckets[self.bucket(key)];
            // SAFETY: a prefetch is only a hint: it never faults and reads nothing into
            // the program, and the address is that of a live bucket of this table. It is
            // here because `evalearn bench` measured the search 14% faster with it
            // (0.86 s → 0.74 s median of 5 on the bench positions at depth 14).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>()) };
        }
    }

    /// Whether an entry's data says it holds a result of this generation.
    #[inline(always)]
    fn live(&self, data: u64) -> bool {
        const GENERATION: u64 = 0xffff << 16;
        const BOUND: u64 = (BOUND_BITS as u64) << 40;
        data & GENERATION == u64::from(self.generation) << 16 && data & BOUND != 0
    }

    // Inlined into the search's nodes and enhanced cutoffs: out of line it cost 2% more
    // of the bench's instructions (measured).
    #[inline(always)]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        let bucket = &self.buckets[self.bucket(key)];
        let data = bucket.0.iter().find_map(|slot| {
            let (found, data) = slot.load();
            (found == key && self.live(data)).then_some(data)
        })?;
        let best = (data >> 48) as u16;
        Some(Hit {
            value: data as u16 as i16 as i32,
            bound: match flags_of(data) & BOUND_BITS {
                1 => Bound::Upper,
                2 => Bound::Lower,
                _ => Bound::Exact,
            },
            depth: depth_of(data) as u32,
            best: (best != NO_MOVE).then_some(best as usize),
        })
    }

    /// Stores a result; `value` must fit in an i16 (search scores do).
    #[inline]
    pub fn store(&self, key: u64, value: i32, bound: Bound, depth: u32, best: Option<usize>) {
        let slots = &self.buckets[self.bucket(key)].0;
        let age = self.age;
        let data_of = |i: usize| slots[i].data.load(Ordering::Relaxed);
        let same = (0..4).find(|&i| {
            let (found, data) = slots[i].load();
            found == key && self.live(data)
        });
        let slot = same
            .or_else(|| (0..4).find(|&i| !self.live(data_of(i))))
            // Entries of earlier moves first, then the shallowest.
            .or_else(|| {
                (0..4).min_by_key(|&i| {
                    let data = data_of(i);
                    (flags_of(data) & !BOUND_BITS == age, depth_of(data))
                })
            })
            .unwrap_or(0);
        slots[slot].store(&Entry {
            key,
            value: value.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            generation: self.generation,
            depth: depth.min(u8::MAX as u32) as u8,
            flags: age
                | match bound {
                    Bound::Upper => 1,
                    Bound::Lower => 2,
                    Bound::Exact => 3,
                },
            best: best.map_or(NO_MOVE, |i| i.min(NO_MOVE as usize - 1) as u16),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn entries_are_sixteen_bytes_four_to_a_cache_line() {
        assert_eq!(TranspositionTable::ENTRY_BYTES, 16);
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
        assert_eq!(TranspositionTable::new(1).capacity(), (1 << 20) / 16);
        assert_eq!(TranspositionTable::new(0).capacity(), 4);
    }

    #[test]
    fn store_probe_and_new_search_forgets() {
        let mut tt = TranspositionTable::new(1);
        tt.store(42, -17, Bound::Lower, 6, Some(3));
        assert_eq!(
            tt.probe(42),
            Some(Hit {
                value: -17,
                bound: Bound::Lower,
                depth: 6,
                best: Some(3)
            })
        );
        assert_eq!(tt.probe(43), None);
        tt.new_search();
        assert_eq!(tt.probe(42), None);
    }

    #[test]
    fn a_torn_entry_is_a_miss_not_a_hit_under_a_wrong_key() {
        let tt = TranspositionTable::new(0);
        tt.store(7, 100, Bound::Exact, 9, Some(1));
        let slot = &tt.buckets[0].0[0];
        let first = (
            slot.check.load(Ordering::Relaxed),
            slot.data.load(Ordering::Relaxed),
        );
        tt.store(7, -3, Bound::Lower, 2, Some(0));
        // Another store's data word beside the first store's check word, either way.
        slot.check.store(first.0, Ordering::Relaxed);
        assert_eq!(tt.probe(7), None);
        slot.data.store(first.1, Ordering::Relaxed);
        assert_eq!(tt.probe(7).map(|hit| hit.value), Some(100));
    }

    #[test]
    fn a_full_bucket_loses_its_shallowest_entry() {
        let tt = TranspositionTable::new(0);
        for (key, depth) in [(1u64, 5), (2, 2), (3, 7), (4, 4)] {
            tt.store(key, 0, Bound::Exact, depth, None);
        }
        tt.store(5, 0, Bound::Exact, 1, None);
        assert!(tt.probe(2).is_none());
        for key in [1, 3, 4, 5] {
            assert!(tt.probe(key).is_some(), "{key}");
        }
    }

    #[test]
    fn entries_stay_for_the_next_move_and_go_first() {
        let mut tt = TranspositionTable::new(0);
        for (key, depth) in [(1u64, 9), (2, 8), (3, 7), (4, 6)] {
            tt.store(key, 0, Bound::Exact, depth, None);
        }
        tt.next_move();
        for key in 1..=4 {
            assert!(tt.probe(key).is_some(), "{key}");
        }
        // A shallow entry of this move replaces the shallowest entry of the last one …
        tt.store(5, 0, Bound::Exact, 1, None);
        assert!(tt.probe(4).is_none());
        // … and the next one replaces another of the last move's, not the new shallow one.
        tt.store(6, 0, Bound::Exact, 2, None);
        assert!(tt.probe(3).is_none());
        assert!(tt.probe(5).is_some() && tt.probe(6).is_some());
        tt.new_search();
        assert!((1..=6).all(|key| tt.probe(key).is_none()));
    }

    #[test]
    fn handles_share_the_entries_and_take_up_the_generation() {
        let mut main = TranspositionTable::new(1);
        let mut helper = main.share();
        main.new_search();
        main.next_move();
        helper.sync();
        helper.store(42, 5, Bound::Exact, 3, Some(0));
        assert_eq!(main.probe(42).map(|hit| hit.value), Some(5));
        main.new_search();
        assert_eq!(main.probe(42), None);
        // Until the helper takes up the new generation, it stores into the old one.
        helper.store(43, 5, Bound::Exact, 3, None);
        assert_eq!(main.probe(43), None);
        helper.sync();
        helper.store(43, 5, Bound::Exact, 3, None);
        assert!(main.probe(43).is_some());
    }

    /// What a stress test's writers store for `key`: a function of the key, so a reader
    /// can tell an entry stored under another key.
    fn payload(key: u64) -> (i32, Bound, u32, Option<usize>) {
        let bound = [Bound::Upper, Bound::Lower, Bound::Exact][(key % 3) as usize];
        let best = (!key.is_multiple_of(7)).then_some((key >> 8) as usize % 300);
        (
            (key >> 20) as i16 as i32 / 4,
            bound,
            (key >> 40) as u32 % 200,
            best,
        )
    }

    #[test]
    fn many_writers_on_one_bucket_never_give_an_entry_under_a_wrong_key() {
        // One bucket of four entries and 64 keys: every store replaces another key's
        // entry, and writers race on the same entries all the time.
        let table = TranspositionTable::new(0);
        let mut keys = crate::rng::stream(72, 0);
        let keys: Vec<u64> = (0..64).map(|_| keys.random()).collect();
        let hits = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for thread in 0..8u64 {
                let (table, keys, hits) = (table.share(), &keys, &hits);
                scope.spawn(move || {
                    let mut rng = crate::rng::stream(72, thread + 1);
                    for _ in 0..200_000 {
                        let key = keys[rng.random_range(0..keys.len())];
                        let (value, bound, depth, best) = payload(key);
                        table.store(key, value, bound, depth, best);
                        let probed = keys[rng.random_range(0..keys.len())];
                        if let Some(hit) = table.probe(probed) {
                            let (value, bound, depth, best) = payload(probed);
                            assert_eq!(
                                hit,
                                Hit {
                                    value,
                                    bound,
                                    depth,
                                    best
                                },
                                "{probed:#x}"
                            );
                            hits.fetch_add(1, Ordering::Relaxed);
                        }
                        // A key never stored is never found.
                        assert_eq!(table.probe(probed ^ 1), None);
                    }
                });
            }
        });
        assert!(hits.into_inner() > 0);
    }
}
