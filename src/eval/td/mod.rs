//! The TD(λ) network's run-time half: the model-file payload ([`MlpWeights`]), its
//! checks, and the fast forward pass the search calls ([`TdEvaluator`]). Training (the
//! trainable network, backpropagation, TD(λ) episodes) lives with the learners.
//!
//! # The network
//! - **Inputs** ([`Inputs`], one small encoder per game, with one or more input sets):
//!   binary inputs, most of them 0 (draughts: the board one-hot per square and piece kind
//!   from the side to move's point of view, plus the side to move, and in the second set
//!   the contents of each pair of adjacent squares; Kalah: see its encoder).
//! - **Hidden layer**: `hidden` sigmoid units (at most [`MAX_HIDDEN`]):
//!   `h = σ(W1·x + b1)`.
//! - **Second hidden layer** (optional, `[td] hidden2`): `hidden2` sigmoid units over the
//!   first, `h₂ = σ(W_hidden2·h + b_hidden2)`; the heads then read `h₂` instead of `h`.
//! - **Output**: one sigmoid unit per game phase ([`Inputs::phase`]; one phase unless the
//!   config's `[td] phases` says more): `p = σ(w2[φ]·h + b2[φ])` for a position of phase
//!   `φ`, the expected result for the side to move (1 win, ½ draw, 0 loss), with `h` the
//!   last hidden layer's activations. The hidden layers are shared; each phase has its
//!   own output weights and bias (its *head*), and a position uses its phase's head alone
//!   (no blending), so an evaluation costs one head's dot product whatever the number of
//!   phases.

pub mod clipped;
pub mod incremental;
pub mod quantised;
pub mod simd;
mod weights;

pub use weights::{
    Activation, MlpWeights, MlpWeightsV1, MlpWeightsV2, MlpWeightsV3, decode_weights, load_weights,
};

use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

use super::spec::{LoadError, ModelKind};
use super::{EVAL_LIMIT, Evaluator, IncrementalEval};
use crate::game::{Game, Side};
use crate::io::model::ModelHeader;
use clipped::ClippedNet;
use incremental::AccumulatorStack;
use quantised::QuantisedNet;
use simd::SimdPath;

/// The evaluator kind written in model files.
pub const KIND: &str = "td";

/// Largest number of hidden units of a sigmoid network's first layer, and of any
/// network's second (the fast evaluator keeps its hidden sums in a stack array of this
/// size); a clipped network's first layer may have up to [`MAX_CLIPPED_HIDDEN`].
pub const MAX_HIDDEN: usize = 128;

/// Most inputs of a network.
pub const MAX_INPUTS: usize = 4096;

/// Most inputs that may be 1 at once ([`Inputs::MAX_ACTIVE`] is at most this).
pub const MAX_ACTIVE: usize = 128;

/// Most phases (output heads) of a network.
pub const MAX_PHASES: usize = 8;

/// Centi-units per unit of output logit: the evaluation is
/// `100 · ln(p / (1 − p))`, rounded and clamped to ±[`EVAL_LIMIT`].
pub const CENTI_PER_LOGIT: f32 = 100.0;

/// One of a game's TD input sets ([`Inputs::INPUT_SETS`]): `inputs` binary inputs, of
/// which at most `max_active` are 1 in any position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputSet {
    /// What configs call it (`[td] inputs`).
    pub name: &'static str,
    /// What model files record: it names the encoding and its order, so it changes
    /// whenever they do.
    pub id: &'static str,
    /// Number of inputs (at most [`MAX_INPUTS`]).
    pub inputs: usize,
    /// Most inputs that are 1 in one position (at most [`MAX_ACTIVE`]).
    pub max_active: usize,
    /// Number of *features*: what the integer network ([`quantised`]) adds a first-layer
    /// column for. Feature `f` stands for the inputs [`Inputs::feature_inputs`]`(f)`, all
    /// 1 together, and its column is the sum of theirs, so a game whose inputs come in
    /// runs (thermometers) sums one column per run instead of one per input.
    pub features: usize,
    /// Most features of one position (at most [`MAX_ACTIVE`]).
    pub max_active_features: usize,
}

