//! TD(λ) training: a small multilayer perceptron trained from self-play by temporal
//! differences at the principal-variation leaves (Beling's master's thesis, ch. 5.4, after TD-Gammon; applied to the
//! leaves of the alpha-beta search as in TD-Leaf), for any game with TD inputs
//! ([`Inputs`]).
//!
//! [`Mlp`] is the trainable network (ndarray, dense forward pass and backpropagation,
//! [`mlp`]); [`episode`] is the learning rule; this module is the learner the training
//! loop drives, with its config section `[td]` ([`TdSettings`]). The model-file payload
//! ([`MlpWeights`]) and the fast read-only evaluator the search uses ([`TdEvaluator`])
//! are run-time code, in [`crate::eval::td`]. What was measured with it is in
//! docs/training.md.
//!
//! # Learning
//! [`td_lambda_episode`] applies the thesis's rule after every step t of a game,
//! `w ← w + α (Y_{t+1} − Y_t) Σ_{k=1..t} λ^{t−k} ∇_w Y_k`, with `Y_{n+1} := Z` the game
//! result. Every `Y` is from the first player's point of view (White, A), so the sequence
//! is one prediction of one quantity (see the function for the exact order of the
//! updates). A leaf without legal moves (a game end inside the search) counts with its
//! known result.
//!

mod episode;
mod flat;
mod mlp;
#[cfg(test)]
pub(crate) mod tests;

pub use episode::{Steps, TdReport, td_lambda_episode, td_lambda_episode_blended};
pub use mlp::{DEFAULT_HIDDEN, INIT_W1, INIT_W2, Mlp, MlpGradient, encode, loss, result_for_first};

use std::marker::PhantomData;
use std::path::Path;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};

use super::config::{
    ConfigError, LrSchedule, TrainConfig, TrainingSettings, fail, positive, read_section,
};
use super::iteration::{Iteration, Stage};
use super::learner::{IterationReport, Learner, LearnerKind, LearnerSection, TrainGame};
use crate::eval::spec::AnyEvaluator;
use crate::eval::td::{
    self, Activation, Inputs, MAX_HIDDEN, MAX_PHASES, MlpWeights, TdEvaluator, input_set,
    input_set_named,
};
use crate::game::Side;
use crate::io::dataset::DatasetGame;
use crate::io::model::{ModelError, ModelHeader, from_bytes, save_model, to_bytes};
use episode::loss_targets;
pub use flat::TdLoss;
use flat::{FlatNet, Scratch};

/// `[td]`: TD(λ) (Beling's master's thesis, ch. 5.4): a multilayer perceptron trained
/// on the principal-variation leaves.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TdSettings {
    #[serde(default = "default_hidden")]
    pub hidden: usize,
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    #[serde(default = "default_lambda")]
    pub lambda: f64,
    /// Game phases, each with its own output head over the shared hidden layer
    /// ([`crate::eval::td::Inputs::phase`]); 1 (the default) is one output.
    #[serde(default = "default_phases")]
    pub phases: usize,
    /// The game's input set by name ([`crate::eval::td::InputSet::name`]); absent, the
    /// game's first (for draughts `"board"`; `"board-pairs"` adds the pairs of adjacent
    /// squares).
    #[serde(default)]
    pub inputs: Option<String>,
    /// The loss each step descends: `"squared"` (the default, the thesis's rule) or
    /// `"cross-entropy"` (the step follows the logit's gradient).
    #[serde(default)]
    pub loss: TdLoss,
    /// Units of a second hidden layer between the first and the output heads (0, the
    /// default: none).
    #[serde(default)]
    pub hidden2: usize,
    /// The older spelling of `[training] lr_schedule = "linear"` with `lr_final =
    /// alpha_end / alpha`, still read: rewritten so when the config is parsed.
    #[serde(default)]
    pub alpha_end: Option<f64>,
    /// The hidden units' activation: `"sigmoid"` (the default) or `"clipped-relu"`
    /// (`min(max(x, 0), 1)`, whose play-time network computes whole registers of units
    /// at once: wider layers for the same time).
    #[serde(default)]
    pub activation: Activation,
}

fn default_hidden() -> usize {
    48
}
fn default_alpha() -> f64 {
    0.05
}
fn default_lambda() -> f64 {
    0.7
}
fn default_phases() -> usize {
    1
}

impl Default for TdSettings {
    fn default() -> Self {
        TdSettings {
            hidden: default_hidden(),
            alpha: default_alpha(),
            lambda: default_lambda(),
            phases: default_phases(),
            inputs: None,
            loss: TdLoss::Squared,
            hidden2: 0,
            alpha_end: None,
            activation: Activation::Sigmoid,
        }
    }
}

