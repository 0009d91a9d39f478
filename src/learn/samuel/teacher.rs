//! Samuel's evaluator taught by a stronger model (`[samuel] teacher`). Samuel (1967) fitted
//! his evaluator to the moves of master games; here the master is a model file. The
//! teacher plays the iteration's games on every core, and the linear evaluator — the
//! anchor's scale and every feature of the pool — is the least-squares fit of the
//! teacher's search scores at the leaves of its principal variations (the positions the
//! scores came from, as TD-Leaf learns), over all of the run's games so far. Only the
//! positions the teacher scores within `teacher_range` are fitted: a linear evaluator
//! cannot follow the teacher's flattening far from balance, and the positions where moves
//! are decided lie near it. With `piece_squares`, the game's piece-square terms are fitted
//! beside the features. A, B, the loss streak and term replacement are not used; the
//! selection matches keep the model as in Samuel's own runs.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::games::select;
use super::rule::learning_features;
use super::{SamuelLearner, SamuelSettings, samuel_play, selection_text};
use crate::eval::EvalGame;
use crate::eval::linear::{
    Features, LinearWeights, MAX_FEATURES, MAX_PIECE_SQUARES, feature_count,
};
use crate::eval::spec::{AnyEvaluator, load_model_file};
use crate::io::dataset::DatasetGame;
use crate::learn::controls::PositionFilter;
use crate::learn::iteration::Iteration;
use crate::learn::learner::{IterationReport, TrainGame};

/// Most terms of a fit: the pool's features and the piece-square terms.
const MAX_TERMS: usize = MAX_FEATURES + MAX_PIECE_SQUARES;

/// Ridge penalty of the fit (on the features, not the anchor): keeps the weights of
/// features the games barely vary at zero.
pub const RIDGE: f64 = 10.0;

/// The normal equations of the fit `y ≈ s·anchor + Σ wᵢ·fᵢ` over every position learned so
/// far: `xx = Σ x xᵀ`, `xy = Σ x y` with `x = (anchor, f…)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NormalEquations {
    xx: Vec<f64>,
    xy: Vec<f64>,
    /// Positions added.
    pub positions: u64,
}

impl NormalEquations {
    /// No positions yet, for the anchor and `features` features.
    pub fn new(features: usize) -> NormalEquations {
        let n = features + 1;
        NormalEquations {
            xx: vec![0.0; n * n],
            xy: vec![0.0; n],
            positions: 0,
        }
    }

    fn size(&self) -> usize {
        self.xy.len()
    }

    /// Whether they are the equations of the anchor and `features` features (a
    /// checkpoint's are checked before use).
    pub fn fits(&self, features: usize) -> bool {
        let n = features + 1;
        self.xy.len() == n && self.xx.len() == n * n
    }

    /// Adds one position: `x` its anchor then its terms, `y` the teacher's score. Most
    /// terms are 0 in a position (piece-square terms nearly all), so only the others are
    /// visited.
    pub fn add(&mut self, x: &[f64], y: f64) {
        let n = self.size();
        let mut nonzero = [0usize; MAX_TERMS + 1];
        let mut count = 0;
        for (i, &xi) in x.iter().enumerate().take(n.min(MAX_TERMS + 1)) {
            if xi != 0.0 {
                nonzero[count] = i;
                count += 1;
            }
        }
        let nonzero = &nonzero[..count];
        for &i in nonzero {
            self.xy[i] += x[i] * y;
            let row = &mut self.xx[i * n..(i + 1) * n];
            for &j in nonzero {
                row[j] += x[i] * x[j];
            }
        }
        self.positions += 1;
    }

    /// The solution `(s, w…)` of `(Σ x xᵀ + ridge·I′) θ = Σ x y`, `I′` sparing the anchor,
    /// by Gaussian elimination with partial pivoting; a coefficient whose column has no
    /// pivot (a feature never seen) is 0.
    pub fn solve(&self, ridge: f64) -> Vec<f64> {
        let n = self.size();
        let mut rows: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let mut row = self.xx[i * n..(i + 1) * n].to_vec();
                if i > 0 {
                    row[i] += ridge;
                }
                row.push(self.xy[i]);
                row
            })
            .collect();
        for col in 0..n {
            let pivot = (col..n)
                .max_by(|&r, &s| rows[r][col].abs().total_cmp(&rows[s][col].abs()))
                .unwrap_or(col);
            rows.swap(col, pivot);
            if rows[col][col].abs() < 1e-9 {
                continue;
            }
            let pivot_row = rows[col].clone();
            for (r, row) in rows.iter_mut().enumerate() {
                if r != col {
                    let factor = row[col] / pivot_row[col];
                    for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                        *x -= factor * p;
                    }
                }
            }
        }
        (0..n)
            .map(|i| {
                if rows[i][i].abs() < 1e-9 {
                    0.0
                } else {
                    rows[i][n] / rows[i][i]
                }
            })
            .collect()
    }
}