impl InputSet {
    /// A set in which every input is a feature of its own.
    pub const fn new(
        name: &'static str,
        id: &'static str,
        inputs: usize,
        max_active: usize,
    ) -> InputSet {
        InputSet {
            name,
            id,
            inputs,
            max_active,
            features: inputs,
            max_active_features: max_active,
        }
    }
}

/// A game's inputs for the TD network: one or more input sets ([`InputSet`]), the
/// default first. A network records its set ([`MlpWeights::features`]); the methods take
/// the set's index in [`Inputs::INPUT_SETS`].
///
/// A position's inputs are its board seen by the side to move (and that side): the
/// inputs of the same board with either side to move are what the search keeps
/// up to date move by move ([`incremental`]).
pub trait Inputs: Game {
    /// The game's input sets, the default first.
    const INPUT_SETS: &'static [InputSet];

    /// Calls `f` with the index of every input of set `set` that is 1 in the position
    /// with this board and `side` to move, in increasing order, at most `max_active`
    /// times.
    fn for_each_input_as(&self, set: usize, side: Side, f: impl FnMut(usize));

    /// The position's phase among `phases` (1 ≤ `phases` ≤ [`MAX_PHASES`]): which output
    /// head evaluates it, in `0..phases`, 0 the latest stage of the game (few pieces or
    /// stones left). Usually [`phase_bucket`] of a measure of how far the game is. It
    /// must not depend on the side to move: the incremental evaluator reads it from the
    /// position.
    fn phase(&self, phases: usize) -> usize;

    /// Calls `f` with the index of every input of set `set` that is 1, in increasing
    /// order, at most `max_active` times.
    #[inline(always)]
    fn for_each_input(&self, set: usize, f: impl FnMut(usize)) {
        self.for_each_input_as(set, self.side_to_move(), f)
    }

    /// The inputs of set `set`, with `side` to move, that differ between this board and
    /// `next`'s: `f(i, true)` for each input that turns 1, `f(i, false)` for each that
    /// turns 0 (`f` is any such closure, or the search's list of changes). Returns false,
    /// without calling `f`, when listing them costs more than listing the inputs of
    /// `next` (the default: always).
    #[inline(always)]
    fn for_each_input_change(
        &self,
        set: usize,
        next: &Self,
        side: Side,
        f: &mut impl ChangeSink,
    ) -> bool {
        let _ = (set, next, side, f);
        false
    }

    /// The inputs feature `feature` of set `set` stands for ([`InputSet::features`]; by
    /// default every input is a feature of its own).
    #[inline(always)]
    fn feature_inputs(set: usize, feature: usize) -> std::ops::Range<usize> {
        let _ = set;
        feature..feature + 1
    }

    /// Calls `f` with every feature of set `set` of the position with this board and
    /// `side` to move: their inputs ([`Inputs::feature_inputs`]) are the position's
    /// inputs, each once.
    #[inline(always)]
    fn for_each_feature_as(&self, set: usize, side: Side, f: impl FnMut(usize)) {
        self.for_each_input_as(set, side, f)
    }

    /// [`Inputs::for_each_input_change`] in features: `f(feature, true)` for each feature
    /// `next` has and this board has not, `f(feature, false)` for the reverse.
    #[inline(always)]
    fn for_each_feature_change(
        &self,
        set: usize,
        next: &Self,
        side: Side,
        f: &mut impl ChangeSink,
    ) -> bool {
        self.for_each_input_change(set, next, side, f)
    }
}

/// What takes the changes [`Inputs::for_each_input_change`] lists: any
/// `FnMut(index, turned_on)`, or the search's list of a step's changes.
pub trait ChangeSink {
    /// Input (or feature) `index` turns 1 if `on`, else 0.
    fn push(&mut self, index: usize, on: bool);

