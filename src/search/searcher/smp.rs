//! A search on several threads (Lazy SMP, with the work shared out): helper threads
//! search the main thread's root beside it, each with a searcher of its own (move lists,
//! killers, history, the evaluator's incremental state), all probing and storing in the
//! main thread's one transposition table (lock-free: `tt.rs`). What the helpers store
//! orders and cuts the main thread's search; their own results are dropped. The move,
//! score, line and depth are the main thread's, from its own iterations, as with one
//! thread, but for one thing: when the time ends an iteration part way, a root move the
//! main thread had not searched to the end, which a helper searched to the iteration's
//! depth and proved better than the main thread's best (its table entry), is played
//! instead (`root.rs`, `adopt_helpers_moves`).
//!
//! - **Sharing out the work** (simplified ABDADA, `Busy`): all threads search the same
//!   iteration depths, and each marks the positions it is searching in a small shared
//!   table (at nodes `Busy::MIN_DEPTH` deep and at the root). A thread reaching a move
//!   other than a node's first that another thread is searching puts it off to the end of
//!   the node's loop, where the other thread's stored value mostly decides it from the
//!   table; so two threads in a node take different moves instead of the same ones.
//!   Helpers go on past the target depth until the main thread ends. Plain Lazy SMP
//!   (helpers level with the main thread, or one or two iterations ahead, no marks)
//!   searched mostly the same nodes twice: 1.1× the one-thread speed on 2 threads.
//! - **Stopping**: only the main thread reads the clock, its node limit and the caller's
//!   stop flag. However its search ends, it raises the helpers' flag, which they read as
//!   it reads its own (every `CLOCK_INTERVAL` nodes), and waits for them: time limits,
//!   `stop` and pondering work as with one thread, and a simulated clock sees only the
//!   main thread's readings.
//! - **Threads** start with each search and end with it (scoped: they borrow the helpers'
//!   searchers, which stay allocated between searches).
//! - With one thread nothing here runs: the search is the single-threaded one, node for
//!   node. With more, which lines get cut depends on which thread stores first, so the
//!   node counts, and at a depth or node limit the move, vary from run to run.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::Searcher;
use super::root::{MAX_ITERATIONS, Report, Root, first_result};
use crate::eval::Evaluator;
use crate::game::{Game, GameRecord};
use crate::search::{Limits, NodeCounts, SearchResult};

/// The helpers of a searcher and what they share with it besides the table.
pub(super) struct Smp<G: Game, E: Evaluator<G>> {
    /// Threads of a search, the main one included.
    threads: usize,
    /// Makes a helper's copy of the evaluator (`E::clone`, known where threads are set).
    clone_evaluator: Option<fn(&E) -> E>,
    helpers: Vec<Searcher<G, E>>,
    /// Each helper's published node counts (in the order of `helpers`).
    counts: Vec<Arc<[AtomicU64; 2]>>,
    /// Raised when the main thread's search ends: the helpers stop.
    stop: Arc<AtomicBool>,
}

