//! The main search below the root: fail-soft negamax alpha-beta (PVS when configured)
//! with the transposition table, enhanced transposition cutoffs and late move
//! reductions. This is the engine's hot path: [`Searcher::node`] is the recursion, and
//! its steps are helpers inlined into it (no call, no allocation per node).

use std::ops::ControlFlow;

use super::Searcher;
use super::ordering::{FORCING_MIN_DEPTH, KILLER_SCORES};
use super::smp::Busy;
use crate::eval::Evaluator;
use crate::game::Game;
use crate::search::score::{game_over_score, shift_distance};
use crate::search::tt::{Bound, RESOLVED};
use crate::search::{INFINITY, MAX_PLY};

/// Enhanced transposition cutoffs are tried at nodes at least this deep: below, the
/// extra table probes cost more time than the nodes they save.
const ETC_MIN_DEPTH: i32 = 3;
/// Late move reductions start at this remaining depth …
const LMR_MIN_DEPTH: i32 = 4;
/// … with the move searched after this many (the table's move and the killers come
/// first).
const LMR_AFTER: usize = 3;

/// Moves put off at most at a node because another thread is searching them; later ones
/// are searched in their turn.
const MAX_DEFERRED: usize = 32;

/// The running state of a node's move loop.
struct MoveLoop {
    alpha: i32,
    best: i32,
    best_index: usize,
    /// Moves searched so far.
    searched: usize,
    /// The forcing moves are ranked (see [`Searcher::next_ordered`]).
    forcing_marked: bool,
    /// Late moves may be searched a ply shallower first.
    reducible: bool,
}

/// How a move of the loop ended.
enum MoveStep {
    Next,
    Cut,
    Stopped,
}

