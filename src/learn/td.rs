//! TD(λ) training: a small multilayer perceptron trained from self-play by temporal
//! differences at the principal-variation leaves (seed 5.4, TD-Gammon; applied to the
//! leaves of the alpha-beta search as in TD-Leaf), for any game with TD inputs
//! ([`Inputs`]).
//!
//! [`Mlp`] is the trainable network (ndarray, dense forward pass and backpropagation); the
//! model-file payload ([`MlpWeights`]) and the fast read-only evaluator the search uses
//! ([`TdEvaluator`]) are run-time code, in [`crate::eval::td`].
//!
//! # Learning
//! [`td_lambda_episode`] applies the seed's rule after every step t of a game,
//! `w ← w + α (Y_{t+1} − Y_t) Σ_{k=1..t} λ^{t−k} ∇_w Y_k`, with `Y_{n+1} := Z` the game
//! result. Every `Y` is from the first player's point of view (White, A), so the sequence
//! is one prediction of one quantity (see the function for the exact order of the
//! updates). A leaf without legal moves (a game end inside the search) counts with its
//! known result.
//!
//! Measured on Brazilian draughts when this module was written (self-play with the
//! engine's full search at depth 4 from random 8-ply openings, a fresh [`TdEvaluator`]
//! snapshot per game, one episode per game, 48 hidden units, λ = 0.7): the network beats
//! the material evaluator at equal depth after about 3,000 games (α = 0.1 to 1.0 all work;
//! α = 0.03 or λ = 0 learn more slowly) and scores about 0.8 against it after
//! 10,000–20,000 games, 0.70–0.75 at 20 ms a move.
//!
//! Later (2026-11-23, depth 6, 400 games, seeds 2026 and 7): 80,000 games with α falling
//! from 0.1 to 0.02 (then `[td] alpha_end`) score 84–85% against material and 56–57% against the
//! 40,000-game network at constant α; per-phase output heads (`[td] phases`, 2 or 4)
//! scored 77–80% at 40,000 games and 46% against one output at 80,000 games, so one
//! output stays the default. 2026-11-24: 160,000 games with α falling to 0.005 score
//! 85.8% / 86.4% against material and 54–55% against the 80,000-game network; self-play
//! at depth 6 did not help (README, TD(λ) section). The falling α is now written
//! `[training] lr_schedule = "linear"` with `lr_final` = 0.05.

use std::marker::PhantomData;
use std::path::Path;
use std::sync::atomic::Ordering;

use ndarray::{Array1, Array2, Zip};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use super::controls::PositionFilter;
use super::train::{Iteration, IterationReport, Learner, Stage};
use crate::eval::EvalGame;
use crate::eval::spec::AnyEvaluator;
use crate::eval::td::{self, Inputs, MAX_HIDDEN, MAX_PHASES, MlpWeights, TdEvaluator, sigmoid};
use crate::game::{Outcome, Side};
use crate::io::dataset::DatasetGame;
use crate::io::model::{ModelError, ModelHeader, save_model};

/// Default number of hidden units: inside the 32–64 range TD-Gammon-style networks use.
/// 96 units (trained the same way, 40,000 games) played no better: 80.0% against
/// material at depth 6 where 48 score 83.0%, and 48.5% against 48 (400 games each).
pub const DEFAULT_HIDDEN: usize = 48;

/// Half-width of the uniform initial distribution of the first-layer weights `W1`.
/// About 25 inputs are active in draughts, so a hidden unit starts with a sum of
/// standard deviation ≈ 0.2/√3·√25 ≈ 0.6 (Kalah, about 75: ≈ 1.0): in the sigmoid's
/// responsive range, not saturated.
pub const INIT_W1: f32 = 0.2;

/// Half-width of the uniform initial distribution of the output weights `w2` is
/// `INIT_W2 / √hidden`, so the initial output logit has a standard deviation of about
/// 0.15 whatever the size: every position starts near p = ½ (value within a few dozen
/// centi-units of 0).
pub const INIT_W2: f32 = 0.5;

/// The dense input vector of `pos` (length `G::INPUTS`, entries 0 or 1).
pub fn encode<G: Inputs>(pos: &G) -> Array1<f32> {
    let mut x = Array1::zeros(G::INPUTS);
    pos.for_each_input(|i| x[i] = 1.0);
    x
}

/// The game result as a training target from the first player's point of view: 1 the
/// first player won, ½ draw, 0 the second player won.
pub fn result_for_first(outcome: Outcome) -> f32 {
    outcome.score_for(Side::First) as f32
}

/// ∂output/∂weight for every weight of an [`Mlp`] of the same hidden size and phases
/// (also used as the eligibility trace, and as any other weight-shaped vector).
#[derive(Clone, Debug, PartialEq)]
pub struct MlpGradient {
    /// `hidden × inputs`, as [`Mlp::w1`].
    pub w1: Array2<f32>,
    pub b1: Array1<f32>,
    /// `phases × hidden`, as [`Mlp::w2`].
    pub w2: Array2<f32>,
    /// `phases`.
    pub b2: Array1<f32>,
}

impl MlpGradient {
    /// All zero, for a network of `hidden` units over `inputs` inputs with `phases`
    /// output heads.
    pub fn zeros(hidden: usize, inputs: usize, phases: usize) -> MlpGradient {
        MlpGradient {
            w1: Array2::zeros((hidden, inputs)),
            b1: Array1::zeros(hidden),
            w2: Array2::zeros((phases, hidden)),
            b2: Array1::zeros(phases),
        }
    }

    pub fn hidden(&self) -> usize {
        self.b1.len()
    }

    pub fn phases(&self) -> usize {
        self.b2.len()
    }

    /// `self ← factor · self`.
    pub fn scale(&mut self, factor: f32) {
        self.w1 *= factor;
        self.b1 *= factor;
        self.w2 *= factor;
        self.b2 *= factor;
    }

    /// `self ← decay · self + g`: one step of an eligibility trace. Panics if the hidden
    /// sizes or phases differ.
    pub fn decay_and_add(&mut self, decay: f32, g: &MlpGradient) {
        assert_eq!(self.hidden(), g.hidden(), "gradient sizes differ");
        assert_eq!(self.phases(), g.phases(), "gradient phases differ");
        Zip::from(&mut self.w1)
            .and(&g.w1)
            .for_each(|e, &x| *e = decay * *e + x);
        Zip::from(&mut self.b1)
            .and(&g.b1)
            .for_each(|e, &x| *e = decay * *e + x);
        Zip::from(&mut self.w2)
            .and(&g.w2)
            .for_each(|e, &x| *e = decay * *e + x);
        Zip::from(&mut self.b2)
            .and(&g.b2)
            .for_each(|e, &x| *e = decay * *e + x);
    }
}