impl TdSettings {
    fn validate(&self) -> Result<(), ConfigError> {
        let most = self.activation.max_hidden();
        if !(32..=most).contains(&self.hidden) {
            return fail(
                "td.hidden",
                &format!(
                    "must be 32..={most} hidden units with {} units",
                    self.activation.name()
                ),
                self.hidden.to_string(),
            );
        }
        if self.hidden2 > MAX_HIDDEN {
            return fail(
                "td.hidden2",
                &format!("must be 0 (no second hidden layer) to {MAX_HIDDEN} units"),
                self.hidden2.to_string(),
            );
        }
        positive("td.alpha", self.alpha)?;
        if !(0.0..=1.0).contains(&self.lambda) {
            return fail("td.lambda", "must be in 0..=1", self.lambda.to_string());
        }
        if !(1..=MAX_PHASES).contains(&self.phases) {
            return fail(
                "td.phases",
                &format!("must be 1..={MAX_PHASES} phases"),
                self.phases.to_string(),
            );
        }
        Ok(())
    }

    /// The index of the configured input set among `G`'s ([`Inputs::INPUT_SETS`]; the
    /// first when `inputs` is absent).
    fn input_set<G: Inputs>(&self) -> Result<usize, String> {
        match &self.inputs {
            None => Ok(0),
            Some(name) => input_set_named::<G>(name).map_err(|e| format!("td.inputs: {e}")),
        }
    }

    /// Moves the older spelling `alpha_end` to `[training] lr_schedule = "linear"` with
    /// `lr_final = alpha_end / alpha` (to 12 decimals, so `0.005 / 0.1` is 0.05); both
    /// spellings at once are refused.
    fn move_alpha_end(&mut self, training: &mut TrainingSettings) -> Result<(), ConfigError> {
        let Some(end) = self.alpha_end.take() else {
            return Ok(());
        };
        if training.lr_schedule != LrSchedule::Constant {
            return Err(ConfigError(
                "td.alpha_end: is the older spelling of training.lr_schedule with \
                 training.lr_final; give only training.lr_schedule with training.lr_final"
                    .to_string(),
            ));
        }
        if !(end.is_finite() && end > 0.0 && end <= self.alpha) {
            return Err(ConfigError(format!(
                "td.alpha_end: must be a positive number at most td.alpha (got {end})"
            )));
        }
        training.lr_schedule = LrSchedule::Linear;
        training.lr_final = (end / self.alpha * 1e12).round() / 1e12;
        Ok(())
    }
}

/// The TD(λ) learner, as configs name it (`learner = "td"`) and games offer it.
pub struct Td;

impl LearnerSection for Td {
    fn name(&self) -> &'static str {
        "td"
    }

    fn settle(
        &self,
        section: Option<&toml::Table>,
        training: &mut TrainingSettings,
    ) -> Result<String, ConfigError> {
        let mut settings: TdSettings = read_section("td", section)?;
        settings.move_alpha_end(training)?;
        settings.validate()?;
        Ok(format!("{settings:?}"))
    }
}

impl<G: TrainGame + Inputs> LearnerKind<G> for Td {
    fn start(&self, config: &TrainConfig) -> Result<Box<dyn Learner<G>>, String> {
        let settings: TdSettings = config.section("td").map_err(|e| e.to_string())?;
        let set = settings.input_set::<G>()?;
        let state = TdState::new::<G>(set, &settings, config.seed);
        Ok(Box::new(TdLearner::new(state, set, settings, config)))
    }

    fn resume(&self, config: &TrainConfig, state: &[u8]) -> Result<Box<dyn Learner<G>>, String> {
        let settings: TdSettings = config.section("td").map_err(|e| e.to_string())?;
        let state = TdState::from_checkpoint(state)?;
        let set = state.weights.validate::<G>()?;
        if state.weights.activation != settings.activation {
            return Err(format!(
                "the checkpoint's network has {} units, the config asks for {}",
                state.weights.activation.name(),
                settings.activation.name()
            ));
        }
        let wanted = settings.input_set::<G>()?;
        if set != wanted {
            return Err(format!(
                "the checkpoint's network has the inputs '{}', the config asks for '{}'",
                input_set::<G>(set).name,
                input_set::<G>(wanted).name
            ));
        }
        Ok(Box::new(TdLearner::new(state, set, settings, config)))
    }
}

/// The TD(λ) learner's state: the network being trained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TdState {
    pub weights: MlpWeights,
}

