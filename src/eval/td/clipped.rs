//! The play-time form of a TD network with clipped-ReLU hidden units (`[td] activation =
//! "clipped-relu"`), built as Stockfish's NNUE builds its small layers: a first layer of
//! `i16` sums kept per position and brought up to date by the changed inputs, activations
//! clipped to 0..=127 in bytes, a second layer of `i8` weights whose dot products take
//! one `vpdpbusd` (AVX-512 VNNI) or a `vpmaddubsw` and a `vpmaddwd` (AVX2) per 4 inputs
//! and 16 or 8 units, and an integer output. Every step is integer arithmetic that cannot
//! overflow on the weights [`ClippedNet::new`] accepts, so the kernel paths
//! ([`super::simd`]) agree bit for bit.
//!
//! # Scales (the float network's activations are `min(max(x, 0), 1)`)
//! - First layer: `W1` and `b1` times 127, rounded to `i16`; a sum `s` is the float sum
//!   times 127, and its activation `min(max(s, 0), 127)` the float activation times 127.
//! - Second hidden layer: weights times `2^k`, rounded to `i8`, with `k` the largest of 6
//!   to 9 at which every weight fits (the trainer keeps them within ±127/64,
//!   [`W2_LIMIT`]); biases times `127 · 2^k` to `i32`, plus `2^(k−1)`; a unit's sum shifted
//!   right by `k` (with the half step, divided by `2^k` and rounded) and clipped to
//!   0..=127 is its activation times 127.
//! - Output heads: weights times `100 · 2^S / 127`, the bias times `100 · 2^S`, both
//!   rounded to `i32`; the dot product over the last layer's activations, plus the bias,
//!   shifted right by `S` with rounding, is the output logit in centi-units. `S` is 8
//!   unless a weight would pass ±32,767 or a head's largest sum `i32`'s range.

use super::simd::{self, Columns, SecondLayerView, SimdPath};
use super::{CENTI_PER_LOGIT, Inputs, MAX_HIDDEN, MlpWeights, input_set};
use crate::eval::EVAL_LIMIT;

/// `i16` lanes of a [`Line`].
pub const LINE: usize = 32;

/// 32 first-layer sums (or a feature's weights into 32 units): one cache line, one
/// 512-bit register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Line(pub [i16; LINE]);

/// Most first-layer units of a clipped network.
pub const MAX_CLIPPED_HIDDEN: usize = 512;

/// Lines of a first layer of [`MAX_CLIPPED_HIDDEN`] units.
const MAX_LINES: usize = MAX_CLIPPED_HIDDEN / LINE;

/// First-layer units are padded to a multiple of this (a 512-bit register of bytes).
const UNIT_ALIGN: usize = 64;

/// The first-layer sums of one position from one side's point of view, units in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct ClippedAcc(pub [Line; MAX_LINES]);

impl ClippedAcc {
    pub const ZERO: ClippedAcc = ClippedAcc([Line([0; LINE]); MAX_LINES]);
}

/// First-layer weights and sums are the float values times this.
pub const ACC_SCALE: f32 = 127.0;
/// The largest clipped activation (the float network's 1).
const ACT_MAX: i32 = 127;
/// The largest second-layer weight in absolute value the trainer keeps: it is `±127` as
/// an `i8` at the smallest scale, 64.
pub const W2_LIMIT: f32 = 127.0 / 64.0;
/// Second-layer weights are the float values times `2^shift2`, `shift2` from this …
const MIN_W2_SHIFT: u32 = 6;
/// … to this: the largest at which every weight fits an `i8`.
const MAX_W2_SHIFT: u32 = 9;
/// The largest output shift `S`.
const MAX_OUT_SHIFT: u32 = 8;

/// The largest first-layer weight or bias in absolute value, in float units, for inputs
/// of which at most `max_active` are 1: a unit's sum then stays within the `i16` range
/// whatever the position. The trainer keeps the weights within it.
pub fn w1_limit(max_active: usize) -> f32 {
    32_000.0 / ACC_SCALE / (max_active + 1) as f32
}

