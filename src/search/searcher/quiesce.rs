//! Quiescence search: captures are compulsory, so beyond the horizon the search plays
//! them out until the position is quiet, and only a quiet position is evaluated.

use super::Searcher;
use crate::eval::{EVAL_LIMIT, Evaluator};
use crate::game::Game;
use crate::search::score::game_over_score;
use crate::search::{INFINITY, MAX_PLY};

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
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
    pub(super) fn quiesce_entered(
        &mut self,
        pos: &G,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        if let Some(tablebase) = &self.tablebase
            && let Some(score) = tablebase.score(pos, ply)
        {
            return score;
        }
        if pos.is_quiet() || ply >= MAX_PLY - 1 {
            if !pos.has_legal_move() {
                return game_over_score(pos, ply);
            }
            self.horizon += 1;
            // Lazy evaluation: bounds that fall outside the window settle the leaf.
            if let Some((low, high)) = self.evaluator.bounds(pos) {
                if high <= alpha {
                    return high;
                }
                if low >= beta {
                    return low;
                }
            }
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
}
