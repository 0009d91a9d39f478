//! The searcher: one thread's search state and the search itself.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::score::{ending, exact_score, game_over_score, shift_distance};
use super::time::{RealClock, TimeSource};
use super::tt::{Bound, RESOLVED, TranspositionTable};
use super::{
    DepthReport, INFINITY, Limits, MAX_PLY, NodeCounts, SearchConfig, SearchResult, Tablebase,
    WIN_THRESHOLD, tablebase_line,
};
use crate::eval::{EVAL_LIMIT, Evaluator, IncrementalEval};
use crate::game::{ExactValue, Game, GameRecord, MoveBuffer};

/// Ordering scores of the two killers (the table's move is searched before any
/// ordering); history scores stay below them.
const KILLER_SCORES: [i32; 2] = [1 << 29, 1 << 28];
/// Largest history score: a forcing move's score (history + [`FORCING_SCORE`]) stays
/// below the second killer's.
const HISTORY_MAX: u32 = (1 << 27) - 1;
/// Added to a forcing move's history score: above any history, below the killers.
const FORCING_SCORE: i32 = 1 << 27;
/// Forcing moves are found from this remaining depth on: below it, telling them apart
/// (playing every move and looking for the opponent's captures) costs more time than
/// the smaller tree saves.
const FORCING_MIN_DEPTH: i32 = 2;
/// Marks a move already tried in the ordering scores.
const TRIED: i32 = i32::MIN;
/// Iterations tried at most when only time or nodes limit the search.
const MAX_ITERATIONS: u32 = MAX_PLY as u32 - 8;
/// Enhanced transposition cutoffs are tried at nodes at least this deep: below, the
/// extra table probes cost more time than the nodes they save.
const ETC_MIN_DEPTH: i32 = 3;
/// Late move reductions start at this remaining depth …
const LMR_MIN_DEPTH: i32 = 4;
/// … with the move searched after this many (the table's move and the killers come
/// first).
const LMR_AFTER: usize = 3;
/// How often (in nodes) the clock and the stop flag are looked at.
const CLOCK_INTERVAL: u64 = 1024;

