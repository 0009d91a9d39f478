//! The network's first-layer sums kept along the search path (as NNUE engines do): one
//! searcher's [`IncrementalEval`] state.
//!
//! Each ply holds the position the search entered there and its sums from both sides'
//! points of view (a position's inputs are its board seen by the side to move, so after
//! a move the other side's accumulator is the one read, and each side's accumulator
//! changes only where the board did). Nothing is computed on entering a position: an
//! evaluation at ply `p` takes the nearest ply below with the needed side's sums up to
//! date (the root, made from scratch, when none is) and brings `p`, `p − 2`, … above it
//! up to date, each from the ply two below by the inputs that changed between the two
//! positions ([`Inputs::for_each_feature_change`]), or from scratch where the game says
//! that is cheaper. Two moves change few more inputs than one, and the plies between,
//! with the other side to move, never need this side's sums. Interior nodes whose
//! subtree is never evaluated cost a copy of their position; the sums are exact
//! integers, so the incremental value equals the from-scratch one bit for bit.

use std::marker::PhantomData;
use std::sync::Arc;

use super::clipped::{ClippedAcc, ClippedNet, ClippedScratch};
use super::quantised::{Accumulator, ActiveFeatures, MAX_BLOCKS, QuantisedNet};
use super::{ChangeSink, Inputs};
use crate::eval::IncrementalEval;
use crate::game::Side;

/// What the stack needs of an integer network: first-layer sums that a position's
/// features make ([`Network::refresh`]) and that a step's changes bring up to date
/// ([`Network::apply`]), and the value of a position from its sums.
pub trait Network: Send + Sync + 'static {
    /// One position's first-layer sums.
    type Acc: Copy + Send + 'static;
    /// Buffers an evaluation writes on its way (one per searcher).
    type Scratch: Send + 'static;
    const ZERO: Self::Acc;
    fn scratch(&self) -> Self::Scratch;
    fn input_set(&self) -> usize;
    fn phase_of<G: Inputs>(&self, pos: &G) -> usize;
    fn refresh(&self, acc: &mut Self::Acc, active: &[u16]);
    fn apply(&self, parent: &Self::Acc, acc: &mut Self::Acc, added: &[u16], removed: &[u16]);
    fn output(&self, acc: &Self::Acc, phase: usize, scratch: &mut Self::Scratch) -> i32;
    fn evaluate<G: Inputs>(&self, pos: &G) -> i32;
}

impl Network for QuantisedNet {
    type Acc = Accumulator;
    type Scratch = ();
    const ZERO: Accumulator = [[0; super::BLOCK]; MAX_BLOCKS];
    fn scratch(&self) {}
    #[inline(always)]
    fn input_set(&self) -> usize {
        QuantisedNet::input_set(self)
    }
    #[inline(always)]
    fn phase_of<G: Inputs>(&self, pos: &G) -> usize {
        QuantisedNet::phase_of(self, pos)
    }
    #[inline(always)]
    fn refresh(&self, acc: &mut Accumulator, active: &[u16]) {
        QuantisedNet::refresh(self, acc, active)
    }
    #[inline(always)]
    fn apply(&self, parent: &Accumulator, acc: &mut Accumulator, added: &[u16], removed: &[u16]) {
        QuantisedNet::apply(self, parent, acc, added, removed)
    }
    #[inline(always)]
    fn output(&self, acc: &Accumulator, phase: usize, _: &mut ()) -> i32 {
        QuantisedNet::output(self, acc, phase)
    }
    fn evaluate<G: Inputs>(&self, pos: &G) -> i32 {
        QuantisedNet::evaluate(self, pos)
    }
}

impl Network for ClippedNet {
    type Acc = ClippedAcc;
    type Scratch = Box<ClippedScratch>;
    const ZERO: ClippedAcc = ClippedAcc::ZERO;
    fn scratch(&self) -> Box<ClippedScratch> {
        Box::new(ClippedScratch::new())
    }
    #[inline(always)]
    fn input_set(&self) -> usize {
        ClippedNet::input_set(self)
    }
    #[inline(always)]
    fn phase_of<G: Inputs>(&self, pos: &G) -> usize {
        ClippedNet::phase_of(self, pos)
    }
    #[inline(always)]
    fn refresh(&self, acc: &mut ClippedAcc, active: &[u16]) {
        ClippedNet::refresh(self, acc, active)
    }
    #[inline(always)]
    fn apply(&self, parent: &ClippedAcc, acc: &mut ClippedAcc, added: &[u16], removed: &[u16]) {
        ClippedNet::apply(self, parent, acc, added, removed)
    }
    #[inline(always)]
    fn output(&self, acc: &ClippedAcc, phase: usize, scratch: &mut Box<ClippedScratch>) -> i32 {
        ClippedNet::output(self, acc, phase, scratch)
    }
    fn evaluate<G: Inputs>(&self, pos: &G) -> i32 {
        ClippedNet::evaluate(self, pos)
    }
}

