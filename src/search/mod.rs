//! Game-tree search: fail-soft negamax alpha-beta with the enhancements of Beling's master's thesis
//! (chapters 3–4, 6.5), generic over the [`Game`] and the [`Evaluator`].
//!
//! - principal variation search (null windows after the first move), iterative deepening,
//!   aspiration windows with the thesis's root loop (listing 6.3: a root move that falls
//!   outside the window is re-searched alone, and a search stopped mid-iteration returns
//!   the best root move searched completely);
//! - a transposition table ([`tt`]), quiescence search over captures (a position with a
//!   capture pending is never evaluated statically), move ordering by the table's move,
//!   two killer moves per ply and the history heuristic;
//! - lazy evaluation: a quiet leaf whose evaluator's bounds
//!   ([`crate::eval::Evaluator::bounds`]) fall outside the window returns the bound
//!   without evaluating;
//! - MTD(f) as an alternative driver;
//! - draws by repetition (a position already met since the last irreversible move, in the
//!   game or on the search path) and by the quiet-move rule, detected inside the tree.
//!
//! No null-move pruning: zugzwang is common in draughts (Beling's master's thesis, 4.6).
//! Scores are centi-units for the side to move; a finished game scores beyond every
//! static value, by its margin first (Kalah's stones) and its distance second, so the
//! engine wins by most and fastest, and loses by least and slowest ([`score`]). Every
//! game end is scored by the game's own result ([`Game::final_margin`]).

pub mod bench;
pub mod score;
mod searcher;
pub mod time;
pub mod tt;

pub use score::{
    Ending, INFINITY, MAX_MATE_DISTANCE, WIN, WIN_THRESHOLD, end_score, ending, exact_score,
    format_score,
};
pub use searcher::Searcher;

/// Exact values for some positions of a game (an endgame database), probed by the search.
pub trait Tablebase<G: Game>: Send + Sync {
    /// The exact value of `pos` for the side to move; `None` outside the database (and
    /// from a database of final margins without distances, which answers
    /// [`Tablebase::score`] only).
    fn probe(&self, pos: &G) -> Option<ExactValue>;
    /// The search score of `pos` met `ply` plies from the root, where the database holds
    /// it: [`Tablebase::probe`]'s value as [`exact_score`], unless the database says
    /// otherwise (Kalah's: each position's exact final margin, in the evaluators' units).
    fn score(&self, pos: &G, ply: usize) -> Option<i32> {
        self.probe(pos).map(|value| exact_score::<G>(value, ply))
    }
    /// Most pieces of a position it may hold.
    fn max_pieces(&self) -> u32;
}

/// The database's line from `pos`: at each position a move keeping its value (the
/// fastest win, the slowest loss), until the game ends, a draw, a position outside the
/// database or `max` plies.
pub fn tablebase_line<G: Game>(tablebase: &dyn Tablebase<G>, pos: &G, max: usize) -> Vec<G::Move> {
    let mut line = Vec::new();
    let mut at = *pos;
    let mut moves = G::Moves::default();
    while line.len() < max {
        let Some(here) = tablebase.probe(&at).filter(|&v| v != ExactValue::Draw) else {
            break;
        };
        at.legal_moves(&mut moves);
        let next = moves.iter().copied().find(|&mv| {
            tablebase
                .probe(&at.play(mv))
                .is_some_and(|after| after.parent() == here)
        });
        let Some(mv) = next else { break };
        line.push(mv);
        at = at.play(mv);
    }
    line
}

/// An endgame database as the searchers of a command share it.
pub type SharedTablebase<G> = Arc<dyn Tablebase<G>>;

/// A game's endgame databases, if it has them (`--egdb DIR` on the command line): a game
/// without them keeps the defaults.
pub trait EgdbGame: Game {
    /// The folder read without `--egdb` (when it exists; `$EVALEARN_EGDB` replaces it);
    /// `None` for a game without endgame databases.
    const DEFAULT_DIR: Option<&'static str> = None;
    /// Opens the database in `dir`: the database if any slice loaded, the problems met,
    /// and a one-line summary.
    fn open_tablebase(dir: &Path) -> Result<OpenedTablebase<Self>, String> {
        // Only the command line's `--egdb` asks a game for its databases.
        Err(format!(
            "--egdb {}: {} has no endgame databases",
            dir.display(),
            Self::NAME
        ))
    }
}

/// An endgame database folder as [`EgdbGame::open_tablebase`] found it.
pub struct OpenedTablebase<G: Game> {
    pub tablebase: Option<SharedTablebase<G>>,
    pub problems: Vec<String>,
    pub summary: String,
}

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::game::{ExactValue, Game};