/// One thread's search: evaluator, configuration, transposition table and the per-ply
/// buffers, all allocated once so the search itself allocates nothing per node.
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
    /// The search stops here (on `time`).
    deadline: Option<Duration>,
    /// No new iteration starts after this (a clock's soft budget).
    iteration_mark: Option<Duration>,
    stop_flag: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
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
}

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    /// A searcher with a transposition table of `tt_mib` MiB.
    pub fn new(evaluator: E, config: SearchConfig, tt_mib: usize) -> Self {
        let tt_mib = if config.transposition_table {
            tt_mib
        } else {
            0
        };
        Searcher {
            incremental: evaluator.incremental(MAX_PLY + 1),
            incremental_stale: false,
            evaluator,
            config,
            tt: TranspositionTable::new(tt_mib),
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

    /// Searches a position with no game history before it.
    pub fn search_position(&mut self, pos: &G, limits: &Limits) -> SearchResult<G> {
        self.search(&GameRecord::new(*pos), limits, |_| {})
    }

    /// Searches the current position of `record` (its history decides repetitions and
    /// the quiet-move count); `on_iteration` hears of every finished iteration.
    pub fn search(
        &mut self,
        record: &GameRecord<G>,
        limits: &Limits,
        mut on_iteration: impl FnMut(&DepthReport<G>),
    ) -> SearchResult<G> {
        let time = Arc::clone(&self.time);
        let started = time.now();
        let elapsed = || time.now().saturating_sub(started);
        self.start(record, limits, started);
        let root = *record.position();
        self.enter_position(&root, 0);
        let quiet = record.quiet_plies();

        let mut root_moves: Vec<G::Move> = {
            let mut list = G::Moves::default();
            root.legal_moves(&mut list);
            list.to_vec()
        };
        let mut result = SearchResult {
            best_move: root_moves.first().copied(),
            score: if root_moves.is_empty() {
                game_over_score(&root, 0)
            } else {
                -INFINITY
            },
            depth: 0,
            pv: root_moves.first().copied().into_iter().collect(),
            nodes: NodeCounts::default(),
            elapsed: elapsed(),
            stopped: false,
            root_values: Vec::new(),
            exact: None,
        };
        if root_moves.is_empty() {
            return result;
        }
        if let Some(known) = self.probe_root(&root, &mut root_moves) {
            result.exact = Some(known.value);
            if let Some((best, score)) = known.best {
                result.best_move = Some(best);
                result.score = score;
                result.depth = 1;
                result.pv = known.line;
                result.root_values = known.root_values;
                result.elapsed = elapsed();
                on_iteration(&DepthReport {
                    depth: 1,
                    score,
                    nodes: self.nodes,
                    elapsed: result.elapsed,
                    pv: result.pv.clone(),
                });
                return result;
            }
        }
        let mut values = vec![-INFINITY; root_moves.len()];
        for depth in self.iteration_depths(limits.depth) {
            // A first iteration of at most 2 plies always completes.
            self.interruptible = result.depth > 0 || depth > 2;
            let previous = (result.depth > 0).then_some(result.score);
            self.horizon = 0;
            let outcome = if self.config.mtdf {
                self.mtdf_iteration(&root, quiet, depth, previous.unwrap_or(0))
            } else {
                self.root_iteration(&root, quiet, depth, previous, &root_moves, &mut values)
            };
            if let Some((best, score, pv)) = outcome {
                result.best_move = Some(best);
                result.score = score;
                result.pv = self.extend_from_table(&root, pv, depth);
            }
            if self.stopped {
                result.stopped = true;
                break;
            }
            result.depth = depth;
            if !self.config.mtdf {
                // Best first for the next iteration; a stable sort keeps earlier order
                // among equal values.
                let mut paired: Vec<(G::Move, i32)> = root_moves
                    .iter()
                    .copied()
                    .zip(values.iter().copied())
                    .collect();
                paired.sort_by_key(|p| std::cmp::Reverse(p.1));
                result.root_values.clone_from(&paired);
                (root_moves, values) = paired.into_iter().unzip();
            }
            on_iteration(&DepthReport {
                depth,
                score: result.score,
                nodes: self.nodes,
                elapsed: elapsed(),
                pv: result.pv.clone(),
            });
            // Deeper iterations cannot change a value found without looking past the
            // horizon; nor, where results have no margin, a win or loss within the depth
            // (a faster one would have been found). With margins, a bigger one may lie
            // beyond the horizon.
            let decided = self.horizon == 0
                || ending::<G>(result.score)
                    .is_some_and(|end| G::MAX_MARGIN <= 1 && end.plies <= depth);
            if decided {
                break;
            }
            if self.iteration_mark.is_some_and(|mark| time.now() >= mark) {
                result.stopped = true;
                break;
            }
        }
        result.nodes = self.nodes;
        result.elapsed = elapsed();
        result
    }

    /// With a tablebase holding the root and all its moves: the root's exact value, and
    /// for a win or loss the best move (fastest win, slowest loss) with the line that
    /// follows it; for a draw, `root_moves` keeps only the moves that hold the draw and
    /// the search goes on among them.
    fn probe_root(&self, root: &G, root_moves: &mut Vec<G::Move>) -> Option<RootProbe<G>> {
        let tablebase = self.tablebase.as_ref()?;
        let value = tablebase.probe(root)?;
        let mut scored = Vec::with_capacity(root_moves.len());
        for &mv in root_moves.iter() {
            let after = tablebase.probe(&root.play(mv))?.parent();
            scored.push((mv, after));
        }
        // A stable sort: among equal values the generation order decides.
        scored.sort_by_key(|&(_, v)| std::cmp::Reverse(v.preference()));
        if scored[0].1 != value {
            return None;
        }
        if value == ExactValue::Draw {
            root_moves.retain(|mv| {
                scored
                    .iter()
                    .any(|&(m, v)| m == *mv && v == ExactValue::Draw)
            });
            return Some(RootProbe {
                value,
                best: None,
                line: Vec::new(),
                root_values: Vec::new(),
            });
        }
        Some(RootProbe {
            value,
            best: Some((scored[0].0, exact_score::<G>(value, 0))),
            line: tablebase_line(tablebase.as_ref(), root, MAX_PLY),
            root_values: scored
                .iter()
                .map(|&(mv, v)| (mv, exact_score::<G>(v, 0)))
                .collect(),
        })
    }

    /// Depths of the iterations: every `step`-th depth ending at the target (so with step
    /// 2 all iterations have the target's parity), or the target alone without iterative
    /// deepening. Without a depth limit the search deepens whatever the configuration.
    fn iteration_depths(&self, target: Option<u32>) -> impl Iterator<Item = u32> + use<G, E> {
        let last = target.unwrap_or(MAX_ITERATIONS).clamp(1, MAX_ITERATIONS);
        let step = match (self.config.iterative_deepening, target) {
            (Some(step), _) => step.clamp(1, 2),
            (None, None) => 1,
            (None, Some(_)) => last,
        };
        let first = (last - 1) % step + 1;
        (first..=last).step_by(step as usize)
    }

    /// Resets the per-search state. A search depends only on its position, history and
    /// limits, and on the searches of its own game before it: the transposition table
    /// stays while the searches follow one game (the same start, each record extending
    /// the last with the same evaluator) and is emptied otherwise.
    fn start(&mut self, record: &GameRecord<G>, limits: &Limits, started: Duration) {
        let evaluator_changed = std::mem::take(&mut self.incremental_stale);
        if evaluator_changed {
            self.incremental = self.evaluator.incremental(MAX_PLY + 1);
        }
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
        self.killers.fill([G::Move::default(); 2]);
        self.history.fill(0);
        self.nodes = NodeCounts::default();
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        let budget = limits.clock.map(|c| c.budget(Duration::ZERO));
        let hard = budget.and_then(|b| b.hard).map(|t| started + t);
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

    /// One iteration of the thesis's root loop (listing 6.3) at `depth`. Returns the best
    /// fully searched move, its value and line; `None` if no move was searched fully.
    fn root_iteration(
        &mut self,
        root: &G,
        quiet: u32,
        depth: u32,
        previous: Option<i32>,
        moves: &[G::Move],
        values: &mut [i32],
    ) -> Option<(G::Move, i32, Vec<G::Move>)> {
        if !self.enter(false) {
            return None;
        }
        let exact = self.exact_root_values;
        let (mut alpha, mut beta) = match (self.config.aspiration, previous) {
            (Some(delta), Some(v)) if v.abs() < WIN_THRESHOLD && !exact => (v - delta, v + delta),
            _ => (-INFINITY, INFINITY),
        };
        let child_depth = depth as i32 - 1;
        let mut best: Option<(G::Move, i32, Vec<G::Move>)> = None;
        for (i, &mv) in moves.iter().enumerate() {
            let child = root.play(mv);
            let child_quiet = if root.is_irreversible(mv) {
                0
            } else {
                quiet + 1
            };
            self.path.push(child.hash_key());
            let mut value;
            if exact {
                value = -self.node(&child, child_depth, 1, -INFINITY, INFINITY, child_quiet);
            } else if i == 0 || !self.config.pvs {
                value = -self.node(&child, child_depth, 1, -beta, -alpha, child_quiet);
                if i == 0 && alpha > -INFINITY && value <= alpha && !self.stopped {
                    // The first move fell below the aspiration window: drop the bound.
                    alpha = -INFINITY;
                    value = -self.node(&child, child_depth, 1, -beta, INFINITY, child_quiet);
                }
            } else {
                value = -self.node(&child, child_depth, 1, -alpha - 1, -alpha, child_quiet);
                if value > alpha && value < beta && !self.stopped {
                    value = -self.node(&child, child_depth, 1, -beta, -alpha, child_quiet);
                }
            }
            if value >= beta && beta < INFINITY && !self.stopped {
                // Above the window: lift the upper bound and search this move again.
                beta = INFINITY;
                value = -self.node(&child, child_depth, 1, -INFINITY, -alpha, child_quiet);
            }
            self.path.pop();
            if self.stopped {
                break;
            }
            values[i] = value;
            if best.as_ref().is_none_or(|b| value > b.1) {
                let mut pv = vec![mv];
                pv.extend_from_slice(&self.pv[1][1..self.pv_len[1]]);
                best = Some((mv, value, pv));
            }
            if value > alpha {
                alpha = value;
            }
        }
        best
    }

    /// One MTD(f) iteration at `depth` from the first guess `guess` (seed listings 3.8
    /// and 3.9: `nextBeta = value == lower ? value + 1 : value`).
    fn mtdf_iteration(
        &mut self,
        root: &G,
        quiet: u32,
        depth: u32,
        guess: i32,
    ) -> Option<(G::Move, i32, Vec<G::Move>)> {
        let (mut lower, mut upper) = (-INFINITY, INFINITY);
        let mut value = guess;
        self.root_best = None;
        while lower < upper {
            let beta = if value == lower { value + 1 } else { value };
            value = self.node(root, depth as i32, 0, beta - 1, beta, quiet);
            if self.stopped {
                break;
            }
            if value < beta {
                upper = value;
            } else {
                lower = value;
            }
        }
        if self.stopped {
            // Only a move proven at least as good as a bound found this iteration counts.
            return self
                .root_best
                .map(|mv| (mv, lower, self.root_pv.clone()))
                .filter(|_| lower > -INFINITY);
        }
        self.root_best.map(|mv| (mv, value, self.root_pv.clone()))
    }

    /// Lengthens a principal variation cut short by table cutoffs with the table's best
    /// moves, up to `depth` plies (stopping at a repeated position).
    fn extend_from_table(&self, root: &G, mut pv: Vec<G::Move>, depth: u32) -> Vec<G::Move> {
        if !self.config.transposition_table {
            return pv;
        }
        let mut pos = *root;
        let mut seen = vec![pos.hash_key()];
        for &mv in &pv {
            pos = pos.play(mv);
            seen.push(pos.hash_key());
        }
        let mut moves = G::Moves::default();
        while pv.len() < depth as usize {
            pos.legal_moves(&mut moves);
            // A forced move continues the line even where the table holds nothing (a
            // capture made in quiescence, below a resolved entry's cutoff).
            let best = match self.tt.probe(pos.hash_key()).and_then(|hit| hit.best) {
                Some(best) => best,
                None if moves.len() == 1 => 0,
                None => break,
            };
            let Some(&mv) = moves.get(best) else { break };
            pos = pos.play(mv);
            if seen.contains(&pos.hash_key()) {
                break;
            }
            seen.push(pos.hash_key());
            pv.push(mv);
        }
        pv
    }

    /// Counts a visited node, unless a limit says stop: then the search is marked
    /// stopped (and from then on every node returns at once) and nothing is counted, so
    /// a node limit is never exceeded.
    #[inline(always)]
    fn enter(&mut self, quiescence: bool) -> bool {
        let total = self.nodes.total();
        if total >= self.node_limit
            || (self.interruptible
                && total.is_multiple_of(CLOCK_INTERVAL)
                && (self.deadline.is_some_and(|d| self.time.now() >= d)
                    || self
                        .stop_flag
                        .as_ref()
                        .is_some_and(|f| f.load(Ordering::Relaxed))))
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

    /// Fail-soft negamax alpha-beta (PVS when configured) at `depth` plies; `quiet` counts
    /// the plies since the last irreversible move. The position's hash is last on the path.
    fn node(
        &mut self,
        pos: &G,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        quiet: u32,
    ) -> i32 {
        self.pv_len[ply] = ply;
        if !self.enter(false) {
            return 0;
        }
        self.enter_position(pos, ply);
        // Draws by repetition and by the quiet-move rule depend on the path, not the
        // position: they count as horizon values so that no subtree holding one is
        // stored as resolved.
        if ply > 0 && self.is_repetition(quiet) {
            self.horizon += 1;
            return 0;
        }
        // The quiet-move rule ends the game here (whatever the table says of this position
        // reached another way), unless the side to move has no move: that loses first.
        if G::QUIET_DRAW_PLIES.is_some_and(|limit| quiet >= limit) {
            self.horizon += 1;
            return if pos.has_legal_move() {
                0
            } else {
                game_over_score(pos, ply)
            };
        }
        // Nothing from beyond the horizon below this node: its value holds at any depth.
        let horizon_before = self.horizon;
        if depth <= 0 || ply >= MAX_PLY - 1 {
            // Quiescence probes the tablebase itself.
            return self.quiesce_entered(pos, ply, alpha, beta);
        }
        if let Some(tablebase) = &self.tablebase
            && let Some(value) = tablebase.probe(pos)
        {
            return exact_score::<G>(value, ply);
        }
        // The caller pushed this position's key on the path.
        let key = self.path[self.path.len() - 1];
        let mut tt_best = None;
        let use_tt = self.config.transposition_table;
        if use_tt && let Some(hit) = self.tt.probe(key) {
            tt_best = hit.best;
            // A resolved entry cuts at any depth, but not on the principal variation,
            // whose line it would cut short where the table holds no moves (captures
            // made in quiescence).
            let deep_enough = if hit.depth == RESOLVED {
                beta - alpha == 1
            } else {
                hit.depth >= depth as u32
            };
            if ply > 0 && deep_enough {
                let value = from_tt::<G>(hit.value, ply);
                let cut = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => value >= beta,
                    Bound::Upper => value <= alpha,
                };
                if cut {
                    self.horizon += u64::from(hit.depth != RESOLVED);
                    return value;
                }
            }
        }

        pos.legal_moves(&mut self.lists[ply]);
        let count = self.lists[ply].len();
        if count == 0 {
            return game_over_score(pos, ply);
        }
        // Children deep enough to probe the table get their keys now, and their buckets
        // are fetched from memory while the search goes on.
        let keys_ahead = self.config.transposition_table && depth >= 2;
        if keys_ahead {
            let keys = &mut self.child_keys[ply][..count];
            for (key, &mv) in keys.iter_mut().zip(self.lists[ply].iter()) {
                *key = pos.play(mv).hash_key();
                self.tt.prefetch(*key);
            }
        }
        if self.config.etc
            && ply > 0
            && depth >= ETC_MIN_DEPTH
            && let Some(value) = self.enhanced_cutoff(ply, depth, beta)
        {
            return value;
        }
        // The table's move is searched first and the killers next, before the forcing
        // moves are looked for: they rank above them all, and when one cuts off, that
        // work is saved.
        let tt_first = tt_best.filter(|&i| i < count);
        self.score_moves(pos, ply, tt_first);
        let mut forcing_marked = !(self.config.forcing_first && depth >= FORCING_MIN_DEPTH);

        // Late move reductions: only where nothing is forced (no capture to make) and
        // the window is null (not on the principal variation).
        let reducible =
            self.config.reductions && depth >= LMR_MIN_DEPTH && beta - alpha == 1 && pos.is_quiet();
        let alpha_in = alpha;
        let mut best = -INFINITY;
        let mut best_index = 0;
        for searched in 0..count {
            let index = match tt_first {
                Some(index) if searched == 0 => index,
                _ => {
                    let (mut index, score) = self.pick(ply, count);
                    if score < KILLER_SCORES[1] && !forcing_marked {
                        // No killer left: put the move back and rank the forcing ones.
                        self.order[ply][index] = score;
                        self.mark_forcing(pos, ply);
                        forcing_marked = true;
                        index = self.pick(ply, count).0;
                    }
                    index
                }
            };
            let mv = self.lists[ply][index];
            let child = pos.play(mv);
            let child_quiet = if pos.is_irreversible(mv) {
                0
            } else {
                quiet + 1
            };
            self.path.push(if keys_ahead {
                self.child_keys[ply][index]
            } else {
                child.hash_key()
            });
            let mut value;
            if searched > 0 && self.config.pvs {
                // A late quiet move in a null-window node, which leaves the opponent no
                // capture either, is first searched one ply shallower; only if it then
                // beats alpha is it searched to full depth.
                let reduced = reducible && searched >= LMR_AFTER && child.is_quiet();
                let child_depth = depth - 1 - i32::from(reduced);
                value = -self.node(
                    &child,
                    child_depth,
                    ply + 1,
                    -alpha - 1,
                    -alpha,
                    child_quiet,
                );
                if reduced && value > alpha && !self.stopped {
                    value = -self.node(&child, depth - 1, ply + 1, -alpha - 1, -alpha, child_quiet);
                }
                if value > alpha && value < beta && !self.stopped {
                    value = -self.node(&child, depth - 1, ply + 1, -beta, -alpha, child_quiet);
                }
            } else {
                value = -self.node(&child, depth - 1, ply + 1, -beta, -alpha, child_quiet);
            }
            self.path.pop();
            if self.stopped {
                return 0;
            }
            if value > best {
                best = value;
                best_index = index;
                if value > alpha {
                    alpha = value;
                    self.update_pv(ply, mv);
                    if ply == 0 {
                        self.root_best = Some(mv);
                        self.root_pv.clear();
                        self.root_pv
                            .extend_from_slice(&self.pv[0][..self.pv_len[0]]);
                    }
                    if value >= beta {
                        self.reward(pos, ply, mv, depth);
                        break;
                    }
                }
            }
        }
        if use_tt {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > alpha_in {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let depth = if self.horizon == horizon_before {
                RESOLVED
            } else {
                depth as u32
            };
            self.tt
                .store(key, to_tt::<G>(best, ply), bound, depth, Some(best_index));
        }
        best
    }

    /// Enhanced transposition cutoff: a child whose stored value (at enough depth) already
    /// proves this node fails high, found without searching any child.
    /// Needs the children's keys in `child_keys[ply]`.
    #[inline]
    fn enhanced_cutoff(&mut self, ply: usize, depth: i32, beta: i32) -> Option<i32> {
        for index in 0..self.lists[ply].len() {
            let Some(hit) = self.tt.probe(self.child_keys[ply][index]) else {
                continue;
            };
            if hit.depth + 1 >= depth as u32 && matches!(hit.bound, Bound::Upper | Bound::Exact) {
                let value = -from_tt::<G>(hit.value, ply + 1);
                if value >= beta {
                    self.horizon += u64::from(hit.depth != RESOLVED);
                    return Some(value);
                }
            }
        }
        None
    }

    /// Captures until the position is quiet, then the static value. Captures are
    /// compulsory, so a position with one pending has no "stand pat".
    fn quiesce(&mut self, pos: &G, ply: usize, alpha: i32, beta: i32) -> i32 {
        self.pv_len[ply] = ply;
        self.enter_position(pos, ply);
        self.quiesce_entered(pos, ply, alpha, beta)
    }

    /// [`Searcher::quiesce`] once the node is entered (its line reset, the evaluator
    /// told): inlined in the main search, where most leaves are quiet and end here
    /// without another call.
    #[inline(always)]
    fn quiesce_entered(&mut self, pos: &G, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        if let Some(tablebase) = &self.tablebase
            && let Some(value) = tablebase.probe(pos)
        {
            return exact_score::<G>(value, ply);
        }
        if pos.is_quiet() || ply >= MAX_PLY - 1 {
            if !pos.has_legal_move() {
                return game_over_score(pos, ply);
            }
            self.horizon += 1;
            let value = match &mut self.incremental {
                Some(state) => state.evaluate(pos, ply),
                None => self.evaluator.evaluate(pos),
            };
            return value.clamp(-EVAL_LIMIT, EVAL_LIMIT);
        }
        pos.legal_moves(&mut self.lists[ply]);
        let mut best = -INFINITY;
        for index in 0..self.lists[ply].len() {
            let mv = self.lists[ply][index];
            if !self.enter(true) {
                return 0;
            }
            let value = -self.quiesce(&pos.play(mv), ply + 1, -beta, -alpha);
            if self.stopped {
                return 0;
            }
            if value > best {
                best = value;
                if value > alpha {
                    alpha = value;
                    self.update_pv(ply, mv);
                    if value >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    #[inline]
    fn update_pv(&mut self, ply: usize, mv: G::Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][ply] = mv;
        head[ply][ply + 1..child_len].copy_from_slice(&tail[0][ply + 1..child_len]);
        self.pv_len[ply] = child_len;
    }

    /// Ordering scores: the killers, then the other moves by history; the table's move
    /// (`searched`, searched first) is marked tried.
    #[inline]
    fn score_moves(&mut self, pos: &G, ply: usize, searched: Option<usize>) {
        let count = self.lists[ply].len();
        let moves = &self.lists[ply];
        let scores = &mut self.order[ply][..count];
        let killers = self.killers[ply];
        for (score, &mv) in scores.iter_mut().zip(moves.iter()) {
            *score = if self.config.history {
                self.history[pos.history_index(mv)] as i32
            } else {
                0
            };
            if self.config.killers {
                if mv == killers[0] {
                    *score = KILLER_SCORES[0];
                } else if mv == killers[1] {
                    *score = KILLER_SCORES[1];
                }
            }
        }
        if let Some(index) = searched {
            scores[index] = TRIED;
        }
    }

    /// Raises the forcing moves (those leaving the opponent a capture) among the untried
    /// moves that are not killers above the others.
    #[inline]
    fn mark_forcing(&mut self, pos: &G, ply: usize) {
        let count = self.lists[ply].len();
        let scores = &mut self.order[ply][..count];
        for (score, &mv) in scores.iter_mut().zip(self.lists[ply].iter()) {
            // History stays at most HISTORY_MAX: only killers score KILLER_SCORES[1] or more.
            if *score != TRIED && *score < KILLER_SCORES[1] && !pos.play(mv).is_quiet() {
                *score += FORCING_SCORE;
            }
        }
    }

    /// The untried move with the highest ordering score (the first such on ties), marked
    /// tried, and its score.
    #[inline]
    fn pick(&mut self, ply: usize, count: usize) -> (usize, i32) {
        let scores = &mut self.order[ply][..count];
        let mut best = 0;
        let mut top = scores[0];
        for (i, &score) in scores.iter().enumerate().skip(1) {
            // Which score is higher is not predictable: select, do not branch.
            let higher = score > top;
            top = std::hint::select_unpredictable(higher, score, top);
            best = std::hint::select_unpredictable(higher, i, best);
        }
        scores[best] = TRIED;
        (best, top)
    }

    /// A move caused a cutoff: make it a killer of this ply and raise its history.
    #[inline]
    fn reward(&mut self, pos: &G, ply: usize, mv: G::Move, depth: i32) {
        if self.config.killers && self.killers[ply][0] != mv {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = mv;
        }
        if self.config.history {
            let slot = &mut self.history[pos.history_index(mv)];
            *slot += (depth * depth) as u32;
            if *slot > HISTORY_MAX {
                self.history.iter_mut().for_each(|h| *h /= 2);
            }
        }
    }
}

/// What a tablebase says of the root (see [`Searcher::probe_root`]).
struct RootProbe<G: Game> {
    value: ExactValue,
    /// The best move and its score, for a won or lost root.
    best: Option<(G::Move, i32)>,
    line: Vec<G::Move>,
    root_values: Vec<(G::Move, i32)>,
}

/// End scores count plies from the root; the table stores them counted from the node.
#[inline(always)]
fn to_tt<G: Game>(value: i32, ply: usize) -> i32 {
    shift_distance::<G>(value, -(ply as i32))
}

#[inline(always)]
fn from_tt<G: Game>(value: i32, ply: usize) -> i32 {
    shift_distance::<G>(value, ply as i32)
}
