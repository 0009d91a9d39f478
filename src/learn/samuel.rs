//! Samuel's learning by self-play (seed 5.2), on the linear evaluator over a game's named
//! features ([`crate::eval::linear`]), for any game that has them.
//!
//! Player A learns, player B is frozen. **The update rule**: after each of A's moves,
//! with `s` the position A moved from, `f = features(s)`, `V(s) = anchor(s) + w·f` its
//! static value and `v` the value A's search backed up for `s` (both for A, in
//! centi-units), the error `δ = clamp(v − V(s), ±error_clip)` moves the weights by the
//! normalised LMS step `w ← w + α·δ·f / (1 + f·f)`. Positions with a capture pending (no
//! static value is used there) and decided ones (a win or loss score) are skipped. The
//! anchor (material; Kalah's store difference) keeps its fixed weight, without which the
//! weights would drift. After a game A wins, B takes A's weights; after `loss_streak` (3) losses in a
//! row, A's largest weight (in absolute value) is set to zero, to leave a local optimum.
//!
//! Games are played one after another, because A changes after every move; A moves first
//! in even-numbered games and second in odd ones.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::arena::engine_game::{Exploration, GameRules, play_engine_game};
use crate::eval::linear::{self, Features, Linear, LinearWeights, MAX_FEATURES, feature_count};
use crate::eval::spec::AnyEvaluator;
use crate::eval::{EvalGame, Evaluator};
use crate::game::{Outcome, Side};
use crate::io::model::{ModelError, ModelHeader, save_model};
use crate::rng;
use crate::search::{Limits, SearchConfig, Searcher, Tablebase, WIN_THRESHOLD};

use super::config::SamuelSettings;
use super::train::{Iteration, IterationReport, Learner, Stage};

/// The learner's state between iterations (saved in checkpoints).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamuelState {
    /// Player A's weights (the model being trained).
    pub a: LinearWeights,
    /// Player B's weights (frozen; A's after A's last win).
    pub b: LinearWeights,
    /// A's losses in a row.
    pub loss_streak: u32,
}

impl SamuelState {
    /// Both players with all weights zero, for game `G`.
    pub fn new<G: Features>() -> Self {
        SamuelState {
            a: LinearWeights::zero::<G>(),
            b: LinearWeights::zero::<G>(),
            loss_streak: 0,
        }
    }
}

/// What one iteration did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SamuelReport {
    pub games: u64,
    pub positions: u64,
    /// Mean squared error (in units², a unit being 100 centi-units) of A's static values against its search values over
    /// the positions A learned from in this iteration, with A's weights from before the
    /// iteration and from after it.
    pub loss_before: f64,
    pub loss: f64,
    pub updates: u64,
    pub a_wins: u64,
    pub draws: u64,
    pub b_wins: u64,
    /// Times B took A's weights.
    pub copies: u64,
    /// Times A's largest weight was set to zero.
    pub zeroings: u64,
}

/// One normalised-LMS step of `weights` towards `target` at `pos`; returns the error
/// (centi-units, before clipping) or `None` if the position is skipped.
pub fn update<G: Features>(
    weights: &mut LinearWeights,
    pos: &G,
    target: i32,
    settings: &SamuelSettings,
) -> Option<f64> {
    if !pos.is_quiet() || target.abs() >= WIN_THRESHOLD {
        return None;
    }
    let mut values = [0; MAX_FEATURES];
    let f = &mut values[..feature_count::<G>()];
    pos.features(f);
    let f = &*f;
    let positional: f64 = weights
        .weights
        .iter()
        .zip(f)
        .map(|(&w, &x)| w as f64 * x as f64)
        .sum();
    let value = pos.anchor() as f64 + positional;
    let error = target as f64 - value;
    let delta = error.clamp(-settings.error_clip, settings.error_clip);
    let norm = 1.0 + f.iter().map(|&x| (x as f64) * (x as f64)).sum::<f64>();
    for (w, &x) in weights.weights.iter_mut().zip(f) {
        *w += (settings.learning_rate * delta * x as f64 / norm) as f32;
    }
    Some(error)
}

/// Sets A's largest weight (in absolute value) to zero.
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

