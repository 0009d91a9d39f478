//! The play-time form of a TD network: integer weights, first-layer sums kept as `i16`
//! accumulators, the hidden sigmoid as a table, an integer output dot product. Built from
//! the float weights when a model loads; the float weights stay the training and
//! model-file form.
//!
//! # Scales
//! - First layer: `W1` and `b1` times `Q1 = 2^shift1`, rounded to `i16`; `Q1` is 256
//!   unless a hidden unit's largest possible sum (its bias and the `max_active` largest of its
//!   weights in absolute value) would not fit in an `i16`, then the largest power of two
//!   that fits. A hidden sum is thus exact in integers: the sum of the rounded weights.
//! - Hidden activation: `h = round(σ(s / Q1) · 2^15)` from a table over the clamped sum
//!   `s ∈ [−12·Q1, 12·Q1]` (σ(±12) is within 2⁻¹⁸ of 0 and 1, below the table's step).
//! - Output: `w2 · 100 · 2^8` rounded to `i32`, `b2 · 100 · 2^23` to `i64`; the dot product
//!   `b2 + Σ w2·h` (in `i64`, which cannot overflow) is the output logit in centi-units
//!   times `2^23`, rounded to the nearest centi-unit. With several phases each head is
//!   scaled so, and a position takes its phase's head ([`Inputs::phase`]): the
//!   accumulators do not depend on the phase.
//! - Second hidden layer (when the network has one): in integers. Its weights are
//!   `w · Q3` (`Q3 = 2^shift2`) rounded to `i16`, its biases `b · Q3 · 2^15` to `i32`;
//!   `Q3` is `2^12` unless a weight would not fit in an `i16` or some unit's largest
//!   possible sum (its bias and its weights in absolute value times 32,767) in an `i32`,
//!   then the largest power of two that fits. The first layer's activations enter as `min(h, 32,767)`, so each unit's
//!   sum `a = B + Σ_j W_j · h_j` is exact in `i32` (`a / (Q3 · 2^15)` in the float
//!   network's units), and pairs of products are what SSE2's `pmaddwd` adds. The sum is
//!   taken to the grid of `1/Q2` (`Q2 = 256`) within ±12 by rounding half up, and the
//!   unit's activation read from a second table, `round(σ(i / Q2 − 12) · 2^15)`. The
//!   heads then read these activations with the output scales above.

use super::simd;
use super::{
    BLOCK, CENTI_PER_LOGIT, Inputs, MAX_ACTIVE, MAX_HIDDEN, MlpWeights, input_set, sigmoid,
};
use crate::eval::EVAL_LIMIT;
use crate::game::Side;

/// Largest first-layer scale: `log2 Q1`.
pub const MAX_SHIFT1: u32 = 8;
/// Hidden activations are `σ · 2^H_BITS`.
pub const H_BITS: u32 = 15;
/// Output weights are `w2 · 100 · 2^W2_BITS` (centi-units per unit of activation).
pub const W2_BITS: u32 = 8;
/// The sigmoid table covers hidden sums in ±`SPAN` (in units of the float network).
const SPAN: i32 = 12;
/// Largest scale of the second hidden layer's weights: `log2 Q3`.
pub const MAX_SHIFT2: u32 = 12;
/// The second hidden layer's sums are taken to a grid of `1/Q2` before its table.
pub const Q2: usize = 256;
/// `log2 Q2`.
const Q2_BITS: u32 = Q2.trailing_zeros();
/// Its table covers sums in ±`SPAN2`.
pub const SPAN2: usize = 12;
/// Blocks of [`BLOCK`] hidden units at most.
pub const MAX_BLOCKS: usize = MAX_HIDDEN / BLOCK;

/// The first-layer sums of one position from one side's point of view: hidden unit
/// `16b + k` is `[b][k]`, in units of `1/Q1`. Units past the network's hidden size stay 0.
pub type Accumulator = [[i16; BLOCK]; MAX_BLOCKS];

