//! The full check: every stored value equals the value its moves give (no move: lost in
//! 0; a move to a lost position: won in one more than the shortest such; else a move to a
//! draw: drawn; else lost in one more than the longest move). Together with the build's
//! order this leaves one labelling only for wins and losses.

use rayon::prelude::*;

use super::Egdb;
use super::index::{Material, SliceIndex};
use crate::game::ExactValue;

/// A position whose stored value its moves contradict.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub fen: String,
    pub stored: ExactValue,
    /// `None`: a move leads to a position the database does not hold.
    pub from_moves: Option<ExactValue>,
}

/// What the check of one slice found.
#[derive(Clone, Debug)]
pub struct SliceCheck {
    pub material: Material,
    pub entries: u64,
    pub mismatches: u64,
    /// The first few.
    pub examples: Vec<Mismatch>,
}

/// Checks every entry of `material`'s slice (which must be loaded) on the current rayon
/// pool.
pub fn check_slice(egdb: &Egdb, material: Material) -> SliceCheck {
    let index = SliceIndex::new(material);
    let bad: Vec<Mismatch> = (0..index.size())
        .into_par_iter()
        .filter_map(|i| {
            let pos = index.position(i);
            let stored = egdb.probe(&pos)?;
            let from_moves = egdb.from_moves(&pos).map(|(v, _)| v);
            (from_moves != Some(stored)).then(|| Mismatch {
                fen: crate::game::Game::format_position(&pos),
                stored,
                from_moves,
            })
        })
        .collect();
    SliceCheck {
        material,
        entries: index.size(),
        mismatches: bad.len() as u64,
        examples: bad.into_iter().take(5).collect(),
    }
}
