//! Move ordering of the main search: after the table's move, the two killers, then (from
//! [`FORCING_MIN_DEPTH`]) the forcing moves, then the rest by history; and picking the
//! next move from the scores, one at a time, since a cutoff often comes early.

use super::Searcher;
use crate::eval::Evaluator;
use crate::game::Game;

/// Ordering scores of the two killers (the table's move is searched before any
/// ordering); history scores stay below them.
pub(super) const KILLER_SCORES: [i32; 2] = [1 << 29, 1 << 28];
/// Largest history score: a forcing move's score (history + [`FORCING_SCORE`]) stays
/// below the second killer's.
const HISTORY_MAX: u32 = (1 << 27) - 1;
/// Added to a forcing move's history score: above any history, below the killers.
const FORCING_SCORE: i32 = 1 << 27;
/// Forcing moves are found from this remaining depth on: below it, telling them apart
/// (playing every move and looking for the opponent's captures) costs more time than
/// the smaller tree saves.
pub(super) const FORCING_MIN_DEPTH: i32 = 2;
/// Marks a move already tried in the ordering scores.
const TRIED: i32 = i32::MIN;

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    /// Ordering scores: the killers, then the other moves by history; the table's move
    /// (`searched`, searched first) is marked tried.
    #[inline]
    pub(super) fn score_moves(&mut self, pos: &G, ply: usize, searched: Option<usize>) {
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
    // Always: inlined into the node's loop as when it had one caller (the loop on several
    // threads is a second, and LLVM then keeps it apart: 1% more instructions).
    #[inline(always)]
    pub(super) fn mark_forcing(&mut self, pos: &G, ply: usize) {
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
    pub(super) fn pick(&mut self, ply: usize, count: usize) -> (usize, i32) {
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
    pub(super) fn reward(&mut self, pos: &G, ply: usize, mv: G::Move, depth: i32) {
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