/// One searcher's accumulators for a network `N`, `plies` deep; allocated once.
pub struct AccumulatorStack<G, N: Network> {
    net: Arc<N>,
    /// The position entered at each ply (the stack grows to `plies` as the search goes
    /// deeper, within the capacity reserved at the start).
    positions: Vec<G>,
    /// Sums of each ply's position, from each side's point of view (`Side::index`).
    sums: Vec<[N::Acc; 2]>,
    /// Which of `sums` hold the sums of the position now entered at that ply.
    current: Vec<[bool; 2]>,
    /// The lists a step's changes are written to (kept here: a new list would be cleared
    /// at every step).
    lists: ChangeLists,
    scratch: N::Scratch,
    game: PhantomData<fn() -> G>,
}

impl<G: Inputs, N: Network> AccumulatorStack<G, N> {
    pub fn new(net: Arc<N>, plies: usize) -> AccumulatorStack<G, N> {
        AccumulatorStack {
            scratch: net.scratch(),
            net,
            positions: Vec::with_capacity(plies),
            sums: vec![[N::ZERO; 2]; plies],
            current: vec![[false; 2]; plies],
            lists: ChangeLists::new(),
            game: PhantomData,
        }
    }

    /// Brings `sums[ply][side]` up to date (`ply` is within the stack): from the nearest
    /// ply below whose sums are (else from the root's sums made from scratch) by steps of
    /// two plies, bringing up to date the plies `ply − 2`, `ply − 4`, … on the way. The
    /// siblings and cousins evaluated next then find a base two plies below them, and
    /// each evaluation costs one pass over the sums: plies with the other side to move,
    /// whose sums from this side's point of view are never read, are skipped.
    #[inline]
    fn update(&mut self, ply: usize, side: Side) {
        let s = side.index();
        if self.current[ply][s] {
            return;
        }
        let base = match (0..ply).rev().find(|&k| self.current[k][s]) {
            Some(base) => base,
            None => {
                self.refresh(0, side);
                0
            }
        };
        if base == ply {
            // The root, just made.
            return;
        }
        // The plies `ply`, `ply − 2`, … above `base`, lowest first.
        let mut from = base;
        let mut to = ply - 2 * ((ply - base - 1) / 2);
        loop {
            self.step(from, to, side);
            if to == ply {
                return;
            }
            from = to;
            to += 2;
        }
    }

    /// `sums[to][side]` from `sums[from][side]` (up to date) by the inputs that differ
    /// between the two plies' positions, or from scratch where the game says that is
    /// cheaper or they are too many.
    #[inline(always)]
    fn step(&mut self, from: usize, to: usize, side: Side) {
        let s = side.index();
        // The counts are the step's own, so that they stay in registers.
        let mut changes = FeatureChanges::new(&mut self.lists);
        let diffed = self.positions[from].for_each_feature_change(
            self.net.input_set(),
            &self.positions[to],
            side,
            &mut changes,
        );
        if diffed && changes.complete() {
            let (below, above) = self.sums.split_at_mut(to);
            self.net.apply(
                &below[from][s],
                &mut above[0][s],
                changes.added(),
                changes.removed(),
            );
            self.current[to][s] = true;
        } else {
            self.refresh(to, side);
        }
    }

    fn refresh(&mut self, ply: usize, side: Side) {
        let active = ActiveFeatures::of(&self.positions[ply], self.net.input_set(), side);
        self.net.refresh(&mut self.sums[ply][side.index()], &active);
        self.current[ply][side.index()] = true;
    }
}

impl<G: Inputs, N: Network> IncrementalEval<G> for AccumulatorStack<G, N> {
    #[inline]
    fn enter(&mut self, pos: &G, ply: usize) {
        // Plies are entered in order: ply p only after ply p − 1.
        if let Some(slot) = self.positions.get_mut(ply) {
            *slot = *pos;
        } else if ply == self.positions.len() && ply < self.current.len() {
            self.positions.push(*pos);
        } else {
            return;
        }
        self.current[ply] = [false; 2];
    }

