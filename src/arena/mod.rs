//! Engines playing each other: openings, the engine-game loop, matches and their
//! statistics.

pub mod engine_game;
pub mod human;
pub mod interrupt;
pub mod margins;
pub mod matches;
pub mod openings;
pub mod perfect;
pub mod players;
pub mod stats;
pub mod tournament;
pub mod workers;
