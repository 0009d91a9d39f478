//! A linear evaluator over a game's named features (Samuel-style): a fixed-weight anchor
//! (material in draughts, the stores in Kalah) plus a learned weighted sum of positional
//! features (seed 5.1–5.2). Each game says which features it has through [`Features`].

use std::marker::PhantomData;

use serde::{Deserialize, Serialize};

use super::{EVAL_LIMIT, Evaluator};
use crate::game::Game;

/// The evaluator kind written in model files.
pub const KIND: &str = "linear";

/// Most features a game may define (the evaluator keeps them in a stack array).
pub const MAX_FEATURES: usize = 64;

/// A game's named features for the linear evaluator and Samuel's learner. Each feature is
/// an integer, (value for the side to move) − (value for the opponent).
pub trait Features: Game {
    /// Identifies the feature set (and its order) in saved weight files.
    const FEATURE_SET_ID: &'static str;
    /// Short names, in [`Features::features`] order (at most [`MAX_FEATURES`]).
    const FEATURE_NAMES: &'static [&'static str];
    /// One line per feature saying what it counts, in the same order.
    const FEATURE_DESCRIPTIONS: &'static [&'static str];
    /// The fixed-weight part of the value, for the side to move, in centi-units (material:
    /// a man 100, a king 300; Kalah: 100 a stone of store difference). It keeps the learned
    /// weights from drifting (seed 5.2).
    fn anchor(&self) -> i32;
    /// Writes the features into `out[..FEATURE_NAMES.len()]`.
    fn features(&self, out: &mut [i32]);
}

/// The number of features of `G`.
pub fn feature_count<G: Features>() -> usize {
    G::FEATURE_NAMES.len()
}

/// Weights of the positional features, in centi-units per unit of feature. The anchor is
/// not among them: it keeps its fixed weight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearWeights {
    /// Feature-set identifier the weights belong to.
    pub features: String,
    pub weights: Vec<f32>,
}

impl LinearWeights {
    /// All weights zero: plays exactly like the anchor alone.
    pub fn zero<G: Features>() -> Self {
        LinearWeights {
            features: G::FEATURE_SET_ID.to_string(),
            weights: vec![0.0; feature_count::<G>()],
        }
    }

    /// Checks that the weights fit `G`'s feature set in this build.
    pub fn validate<G: Features>(&self) -> Result<(), String> {
        if self.features != G::FEATURE_SET_ID {
            return Err(format!(
                "weights for feature set '{}', this build computes '{}' for {}",
                self.features,
                G::FEATURE_SET_ID,
                G::NAME
            ));
        }
        let count = feature_count::<G>();
        if self.weights.len() != count {
            return Err(format!(
                "{} weights for {count} features",
                self.weights.len()
            ));
        }
        if let Some(i) = self.weights.iter().position(|w| !w.is_finite()) {
            return Err(format!(
                "weight {i} ({}) is not a finite number",
                G::FEATURE_NAMES[i]
            ));
        }
        Ok(())
    }
}

/// The linear evaluator: `anchor + Σ wᵢ·fᵢ`, clamped to the evaluation range.
#[derive(Clone, Debug, PartialEq)]
pub struct Linear<G> {
    weights: [f32; MAX_FEATURES],
    count: usize,
    game: PhantomData<fn() -> G>,
}

impl<G: Features> Linear<G> {
    /// An evaluator from checked weights (see [`LinearWeights::validate`]).
    pub fn new(weights: &LinearWeights) -> Result<Linear<G>, String> {
        const { assert!(MAX_FEATURES >= 1) };
        weights.validate::<G>()?;
        let count = weights.weights.len();
        if count > MAX_FEATURES {
            return Err(format!("{count} features, at most {MAX_FEATURES}"));
        }
        let mut array = [0.0; MAX_FEATURES];
        array[..count].copy_from_slice(&weights.weights);
        Ok(Linear {
            weights: array,
            count,
            game: PhantomData,
        })
    }

    pub fn weights(&self) -> LinearWeights {
        LinearWeights {
            features: G::FEATURE_SET_ID.to_string(),
            weights: self.weights[..self.count].to_vec(),
        }
    }

    /// The positional part alone, in centi-units (unrounded).
    #[inline]
    pub fn positional(&self, values: &[i32]) -> f32 {
        self.weights[..self.count]
            .iter()
            .zip(values)
            .map(|(w, &f)| w * f as f32)
            .sum()
    }
}

impl<G: Features> Evaluator<G> for Linear<G> {
    #[inline]
    fn evaluate(&self, pos: &G) -> i32 {
        let mut values = [0; MAX_FEATURES];
        pos.features(&mut values[..self.count]);
        let value = pos.anchor() as f32 + self.positional(&values[..self.count]);
        (value.round() as i32).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    fn name(&self) -> String {
        KIND.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Material;
    use crate::game::checkers::Checkers;

    #[test]
    fn zero_weights_evaluate_like_material() {
        let linear = Linear::<Checkers>::new(&LinearWeights::zero::<Checkers>()).unwrap();
        for fen in ["W:W21,22,K30:B1,K2", "B:W13,14,21:B5,K29"] {
            let pos = Checkers::parse_position(fen).unwrap();
            assert_eq!(linear.evaluate(&pos), Material.evaluate(&pos));
        }
    }

    #[test]
    fn mismatched_weights_are_rejected() {
        let check = |w: &LinearWeights| Linear::<Checkers>::new(w).is_err();
        let mut weights = LinearWeights::zero::<Checkers>();
        weights.weights.pop();
        assert!(check(&weights));
        let mut weights = LinearWeights::zero::<Checkers>();
        weights.features = "other".into();
        assert!(check(&weights));
        let mut weights = LinearWeights::zero::<Checkers>();
        weights.weights[0] = f32::NAN;
        assert!(check(&weights));
    }
}
