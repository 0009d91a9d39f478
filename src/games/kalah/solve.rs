//! Exact solver: the final store margin of a Kalah position under perfect play by both
//! sides, maximising the margin (not only win or loss).
//!
//! **What is solved.** The future of a game depends only on the twelve pits and on who
//! moves; the stores only keep what was banked. So
//! `value(position) = (mover's store − opponent's store) + V(pits)`, where `V` — the
//! margin still to be banked, from the side to move — is a function of the pits turned to
//! the side to move ([`board::Pits`]). Everything the solver stores is about `V`: the
//! transposition table ([`table`]) and the endgame database ([`db`]) are keyed on the
//! pits alone, so positions differing only in their stores, or mirrored, transpose.
//!
//! **How.** Fail-soft alpha-beta (negamax over compound moves, the moves of
//! [`Game::legal_moves`]) driven by MTD(f): a sequence of null-window tests `V ≥ β` that
//! close the proven bounds `[lower, upper]` on `V` until they meet. Bounds proven by a
//! test stay true for every later test (the search goes to the end of the game), so the
//! table keeps lower and upper bounds with no depth. Pruning besides alpha-beta: `V` lies
//! within ±(stones in the pits), and a move's score within `banked ± (stones left)`; the
//! children whose value is known (end of game, database) or bounded well enough by the
//! table are looked at before any is searched (enhanced transposition cutoffs). Moves are
//! tried table move first, then by what they bank at once (captures and sowings into the
//! store first). Positions with at most N stones in the pits are read from the database.
//!
//! Deterministic: one thread, and the database does not depend on the thread count. The
//! search allocates nothing per node (one stack of children, reused).

pub mod board;
pub mod cache;
pub mod db;
pub mod file;
pub mod table;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use board::{Child, Pits, final_value, for_each_child, pits_of, stones};
use db::EndgameDb;
use table::BoundTable;

use super::{Kalah, KalahMove, KalahRules};

/// Default size of the endgame database in stones: C(32, 12) ≈ 226 million
/// configurations, 215 MiB, built in well under a minute on two cores.
pub const DEFAULT_DB_STONES: u32 = 20;
/// Default size of the transposition table in MiB.
pub const DEFAULT_TT_MIB: usize = 1024;

/// A child on the solver's stack, with what is known of its score before it is searched.
#[derive(Clone, Copy, Default)]
struct Candidate {
    child: Child,
    /// Highest score the move can have: `banked − (lower bound on the child's V)`.
    upper: i32,
    /// Order key, higher first.
    key: i32,
}

/// One null-window test of the root: `V ≥ beta` held or not, and the bounds known after.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Probe {
    /// The test was `V ≥ beta` (`V` the margin still to be banked from the root).
    pub beta: i32,
    /// True if it held.
    pub held: bool,
    /// Proven bounds on `V` after the test.
    pub lower: i32,
    pub upper: i32,
    /// Nodes searched so far and time since the solve started.
    pub nodes: u64,
    pub elapsed: Duration,
}

/// The solution of a position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Solution {
    /// The final store margin of the side to move (its final store minus the
    /// opponent's) under perfect play.
    pub value: i32,
    /// The margin still to be banked, `V(pits)`: `value` minus the present store margin.
    pub future: i32,
    /// Nodes searched to prove the value.
    pub nodes: u64,
    /// Time to prove the value.
    pub elapsed: Duration,
    /// The null-window tests, in order.
    pub probes: Vec<Probe>,
}

/// The exact solver; keeps its table between positions (the bounds stay true).
pub struct Solver {
    rules: KalahRules,
    db: Option<Arc<EndgameDb>>,
    table: BoundTable,
    stack: Vec<Candidate>,
    nodes: u64,
    /// Node count at which a capped solve gives up ([`Solver::solve_capped`]).
    node_limit: u64,
    /// Set when the node limit was reached or `stop` raised: every search returns at
    /// once, storing nothing (a value cut short is not a bound).
    aborted: bool,
    /// Raised (by Ctrl-C) to end a solve early: looked at every [`STOP_CHECK_NODES`].
    stop: Option<Arc<AtomicBool>>,
}

