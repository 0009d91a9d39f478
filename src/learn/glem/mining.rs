//! GLEM's configuration mining (Beling's master's thesis, ch. 5.3: GenConf within regions): every configuration
//! of a region's atoms met in at least `n` positions, counted in one trie per region.

use std::collections::HashSet;

use rayon::prelude::*;

use super::trie::{AtomPath, CHUNK, NONE, TrieBuilder, content_mask};
use crate::eval::glem::{
    Atom, Atoms, Configuration, MAX_REGION_SQUARES, MAX_REGIONS, MAX_SLOTS, Region,
};

/// A sensible default for the thesis's `n` (see [`mine`]): on the 94,074 samples of 2,000
/// self-play games, the draughts default regions and at most 4 atoms give 75,517 configurations
/// (support 20 → 100,707, 100 → 61,721, 200 → 52,781). Scale it with the data (e.g. 500
/// for 20,000 games: 75,713 configurations).
pub const DEFAULT_MIN_SUPPORT: usize = 50;
/// A sensible default for the largest configuration.
pub const DEFAULT_MAX_ATOMS: usize = 4;

/// All configurations of one region (as (position, digit) paths) active in at least
/// `n` of the positions, with at most `max_atoms` atoms: GenConf level by level. A
/// level-`l + 1` candidate is a frequent level-`l` configuration plus one frequent atom
/// on a later square; every frequent configuration is found this way because all its
/// subsets are frequent.
fn mine_region(
    digits: &[[u8; MAX_SLOTS]],
    squares: &[u8],
    n: usize,
    max_atoms: usize,
) -> Vec<AtomPath> {
    let k = squares.len();
    let mut found: Vec<AtomPath> = Vec::new();
    if max_atoms == 0 {
        return found;
    }
    let contents: Vec<u64> = digits.iter().map(|d| content_mask(d, squares)).collect();
    // Level 1: R, the frequent atoms.
    // Counts are integers: summing per-thread counters gives the same result whatever
    // the split.
    let counts = contents
        .par_chunks(CHUNK)
        .fold(
            || vec![0u64; k * 5],
            |mut counts, chunk| {
                for &content in chunk {
                    let mut bits = content;
                    while bits != 0 {
                        counts[bits.trailing_zeros() as usize] += 1;
                        bits &= bits - 1;
                    }
                }
                counts
            },
        )
        .reduce(|| vec![0u64; k * 5], add_counts);
    let mut frontier: Vec<usize> = Vec::new();
    for (slot, &c) in counts.iter().enumerate() {
        if c >= n as u64 {
            frontier.push(found.len());
            found.push(vec![((slot / 5) as u8, (slot % 5) as u8)]);
        }
    }
    for _level in 2..=max_atoms {
        if frontier.is_empty() {
            break;
        }
        // The tree of everything found so far; frontier nodes get counters for their
        // extensions (positions after their last atom, 5 digits each).
        let mut builder = TrieBuilder::new(k);
        for path in &found {
            builder.insert(path);
        }
        let mut frontier_nodes = Vec::with_capacity(frontier.len());
        for &f in &frontier {
            frontier_nodes.push(builder.insert(&found[f]));
        }
        let (trie, new_index) = builder.finish();
        let mut counter_of_node = vec![NONE; trie.len()];
        let mut counter_base = Vec::with_capacity(frontier.len());
        let mut total = 0usize;
        for (&f, &node) in frontier.iter().zip(&frontier_nodes) {
            counter_of_node[new_index[node] as usize] = counter_base.len() as u32;
            counter_base.push(total);
            let last = found[f].last().expect("non-empty").0 as usize;
            total += (k - last - 1) * 5;
        }
        let counts = contents
            .par_chunks(CHUNK)
            .fold(
                || vec![0u64; total],
                |mut counts, chunk| {
                    for &content in chunk {
                        trie.walk(0, content, &mut |node| {
                            let c = counter_of_node[node];
                            if c != NONE {
                                let first = trie.first(node);
                                let base = counter_base[c as usize];
                                // One extension per later square: its digit here.
                                let mut ext =
                                    (content >> (5 * first)) & ((1u64 << (5 * (k - first))) - 1);
                                while ext != 0 {
                                    counts[base + ext.trailing_zeros() as usize] += 1;
                                    ext &= ext - 1;
                                }
                            }
                        });
                    }
                    counts
                },
            )
            .reduce(|| vec![0u64; total], add_counts);
        let mut next = Vec::new();
        for (i, &f) in frontier.iter().enumerate() {
            let last = found[f].last().expect("non-empty").0 as usize;
            let base = counter_base[i];
            for slot in 0..(k - last - 1) * 5 {
                if counts[base + slot] >= n as u64 {
                    let mut path = found[f].clone();
                    path.push(((last + 1 + slot / 5) as u8, (slot % 5) as u8));
                    next.push(path);
                }
            }
        }
        frontier = (found.len()..found.len() + next.len()).collect();
        found.extend(next);
    }
    found
}

