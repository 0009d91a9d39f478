//! A linear evaluator over the Samuel features ([`super::features`]): material with a
//! large fixed weight plus a learned weighted sum of positional features (seed 5.1–5.2).

use serde::{Deserialize, Serialize};

use super::features::{self, FEATURE_COUNT, FEATURE_SET_ID};
use super::{EVAL_LIMIT, Evaluator, Material};
use crate::game::checkers::Checkers;

/// The evaluator kind written in model files.
pub const KIND: &str = "linear";

/// Weights of the positional features, in centi-units per unit of feature. Material is
/// not among them: it always counts a man 100 and a king 300 (the seed's 1 and 3), the
/// fixed anchor that keeps the learned weights from drifting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearWeights {
    /// Feature-set identifier the weights belong to.
    pub features: String,
    pub weights: Vec<f32>,
}

impl LinearWeights {
    /// All weights zero: plays exactly like the material evaluator.
    pub fn zero() -> Self {
        LinearWeights {
            features: FEATURE_SET_ID.to_string(),
            weights: vec![0.0; FEATURE_COUNT],
        }
    }

    /// Checks that the weights fit this build's feature set.
    pub fn validate(&self) -> Result<(), String> {
        if self.features != FEATURE_SET_ID {
            return Err(format!(
                "weights for feature set '{}', this build computes '{FEATURE_SET_ID}'",
                self.features
            ));
        }
        if self.weights.len() != FEATURE_COUNT {
            return Err(format!(
                "{} weights for {FEATURE_COUNT} features",
                self.weights.len()
            ));
        }
        if let Some(i) = self.weights.iter().position(|w| !w.is_finite()) {
            return Err(format!(
                "weight {i} ({}) is not a finite number",
                features::FEATURE_NAMES[i]
            ));
        }
        Ok(())
    }
}

/// The linear evaluator: `material + Σ wᵢ·fᵢ`, clamped to the evaluation range.
#[derive(Clone, Debug, PartialEq)]
pub struct Linear {
    weights: [f32; FEATURE_COUNT],
}

impl Linear {
    /// An evaluator from checked weights (see [`LinearWeights::validate`]).
    pub fn new(weights: &LinearWeights) -> Result<Linear, String> {
        weights.validate()?;
        let mut array = [0.0; FEATURE_COUNT];
        array.copy_from_slice(&weights.weights);
        Ok(Linear { weights: array })
    }

    pub fn weights(&self) -> LinearWeights {
        LinearWeights {
            features: FEATURE_SET_ID.to_string(),
            weights: self.weights.to_vec(),
        }
    }

    /// The positional part alone, in centi-units (unrounded).
    #[inline]
    pub fn positional(&self, values: &[i32; FEATURE_COUNT]) -> f32 {
        self.weights
            .iter()
            .zip(values)
            .map(|(w, &f)| w * f as f32)
            .sum()
    }
}

impl Evaluator<Checkers> for Linear {
    #[inline]
    fn evaluate(&self, pos: &Checkers) -> i32 {
        let mut values = [0; FEATURE_COUNT];
        features::extract(pos, &mut values);
        let value = Material.evaluate(pos) as f32 + self.positional(&values);
        (value.round() as i32).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    fn name(&self) -> String {
        KIND.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    #[test]
    fn zero_weights_evaluate_like_material() {
        let linear = Linear::new(&LinearWeights::zero()).unwrap();
        for fen in ["W:W21,22,K30:B1,K2", "B:W13,14,21:B5,K29"] {
            let pos = Checkers::parse_position(fen).unwrap();
            assert_eq!(linear.evaluate(&pos), Material.evaluate(&pos));
        }
    }

    #[test]
    fn mismatched_weights_are_rejected() {
        let mut weights = LinearWeights::zero();
        weights.weights.pop();
        assert!(Linear::new(&weights).is_err());
        let mut weights = LinearWeights::zero();
        weights.features = "other".into();
        assert!(Linear::new(&weights).is_err());
        let mut weights = LinearWeights::zero();
        weights.weights[0] = f32::NAN;
        assert!(Linear::new(&weights).is_err());
    }
}
