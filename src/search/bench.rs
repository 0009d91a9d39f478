//! `evalearn bench`: a fixed list of positions of each game ([`Bench`]) searched one by
//! one with a fresh table. The total node count at the default depth is the engine's
//! signature: any change to move generation, search or ordering changes it, and nothing
//! else may.

use std::time::{Duration, Instant};

use super::{Limits, NodeCounts, SearchConfig, SearchResult, Searcher};
use crate::eval::Evaluator;
use crate::game::Game;
use crate::game::brazilian::Brazilian;
use crate::game::kalah::Kalah;

/// Transposition table of the bench, in MiB.
pub const DEFAULT_TT_MIB: usize = 16;

/// A game's bench: its positions (in the game's position text) and the depth searched
/// unless told otherwise.
pub trait Bench: Game {
    const BENCH_POSITIONS: &'static [&'static str];
    const BENCH_DEPTH: u32;
}

impl Bench for Brazilian {
    const BENCH_POSITIONS: &'static [&'static str] = &POSITIONS;
    const BENCH_DEPTH: u32 = 14;
}

impl Bench for Kalah {
    const BENCH_POSITIONS: &'static [&'static str] = &KALAH_POSITIONS;
    const BENCH_DEPTH: u32 = 11;
}

/// The Kalah bench: the start of Kalah(6,6) and, from each of 12 engine games (`stores`
/// evaluator, depth 6, two random first moves), one position a quarter, a half and three
/// quarters of the way through.
pub const KALAH_POSITIONS: [&str; 37] = [
    "A:6,6,6,6,6,6,0,6,6,6,6,6,6,0",      // start
    "B:1,2,3,14,0,1,9,1,5,1,13,5,13,4",   // ply 11
    "A:1,8,0,3,8,2,16,1,11,4,0,0,1,17",   // ply 22
    "B:1,1,3,2,2,0,21,4,1,4,3,1,4,25",    // ply 33
    "B:0,0,0,1,16,0,30,0,0,0,1,0,4,20",   // ply 9
    "A:2,3,0,2,2,2,32,2,2,0,2,1,0,22",    // ply 18
    "B:0,0,0,0,2,1,39,0,0,0,2,0,2,26",    // ply 27
    "B:3,4,3,0,11,1,5,3,2,1,12,12,12,3",  // ply 7
    "B:1,2,3,0,2,2,15,1,8,4,3,16,1,14",   // ply 15
    "B:0,0,0,3,0,6,28,0,1,1,0,2,1,30",    // ply 23
    "B:4,2,6,0,0,1,12,5,15,2,4,5,12,4",   // ply 9
    "A:3,0,0,2,2,6,25,2,2,3,9,3,0,15",    // ply 18
    "B:1,1,2,2,1,0,32,4,1,1,1,3,1,22",    // ply 27
    "B:0,5,11,0,12,0,17,2,0,0,2,10,10,3", // ply 7
    "A:0,0,14,0,0,1,21,0,0,4,6,0,0,26",   // ply 14
    "B:0,0,4,1,4,0,26,0,0,0,0,1,0,36",    // ply 21
    "B:3,1,3,2,5,1,25,7,5,2,4,1,2,11",    // ply 11
    "A:1,1,7,1,6,0,36,0,0,0,0,1,1,18",    // ply 22
    "B:0,0,0,0,1,1,41,1,0,2,1,4,2,19",    // ply 33
    "A:5,0,1,11,2,2,6,2,12,5,2,0,14,10",  // ply 8
    "B:0,3,6,3,1,4,15,3,2,12,1,1,1,20",   // ply 17
    "B:0,0,0,1,2,0,25,1,1,0,2,5,0,35",    // ply 25
    "A:0,1,0,2,14,7,10,3,13,10,0,0,0,12", // ply 10
    "A:2,0,1,1,0,6,22,0,0,5,1,5,4,25",    // ply 20
    "A:2,1,1,3,2,0,27,0,0,0,0,0,1,35",    // ply 30
    "A:4,1,2,4,16,8,11,1,2,1,2,2,7,11",   // ply 10
    "A:2,2,0,9,1,0,24,3,0,6,0,0,1,24",    // ply 20
    "A:0,0,0,1,1,1,35,0,0,0,0,4,1,29",    // ply 30
    "B:2,0,4,0,0,14,20,3,0,0,1,11,0,17",  // ply 9
    "B:1,0,2,3,3,0,24,0,5,4,2,3,2,23",    // ply 19
    "A:1,1,0,0,2,1,29,0,0,1,1,2,1,33",    // ply 28
    "A:2,1,12,11,1,0,16,0,0,2,0,9,1,17",  // ply 8
    "B:1,0,3,1,8,6,25,1,4,1,3,0,0,19",    // ply 17
    "B:0,1,0,0,0,7,30,2,1,1,0,0,1,29",    // ply 25
    "A:9,1,0,1,12,5,5,0,12,11,2,0,10,4",  // ply 6
    "B:0,4,3,1,0,0,15,0,16,1,6,0,0,26",   // ply 13
    "B:0,0,0,0,1,1,29,0,2,0,9,1,0,29",    // ply 19
];

/// Depth `evalearn bench` searches draughts to unless told otherwise.
pub const DEFAULT_DEPTH: u32 = <Brazilian as Bench>::BENCH_DEPTH;