impl<G: Game, E: Evaluator<G>> Default for Smp<G, E> {
    fn default() -> Self {
        Smp {
            threads: 1,
            clone_evaluator: None,
            helpers: Vec::new(),
            counts: Vec::new(),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// The positions being searched by the threads of a search (simplified ABDADA): each
/// thread marks a child's key here while it searches it, and a thread about to search a
/// move other than a node's first that another thread is searching puts it off to the
/// end of the node's loop, by which time that thread has mostly stored its value. A
/// fixed table indexed by the key's low bits, allocated once per searcher: a mark
/// overwritten by another position's is lost, which only costs a duplicated search.
pub(super) struct Busy {
    slots: Box<[AtomicU64]>,
}

impl Busy {
    const SLOTS: usize = 1 << 13;
    /// Moves are put off only at nodes this deep: below, the shared marks cost more (a
    /// store and a line shared between the cores) than the duplicated work they save
    /// (the bench at depth 16 on 2 threads, medians of 5 runs: 1.60× at 3, 1.72× at 4,
    /// 1.51× at 5).
    pub(super) const MIN_DEPTH: i32 = 4;

    fn new() -> Self {
        Busy {
            slots: (0..Self::SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[key as usize & (Self::SLOTS - 1)]
    }

    /// Whether another thread is searching the position of hash `key`.
    #[inline(always)]
    pub(super) fn is_busy(&self, key: u64) -> bool {
        self.slot(key).load(Ordering::Relaxed) == key
    }

    /// Marks the position of hash `key` as being searched.
    #[inline(always)]
    pub(super) fn enter(&self, key: u64) {
        self.slot(key).store(key, Ordering::Relaxed);
    }

    /// Takes the mark off, unless another position's has replaced it.
    #[inline(always)]
    pub(super) fn leave(&self, key: u64) {
        let slot = self.slot(key);
        if slot.load(Ordering::Relaxed) == key {
            slot.store(0, Ordering::Relaxed);
        }
    }

    fn clear(&self) {
        self.slots
            .iter()
            .for_each(|s| s.store(0, Ordering::Relaxed));
    }
}

/// Raises a flag when dropped: the helpers stop however the main thread's search ends.
struct RaiseOnDrop<'a>(&'a AtomicBool);

impl Drop for RaiseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl<G: Game, E: Evaluator<G> + Clone> Searcher<G, E> {
    /// The searcher searching on `threads` threads (at least one): its own and
    /// `threads − 1` helpers sharing its transposition table (Lazy SMP; see
    /// `search/searcher/smp.rs`). With one, the search is exactly the single-threaded
    /// one; with more, node counts, and the move at a depth or node limit, vary from run
    /// to run.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.set_threads(threads);
        self
    }

    /// Sets the threads of the next searches (see [`Searcher::with_threads`]).
    pub fn set_threads(&mut self, threads: usize) {
        let threads = threads.max(1);
        self.smp.threads = threads;
        self.smp.clone_evaluator = Some(E::clone);
        self.smp.helpers.truncate(threads - 1);
        self.smp.counts.truncate(threads - 1);
    }
}

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    /// Threads of each search, this one included.
    pub fn threads(&self) -> usize {
        self.smp.threads
    }

    /// Before a search on several threads: makes the missing helpers, and gives them the
    /// evaluator if it changed and the tablebase.
    pub(super) fn prepare_helpers(&mut self) {
        let Some(clone) = self.smp.clone_evaluator.filter(|_| self.smp.threads > 1) else {
            self.busy = None;
            return;
        };
        let busy = Arc::clone(self.busy.get_or_insert_with(|| Arc::new(Busy::new())));
        busy.clear();
        if self.incremental_stale {
            for helper in &mut self.smp.helpers {
                helper.evaluator = clone(&self.evaluator);
                helper.incremental_stale = true;
            }
        }
        while self.smp.helpers.len() < self.smp.threads - 1 {
            let mut helper =
                Searcher::with_table(clone(&self.evaluator), self.config, self.tt.share());
            let counts = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
            helper.published = Some(Arc::clone(&counts));
            self.smp.helpers.push(helper);
            self.smp.counts.push(counts);
        }
        for helper in &mut self.smp.helpers {
            helper.tablebase.clone_from(&self.tablebase);
            helper.busy = Some(Arc::clone(&busy));
        }
    }

    /// The main thread's iterations from `root` towards `target` (as
    /// [`Searcher::iterate`]) with the helpers searching beside it until it ends.
    pub(super) fn search_with_helpers(
        &mut self,
        record: &GameRecord<G>,
        target: Option<u32>,
        root: &mut Root<G>,
        result: &mut SearchResult<G>,
        report: &mut Report<'_, G>,
    ) {
        let mut helpers = std::mem::take(&mut self.smp.helpers);
        let stop = Arc::clone(&self.smp.stop);
        stop.store(false, Ordering::Relaxed);
        for counts in &self.smp.counts {
            counts.iter().for_each(|c| c.store(0, Ordering::Relaxed));
        }
        let depths: Vec<_> = (1..=helpers.len())
            .map(|_| self.helper_depths(target))
            .collect();
        std::thread::scope(|scope| {
            for (helper, depths) in helpers.iter_mut().zip(depths) {
                let moves = root.moves.clone();
                let stop = Arc::clone(&stop);
                scope.spawn(move || helper.help(record, moves, depths, stop));
            }
            // Raised when this thread's search ends, even by a panic, so that the scope's
            // wait for the helpers ends.
            let _stop_helpers = RaiseOnDrop(&stop);
            let depths = self.iteration_depths(target);
            self.iterate(root, depths, result, report);
        });
        self.smp.helpers = helpers;
    }

    /// A helper's iteration depths: the main thread's, going on past the target until
    /// stopped. At the same depth the threads meet in the same nodes and share out their
    /// moves (`Busy`). Every second helper an iteration ahead, as before the marks, was
    /// no faster with them (the bench at depth 16 on 2 threads: 1.78× against 1.72×,
    /// medians of 5 runs, within the noise).
    fn helper_depths(&self, target: Option<u32>) -> impl Iterator<Item = u32> + use<G, E> {
        let first = self.iteration_depths(target).next().unwrap_or(1);
        let step = self.config.iterative_deepening.unwrap_or(1).clamp(1, 2);
        (first..=MAX_ITERATIONS).step_by(step as usize)
    }

    /// A helper's part of a search: the root of `record` with `moves` at `depths`, until
    /// `stop` is raised (or the depths run out); it leaves only table entries.
    fn help(
        &mut self,
        record: &GameRecord<G>,
        moves: Vec<G::Move>,
        depths: impl Iterator<Item = u32>,
        stop: Arc<AtomicBool>,
    ) {
        self.refresh_incremental();
        // The main thread has started the table's generation for this search.
        self.tt.sync();
        let limits = Limits {
            stop: Some(stop),
            ..Limits::default()
        };
        self.reset(record, &limits, Duration::ZERO);
        let pos = *record.position();
        self.enter_position(&pos, 0);
        let mut result = first_result(&pos, &moves, Duration::ZERO);
        let mut root = Root {
            pos,
            quiet: record.quiet_plies(),
            moves,
        };
        let mut report = Report {
            on_iteration: &mut |_| {},
            elapsed: &|| Duration::ZERO,
        };
        self.iterate(&mut root, depths, &mut result, &mut report);
    }

    /// The helpers' node counts of the last search, once they have ended.
    pub(super) fn helpers_nodes(&self) -> NodeCounts {
        self.smp.helpers.iter().map(|h| h.nodes).sum()
    }

    /// The helpers' node counts as they last published them (a search is running).
    pub(super) fn helpers_published(&self) -> NodeCounts {
        self.smp
            .counts
            .iter()
            .map(|c| NodeCounts {
                main: c[0].load(Ordering::Relaxed),
                quiescence: c[1].load(Ordering::Relaxed),
            })
            .sum()
    }
}