/// The integer network (see the module documentation for the scales).
#[derive(Debug, PartialEq)]
pub struct QuantisedNet {
    /// The game's input set ([`Inputs::INPUT_SETS`]).
    set: usize,
    hidden: usize,
    /// Output heads: one per phase.
    phases: usize,
    /// Blocks of [`BLOCK`] hidden units in use: `hidden` rounded up, divided by 16.
    blocks: usize,
    /// `log2 Q1`.
    shift1: u32,
    /// `W1` by feature ([`super::InputSet::features`]), column-major by blocks:
    /// `columns[f * blocks + b][k]` = the sum of `Q1 · W1[16b + k][i]` over the inputs `i`
    /// of feature `f`.
    columns: Vec<[i16; BLOCK]>,
    /// `Q1 · b1`, padded with zeros.
    b1: Accumulator,
    /// `w2 · 100 · 2^W2_BITS` by blocks of the units the heads read (the last hidden
    /// layer's), padded with zeros: head φ is `w2[φ · head_blocks..(φ + 1) ·
    /// head_blocks]`. Rounded to `i32`, held as `i64` so that the dot product multiplies
    /// straight from memory, with no widening step per unit.
    w2: Vec<[i64; BLOCK]>,
    /// `b2 · 100 · 2^(H_BITS + W2_BITS)`, one per phase.
    b2: Vec<i64>,
    /// `sigmoid[s as u16]` = `round(σ(clamp(s, ±12·Q1) / Q1) · 2^H_BITS)` for every
    /// `i16` sum `s`: indexed by the sum's bits, a lookup needs no clamp and no bounds
    /// check (128 KB, of which the ±12·Q1 entries around 0 and the ends are read).
    sigmoid: Box<[u16; 1 << 16]>,
    /// Blocks of [`BLOCK`] units the heads read: `blocks`, or the second hidden layer's
    /// units rounded up, divided by 16.
    head_blocks: usize,
    /// The second hidden layer's weights times `Q3`, by pairs of first-layer units and
    /// padded with zeros: `w_hidden2[p * head_blocks + c][2k + r]` is the weight from
    /// first-layer unit `2p + r` to second-layer unit `16c + k`. Empty without the layer.
    w_hidden2: Vec<[i16; 2 * BLOCK]>,
    /// The second hidden layer's biases times `Q3 · 2^H_BITS`, padded with zeros
    /// (`head_blocks` blocks); empty without the layer.
    b_hidden2: Vec<[i32; BLOCK]>,
    /// `log2 Q3`.
    shift2: u32,
    /// `sigmoid2[i]` = `round(σ(i / Q2 − 12) · 2^H_BITS)`: the second layer's activation
    /// on its grid (empty without the layer).
    sigmoid2: Vec<u16>,
}