/// The draughts bench: the start position, 12 openings and 12 middlegames from engine
/// games (material evaluator, depth 6, random first plies), and 10 endings with kings.
pub const POSITIONS: [&str; 35] = [
    "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", // start
    "W:W13,19,21,22,24,26,27,29,30,31,32:B1,2,3,5,6,7,8,9,12,15,17",      // opening
    "B:W17,19,21,22,24,25,26,27,29,31:B1,3,4,5,7,9,10,11,12,13",          // opening
    "W:W18,20,21,22,23,25,28,29,30,31,32:B3,4,5,6,7,8,9,11,12,13,14",     // opening
    "B:W18,25,26,27,28,29,30,31,32:B1,3,4,5,6,7,8,9,20",                  // opening
    "W:W18,21,24,25,26,28,29,30,32:B1,2,3,5,6,7,8,10,11,12,13",           // opening
    "B:W13,17,18,20,25,28,29,30,31,32:B1,2,3,4,5,6,8,11,12,19",           // opening
    "W:W19,21,22,23,24,25,26,27,29,30,32:B1,2,3,5,6,7,8,11,12,13,17,20",  // opening
    "B:W9,12,17,20,21,22,25,28,29,30,31,32:B2,3,4,5,6,8,10,11,13,15",     // opening
    "W:W12,21,25,27,28,29,30,31,32:B1,2,3,4,5,6,9,14",                    // opening
    "B:W18,19,22,23,24,25,29,30,31,32:B1,2,4,5,8,9,10,11,12,13,21",       // opening
    "W:W15,21,23,25,27,28,29,30,31,32:B2,3,4,5,7,8,9,12,13,14",           // opening
    "B:W10,19,21,22,27,28,29,30,31,32:B1,2,3,4,5,6,8,9,18",               // opening
    "W:W13,17,19,20,21,29,30,32:B5,6,8,9,10,12,15",                       // middlegame
    "W:W13,17,20,21,24,25,29,31:B1,5,6,7,9,10,11,12,15",                  // middlegame
    "B:W13,15,16,19,21,29,30,31:B1,5,6,8,9,10,12",                        // middlegame
    "W:W10,15,22,24,26,29,32:B1,5,9,11,12,13,16",                         // middlegame
    "W:W13,17,18,21,23,24,29,30:B1,5,6,9,10,11,14,16",                    // middlegame
    "B:W13,19,20,21,25,29,30,32:B1,5,6,9,12,16",                          // middlegame
    "B:W15,18,19,22,25,29,30,31:B4,5,6,7,8,11,12,13,21",                  // middlegame
    "B:W13,17,18,21,23,25:B1,5,6,7,9,10,14,16",                           // middlegame
    "W:W13,14,18,20,21,23,25,30:B1,5,6,7,9,11,12,19",                     // middlegame
    "B:W13,17,19,21,24,29,30,32:B1,5,6,9,10,12,14",                       // middlegame
    "B:W12,13,21,23,24,25,26,27,29:B1,3,5,6,9,10,14,20",                  // middlegame
    "W:W19,20,21,22,25,26,29:B1,5,9,10,12,13,14,15",                      // middlegame
    "W:WK5,29:B22,K30",                                                   // ending
    "W:WK13,25:BK32",                                                     // ending
    "B:WK2,21,29:B5,14,K31",                                              // ending
    "B:WK1,K3,27,29:B15,22",                                              // ending
    "B:WK2,21:B5,K29",                                                    // ending
    "B:WK2,14,20,21,22,30:B5,27,K32",                                     // ending
    "W:WK2,9,20:B12,K29",                                                 // ending
    "W:WK20:BK29",                                                        // ending
    "W:WK4,13,21:B1,19,K30",                                              // ending
    "B:WK2,17,21,29,32:B11,23,28,K30",                                    // ending
];

/// What one bench run measured.
#[derive(Clone, Copy, Debug)]
pub struct BenchReport {
    pub nodes: NodeCounts,
    pub elapsed: Duration,
}

impl BenchReport {
    /// Nodes per second, quiescence nodes counted.
    pub fn nps(&self) -> u64 {
        (self.nodes.total() as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// Searches every bench position of `G` to `depth` with the engine's search, a fresh
/// table each time; `on_position` hears of each result.
pub fn run<G: Bench, E: Evaluator<G>>(
    evaluator: E,
    depth: u32,
    tt_mib: usize,
    mut on_position: impl FnMut(usize, &G, &SearchResult<G>),
) -> BenchReport {
    let mut searcher = Searcher::new(evaluator, SearchConfig::FULL, tt_mib);
    let mut nodes = NodeCounts::default();
    let started = Instant::now();
    for (i, text) in G::BENCH_POSITIONS.iter().enumerate() {
        let pos = G::parse_position(text).expect("bench positions are valid");
        let result = searcher.search_position(&pos, &Limits::depth(depth));
        nodes.main += result.nodes.main;
        nodes.quiescence += result.nodes.quiescence;
        on_position(i, &pos, &result);
    }
    BenchReport {
        nodes,
        elapsed: started.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Material;

    #[test]
    fn bench_positions_are_legal_and_varied() {
        let mut with_kings = 0;
        for fen in POSITIONS {
            let pos = Brazilian::parse_position(fen).unwrap();
            assert!(pos.has_legal_move(), "{fen}");
            with_kings += usize::from(pos.king_bits() != 0);
        }
        assert!(with_kings >= 10);
    }

    #[test]
    fn bench_signature_is_stable() {
        let a = run::<Brazilian, _>(Material, 8, 4, |_, _, _| {});
        let b = run::<Brazilian, _>(Material, 8, 4, |_, _, _| {});
        assert_eq!(a.nodes, b.nodes);
        assert!(a.nodes.main > 0 && a.nodes.quiescence > 0);
    }
}