/// Most threads one search may use where the commands take a thread count: the threads
/// this machine runs at once (the CPUs this process may use).
pub fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `threads` if one search may use that many ([`max_threads`]); else what is wrong.
pub fn check_threads(threads: usize) -> Result<usize, String> {
    let max = max_threads();
    match threads {
        0 => Err("0 threads: a search needs at least one".to_string()),
        n if n > max => Err(format!(
            "{n} threads: this machine runs {max} at once, so at most {max}"
        )),
        n => Ok(n),
    }
}

/// Deepest ply the search reaches (main search and quiescence together).
pub const MAX_PLY: usize = 128;

/// Which enhancements a search uses. The named combinations are the rows of the thesis's
/// table 6.2 plus the engine's own search.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SearchConfig {
    /// Iterative deepening with this step between depths (1: every depth; 2: the depths
    /// of the target's parity, seed listing 3.7 "depth++ (can be more)"), reordering the
    /// root moves by the last iteration's values. `None`: one search at the target depth.
    pub iterative_deepening: Option<u32>,
    /// Principal variation search: null windows for every move after the first.
    pub pvs: bool,
    /// Aspiration window of ± this many centi-units around the last iteration's value
    /// (needs iterative deepening).
    pub aspiration: Option<i32>,
    pub transposition_table: bool,
    pub killers: bool,
    pub history: bool,
    /// Enhanced transposition cutoffs (Beling's master's thesis, 4.2.4): before searching the moves of a
    /// node, look each child up in the table and stop at once if one refutes the window.
    pub etc: bool,
    /// Drive the search with MTD(f) null-window probes instead of the PVS root loop.
    pub mtdf: bool,
    /// Forcing moves first: after the table's move and the killers, the moves that leave
    /// the opponent something forced (in draughts, a capture to make: exchanges and
    /// sacrifices), which end their subtrees fastest.
    pub forcing_first: bool,
    /// Late move reductions (with PVS): in a null-window node with no capture to make,
    /// the moves after the first three that leave the opponent no capture are searched a
    /// ply shallower first, and again at full depth if they beat alpha.
    pub reductions: bool,
}

/// Aspiration half-width of the engine's search: a quarter of a man.
pub const ASPIRATION_DELTA: i32 = 25;

impl SearchConfig {
    /// The engine's search: PVS, iterative deepening by two plies, aspiration windows,
    /// transposition table with enhanced cutoffs, killers, forcing moves first and
    /// history. No reductions: they cost strength at equal depth (docs/speed.md, tree sizes).
    pub const FULL: SearchConfig = SearchConfig {
        iterative_deepening: Some(2),
        pvs: true,
        aspiration: Some(ASPIRATION_DELTA),
        transposition_table: true,
        killers: true,
        history: true,
        etc: true,
        mtdf: false,
        forcing_first: true,
        reductions: false,
    };
    /// Plain fail-soft alpha-beta, moves in generation order.
    pub const ALPHA_BETA: SearchConfig = SearchConfig {
        iterative_deepening: None,
        pvs: false,
        aspiration: None,
        transposition_table: false,
        killers: false,
        history: false,
        etc: false,
        mtdf: false,
        forcing_first: false,
        reductions: false,
    };

    /// The algorithm names of `evalearn treestats --algos`, with their configurations.
    pub const NAMED: [(&'static str, SearchConfig); 11] = [
        ("ab", SearchConfig::ALPHA_BETA),
        (
            "ab+id",
            SearchConfig {
                iterative_deepening: Some(1),
                ..SearchConfig::ALPHA_BETA
            },
        ),
        (
            "ab+tt",
            SearchConfig {
                transposition_table: true,
                ..SearchConfig::ALPHA_BETA
            },
        ),
        (
            "ab+id+tt",
            SearchConfig {
                iterative_deepening: Some(1),
                transposition_table: true,
                ..SearchConfig::ALPHA_BETA
            },
        ),
        (
            "pvs",
            SearchConfig {
                pvs: true,
                ..SearchConfig::ALPHA_BETA
            },
        ),
        (
            "pvs+id+tt",
            SearchConfig {
                pvs: true,
                iterative_deepening: Some(1),
                transposition_table: true,
                ..SearchConfig::ALPHA_BETA
            },
        ),
        (
            "pvs+asp+tt",
            SearchConfig {
                pvs: true,
                iterative_deepening: Some(1),
                aspiration: Some(ASPIRATION_DELTA),
                transposition_table: true,
                ..SearchConfig::ALPHA_BETA
            },
        ),
        (
            "mtdf",
            SearchConfig {
                mtdf: true,
                pvs: false,
                aspiration: None,
                ..SearchConfig::FULL
            },
        ),
        ("full", SearchConfig::FULL),
        (
            "full-forcing",
            SearchConfig {
                forcing_first: false,
                ..SearchConfig::FULL
            },
        ),
        (
            "full+lmr",
            SearchConfig {
                reductions: true,
                ..SearchConfig::FULL
            },
        ),
    ];

    /// The configuration called `name` in [`SearchConfig::NAMED`].
    pub fn named(name: &str) -> Option<SearchConfig> {
        SearchConfig::by_name(name).ok().map(|(_, config)| config)
    }

    /// The entry of [`SearchConfig::NAMED`] called `name`; the error lists the names.
    pub fn by_name(name: &str) -> Result<(&'static str, SearchConfig), String> {
        SearchConfig::NAMED
            .iter()
            .find(|(n, _)| *n == name)
            .copied()
            .ok_or_else(|| {
                let known: Vec<&str> = SearchConfig::NAMED.iter().map(|(n, _)| *n).collect();
                format!("unknown search '{name}'; known: {}", known.join(", "))
            })
    }
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig::FULL
    }
}