/// The integer network (see the module documentation for the scales).
#[derive(Clone, Debug, PartialEq)]
pub struct ClippedNet {
    set: usize,
    hidden: usize,
    hidden2: usize,
    phases: usize,
    /// Lines of first-layer units in use: `hidden` padded to [`UNIT_ALIGN`], over 32.
    lines: usize,
    /// The first layer by feature ([`super::InputSet::features`]): feature `f`'s column
    /// is `columns[f · lines..(f + 1) · lines]`, the sum of its inputs' rounded weights.
    columns: Vec<Line>,
    /// The last feature (the set's features less one).
    last_feature: usize,
    b1: Vec<Line>,
    /// Second-layer units padded to 16 (0 without the layer).
    units2: usize,
    /// Second-layer weights by groups of 4 first-layer units:
    /// `w2_bytes[(g · units2 + j) · 4 + k]` from unit `4g + k` to unit `j`.
    w2_bytes: Vec<i8>,
    /// The same weights by pairs of first-layer units, for `pmaddwd`:
    /// `w2_pairs[p · units2 / 16 + c][2k + r]` from unit `2p + r` to unit `16c + k`.
    w2_pairs: Vec<[i16; 32]>,
    /// Second-layer biases, `units2` of them (with the shift's rounding).
    b2: Vec<i32>,
    /// The second layer's weights are the float weights times `2^shift2`; a unit's sum
    /// shifted right by it is its activation's scale.
    shift2: u32,
    /// Groups of 4 first-layer units whose products the AVX2 kernel adds in `i16`
    /// ([`simd::i16_groups`]).
    i16_groups: usize,
    /// Units a head reads: `units2`, or the padded first layer's without a second.
    head_len: usize,
    /// Output weights: head φ is `heads[φ · head_len..(φ + 1) · head_len]`.
    heads: Vec<i32>,
    head_bias: Vec<i32>,
    /// `S`.
    out_shift: u32,
    path: SimdPath,
}

impl ClippedNet {
    /// The integer form of a checked clipped network of `G` over input set `set`, with
    /// the kernels of `path`. An error if a weight is out of the range the integers hold
    /// (the trainer keeps them in it).
    pub fn new<G: Inputs>(
        weights: &MlpWeights,
        set: usize,
        path: SimdPath,
    ) -> Result<ClippedNet, String> {
        let hidden = weights.hidden;
        let padded = hidden.div_ceil(UNIT_ALIGN) * UNIT_ALIGN;
        let lines = padded / LINE;
        let (columns, b1) = first_layer::<G>(weights, set, lines)?;
        let second = SecondLayer::new(weights, padded)?;
        let head_len = if weights.hidden2() > 0 {
            second.units
        } else {
            padded
        };
        let (heads, head_bias, out_shift) = heads(weights, head_len)?;
        let i16_groups = match second.units {
            0 => 1,
            units => simd::i16_groups(&second.bytes, units),
        };
        Ok(ClippedNet {
            set,
            hidden,
            hidden2: weights.hidden2(),
            phases: weights.phases,
            lines,
            last_feature: columns.len() / lines - 1,
            columns,
            b1,
            units2: second.units,
            w2_bytes: second.bytes,
            w2_pairs: second.pairs,
            b2: second.biases,
            shift2: second.shift,
            i16_groups,
            head_len,
            heads,
            head_bias,
            out_shift,
            path,
        })
    }