impl QuantisedNet {
    /// The integer form of a checked network of `G` over input set `set`
    /// ([`MlpWeights::validate`] returns it). An error if even `Q1 = 1` cannot hold a
    /// hidden unit's sums in an `i16` (weights in the thousands: no trained network comes
    /// near).
    pub fn new<G: Inputs>(weights: &MlpWeights, set: usize) -> Result<QuantisedNet, String> {
        let hidden = weights.hidden;
        let blocks = hidden.div_ceil(BLOCK);
        let hidden2 = weights.hidden2();
        let head_blocks = weights.head_inputs().div_ceil(BLOCK);
        let inputs = input_set::<G>(set);
        let shift1 =
            first_layer_shift(weights, inputs.inputs, inputs.max_active).ok_or_else(|| {
                "first-layer weights too large for the integer evaluator (a hidden unit's \
             sum may exceed ±32,000)"
                    .to_string()
            })?;
        let q1 = (1u32 << shift1) as f32;
        let quantise = |w: f32| (w * q1).round() as i16;
        // A feature's column: the sum of its inputs' rounded weights (wrapping, as the
        // accumulators add; every sum a position makes fits, so this is exact).
        let mut columns = vec![[0i16; BLOCK]; inputs.features * blocks];
        let mut b1 = [[0i16; BLOCK]; MAX_BLOCKS];
        for j in 0..hidden {
            let row = &weights.w1[j * inputs.inputs..(j + 1) * inputs.inputs];
            for f in 0..inputs.features {
                columns[f * blocks + j / BLOCK][j % BLOCK] = G::feature_inputs(set, f)
                    .map(|i| quantise(row[i]))
                    .fold(0, i16::wrapping_add);
            }
            b1[j / BLOCK][j % BLOCK] = quantise(weights.b1[j]);
        }
        let shift2 = second_layer_shift(weights).ok_or_else(|| {
            "second-layer weights too large for the integer evaluator (a unit's sum may \
             exceed the i32 range)"
                .to_string()
        })?;
        let quantise2 = |w: f32| (w * (1u32 << shift2) as f32).round() as i16;
        let w2_scale = CENTI_PER_LOGIT * (1u32 << W2_BITS) as f32;
        let b2_scale = f64::from(CENTI_PER_LOGIT) * f64::from(1u32 << (H_BITS + W2_BITS));
        let span = SPAN << shift1;
        // By the sum's bits: 0 to 32,767, then −32,768 to −1.
        let table: Box<[u16; 1 << 16]> = (0..=u16::MAX)
            .map(|bits| {
                let clamped = i32::from(bits as i16).clamp(-span, span);
                (sigmoid(clamped as f32 / q1) * (1u32 << H_BITS) as f32).round() as u16
            })
            .collect::<Vec<u16>>()
            .into_boxed_slice()
            .try_into()
            .map_err(|_| "the sigmoid table has one entry per i16".to_string())?;
        Ok(QuantisedNet {
            set,
            hidden,
            phases: weights.phases,
            blocks,
            shift1,
            columns,
            b1,
            // `as` saturates: an output weight beyond ±83,000 (no trained network has
            // one) would be cut, not wrap.
            w2: (0..weights.phases)
                .flat_map(|phase| weights.head(phase).chunks(BLOCK))
                .map(|chunk| {
                    let mut block = [0; BLOCK];
                    for (q, &w) in block.iter_mut().zip(chunk) {
                        *q = i64::from((w * w2_scale).round() as i32);
                    }
                    block
                })
                .collect(),
            b2: weights
                .b2
                .iter()
                .map(|&b| (f64::from(b) * b2_scale).round() as i64)
                .collect(),
            sigmoid: table,
            head_blocks,
            w_hidden2: (0..hidden.div_ceil(2) * head_blocks * usize::from(hidden2 > 0))
                .map(|x| {
                    let (p, c) = (x / head_blocks, x % head_blocks);
                    std::array::from_fn(|i| {
                        let (unit, j) = (c * BLOCK + i / 2, 2 * p + i % 2);
                        match unit < hidden2 && j < hidden {
                            true => quantise2(weights.w_hidden2[unit * hidden + j]),
                            false => 0,
                        }
                    })
                })
                .collect(),
            b_hidden2: weights
                .b_hidden2
                .chunks(BLOCK)
                .map(|chunk| {
                    std::array::from_fn(|k| {
                        let b = chunk.get(k).copied().unwrap_or(0.0);
                        (f64::from(b) * f64::from(1u32 << (shift2 + H_BITS))).round() as i32
                    })
                })
                .collect(),
            shift2,
            sigmoid2: match hidden2 {
                0 => Vec::new(),
                _ => (0..=2 * SPAN2 * Q2)
                    .map(|i| {
                        let x = i as f32 / Q2 as f32 - SPAN2 as f32;
                        (sigmoid(x) * (1u32 << H_BITS) as f32).round() as u16
                    })
                    .collect(),
            },
        })
    }

    /// The game's input set ([`Inputs::INPUT_SETS`]).
    #[inline(always)]
    pub fn input_set(&self) -> usize {
        self.set
    }

    /// `log2` of the first-layer scale `Q1`.
    pub fn shift1(&self) -> u32 {
        self.shift1
    }

    /// `log2` of the second hidden layer's weight scale `Q3` (0 without the layer).
    pub fn shift2(&self) -> u32 {
        self.shift2
    }

    /// The sums of the active features `active` (each a feature index): `b1` plus their
    /// columns, one block of hidden units at a time so its 16 sums stay in registers.
    #[inline]
    pub fn refresh(&self, acc: &mut Accumulator, active: &[u16]) {
        for (b, sums) in acc.iter_mut().enumerate().take(self.blocks) {
            *sums = self.b1[b];
            for &i in active {
                add(sums, &self.columns[usize::from(i) * self.blocks + b]);
            }
        }
    }

