//! The thesis experiment of table 6.2: mean search-tree sizes of algorithm combinations on
//! random positions (6..40 random plies from the start, equally many per ply count),
//! material evaluation, quiescence on. Nodes are counted as the thesis counts them
//! (quiescence is part of the evaluation there, its nodes are not counted) and also in
//! total.

use std::ops::RangeInclusive;
use std::sync::Arc;

use rayon::prelude::*;

use crate::game::{Game, MoveList, Side, random_plies};
use crate::games::brazilian::Brazilian;
use crate::games::brazilian::Material;
use crate::rng;
use crate::search::{Limits, NodeCounts, SearchConfig, Searcher, Tablebase};

/// Depths of the thesis table.
pub const THESIS_DEPTHS: [u32; 3] = [6, 10, 14];

/// Thesis table 6.2 (8,750 positions): mean nodes visited at depths 6, 10 and 14.
pub const THESIS_TABLE: [(&str, [u64; 3]); 7] = [
    ("ab+id", [2_423, 116_790, 4_818_576]),
    ("pvs", [1_946, 87_873, 3_537_031]),
    ("ab", [1_706, 82_428, 3_522_847]),
    ("ab+tt", [1_374, 42_448, 1_037_559]),
    ("ab+id+tt", [1_524, 29_708, 427_175]),
    ("pvs+id+tt", [1_512, 29_082, 417_349]),
    ("pvs+asp+tt", [1_510, 29_043, 416_945]),
];

/// Plies of random play before the thesis's positions: 6 to 40.
pub const FIRST_PLIES: u32 = 6;
pub const LAST_PLIES: u32 = 40;

/// The thesis's figure for `algo` at `depth`, if the table has one.
pub fn thesis_figure(algo: &str, depth: u32) -> Option<u64> {
    let column = THESIS_DEPTHS.iter().position(|&d| d == depth)?;
    THESIS_TABLE
        .iter()
        .find(|(name, _)| *name == algo)
        .map(|(_, row)| row[column])
}

/// `count` random positions under `seed`. Position `i` is reached by
/// `6 + i mod 35` uniformly random legal plies from the start, drawn from its own stream;
/// a game that ends before that is drawn again from the next stream. Positions are thus
/// spread evenly over the ply counts, and any prefix of the list is as well.
pub fn random_positions(count: usize, seed: u64) -> Vec<Brazilian> {
    let span = (LAST_PLIES - FIRST_PLIES + 1) as usize;
    let mut moves = MoveList::new();
    (0..count)
        .map(|i| {
            let plies = FIRST_PLIES + (i % span) as u32;
            (0u64..)
                .find_map(|attempt| {
                    let mut rng = rng::stream(seed, (i as u64) << 16 | attempt);
                    random_plies(Brazilian::start(), plies, &mut rng, &mut moves)
                        .filter(Game::has_legal_move)
                })
                .expect("some random game lasts long enough")
        })
        .collect()
}

/// Random plies after which an endgame position is given up on (games of random moves
/// reach few pieces long before).
const ENDGAME_PLY_LIMIT: u32 = 400;

/// `count` random positions with a piece count in `pieces` and at most one piece more on
/// either side (a random game drifts to lopsided material; real endings are closer).
/// Position `i` is the first position of a uniformly random game (stream `i`, then the
/// next ones) whose piece count is in range; if that game skips the range or the material
/// is lopsided there, the next stream is tried.
pub fn random_endgame_positions(
    count: usize,
    seed: u64,
    pieces: RangeInclusive<u32>,
) -> Vec<Brazilian> {
    let mut moves = MoveList::new();
    (0..count)
        .map(|i| {
            (0u64..)
                .find_map(|attempt| {
                    let mut rng = rng::stream(seed, (i as u64) << 16 | attempt);
                    let mut pos = Brazilian::start();
                    for _ in 0..ENDGAME_PLY_LIMIT {
                        let (w, b) = (
                            piece_count(&pos, Side::First),
                            piece_count(&pos, Side::Second),
                        );
                        if w + b <= *pieces.end() {
                            let fits = pieces.contains(&(w + b)) && w.abs_diff(b) <= 1;
                            return (fits && pos.has_legal_move()).then_some(pos);
                        }
                        pos = random_plies(pos, 1, &mut rng, &mut moves)?;
                    }
                    None
                })
                .expect("some random game reaches the range")
        })
        .collect()
}

fn piece_count(pos: &Brazilian, side: Side) -> u32 {
    let (men, kings) = pos.count(side);
    men + kings
}

/// Mean node counts of one algorithm at one depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    pub positions: usize,
    /// Mean main-search nodes (the thesis's count).
    pub main: f64,
    /// Mean nodes including quiescence.
    pub total: f64,
}

/// Searches every position with `config` to `depth` (a fresh table of `tt_mib` MiB each
/// time) on the rayon pool, probing `tablebase` if given; `on_done` is called after each
/// position. The result does not depend on the number of threads.
pub fn measure(
    positions: &[Brazilian],
    config: SearchConfig,
    depth: u32,
    tt_mib: usize,
    tablebase: Option<&Arc<dyn Tablebase<Brazilian>>>,
    on_done: &(dyn Fn() + Sync),
) -> Cell {
    // One searcher (and table) per chunk of positions, not per position.
    let chunk = positions
        .len()
        .div_ceil(rayon::current_num_threads() * 8)
        .max(1);
    let counts: Vec<NodeCounts> = positions
        .par_chunks(chunk)
        .flat_map_iter(|chunk| {
            let mut searcher =
                Searcher::new(Material, config, tt_mib).with_tablebase(tablebase.cloned());
            chunk
                .iter()
                .map(|pos| {
                    let nodes = searcher.search_position(pos, &Limits::depth(depth)).nodes;
                    on_done();
                    nodes
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let n = counts.len().max(1) as f64;
    Cell {
        positions: counts.len(),
        main: counts.iter().map(|c| c.main as f64).sum::<f64>() / n,
        total: counts.iter().map(|c| c.total() as f64).sum::<f64>() / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_reproducible_and_spread_over_ply_counts() {
        let a = random_positions(70, 5);
        assert_eq!(a, random_positions(70, 5));
        assert_ne!(a, random_positions(70, 6));
        assert_eq!(&random_positions(35, 5)[..], &a[..35]);
        assert!(a.iter().all(|p| p.has_legal_move()));
    }

    #[test]
    fn endgame_positions_are_in_range_balanced_and_reproducible() {
        let a = random_endgame_positions(40, 3, 6..=8);
        assert_eq!(a, random_endgame_positions(40, 3, 6..=8));
        assert_ne!(a, random_endgame_positions(40, 4, 6..=8));
        for pos in &a {
            let (w, b) = (
                piece_count(pos, Side::First),
                piece_count(pos, Side::Second),
            );
            assert!((6..=8).contains(&(w + b)) && w.abs_diff(b) <= 1, "{pos:?}");
            assert!(pos.has_legal_move());
        }
    }

    #[test]
    fn measure_does_not_depend_on_thread_count() {
        let positions = random_positions(20, 1);
        let config = SearchConfig::named("pvs+asp+tt").unwrap();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let a = one.install(|| measure(&positions, config, 6, 1, None, &|| {}));
        let b = two.install(|| measure(&positions, config, 6, 1, None, &|| {}));
        assert_eq!(a, b);
        assert_eq!(a.positions, 20);
    }
}