    /// [`ChangeSink::push`] if `keep`: for changes found by arithmetic, which the search's
    /// list records without a branch (a mispredicted branch costs more than the write).
    #[inline(always)]
    fn push_if(&mut self, keep: bool, index: usize, on: bool) {
        if keep {
            self.push(index, on);
        }
    }
}

impl<F: FnMut(usize, bool)> ChangeSink for F {
    #[inline(always)]
    fn push(&mut self, index: usize, on: bool) {
        self(index, on);
    }
}

/// Input set `set` of game `G`. Panics unless `set` is an index of `G::INPUT_SETS`.
pub fn input_set<G: Inputs>(set: usize) -> &'static InputSet {
    &G::INPUT_SETS[set]
}

/// The index of `G`'s input set named `name` (as configs name it); the error lists the
/// names there are.
pub fn input_set_named<G: Inputs>(name: &str) -> Result<usize, String> {
    G::INPUT_SETS
        .iter()
        .position(|s| s.name == name)
        .ok_or_else(|| {
            let names: Vec<String> = G::INPUT_SETS
                .iter()
                .map(|s| format!("\"{}\"", s.name))
                .collect();
            format!(
                "unknown input set \"{name}\" for {}, expected {}",
                G::NAME,
                names.join(" or ")
            )
        })
}

/// Bucket of `measure` ∈ `0..=max` among `phases` equal ranges (the last one may be
/// shorter): `⌊measure · phases / (max + 1)⌋`, at most `phases − 1`; 0 when `phases` ≤ 1.
#[inline(always)]
pub fn phase_bucket(measure: u32, max: u32, phases: usize) -> usize {
    if phases <= 1 {
        return 0;
    }
    let bucket = u64::from(measure) * phases as u64 / (u64::from(max) + 1);
    (bucket as usize).min(phases - 1)
}

/// The indices of the inputs of set `set` that are 1 for `pos` (all others are 0), in
/// increasing order.
pub fn active_inputs<G: Inputs>(pos: &G, set: usize) -> Vec<usize> {
    let mut active = Vec::with_capacity(input_set::<G>(set).max_active);
    pos.for_each_input(set, |i| active.push(i));
    active
}

/// `e^x` for f32 within about 2 ulp on the range the network uses, without a library
/// call, so loops of it vectorise: `x = n·ln 2 + r` with `|r| ≤ ½ ln 2` (Cody–Waite
/// reduction with a two-part ln 2), a degree-7 Taylor polynomial for `e^r` (truncation
/// error below 10⁻⁸), and `2^n` built in the exponent bits. Arguments are clamped to
/// [−87, 88], the range where `e^x` is a normal f32 (so `e^−100` gives `e^−87` ≈ 1.6·10⁻³⁸,
/// which is as good as 0 in a sigmoid).
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2_E: f32 = std::f32::consts::LOG2_E;
    // ln 2 = LN2_HI + LN2_LO; LN2_HI = 355/512 has 9 significant bits, so n · LN2_HI is
    // exact for |n| ≤ 127.
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // 1.5 · 2^23: adding it rounds to an integer, kept in the low mantissa bits.
    const ROUNDER: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let shifted = x * LOG2_E + ROUNDER;
    let n = shifted - ROUNDER;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0
                        + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
    // n ∈ [−126, 127] is in the low bits of `shifted`; 2^n has exponent field n + 127.
    let n_bits = shifted.to_bits().wrapping_sub(ROUNDER.to_bits());
    p * f32::from_bits(n_bits.wrapping_add(127) << 23)
}

/// The logistic function `1 / (1 + e^−x)` (with [`exp`]), in (0, 1] for every finite x.
/// Both the trainable network (on the training side) and [`TdEvaluator`] use this one
/// function.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp(-x))
}

/// Hidden units handled together: 16 sums fill two SSE2 registers of `i16`.
const BLOCK: usize = 16;

