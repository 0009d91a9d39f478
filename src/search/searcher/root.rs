//! The search's entry and its root: iterative deepening, the thesis's PVS root loop with
//! aspiration windows, MTD(f), tablebase roots, and the principal variation reported.
//! Runs once per iteration, so clarity before speed here; the hot path is [`super::node`].

use std::sync::Arc;
use std::time::Duration;

use super::Searcher;
use super::node::from_tt;
use crate::eval::Evaluator;
use crate::game::{ExactValue, Game, GameRecord};
use crate::search::score::{ending, exact_score, game_over_score};
use crate::search::tt::Bound;
use crate::search::{
    DepthReport, INFINITY, Limits, MAX_PLY, NodeCounts, SearchResult, WIN_THRESHOLD, tablebase_line,
};

/// An iteration's best root move searched to the end, with its value and line.
type Best<M> = Option<(M, i32, Vec<M>)>;

/// Iterations tried at most when only time or nodes limit the search.
pub(super) const MAX_ITERATIONS: u32 = MAX_PLY as u32 - 8;

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    /// Searches a position with no game history before it.
    pub fn search_position(&mut self, pos: &G, limits: &Limits) -> SearchResult<G> {
        self.search(&GameRecord::new(*pos), limits, |_| {})
    }

    /// Searches the current position of `record` (its history decides repetitions and
    /// the quiet-move count); `on_iteration` hears of every finished iteration. With
    /// several threads ([`Searcher::with_threads`]) the helpers search beside this one
    /// until it ends; what it returns and reports is its own (the node counts are all
    /// the threads').
    pub fn search(
        &mut self,
        record: &GameRecord<G>,
        limits: &Limits,
        mut on_iteration: impl FnMut(&DepthReport<G>),
    ) -> SearchResult<G> {
        let time = Arc::clone(&self.time);
        let started = time.now();
        let elapsed = || time.now().saturating_sub(started);
        self.prepare_helpers();
        self.start(record, limits, started);
        let root = *record.position();
        self.enter_position(&root, 0);

        let mut root_moves: Vec<G::Move> = {
            let mut list = G::Moves::default();
            root.legal_moves(&mut list);
            list.to_vec()
        };
        let mut result = first_result(&root, &root_moves, elapsed());
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
        let mut root = Root {
            pos: root,
            quiet: record.quiet_plies(),
            moves: root_moves,
        };
        let mut report = Report {
            on_iteration: &mut on_iteration,
            elapsed: &elapsed,
        };
        if self.threads() > 1 {
            self.search_with_helpers(record, limits.depth, &mut root, &mut result, &mut report);
        } else {
            let depths = self.iteration_depths(limits.depth);
            self.iterate(&mut root, depths, &mut result, &mut report);
        }
        result.nodes = self.nodes + self.helpers_nodes();
        result.elapsed = elapsed();
        result
    }

    /// Iterative deepening at `depths` from `root` (whose moves it reorders), the best
    /// move found so far in `result`, each finished iteration told to `report`.
    pub(super) fn iterate(
        &mut self,
        root: &mut Root<G>,
        depths: impl Iterator<Item = u32>,
        result: &mut SearchResult<G>,
        report: &mut Report<'_, G>,
    ) {
        let mut values = vec![-INFINITY; root.moves.len()];
        for depth in depths {
            // A first iteration of at most 2 plies always completes.
            self.interruptible = result.depth > 0 || depth > 2;
            let previous = (result.depth > 0).then_some(result.score);
            self.horizon = 0;
            let (pos, quiet) = (root.pos, root.quiet);
            let outcome = if self.config.mtdf {
                self.mtdf_iteration(&pos, quiet, depth, previous.unwrap_or(0))
            } else {
                self.root_iteration(&pos, quiet, depth, previous, &root.moves, &mut values)
            };
            if let Some((best, score, pv)) = outcome {
                result.best_move = Some(best);
                result.score = score;
                result.pv = self.extend_from_table(&pos, pv, depth);
            }
            if self.stopped {
                result.stopped = true;
                break;
            }
            result.depth = depth;
            if !self.config.mtdf {
                reorder_root(&mut root.moves, &mut values, &mut result.root_values);
            }
            let elapsed = (report.elapsed)();
            (report.on_iteration)(&DepthReport {
                depth,
                score: result.score,
                nodes: self.nodes + self.helpers_published(),
                elapsed,
                pv: result.pv.clone(),
            });
            if self.decided(result.score, depth) {
                break;
            }
            // Past the deadline already (the reading above): the next iteration could not
            // finish. Without this, iterations that end between two of the clock's
            // readings in the nodes (helpers on several threads fill the table so) would
            // run on past it.
            if self.deadline.is_some_and(|d| self.started + elapsed >= d) {
                result.stopped = true;
                break;
            }
            if self
                .iteration_mark
                .is_some_and(|mark| self.time.now() >= mark)
            {
                result.stopped = true;
                break;
            }
        }
    }

    /// Whether the iteration at `depth` that found `score` settles the search: deeper
    /// iterations cannot change a value found without looking past the horizon; nor,
    /// where results have no margin, a win or loss within the depth (a faster one would
    /// have been found). With margins, a bigger one may lie beyond the horizon.
    fn decided(&self, score: i32, depth: u32) -> bool {
        self.horizon == 0
            || ending::<G>(score).is_some_and(|end| G::MAX_MARGIN <= 1 && end.plies <= depth)
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
    pub(super) fn iteration_depths(
        &self,
        target: Option<u32>,
    ) -> impl Iterator<Item = u32> + use<G, E> {
        let last = target.unwrap_or(MAX_ITERATIONS).clamp(1, MAX_ITERATIONS);
        let step = match (self.config.iterative_deepening, target) {
            (Some(step), _) => step.clamp(1, 2),
            (None, None) => 1,
            (None, Some(_)) => last,
        };
        let first = (last - 1) % step + 1;
        (first..=last).step_by(step as usize)
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
    ) -> Best<G::Move> {
        if !self.enter(false) {
            return None;
        }
        let exact = self.exact_root_values;
        let (mut alpha, mut beta) = match (self.config.aspiration, previous) {
            (Some(delta), Some(v)) if v.abs() < WIN_THRESHOLD && !exact => (v - delta, v + delta),
            _ => (-INFINITY, INFINITY),
        };
        let child_depth = depth as i32 - 1;
        let mut best: Best<G::Move> = None;
        // On several threads, a move (not the first) another thread is searching waits
        // for the end of the loop, as in the nodes (`node.rs`).
        let share = !exact && self.busy.is_some();
        let mut deferred = Vec::new();
        let mut finished = vec![false; moves.len()];
        let mut next = 0;
        let mut next_deferred = 0;
        loop {
            let i = if next < moves.len() {
                next += 1;
                next - 1
            } else if next_deferred < deferred.len() {
                next_deferred += 1;
                deferred[next_deferred - 1]
            } else {
                break;
            };
            let mv = moves[i];
            let child = root.play(mv);
            let key = child.hash_key();
            let first_pass = next_deferred == 0;
            if share && let Some(busy) = &self.busy {
                if i > 0 && first_pass && busy.is_busy(key) {
                    deferred.push(i);
                    continue;
                }
                busy.enter(key);
            }
            let child_quiet = if root.is_irreversible(mv) {
                0
            } else {
                quiet + 1
            };
            self.path.push(key);
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
            if share && let Some(busy) = &self.busy {
                busy.leave(key);
            }
            if self.stopped {
                break;
            }
            finished[i] = true;
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
        if self.stopped && share {
            self.adopt_helpers_moves(root, depth, moves, &finished, &mut best);
        }
        best
    }

    /// After an iteration on several threads stopped part way: the root moves this thread
    /// did not search to the end that another thread did, at this iteration's depth or
    /// deeper, and proved better than `best` (the child's table entry an upper bound or
    /// an exact value, from the child's side), compete with it (see [`adopt_proven`]).
    /// Else a better move the other threads found in the time would be lost with the
    /// iteration.
    fn adopt_helpers_moves(
        &self,
        root: &G,
        depth: u32,
        moves: &[G::Move],
        finished: &[bool],
        best: &mut Best<G::Move>,
    ) {
        adopt_proven(moves, finished, best, |mv| {
            let hit = self.tt.probe(root.play(mv).hash_key())?;
            let deep_enough = hit.depth + 1 >= depth;
            let bounds_from_above = matches!(hit.bound, Bound::Upper | Bound::Exact);
            (deep_enough && bounds_from_above).then(|| -from_tt::<G>(hit.value, 1))
        });
    }

    /// One MTD(f) iteration at `depth` from the first guess `guess` (seed listings 3.8
    /// and 3.9: `nextBeta = value == lower ? value + 1 : value`).
    fn mtdf_iteration(&mut self, root: &G, quiet: u32, depth: u32, guess: i32) -> Best<G::Move> {
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
}

/// The root of a search: its position, plies since the last irreversible move, and its
/// moves (best first after each iteration).
pub(super) struct Root<G: Game> {
    pub(super) pos: G,
    pub(super) quiet: u32,
    pub(super) moves: Vec<G::Move>,
}

/// Where a search's finished iterations are told, and the time since its start.
pub(super) struct Report<'a, G: Game> {
    pub(super) on_iteration: &'a mut dyn FnMut(&DepthReport<G>),
    pub(super) elapsed: &'a dyn Fn() -> Duration,
}

/// What a tablebase says of the root (see [`Searcher::probe_root`]).
struct RootProbe<G: Game> {
    value: ExactValue,
    /// The best move and its score, for a won or lost root.
    best: Option<(G::Move, i32)>,
    line: Vec<G::Move>,
    root_values: Vec<(G::Move, i32)>,
}

/// The result before any search: the first move with its line (a loss score where the
/// root has no move), found `elapsed` after the start.
pub(super) fn first_result<G: Game>(
    root: &G,
    root_moves: &[G::Move],
    elapsed: Duration,
) -> SearchResult<G> {
    SearchResult {
        best_move: root_moves.first().copied(),
        score: if root_moves.is_empty() {
            game_over_score(root, 0)
        } else {
            -INFINITY
        },
        depth: 0,
        pv: root_moves.first().copied().into_iter().collect(),
        nodes: NodeCounts::default(),
        elapsed,
        stopped: false,
        root_values: Vec::new(),
        exact: None,
    }
}

/// Replaces `best` by the move of `moves` not `finished` whose `proof` (a value the move
/// is proved to reach at least, if any) is the highest above `best`'s value; the first
/// such move among equals. Nothing changes without a `best` to beat.
fn adopt_proven<M: Copy>(
    moves: &[M],
    finished: &[bool],
    best: &mut Best<M>,
    proof: impl Fn(M) -> Option<i32>,
) {
    let Some((_, mut best_value, _)) = *best else {
        return;
    };
    for (&mv, _) in moves.iter().zip(finished).filter(|(_, done)| !**done) {
        if let Some(value) = proof(mv).filter(|&v| v > best_value) {
            best_value = value;
            *best = Some((mv, value, vec![mv]));
        }
    }
}

/// Puts the root moves best first for the next iteration by their `values` (a stable
/// sort keeps earlier order among equal values), and the pairs in `root_values`.
fn reorder_root<M: Copy>(
    root_moves: &mut Vec<M>,
    values: &mut Vec<i32>,
    root_values: &mut Vec<(M, i32)>,
) {
    let mut paired: Vec<(M, i32)> = root_moves
        .iter()
        .copied()
        .zip(values.iter().copied())
        .collect();
    paired.sort_by_key(|p| std::cmp::Reverse(p.1));
    root_values.clone_from(&paired);
    (*root_moves, *values) = paired.into_iter().unzip();
}

#[cfg(test)]
mod tests {
    use super::adopt_proven;

    /// Only moves left unfinished compete, only with a proof above the best value, and
    /// the highest proof wins (the first of equals); without a best nothing is adopted.
    #[test]
    fn a_move_proved_better_by_another_thread_replaces_the_best() {
        let moves = [10u8, 11, 12, 13, 14];
        let finished = [true, true, false, false, false];
        let proofs = |mv: u8| match mv {
            11 => Some(90), // finished here: its own value stands
            12 => Some(40),
            13 => Some(60),
            14 => Some(60),
            _ => None,
        };
        let mut best = Some((10u8, 50, vec![10, 1]));
        adopt_proven(&moves, &finished, &mut best, proofs);
        assert_eq!(best, Some((13, 60, vec![13])));

        let mut best = Some((10u8, 60, vec![10, 1]));
        adopt_proven(&moves, &finished, &mut best, proofs);
        assert_eq!(
            best,
            Some((10, 60, vec![10, 1])),
            "a tie keeps this thread's move"
        );

        let mut none: Option<(u8, i32, Vec<u8>)> = None;
        adopt_proven(&moves, &[false; 5], &mut none, proofs);
        assert_eq!(none, None);
    }
}