/// The trainable network: dense ndarray weights, forward pass and backpropagation.
/// Evaluate with [`TdEvaluator`] inside the search: it is much faster.
///
/// One output head per phase ([`Inputs::phase`]): a position's output is its phase's
/// head over the shared hidden layer, so a position's gradient is zero on every other
/// head.
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp<G> {
    w1: Array2<f32>,
    b1: Array1<f32>,
    /// `phases × hidden`: row φ is phase φ's head.
    w2: Array2<f32>,
    /// `phases`.
    b2: Array1<f32>,
    game: PhantomData<fn() -> G>,
}

impl<G: Inputs> Mlp<G> {
    /// A network of `hidden` units and one output (one phase) with small random weights
    /// from a Xoshiro256++ seeded with `seed`: `W1` uniform in ±[`INIT_W1`], `w2` uniform
    /// in ±[`INIT_W2`]/√hidden, biases 0. Every position starts with p ≈ ½. Panics unless
    /// `1 ≤ hidden ≤ MAX_HIDDEN`.
    pub fn new_random(hidden: usize, seed: u64) -> Mlp<G> {
        Mlp::new_random_phased(hidden, 1, seed)
    }

    /// [`Mlp::new_random`] with `phases` output heads, all starting equal (the same
    /// random draws as one head, so 1 phase is [`Mlp::new_random`]): training starts
    /// from the one-output network and lets the heads part. Panics unless
    /// `1 ≤ hidden ≤ MAX_HIDDEN` and `1 ≤ phases ≤ MAX_PHASES`.
    pub fn new_random_phased(hidden: usize, phases: usize, seed: u64) -> Mlp<G> {
        assert!(
            (1..=MAX_HIDDEN).contains(&hidden),
            "hidden size {hidden} outside 1..={MAX_HIDDEN}"
        );
        assert!(
            (1..=MAX_PHASES).contains(&phases),
            "{phases} phases outside 1..={MAX_PHASES}"
        );
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let w2_scale = INIT_W2 / (hidden as f32).sqrt();
        let w1 = Array2::from_shape_simple_fn((hidden, G::INPUTS), || {
            rng.random_range(-INIT_W1..INIT_W1)
        });
        let head = Array1::from_shape_simple_fn(hidden, || rng.random_range(-w2_scale..w2_scale));
        let w2 = Array2::from_shape_fn((phases, hidden), |(_, j)| head[j]);
        Mlp {
            w1,
            b1: Array1::zeros(hidden),
            w2,
            b2: Array1::zeros(phases),
            game: PhantomData,
        }
    }

    /// A network from a payload, after [`MlpWeights::validate`].
    pub fn from_weights(weights: &MlpWeights) -> Result<Mlp<G>, String> {
        weights.validate::<G>()?;
        let w1 = Array2::from_shape_vec((weights.hidden, G::INPUTS), weights.w1.clone())
            .map_err(|e| format!("w1: {e}"))?;
        let w2 = Array2::from_shape_vec((weights.phases, weights.hidden), weights.w2.clone())
            .map_err(|e| format!("w2: {e}"))?;
        Ok(Mlp {
            w1,
            b1: Array1::from_vec(weights.b1.clone()),
            w2,
            b2: Array1::from_vec(weights.b2.clone()),
            game: PhantomData,
        })
    }

    /// The fast evaluator of this network (a snapshot).
    pub fn evaluator(&self) -> TdEvaluator<G> {
        TdEvaluator::from_weights(&self.weights()).expect("a trained network is valid")
    }

    /// The model-file payload of this network.
    pub fn weights(&self) -> MlpWeights {
        MlpWeights {
            features: G::INPUT_SET_ID.to_string(),
            hidden: self.hidden(),
            phases: self.phases(),
            w1: self.w1.iter().copied().collect(),
            b1: self.b1.to_vec(),
            w2: self.w2.iter().copied().collect(),
            b2: self.b2.to_vec(),
        }
    }

    pub fn hidden(&self) -> usize {
        self.b1.len()
    }

    /// Number of phases: output heads.
    pub fn phases(&self) -> usize {
        self.b2.len()
    }

    /// The phase of `pos` among this network's ([`Inputs::phase`], 0 with one phase).
    pub fn phase_of(&self, pos: &G) -> usize {
        if self.phases() == 1 {
            0
        } else {
            pos.phase(self.phases()).min(self.phases() - 1)
        }
    }

    /// First-layer weights, `hidden × G::INPUTS` (row j: the weights into hidden unit j).
    pub fn w1(&self) -> &Array2<f32> {
        &self.w1
    }

    pub fn b1(&self) -> &Array1<f32> {
        &self.b1
    }

    /// Output weights, `phases × hidden` (row φ: phase φ's head).
    pub fn w2(&self) -> &Array2<f32> {
        &self.w2
    }

    /// Output biases, one per phase.
    pub fn b2(&self) -> &Array1<f32> {
        &self.b2
    }

    /// Hidden activations and the logit of head `phase` for the dense input `x`.
    fn forward(&self, x: &Array1<f32>, phase: usize) -> (Array1<f32>, f32) {
        let h = (self.w1.dot(x) + &self.b1).mapv_into(sigmoid);
        let z = self.w2.row(phase).dot(&h) + self.b2[phase];
        (h, z)
    }

    /// The logit `w2[φ]·h + b2[φ]` of the output of `pos`'s phase φ (so
    /// `output = σ(logit)`).
    pub fn logit(&self, pos: &G) -> f32 {
        self.forward(&encode(pos), self.phase_of(pos)).1
    }

    /// The expected result for the side to move in `pos`: 1 win, ½ draw, 0 loss.
    pub fn output(&self, pos: &G) -> f32 {
        sigmoid(self.logit(pos))
    }

    /// The output and its gradient with respect to every weight, by backpropagation:
    /// with `x` the input, φ its phase, `h = σ(W1 x + b1)`, `p = σ(w2[φ]·h + b2[φ])` and
    /// `d = p(1 − p)`: `∂p/∂b2[φ] = d`, `∂p/∂w2[φ]_j = d h_j`,
    /// `∂p/∂b1_j = d w2[φ]_j h_j (1 − h_j)` and `∂p/∂W1_ji = ∂p/∂b1_j · x_i`; the other
    /// heads' gradients are 0.
    pub fn gradient(&self, pos: &G) -> (f32, MlpGradient) {
        let x = encode(pos);
        let phase = self.phase_of(pos);
        let (h, z) = self.forward(&x, phase);
        let p = sigmoid(z);
        let d = p * (1.0 - p);
        let mut g = MlpGradient::zeros(self.hidden(), G::INPUTS, self.phases());
        g.b2[phase] = d;
        g.w2.row_mut(phase).assign(&(&h * d));
        g.b1 = Zip::from(&h)
            .and(self.w2.row(phase))
            .map_collect(|&h, &w| d * w * h * (1.0 - h));
        // x is 0/1: the outer product `b1-gradient ⊗ x` is that column at each active
        // input and zero elsewhere.
        pos.for_each_input(|i| g.w1.column_mut(i).assign(&g.b1));
        (p, g)
    }