/// The number of terms a taught fit of `G` has: the pool's features, and the piece-square
/// terms with `piece_squares`.
pub fn fitted_terms<G: Features>(piece_squares: bool) -> usize {
    feature_count::<G>() + if piece_squares { G::PIECE_SQUARES } else { 0 }
}

/// A fit's weights in the evaluator's units (the anchor's weight 1: each term's
/// coefficient divided by the anchor's), every feature of the pool active, with the
/// piece-square terms if the solution has them; `None` when the anchor's coefficient is
/// not positive (no fit yet, or one that would play backwards).
pub fn taught_weights<G: Features>(solution: &[f64]) -> Option<LinearWeights> {
    let scale = solution[0];
    if !(scale.is_finite() && scale > 1e-6) {
        return None;
    }
    let mut weights = if solution.len() > feature_count::<G>() + 1 {
        LinearWeights::zero_with_piece_squares::<G>()
    } else {
        LinearWeights::zero::<G>()
    };
    weights.active.append(&mut weights.reserve);
    for (w, c) in weights.weights.iter_mut().zip(&solution[1..]) {
        *w = (c / scale) as f32;
    }
    weights.validate::<G>().ok()?;
    Some(weights)
}

/// The fit's inputs for each position of `game` learned from: the leaf of the teacher's
/// principal variation (a quiet position) with `x` = its anchor, its features, then (with
/// `piece_squares`) its piece-square terms, and
/// `y` the teacher's search score, for the leaf's side to move. The score is the leaf's
/// static value except where the search found a draw by the rules (a repetition): those
/// zeros are kept (fitting the leaf's own value there instead made no measurable
/// difference, CHANGELOG). Decided scores, scores beyond `range` and the positions the
/// `[training]` filters leave out are not learned from.
pub fn samples<G: Features>(
    game: &DatasetGame<G>,
    range: f64,
    piece_squares: bool,
    filter: &PositionFilter<'_, G>,
) -> Vec<(Vec<f64>, f64)> {
    let count = feature_count::<G>();
    let terms = fitted_terms::<G>(piece_squares);
    let mut out = Vec::new();
    for ((pos, leaf), &score) in game.positions.iter().zip(&game.leaves).zip(&game.scores) {
        let mut f = [0; MAX_FEATURES];
        if f64::from(score.abs()) > range
            || !filter.admits(pos)
            || !learning_features(leaf, score, &mut f)
        {
            continue;
        }
        let y = if leaf.side_to_move() == pos.side_to_move() {
            score
        } else {
            -score
        };
        let mut x = Vec::with_capacity(terms + 1);
        x.push(f64::from(leaf.anchor()));
        x.extend(f[..count].iter().map(|&v| f64::from(v)));
        x.resize(terms + 1, 0.0);
        if piece_squares {
            leaf.piece_squares(|term, v| x[1 + count + term] += f64::from(v));
        }
        out.push((x, f64::from(y)));
    }
    out
}

/// Mean squared error, in units² (100 centi-units a unit, the teacher's), of `solution`'s
/// values against the samples' scores.
pub fn residual(solution: &[f64], samples: &[(Vec<f64>, f64)]) -> f64 {
    let sum: f64 = samples
        .iter()
        .map(|(x, y)| {
            let value: f64 = x.iter().zip(solution).map(|(a, b)| a * b).sum();
            ((value - y) / 100.0).powi(2)
        })
        .sum();
    sum / samples.len().max(1) as f64
}

/// The model that teaches (`[samuel] teacher`) and the fit so far.
pub(super) struct Teacher<G: EvalGame> {
    pub(super) evaluator: AnyEvaluator<G>,
    pub(super) path: PathBuf,
    pub(super) fit: TaughtFit,
}