fn add_counts<T: std::ops::AddAssign + Copy>(mut a: Vec<T>, b: Vec<T>) -> Vec<T> {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

/// Beling's GenConf(E, n) (listing 5.1) within regions: every configuration of at most
/// `max_atoms` atoms of one region that is active in at least `min_support` of
/// `positions` (counted with repetitions; `min_support` 0 counts as 1), built level by
/// level — R = the frequent single atoms, then M = { c ∪ d : c found at the previous
/// level, d ∈ R on another square of the same region, support ≥ n } until M is empty or
/// configurations reach `max_atoms`. (As written, the listing never stops: c ∪ d = c
/// when d ∈ c; only strictly larger sets count as new.)
///
/// A configuration lying in several regions is kept once, in the first of them. The
/// result is sorted by region, then by size, then by atoms, and does not depend on the
/// number of threads. Cost: one pass over the positions per level, each visiting the
/// frequent configurations active in the position.
///
/// # Panics
///
/// If a region is invalid ([`Region::validate`]) or there are more than
/// [`MAX_REGIONS`] regions.
pub fn mine<G: Atoms>(
    positions: &[G],
    regions: &[Region],
    min_support: usize,
    max_atoms: usize,
) -> Vec<Configuration> {
    assert!(regions.len() <= MAX_REGIONS, "too many regions");
    for region in regions {
        if let Err(e) = region.validate::<G>() {
            panic!("mine: {e}");
        }
    }
    let n = min_support.max(1);
    let max_atoms = max_atoms.min(MAX_REGION_SQUARES);
    let digits: Vec<[u8; MAX_SLOTS]> = positions.par_iter().map(G::atom_digits).collect();
    // Regions in parallel too: each region's trie is built serially between its
    // passes, and the other regions fill those gaps. `collect` keeps the regions' order.
    let per_region: Vec<Vec<AtomPath>> = regions
        .par_iter()
        .map(|r| mine_region(&digits, &r.squares, n, max_atoms))
        .collect();
    let mut seen: HashSet<Vec<Atom>> = HashSet::new();
    let mut out = Vec::new();
    for (r, (region, paths)) in regions.iter().zip(per_region).enumerate() {
        let mut configs: Vec<Configuration> = paths
            .into_iter()
            .map(|path| {
                let mut atoms: Vec<Atom> = path
                    .iter()
                    .map(|&(j, d)| Atom::new(region.squares[j as usize], G::atom_value(d)))
                    .collect();
                atoms.sort();
                Configuration {
                    region: r as u16,
                    atoms,
                }
            })
            .collect();
        configs.sort_by(|a, b| (a.atoms.len(), &a.atoms).cmp(&(b.atoms.len(), &b.atoms)));
        for c in configs {
            if seen.insert(c.atoms.clone()) {
                out.push(c);
            }
        }
    }
    out
}
