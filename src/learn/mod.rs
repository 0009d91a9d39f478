//! Learning evaluation functions from self-play: the training loop behind `evalearn
//! train` ([`train`]), the same for every game and every learner, and the learners —
//! one module each ([`samuel`], [`glem`], [`td`]), listed in [`registry`].
//!
//! - [`learner`]: what a learner is to the loop ([`Learner`], [`LearnerKind`]) and what a
//!   game offers ([`TrainGame`]);
//! - [`config`]: training configs (the learners' sections are their own);
//! - [`iteration`]: one iteration as a learner sees it; [`controls`]: the `[training]`
//!   controls (validation split, schedules, position filters);
//! - [`files`]: checkpoints and metrics; [`shard`]: a run split across machines;
//!   [`plot`]: the learning curve.

pub mod cluster;
pub mod config;
pub mod controls;
pub mod files;
pub mod glem;
pub mod iteration;
pub mod learner;
pub mod plot;
pub mod registry;
pub mod samuel;
pub mod shard;
pub mod td;
pub mod train;

pub use learner::{IterationReport, Learner, LearnerKind, LearnerSection, TrainGame};
