//! GLEM's training half (Beling's master's thesis, ch. 5.3): configurations mined from self-play positions
//! ([`mine`], Beling's GenConf within regions), samples labelled from games
//! ([`samples_from_games`]), and the weights fitted by gradient descent
//! ([`GlemModel::fit`]). The model, its checks and the compiled evaluator are run-time
//! code, in [`crate::eval::glem`]; this module only adds training to them, for any game
//! with GLEM atoms ([`Atoms`]).
//!
//! What its settings did when measured: docs/training.md, "GLEM".

mod fit;
mod mining;
mod trie;

pub use fit::{
    FitParams, FitReport, SEARCH_SCALE, Sample, samples_from_games, samples_from_games_filtered,
};
pub use mining::{DEFAULT_MAX_ATOMS, DEFAULT_MIN_SUPPORT, mine};

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};

use super::config::{ConfigError, TrainConfig, TrainingSettings, fail, positive, read_section};
use super::iteration::{Iteration, Stage};
use super::learner::{IterationReport, Learner, LearnerKind, LearnerSection, TrainGame};
use crate::eval::glem::Glem as GlemEvaluator;
use crate::eval::glem::{self, Atoms, GlemModel};
use crate::eval::spec::AnyEvaluator;
use crate::game::Game;
use crate::io::dataset::{DatasetGame, GameFrame};
use crate::io::model::{ModelError, ModelHeader, save_model};
use crate::io::model::{from_bytes, to_bytes};

/// `[glem]`: GLEM (Beling's master's thesis, ch. 5.3): configurations mined from the
/// positions of recent games, weights fit by gradient descent on the results.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlemSettings {
    /// Positions a configuration must occur in to be kept (the thesis's n).
    #[serde(default = "default_min_support")]
    pub min_support: usize,
    /// Most atoms in one configuration.
    #[serde(default = "default_max_atoms")]
    pub max_atoms: usize,
    /// Games kept for fitting (the most recent).
    #[serde(default = "default_pool_games")]
    pub pool_games: usize,
    /// Iterations between re-minings of the configurations.
    #[serde(default = "default_remine_every")]
    pub remine_every: u64,
    #[serde(default = "default_glem_epochs")]
    pub epochs: usize,
    #[serde(default = "default_glem_rate")]
    pub learning_rate: f64,
    /// The older spelling of `[training] search_weight`, still read (the shipped models
    /// were trained with it): moved there when the config is parsed.
    #[serde(default)]
    pub search_weight: Option<f64>,
}

fn default_min_support() -> usize {
    50
}
fn default_max_atoms() -> usize {
    4
}
fn default_pool_games() -> usize {
    2000
}
fn default_remine_every() -> u64 {
    5
}
fn default_glem_epochs() -> usize {
    100
}
fn default_glem_rate() -> f64 {
    0.01
}
/// GLEM's weight of the search score in its targets when `[training] search_weight` is
/// absent: blending makes the labels far less noisy.
pub const GLEM_SEARCH_WEIGHT: f64 = 0.7;

impl Default for GlemSettings {
    fn default() -> Self {
        GlemSettings {
            min_support: default_min_support(),
            max_atoms: default_max_atoms(),
            pool_games: default_pool_games(),
            remine_every: default_remine_every(),
            epochs: default_glem_epochs(),
            learning_rate: default_glem_rate(),
            search_weight: None,
        }
    }
}

impl GlemSettings {
    fn validate(&self) -> Result<(), ConfigError> {
        if self.min_support == 0 {
            return fail("glem.min_support", "must be at least 1", "0".into());
        }
        if !(1..=8).contains(&self.max_atoms) {
            return fail(
                "glem.max_atoms",
                "must be 1..=8",
                self.max_atoms.to_string(),
            );
        }
        if self.pool_games == 0 || self.remine_every == 0 || self.epochs == 0 {
            return fail(
                "glem.pool_games / remine_every / epochs",
                "must be at least 1",
                "0".into(),
            );
        }
        positive("glem.learning_rate", self.learning_rate)
    }

    /// Moves the older spelling `search_weight` to `[training] search_weight`; both at
    /// once are refused.
    fn move_search_weight(&mut self, training: &mut TrainingSettings) -> Result<(), ConfigError> {
        let Some(w) = self.search_weight.take() else {
            return Ok(());
        };
        if training.search_weight.is_some() {
            return Err(ConfigError(
                "glem.search_weight: is the older spelling of training.search_weight; give \
                 only training.search_weight"
                    .to_string(),
            ));
        }
        if !(0.0..=1.0).contains(&w) {
            return Err(ConfigError(format!(
                "glem.search_weight: must be in 0..=1 (got {w})"
            )));
        }
        training.search_weight = Some(w);
        Ok(())
    }
}

/// GLEM's learner, as configs name it (`learner = "glem"`) and games offer it.
pub struct Glem;

impl LearnerSection for Glem {
    fn name(&self) -> &'static str {
        "glem"
    }

    fn settle(
        &self,
        section: Option<&toml::Table>,
        training: &mut TrainingSettings,
    ) -> Result<String, ConfigError> {
        let mut settings: GlemSettings = read_section("glem", section)?;
        settings.move_search_weight(training)?;
        settings.validate()?;
        Ok(format!("{settings:?}"))
    }
}

impl<G: TrainGame + Atoms> LearnerKind<G> for Glem {
    fn start(&self, config: &TrainConfig) -> Result<Box<dyn Learner<G>>, String> {
        let settings = config.section("glem").map_err(|e| e.to_string())?;
        Ok(Box::new(GlemLearner {
            state: GlemState::<G>::new(),
            settings,
        }))
    }

