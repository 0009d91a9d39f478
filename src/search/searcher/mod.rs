//! The searcher: one thread's search state and the search itself.
//!
//! This module holds the state (the [`Searcher`] and its per-ply buffers, allocated once
//! so the search allocates nothing per node), its setup for each search, and the
//! bookkeeping every node shares: counting nodes against the limits, telling the
//! evaluator where the search is, repetitions and the principal-variation table. The
//! search itself is split by topic:
//!
//! - [`root`]: the search's entry, iterative deepening and the root loops (PVS with
//!   aspiration windows, MTD(f)), tablebase roots;
//! - [`node`]: the main-search recursion below the root;
//! - [`quiesce`]: quiescence search over captures;
//! - [`ordering`]: move ordering (killers, history, forcing moves) and picking;
//! - [`smp`]: the helper threads of a search on several threads (Lazy SMP).

mod node;
mod ordering;
mod quiesce;
mod root;
mod smp;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::time::{RealClock, TimeSource};
use super::tt::TranspositionTable;
use super::{Limits, MAX_PLY, NodeCounts, SearchConfig, Tablebase};
use crate::eval::{Evaluator, IncrementalEval};
use crate::game::{Game, GameRecord, MoveBuffer};

/// How often (in nodes) the clock and the stop flag are looked at.
const CLOCK_INTERVAL: u64 = 1024;