impl TdState {
    /// A new random network over game `G`'s input set `set`, shaped as `settings` say
    /// (hidden units, a second hidden layer, output heads).
    pub fn new<G: Inputs>(set: usize, settings: &TdSettings, seed: u64) -> TdState {
        if settings.activation == Activation::ClippedRelu {
            return TdState {
                weights: new_clipped::<G>(set, settings, seed),
            };
        }
        let mut weights =
            Mlp::<G>::new_random_over(set, settings.hidden, settings.phases, seed).weights();
        if settings.hidden2 > 0 {
            add_second_layer(&mut weights, settings.hidden2, seed);
        }
        TdState { weights }
    }

    /// The state a checkpoint holds: this build's, or one written before the second
    /// hidden layer existed.
    fn from_checkpoint(bytes: &[u8]) -> Result<TdState, String> {
        #[derive(Deserialize)]
        struct TdStateV3 {
            weights: td::MlpWeightsV3,
        }
        #[derive(Deserialize)]
        struct TdStateV2 {
            weights: td::MlpWeightsV2,
        }
        from_bytes::<TdState>(bytes).or_else(|first| {
            from_bytes::<TdStateV3>(bytes)
                .map(|old| TdState {
                    weights: old.weights.into(),
                })
                .or_else(|_| {
                    from_bytes::<TdStateV2>(bytes).map(|old| TdState {
                        weights: old.weights.into(),
                    })
                })
                .map_err(|_| first)
        })
    }
}

/// Puts a random second hidden layer of `units` units between `weights`' first layer and
/// its heads: weights uniform in ±3/√hidden (a unit's sum over first-layer activations
/// near ½ then spreads over the sigmoid's responsive range), zero biases, and new heads
/// drawn as [`Mlp`]'s are (±[`INIT_W2`]/√units, every phase's head the same).
fn add_second_layer(weights: &mut MlpWeights, units: usize, seed: u64) {
    use rand::{RngExt, SeedableRng};
    // Its own stream, so the first layer stays what it is without the second.
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed_0002);
    let a = 3.0 / (weights.hidden as f32).sqrt();
    weights.w_hidden2 = (0..units * weights.hidden)
        .map(|_| rng.random_range(-a..a))
        .collect();
    weights.b_hidden2 = vec![0.0; units];
    let b = INIT_W2 / (units as f32).sqrt();
    let head: Vec<f32> = (0..units).map(|_| rng.random_range(-b..b)).collect();
    weights.w2 = (0..weights.phases)
        .flat_map(|_| head.iter().copied())
        .collect();
}

/// A new random clipped network shaped as `settings` say. Its units start inside their
/// slope, where they learn: first-layer weights uniform in ±[`INIT_W1`] and biases ½ (a
/// unit's sum over the ~25 active draughts inputs is then about ½ ± 0.6); a second
/// layer's weights uniform in ±1.6/√hidden and biases ½ (its sums again about ½ ± ½);
/// heads as [`Mlp`]'s (±[`INIT_W2`]/√units, every phase's the same), so every position
/// starts near p = ½.
fn new_clipped<G: Inputs>(set: usize, settings: &TdSettings, seed: u64) -> MlpWeights {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
    let inputs = input_set::<G>(set);
    let (hidden, hidden2) = (settings.hidden, settings.hidden2);
    let w1 = (0..hidden * inputs.inputs)
        .map(|_| rng.random_range(-INIT_W1..INIT_W1))
        .collect();
    let a = 1.6 / (hidden as f32).sqrt();
    let w_hidden2 = (0..hidden2 * hidden)
        .map(|_| rng.random_range(-a..a))
        .collect();
    let units = if hidden2 > 0 { hidden2 } else { hidden };
    let b = INIT_W2 / (units as f32).sqrt();
    let head: Vec<f32> = (0..units).map(|_| rng.random_range(-b..b)).collect();
    MlpWeights {
        features: inputs.id.to_string(),
        hidden,
        phases: settings.phases,
        w1,
        b1: vec![0.5; hidden],
        w2: (0..settings.phases)
            .flat_map(|_| head.iter().copied())
            .collect(),
        b2: vec![0.0; settings.phases],
        w_hidden2,
        b_hidden2: vec![0.5; hidden2],
        activation: Activation::ClippedRelu,
    }
}

/// The TD(λ) learner of a run: its network and its settings.
pub struct TdLearner<G> {
    state: TdState,
    /// The game's input set ([`Inputs::INPUT_SETS`]), the one of `state`'s network.
    set: usize,
    settings: TdSettings,
    /// Factor of the output heads in the model it plays with and saves: 1 for results;
    /// `margin_scale` for margins, whose network fits `σ(m / margin_scale)`, so that the
    /// model's logit, and its evaluation, counts stones of expected margin (see
    /// [`crate::learn::controls::OutcomeTarget::centi_per_logit`]).
    output_scale: f32,
    game: PhantomData<fn() -> G>,
}

