//! A fixed-capacity move buffer owned by the caller, so move generation never allocates.

use std::ops::{Deref, DerefMut};

/// Capacity of a [`MoveList`]. Brazilian draughts stays far below it: a side has at most
/// 12 pieces (positions with more are rejected), so at most 12 × 13 = 156 quiet moves; an
/// adversarial hill-climb over legal placements found at most 68 quiet moves and 34
/// distinct maximum captures in one position.
pub const MAX_MOVES: usize = 256;

#[derive(Clone)]
pub struct MoveList<M> {
    len: usize,
    moves: [M; MAX_MOVES],
}

impl<M: Copy + Default> MoveList<M> {
    pub fn new() -> Self {
        MoveList {
            len: 0,
            moves: [M::default(); MAX_MOVES],
        }
    }

    #[inline(always)]
    pub fn push(&mut self, mv: M) {
        self.moves[self.len] = mv;
        self.len += 1;
    }

    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline(always)]
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
}

impl<M: Copy + Default> Default for MoveList<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M> Deref for MoveList<M> {
    type Target = [M];
    #[inline(always)]
    fn deref(&self) -> &[M] {
        &self.moves[..self.len]
    }
}

impl<M> DerefMut for MoveList<M> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [M] {
        &mut self.moves[..self.len]
    }
}

impl<M: std::fmt::Debug> std::fmt::Debug for MoveList<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
