//! Seeded random streams. Every random choice in evalearn flows from a user-given seed
//! through a portable generator (Xoshiro256++), one stream per game or position, so
//! results never depend on thread count or scheduling.

use rand::SeedableRng;
pub use rand::rngs::Xoshiro256PlusPlus as Rng;

/// SplitMix64's finaliser: a bijective mix of 64 bits.
const fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The generator of stream `index` under `seed` (e.g. game number `index` of a run).
pub fn stream(seed: u64, index: u64) -> Rng {
    let base = splitmix64(seed);
    let mut bytes = [0u8; 32];
    for (k, chunk) in bytes.chunks_exact_mut(8).enumerate() {
        let word = splitmix64(base ^ splitmix64(index.wrapping_mul(4).wrapping_add(k as u64)));
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    Rng::from_seed(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let draw = |seed, index| {
            let mut rng = stream(seed, index);
            (0..4).map(|_| rng.random::<u64>()).collect::<Vec<_>>()
        };
        assert_eq!(draw(1, 2), draw(1, 2));
        assert_ne!(draw(1, 2), draw(1, 3));
        assert_ne!(draw(1, 2), draw(2, 2));
        // Pinned values: a change of generator or seeding would silently change every
        // seeded result (datasets, matches, positions), so it must show up here.
        assert_eq!(draw(0, 0)[0], 0xc362_f2bf_7a4b_8501);
        assert_eq!(draw(2026, 7)[0], 0xff22_c4e9_3b7f_d891);
    }
}