/// A main-search node as the steps of [`Searcher::node`] see it: its place in the tree
/// and the window it was called with. The steps are inlined, so it lives in registers.
#[derive(Clone, Copy)]
struct Frame {
    ply: usize,
    depth: i32,
    alpha: i32,
    beta: i32,
    /// Plies since the last irreversible move.
    quiet: u32,
}

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    /// Fail-soft negamax alpha-beta (PVS when configured) at `depth` plies; `quiet` counts
    /// the plies since the last irreversible move. The position's hash is last on the path.
    pub(super) fn node(
        &mut self,
        pos: &G,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        quiet: u32,
    ) -> i32 {
        self.pv_len[ply] = ply;
        if !self.enter(false) {
            return 0;
        }
        self.enter_position(pos, ply);
        if let Some(value) = self.path_draw(pos, ply, quiet) {
            return value;
        }
        // Nothing from beyond the horizon below this node: its value holds at any depth.
        let horizon_before = self.horizon;
        if depth <= 0 || ply >= MAX_PLY - 1 {
            // Quiescence probes the tablebase itself.
            return self.quiesce_entered(pos, ply, alpha, beta);
        }
        if let Some(tablebase) = &self.tablebase
            && let Some(score) = tablebase.score(pos, ply)
        {
            return score;
        }
        let at = Frame {
            ply,
            depth,
            alpha,
            beta,
            quiet,
        };
        // The caller pushed this position's key on the path.
        let key = self.path[self.path.len() - 1];
        let use_tt = self.config.transposition_table;
        let mut tt_best = None;
        if use_tt {
            match self.probe_table(key, at) {
                ControlFlow::Break(value) => return value,
                ControlFlow::Continue(best) => tt_best = best,
            }
        }

        pos.legal_moves(&mut self.lists[ply]);
        let count = self.lists[ply].len();
        if count == 0 {
            return game_over_score(pos, ply);
        }
        // Children deep enough to probe the table get their keys now, and their buckets
        // are fetched from memory while the search goes on.
        let keys_ahead = use_tt && depth >= 2;
        if keys_ahead {
            self.prefetch_children(pos, ply, count);
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
        let Some((best, best_index)) = self.search_moves(pos, at, count, tt_first, keys_ahead)
        else {
            return 0;
        };
        if use_tt {
            self.store_node(key, at, best, best_index, horizon_before);
        }
        best
    }

    /// The value of a draw the path decides, if there is one. Draws by repetition and by
    /// the quiet-move rule depend on the path, not the position: they count as horizon
    /// values so that no subtree holding one is stored as resolved.
    #[inline(always)]
    fn path_draw(&mut self, pos: &G, ply: usize, quiet: u32) -> Option<i32> {
        if ply > 0 && self.is_repetition(quiet) {
            self.horizon += 1;
            return Some(0);
        }
        // The quiet-move rule ends the game here (whatever the table says of this position
        // reached another way), unless the side to move has no move: that loses first.
        if G::QUIET_DRAW_PLIES.is_some_and(|limit| quiet >= limit) {
            self.horizon += 1;
            return Some(if pos.has_legal_move() {
                0
            } else {
                game_over_score(pos, ply)
            });
        }
        None
    }

    /// Looks the node (hash `key`) up in the transposition table: breaks with the stored
    /// value where it decides the node at this depth and window, else continues with the
    /// stored best move's index (if any).
    #[inline(always)]
    fn probe_table(&mut self, key: u64, at: Frame) -> ControlFlow<i32, Option<usize>> {
        let Some(hit) = self.tt.probe(key) else {
            return ControlFlow::Continue(None);
        };
        // A resolved entry cuts at any depth, but not on the principal variation, whose
        // line it would cut short where the table holds no moves (captures made in
        // quiescence).
        let deep_enough = if hit.depth == RESOLVED {
            at.beta - at.alpha == 1
        } else {
            hit.depth >= at.depth as u32
        };
        if at.ply > 0 && deep_enough {
            let value = from_tt::<G>(hit.value, at.ply);
            let cut = match hit.bound {
                Bound::Exact => true,
                Bound::Lower => value >= at.beta,
                Bound::Upper => value <= at.alpha,
            };
            if cut {
                self.horizon += u64::from(hit.depth != RESOLVED);
                return ControlFlow::Break(value);
            }
        }
        ControlFlow::Continue(hit.best)
    }

    /// Computes the hash keys of the children (the moves in `lists[ply]`) into
    /// `child_keys[ply]` and has the table fetch their buckets.
    #[inline(always)]
    fn prefetch_children(&mut self, pos: &G, ply: usize, count: usize) {
        let keys = &mut self.child_keys[ply][..count];
        for (key, &mv) in keys.iter_mut().zip(self.lists[ply].iter()) {
            *key = pos.play(mv).hash_key();
            self.tt.prefetch(*key);
        }
    }

    /// The move loop: searches the moves of `lists[ply]` (the table's move `tt_first`
    /// first, then by the ordering scores) until one fails high. Returns the best value
    /// and its move's index; `None` if the search stopped. With `keys_ahead`, the
    /// children's keys are in `child_keys[ply]`.
    #[inline(always)]
    fn search_moves(
        &mut self,
        pos: &G,
        at: Frame,
        count: usize,
        tt_first: Option<usize>,
        keys_ahead: bool,
    ) -> Option<(i32, usize)> {
        let ply = at.ply;
        let mut forcing_marked = !(self.config.forcing_first && at.depth >= FORCING_MIN_DEPTH);
        // Late move reductions: only where nothing is forced (no capture to make) and
        // the window is null (not on the principal variation).
        let reducible = self.config.reductions
            && at.depth >= LMR_MIN_DEPTH
            && at.beta - at.alpha == 1
            && pos.is_quiet();
        // On several threads: a loop of its own, so that this one (one thread's, the hot
        // path) stays as it was: sharing its steps with it costs a few percent (measured).
        if keys_ahead && at.depth >= Busy::MIN_DEPTH && self.busy.is_some() {
            let state = MoveLoop {
                alpha: at.alpha,
                best: -INFINITY,
                best_index: 0,
                searched: 0,
                forcing_marked,
                reducible,
            };
            return self.search_moves_shared(pos, at, count, tt_first, state);
        }
        let mut alpha = at.alpha;
        let mut best = -INFINITY;
        let mut best_index = 0;
        for searched in 0..count {
            let index = match tt_first {
                Some(index) if searched == 0 => index,
                _ => self.next_ordered(pos, ply, count, &mut forcing_marked),
            };
            let mv = self.lists[ply][index];
            let child = pos.play(mv);
            let child_quiet = if pos.is_irreversible(mv) {
                0
            } else {
                at.quiet + 1
            };
            self.path.push(if keys_ahead {
                self.child_keys[ply][index]
            } else {
                child.hash_key()
            });
            let window = Frame {
                alpha,
                quiet: child_quiet,
                ..at
            };
            let value = self.search_child(&child, window, searched, reducible);
            self.path.pop();
            if self.stopped {
                return None;
            }
            if value > best {
                best = value;
                best_index = index;
                if value > alpha {
                    alpha = value;
                    self.new_best_line(ply, mv);
                    if value >= at.beta {
                        self.reward(pos, ply, mv, at.depth);
                        break;
                    }
                }
            }
        }
        Some((best, best_index))
    }

    /// The move loop of [`Searcher::search_moves`] on several threads (simplified
    /// ABDADA, see `smp.rs`): a move other than the first that another thread is
    /// searching is put off to the end of the loop, and the moves searched are marked
    /// while they are.
    // Cold: called at few nodes (those `Busy::MIN_DEPTH` deep), and only on several
    // threads; laid out apart, it leaves one thread's path as it was.
    #[cold]
    #[inline(never)]
    fn search_moves_shared(
        &mut self,
        pos: &G,
        at: Frame,
        count: usize,
        tt_first: Option<usize>,
        mut state: MoveLoop,
    ) -> Option<(i32, usize)> {
        let ply = at.ply;
        let mut deferred = [0u16; MAX_DEFERRED];
        let mut deferred_len = 0;
        for picked in 0..count {
            let index = match tt_first {
                Some(index) if picked == 0 => index,
                _ => self.next_ordered(pos, ply, count, &mut state.forcing_marked),
            };
            let key = self.child_keys[ply][index];
            // There on this path (the caller checked); `?` only spares an unwrap.
            let busy = self.busy.as_deref()?;
            if state.searched > 0 && deferred_len < MAX_DEFERRED && busy.is_busy(key) {
                deferred[deferred_len] = index as u16;
                deferred_len += 1;
                continue;
            }
            busy.enter(key);
            let step = self.search_move(pos, at, index, &mut state);
            self.busy.as_deref()?.leave(key);
            match step {
                MoveStep::Next => {}
                // Past a cutoff, the moves put off are not searched either.
                MoveStep::Cut => return Some((state.best, state.best_index)),
                MoveStep::Stopped => return None,
            }
        }
        for &index in &deferred[..deferred_len] {
            match self.search_move(pos, at, index as usize, &mut state) {
                MoveStep::Next => {}
                MoveStep::Cut => break,
                MoveStep::Stopped => return None,
            }
        }
        Some((state.best, state.best_index))
    }

    /// Searches the move `index` of `lists[at.ply]` in the move loop of `at`, and keeps
    /// the loop's best value, move and alpha in `state`.
    #[inline(always)]
    fn search_move(&mut self, pos: &G, at: Frame, index: usize, state: &mut MoveLoop) -> MoveStep {
        let ply = at.ply;
        let mv = self.lists[ply][index];
        let child = pos.play(mv);
        let child_quiet = if pos.is_irreversible(mv) {
            0
        } else {
            at.quiet + 1
        };
        // The shared loop runs only where the children's keys were computed ahead.
        self.path.push(self.child_keys[ply][index]);
        let window = Frame {
            alpha: state.alpha,
            quiet: child_quiet,
            ..at
        };
        let value = self.search_child(&child, window, state.searched, state.reducible);
        self.path.pop();
        state.searched += 1;
        if self.stopped {
            return MoveStep::Stopped;
        }
        if value > state.best {
            state.best = value;
            state.best_index = index;
            if value > state.alpha {
                state.alpha = value;
                self.new_best_line(ply, mv);
                if value >= at.beta {
                    self.reward(pos, ply, mv, at.depth);
                    return MoveStep::Cut;
                }
            }
        }
        MoveStep::Next
    }

    /// The next move of the loop by the ordering scores (marked tried); the forcing
    /// moves are ranked (`forcing_marked` set) once no killer is left.
    #[inline(always)]
    fn next_ordered(
        &mut self,
        pos: &G,
        ply: usize,
        count: usize,
        forcing_marked: &mut bool,
    ) -> usize {
        let (index, score) = self.pick(ply, count);
        if score < KILLER_SCORES[1] && !*forcing_marked {
            // No killer left: put the move back and rank the forcing ones.
            self.order[ply][index] = score;
            self.mark_forcing(pos, ply);
            *forcing_marked = true;
            return self.pick(ply, count).0;
        }
        index
    }

    /// The value of `child`, the `searched`-th move of the node `at` (at its current
    /// alpha; `at.quiet` is the child's count). With PVS, a move after the first gets a
    /// null window first, and is searched again with the full window only if it beats
    /// alpha.
    #[inline(always)]
    fn search_child(&mut self, child: &G, at: Frame, searched: usize, reducible: bool) -> i32 {
        let (depth, ply, alpha, beta, quiet) = (at.depth, at.ply, at.alpha, at.beta, at.quiet);
        let mut value;
        if searched > 0 && self.config.pvs {
            // A late quiet move in a null-window node (`reducible`), which leaves the
            // opponent no capture either, is first searched one ply shallower; only if it
            // then beats alpha is it searched to full depth.
            let reduced = reducible && searched >= LMR_AFTER && child.is_quiet();
            let child_depth = depth - 1 - i32::from(reduced);
            value = -self.node(child, child_depth, ply + 1, -alpha - 1, -alpha, quiet);
            if reduced && value > alpha && !self.stopped {
                value = -self.node(child, depth - 1, ply + 1, -alpha - 1, -alpha, quiet);
            }
            if value > alpha && value < beta && !self.stopped {
                value = -self.node(child, depth - 1, ply + 1, -beta, -alpha, quiet);
            }
        } else {
            value = -self.node(child, depth - 1, ply + 1, -beta, -alpha, quiet);
        }
        value
    }

    /// A move raised alpha: its line becomes the node's principal variation (and at the
    /// root, MTD(f)'s best move and line).
    #[inline(always)]
    fn new_best_line(&mut self, ply: usize, mv: G::Move) {
        self.update_pv(ply, mv);
        if ply == 0 {
            self.root_best = Some(mv);
            self.root_pv.clear();
            self.root_pv
                .extend_from_slice(&self.pv[0][..self.pv_len[0]]);
        }
    }

    /// Stores the node's result in the table: `best` (and its move's index) as a bound
    /// against the window `at` was called with; resolved if nothing below it came from
    /// beyond the horizon since `horizon_before`.
    #[inline(always)]
    fn store_node(
        &mut self,
        key: u64,
        at: Frame,
        best: i32,
        best_index: usize,
        horizon_before: u64,
    ) {
        let bound = if best >= at.beta {
            Bound::Lower
        } else if best > at.alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let depth = if self.horizon == horizon_before {
            RESOLVED
        } else {
            at.depth as u32
        };
        self.tt.store(
            key,
            to_tt::<G>(best, at.ply),
            bound,
            depth,
            Some(best_index),
        );
    }

    /// Enhanced transposition cutoff: a child whose stored value (at enough depth) already
    /// proves this node fails high, found without searching any child.
    /// Needs the children's keys in `child_keys[ply]`. Kept out of [`Searcher::node`]:
    /// it runs only at nodes [`ETC_MIN_DEPTH`] deep, and inlined it costs the hot path
    /// registers (measured).
    #[inline(never)]
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
}

/// End scores count plies from the root; the table stores them counted from the node.
#[inline(always)]
fn to_tt<G: Game>(value: i32, ply: usize) -> i32 {
    shift_distance::<G>(value, -(ply as i32))
}

#[inline(always)]
pub(super) fn from_tt<G: Game>(value: i32, ply: usize) -> i32 {
    shift_distance::<G>(value, ply as i32)
}