    #[inline]
    fn evaluate(&mut self, pos: &G, ply: usize) -> i32 {
        if ply >= self.positions.len() || self.positions[ply] != *pos {
            // Not the position entered at this ply: no sums kept for it.
            return self.net.evaluate(pos);
        }
        let side = pos.side_to_move();
        self.update(ply, side);
        self.net.output(
            &self.sums[ply][side.index()],
            self.net.phase_of(pos),
            &mut self.scratch,
        )
    }
}

/// Most features one step (the moves between two plies) may add, and remove, for its sums
/// to be brought up to date from the lower ply's; past that the sums are made from
/// scratch, which gives the same sums (a game's encoding may say sooner:
/// [`Inputs::for_each_feature_change`]).
const MAX_CHANGES: usize = 32;

/// Slots of each of [`FeatureChanges`]' lists: a power of two above [`MAX_CHANGES`], so
/// that while a list holds at most `MAX_CHANGES` changes no write (a kept one, or one not
/// kept at its count) wraps onto them.
const CHANGE_SLOTS: usize = 2 * MAX_CHANGES;

/// Where the features one step adds and removes are written.
struct ChangeLists {
    added: [u16; CHANGE_SLOTS],
    removed: [u16; CHANGE_SLOTS],
}

impl ChangeLists {
    fn new() -> ChangeLists {
        ChangeLists {
            added: [0; CHANGE_SLOTS],
            removed: [0; CHANGE_SLOTS],
        }
    }
}

/// The features one step adds and removes ([`Inputs::for_each_feature_change`]). Each
/// push writes at its list's count modulo [`CHANGE_SLOTS`], with no bounds check and no
/// branch: past [`MAX_CHANGES`] the lists are not read (the sums are made from scratch).
struct FeatureChanges<'a> {
    lists: &'a mut ChangeLists,
    added_count: usize,
    removed_count: usize,
}

impl ChangeSink for FeatureChanges<'_> {
    #[inline(always)]
    fn push(&mut self, feature: usize, on: bool) {
        self.push_if(true, feature, on);
    }

    /// Written whether kept or not, counted only if kept.
    #[inline(always)]
    fn push_if(&mut self, keep: bool, feature: usize, on: bool) {
        let (list, count) = if on {
            (&mut self.lists.added, &mut self.added_count)
        } else {
            (&mut self.lists.removed, &mut self.removed_count)
        };
        // Features number fewer than `MAX_INPUTS` = 4096, so they fit a `u16`.
        list[*count % CHANGE_SLOTS] = feature as u16;
        *count += usize::from(keep);
    }
}

impl<'a> FeatureChanges<'a> {
    /// No changes yet, written to `lists`.
    fn new(lists: &'a mut ChangeLists) -> FeatureChanges<'a> {
        FeatureChanges {
            lists,
            added_count: 0,
            removed_count: 0,
        }
    }

    /// Whether the lists hold all the changes: at most [`MAX_CHANGES`] of each kind.
    fn complete(&self) -> bool {
        self.added_count <= MAX_CHANGES && self.removed_count <= MAX_CHANGES
    }

    fn added(&self) -> &[u16] {
        &self.lists.added[..self.added_count]
    }

    fn removed(&self) -> &[u16] {
        &self.lists.removed[..self.removed_count]
    }
}

#[cfg(test)]
mod tests {
    use super::{ChangeLists, ChangeSink, FeatureChanges, MAX_CHANGES};

    /// The lists hold exactly the changes kept, in order, whatever was written and not
    /// kept between them; past [`MAX_CHANGES`] of a kind they say they are incomplete.
    #[test]
    fn change_lists_keep_what_is_kept_and_know_when_they_are_full() {
        let mut lists = ChangeLists::new();
        let mut changes = FeatureChanges::new(&mut lists);
        let (mut added, mut removed) = (Vec::new(), Vec::new());
        for i in 0..4 * MAX_CHANGES {
            let keep = i % 3 != 0;
            let on = i % 2 == 0;
            changes.push_if(keep, i, on);
            if keep {
                if on { &mut added } else { &mut removed }.push(i as u16);
            }
            if added.len() <= MAX_CHANGES && removed.len() <= MAX_CHANGES {
                assert!(changes.complete(), "after {i}");
                assert_eq!(
                    (changes.added(), changes.removed()),
                    (&added[..], &removed[..])
                );
            } else {
                assert!(!changes.complete(), "after {i}");
            }
        }
        changes.push(7, true);
        assert!(!changes.complete());
    }
}
