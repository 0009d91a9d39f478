//! evalearn: learns evaluation functions for board games by self-play.
//!
//! The rooms, from the ground floor up (each uses only those below it; docs/architecture.md):
//! - [`rng`]: seeded random streams, one per game or position.
//! - [`game`]: the [`game::Game`] trait and what every game shares (sides, outcomes, move
//!   lists, game records with the draw rules, perft).
//! - [`io`]: model files, datasets and book files.
//! - [`eval`]: the [`eval::Evaluator`] trait, the learned evaluators' run-time halves and
//!   the inputs a game provides for them, model files as evaluators.
//! - [`search`]: alpha-beta search with the enhancements of Beling's master's thesis.
//! - [`arena`]: players, matches and their statistics, the perfect player.
//! - [`book`]: opening books: building them by search, probing them, playing from them.
//! - [`selfplay`]: parallel, reproducible self-play.
//! - [`accuracy`]: how close an evaluator is to perfect play (exact values).
//! - [`learn`]: the training loop and the learners (Samuel, GLEM, TD(λ)).
//! - [`web`]: `evalearn serve`, the browser front end.
//! - [`cli`]: the `evalearn` command line.
//! - [`games`]: the games, each in its folder ([`games::brazilian`], [`games::kalah`])
//!   with everything of that game, and [`games::registry`], which lists them.
//!
//! `examples/` shows the library used from outside: a game (`connect_four.rs`) and a
//! learner (`custom_learner.rs`) that evalearn does not ship.

pub mod accuracy;
pub mod arena;
pub mod book;
pub mod cli;
pub mod eval;
pub mod game;
pub mod games;
pub mod io;
pub mod learn;
pub mod rng;
pub mod search;
pub mod selfplay;
pub mod web;