impl<G> Clone for TdLearner<G> {
    fn clone(&self) -> Self {
        TdLearner {
            state: self.state.clone(),
            set: self.set,
            settings: self.settings.clone(),
            output_scale: self.output_scale,
            game: PhantomData,
        }
    }
}

impl<G> TdLearner<G> {
    fn new(state: TdState, set: usize, settings: TdSettings, config: &TrainConfig) -> TdLearner<G> {
        let centi = config
            .training
            .outcome_target()
            .centi_per_logit(f64::from(td::CENTI_PER_LOGIT));
        TdLearner {
            state,
            set,
            settings,
            output_scale: (centi / f64::from(td::CENTI_PER_LOGIT)) as f32,
            game: PhantomData,
        }
    }

    /// The network as the model plays it: the output heads times `output_scale`.
    fn model_weights(&self) -> MlpWeights {
        let mut weights = self.state.weights.clone();
        if self.output_scale != 1.0 {
            for w in weights.w2.iter_mut().chain(weights.b2.iter_mut()) {
                *w *= self.output_scale;
            }
        }
        weights
    }
}

impl<G: TrainGame + Inputs> Learner<G> for TdLearner<G> {
    /// Self-play with a snapshot of the network, then one TD(λ) episode per game, in game
    /// order.
    fn iterate(&mut self, it: &mut Iteration<'_, G>) -> Result<Option<IterationReport>, String> {
        let Some(games) = it.self_play(&self.evaluator())? else {
            return Ok(None);
        };
        let settings = &self.settings;
        let filter = it.position_filter();
        let target = it.config.training.outcome_target();
        let mut net = FlatNet::from_weights::<G>(&self.state.weights, self.set);
        let steps: Vec<(Steps<G>, f32)> = games
            .iter()
            .map(|g| {
                let steps = Steps::of(g, &filter, self.output_scale * td::CENTI_PER_LOGIT);
                (steps, target.of_game(g, Side::First) as f32)
            })
            .collect();
        let targets: Vec<(G, f32)> = steps
            .iter()
            .flat_map(|(s, result)| s.leaves.iter().map(move |&leaf| (leaf, *result)))
            .collect();
        let loss_before = flat::loss(&net, &targets);
        let rate = it.rate_factor();
        let alpha = (settings.alpha * rate) as f32;
        let weight = it.search_weight(0.0) as f32;
        let mut scratch = Scratch::new();
        let (mut squared, mut count) = (0.0, 0);
        (it.progress)(Stage::Episodes, 0, games.len() as u64);
        for (done, (game, result)) in steps.iter().enumerate() {
            if it.stop.load(Ordering::SeqCst) {
                return Ok(None);
            }
            let episode = flat::episode(
                &mut net,
                &game.leaves,
                &game.searched,
                weight,
                *result,
                target,
                settings.loss,
                settings.lambda as f32,
                alpha,
                &mut scratch,
            );
            squared += episode.squared;
            count += episode.steps;
            (it.progress)(Stage::Episodes, done as u64 + 1, games.len() as u64);
        }
        self.state.weights = net.to_weights::<G>();
        let at_alpha = if rate == 1.0 {
            String::new()
        } else {
            format!(" at α {alpha:.4}")
        };
        Ok(Some(IterationReport {
            games: games.len() as u64,
            positions: count as u64,
            loss_before,
            loss: flat::loss(&net, &targets),
            detail: format!(
                "{count} TD(λ) steps{at_alpha}, mean squared temporal difference {:.5}",
                squared / count.max(1) as f64
            ),
        }))
    }

    fn validation_loss(&self, games: &[DatasetGame<G>], it: &Iteration<'_, G>) -> f64 {
        let net = FlatNet::from_weights::<G>(&self.state.weights, self.set);
        let target = it.config.training.outcome_target();
        flat::loss(&net, &loss_targets(games, &it.position_filter(), target))
    }

    fn evaluator(&self) -> AnyEvaluator<G> {
        AnyEvaluator::model(
            TdEvaluator::<G>::from_weights(&self.model_weights())
                .expect("learner weights are valid"),
        )
    }

    fn model_header(&self, game: &str) -> ModelHeader {
        ModelHeader::new(game, td::KIND, input_set::<G>(self.set).id)
    }

    fn save_model(&self, path: &Path, header: &mut ModelHeader) -> Result<(), ModelError> {
        save_model(path, header, &self.model_weights())
    }

    fn state(&self) -> Vec<u8> {
        to_bytes(&self.state)
    }

    fn boxed_clone(&self) -> Box<dyn Learner<G>> {
        Box::new(self.clone())
    }
}
