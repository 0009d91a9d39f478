//! Exact learning targets (`[training] exact_targets`): where an endgame database holds a
//! position, the TD learner fits the position's exact value instead of its prediction of
//! the next one, so the values learned near the end of a game are the true ones and the
//! earlier positions learn from them (as Schaeffer, Hlynka and Jussila trained Chinook's
//! weights with its endgame databases).

/// The value of a position under perfect play, for its side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Known {
    /// The result: 1 won, ½ drawn, 0 lost.
    Result(f64),
    /// The final margin, in the game's units (stones): the result is its sign.
    Margin(i32),
}

/// A database of exact values a run learns from.
pub trait ExactTargets<G>: Send + Sync {
    /// The value of `pos` under perfect play for its side to move; `None` outside the
    /// database.
    fn probe(&self, pos: &G) -> Option<Known>;
}
