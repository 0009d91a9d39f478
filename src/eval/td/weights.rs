//! The model-file payload of a TD network ([`MlpWeights`], and the older payloads model
//! files may hold), its checks, and the hidden units' activation it records.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::clipped::MAX_CLIPPED_HIDDEN;
use super::{Inputs, KIND, MAX_ACTIVE, MAX_HIDDEN, MAX_INPUTS, MAX_PHASES, sigmoid};
use crate::io::model::{ModelError, ModelHeader};

/// The hidden units' activation function (`[td] activation`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Activation {
    /// The logistic function: the play-time network reads it from a table per unit.
    #[default]
    Sigmoid,
    /// `min(max(x, 0), 1)`, as NNUE networks use it: the play-time network computes
    /// whole registers of units at once ([`clipped`]).
    ClippedRelu,
}

impl Activation {
    /// As configs and reports name it.
    pub fn name(self) -> &'static str {
        match self {
            Activation::Sigmoid => "sigmoid",
            Activation::ClippedRelu => "clipped-relu",
        }
    }

    /// The activation of a unit whose sum is `x`.
    #[inline(always)]
    pub fn of(self, x: f32) -> f32 {
        match self {
            Activation::Sigmoid => sigmoid(x),
            Activation::ClippedRelu => x.clamp(0.0, 1.0),
        }
    }

    /// Its derivative at the sum whose activation is `a`: `a(1 − a)` for the sigmoid, 1
    /// inside the clipped unit's slope and 0 outside it.
    #[inline(always)]
    pub fn slope(self, a: f32) -> f32 {
        match self {
            Activation::Sigmoid => a * (1.0 - a),
            Activation::ClippedRelu => f32::from(u8::from(a > 0.0 && a < 1.0)),
        }
    }

    /// The most first-layer units it allows.
    pub fn max_hidden(self) -> usize {
        match self {
            Activation::Sigmoid => MAX_HIDDEN,
            Activation::ClippedRelu => MAX_CLIPPED_HIDDEN,
        }
    }
}

/// The model-file payload of a network: plain vectors, so any serde format can carry it.
/// Check it with [`MlpWeights::validate`] before use.
///
/// Older model files hold [`MlpWeightsV3`] (sigmoid units only), [`MlpWeightsV2`] (no
/// second hidden layer as well) or [`MlpWeightsV1`] (one output as well); [`load_weights`]
/// reads them all.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct MlpWeights {
    /// Input-set identifier ([`super::InputSet::id`]).
    pub features: String,
    /// Number of hidden units (of the first hidden layer).
    pub hidden: usize,
    /// Number of phases: output heads ([`Inputs::phase`]), 1 to [`MAX_PHASES`].
    pub phases: usize,
    /// First-layer weights, row-major `hidden × INPUTS`: `w1[j * INPUTS + i]` is the
    /// weight from input `i` to hidden unit `j`.
    pub w1: Vec<f32>,
    /// Hidden biases (`hidden`).
    pub b1: Vec<f32>,
    /// Output weights, row-major `phases × n` where `n` is the number of units the heads
    /// read ([`MlpWeights::head_inputs`]): `w2[φ * n + j]` is the weight from unit `j` of
    /// the last hidden layer to the output of phase `φ`.
    pub w2: Vec<f32>,
    /// Output biases (`phases`).
    pub b2: Vec<f32>,
    /// The second hidden layer's weights, row-major `hidden2 × hidden`:
    /// `w_hidden2[k * hidden + j]` is the weight from first-layer unit `j` to second-layer
    /// unit `k`. Empty without a second layer.
    pub w_hidden2: Vec<f32>,
    /// The second hidden layer's biases: `hidden2` of them, none without the layer.
    pub b_hidden2: Vec<f32>,
    /// The hidden units' activation (the sigmoid where a self-describing format leaves
    /// it out; model files, in bincode, always hold it, [`MlpWeightsV3`] before it).
    #[serde(default)]
    pub activation: Activation,
}

/// The payload of model files written before clipped units existed: [`MlpWeights`] with
/// sigmoid units.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct MlpWeightsV3 {
    pub features: String,
    pub hidden: usize,
    pub phases: usize,
    pub w1: Vec<f32>,
    pub b1: Vec<f32>,
    pub w2: Vec<f32>,
    pub b2: Vec<f32>,
    pub w_hidden2: Vec<f32>,
    pub b_hidden2: Vec<f32>,
}

impl From<MlpWeightsV3> for MlpWeights {
    fn from(old: MlpWeightsV3) -> MlpWeights {
        MlpWeights {
            features: old.features,
            hidden: old.hidden,
            phases: old.phases,
            w1: old.w1,
            b1: old.b1,
            w2: old.w2,
            b2: old.b2,
            w_hidden2: old.w_hidden2,
            b_hidden2: old.b_hidden2,
            activation: Activation::Sigmoid,
        }
    }
}

/// The payload of model files written before the second hidden layer existed:
/// [`MlpWeights`] without it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct MlpWeightsV2 {
    pub features: String,
    pub hidden: usize,
    pub phases: usize,
    pub w1: Vec<f32>,
    pub b1: Vec<f32>,
    pub w2: Vec<f32>,
    pub b2: Vec<f32>,
}

impl From<MlpWeightsV2> for MlpWeights {
    fn from(old: MlpWeightsV2) -> MlpWeights {
        MlpWeights::from(MlpWeightsV3 {
            features: old.features,
            hidden: old.hidden,
            phases: old.phases,
            w1: old.w1,
            b1: old.b1,
            w2: old.w2,
            b2: old.b2,
            w_hidden2: Vec::new(),
            b_hidden2: Vec::new(),
        })
    }
}