    /// `w ← w + scale · g`, every weight in place. Panics if `g` is for another hidden
    /// size.
    pub fn add_scaled(&mut self, g: &MlpGradient, scale: f32) {
        assert_eq!(
            self.hidden(),
            g.hidden(),
            "gradient for another network size"
        );
        self.w1.scaled_add(scale, &g.w1);
        self.b1.scaled_add(scale, &g.b1);
        self.w2.scaled_add(scale, &g.w2);
        self.b2.scaled_add(scale, &g.b2);
    }

    /// The prediction of the game result from the first player's point of view: the
    /// output if the first player is to move in `pos`, else 1 − output.
    pub fn first_view(&self, pos: &G) -> f32 {
        let p = self.output(pos);
        if pos.side_to_move() == Side::First {
            p
        } else {
            1.0 - p
        }
    }

    /// [`Mlp::first_view`] and its gradient (the output's gradient, negated when the
    /// second player is to move).
    pub fn first_view_gradient(&self, pos: &G) -> (f32, MlpGradient) {
        let (p, mut g) = self.gradient(pos);
        if pos.side_to_move() == Side::First {
            (p, g)
        } else {
            g.scale(-1.0);
            (1.0 - p, g)
        }
    }
}

/// Mean squared error of the network's predictions of game results: `samples` are
/// (position, result for the first player: 1 / ½ / 0) pairs, predicted by
/// [`Mlp::first_view`]. 0 for no samples. For monitoring training (e.g. on held-out
/// games).
pub fn loss<G: Inputs>(mlp: &Mlp<G>, samples: &[(G, f32)]) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .iter()
        .map(|(pos, target)| f64::from(mlp.first_view(pos) - target).powi(2))
        .sum();
    (sum / samples.len() as f64) as f32
}

/// What one TD(λ) episode did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TdReport {
    /// Number of updates: the number of leaves.
    pub steps: usize,
    /// Mean of the squared temporal differences `(Y_{t+1} − Y_t)²` (the last one is
    /// `(Z − Y_n)²`), each measured before its update.
    pub mean_squared_td_error: f32,
    /// `Y_1` before the episode: the prediction at the game's first leaf.
    pub first_prediction: f32,
    /// `Z − Y_n` before the final update: how far the prediction at the last leaf was
    /// from the result.
    pub final_error: f32,
}

/// The prediction of the result from the first player's side at a TD-Leaf leaf, with its gradient:
/// [`Mlp::first_view_gradient`], except at a leaf without legal moves (a game end the
/// search saw), whose value is the known result (the side to move has lost) and does not
/// depend on the weights (`None`: zero gradient).
fn leaf_prediction<G: Inputs>(mlp: &Mlp<G>, leaf: &G) -> (f32, Option<MlpGradient>) {
    if leaf.has_legal_move() {
        let (y, g) = mlp.first_view_gradient(leaf);
        (y, Some(g))
    } else {
        (result_for_first(leaf.outcome_without_moves()), None)
    }
}

/// [`leaf_prediction`] without the gradient.
fn leaf_value<G: Inputs>(mlp: &Mlp<G>, leaf: &G) -> f32 {
    if leaf.has_legal_move() {
        mlp.first_view(leaf)
    } else {
        result_for_first(leaf.outcome_without_moves())
    }
}

/// Trains `mlp` on one game by TD(λ) at the principal-variation leaves (TD-Leaf).
///
/// `leaves[t]` is the leaf of the principal variation the search found from the t-th
/// searched position of the game (its static value is what the search backed up), in
/// game order; `result_for_first` is the game result from the first player's side (1 / ½ / 0, see
/// [`result_for_first`]). `lambda` ∈ [0, 1] is the trace decay, `alpha` > 0 the step
/// size.
///
/// Every prediction is from the first player's point of view ([`Mlp::first_view`]):
/// `Y_t = output(leaf_t)` if the first player is to move in the leaf, else `1 − output(leaf_t)`,
/// and `∇Y_t` is negated accordingly. One exception: a leaf without legal moves (the
/// search saw the game end, e.g. a forced win near the end of a game) is not a position
/// the network is asked about; its `Y` is the known result (0 if the first player is to move in it,
/// else 1) and its gradient is 0. Predictions before it then learn from the true value.
///
/// With `w_0` the weights on entry and `w_t` the weights after t updates, step t = 1..n
/// (n = `leaves.len()`) is, in this order:
/// 1. `Y_t = Y(leaf_t; w_{t−1})` and `∇Y_t = ∇Y(leaf_t; w_{t−1})`;
/// 2. `e_t = λ e_{t−1} + ∇Y_t` (`e_0 = 0`), so `e_t = Σ_{k=1..t} λ^{t−k} ∇Y_k` with each
///    `∇Y_k` taken at `w_{k−1}`, the weights when it was computed;
/// 3. `δ_t = Y(leaf_{t+1}; w_{t−1}) − Y_t` — the next prediction at the *same* weights
///    as `Y_t` — or `δ_n = Z − Y_n` at the last step;
/// 4. `w_t = w_{t−1} + α δ_t e_t`.
///
/// Each leaf is thus evaluated twice, as the target at `w_{t−1}` and then as `Y_{t+1}`
/// with its gradient at `w_t`. An empty `leaves` changes nothing.
///
/// Panics if `lambda` is outside [0, 1], `alpha` is negative or not finite, or
/// `result_for_first` is outside [0, 1].
pub fn td_lambda_episode<G: Inputs>(
    mlp: &mut Mlp<G>,
    leaves: &[G],
    result_for_first: f32,
    lambda: f32,
    alpha: f32,
) -> TdReport {
    td_lambda_episode_blended(mlp, leaves, &[], 0.0, result_for_first, lambda, alpha)
}