/// The network as an [`Evaluator`] for the search: read-only, `Clone + Send + Sync`
/// (clones share one [`QuantisedNet`]).
///
/// It evaluates with the integer form of the network ([`quantised`]: `i16` first layer,
/// sigmoid by table, a second hidden layer (if any) of `i16` weights and `i32` sums,
/// integer output), from scratch in [`Evaluator::evaluate`] or, inside a search, from the
/// first-layer sums each searcher keeps along its path ([`incremental`]); both give the
/// same value bit for bit. Speed comes from the inputs'
/// sparsity (draughts: at most 24 piece inputs and the side input are 1, the other
/// 100-odd are 0): `W1·x` is the sum of the active inputs' `W1` columns, stored
/// column-major in blocks of 16 hidden units, and one move changes only a few of them.
///
/// Value in centi-units: the output logit `z = w2[φ]·h + b2[φ]` of the position's phase φ
/// (`h` the last hidden layer's activations) times 100, rounded, clamped to
/// ±[`EVAL_LIMIT`] — `100 · ln(p / (1 − p))` for the output `p = σ(z)`, so the output
/// sigmoid is never computed. It orders positions as `p` does, is 0 at p = ½, ±110 at
/// p = 0.75 / 0.25, ±460 at p = 0.99 / 0.01, so a clear win is large. It stays within a
/// few centi-units of the float network's `round(100 · z)` (see [`quantised`]).
#[derive(Debug, PartialEq)]
pub struct TdEvaluator<G> {
    net: Net,
    game: PhantomData<fn() -> G>,
}

/// The integer network of a [`TdEvaluator`], by its units' activation.
#[derive(Clone, Debug, PartialEq)]
enum Net {
    Sigmoid(Arc<QuantisedNet>),
    Clipped(Arc<ClippedNet>),
}

impl<G> Clone for TdEvaluator<G> {
    fn clone(&self) -> Self {
        TdEvaluator {
            net: self.net.clone(),
            game: PhantomData,
        }
    }
}

impl<G: Inputs> TdEvaluator<G> {
    /// The evaluator of a network (a snapshot: later training does not change it),
    /// checked first ([`MlpWeights::validate`]). A clipped network runs the kernels
    /// [`SimdPath::chosen`] picks.
    pub fn from_weights(weights: &MlpWeights) -> Result<TdEvaluator<G>, String> {
        let set = weights.validate::<G>()?;
        let net = match weights.activation {
            Activation::Sigmoid => Net::Sigmoid(Arc::new(QuantisedNet::new::<G>(weights, set)?)),
            Activation::ClippedRelu => Net::Clipped(Arc::new(ClippedNet::new::<G>(
                weights,
                set,
                SimdPath::chosen()?,
            )?)),
        };
        Ok(TdEvaluator {
            net,
            game: PhantomData,
        })
    }

    pub fn hidden(&self) -> usize {
        match &self.net {
            Net::Sigmoid(net) => net.hidden(),
            Net::Clipped(net) => net.hidden(),
        }
    }

    /// Number of phases (output heads).
    pub fn phases(&self) -> usize {
        match &self.net {
            Net::Sigmoid(net) => net.phases(),
            Net::Clipped(net) => net.phases(),
        }
    }

    /// The integer network of a sigmoid network.
    pub fn sigmoid_net(&self) -> Option<&QuantisedNet> {
        match &self.net {
            Net::Sigmoid(net) => Some(net),
            Net::Clipped(_) => None,
        }
    }

    /// The integer network of a clipped network.
    pub fn clipped_net(&self) -> Option<&ClippedNet> {
        match &self.net {
            Net::Sigmoid(_) => None,
            Net::Clipped(net) => Some(net),
        }
    }

    /// This evaluator with a clipped network's kernels of `path` (which the CPU must
    /// run); a sigmoid network's as it is.
    pub fn with_path(&self, path: SimdPath) -> TdEvaluator<G> {
        let net = match &self.net {
            Net::Sigmoid(net) => Net::Sigmoid(Arc::clone(net)),
            Net::Clipped(net) => Net::Clipped(Arc::new(net.with_path(path))),
        };
        TdEvaluator {
            net,
            game: PhantomData,
        }
    }
}

