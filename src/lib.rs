//! evalearn: learns evaluation functions for board games by self-play.
//!
//! - [`game`]: the [`game::Game`] trait and its games (Brazilian draughts now, Kalah next),
//!   game records with the draw rules, notation and perft.
//! - [`cli`]: the `evalearn` command line.

pub mod cli;
pub mod game;