/// [`td_lambda_episode`] with each step's target blended with the search (`[training]
/// search_weight` = `w` > 0): `δ_t = (1 − w)·T_t + w·S_t − Y_t`, with `T_t` the plain
/// TD target (`Y(leaf_{t+1}; w_{t−1})`, or `Z` at the last step) and `S_t =
/// searched[t]` the search's value of the position of step t as a first-player
/// probability (`σ(score / CENTI_PER_LOGIT)` for the side to move, `1 −` that when the
/// second player is to move). `searched` is read only when `w` > 0; then it must be as
/// long as `leaves`.
pub fn td_lambda_episode_blended<G: Inputs>(
    mlp: &mut Mlp<G>,
    leaves: &[G],
    searched: &[f32],
    weight: f32,
    result_for_first: f32,
    lambda: f32,
    alpha: f32,
) -> TdReport {
    assert!(
        weight == 0.0 || searched.len() == leaves.len(),
        "{} search values for {} leaves",
        searched.len(),
        leaves.len()
    );
    assert!(
        (0.0..=1.0).contains(&lambda),
        "lambda {lambda} outside [0, 1]"
    );
    assert!(
        alpha.is_finite() && alpha >= 0.0,
        "alpha {alpha} must be finite and non-negative"
    );
    assert!(
        (0.0..=1.0).contains(&result_for_first),
        "result {result_for_first} outside [0, 1]"
    );
    let Some(first) = leaves.first() else {
        return TdReport::default();
    };
    let mut trace = MlpGradient::zeros(mlp.hidden(), G::INPUTS, mlp.phases());
    let (mut y, mut grad) = leaf_prediction(mlp, first);
    let mut report = TdReport {
        steps: leaves.len(),
        first_prediction: y,
        ..TdReport::default()
    };
    let mut squared_sum = 0.0f64;
    for t in 0..leaves.len() {
        // Here `y` and `grad` are Y and ∇Y of leaves[t] at the current weights.
        match &grad {
            Some(g) => trace.decay_and_add(lambda, g),
            None => trace.scale(lambda),
        }
        let next = leaves.get(t + 1);
        let mut target = match next {
            Some(leaf) => leaf_value(mlp, leaf),
            None => result_for_first,
        };
        if let Some(&s) = searched.get(t).filter(|_| weight > 0.0) {
            target = (1.0 - weight) * target + weight * s;
        }
        let delta = target - y;
        squared_sum += f64::from(delta).powi(2);
        if delta != 0.0 {
            mlp.add_scaled(&trace, alpha * delta);
        }
        match next {
            Some(leaf) => (y, grad) = leaf_prediction(mlp, leaf),
            None => report.final_error = delta,
        }
    }
    report.mean_squared_td_error = (squared_sum / leaves.len() as f64) as f32;
    report
}

/// The TD(λ) learner's state: the network being trained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TdState {
    pub weights: MlpWeights,
}

impl TdState {
    /// A new random network of `hidden` units and `phases` output heads for game `G`.
    pub fn new<G: Inputs>(hidden: usize, phases: usize, seed: u64) -> TdState {
        TdState {
            weights: Mlp::<G>::new_random_phased(hidden, phases, seed).weights(),
        }
    }
}

/// One game's TD(λ) learning steps: the principal-variation leaves of the positions the
/// [`PositionFilter`] keeps, in order, with each position's search value as a
/// first-player probability (see [`td_lambda_episode_blended`]). A filtered position is
/// no step at all: the episode runs over the kept leaves, so the trace decays by λ once
/// per kept step and each kept step's TD target is the next kept leaf.
pub struct Steps<G> {
    pub leaves: Vec<G>,
    pub searched: Vec<f32>,
}

impl<G: Inputs> Steps<G> {
    pub fn of(game: &DatasetGame<G>, filter: &PositionFilter<'_, G>) -> Steps<G> {
        let kept = filter.select(game, 0..game.leaves.len());
        Steps {
            leaves: kept.iter().map(|&i| game.leaves[i]).collect(),
            searched: kept
                .iter()
                .map(|&i| {
                    let p = sigmoid(game.scores[i] as f32 / td::CENTI_PER_LOGIT);
                    match game.positions[i].side_to_move() {
                        Side::First => p,
                        Side::Second => 1.0 - p,
                    }
                })
                .collect(),
        }
    }
}

/// The (leaf, game result for the first player) pairs of `games`' learning steps: what
/// the loss of the TD(λ) learner is measured on.
fn loss_targets<G: Inputs>(
    games: &[DatasetGame<G>],
    filter: &PositionFilter<'_, G>,
) -> Vec<(G, f32)> {
    games
        .iter()
        .flat_map(|g| {
            let result = result_for_first(g.outcome);
            Steps::of(g, filter)
                .leaves
                .into_iter()
                .map(move |leaf| (leaf, result))
        })
        .collect()
}

impl<G: EvalGame> Learner<G> for TdState {
    /// Self-play with a snapshot of the network, then one TD(λ) episode per game, in game
    /// order.
    fn iterate(&mut self, it: &mut Iteration<'_, G>) -> Result<Option<IterationReport>, String> {
        let Some(games) = it.self_play(&self.evaluator())? else {
            return Ok(None);
        };
        let settings = &it.config.td;
        let tablebase = it.tablebase.clone();
        let filter = PositionFilter::new(it.config, tablebase.as_deref());
        let mut mlp = Mlp::<G>::from_weights(&self.weights).expect("learner weights are valid");
        let targets = loss_targets(&games, &filter);
        let loss_before = loss(&mlp, &targets) as f64;
        let rate = it.rate_factor();
        let alpha = settings.alpha * rate;
        let weight = it.search_weight(0.0) as f32;
        let mut squared = 0.0;
        let mut steps = 0;
        (it.progress)(Stage::Episodes, 0, games.len() as u64);
        for (done, game) in games.iter().enumerate() {
            if it.stop.load(Ordering::SeqCst) {
                return Ok(None);
            }
            let game_steps = Steps::of(game, &filter);
            let report = td_lambda_episode_blended(
                &mut mlp,
                &game_steps.leaves,
                &game_steps.searched,
                weight,
                result_for_first(game.outcome),
                settings.lambda as f32,
                alpha as f32,
            );
            squared += report.mean_squared_td_error as f64 * report.steps as f64;
            steps += report.steps;
            (it.progress)(Stage::Episodes, done as u64 + 1, games.len() as u64);
        }
        self.weights = mlp.weights();
        let at_alpha = if rate == 1.0 {
            String::new()
        } else {
            format!(" at α {alpha:.4}")
        };
        Ok(Some(IterationReport {
            games: games.len() as u64,
            positions: steps as u64,
            loss_before,
            loss: loss(&mlp, &targets) as f64,
            detail: format!(
                "{steps} TD(λ) steps{at_alpha}, mean squared temporal difference {:.5}",
                squared / steps.max(1) as f64
            ),
        }))
    }

    fn validation_loss(&self, games: &[DatasetGame<G>], it: &Iteration<'_, G>) -> f64 {
        let mlp = Mlp::<G>::from_weights(&self.weights).expect("learner weights are valid");
        loss(&mlp, &loss_targets(games, &it.position_filter())) as f64
    }