/// The centi-unit value of an output logit: `round(100 · z)` clamped to ±[`EVAL_LIMIT`]
/// (a NaN gives 0).
#[inline]
pub fn centi_units(logit: f32) -> i32 {
    ((CENTI_PER_LOGIT * logit).round() as i32).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

impl<G: Inputs> Evaluator<G> for TdEvaluator<G> {
    #[inline]
    fn evaluate(&self, pos: &G) -> i32 {
        match &self.net {
            Net::Sigmoid(net) => net.evaluate(pos),
            Net::Clipped(net) => net.evaluate(pos),
        }
    }

    fn incremental(&self, plies: usize) -> Option<Box<dyn IncrementalEval<G>>> {
        Some(match &self.net {
            Net::Sigmoid(net) => Box::new(AccumulatorStack::<G, _>::new(Arc::clone(net), plies)),
            Net::Clipped(net) => Box::new(AccumulatorStack::<G, _>::new(Arc::clone(net), plies)),
        })
    }

    /// The network's output is σ(value / 100).
    fn logit_scale(&self) -> Option<f64> {
        Some(100.0)
    }

    fn name(&self) -> String {
        KIND.to_string()
    }
}

/// The model kind of TD networks, for a game with TD inputs.
pub const fn kind<G: Inputs>() -> ModelKind<G> {
    ModelKind {
        kind: KIND,
        load: load::<G>,
        describe: describe::<G>,
    }
}

/// A checked TD model file of `G`, with its input set's index.
fn read<G: Inputs>(path: &Path, game: &str) -> Result<(ModelHeader, MlpWeights, usize), LoadError> {
    let (header, weights) = load_weights(path, Some(game))?;
    let set = weights
        .validate::<G>()
        .map_err(|reason| LoadError::Invalid {
            path: path.to_path_buf(),
            reason,
        })?;
    Ok((header, weights, set))
}

fn load<G: Inputs>(
    path: &Path,
    game: &str,
) -> Result<(Arc<dyn Evaluator<G>>, ModelHeader), LoadError> {
    let (header, weights, _) = read::<G>(path, game)?;
    let evaluator =
        TdEvaluator::<G>::from_weights(&weights).map_err(|reason| LoadError::Invalid {
            path: path.to_path_buf(),
            reason,
        })?;
    Ok((Arc::new(evaluator), header))
}

fn describe<G: Inputs>(path: &Path, game: &str) -> Result<String, LoadError> {
    let (_, weights, set) = read::<G>(path, game)?;
    let inputs = input_set::<G>(set);
    let outputs = match weights.phases {
        1 => "one sigmoid output".to_string(),
        n => format!("{n} sigmoid outputs, one per game phase"),
    };
    let units = weights.activation.name();
    let (shape, layers) = match weights.hidden2() {
        0 => (
            format!("{}–{}–{}", inputs.inputs, weights.hidden, weights.phases),
            format!("{} {units} hidden units", weights.hidden),
        ),
        n => (
            format!(
                "{}–{}–{n}–{}",
                inputs.inputs, weights.hidden, weights.phases
            ),
            format!(
                "two {units} hidden layers of {} and {n} units",
                weights.hidden
            ),
        ),
    };
    let kernels = match weights.activation {
        Activation::Sigmoid => String::new(),
        Activation::ClippedRelu => match SimdPath::chosen() {
            Ok(path) => format!(
                "kernels:     {} ({} forces one of {})\n",
                path.name(),
                simd::SIMD_VARIABLE,
                SimdPath::ALL.map(SimdPath::name).join(", ")
            ),
            Err(e) => format!("kernels:     {e}\n"),
        },
    };
    Ok(format!(
        "network {shape} ({} inputs, {layers}, {outputs})\ninputs:      {} ([td] inputs)\nphases:      {}\n{kernels}",
        inputs.inputs, inputs.name, weights.phases
    ))
}