/// When a search stops. With several limits, the first one reached stops it. A search
/// stopped by a limit still returns a legal move (if there is one).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Deepest iteration (or the only one, without iterative deepening).
    pub depth: Option<u32>,
    /// Most nodes, quiescence nodes included. Deterministic on one thread; on several,
    /// the main thread's nodes (the helpers search as long as it does).
    pub nodes: Option<u64>,
    /// Time for the whole search (on the searcher's [`time::TimeSource`], real unless a
    /// test gives another).
    pub movetime: Option<Duration>,
    /// A game clock: the search spends what [`time::Clock::budget`] allows (with a
    /// movetime too, the earlier deadline stops it).
    pub clock: Option<time::Clock>,
    /// Raised by another thread to stop the search.
    pub stop: Option<Arc<AtomicBool>>,
    /// Search every root move with a full window, so that all of
    /// [`SearchResult::root_values`] are exact (softmax exploration needs them); slower.
    pub exact_root_values: bool,
}

impl Limits {
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    pub fn movetime(movetime: Duration) -> Limits {
        Limits {
            movetime: Some(movetime),
            ..Limits::default()
        }
    }
}

/// Node counts of a search. The thesis counts main-search nodes only (quiescence is part
/// of its evaluation); `total()` counts both, as nps does.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct NodeCounts {
    /// Positions the main search visited, horizon positions included.
    pub main: u64,
    /// Positions quiescence search visited beyond the horizon.
    pub quiescence: u64,
}

impl NodeCounts {
    pub fn total(&self) -> u64 {
        self.main + self.quiescence
    }
}

impl std::ops::Add for NodeCounts {
    type Output = NodeCounts;

    fn add(self, other: NodeCounts) -> NodeCounts {
        NodeCounts {
            main: self.main + other.main,
            quiescence: self.quiescence + other.quiescence,
        }
    }
}

impl std::iter::Sum for NodeCounts {
    fn sum<I: Iterator<Item = NodeCounts>>(counts: I) -> NodeCounts {
        counts.fold(NodeCounts::default(), |a, b| a + b)
    }
}

/// What one finished iteration of iterative deepening found (or the only one).
#[derive(Clone, Debug)]
pub struct DepthReport<G: Game> {
    pub depth: u32,
    pub score: i32,
    /// Nodes so far, of all threads (the helpers' as they last published them).
    pub nodes: NodeCounts,
    pub elapsed: Duration,
    pub pv: Vec<G::Move>,
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct SearchResult<G: Game> {
    /// `None` only when the position has no legal move.
    pub best_move: Option<G::Move>,
    /// Value of the best move for the side to move (a loss score without moves).
    pub score: i32,
    /// Depth of the deepest iteration that finished (0 if none did).
    pub depth: u32,
    /// Principal variation from the root, starting with the best move, through the
    /// quiescence search to the position whose static value gave the score.
    pub pv: Vec<G::Move>,
    /// Nodes of all the search's threads.
    pub nodes: NodeCounts,
    pub elapsed: Duration,
    /// True if a limit other than depth ended the search.
    pub stopped: bool,
    /// Every root move with its value in the last finished iteration, best first. Only
    /// the best value is exact unless [`Limits::exact_root_values`] was set (the others
    /// are upper bounds); empty if no iteration finished or with MTD(f).
    pub root_values: Vec<(G::Move, i32)>,
    /// The root's exact value, when a tablebase holds it (then a won or lost root's move
    /// and line are the tablebase's, found without a search).
    pub exact: Option<ExactValue>,
}