/// One thread's search: evaluator, configuration, transposition table and the per-ply
/// buffers, all allocated once so the search itself allocates nothing per node. With
/// [`Searcher::with_threads`], it also holds the searchers of its helper threads, which
/// share its table.
pub struct Searcher<G: Game, E: Evaluator<G>> {
    evaluator: E,
    /// The evaluator's state for evaluating along the search path, if it has one.
    incremental: Option<Box<dyn IncrementalEval<G>>>,
    /// The evaluator may have changed since `incremental` was made.
    incremental_stale: bool,
    config: SearchConfig,
    tt: TranspositionTable,
    /// Move list of each ply.
    lists: Vec<G::Moves>,
    /// Ordering scores of each ply's moves (same indices as `lists`).
    order: Vec<Box<[i32]>>,
    /// Hash keys of each ply's children (same indices), where computed ahead.
    child_keys: Vec<Box<[u64]>>,
    killers: Vec<[G::Move; 2]>,
    history: Vec<u32>,
    /// Triangular principal-variation table.
    pv: Vec<[G::Move; MAX_PLY]>,
    pv_len: [usize; MAX_PLY + 1],
    /// Hashes of the game's positions since its last irreversible move, then of the
    /// search path; the last one is the current node's.
    path: Vec<u64>,
    nodes: NodeCounts,
    node_limit: u64,
    /// Where the time is read: the real clock unless a test gives a simulated one.
    time: Arc<dyn TimeSource>,
    /// When the search started, and where it stops (on `time`).
    started: Duration,
    deadline: Option<Duration>,
    /// No new iteration starts after this (a clock's soft budget).
    iteration_mark: Option<Duration>,
    stop_flag: Option<Arc<AtomicBool>>,
    /// Whether the clock and the stop flag may end the search: not during a first
    /// iteration of 1 or 2 plies (a few hundred nodes), so every search that has a move
    /// to play has a searched move and a line to report, however busy the machine.
    interruptible: bool,
    stopped: bool,
    /// Search every root move with a full window (see [`Limits::exact_root_values`]).
    exact_root_values: bool,
    /// Best root move seen by the node search at ply 0 (MTD(f)), with its line.
    root_best: Option<G::Move>,
    root_pv: Vec<G::Move>,
    /// Exact values of small positions, probed at every node it may hold.
    tablebase: Option<Arc<dyn Tablebase<G>>>,
    /// Values this iteration took from beyond its horizon: static evaluations and table
    /// cutoffs. With none, the iteration saw every line to its end.
    horizon: u64,
    /// The game of the last search (its start and moves): a search of the same game a few
    /// moves on keeps the table.
    game_start: Option<G>,
    game_moves: Vec<G::Move>,
    /// The helper threads and what they share; none unless [`Searcher::with_threads`].
    smp: smp::Smp<G, E>,
    /// A helper's node counts (main, quiescence), published for the main thread's
    /// reports as it looks at its stop flag.
    published: Option<Arc<[AtomicU64; 2]>>,
    /// The positions the threads of a search on several threads are searching (shared
    /// by them all); none with one thread.
    busy: Option<Arc<smp::Busy>>,
}

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    /// A searcher with a transposition table of `tt_mib` MiB.
    pub fn new(evaluator: E, config: SearchConfig, tt_mib: usize) -> Self {
        let tt_mib = if config.transposition_table {
            tt_mib
        } else {
            0
        };
        Searcher::with_table(evaluator, config, TranspositionTable::new(tt_mib))
    }

    /// A searcher probing and storing in `tt`.
    fn with_table(evaluator: E, config: SearchConfig, tt: TranspositionTable) -> Self {
        Searcher {
            incremental: evaluator.incremental(MAX_PLY + 1),
            incremental_stale: false,
            evaluator,
            config,
            tt,
            lists: (0..=MAX_PLY).map(|_| G::Moves::default()).collect(),
            order: (0..=MAX_PLY)
                .map(|_| vec![0; G::Moves::CAPACITY].into_boxed_slice())
                .collect(),
            child_keys: (0..=MAX_PLY)
                .map(|_| vec![0; G::Moves::CAPACITY].into_boxed_slice())
                .collect(),
            killers: vec![[G::Move::default(); 2]; MAX_PLY + 1],
            history: vec![0; G::HISTORY_SIZE],
            pv: vec![[G::Move::default(); MAX_PLY]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            path: Vec::with_capacity(4 * MAX_PLY),
            nodes: NodeCounts::default(),
            node_limit: u64::MAX,
            time: Arc::new(RealClock::new()),
            started: Duration::ZERO,
            deadline: None,
            iteration_mark: None,
            stop_flag: None,
            interruptible: false,
            stopped: false,
            exact_root_values: false,
            root_best: None,
            root_pv: Vec::with_capacity(MAX_PLY),
            tablebase: None,
            horizon: 0,
            game_start: None,
            game_moves: Vec::new(),
            smp: smp::Smp::default(),
            published: None,
            busy: None,
        }
    }

    /// The searcher probing `tablebase` (an endgame database) in its tree, and playing
    /// the database's best move in a position the database holds as won or lost.
    pub fn with_tablebase(mut self, tablebase: Option<Arc<dyn Tablebase<G>>>) -> Self {
        self.tablebase = tablebase;
        self
    }

    /// The searcher reading the time from `time` (time limits, elapsed times).
    pub fn with_time_source(mut self, time: Arc<dyn TimeSource>) -> Self {
        self.time = time;
        self
    }

    /// Another handle to the searcher's transposition table (the one its helpers share).
    pub fn share_table(&self) -> TranspositionTable {
        self.tt.share()
    }

    pub fn tablebase(&self) -> Option<&Arc<dyn Tablebase<G>>> {
        self.tablebase.as_ref()
    }

    pub fn evaluator(&self) -> &E {
        &self.evaluator
    }

    /// The evaluator, to change (its incremental state is made anew for the next search).
    pub fn evaluator_mut(&mut self) -> &mut E {
        self.incremental_stale = true;
        &mut self.evaluator
    }

    pub fn config(&self) -> SearchConfig {
        self.config
    }

    /// Resets the per-search state. A search depends only on its position, history and
    /// limits, and on the searches of its own game before it: the transposition table
    /// stays while the searches follow one game (the same start, each record extending
    /// the last with the same evaluator) and is emptied otherwise.
    fn start(&mut self, record: &GameRecord<G>, limits: &Limits, started: Duration) {
        let evaluator_changed = self.refresh_incremental();
        let moves = record.moves();
        let same_game = !evaluator_changed
            && self.game_start == Some(*record.start())
            && moves.len() > self.game_moves.len()
            && moves.starts_with(&self.game_moves);
        if same_game {
            self.tt.next_move();
        } else {
            self.tt.new_search();
            self.game_start = Some(*record.start());
        }
        self.game_moves.clear();
        self.game_moves.extend_from_slice(moves);
        self.reset(record, limits, started);
    }

    /// Makes the evaluator's incremental state anew if the evaluator changed; true if it
    /// did.
    fn refresh_incremental(&mut self) -> bool {
        let changed = std::mem::take(&mut self.incremental_stale);
        if changed {
            self.incremental = self.evaluator.incremental(MAX_PLY + 1);
        }
        changed
    }

    /// Resets what every search starts without: ordering, counts, limits, the path.
    fn reset(&mut self, record: &GameRecord<G>, limits: &Limits, started: Duration) {
        self.killers.fill([G::Move::default(); 2]);
        self.history.fill(0);
        self.nodes = NodeCounts::default();
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        let budget = limits.clock.map(|c| c.budget(Duration::ZERO));
        let hard = budget.and_then(|b| b.hard).map(|t| started + t);
        self.started = started;
        self.deadline = limits
            .movetime
            .map(|t| started + t)
            .into_iter()
            .chain(hard)
            .min();
        self.iteration_mark = budget
            .and_then(|b| b.last_iteration_start())
            .map(|t| started + t);
        self.stop_flag = limits.stop.clone();
        self.interruptible = false;
        self.stopped = false;
        self.exact_root_values = limits.exact_root_values;
        self.path.clear();
        self.path.extend_from_slice(record.reversible_hashes());
    }

    /// Counts a visited node, unless a limit says stop: then the search is marked
    /// stopped (and from then on every node returns at once) and nothing is counted, so
    /// a node limit is never exceeded.
    #[inline(always)]
    fn enter(&mut self, quiescence: bool) -> bool {
        let total = self.nodes.total();
        if total >= self.node_limit
            || (self.interruptible && total.is_multiple_of(CLOCK_INTERVAL) && self.poll())
        {
            self.stopped = true;
        }
        if self.stopped {
            return false;
        }
        if quiescence {
            self.nodes.quiescence += 1;
        } else {
            self.nodes.main += 1;
        }
        true
    }

    /// Whether the clock or the stop flag ends the search; a helper publishes its node
    /// counts here too. Runs once every [`CLOCK_INTERVAL`] nodes.
    #[cold]
    #[inline(never)]
    fn poll(&self) -> bool {
        if let Some(published) = &self.published {
            published[0].store(self.nodes.main, Ordering::Relaxed);
            published[1].store(self.nodes.quiescence, Ordering::Relaxed);
        }
        self.deadline.is_some_and(|d| self.time.now() >= d)
            || self
                .stop_flag
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// Tells the evaluator's incremental state (if any) that the search is at `pos`, `ply`
    /// plies from the root.
    #[inline(always)]
    fn enter_position(&mut self, pos: &G, ply: usize) {
        if let Some(state) = &mut self.incremental {
            state.enter(pos, ply);
        }
    }

    /// True if the current position (last on the path) occurred earlier since the last
    /// irreversible move, with the same side to move.
    #[inline]
    fn is_repetition(&self, quiet: u32) -> bool {
        let n = self.path.len();
        let current = self.path[n - 1];
        let reach = (quiet as usize).min(n - 1);
        (2..=reach)
            .step_by(2)
            .any(|back| self.path[n - 1 - back] == current)
    }

    /// The principal variation at `ply` becomes `mv` followed by the child's line.
    #[inline]
    fn update_pv(&mut self, ply: usize, mv: G::Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][ply] = mv;
        head[ply][ply + 1..child_len].copy_from_slice(&tail[0][ply + 1..child_len]);
        self.pv_len[ply] = child_len;
    }
}
