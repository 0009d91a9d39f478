//! The TD(λ) learning rule at the principal-variation leaves of a game (TD-Leaf), and
//! the learning steps of a self-play game.

use super::flat::{self, EpisodeFigures, FlatNet, Scratch, TdLoss};
use super::mlp::Mlp;
use crate::eval::td::{self, Inputs, sigmoid};
use crate::game::Side;
use crate::io::dataset::DatasetGame;
use crate::learn::controls::{OutcomeTarget, PositionFilter};

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
    check_episode(leaves, searched, weight, result_for_first, lambda, alpha);
    let mut net = FlatNet::from_weights::<G>(&mlp.weights(), mlp.input_set());
    let figures = flat::episode(
        &mut net,
        leaves,
        searched,
        weight,
        result_for_first,
        OutcomeTarget::Result,
        TdLoss::Squared,
        lambda,
        alpha,
        &mut Scratch::new(),
    );
    *mlp = Mlp::from_weights(&net.to_weights::<G>()).expect("the same network");
    TdReport::of(&figures)
}

/// Panics on arguments outside the rule's domain (see [`td_lambda_episode`]).
pub(super) fn check_episode<G>(
    leaves: &[G],
    searched: &[f32],
    weight: f32,
    result_for_first: f32,
    lambda: f32,
    alpha: f32,
) {
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
}

impl TdReport {
    /// The report of an episode's figures.
    pub(super) fn of(figures: &EpisodeFigures) -> TdReport {
        TdReport {
            steps: figures.steps,
            mean_squared_td_error: (figures.squared / figures.steps.max(1) as f64) as f32,
            first_prediction: figures.first_prediction,
            final_error: figures.final_error,
        }
    }
}

/// One game's TD(λ) learning steps: the principal-variation leaves of the positions the
/// [`PositionFilter`] keeps, in order, with each position's search value as a
/// first-player probability (see [`td_lambda_episode_blended`]), the search's scores
/// counting `centi_per_logit` to a unit of the network's logit. A filtered position is
/// no step at all: the episode runs over the kept leaves, so the trace decays by λ once
/// per kept step and each kept step's TD target is the next kept leaf.
pub struct Steps<G> {
    pub leaves: Vec<G>,
    pub searched: Vec<f32>,
}

impl<G: Inputs> Steps<G> {
    pub fn of(
        game: &DatasetGame<G>,
        filter: &PositionFilter<'_, G>,
        centi_per_logit: f32,
    ) -> Steps<G> {
        let kept = filter.select(game, 0..game.leaves.len());
        Steps {
            leaves: kept.iter().map(|&i| game.leaves[i]).collect(),
            searched: kept
                .iter()
                .map(|&i| {
                    let p = sigmoid(game.scores[i] as f32 / centi_per_logit);
                    match game.positions[i].side_to_move() {
                        Side::First => p,
                        Side::Second => 1.0 - p,
                    }
                })
                .collect(),
        }
    }
}

/// The (leaf, game value for the first player as `target` says) pairs of `games`'
/// learning steps: what the loss of the TD(λ) learner is measured on.
pub(super) fn loss_targets<G: Inputs>(
    games: &[DatasetGame<G>],
    filter: &PositionFilter<'_, G>,
    target: OutcomeTarget,
) -> Vec<(G, f32)> {
    games
        .iter()
        .flat_map(|g| {
            let result = target.of_game(g, Side::First) as f32;
            Steps::of(g, filter, td::CENTI_PER_LOGIT)
                .leaves
                .into_iter()
                .map(move |leaf| (leaf, result))
        })
        .collect()
}
