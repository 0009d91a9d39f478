//! Static evaluation at run time: the [`Evaluator`] trait every evaluator implements, the
//! games' hand-made evaluators (draughts material; Kalah's stores, pit activity and
//! Tseitin's formula), the learned evaluators' run-time halves (the linear sum, GLEM's
//! compiled tables, the perceptron's forward pass), [`lazy`]: bounds on a model's value
//! from the baseline, and [`spec`]: choosing one at run time. Training lives with the
//! learners and builds on this module, never the reverse.

pub mod glem;
pub mod lazy;
pub mod linear;
pub mod spec;
pub mod td;

use crate::game::Game;

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

    /// Centi-units per logit when the evaluator's values are logits of the expected
    /// result (σ(value / scale) is the side to move's expected score: TD, GLEM); `None`
    /// for values that are no probability (material).
    fn logit_scale(&self) -> Option<f64> {
        None
    }

    /// State for one searcher that evaluates incrementally along the search path, able
    /// to hold `plies` plies (root at ply 0); `None` (the default): the search calls
    /// [`Evaluator::evaluate`] and pays nothing more.
    fn incremental(&self, plies: usize) -> Option<Box<dyn IncrementalEval<G>>> {
        let _ = plies;
        None
    }

    /// Bounds `(low, high)` on [`Evaluator::evaluate`]'s value of `pos`, known for less
    /// than the value costs: the search settles a leaf by them where they fall outside its
    /// window ([`lazy`]). `None` (the default): the search always evaluates.
    fn bounds(&self, pos: &G) -> Option<(i32, i32)> {
        let _ = pos;
        None
    }
}

/// An evaluator's per-searcher incremental state ([`Evaluator::incremental`]): the search
/// tells it each position it enters and asks it for the static values.
pub trait IncrementalEval<G: Game>: Send {
    /// The search entered `pos` at `ply`: the root at 0, a child of the position entered
    /// last at `ply − 1` at `ply`.
    fn enter(&mut self, pos: &G, ply: usize);

    /// The evaluator's [`Evaluator::evaluate`] value of `pos`, the position entered last
    /// at `ply`, bit for bit (for any other position it evaluates from scratch).
    fn evaluate(&mut self, pos: &G, ply: usize) -> i32;
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for &E {
    fn evaluate(&self, pos: &G) -> i32 {
        (**self).evaluate(pos)
    }
    fn name(&self) -> String {
        (**self).name()
    }
    fn logit_scale(&self) -> Option<f64> {
        (**self).logit_scale()
    }
    fn incremental(&self, plies: usize) -> Option<Box<dyn IncrementalEval<G>>> {
        (**self).incremental(plies)
    }
    fn bounds(&self, pos: &G) -> Option<(i32, i32)> {
        (**self).bounds(pos)
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for Box<E> {
    fn evaluate(&self, pos: &G) -> i32 {
        (**self).evaluate(pos)
    }
    fn name(&self) -> String {
        (**self).name()
    }
    fn logit_scale(&self) -> Option<f64> {
        (**self).logit_scale()
    }
    fn incremental(&self, plies: usize) -> Option<Box<dyn IncrementalEval<G>>> {
        (**self).incremental(plies)
    }
    fn bounds(&self, pos: &G) -> Option<(i32, i32)> {
        (**self).bounds(pos)
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for std::sync::Arc<E> {
    fn evaluate(&self, pos: &G) -> i32 {
        (**self).evaluate(pos)
    }
    fn name(&self) -> String {
        (**self).name()
    }
    fn logit_scale(&self) -> Option<f64> {
        (**self).logit_scale()
    }
    fn incremental(&self, plies: usize) -> Option<Box<dyn IncrementalEval<G>>> {
        (**self).incremental(plies)
    }
    fn bounds(&self, pos: &G) -> Option<(i32, i32)> {
        (**self).bounds(pos)
    }
}

/// A game evalearn can evaluate: its hand-made evaluators by name, and the kinds of
/// learned models it reads — those whose inputs it provides (Samuel's linear sum over
/// named features, [`linear::Features`]; GLEM's configurations of atoms, [`glem::Atoms`];
/// the TD network's inputs, [`td::Inputs`]).
pub trait EvalGame: Game {
    /// The game's hand-made evaluators.
    type Builtin: Evaluator<Self> + Clone + std::fmt::Debug + Send + Sync + 'static;
    /// Their names; the first is the baseline learned models are measured against
    /// (draughts `material`, Kalah `stores`).
    const BUILTINS: &'static [&'static str];
    /// The hand-made evaluator called `name`, if the game has one.
    fn builtin(name: &str) -> Option<Self::Builtin>;
    /// The kinds of model files the game reads (`linear::kind::<Self>()`, …); none by
    /// default.
    const MODEL_KINDS: &'static [spec::ModelKind<Self>] = &[];
    /// Whether a loaded model searches with lazy evaluation ([`lazy`]): worth it where
    /// the baseline's value narrows a model's enough that many leaves are settled by it;
    /// off by default.
    const LAZY_EVALUATION: bool = false;
}

/// The baseline evaluator of `G` (the first of [`EvalGame::BUILTINS`]).
pub fn baseline<G: EvalGame>() -> G::Builtin {
    G::builtin(G::BUILTINS[0]).expect("every game names its baseline")
}