/// The payload of model files written before output heads existed (one output unit):
/// [`MlpWeightsV2`] with one phase.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct MlpWeightsV1 {
    pub features: String,
    pub hidden: usize,
    pub w1: Vec<f32>,
    pub b1: Vec<f32>,
    pub w2: Vec<f32>,
    pub b2: f32,
}

impl From<MlpWeightsV1> for MlpWeights {
    fn from(old: MlpWeightsV1) -> MlpWeights {
        MlpWeights::from(MlpWeightsV2 {
            features: old.features,
            hidden: old.hidden,
            phases: 1,
            w1: old.w1,
            b1: old.b1,
            w2: old.w2,
            b2: vec![old.b2],
        })
    }
}

/// Loads a TD model file (of game `expect_game` if given): the current payload, or that
/// of an older file ([`MlpWeightsV3`], [`MlpWeightsV2`], [`MlpWeightsV1`]). Not yet
/// [`MlpWeights::validate`]d.
pub fn load_weights(
    path: &Path,
    expect_game: Option<&str>,
) -> Result<(ModelHeader, MlpWeights), ModelError> {
    let bytes = crate::io::model::read_capped(path)?;
    decode_weights(&bytes, expect_game).map_err(|e| e.at(path))
}

/// [`load_weights`] from a model file's bytes.
pub fn decode_weights(
    bytes: &[u8],
    expect_game: Option<&str>,
) -> Result<(ModelHeader, MlpWeights), ModelError> {
    use crate::io::model::{decode_model, decode_model_or_older};
    match decode_model_or_older::<MlpWeights, MlpWeightsV3>(bytes, expect_game, Some(KIND)) {
        Err(first @ ModelError::Payload { .. }) => {
            decode_model_or_older::<MlpWeights, MlpWeightsV2>(bytes, expect_game, Some(KIND))
                .or_else(|_| {
                    decode_model::<MlpWeightsV1>(bytes, expect_game, Some(KIND))
                        .map(|(header, old)| (header, old.into()))
                })
                .map_err(|_| first)
        }
        other => other,
    }
}

impl MlpWeights {
    /// Output weights of phase `phase`'s head ([`MlpWeights::head_inputs`] values).
    pub fn head(&self, phase: usize) -> &[f32] {
        let n = self.head_inputs();
        &self.w2[phase * n..(phase + 1) * n]
    }

    /// Units of the second hidden layer (0 without one).
    pub fn hidden2(&self) -> usize {
        self.b_hidden2.len()
    }

    /// Units a head reads: the second hidden layer's, or the first's without one.
    pub fn head_inputs(&self) -> usize {
        match self.hidden2() {
            0 => self.hidden,
            n => n,
        }
    }

    /// Checks that the payload describes a network of game `G` in this build: one of
    /// its input sets, a hidden size in `1..=MAX_HIDDEN` (at most that in the second
    /// hidden layer), phases in `1..=MAX_PHASES`,
    /// every vector's length, every value finite. Returns the input set's index.
    pub fn validate<G: Inputs>(&self) -> Result<usize, String> {
        const {
            let mut k = 0;
            while k < G::INPUT_SETS.len() {
                let set = &G::INPUT_SETS[k];
                assert!(
                    set.inputs <= MAX_INPUTS
                        && set.max_active <= MAX_ACTIVE
                        && set.features <= MAX_INPUTS
                        && set.max_active_features <= MAX_ACTIVE
                );
                k += 1;
            }
        };
        let Some(set) = G::INPUT_SETS.iter().position(|s| s.id == self.features) else {
            let ids: Vec<String> = G::INPUT_SETS
                .iter()
                .map(|s| format!("'{}'", s.id))
                .collect();
            return Err(format!(
                "network for inputs '{}', this build computes {} for {}",
                self.features,
                ids.join(" or "),
                G::NAME
            ));
        };
        let inputs = G::INPUT_SETS[set].inputs;
        let max_hidden = self.activation.max_hidden();
        if !(1..=max_hidden).contains(&self.hidden) {
            return Err(format!(
                "{} hidden units, expected 1 to {max_hidden} with {} units",
                self.hidden,
                self.activation.name()
            ));
        }
        if !(1..=MAX_PHASES).contains(&self.phases) {
            return Err(format!(
                "{} phases, expected 1 to {MAX_PHASES}",
                self.phases
            ));
        }
        if self.hidden2() > MAX_HIDDEN {
            return Err(format!(
                "{} units in the second hidden layer, expected at most {MAX_HIDDEN}",
                self.hidden2()
            ));
        }
        let lengths = [
            ("w1", self.w1.len(), self.hidden * inputs),
            ("b1", self.b1.len(), self.hidden),
            ("w2", self.w2.len(), self.phases * self.head_inputs()),
            ("b2", self.b2.len(), self.phases),
            (
                "w_hidden2",
                self.w_hidden2.len(),
                self.hidden2() * self.hidden,
            ),
        ];
        for (name, found, expected) in lengths {
            if found != expected {
                return Err(format!(
                    "{name} has {found} values, expected {expected} for {} hidden units, \
                     {} in the second hidden layer and {} phases",
                    self.hidden,
                    self.hidden2(),
                    self.phases
                ));
            }
        }
        let vectors = [
            ("w1", &self.w1),
            ("b1", &self.b1),
            ("w2", &self.w2),
            ("b2", &self.b2),
            ("w_hidden2", &self.w_hidden2),
            ("b_hidden2", &self.b_hidden2),
        ];
        for (name, values) in vectors {
            if let Some(i) = values.iter().position(|w| !w.is_finite()) {
                return Err(format!(
                    "{name}[{i}] ({}) is not a finite number",
                    values[i]
                ));
            }
        }
        Ok(set)
    }
}