/// Nodes between two looks at the stop flag (well under a millisecond of solving).
const STOP_CHECK_NODES: u64 = 1 << 14;

impl Solver {
    /// A solver for `rules` with a table of `tt_mib` MiB and the endgame database `db`
    /// (built for the same capture rule), if any.
    pub fn new(
        rules: KalahRules,
        tt_mib: usize,
        db: Option<Arc<EndgameDb>>,
    ) -> Result<Solver, String> {
        Solver::check_db(rules, db.as_deref())?;
        Ok(Solver {
            rules,
            db,
            table: BoundTable::new(tt_mib),
            stack: Vec::with_capacity(4096),
            nodes: 0,
            node_limit: u64::MAX,
            aborted: false,
            stop: None,
        })
    }

    /// Refuses an endgame database built for the other capture rule than `rules`'.
    pub fn check_db(rules: KalahRules, db: Option<&EndgameDb>) -> Result<(), String> {
        match db {
            Some(db) if !db.serves(rules) => Err(format!(
                "the endgame database was built for the other capture rule than {}",
                rules.name()
            )),
            _ => Ok(()),
        }
    }

    /// Makes solves end early once `stop` is raised; [`Solver::stopped`] then tells.
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> Solver {
        self.stop = Some(stop);
        self
    }

    /// Whether the stop flag was raised: a solution returned since is the bound proven
    /// before it (see its probes), not the value.
    pub fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// The transposition table (for its size and use).
    pub fn table(&self) -> &BoundTable {
        &self.table
    }

    /// Empties the table: later solves (capped ones included) behave as a new solver's.
    pub fn forget(&mut self) {
        self.table.clear();
    }

    /// The endgame database, if any.
    pub fn db(&self) -> Option<&EndgameDb> {
        self.db.as_deref()
    }

    /// Nodes searched since the solver was made.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Solves `pos`; see [`Solver::solve_with`].
    pub fn solve(&mut self, pos: &Kalah) -> Result<Solution, String> {
        self.solve_with(pos, |_| {})
    }

    /// Solves `pos`, calling `on_probe` after each null-window test (for progress
    /// reports on long solves). Fails if `pos` is of another capture rule.
    pub fn solve_with(
        &mut self,
        pos: &Kalah,
        on_probe: impl FnMut(&Probe),
    ) -> Result<Solution, String> {
        self.check_rules(pos)?;
        let started = Instant::now();
        let nodes_before = self.nodes;
        let mut probes = Vec::new();
        let future = self.future_value_with(&pits_of(pos), started, &mut probes, on_probe);
        Ok(Solution {
            value: pos.store_margin() + future,
            future,
            nodes: self.nodes - nodes_before,
            elapsed: started.elapsed(),
            probes,
        })
    }

    /// Solves `pos` within `max_nodes` nodes: `Ok(None)` if it takes more. The bounds
    /// proven before giving up stay in the table, so a later try starts from them.
    pub fn solve_capped(
        &mut self,
        pos: &Kalah,
        max_nodes: u64,
    ) -> Result<Option<Solution>, String> {
        self.node_limit = self.nodes.saturating_add(max_nodes);
        let solution = self.solve(pos);
        let aborted = std::mem::replace(&mut self.aborted, false);
        self.node_limit = u64::MAX;
        Ok(solution?).map(|s| (!aborted).then_some(s))
    }

    /// A move of `pos` that keeps its value, with the value, within `max_nodes` nodes
    /// (solving and then proving the move); `Ok(None)` if it takes more, or if the game
    /// is over.
    pub fn best_move_capped(
        &mut self,
        pos: &Kalah,
        max_nodes: u64,
    ) -> Result<Option<(KalahMove, Solution)>, String> {
        let Some(solution) = self.solve_capped(pos, max_nodes)? else {
            return Ok(None);
        };
        self.node_limit = self.nodes.saturating_add(max_nodes);
        let mv = self.first_move_keeping(&pits_of(pos), solution.future);
        let aborted = std::mem::replace(&mut self.aborted, false);
        self.node_limit = u64::MAX;
        Ok(mv.filter(|_| !aborted).map(|mv| (mv, solution)))
    }