impl<G: EvalGame> Clone for Teacher<G> {
    fn clone(&self) -> Self {
        Teacher {
            evaluator: self.evaluator.clone(),
            path: self.path.clone(),
            fit: self.fit.clone(),
        }
    }
}

/// A taught run's state beside Samuel's (saved in its checkpoints): the normal equations
/// of every position fitted so far and their latest solution (the anchor's scale first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaughtFit {
    pub equations: NormalEquations,
    pub solution: Vec<f64>,
}

impl<G: TrainGame + Features> Teacher<G> {
    /// The settings' teacher, read from its file, with `fit` (a fresh one when `None`);
    /// `None` without a teacher.
    pub(super) fn load(
        settings: &SamuelSettings,
        fit: Option<TaughtFit>,
    ) -> Result<Option<Self>, String> {
        let Some(path) = &settings.teacher else {
            return Ok(None);
        };
        let (evaluator, _) =
            load_model_file::<G>(path).map_err(|e| format!("samuel.teacher: {e}"))?;
        if settings.piece_squares && G::PIECE_SQUARES == 0 {
            return Err(format!(
                "samuel.piece_squares: {} has no piece-square terms",
                G::NAME
            ));
        }
        let features = fitted_terms::<G>(settings.piece_squares);
        let fit = fit.unwrap_or_else(|| TaughtFit {
            equations: NormalEquations::new(features),
            solution: vec![0.0; features + 1],
        });
        if fit.solution.len() != features + 1 || !fit.equations.fits(features) {
            return Err(format!(
                "checkpoint: a taught fit of {} terms, this config's for {} has {} \
                 (samuel.piece_squares = {}); resume with the settings it was started with",
                fit.solution.len(),
                G::NAME,
                features + 1,
                settings.piece_squares
            ));
        }
        Ok(Some(Teacher {
            evaluator,
            path: path.clone(),
            fit,
        }))
    }
}

impl SamuelSettings {
    /// The fit's inputs from every position of `games` (see [`samples`]).
    pub(super) fn taught_samples<G: Features>(
        &self,
        games: &[DatasetGame<G>],
        filter: &PositionFilter<'_, G>,
    ) -> Vec<(Vec<f64>, f64)> {
        games
            .iter()
            .flat_map(|g| samples(g, self.teacher_range, self.piece_squares, filter))
            .collect()
    }
}

impl<G: TrainGame + Features> SamuelLearner<G> {
    /// A taught iteration: the teacher's games, the fit brought up to date with them, and
    /// the selection match when one is due.
    pub(super) fn iterate_taught(
        &mut self,
        it: &mut Iteration<'_, G>,
    ) -> Result<Option<IterationReport>, String> {
        let Some(teacher) = self.teacher.as_mut() else {
            return Err("a taught iteration without a teacher".into());
        };
        let Some(games) = it.self_play(&teacher.evaluator)? else {
            return Ok(None);
        };
        let samples = self.settings.taught_samples(&games, &it.position_filter());
        let fit = &mut teacher.fit;
        let loss_before = residual(&fit.solution, &samples);
        for (x, y) in &samples {
            fit.equations.add(x, *y);
        }
        let solution = fit.equations.solve(RIDGE);
        if let Some(weights) = taught_weights::<G>(&solution) {
            self.state.a = weights;
            fit.solution = solution;
        }
        let mut text = format!(
            "least squares over {} positions of {}'s games, its score {:.3} × the anchor",
            fit.equations.positions,
            teacher.path.display(),
            fit.solution[0]
        );
        let loss = residual(&fit.solution, &samples);
        let every = self.settings.select_every;
        let played = it.first_game + it.config.selfplay.games_per_iteration;
        let mut selections = Vec::new();
        // The selection matches count as learning: `self_play` timed the games alone.
        if every > 0 && it.first_game / every < played / every {
            selections.extend(select(
                &mut self.state,
                &self.settings,
                &samuel_play(it, it.openings),
                played,
            ));
        }
        text += &selection_text(&selections, &self.state, self.settings.select_against);
        Ok(Some(IterationReport {
            games: games.len() as u64,
            positions: samples.len() as u64,
            loss_before,
            loss,
            detail: text,
        }))
    }
}