    /// `acc` = `parent` with the columns of the features `added` added and those of
    /// `removed` taken away. The block count is made a constant so that the blocks' sums
    /// stay in registers while a feature's columns (one contiguous run) are added. Past
    /// four blocks (64 units) the compiler's code for all blocks at once took five times
    /// the instructions per block, so wider layers are updated four blocks at a time.
    #[inline]
    pub fn apply(
        &self,
        parent: &Accumulator,
        acc: &mut Accumulator,
        added: &[u16],
        removed: &[u16],
    ) {
        match self.blocks {
            1 => self.apply_blocks::<1, 1, 0>(parent, acc, added, removed),
            2 => self.apply_blocks::<2, 2, 0>(parent, acc, added, removed),
            3 => self.apply_blocks::<3, 3, 0>(parent, acc, added, removed),
            4 => self.apply_blocks::<4, 4, 0>(parent, acc, added, removed),
            _ => self.apply_wide(parent, acc, added, removed),
        }
    }

    /// [`apply`](Self::apply) for 5 to 8 blocks, four at a time. Not inlined: inside
    /// `apply` it made a 64-unit network's bench take 4% more instructions.
    #[inline(never)]
    fn apply_wide(
        &self,
        parent: &Accumulator,
        acc: &mut Accumulator,
        added: &[u16],
        removed: &[u16],
    ) {
        match self.blocks {
            5 => {
                self.apply_blocks::<5, 4, 0>(parent, acc, added, removed);
                self.apply_blocks::<5, 1, 4>(parent, acc, added, removed);
            }
            6 => {
                self.apply_blocks::<6, 4, 0>(parent, acc, added, removed);
                self.apply_blocks::<6, 2, 4>(parent, acc, added, removed);
            }
            7 => {
                self.apply_blocks::<7, 4, 0>(parent, acc, added, removed);
                self.apply_blocks::<7, 3, 4>(parent, acc, added, removed);
            }
            // `blocks` is 1 to MAX_BLOCKS = 8 (at most MAX_HIDDEN hidden units).
            _ => {
                self.apply_blocks::<MAX_BLOCKS, 4, 0>(parent, acc, added, removed);
                self.apply_blocks::<MAX_BLOCKS, 4, 4>(parent, acc, added, removed);
            }
        }
    }

    /// [`apply`](Self::apply) for the `C` blocks from `FIRST` of a network with `N`.
    #[inline(always)]
    fn apply_blocks<const N: usize, const C: usize, const FIRST: usize>(
        &self,
        parent: &Accumulator,
        acc: &mut Accumulator,
        added: &[u16],
        removed: &[u16],
    ) {
        let mut sums: [[i16; BLOCK]; C] = std::array::from_fn(|b| parent[FIRST + b]);
        for &i in added {
            let start = usize::from(i) * N + FIRST;
            for (block, column) in sums.iter_mut().zip(&self.columns[start..start + C]) {
                add(block, column);
            }
        }
        for &i in removed {
            let start = usize::from(i) * N + FIRST;
            for (block, column) in sums.iter_mut().zip(&self.columns[start..start + C]) {
                sub(block, column);
            }
        }
        acc[FIRST..FIRST + C].copy_from_slice(&sums);
    }

    /// The phase of `pos` among this network's phases ([`Inputs::phase`]; 0 without
    /// asking the game when there is one phase).
    #[inline(always)]
    pub fn phase_of<G: Inputs>(&self, pos: &G) -> usize {
        if self.phases == 1 {
            0
        } else {
            pos.phase(self.phases)
        }
    }