    /// `V(pits)`: the margin the side to move banks from here on under perfect play.
    pub fn future_value(&mut self, pits: &Pits) -> i32 {
        self.future_value_with(pits, Instant::now(), &mut Vec::new(), |_| {})
    }

    /// A principal variation from `pos` to the end of the game: each move keeps the
    /// value `solution` proved. Proving each step costs null-window searches of the
    /// children (cheap with the table the solve left).
    pub fn principal_variation(
        &mut self,
        pos: &Kalah,
        solution: &Solution,
    ) -> Result<Vec<KalahMove>, String> {
        self.check_rules(pos)?;
        let mut pits = pits_of(pos);
        let mut future = solution.future;
        let mut line = Vec::new();
        let mut children = Vec::new();
        while final_value(&pits).is_none() {
            let keeps_value = self
                .child_keeping(&pits, future, &mut children)
                .ok_or_else(|| format!("no move keeps the value {future} of {pits:?}"))?;
            line.push(keeps_value.mv);
            future = i32::from(keeps_value.banked) - future;
            pits = keeps_value.pits;
        }
        Ok(line)
    }

    /// The first move of `pits` (table move first, then by what it banks) whose score is
    /// `future`, the value of `pits`; `None` for a finished game (or a wrong value).
    fn first_move_keeping(&mut self, pits: &Pits, future: i32) -> Option<KalahMove> {
        self.child_keeping(pits, future, &mut Vec::new())
            .map(|c| c.mv)
    }

    fn child_keeping(
        &mut self,
        pits: &Pits,
        future: i32,
        children: &mut Vec<Child>,
    ) -> Option<Child> {
        children.clear();
        for_each_child(pits, self.rules, |c| children.push(c));
        let tt_best = self.table.probe(pits).and_then(|b| b.best);
        children.sort_by_key(|c| (Some(c.index as usize) != tt_best, -i32::from(c.banked)));
        children
            .iter()
            .copied()
            .find(|c| self.child_reaches(c, future))
    }

    fn check_rules(&self, pos: &Kalah) -> Result<(), String> {
        if pos.rules().empty_capture != self.rules.empty_capture {
            return Err(format!(
                "the solver plays {}, the position {}",
                self.rules.name(),
                pos.rules().name()
            ));
        }
        Ok(())
    }

    /// True if the move to `child` scores at least `future` (so exactly `future`, when
    /// that is the parent's value): the child's V is at most `banked − future`.
    fn child_reaches(&mut self, child: &Child, future: i32) -> bool {
        let bound = i32::from(child.banked) - future;
        self.search(&child.pits, bound, bound + 1) <= bound
    }

    /// MTD(f): null-window tests from a first guess of 0, each next test at the value the
    /// last one returned, until the bounds meet.
    fn future_value_with(
        &mut self,
        pits: &Pits,
        started: Instant,
        probes: &mut Vec<Probe>,
        mut on_probe: impl FnMut(&Probe),
    ) -> i32 {
        if let Some(value) = self.known_value(pits) {
            return value;
        }
        let stones = stones(pits) as i32;
        let (mut lower, mut upper) = (-stones, stones);
        let mut guess = 0;
        while lower < upper {
            let beta = if guess <= lower {
                lower + 1
            } else {
                guess.min(upper)
            };
            let value = self.search(pits, beta - 1, beta);
            if self.aborted {
                break;
            }
            let held = value >= beta;
            if held {
                lower = value.max(lower);
            } else {
                upper = value.min(upper);
            }
            let probe = Probe {
                beta,
                held,
                lower,
                upper,
                nodes: self.nodes,
                elapsed: started.elapsed(),
            };
            on_probe(&probe);
            probes.push(probe);
            guess = value;
        }
        if self.node_limit == u64::MAX {
            // Stopped, not capped (capped solves report it first): the next solve starts
            // afresh.
            self.aborted = false;
        }
        lower
    }

    /// V of a finished game or of pits the database holds.
    #[inline(always)]
    fn known_value(&self, pits: &Pits) -> Option<i32> {
        if let Some(value) = final_value(pits) {
            return Some(value);
        }
        let db = self.db.as_ref()?;
        (stones(pits) <= db.stones()).then(|| db.stored(pits))
    }