    /// The game's input set ([`Inputs::INPUT_SETS`]).
    #[inline(always)]
    pub fn input_set(&self) -> usize {
        self.set
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn phases(&self) -> usize {
        self.phases
    }

    /// The kernels this network runs.
    pub fn path(&self) -> SimdPath {
        self.path
    }

    /// Groups of 4 first-layer units whose second-layer products the AVX2 kernel adds in
    /// `i16` before widening them (1, 2 or 4: [`simd::i16_groups`]).
    pub fn i16_groups(&self) -> usize {
        self.i16_groups
    }

    /// The phase of `pos` among this network's phases (0 without asking the game when
    /// there is one).
    #[inline(always)]
    pub fn phase_of<G: Inputs>(&self, pos: &G) -> usize {
        if self.phases == 1 {
            0
        } else {
            pos.phase(self.phases)
        }
    }

    /// The sums of the active features `active`: `b1` plus their columns.
    pub fn refresh(&self, acc: &mut ClippedAcc, active: &[u16]) {
        simd::apply(self.path, &self.b1, &mut acc.0, self.columns(), active, &[]);
    }

    /// `acc` = `parent` with the columns of `added` added and of `removed` taken away
    /// (inlined into the search's step: one call, the kernel's, a step).
    #[inline(always)]
    pub fn apply(&self, parent: &ClippedAcc, acc: &mut ClippedAcc, added: &[u16], removed: &[u16]) {
        simd::apply(
            self.path,
            &parent.0,
            &mut acc.0,
            self.columns(),
            added,
            removed,
        );
    }

    #[inline(always)]
    fn columns(&self) -> Columns<'_> {
        Columns {
            data: &self.columns,
            lines: self.lines,
            last: self.last_feature,
        }
    }

