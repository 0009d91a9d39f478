//! Learning evaluation functions from self-play: the three learners (Samuel, GLEM,
//! TD(λ)), their configuration, and the training loop behind `evalearn train`.

pub mod config;
pub mod controls;
pub mod glem;
pub mod plot;
pub mod samuel;
pub mod td;
pub mod train;
