//! Static evaluation at run time: the [`Evaluator`] trait every evaluator implements, the
//! games' hand-made evaluators (draughts material; Kalah's stores, pit activity and
//! Tseitin's formula), the learned evaluators' run-time halves (the linear sum, GLEM's
//! compiled tables, the perceptron's forward pass), and [`spec`]: choosing one at run
//! time. Training lives with the learners and builds on this module, never the reverse.

pub mod glem;
pub mod kalah;
pub mod linear;
mod material;
pub mod spec;
pub mod td;

pub use material::Material;

use crate::game::{Game, GameFile};

/// Largest absolute value an evaluator returns. Search scores beyond it (up to
/// [`crate::search::WIN`]) are won or lost games.
pub const EVAL_LIMIT: i32 = 20_000;

/// A static evaluation function for game `G`.
pub trait Evaluator<G: Game>: Send + Sync {
    /// The value of `pos` for the side to move, in centi-units (a draughts man, a Kalah
    /// stone is 100), within ±[`EVAL_LIMIT`]. Search calls it only on quiet positions that
    /// have a legal move.
    fn evaluate(&self, pos: &G) -> i32;

    /// A short name for reports (`material`, a model's file name).
    fn name(&self) -> String;
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for &E {
    fn evaluate(&self, pos: &G) -> i32 {
        (**self).evaluate(pos)
    }
    fn name(&self) -> String {
        (**self).name()
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for Box<E> {
    fn evaluate(&self, pos: &G) -> i32 {
        (**self).evaluate(pos)
    }
    fn name(&self) -> String {
        (**self).name()
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for std::sync::Arc<E> {
    fn evaluate(&self, pos: &G) -> i32 {
        (**self).evaluate(pos)
    }
    fn name(&self) -> String {
        (**self).name()
    }
}

/// A game evalearn can evaluate, learn and play from the command line: its hand-made
/// evaluators by name, the inputs of each learned evaluator (Samuel's named features,
/// GLEM's atoms, the TD network's inputs), and its game files.
pub trait EvalGame: Game + GameFile + linear::Features + glem::Atoms + td::Inputs {
    /// The game's hand-made evaluators.
    type Builtin: Evaluator<Self> + Clone + std::fmt::Debug + Send + Sync + 'static;
    /// Their names; the first is the baseline learned models are measured against
    /// (draughts `material`, Kalah `stores`).
    const BUILTINS: &'static [&'static str];
    /// The hand-made evaluator called `name`, if the game has one.
    fn builtin(name: &str) -> Option<Self::Builtin>;
}

/// The baseline evaluator of `G` (the first of [`EvalGame::BUILTINS`]).
pub fn baseline<G: EvalGame>() -> G::Builtin {
    G::builtin(G::BUILTINS[0]).expect("every game names its baseline")
}