/// Self-play settings of a Samuel iteration.
pub struct SamuelPlay<'a, G> {
    pub limits: Limits,
    pub exploration: Option<Exploration>,
    pub ply_cap: u32,
    pub tt_mib: usize,
    pub openings: &'a [G],
    pub seed: u64,
    /// Endgame database of both players' searches.
    pub tablebase: Option<Arc<dyn Tablebase<G>>>,
    /// End each game on entering the database, with its result.
    pub adjudicate: bool,
}

/// Plays `games` games numbered from `first_game` (their random streams and openings
/// follow the number), learning as it goes. Returns `None` if `stop` was raised: the
/// iteration is then incomplete and `state` must be discarded.
pub fn iteration<G: Features>(
    state: &mut SamuelState,
    settings: &SamuelSettings,
    play: &SamuelPlay<G>,
    first_game: u64,
    games: u64,
    stop: &AtomicBool,
    mut on_game: impl FnMut(),
) -> Option<SamuelReport> {
    let linear =
        |w: &LinearWeights| Linear::<G>::new(w).expect("learner weights fit the feature set");
    let searcher = |w: &LinearWeights| {
        Searcher::new(linear(w), SearchConfig::FULL, play.tt_mib)
            .with_tablebase(play.tablebase.clone())
    };
    let mut searcher_a = searcher(&state.a);
    let mut searcher_b = searcher(&state.b);
    let mut report = SamuelReport::default();
    let start = state.a.clone();
    let mut learned: Vec<(G, i32)> = Vec::new();
    for index in first_game..first_game + games {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let a_side = if index % 2 == 0 {
            Side::First
        } else {
            Side::Second
        };
        let opening = play.openings[(index % play.openings.len() as u64) as usize];
        let mut rng = rng::stream(play.seed, index);
        let game = play_engine_game(
            index,
            opening,
            GameRules {
                ply_cap: play.ply_cap,
                exploration: play.exploration,
                adjudicator: play.tablebase.as_deref().filter(|_| play.adjudicate),
            },
            &mut rng,
            |record, exact| {
                let limits = Limits {
                    exact_root_values: exact,
                    ..play.limits.clone()
                };
                let pos = *record.position();
                if pos.side_to_move() != a_side {
                    return searcher_b.search(record, &limits, |_| {});
                }
                let result = searcher_a.search(record, &limits, |_| {});
                if update(&mut state.a, &pos, result.score, settings).is_some() {
                    learned.push((pos, result.score));
                    report.updates += 1;
                    *searcher_a.evaluator_mut() = linear(&state.a);
                }
                result
            },
        );
        report.games += 1;
        report.positions += game.len() as u64;
        match game.outcome {
            Outcome::Win(side) if side == a_side => report.a_wins += 1,
            Outcome::Win(_) => report.b_wins += 1,
            Outcome::Draw => report.draws += 1,
        }
        let (copied, zeroed) = after_game(state, game.outcome, a_side, settings);
        report.copies += u64::from(copied);
        report.zeroings += u64::from(zeroed);
        if copied {
            *searcher_b.evaluator_mut() = linear(&state.b);
        }
        if zeroed {
            *searcher_a.evaluator_mut() = linear(&state.a);
        }
        on_game();
    }
    report.loss_before = squared_error(&start, &learned);
    report.loss = squared_error(&state.a, &learned);
    Some(report)
}

/// Mean squared error, in units² (100 centi-units a unit), of the static values of
/// `weights` against the targets.
fn squared_error<G: Features>(weights: &LinearWeights, pairs: &[(G, i32)]) -> f64 {
    let linear = Linear::<G>::new(weights).expect("learner weights fit the feature set");
    let sum: f64 = pairs
        .iter()
        .map(|(pos, target)| ((*target - linear.evaluate(pos)) as f64 / 100.0).powi(2))
        .sum();
    sum / pairs.len().max(1) as f64
}

