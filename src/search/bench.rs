//! `evalearn bench`: a fixed list of positions of each game ([`Bench`]) searched one by
//! one with a fresh table. The total node count at the default depth is the engine's
//! signature: any change to move generation, search or ordering changes it, and nothing
//! else may. On several threads the bench measures the time to the same depth; its node
//! count then varies from run to run.

use std::time::{Duration, Instant};

use super::{Limits, NodeCounts, SearchConfig, SearchResult, Searcher};
use crate::eval::Evaluator;
use crate::game::Game;

/// Transposition table of the bench, in MiB.
pub const DEFAULT_TT_MIB: usize = 16;

/// A game's bench: its positions (in the game's position text) and the depth searched
/// unless told otherwise. Each game keeps its own in its folder (`bench.rs`).
pub trait Bench: Game {
    const BENCH_POSITIONS: &'static [&'static str];
    const BENCH_DEPTH: u32;
}

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

/// Searches every bench position of `G` to `depth` with the engine's search on `threads`
/// threads, a fresh table each time; `on_position` hears of each result.
pub fn run<G: Bench, E: Evaluator<G> + Clone>(
    evaluator: E,
    depth: u32,
    tt_mib: usize,
    threads: usize,
    mut on_position: impl FnMut(usize, &G, &SearchResult<G>),
) -> BenchReport {
    let mut searcher = Searcher::new(evaluator, SearchConfig::FULL, tt_mib).with_threads(threads);
    let mut nodes = NodeCounts::default();
    let started = Instant::now();
    for (i, text) in G::BENCH_POSITIONS.iter().enumerate() {
        let pos = G::parse_position(text).expect("bench positions are valid");
        let result = searcher.search_position(&pos, &Limits::depth(depth));
        nodes = nodes + result.nodes;
        on_position(i, &pos, &result);
    }
    BenchReport {
        nodes,
        elapsed: started.elapsed(),
    }
}