    fn evaluator(&self) -> AnyEvaluator<G> {
        AnyEvaluator::Td(
            TdEvaluator::from_weights(&self.weights).expect("learner weights are valid"),
        )
    }

    fn model_header(&self, game: &str) -> ModelHeader {
        ModelHeader::new(game, td::KIND, G::INPUT_SET_ID)
    }

    fn save_model(&self, path: &Path, header: &mut ModelHeader) -> Result<(), ModelError> {
        save_model(path, header, &self.weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::td::{active_inputs, centi_units, exp};
    use crate::eval::{EVAL_LIMIT, Evaluator};
    use crate::game::Game;
    use crate::game::brazilian::Brazilian;
    use crate::game::brazilian::encoding::SIDE_INPUT;

    const INPUTS: usize = <Brazilian as Inputs>::INPUTS;
    use crate::game::MoveList;

    fn pos(fen: &str) -> Brazilian {
        Brazilian::parse_position(fen).unwrap()
    }

    /// Positions from seeded random play, every position of `games` games.
    fn random_positions(seed: u64, games: u64) -> Vec<Brazilian> {
        let mut out = Vec::new();
        let mut moves = MoveList::new();
        for game in 0..games {
            let mut rng = crate::rng::stream(seed, game);
            let mut p = Brazilian::start();
            for _ in 0..150 {
                p.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                out.push(p);
                p = p.play(moves[rng.random_range(0..moves.len())]);
            }
        }
        out
    }

    #[test]
    fn inputs_are_the_relative_board_and_the_side() {
        // White man on 21, Black man on 12; Black to move sees the same board turned.
        assert_eq!(
            active_inputs(&pos("W:W21:B12")),
            vec![20, 64 + 11, SIDE_INPUT]
        );
        assert_eq!(active_inputs(&pos("B:W21:B12")), vec![20, 64 + 11]);
        assert_eq!(
            active_inputs(&pos("W:WK1:BK32")),
            vec![32, 96 + 31, SIDE_INPUT]
        );
        let start = active_inputs(&Brazilian::start());
        assert_eq!(start.len(), 25);
        let x = encode(&Brazilian::start());
        assert_eq!(x.sum(), 25.0);
        assert!(start.iter().all(|&i| x[i] == 1.0));
    }

    /// Every weight in payload order: `W1` row-major, `b1`, `w2` (heads in order), `b2`.
    fn flat(w: &MlpWeights) -> Vec<f64> {
        let all = w.w1.iter().chain(&w.b1).chain(&w.w2).chain(&w.b2);
        all.map(|&v| f64::from(v)).collect()
    }

    fn flat_gradient(g: &MlpGradient) -> Vec<f64> {
        let all = g.w1.iter().chain(&g.b1).chain(&g.w2).chain(&g.b2);
        all.map(|&v| f64::from(v)).collect()
    }

    /// The output of head `phase` in f64 from flat weights of a network with `phases`
    /// heads and a dense input.
    fn output_f64(w: &[f64], hidden: usize, phases: usize, phase: usize, x: &Array1<f32>) -> f64 {
        let sig = |a: f64| 1.0 / (1.0 + (-a).exp());
        let (b1, w2) = (hidden * INPUTS, hidden * INPUTS + hidden);
        let head = w2 + phase * hidden;
        let mut z = w[w2 + phases * hidden + phase];
        for j in 0..hidden {
            let mut a = w[b1 + j];
            for i in 0..INPUTS {
                a += w[j * INPUTS + i] * f64::from(x[i]);
            }
            z += w[head + j] * sig(a);
        }
        sig(z)
    }

    /// Central differences in f64 on every weight of a small network, with one output
    /// and with 3 phases' heads (the other heads' gradients are 0).
    #[test]
    fn gradient_matches_finite_differences() {
        const H: usize = 4;
        for phases in [1, 3] {
            // Larger weights than the initial ones, so every term of the gradient matters.
            let mut w = Mlp::<Brazilian>::new_random_phased(H, phases, 7).weights();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
            for v in w.w1.iter_mut().chain(&mut w.b1).chain(&mut w.w2) {
                *v = rng.random_range(-1.0..1.0);
            }
            for (phase, b) in w.b2.iter_mut().enumerate() {
                *b = 0.3 - 0.2 * phase as f32;
            }
            let mlp = Mlp::<Brazilian>::from_weights(&w).unwrap();
            let base = flat(&w);
            let positions = [
                Brazilian::start(),
                pos("B:W21,22,K30:B1,K2,9"),
                pos("W:W13,14,21,K6:B5,K29,18"),
                pos("W:W21,22,23,25,26,27:B1,2,3,5,9,11"),
            ];
            let mut seen = std::collections::BTreeSet::new();
            let step = 1e-4;
            for p in positions {
                let phase = mlp.phase_of(&p);
                seen.insert(phase);
                let (out, g) = mlp.gradient(&p);
                assert_eq!(out, mlp.output(&p));
                let x = encode(&p);
                let f = |w: &[f64]| output_f64(w, H, phases, phase, &x);
                assert!((f(&base) - f64::from(out)).abs() < 1e-6);
                let analytic = flat_gradient(&g);
                assert_eq!(analytic.len(), base.len());
                for (k, &a) in analytic.iter().enumerate() {
                    let mut plus = base.clone();
                    plus[k] += step;
                    let mut minus = base.clone();
                    minus[k] -= step;
                    let numeric = (f(&plus) - f(&minus)) / (2.0 * step);
                    assert!(
                        (a - numeric).abs() <= 1e-4 * numeric.abs() + 1e-7,
                        "{phases} phases, weight {k}: analytic {a}, numeric {numeric}"
                    );
                }
            }
            assert_eq!(seen.len(), phases, "the positions cover every phase");
        }
    }

    #[test]
    fn draughts_phases_bucket_the_pieces_on_the_board() {
        use crate::eval::td::phase_bucket;
        let start = Brazilian::start();
        assert_eq!(start.phase(1), 0);
        assert_eq!(start.phase(2), 1);
        assert_eq!(start.phase(4), 3);
        let ending = pos("W:WK1:BK32");
        assert_eq!(ending.phase(4), 0);
        // 4 phases: 0–6, 7–12, 13–18, 19–24 pieces.
        let expect4 = |n: u32| match n {
            0..=6 => 0,
            7..=12 => 1,
            13..=18 => 2,
            _ => 3,
        };
        for n in 0..=24 {
            assert_eq!(phase_bucket(n, 24, 4), expect4(n), "{n} pieces");
            assert_eq!(phase_bucket(n, 24, 1), 0);
            for phases in 1..=crate::eval::td::MAX_PHASES {
                assert!(phase_bucket(n, 24, phases) < phases);
            }
        }
        assert_eq!(
            phase_bucket(25, 24, 4),
            3,
            "past the maximum: the last phase"
        );
        assert_eq!(phase_bucket(0, 24, 0), 0);
        // The same board with either side to move is in the same phase.
        for p in random_positions(4, 5) {
            let turned = p.with_side_to_move(p.side_to_move().opponent());
            for phases in 1..=crate::eval::td::MAX_PHASES {
                assert_eq!(p.phase(phases), turned.phase(phases));
                assert!(p.phase(phases) < phases);
            }
        }
    }

    /// A phased network's integer form against its float form, with every head in use.
    #[test]
    fn fast_evaluator_equals_the_forward_pass_with_phases() {
        let positions = random_positions(12, 30);
        let mut w = Mlp::<Brazilian>::new_random_phased(DEFAULT_HIDDEN, 4, 5).weights();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
        for v in w.w2.iter_mut() {
            *v = rng.random_range(-2.0..2.0);
        }
        w.b2 = vec![0.5, -0.25, 0.1, 0.0];
        let mlp = Mlp::<Brazilian>::from_weights(&w).unwrap();
        let fast = mlp.evaluator();
        assert_eq!(fast.phases(), 4);
        let mut seen = [0; 4];
        for p in &positions {
            seen[mlp.phase_of(p)] += 1;
            // Output weights of ±2 over 48 units: the first layer's rounding moves the
            // value by a few centi-units.
            let expected = 100.0 * f64::from(mlp.logit(p));
            let value = fast.evaluate(p);
            assert!(
                (f64::from(value) - expected).abs() <= 4.0,
                "{value} vs {expected}"
            );
            // The head of the position's phase, and no other, gives the value.
            let mut one = w.clone();
            one.phases = 1;
            let phase = mlp.phase_of(p);
            one.w2 = w.head(phase).to_vec();
            one.b2 = vec![w.b2[phase]];
            assert_eq!(
                TdEvaluator::<Brazilian>::from_weights(&one)
                    .unwrap()
                    .evaluate(p),
                value
            );
        }
        assert!(seen.iter().all(|&n| n > 50), "{seen:?}");
    }

    /// A TD episode over positions of one phase leaves the other heads as they were.
    #[test]
    fn episodes_train_only_their_phases_heads() {
        let mut mlp = Mlp::<Brazilian>::new_random_phased(8, 4, 2);
        let before = mlp.clone();
        let leaves = [
            Brazilian::start(),
            pos("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"),
        ];
        assert!(leaves.iter().all(|p| mlp.phase_of(p) == 3));
        td_lambda_episode(&mut mlp, &leaves, 1.0, 0.7, 0.5);
        for phase in 0..3 {
            assert_eq!(mlp.w2().row(phase), before.w2().row(phase));
            assert_eq!(mlp.b2()[phase], before.b2()[phase]);
        }
        assert_ne!(mlp.w2().row(3), before.w2().row(3));
        assert_ne!(mlp.w1(), before.w1());
        // One phase draws the same initial weights as the one-output network, and a
        // phased network starts with equal heads.
        let one = Mlp::<Brazilian>::new_random(8, 2);
        assert_eq!(one, Mlp::<Brazilian>::new_random_phased(8, 1, 2));
        for phase in 0..4 {
            assert_eq!(before.w2().row(phase), one.w2().row(0));
        }
        assert_eq!(before.w1(), one.w1());
    }

    #[test]
    fn fast_evaluator_equals_the_forward_pass() {
        let positions = random_positions(11, 40);
        assert!(positions.len() >= 1000, "{} positions", positions.len());
        for scale in [1.0f32, 8.0] {
            let mut w = Mlp::<Brazilian>::new_random(DEFAULT_HIDDEN, 5).weights();
            for v in w.w1.iter_mut().chain(&mut w.w2) {
                *v *= scale;
            }
            w.b2 = vec![0.25];
            let mlp = Mlp::<Brazilian>::from_weights(&w).unwrap();
            let fast = mlp.evaluator();
            let mut spread = 0;
            for p in &positions {
                let value = fast.evaluate(p);
                // The logit mapping of the output p, in f64; the integer network's
                // rounding moves it by a few centi-units at most.
                let out = f64::from(mlp.output(p));
                let expected = 100.0 * (out / (1.0 - out)).ln();
                assert!(
                    (f64::from(value) - expected).abs() <= 2.0 * scale as f64,
                    "{value} vs {expected}"
                );
                spread = spread.max(value.abs());
            }
            assert!(spread > 10, "the test network is too flat");
        }
    }

    #[test]
    fn exp_is_accurate() {
        let mut worst = 0.0f64;
        for k in -1_000_000..=1_000_000 {
            let x = k as f32 * 8.7e-5;
            let exact = f64::from(x).exp();
            worst = worst.max((f64::from(exp(x)) - exact).abs() / exact);
        }
        assert!(worst < 3e-7, "relative error {worst}");
        assert_eq!(exp(0.0), 1.0);
        assert!(exp(-1000.0) > 0.0 && exp(-1000.0) < 1e-37);
        assert!(exp(1000.0).is_finite());
        assert!(sigmoid(-1000.0) > 0.0 && sigmoid(-1000.0) < 1e-37);
        assert_eq!(sigmoid(1000.0), 1.0);
        assert_eq!(sigmoid(0.0), 0.5);
    }

    #[test]
    fn centi_units_clamp() {
        assert_eq!(centi_units(1.234), 123);
        assert_eq!(centi_units(-1e9), -EVAL_LIMIT);
        assert_eq!(centi_units(f32::INFINITY), EVAL_LIMIT);
        assert_eq!(centi_units(f32::NAN), 0);
    }

    #[test]
    fn weights_round_trip_through_json() {
        let mlp = Mlp::<Brazilian>::new_random(6, 1);
        let w = mlp.weights();
        let text = serde_json::to_string(&w).unwrap();
        let back: MlpWeights = serde_json::from_str(&text).unwrap();
        assert_eq!(back, w);
        let again = Mlp::<Brazilian>::from_weights(&back).unwrap();
        assert_eq!(again, mlp);
        let p = Brazilian::start();
        assert_eq!(again.output(&p), mlp.output(&p));
    }

    #[test]
    fn corrupt_weights_are_rejected() {
        let good = Mlp::<Brazilian>::new_random(4, 2).weights();
        assert!(good.validate::<Brazilian>().is_ok());
        let mut bad: Vec<MlpWeights> = Vec::new();
        let mut w = good.clone();
        w.w1.pop();
        bad.push(w);
        let mut w = good.clone();
        w.b1.push(0.0);
        bad.push(w);
        let mut w = good.clone();
        w.w2.clear();
        bad.push(w);
        let mut w = good.clone();
        w.hidden = 5;
        bad.push(w);
        let mut w = good.clone();
        w.hidden = 0;
        w.w1.clear();
        w.b1.clear();
        w.w2.clear();
        bad.push(w);
        let mut w = good.clone();
        w.hidden = usize::MAX;
        bad.push(w);
        let mut w = good.clone();
        w.w1[17] = f32::NAN;
        bad.push(w);
        let mut w = good.clone();
        w.w2[3] = f32::INFINITY;
        bad.push(w);
        let mut w = good.clone();
        w.b2 = vec![f32::NAN];
        bad.push(w);
        let mut w = good.clone();
        w.phases = 0;
        w.w2.clear();
        w.b2.clear();
        bad.push(w);
        let mut w = good.clone();
        w.phases = 2;
        bad.push(w);
        let mut w = good.clone();
        w.b2.push(0.0);
        bad.push(w);
        let mut w = Mlp::<Brazilian>::new_random_phased(4, 2, 2).weights();
        w.w2.pop();
        bad.push(w);
        let mut w = Mlp::<Brazilian>::new_random_phased(4, 8, 2).weights();
        w.phases = 9;
        w.w2.extend([0.0; 4]);
        w.b2.push(0.0);
        bad.push(w);
        let mut w = good.clone();
        w.phases = usize::MAX;
        bad.push(w);
        let mut w = good.clone();
        w.features = "samuel-v1".into();
        bad.push(w);
        for w in bad {
            assert!(w.validate::<Brazilian>().is_err(), "{w:?}");
            assert!(Mlp::<Brazilian>::from_weights(&w).is_err());
            assert!(TdEvaluator::<Brazilian>::from_weights(&w).is_err());
        }
        let short_json = r#"{"features":"board-onehot-129","hidden":1,"phases":1,"w1":[],
            "b1":[0],"w2":[0],"b2":[0]}"#;
        let w: MlpWeights = serde_json::from_str(short_json).unwrap();
        assert!(Mlp::<Brazilian>::from_weights(&w).is_err());
    }

    /// Model files written before output heads existed (payload [`MlpWeightsV1`]) load as
    /// one phase and evaluate as they did; current files round-trip; a payload of
    /// neither layout is refused.
    #[test]
    fn model_files_of_both_layouts_load() {
        use crate::eval::td::{MlpWeightsV1, load_weights};
        use crate::io::model::{ModelHeader, save_model};
        let dir = std::env::temp_dir().join(format!("evalearn-td-layouts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mlp = Mlp::<Brazilian>::new_random(6, 3);
        let w = mlp.weights();
        let old = MlpWeightsV1 {
            features: w.features.clone(),
            hidden: w.hidden,
            w1: w.w1.clone(),
            b1: w.b1.clone(),
            w2: w.w2.clone(),
            b2: w.b2[0],
        };
        let mut header = ModelHeader::new("brazilian", td::KIND, Brazilian::INPUT_SET_ID);
        let old_path = dir.join("old.bin");
        save_model(&old_path, &mut header, &old).unwrap();
        let (_, loaded) = load_weights(&old_path, Some("brazilian")).unwrap();
        assert_eq!(loaded, w);
        assert_eq!(loaded.phases, 1);
        let p = pos("W:W13,14,21,K6:B5,K29,18");
        assert_eq!(
            TdEvaluator::<Brazilian>::from_weights(&loaded)
                .unwrap()
                .evaluate(&p),
            mlp.evaluator().evaluate(&p)
        );

        let phased = Mlp::<Brazilian>::new_random_phased(6, 3, 4).weights();
        let new_path = dir.join("new.bin");
        save_model(&new_path, &mut header, &phased).unwrap();
        assert_eq!(
            load_weights(&new_path, Some("brazilian")).unwrap().1,
            phased
        );
        assert!(load_weights(&new_path, Some("kalah")).is_err());

        let other_path = dir.join("other.bin");
        save_model(&other_path, &mut header, &(1u32, "not a network")).unwrap();
        let e = load_weights(&other_path, None).unwrap_err().to_string();
        assert!(e.contains("payload does not decode"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn terminal_leaves_have_the_known_value() {
        // White to move without pieces has lost; Black to move without a move too.
        let lost_white = pos("W:W:B12,K20");
        let lost_black = pos("B:W21,K30:B");
        assert!(!lost_white.has_legal_move() && !lost_black.has_legal_move());
        let mlp = Mlp::<Brazilian>::new_random(4, 1);
        assert_eq!(leaf_value(&mlp, &lost_white), 0.0);
        assert_eq!(leaf_value(&mlp, &lost_black), 1.0);
        assert!(leaf_prediction(&mlp, &lost_black).1.is_none());
        // An episode that is all known values, ending as they say, changes nothing.
        let mut trained = mlp.clone();
        let report = td_lambda_episode(&mut trained, &[lost_black, lost_black], 1.0, 0.7, 0.5);
        assert_eq!(trained, mlp);
        assert_eq!(report.mean_squared_td_error, 0.0);
        // The prediction before a known loss for White moves towards 0.
        let before = pos("W:W21:B12");
        let mut trained = mlp.clone();
        td_lambda_episode(&mut trained, &[before, lost_white], 0.0, 0.7, 0.5);
        assert!(trained.first_view(&before) < mlp.first_view(&before));
    }

    #[test]
    fn empty_episode_changes_nothing() {
        let mut mlp = Mlp::<Brazilian>::new_random(4, 9);
        let before = mlp.clone();
        let report = td_lambda_episode(&mut mlp, &[], 1.0, 0.7, 0.1);
        assert_eq!(report.steps, 0);
        assert_eq!(mlp, before);
    }

    /// The seed's rule by hand on a three-leaf episode with a 2-unit network: outputs
    /// and gradients by explicit scalar formulas in f64 from hand-listed active inputs,
    /// the three steps written out.
    #[test]
    fn td_lambda_matches_a_hand_computation() {
        const H: usize = 2;
        // Parameters flattened: W1 row-major (H × 129), then b1, w2, b2.
        const B1: usize = H * INPUTS;
        const W2: usize = B1 + H;
        const B2: usize = W2 + H;
        const N: usize = B2 + 1;
        let mut w0 = vec![0.0f64; N];
        // Weights on the inputs the three leaves use, and on one they do not.
        let set = |w: &mut Vec<f64>, j: usize, i: usize, v: f64| w[j * INPUTS + i] = v;
        set(&mut w0, 0, 20, 0.8); // own man on 21
        set(&mut w0, 1, 20, -0.5);
        set(&mut w0, 0, 75, -0.6); // opponent man on 12
        set(&mut w0, 1, 75, 0.9);
        set(&mut w0, 0, 64 + 12, 0.4); // opponent man on 13
        set(&mut w0, 1, 64 + 12, 0.3);
        set(&mut w0, 0, 32 + 4, 1.1); // own king on 5
        set(&mut w0, 1, 32 + 4, -0.7);
        set(&mut w0, 0, SIDE_INPUT, 0.2);
        set(&mut w0, 1, SIDE_INPUT, -0.3);
        set(&mut w0, 0, 100, 5.0); // opponent king on 5: never active here
        w0[B1] = 0.1;
        w0[B1 + 1] = -0.2;
        w0[W2] = 1.5;
        w0[W2 + 1] = -1.2;
        w0[B2] = 0.05;

        // Leaves, with their active inputs listed by hand (Black's view is turned 180°:
        // square n becomes 33 − n).
        let leaves = [
            pos("W:W21:B12"),       // own man 21, opp man 12, White to move
            pos("B:W21:B12,20"),    // own men 21 (12), 13 (20); opp man 12 (21)
            pos("W:WK5,21:B12,13"), // own king 5, own man 21, opp men 12, 13
        ];
        let active: [(&[usize], bool); 3] = [
            (&[20, 75, SIDE_INPUT], true),
            (&[12, 20, 75], false),
            (&[20, 36, 75, 76, SIDE_INPUT], true),
        ];
        for (leaf, (inputs, white)) in leaves.iter().zip(active) {
            let mut expected: Vec<usize> = inputs.to_vec();
            expected.sort_unstable();
            assert_eq!(active_inputs(leaf), expected);
            assert_eq!(leaf.side_to_move() == Side::First, white);
        }

        // Y (White's view) and ∇Y for leaf k at weights w.
        let y_and_grad = |w: &[f64], k: usize| -> (f64, Vec<f64>) {
            let (inputs, white) = active[k];
            let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
            let mut h = [0.0; H];
            for j in 0..H {
                let a = w[B1 + j] + inputs.iter().map(|&i| w[j * INPUTS + i]).sum::<f64>();
                h[j] = sig(a);
            }
            let p = sig(w[B2] + w[W2] * h[0] + w[W2 + 1] * h[1]);
            let d = p * (1.0 - p);
            let mut g = vec![0.0; N];
            g[B2] = d;
            for j in 0..H {
                g[W2 + j] = d * h[j];
                g[B1 + j] = d * w[W2 + j] * h[j] * (1.0 - h[j]);
                for &i in inputs {
                    g[j * INPUTS + i] = g[B1 + j];
                }
            }
            if white {
                (p, g)
            } else {
                (1.0 - p, g.iter().map(|v| -v).collect())
            }
        };
        let (lambda, alpha, z) = (0.6, 0.5, 1.0);
        let axpy = |w: &[f64], s: f64, e: &[f64]| -> Vec<f64> {
            w.iter().zip(e).map(|(a, b)| a + s * b).collect()
        };

        // Step 1: Y1, ∇Y1 at w0; e1 = ∇Y1; δ1 = Y2(w0) − Y1(w0); w1 = w0 + α δ1 e1.
        let (y1, g1) = y_and_grad(&w0, 0);
        let e1 = g1.clone();
        let d1 = y_and_grad(&w0, 1).0 - y1;
        let w1 = axpy(&w0, alpha * d1, &e1);
        // Step 2: Y2, ∇Y2 at w1; e2 = λ e1 + ∇Y2; δ2 = Y3(w1) − Y2(w1).
        let (y2, g2) = y_and_grad(&w1, 1);
        let e2: Vec<f64> = e1.iter().zip(&g2).map(|(e, g)| lambda * e + g).collect();
        let d2 = y_and_grad(&w1, 2).0 - y2;
        let w2 = axpy(&w1, alpha * d2, &e2);
        // Step 3 (last): Y3, ∇Y3 at w2; e3 = λ e2 + ∇Y3; δ3 = Z − Y3(w2).
        let (y3, g3) = y_and_grad(&w2, 2);
        let e3: Vec<f64> = e2.iter().zip(&g3).map(|(e, g)| lambda * e + g).collect();
        let d3 = z - y3;
        let w3 = axpy(&w2, alpha * d3, &e3);

        let payload = |w: &[f64]| MlpWeights {
            features: Brazilian::INPUT_SET_ID.into(),
            hidden: H,
            w1: w[..B1].iter().map(|&v| v as f32).collect(),
            b1: w[B1..W2].iter().map(|&v| v as f32).collect(),
            w2: w[W2..B2].iter().map(|&v| v as f32).collect(),
            b2: vec![w[B2] as f32],
            phases: 1,
        };
        let mut mlp = Mlp::<Brazilian>::from_weights(&payload(&w0)).unwrap();
        let report = td_lambda_episode(&mut mlp, &leaves, z as f32, lambda as f32, alpha as f32);
        assert_eq!(report.steps, 3);
        assert!((f64::from(report.first_prediction) - y1).abs() < 1e-6);
        assert!((f64::from(report.final_error) - d3).abs() < 1e-5);
        let mse = (d1 * d1 + d2 * d2 + d3 * d3) / 3.0;
        assert!((f64::from(report.mean_squared_td_error) - mse).abs() < 1e-5);

        let got = flat(&mlp.weights());
        let close = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .all(|(x, y)| (x - y).abs() <= 1e-5 * (1.0 + y.abs()))
        };
        for (k, (g, e)) in got.iter().zip(&w3).enumerate() {
            assert!(
                (g - e).abs() <= 1e-5 * (1.0 + e.abs()),
                "weight {k}: {g} vs {e}"
            );
        }
        // The test can tell the weights the gradients are taken at: with every gradient
        // and prediction at w0 (no online update) the result differs.
        let offline = {
            let (y2, g2) = y_and_grad(&w0, 1);
            let (y3, g3) = y_and_grad(&w0, 2);
            let e2: Vec<f64> = e1.iter().zip(&g2).map(|(e, g)| lambda * e + g).collect();
            let e3: Vec<f64> = e2.iter().zip(&g3).map(|(e, g)| lambda * e + g).collect();
            let w = axpy(&w0, alpha * d1, &e1);
            let w = axpy(&w, alpha * (y3 - y2), &e2);
            axpy(&w, alpha * (z - y3), &e3)
        };
        assert!(!close(&offline, &w3));
        // The weights no leaf uses did not move.
        assert_eq!(got[100], 5.0);
        assert!(w0.iter().zip(&w3).any(|(a, b)| (a - b).abs() > 1e-3));
    }
}