    /// The evaluation of a position of phase `phase` whose sums (from the side to move's
    /// point of view) are `acc`: the output logit of that phase's head in centi-units,
    /// clamped to ±[`EVAL_LIMIT`]. A phase past the last counts as the last.
    #[inline]
    pub fn output(&self, acc: &Accumulator, phase: usize) -> i32 {
        let phase = phase.min(self.phases - 1);
        let mut total = self.b2[phase];
        let head = &self.w2[phase * self.head_blocks..(phase + 1) * self.head_blocks];
        if self.b_hidden2.is_empty() {
            for (sums, weights) in acc.iter().zip(head) {
                // Units past `hidden` have weight 0.
                for (&s, &w2) in sums.iter().zip(weights) {
                    total += w2 * i64::from(self.sigmoid[usize::from(s as u16)]);
                }
            }
        } else {
            let units = self.second_layer(acc);
            for (units, weights) in units.iter().zip(head) {
                // Units past `hidden2` have weight 0.
                for (&h, &w2) in units.iter().zip(weights) {
                    total += w2 * i64::from(h);
                }
            }
        }
        let shift = H_BITS + W2_BITS;
        let centi = (total + (1 << (shift - 1))) >> shift;
        centi.clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
    }

    /// The second hidden layer's activations (`· 2^H_BITS`) over the first layer's sums
    /// `acc`, by blocks of [`BLOCK`] units. The block count is made a constant so that
    /// every block's sums stay in registers.
    #[inline]
    fn second_layer(&self, acc: &Accumulator) -> [[u16; BLOCK]; MAX_BLOCKS] {
        match self.head_blocks {
            1 => self.second_layer_blocks::<1>(acc),
            2 => self.second_layer_blocks::<2>(acc),
            3 => self.second_layer_blocks::<3>(acc),
            4 => self.second_layer_blocks::<4>(acc),
            5 => self.second_layer_blocks::<5>(acc),
            6 => self.second_layer_blocks::<6>(acc),
            7 => self.second_layer_blocks::<7>(acc),
            // `head_blocks` is 1 to MAX_BLOCKS = 8 (at most MAX_HIDDEN units).
            _ => self.second_layer_blocks::<MAX_BLOCKS>(acc),
        }
    }

