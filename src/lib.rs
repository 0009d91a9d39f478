//! evalearn: learns evaluation functions for board games by self-play.
//!
//! - [`game`]: the [`game::Game`] trait and its games (Brazilian draughts now, Kalah next),
//!   game records with the draw rules, notation and perft.
//! - [`eval`]: the [`eval::Evaluator`] trait and the material evaluator.
//! - [`search`]: alpha-beta search with the enhancements of Beling's master's thesis, generic over both.
//! - [`selfplay`]: parallel, reproducible self-play games.
//! - [`accuracy`]: how close an evaluator is to perfect play (exact values).
//! - [`arena`]: matches between evaluators and their statistics.
//! - [`book`]: opening books: building them by search, probing them, playing from them.
//! - [`hub`]: the Hub protocol, as an engine and as a client of other engines.
//! - [`io`]: model files and datasets.
//! - [`cli`]: the `evalearn` command line.
//! - [`web`]: `evalearn serve`, the browser front end.

pub mod accuracy;
pub mod arena;
pub mod book;
pub mod cli;
pub mod eval;
pub mod game;
pub mod io;
pub mod learn;
pub mod rng;
pub mod search;
pub mod selfplay;
pub mod web;