impl<G: EvalGame> Learner<G> for SamuelState {
    fn iterate(&mut self, it: &mut Iteration<'_, G>) -> Result<Option<IterationReport>, String> {
        let s = &it.config.selfplay;
        let play = SamuelPlay {
            limits: s.limits(),
            exploration: it.exploration,
            ply_cap: s.ply_cap,
            tt_mib: s.tt_mb,
            openings: it.openings,
            seed: it.config.seed,
            tablebase: it.tablebase.clone(),
            adjudicate: s.egdb_adjudicate,
        };
        let games = s.games_per_iteration;
        let mut done = 0;
        let progress = &mut it.progress;
        let report = iteration(
            self,
            &it.config.samuel,
            &play,
            it.first_game,
            games,
            it.stop,
            || {
                done += 1;
                progress(Stage::SelfPlay, done, games);
            },
        );
        Ok(report.map(|r| IterationReport {
            games: r.games,
            positions: r.positions,
            loss_before: r.loss_before,
            loss: r.loss,
            detail: format!(
                "A {}-{}-{} against B, {} copies to B, {} weights zeroed",
                r.a_wins, r.draws, r.b_wins, r.copies, r.zeroings
            ),
        }))
    }

    fn evaluator(&self) -> AnyEvaluator<G> {
        AnyEvaluator::Linear(Linear::new(&self.a).expect("learner weights fit the feature set"))
    }

    fn model_header(&self, game: &str) -> ModelHeader {
        ModelHeader::new(game, linear::KIND, G::FEATURE_SET_ID)
    }

    fn save_model(&self, path: &Path, header: &mut ModelHeader) -> Result<(), ModelError> {
        save_model(path, header, &self.a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::game::checkers::Checkers;

    fn settings() -> SamuelSettings {
        SamuelSettings::default()
    }

    #[test]
    fn copy_on_win_and_zero_after_three_losses() {
        let mut state = SamuelState::new::<Checkers>();
        state.a.weights[3] = 5.0;
        state.a.weights[7] = -9.0;
        // A wins with White: B takes A's weights.
        let (copied, zeroed) = after_game(
            &mut state,
            Outcome::Win(Side::First),
            Side::First,
            &settings(),
        );
        assert!(copied && !zeroed);
        assert_eq!(state.b, state.a);
        // Two losses, a draw (the streak breaks), then three losses: the largest weight
        // (|−9|) goes to zero at the third.
        for outcome in [
            Outcome::Win(Side::Second),
            Outcome::Win(Side::Second),
            Outcome::Draw,
        ] {
            assert_eq!(
                after_game(&mut state, outcome, Side::First, &settings()),
                (false, false)
            );
        }
        assert_eq!(state.a.weights[7], -9.0);
        for _ in 0..2 {
            assert_eq!(
                after_game(
                    &mut state,
                    Outcome::Win(Side::First),
                    Side::Second,
                    &settings()
                ),
                (false, false)
            );
        }
        let (copied, zeroed) = after_game(
            &mut state,
            Outcome::Win(Side::First),
            Side::Second,
            &settings(),
        );
        assert!(!copied && zeroed);
        assert_eq!(state.a.weights[7], 0.0);
        assert_eq!(state.a.weights[3], 5.0);
        assert_eq!(state.loss_streak, 0);
        // B was not touched by the losses.
        assert_eq!(state.b.weights[7], -9.0);
    }

    #[test]
    fn the_update_moves_the_static_value_towards_the_search_value() {
        // Men far apart: no capture pending, and the features are not all zero.
        let pos = Checkers::parse_position("W:W17,21,22,23:B1,2,3").unwrap();
        assert!(pos.is_quiet());
        let mut weights = LinearWeights::zero::<Checkers>();
        let before = Linear::<Checkers>::new(&weights).unwrap().evaluate(&pos);
        let target = before + 150;
        let error = update(&mut weights, &pos, target, &settings()).unwrap();
        assert_eq!(error, 150.0);
        let after = Linear::<Checkers>::new(&weights).unwrap().evaluate(&pos);
        assert!(
            after > before && after < target,
            "{before} → {after} (target {target})"
        );
        // Decided values and positions with a capture pending are not learned from.
        assert!(update(&mut weights, &pos, WIN_THRESHOLD, &settings()).is_none());
        let capture = Checkers::parse_position("W:W22:B18").unwrap();
        assert!(update(&mut weights, &capture, 0, &settings()).is_none());
    }
}
