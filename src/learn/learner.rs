//! What a learner is to the training loop, and what a game offers the learners.
//!
//! A learner is one module of `learn/` ([`super::samuel`], [`super::glem`],
//! [`super::td`]): its config section ([`LearnerSection`]), how it starts and resumes
//! ([`LearnerKind`]), and the [`Learner`] the loop drives an iteration at a time, which
//! hands out its model as an evaluator and saves it. The evaluator itself is run-time
//! code and lives in `eval/` (`linear`, `glem`, `td`); a learner whose model is of an
//! existing kind (as Samuel's and a least-squares fit's are both linear) needs nothing
//! there. A game lists the learners whose inputs it provides ([`TrainGame::learners`]).

use std::path::Path;

use super::config::{ConfigError, TrainConfig, TrainingSettings};
use super::iteration::Iteration;
use crate::accuracy::heldout::HeldOutGame;
use crate::eval::spec::AnyEvaluator;
use crate::io::dataset::DatasetGame;
use crate::io::model::{ModelError, ModelHeader};

/// What one learner iteration did.
pub struct IterationReport {
    pub games: u64,
    pub positions: u64,
    /// The learner's loss on this iteration's data with the model from before the update
    /// and after it (see [`super::files::MetricsLine`]).
    pub loss_before: f64,
    pub loss: f64,
    /// Learner-specific figures, in words.
    pub detail: String,
}

/// A learner as the training loop drives it.
pub trait Learner<G: TrainGame>: Send {
    /// Plays the iteration's games and learns from them; `None` if the run was stopped
    /// (the learner's state must then be discarded).
    fn iterate(&mut self, it: &mut Iteration<'_, G>) -> Result<Option<IterationReport>, String>;
    /// The current model as an evaluator.
    fn evaluator(&self) -> AnyEvaluator<G>;
    /// The evaluator that plays the iteration's self-play games, and what it is when it is
    /// not the current model (a teacher's file): the model unless the learner says
    /// otherwise.
    fn player(&self) -> (AnyEvaluator<G>, Option<String>) {
        (self.evaluator(), None)
    }
    /// The header of the model files (evaluator kind and feature set) for game `game`.
    fn model_header(&self, game: &str) -> ModelHeader;
    /// Saves the current model as a new revision of `header`.
    fn save_model(&self, path: &Path, header: &mut ModelHeader) -> Result<(), ModelError>;
    /// The current model's loss on held-out `games`, measured as the learner's training
    /// loss is (the same targets and position filters, those of iteration `it`).
    fn validation_loss(&self, games: &[DatasetGame<G>], it: &Iteration<'_, G>) -> f64;
    /// The whole state between iterations, as checkpoints keep it
    /// ([`LearnerKind::resume`] reads it back).
    fn state(&self) -> Vec<u8>;
    /// A copy to run the next iteration on (dropped if the iteration is stopped).
    fn boxed_clone(&self) -> Box<dyn Learner<G>>;
}

/// A learner's part of a training config: its name — the config's `learner` value and
/// the name of its own section (`[td]`) — and how that section is read. The same for
/// every game, so configs are checked when read.
pub trait LearnerSection: Sync {
    /// `samuel`, `glem`, `td`.
    fn name(&self) -> &'static str;
    /// Checks the learner's section (`None`: absent, the defaults), moves the older
    /// spellings it accepts into `training`, and returns the settings as read (defaults
    /// filled) in words: a resumed run must read the same.
    fn settle(
        &self,
        section: Option<&toml::Table>,
        training: &mut TrainingSettings,
    ) -> Result<String, ConfigError>;
}

/// A learner as a game offers it: how a run of game `G` starts it and resumes it.
pub trait LearnerKind<G: TrainGame>: LearnerSection {
    /// A fresh learner for the run of `config`.
    fn start(&self, config: &TrainConfig) -> Result<Box<dyn Learner<G>>, String>;
    /// The learner of a checkpoint: `state` as [`Learner::state`] wrote it.
    fn resume(&self, config: &TrainConfig, state: &[u8]) -> Result<Box<dyn Learner<G>>, String>;
    /// Whether the iteration's games of the run of `config` can be played elsewhere
    /// (shards, a dataset) and handed to it: not for a learner that learns during its own
    /// games (Samuel, unless a teacher plays them).
    fn learns_from_recorded_games(&self, _config: &TrainConfig) -> bool {
        true
    }
}

/// A game that can be trained: the learners whose inputs it provides, and how its
/// configs' openings files are read.
pub trait TrainGame: HeldOutGame {
    /// The learners this game offers ([`super::registry::all`] for a game with every
    /// learner's inputs).
    fn learners() -> Vec<&'static dyn LearnerKind<Self>>;

    /// The openings of `[selfplay] openings`: by default a position per line (`#`
    /// comments and blank lines skipped).
    fn read_openings(variant: Self::Variant, path: &Path) -> Result<Vec<Self>, String> {
        crate::arena::openings::read_position_lines(variant, path)
    }
}

/// The learner of game `G` that `name` names: one of `G`'s, or `extra` (a learner from
/// outside evalearn). The error names the learners there are.
pub fn find_learner<'a, G: TrainGame>(
    name: &str,
    extra: Option<&'a dyn LearnerKind<G>>,
) -> Result<&'a dyn LearnerKind<G>, String> {
    let mut learners = G::learners();
    learners.extend(extra);
    let names: Vec<&str> = learners.iter().map(|l| l.name()).collect();
    learners
        .into_iter()
        .find(|l| l.name() == name)
        .ok_or_else(|| {
            format!(
                "learner: '{name}' is not a learner of {} (its learners: {})",
                G::NAME,
                names.join(", ")
            )
        })
}