    /// The evaluation of a position of phase `phase` whose sums (from the side to move's
    /// point of view) are `acc`: the output logit of that phase's head in centi-units,
    /// clamped to ±[`EVAL_LIMIT`]. `scratch` holds the activations on the way.
    #[inline]
    pub fn output(&self, acc: &ClippedAcc, phase: usize, scratch: &mut ClippedScratch) -> i32 {
        let phase = phase.min(self.phases - 1);
        let head = &self.heads[phase * self.head_len..(phase + 1) * self.head_len];
        let padded = self.lines * LINE;
        let bias = self.head_bias[phase];
        let total = if self.hidden2 == 0 {
            let bytes = &mut scratch.bytes.0[..padded];
            simd::clip_to_bytes(self.path, &acc.0[..self.lines], bytes);
            let mut total = bias;
            for (&a, &w) in bytes.iter().zip(head) {
                total += i32::from(a) * w;
            }
            total
        } else {
            let lines = &acc.0[..self.lines];
            let layer = SecondLayerView {
                biases: &self.b2,
                bytes: &self.w2_bytes,
                shift: self.shift2,
                i16_groups: self.i16_groups,
            };
            match simd::forward(self.path, lines, &layer, head, bias) {
                Some(total) => total,
                None => {
                    self.second_layer_by_pairs(acc, scratch);
                    let sums = &scratch.sums.0[..self.units2];
                    simd::head_over_sums(sums, self.shift2, head, bias)
                }
            }
        };
        let shift = self.out_shift;
        let centi = (total + (1 << (shift - 1))) >> shift;
        centi.clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// The second layer's sums (biases and products) into `scratch.sums`, by pairs of
    /// first-layer units: the SSE2 and portable paths.
    #[inline]
    fn second_layer_by_pairs(&self, acc: &ClippedAcc, scratch: &mut ClippedScratch) {
        let padded = self.lines * LINE;
        let sums = &mut scratch.sums.0[..self.units2];
        sums.copy_from_slice(&self.b2);
        let pairs = &mut scratch.pairs[..padded / 2];
        let clip = |j: usize| acc.0[j / LINE].0[j % LINE].clamp(0, ACT_MAX as i16) as u32;
        for (p, pair) in pairs.iter_mut().enumerate() {
            *pair = clip(2 * p) | clip(2 * p + 1) << 16;
        }
        let pairs = &*pairs;
        macro_rules! blocks {
            ($($n:literal)*) => {
                match self.units2 / 16 {
                    $($n => {
                        let mut s: [[i32; 16]; $n] =
                            std::array::from_fn(|c| std::array::from_fn(|k| sums[16 * c + k]));
                        self.pair_sums(&mut s, pairs);
                        for (c, block) in s.iter().enumerate() {
                            sums[16 * c..16 * c + 16].copy_from_slice(block);
                        }
                    })*
                    // units2 is 16 to MAX_HIDDEN = 128.
                    _ => unreachable!("second layer of {} units", self.units2),
                }
            };
        }
        blocks!(1 2 3 4 5 6 7 8);
    }

    #[inline(always)]
    fn pair_sums<const N: usize>(&self, sums: &mut [[i32; 16]; N], pairs: &[u32]) {
        #[cfg(target_arch = "x86_64")]
        if self.path == SimdPath::Sse2 {
            // SAFETY: SSE2 is part of x86-64 itself: every CPU that runs this build has it.
            unsafe { simd::pair_sums_sse2(sums, &self.w2_pairs, pairs) };
            return;
        }
        simd::pair_sums(sums, &self.w2_pairs, pairs);
    }

    /// The evaluation of `pos` from scratch.
    pub fn evaluate<G: Inputs>(&self, pos: &G) -> i32 {
        let mut acc = ClippedAcc::ZERO;
        let active = super::quantised::ActiveFeatures::of(pos, self.set, pos.side_to_move());
        self.refresh(&mut acc, &active);
        self.output(&acc, self.phase_of(pos), &mut ClippedScratch::new())
    }

    /// This network with the kernels of `path` (which the CPU must run).
    pub fn with_path(&self, path: SimdPath) -> ClippedNet {
        ClippedNet {
            path,
            ..self.clone()
        }
    }
}

/// The first layer of a clipped network over `G`'s input set `set`, `lines` lines wide:
/// each feature's column (the sum of its inputs' weights) and the biases, times 127.
fn first_layer<G: Inputs>(
    weights: &MlpWeights,
    set: usize,
    lines: usize,
) -> Result<(Vec<Line>, Vec<Line>), String> {
    let inputs = input_set::<G>(set);
    let limit = w1_limit(inputs.max_active);
    if let Some(w) = weights
        .w1
        .iter()
        .chain(&weights.b1)
        .find(|w| w.abs() > limit * 1.001)
    {
        return Err(format!(
            "a first-layer weight ({w}) beyond ±{limit:.3}, more than the integer \
             evaluator's sums hold"
        ));
    }
    let quantise = |w: f32| (w * ACC_SCALE).round() as i16;
    let mut columns = vec![Line([0; LINE]); inputs.features * lines];
    let mut b1 = vec![Line([0; LINE]); lines];
    for j in 0..weights.hidden {
        let row = &weights.w1[j * inputs.inputs..(j + 1) * inputs.inputs];
        for f in 0..inputs.features {
            columns[f * lines + j / LINE].0[j % LINE] = G::feature_inputs(set, f)
                .map(|i| quantise(row[i]))
                .fold(0, i16::wrapping_add);
        }
        b1[j / LINE].0[j % LINE] = quantise(weights.b1[j]);
    }
    Ok((columns, b1))
}

/// The second hidden layer in integers (see the module documentation): its units padded
/// to 16, its weights as bytes by groups of 4 first-layer units and as `i16` by pairs,
/// its biases, and its scale's shift.
struct SecondLayer {
    units: usize,
    bytes: Vec<i8>,
    pairs: Vec<[i16; 32]>,
    biases: Vec<i32>,
    shift: u32,
}

impl SecondLayer {
    /// The second layer of `weights` over a first layer padded to `padded` units.
    fn new(weights: &MlpWeights, padded: usize) -> Result<SecondLayer, String> {
        let (hidden, hidden2) = (weights.hidden, weights.hidden2());
        let units = hidden2.div_ceil(16) * 16;
        if let Some(w) = weights
            .w_hidden2
            .iter()
            .find(|w| w.abs() > W2_LIMIT * 1.001)
        {
            return Err(format!(
                "a second-layer weight ({w}) beyond ±{W2_LIMIT:.3}, the integer evaluator's \
                 bytes"
            ));
        }
        let largest = weights.w_hidden2.iter().fold(0.0f32, |m, w| m.max(w.abs()));
        let shift = (MIN_W2_SHIFT..=MAX_W2_SHIFT)
            .rev()
            .find(|&s| (largest * (1u32 << s) as f32).round() <= 127.0)
            .unwrap_or(MIN_W2_SHIFT);
        let scale = (1u32 << shift) as f32;
        let w2 = |j: usize, i: usize| -> i8 {
            match j < hidden2 && i < hidden {
                true => (weights.w_hidden2[j * hidden + i] * scale)
                    .round()
                    .clamp(-127.0, 127.0) as i8,
                false => 0,
            }
        };
        let mut bytes = vec![0i8; padded * units];
        for g in 0..padded / 4 {
            for j in 0..units {
                for k in 0..4 {
                    bytes[(g * units + j) * 4 + k] = w2(j, 4 * g + k);
                }
            }
        }
        let pairs = (0..padded / 2 * units / 16)
            .map(|x| {
                let (p, c) = (x / (units / 16), x % (units / 16));
                std::array::from_fn(|i| i16::from(w2(16 * c + i / 2, 2 * p + i % 2)))
            })
            .collect();
        // Half a step of the shift folded in: the activation `(s + 2^(shift − 1)) >>
        // shift` rounds to the nearest step instead of down.
        let mut biases = vec![0i32; units];
        for (b, &w) in biases.iter_mut().zip(&weights.b_hidden2) {
            *b = (f64::from(w) * f64::from(ACC_SCALE) * f64::from(scale)).round() as i32
                + (1 << (shift - 1));
        }
        Ok(SecondLayer {
            units,
            bytes,
            pairs,
            biases,
            shift,
        })
    }
}

/// The output heads in integers, each `head_len` long: their weights, their biases, and
/// the shift `S` of their scale (see the module documentation).
fn heads(weights: &MlpWeights, head_len: usize) -> Result<(Vec<i32>, Vec<i32>, u32), String> {
    let shift = (1..=MAX_OUT_SHIFT)
        .rev()
        .find(|&s| {
            let scale = f64::from(CENTI_PER_LOGIT) * f64::from(1u32 << s);
            (0..weights.phases).all(|phase| {
                let rounded: Vec<f64> = weights
                    .head(phase)
                    .iter()
                    .map(|&w| (f64::from(w) * scale / f64::from(ACT_MAX)).round().abs())
                    .collect();
                let bias = (f64::from(weights.b2[phase]) * scale).round().abs();
                rounded.iter().all(|&w| w <= f64::from(i16::MAX))
                    && rounded.iter().sum::<f64>() * f64::from(ACT_MAX) + bias
                        <= f64::from(i32::MAX / 2)
            })
        })
        .ok_or_else(|| {
            "output weights too large for the integer evaluator (a head's sum may pass the \
             i32 range)"
                .to_string()
        })?;
    let scale = f64::from(CENTI_PER_LOGIT) * f64::from(1u32 << shift);
    let mut heads = vec![0i32; weights.phases * head_len];
    for phase in 0..weights.phases {
        for (j, &w) in weights.head(phase).iter().enumerate() {
            heads[phase * head_len + j] =
                (f64::from(w) * scale / f64::from(ACT_MAX)).round() as i32;
        }
    }
    let biases = weights
        .b2
        .iter()
        .map(|&b| (f64::from(b) * scale).round() as i32)
        .collect();
    Ok((heads, biases, shift))
}

/// Where [`ClippedNet::output`] keeps the activations of the layers past the first (one
/// per searcher, so that an evaluation clears nothing).
pub struct ClippedScratch {
    bytes: Bytes,
    pairs: [u32; MAX_CLIPPED_HIDDEN / 2],
    sums: Sums,
}

impl ClippedScratch {
    pub fn new() -> ClippedScratch {
        ClippedScratch {
            bytes: Bytes([0; MAX_CLIPPED_HIDDEN]),
            pairs: [0; MAX_CLIPPED_HIDDEN / 2],
            sums: Sums([0; MAX_HIDDEN]),
        }
    }
}

impl Default for ClippedScratch {
    fn default() -> Self {
        Self::new()
    }
}

/// Activations as bytes, aligned for the vector loads.
#[repr(C, align(64))]
struct Bytes([u8; MAX_CLIPPED_HIDDEN]);

/// Second-layer sums, aligned.
#[repr(C, align(64))]
struct Sums([i32; MAX_HIDDEN]);
