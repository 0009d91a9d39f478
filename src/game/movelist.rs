//! Fixed-capacity move buffers owned by the caller, so move generation never allocates.

use std::ops::{Deref, DerefMut};

/// Default capacity of a [`MoveList`], the one Brazilian draughts uses. Draughts stays far
/// below it: a side has at most 12 pieces (positions with more are rejected), so at most
/// 12 × 13 = 156 quiet moves; an adversarial hill-climb over legal placements found at
/// most 68 quiet moves and 34 distinct maximum captures in one position.
pub const MAX_MOVES: usize = 256;

/// What search, perft and the learners need of a game's move buffer ([`crate::game::Game::Moves`]):
/// a slice of moves with room for every legal move of any position of the game.
pub trait MoveBuffer<M>:
    Default + Clone + std::fmt::Debug + Deref<Target = [M]> + DerefMut + Send + Sync + 'static
{
    /// Most moves the buffer holds.
    const CAPACITY: usize;
    fn push(&mut self, mv: M);
    fn clear(&mut self);
    fn truncate(&mut self, len: usize);
}

/// A move buffer of capacity `N` on the stack (or inline in the searcher's per-ply
/// arrays): pushing is a store and an increment.
#[derive(Clone)]
pub struct MoveList<M, const N: usize = MAX_MOVES> {
    len: usize,
    moves: [M; N],
}

impl<M: Copy + Default, const N: usize> MoveList<M, N> {
    pub fn new() -> Self {
        MoveList {
            len: 0,
            moves: [M::default(); N],
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

impl<M, const N: usize> MoveBuffer<M> for MoveList<M, N>
where
    M: Copy + Default + std::fmt::Debug + Send + Sync + 'static,
{
    const CAPACITY: usize = N;

    #[inline(always)]
    fn push(&mut self, mv: M) {
        MoveList::push(self, mv)
    }

    #[inline(always)]
    fn clear(&mut self) {
        MoveList::clear(self)
    }

    #[inline(always)]
    fn truncate(&mut self, len: usize) {
        MoveList::truncate(self, len)
    }
}

impl<M: Copy + Default, const N: usize> Default for MoveList<M, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M, const N: usize> Deref for MoveList<M, N> {
    type Target = [M];
    #[inline(always)]
    fn deref(&self) -> &[M] {
        &self.moves[..self.len]
    }
}

impl<M, const N: usize> DerefMut for MoveList<M, N> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [M] {
        &mut self.moves[..self.len]
    }
}

impl<M: std::fmt::Debug, const N: usize> std::fmt::Debug for MoveList<M, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
