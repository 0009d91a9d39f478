//! How a game shows itself to a person and reads what the person types: the board as
//! text, moves in every notation the game has, a typed move that may be only part of a
//! turn. The terminal (`evalearn play`) and the browser (`evalearn serve`) both read moves
//! through it.

use super::{EndReason, Game, Outcome};

/// What a game needs to be played in the terminal.
pub trait Terminal: Game {
    /// How to type a move, for `help`.
    const MOVE_HELP: &'static str;
    /// Random plies (whole turns) of the openings of matches and self-play by default.
    const OPENING_PLIES: u32;
    /// The board as the game draws it; `flipped` turns it around (the second player's
    /// side nearest to the person).
    fn render(&self, flipped: bool) -> String;
    /// A legal move in every notation the game has (`22-17 (c3-b4)`; Kalah `1,2`).
    fn describe_move(&self, mv: Self::Move) -> String;
    /// A legal move in the game's notation, or its alternative notation when `algebraic`
    /// is set and the game has one (draughts: `c3-d4`).
    fn notation(&self, mv: Self::Move, algebraic: bool) -> String {
        let _ = algebraic;
        self.format_move(mv)
    }
    /// What a person typed for the side to move: a move, a turn that goes on (a Kalah
    /// sowing that ended in the store: the position so far is shown and the person types
    /// the next sowing), or why the text is no move.
    fn read_move(&self, text: &str) -> MoveInput<Self>;
    /// How a finished game ended, in words (`white wins (the side to move has no
    /// move)`, `B wins 40–32`).
    fn describe_end(&self, outcome: Outcome, reason: EndReason) -> String;
}

/// What a typed move turned out to be.
pub enum MoveInput<G: Game> {
    Move(G::Move),
    /// The turn goes on: the position after what was typed, the same side to move.
    Continue(G),
    Invalid(String),
}
