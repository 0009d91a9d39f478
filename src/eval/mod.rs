//! Static evaluation: the [`Evaluator`] trait every evaluator implements, the material
//! evaluator of the seed, the learned evaluators, and [`spec`]: choosing one at run time
//! (`material` or a model file).

pub mod features;
pub mod linear;
mod material;
pub mod spec;

pub use material::Material;

use crate::game::Game;

/// Largest absolute value an evaluator returns. Search scores beyond it (up to
/// [`crate::search::WIN`]) are won or lost games.
pub const EVAL_LIMIT: i32 = 20_000;

/// A static evaluation function for game `G`.
pub trait Evaluator<G: Game>: Send + Sync {
    /// The value of `pos` for the side to move, in centi-units (a man is 100), within
    /// ±[`EVAL_LIMIT`]. Search calls it only on quiet positions that have a legal move.
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
