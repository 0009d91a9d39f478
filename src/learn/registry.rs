//! The learners evalearn ships: the one place that lists them. A learner is one module
//! of `learn/` (its settings section, its [`LearnerKind`] and its [`Learner`]); a game
//! offers those whose inputs it provides ([`TrainGame::learners`]).
//!
//! [`Learner`]: super::learner::Learner

use super::glem::Glem;
use super::learner::{LearnerKind, LearnerSection, TrainGame};
use super::samuel::Samuel;
use super::td::Td;
use crate::eval::glem::Atoms;
use crate::eval::linear::Features;
use crate::eval::td::Inputs;

/// Their config sections, read with every config (`[samuel]`, `[glem]`, `[td]`).
pub static SECTIONS: [&dyn LearnerSection; 3] = [&Samuel, &Glem, &Td];

/// All of them, for a game that provides every one's inputs: Samuel's named features
/// ([`Features`]), GLEM's atoms ([`Atoms`]), the TD network's inputs ([`Inputs`]).
pub fn all<G: TrainGame + Features + Atoms + Inputs>() -> Vec<&'static dyn LearnerKind<G>> {
    vec![&Samuel, &Glem, &Td]
}
