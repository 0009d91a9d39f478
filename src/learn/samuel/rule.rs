//! Samuel's update rule and its bookkeeping: the step size, the normalised LMS update of
//! A's weights, what happens after a game (B takes A's weights, A's largest weight is
//! zeroed after a losing streak), and term replacement by correlation with winning.

use super::{Correlation, SamuelSettings, SamuelState};
use crate::eval::linear::{Features, LinearWeights, MAX_FEATURES, feature_count};
use crate::game::{Outcome, Side};
use crate::search::WIN_THRESHOLD;

/// The step size after `games` games.
pub fn step_size(settings: &SamuelSettings, games: u64) -> f64 {
    if settings.step_decay_games > 0.0 {
        settings.learning_rate / (1.0 + games as f64 / settings.step_decay_games)
    } else {
        settings.learning_rate
    }
}

/// The pool's features of `pos` into `out`, or `false` if the position is not learned
/// from (a capture pending, or a decided `target`).
pub fn learning_features<G: Features>(pos: &G, target: i32, out: &mut [i32]) -> bool {
    if !pos.is_quiet() || target.abs() >= WIN_THRESHOLD {
        return false;
    }
    pos.features(&mut out[..feature_count::<G>()]);
    true
}

/// One normalised-LMS step of `weights`' active features with step `rate` towards
/// `target` at a position with (pool) features `f` and anchor `anchor`; returns the error
/// (centi-units, before clipping).
pub fn update(
    weights: &mut LinearWeights,
    anchor: i32,
    f: &[i32],
    target: i32,
    rate: f64,
    error_clip: f64,
) -> f64 {
    let (mut positional, mut norm) = (0.0, 1.0);
    for &i in &weights.active {
        let x = f[usize::from(i)] as f64;
        positional += weights.weights[usize::from(i)] as f64 * x;
        norm += x * x;
    }
    let error = target as f64 - (anchor as f64 + positional);
    let delta = error.clamp(-error_clip, error_clip);
    for &i in &weights.active {
        let i = usize::from(i);
        weights.weights[i] += (rate * delta * f[i] as f64 / norm) as f32;
    }
    error
}

/// Sets the largest weight (in absolute value) to zero.
pub fn zero_largest(weights: &mut LinearWeights) {
    let largest = weights
        .weights
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        .map(|(i, _)| i);
    if let Some(i) = largest {
        weights.weights[i] = 0.0;
    }
}

/// After a game: copy on A's win, count losses, zero A's largest weight after a streak.
/// Returns (copied, zeroed).
pub fn after_game(
    state: &mut SamuelState,
    a_result: Outcome,
    a_side: Side,
    settings: &SamuelSettings,
) -> (bool, bool) {
    match a_result {
        Outcome::Win(side) if side == a_side => {
            state.b = state.a.clone();
            state.loss_streak = 0;
            (true, false)
        }
        Outcome::Win(_) => {
            state.loss_streak += 1;
            if state.loss_streak >= settings.loss_streak {
                zero_largest(&mut state.a);
                state.loss_streak = 0;
                (false, true)
            } else {
                (false, false)
            }
        }
        Outcome::Draw => {
            state.loss_streak = 0;
            (false, false)
        }
    }
}

/// Samuel's term replacement after `games` games: the active feature least correlated
/// with winning (|r| over the games since the last replacement; the lowest index among
/// equals) makes way for the reserve's head, and the correlations restart. Returns
/// (removed, added), or `None` without data or reserve.
pub fn replace_least_useful(state: &mut SamuelState, games: u64) -> Option<(usize, usize)> {
    if state.usefulness.iter().all(|c| c.n == 0.0) {
        return None;
    }
    let (removed, measure) = state
        .a
        .active
        .iter()
        .map(|&i| {
            (
                usize::from(i),
                state.usefulness[usize::from(i)].value().abs(),
            )
        })
        .min_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)))?;
    let added = state.a.replace(removed, games, measure as f32)?;
    state.usefulness.fill(Correlation::default());
    Some((removed, added))
}

/// Per-game sums of the pool's features at A's learning positions, for the correlations.
pub(super) struct GameSums {
    count: f64,
    x: [f64; MAX_FEATURES],
    xx: [f64; MAX_FEATURES],
}

impl GameSums {
    pub(super) fn new() -> GameSums {
        GameSums {
            count: 0.0,
            x: [0.0; MAX_FEATURES],
            xx: [0.0; MAX_FEATURES],
        }
    }

    pub(super) fn add(&mut self, f: &[i32]) {
        self.count += 1.0;
        for (i, &v) in f.iter().enumerate() {
            self.x[i] += v as f64;
            self.xx[i] += (v as f64) * (v as f64);
        }
    }

    /// Adds the game to the correlations with A's result `y`, then clears.
    pub(super) fn finish(&mut self, usefulness: &mut [Correlation], y: f64) {
        for (i, c) in usefulness.iter_mut().enumerate() {
            c.add_game(self.count, self.x[i], self.xx[i], y);
        }
        *self = GameSums::new();
    }
}

/// The value of a won game in Samuel's targets when they blend in the result (`[training]
/// search_weight` below 1): three men (stones), the lost game its negative, a draw 0.
pub const RESULT_VALUE: f64 = 300.0;