    #[inline(always)]
    fn second_layer_blocks<const N: usize>(&self, acc: &Accumulator) -> [[u16; BLOCK]; MAX_BLOCKS] {
        let mut sums: [[i32; BLOCK]; N] = std::array::from_fn(|c| self.b_hidden2[c]);
        // Activations at most 32,767, so that the products of `i16`s and the sums of two
        // are what `pmaddwd` computes. Unit 2p + 1 past `hidden` (sum 0, activation ½) has
        // weights 0.
        let h = |j: usize| {
            let bits = acc[j / BLOCK][j % BLOCK] as u16;
            self.sigmoid[usize::from(bits)].min(i16::MAX as u16)
        };
        let mut pairs = [0u32; MAX_HIDDEN / 2];
        for (p, pair) in pairs.iter_mut().enumerate().take(self.hidden.div_ceil(2)) {
            *pair = u32::from(h(2 * p)) | u32::from(h(2 * p + 1)) << 16;
        }
        let pairs = &pairs[..self.hidden.div_ceil(2)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of x86-64 itself: every CPU that runs this build has it.
        unsafe {
            simd::pair_sums_sse2(&mut sums, &self.w_hidden2, pairs)
        };
        #[cfg(not(target_arch = "x86_64"))]
        simd::pair_sums(&mut sums, &self.w_hidden2, pairs);
        // From units of 1/(Q3 · 2^H_BITS) to the grid of 1/Q2 from −SPAN2, rounding half
        // up: ⌊(s + 2^(shift−1)) / 2^shift⌋, halved first so that nothing overflows.
        let shift = self.shift2 + H_BITS - Q2_BITS;
        let half = 1 << (shift - 2);
        let (mid, last) = ((SPAN2 * Q2) as i32, (2 * SPAN2 * Q2) as i32);
        let mut units = [[0u16; BLOCK]; MAX_BLOCKS];
        for (u, s) in units.iter_mut().zip(&sums) {
            for k in 0..BLOCK {
                let i = (((s[k] >> 1) + half) >> (shift - 1)) + mid;
                u[k] = self.sigmoid2[i.clamp(0, last) as usize];
            }
        }
        units
    }

    /// The evaluation of `pos` from scratch.
    #[inline]
    pub fn evaluate<G: Inputs>(&self, pos: &G) -> i32 {
        let mut acc = [[0; BLOCK]; MAX_BLOCKS];
        self.refresh(
            &mut acc,
            &ActiveFeatures::of(pos, self.set, pos.side_to_move()),
        );
        self.output(&acc, self.phase_of(pos))
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Number of phases (output heads).
    pub fn phases(&self) -> usize {
        self.phases
    }
}

#[inline(always)]
fn add(sums: &mut [i16; BLOCK], column: &[i16; BLOCK]) {
    for k in 0..BLOCK {
        sums[k] = sums[k].wrapping_add(column[k]);
    }
}

#[inline(always)]
fn sub(sums: &mut [i16; BLOCK], column: &[i16; BLOCK]) {
    for k in 0..BLOCK {
        sums[k] = sums[k].wrapping_sub(column[k]);
    }
}

/// The features of set `set` of a position from one side's point of view
/// ([`Inputs::for_each_feature_as`]), listed on the stack as the kernels read them:
/// `u16`s, as a step's changes are (a list of `usize`s was a kilobyte to clear at every
/// refresh).
pub struct ActiveFeatures {
    list: [u16; MAX_ACTIVE],
    count: usize,
}

impl ActiveFeatures {
    #[inline]
    pub fn of<G: Inputs>(pos: &G, set: usize, side: Side) -> ActiveFeatures {
        let mut active = ActiveFeatures {
            list: [0; MAX_ACTIVE],
            count: 0,
        };
        pos.for_each_feature_as(set, side, |i| {
            // At most the set's `max_active_features` ≤ `MAX_ACTIVE` features, each below
            // `MAX_INPUTS` = 4096, so a `u16`.
            if let Some(slot) = active.list.get_mut(active.count) {
                *slot = i as u16;
                active.count += 1;
            }
        });
        active
    }
}

impl std::ops::Deref for ActiveFeatures {
    type Target = [u16];
    fn deref(&self) -> &[u16] {
        &self.list[..self.count]
    }
}

/// `log2 Q3`: [`MAX_SHIFT2`], or less if some second-layer unit's largest possible sum
/// (its bias and its rounded weights in absolute value times 32,767) would not fit in an
/// `i32` or a weight in an `i16`; 0 without the layer.
fn second_layer_shift(weights: &MlpWeights) -> Option<u32> {
    if weights.hidden2() == 0 {
        return Some(0);
    }
    let hidden = weights.hidden;
    let h_max = f64::from(i16::MAX);
    (0..=MAX_SHIFT2).rev().find(|&shift| {
        let q3 = f64::from(1u32 << shift);
        (0..weights.hidden2()).all(|k| {
            let row = &weights.w_hidden2[k * hidden..(k + 1) * hidden];
            let rounded = || row.iter().map(|&w| (f64::from(w.abs()) * q3).round());
            let bias = (f64::from(weights.b_hidden2[k].abs()) * q3 * (h_max + 1.0)).round();
            rounded().all(|w| w <= h_max)
                && rounded().sum::<f64>() * h_max + bias <= f64::from(i32::MAX)
        })
    })
}

/// `log2 Q1`: [`MAX_SHIFT1`], or less if some hidden unit's largest possible sum (of
/// `max_active` of its `inputs` weights) would not fit in an `i16` (each rounded weight
/// may be ½ larger in magnitude).
fn first_layer_shift(weights: &MlpWeights, inputs: usize, max_active: usize) -> Option<u32> {
    let mut largest = 0.0f64;
    let mut row = vec![0.0f32; inputs];
    for j in 0..weights.hidden {
        for (r, w) in row.iter_mut().zip(&weights.w1[j * inputs..]) {
            *r = w.abs();
        }
        row.sort_unstable_by(|a, b| b.total_cmp(a));
        let top: f64 = row.iter().take(max_active).map(|&w| f64::from(w)).sum();
        largest = largest.max(top + f64::from(weights.b1[j].abs()));
    }
    let rounding = 0.5 * (max_active + 1) as f64;
    (0..=MAX_SHIFT1)
        .rev()
        .find(|&shift| largest * f64::from(1u32 << shift) + rounding <= f64::from(i16::MAX))
}