    /// Fail-soft alpha-beta on V: returns `v` with `v ≤ alpha` ⇒ `V ≤ v`, `v ≥ beta` ⇒
    /// `V ≥ v`, else `V = v`.
    fn search(&mut self, pits: &Pits, alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes >= self.node_limit
            || (self.nodes.is_multiple_of(STOP_CHECK_NODES) && self.stopped())
        {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        if let Some(value) = self.known_value(pits) {
            return value;
        }
        let stones = stones(pits) as i32;
        let (mut lower, mut upper) = (-stones, stones);
        let mut tt_best = None;
        if let Some(bounds) = self.table.probe(pits) {
            lower = lower.max(bounds.lower);
            upper = upper.min(bounds.upper);
            tt_best = bounds.best;
        }
        if lower >= beta || lower == upper {
            return lower;
        }
        if upper <= alpha {
            return upper;
        }

        let nodes_before = self.nodes;
        let base = self.stack.len();
        let (best, best_index) = match self.expand(pits, tt_best, beta) {
            Err(cutoff) => cutoff,
            Ok(mut best) => {
                let mut best_index = None;
                for i in base..self.stack.len() {
                    let candidate = self.stack[i];
                    let floor = alpha.max(best);
                    if candidate.upper <= floor {
                        // Cannot raise the score past alpha: only its bound counts.
                        best = best.max(candidate.upper);
                        continue;
                    }
                    let banked = i32::from(candidate.child.banked);
                    let score =
                        banked - self.search(&candidate.child.pits, banked - beta, banked - floor);
                    if self.aborted {
                        break;
                    }
                    if score > best {
                        best = score;
                        best_index = Some(candidate.child.index as usize);
                        if best >= beta {
                            break;
                        }
                    }
                }
                (best, best_index)
            }
        };
        self.stack.truncate(base);
        if self.aborted {
            return 0;
        }

        let work = self.nodes - nodes_before;
        if best >= beta {
            self.table.store(pits, best, stones, best_index, work);
        } else if best <= alpha {
            self.table.store(pits, -stones, best, None, work);
        } else {
            self.table.store(pits, best, best, best_index, work);
        }
        best
    }

    /// Pushes the children of `pits` on the stack, ordered, with their score bounds.
    /// Children whose score is known exactly (game over, database) are scored at once and
    /// left off; so is any child the table proves good enough for a cutoff. Returns the
    /// best known score so far (`Ok`), or `Err((score, move index))` if one reaches `beta`.
    fn expand(
        &mut self,
        pits: &Pits,
        tt_best: Option<usize>,
        beta: i32,
    ) -> Result<i32, (i32, Option<usize>)> {
        let base = self.stack.len();
        let rules = self.rules;
        let stack = &mut self.stack;
        for_each_child(pits, rules, |child| {
            stack.push(Candidate {
                child,
                upper: 0,
                key: 0,
            })
        });
        let mut best = i32::MIN;
        let mut kept = base;
        for i in base..self.stack.len() {
            let mut candidate = self.stack[i];
            let child = &candidate.child;
            let banked = i32::from(child.banked);
            if let Some(value) = self.known_value(&child.pits) {
                best = best.max(banked - value);
                if best >= beta {
                    return Err((best, Some(child.index as usize)));
                }
                continue;
            }
            let mut child_lower = -(stones(&child.pits) as i32);
            if let Some(bounds) = self.table.probe(&child.pits) {
                child_lower = bounds.lower;
                if banked - bounds.upper >= beta {
                    return Err((banked - bounds.upper, Some(child.index as usize)));
                }
            }
            candidate.upper = banked - child_lower;
            candidate.key = if Some(child.index as usize) == tt_best {
                i32::MAX
            } else {
                order_key(banked, child.index)
            };
            self.stack[kept] = candidate;
            kept += 1;
        }
        self.stack.truncate(kept);
        self.stack[base..].sort_unstable_by_key(|c| std::cmp::Reverse(c.key));
        Ok(best)
    }
}

/// Moves that bank more first (captures, sowings into the store); among equals, the
/// order of generation (a total order, so sorting is deterministic).
#[inline(always)]
fn order_key(banked: i32, index: u16) -> i32 {
    banked * 4096 - i32::from(index)
}