    fn resume(&self, config: &TrainConfig, state: &[u8]) -> Result<Box<dyn Learner<G>>, String> {
        let settings = config.section("glem").map_err(|e| e.to_string())?;
        let state: GlemState<G> = from_bytes(state)?;
        state.model.validate::<G>()?;
        Ok(Box::new(GlemLearner { state, settings }))
    }
}

/// GLEM's learner of a run: its state and its settings.
#[derive(Clone)]
pub struct GlemLearner<G: Game> {
    state: GlemState<G>,
    settings: GlemSettings,
}

/// GLEM's learner state: the model and the recent games it is fitted on.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct GlemState<G: Game> {
    pub model: GlemModel,
    /// The most recent self-play games, oldest first.
    pub pool: Vec<GameFrame<G>>,
}

impl<G: Atoms> GlemState<G> {
    /// A model over the game's default regions and phases, no configuration yet.
    pub fn new() -> GlemState<G> {
        GlemState {
            model: GlemModel::empty::<G>(),
            pool: Vec::new(),
        }
    }
}

impl<G: Atoms> Default for GlemState<G> {
    fn default() -> Self {
        Self::new()
    }
}

/// The samples of `games` as iteration `it` learns them: targets blended with its search
/// weight (GLEM's default [`GLEM_SEARCH_WEIGHT`]), exact values from the endgame database
/// with `[selfplay] egdb_targets`, the `[training]` position filters applied.
fn training_samples<G: TrainGame + Atoms>(
    games: &[DatasetGame<G>],
    it: &Iteration<'_, G>,
) -> Vec<Sample<G>> {
    let exact = it
        .tablebase
        .as_deref()
        .filter(|_| it.config.selfplay.egdb_targets);
    let weight = it.search_weight(GLEM_SEARCH_WEIGHT) as f32;
    let target = it.config.training.outcome_target();
    samples_from_games_filtered(games, weight, exact, &it.position_filter(), target)
}

impl<G: TrainGame + Atoms> Learner<G> for GlemLearner<G> {
    /// Self-play with the current model; the games join the pool (the oldest leave);
    /// configurations are mined again every `remine_every` iterations (and while there
    /// are none); then the weights are fitted on the pool's samples.
    fn iterate(&mut self, it: &mut Iteration<'_, G>) -> Result<Option<IterationReport>, String> {
        let Some(games) = it.self_play(&self.evaluator())? else {
            return Ok(None);
        };
        let settings = self.settings.clone();
        let positions = it.position_filter().admitted_positions(&games);
        self.state
            .pool
            .extend(games.iter().map(DatasetGame::to_frame));
        let excess = self.state.pool.len().saturating_sub(settings.pool_games);
        self.state.pool.drain(..excess);
        let pool: Vec<DatasetGame<G>> = self
            .state
            .pool
            .iter()
            .map(|f| DatasetGame::from_frame(f).expect("own games replay"))
            .collect();
        let samples = training_samples(&pool, it);
        if it.stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let mut mined = false;
        if self.state.model.configurations.is_empty()
            || it.number.is_multiple_of(settings.remine_every)
        {
            let sample_positions: Vec<G> = samples.iter().map(|s| s.position).collect();
            let configurations = mine(
                &sample_positions,
                &self.state.model.regions,
                settings.min_support,
                settings.max_atoms,
            );
            mined = true;
            self.state.model = self.state.model.with_configurations(configurations);
        }
        // A margin model counts stones: its logit is `m / margin_scale`.
        let target = it.config.training.outcome_target();
        self.state.model.scale = target.centi_per_logit(f64::from(glem::DEFAULT_SCALE)) as f32;
        let params = FitParams {
            epochs: settings.epochs,
            learning_rate: settings.learning_rate * it.rate_factor(),
            ..FitParams::default()
        };
        (it.progress)(Stage::Fit, 0, params.epochs as u64);
        let stop = it.stop;
        let report = self
            .state
            .model
            .fit_with_progress(&samples, &params, &mut |epoch| {
                (it.progress)(Stage::Fit, epoch as u64, params.epochs as u64);
                if stop.load(Ordering::SeqCst) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        Ok(Some(IterationReport {
            games: games.len() as u64,
            positions,
            loss_before: report.loss_before,
            loss: report.loss_after,
            detail: format!(
                "{} samples from {} games, {} configurations{}",
                samples.len(),
                pool.len(),
                self.state.model.configurations.len(),
                if mined { " (mined again)" } else { "" },
            ),
        }))
    }

    fn validation_loss(&self, games: &[DatasetGame<G>], it: &Iteration<'_, G>) -> f64 {
        self.state.model.loss(&training_samples(games, it))
    }

    /// Before any configuration is mined the model is all zeros, so the first games are
    /// played with the game's baseline evaluator instead.
    fn evaluator(&self) -> AnyEvaluator<G> {
        if self.state.model.configurations.is_empty() {
            AnyEvaluator::baseline()
        } else {
            AnyEvaluator::model(
                GlemEvaluator::<G>::new(&self.state.model).expect("learner model is valid"),
            )
        }
    }

    fn model_header(&self, game: &str) -> ModelHeader {
        ModelHeader::new(game, glem::KIND, G::ATOM_SET_ID)
    }

    fn save_model(&self, path: &Path, header: &mut ModelHeader) -> Result<(), ModelError> {
        save_model(path, header, &self.state.model)
    }

    fn state(&self) -> Vec<u8> {
        to_bytes(&self.state)
    }

    fn boxed_clone(&self) -> Box<dyn Learner<G>> {
        Box::new(self.clone())
    }
}
