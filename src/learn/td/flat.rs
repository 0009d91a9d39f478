//! The network as the learner trains it: flat `f32` weights laid out for the loops, so a
//! learning step costs what the position's ~25 active inputs cost, not the whole first
//! layer, and allocates nothing.
//!
//! `W1` is kept input-major (row `i` holds the weights out of input `i`): a position's
//! first layer is the sum of its active rows, and its first-layer gradient touches only
//! those rows. Converting to and from [`MlpWeights`] is a transposition, exact.
//!
//! The eligibility trace is kept scaled, `e = c·ẽ`: decaying it multiplies the number
//! `c` by λ instead of every weight (`ẽ` is renormalised when `c` gets small), so a step
//! passes over the weights once, for the update.

use rayon::prelude::*;

use crate::eval::td::clipped::{MAX_CLIPPED_HIDDEN, W2_LIMIT, w1_limit};
use crate::eval::td::{Activation, Inputs, MAX_ACTIVE, MAX_HIDDEN, MlpWeights, input_set, sigmoid};
use crate::game::Side;
use crate::learn::controls::OutcomeTarget;

/// Which loss a TD step descends (`[td] loss`): the temporal difference δ times the
/// eligibility of `Y` itself (the thesis's rule, squared error), or of `Y`'s logit
/// (cross-entropy: the step does not shrink where the sigmoid saturates).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TdLoss {
    #[default]
    Squared,
    CrossEntropy,
}

/// Below this the trace's scale is folded into its weights.
const MIN_TRACE_SCALE: f32 = 1e-10;

/// The network, `W1` input-major.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatNet {
    /// The game's input set ([`Inputs::INPUT_SETS`]).
    set: usize,
    hidden: usize,
    inputs: usize,
    /// `inputs × hidden`: row `i` holds the weights from input `i` to every hidden unit.
    w1t: Vec<f32>,
    b1: Vec<f32>,
    /// `phases × hidden`: row φ is phase φ's head.
    w2: Vec<f32>,
    /// `phases`.
    b2: Vec<f32>,
    /// The second hidden layer: `hidden2 × hidden` weights and `hidden2` biases (empty
    /// without one).
    wh2: Vec<f32>,
    bh2: Vec<f32>,
    /// The hidden units' activation (the output is a sigmoid whatever it is).
    activation: Activation,
}

/// Most activations of both hidden layers.
const MAX_ACTIVATIONS: usize = MAX_CLIPPED_HIDDEN + MAX_HIDDEN;

impl FlatNet {
    /// The network of `weights`, already validated for game `G`'s input set `set`.
    pub fn from_weights<G: Inputs>(weights: &MlpWeights, set: usize) -> FlatNet {
        let inputs = input_set::<G>(set).inputs;
        let h = weights.hidden;
        let mut w1t = vec![0.0; inputs * h];
        for j in 0..h {
            for i in 0..inputs {
                w1t[i * h + j] = weights.w1[j * inputs + i];
            }
        }
        FlatNet {
            set,
            hidden: h,
            inputs,
            w1t,
            b1: weights.b1.clone(),
            w2: weights.w2.clone(),
            b2: weights.b2.clone(),
            wh2: weights.w_hidden2.clone(),
            bh2: weights.b_hidden2.clone(),
            activation: weights.activation,
        }
    }

    /// The model-file payload of this network, a network of game `G`.
    pub fn to_weights<G: Inputs>(&self) -> MlpWeights {
        let (h, n) = (self.hidden, self.inputs);
        let mut w1 = vec![0.0; n * h];
        for j in 0..h {
            for i in 0..n {
                w1[j * n + i] = self.w1t[i * h + j];
            }
        }
        MlpWeights {
            features: input_set::<G>(self.set).id.to_string(),
            hidden: h,
            phases: self.phases(),
            w1,
            b1: self.b1.clone(),
            w2: self.w2.clone(),
            b2: self.b2.clone(),
            w_hidden2: self.wh2.clone(),
            b_hidden2: self.bh2.clone(),
            activation: self.activation,
        }
    }

    fn phases(&self) -> usize {
        self.b2.len()
    }

    /// All zero, the same shape.
    pub fn zeros_like(&self) -> FlatNet {
        FlatNet {
            set: self.set,
            hidden: self.hidden,
            inputs: self.inputs,
            w1t: vec![0.0; self.w1t.len()],
            b1: vec![0.0; self.b1.len()],
            w2: vec![0.0; self.w2.len()],
            b2: vec![0.0; self.b2.len()],
            wh2: vec![0.0; self.wh2.len()],
            bh2: vec![0.0; self.bh2.len()],
            activation: self.activation,
        }
    }

    fn parts_mut(&mut self) -> [&mut [f32]; 6] {
        [
            &mut self.w1t,
            &mut self.b1,
            &mut self.w2,
            &mut self.b2,
            &mut self.wh2,
            &mut self.bh2,
        ]
    }

    fn parts(&self) -> [&[f32]; 6] {
        [
            &self.w1t, &self.b1, &self.w2, &self.b2, &self.wh2, &self.bh2,
        ]
    }

    /// Units of the second hidden layer (0 without one).
    fn hidden2(&self) -> usize {
        self.bh2.len()
    }

    /// Units the heads read.
    fn head_inputs(&self) -> usize {
        match self.hidden2() {
            0 => self.hidden,
            n => n,
        }
    }

    /// Activations the forward pass writes: both hidden layers.
    pub fn activations(&self) -> usize {
        self.hidden + self.hidden2()
    }

    /// `self ← self + s·other`, weight by weight.
    fn scaled_add(&mut self, s: f32, other: &FlatNet) {
        for (a, b) in self.parts_mut().into_iter().zip(other.parts()) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += s * y;
            }
        }
    }

    /// `self ← factor·self`.
    fn scale(&mut self, factor: f32) {
        for a in self.parts_mut() {
            for x in a.iter_mut() {
                *x *= factor;
            }
        }
    }

    /// Keeps a clipped network's weights within what its integer form holds
    /// ([`w1_limit`] in the first layer, [`W2_LIMIT`] in the second); a sigmoid network
    /// is left as it is (its integer form scales to its weights).
    fn clip_to_integer_range<G: Inputs>(&mut self) {
        if self.activation != Activation::ClippedRelu {
            return;
        }
        let limit = w1_limit(input_set::<G>(self.set).max_active);
        for w in self.w1t.iter_mut().chain(self.b1.iter_mut()) {
            *w = w.clamp(-limit, limit);
        }
        for w in self.wh2.iter_mut() {
            *w = w.clamp(-W2_LIMIT, W2_LIMIT);
        }
    }

    fn fill_zero(&mut self) {
        for a in self.parts_mut() {
            a.fill(0.0);
        }
    }

    fn phase_of<G: Inputs>(&self, pos: &G) -> usize {
        match self.phases() {
            1 => 0,
            phases => pos.phase(phases).min(phases - 1),
        }
    }

    /// The output (for the side to move) of a position with active inputs `active` in
    /// phase `phase`; the hidden activations go to `h`.
    #[inline]
    fn forward(&self, active: &[u16], phase: usize, h: &mut [f32]) -> f32 {
        let n = self.hidden;
        let (h, h2) = h.split_at_mut(n);
        h.copy_from_slice(&self.b1);
        for &i in active {
            let row = &self.w1t[i as usize * n..(i as usize + 1) * n];
            for (a, w) in h.iter_mut().zip(row) {
                *a += w;
            }
        }
        let activation = self.activation;
        for a in h.iter_mut() {
            *a = activation.of(*a);
        }
        let m = self.hidden2();
        if m == 0 {
            return sigmoid(dot(&self.w2[phase * n..(phase + 1) * n], h) + self.b2[phase]);
        }
        for (k, a) in h2[..m].iter_mut().enumerate() {
            *a = activation.of(dot(&self.wh2[k * n..(k + 1) * n], h) + self.bh2[k]);
        }
        sigmoid(dot(&self.w2[phase * m..(phase + 1) * m], &h2[..m]) + self.b2[phase])
    }
}

/// `Σ a_i b_i` in 8 interleaved partial sums: a fixed order, so the same result on every
/// machine (and a loop the compiler vectorises).
#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let chunks = a.len() / 8;
    for c in 0..chunks {
        for l in 0..8 {
            acc[l] += a[c * 8 + l] * b[c * 8 + l];
        }
    }
    let tail: f32 = (chunks * 8..a.len()).map(|k| a[k] * b[k]).sum();
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

/// A principal-variation leaf as the learner sees it: its active inputs and phase.
struct Leaf {
    active: [u16; MAX_ACTIVE],
    count: usize,
    phase: usize,
    /// +1 if the first player is to move in the leaf, −1 if the second is; 0 for a leaf
    /// without legal moves, whose value for the first player is known (`known`: its
    /// result or margin, as `target` says) and has no gradient.
    sign: f32,
    known: f32,
}

impl Leaf {
    fn of<G: Inputs>(net: &FlatNet, pos: &G, target: OutcomeTarget) -> Leaf {
        let mut leaf = Leaf {
            active: [0; MAX_ACTIVE],
            count: 0,
            phase: 0,
            sign: 0.0,
            known: 0.0,
        };
        if !pos.has_legal_move() {
            let own = target.of_end(pos) as f32;
            leaf.known = match pos.side_to_move() {
                Side::First => own,
                Side::Second => 1.0 - own,
            };
            return leaf;
        }
        pos.for_each_input(net.set, |i| {
            leaf.active[leaf.count] = i as u16;
            leaf.count += 1;
        });
        leaf.phase = net.phase_of(pos);
        leaf.sign = match pos.side_to_move() {
            Side::First => 1.0,
            Side::Second => -1.0,
        };
        leaf
    }

    fn active(&self) -> &[u16] {
        &self.active[..self.count]
    }

    /// `Y` (the first player's view) at `net`, with the output `p` for the side to move;
    /// the hidden activations go to `h`.
    fn value(&self, net: &FlatNet, h: &mut [f32]) -> (f32, f32) {
        if self.sign == 0.0 {
            return (self.known, 0.0);
        }
        let p = net.forward(self.active(), self.phase, h);
        (if self.sign > 0.0 { p } else { 1.0 - p }, p)
    }

    /// `out ← out + c·∇Y`, ∇Y at the weights that gave `p` and `h` (with
    /// [`TdLoss::CrossEntropy`], the gradient of `Y`'s logit instead).
    fn add_gradient(
        &self,
        net: &FlatNet,
        p: f32,
        h: &[f32],
        c: f32,
        loss: TdLoss,
        out: &mut FlatNet,
    ) {
        if self.sign == 0.0 {
            return;
        }
        let n = net.hidden;
        let d = match loss {
            TdLoss::Squared => c * self.sign * p * (1.0 - p),
            TdLoss::CrossEntropy => c * self.sign,
        };
        out.b2[self.phase] += d;
        let o = net.head_inputs();
        let m = net.hidden2();
        let w2 = &net.w2[self.phase * o..(self.phase + 1) * o];
        let g2 = &mut out.w2[self.phase * o..(self.phase + 1) * o];
        let mut gb1 = [0.0f32; MAX_CLIPPED_HIDDEN];
        let gb1 = &mut gb1[..n];
        let activation = net.activation;
        if m == 0 {
            for j in 0..n {
                g2[j] += d * h[j];
                gb1[j] = d * w2[j] * activation.slope(h[j]);
            }
        } else {
            let (h, h2) = h.split_at(n);
            for k in 0..m {
                g2[k] += d * h2[k];
                let dk = d * w2[k] * activation.slope(h2[k]);
                out.bh2[k] += dk;
                let wrow = &net.wh2[k * n..(k + 1) * n];
                let grow = &mut out.wh2[k * n..(k + 1) * n];
                for j in 0..n {
                    grow[j] += dk * h[j];
                    gb1[j] += dk * wrow[j];
                }
            }
            for j in 0..n {
                gb1[j] *= activation.slope(h[j]);
            }
        }
        for (b, g) in out.b1.iter_mut().zip(gb1.iter()) {
            *b += g;
        }
        for &i in self.active() {
            let row = &mut out.w1t[i as usize * n..(i as usize + 1) * n];
            for (w, g) in row.iter_mut().zip(gb1.iter()) {
                *w += g;
            }
        }
    }
}

/// Buffers a learner reuses from game to game: nothing is allocated per step.
pub struct Scratch {
    leaves: Vec<Leaf>,
    h: Vec<f32>,
    trace: Option<FlatNet>,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            leaves: Vec::new(),
            h: Vec::new(),
            trace: None,
        }
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Self::new()
    }
}

/// What one episode did (see [`super::TdReport`]).
pub struct EpisodeFigures {
    pub steps: usize,
    pub squared: f64,
    pub first_prediction: f32,
    pub final_error: f32,
}

/// TD(λ) on one game's leaves, in the order and with the targets of
/// [`super::td_lambda_episode_blended`] (which documents the rule), on `net`: `result`
/// is the game's value for the first player (`target` of the game), and a leaf where the
/// game is over is valued by `target` too.
#[allow(clippy::too_many_arguments)]
pub fn episode<G: Inputs>(
    net: &mut FlatNet,
    leaves: &[G],
    searched: &[f32],
    weight: f32,
    result: f32,
    target: OutcomeTarget,
    loss: TdLoss,
    lambda: f32,
    alpha: f32,
    s: &mut Scratch,
) -> EpisodeFigures {
    let n = leaves.len();
    let mut figures = EpisodeFigures {
        steps: n,
        squared: 0.0,
        first_prediction: 0.0,
        final_error: 0.0,
    };
    if n == 0 {
        return figures;
    }
    let hn = net.activations();
    s.leaves.clear();
    s.leaves
        .extend(leaves.iter().map(|leaf| Leaf::of(net, leaf, target)));
    s.h.resize(2 * hn, 0.0);
    let (h, h_next) = s.h.split_at_mut(hn);
    let trace = s.trace.get_or_insert_with(|| net.zeros_like());
    if trace.w1t.len() != net.w1t.len()
        || trace.w2.len() != net.w2.len()
        || trace.wh2.len() != net.wh2.len()
    {
        *trace = net.zeros_like();
    }
    trace.fill_zero();
    let mut c = 1.0f32;
    let (mut y, mut p) = s.leaves[0].value(net, h);
    figures.first_prediction = y;
    for t in 0..n {
        if t > 0 {
            if lambda == 0.0 {
                trace.fill_zero();
                c = 1.0;
            } else {
                c *= lambda;
                if c < MIN_TRACE_SCALE {
                    trace.scale(c);
                    c = 1.0;
                }
            }
        }
        s.leaves[t].add_gradient(net, p, h, 1.0 / c, loss, trace);
        let mut target = match t + 1 < n {
            true => s.leaves[t + 1].value(net, h_next).0,
            false => result,
        };
        if let Some(&s) = searched.get(t).filter(|_| weight > 0.0) {
            target = (1.0 - weight) * target + weight * s;
        }
        let delta = target - y;
        figures.squared += f64::from(delta).powi(2);
        if t + 1 == n {
            figures.final_error = delta;
        }
        if delta != 0.0 {
            net.scaled_add(alpha * delta * c, trace);
        }
        if t + 1 < n {
            (y, p) = s.leaves[t + 1].value(net, h);
        }
    }
    net.clip_to_integer_range::<G>();
    figures
}

/// Mean squared error of the network's first-player predictions of `samples` (position,
/// result for the first player; the network's value even where the game is over, as
/// [`super::loss`] measures it), computed in parallel over fixed chunks summed in order:
/// the same whatever the thread count. 0 for no samples.
pub fn loss<G: Inputs>(net: &FlatNet, samples: &[(G, f32)]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    const CHUNK: usize = 1024;
    let parts: Vec<f64> = samples
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut h = [0.0f32; MAX_ACTIVATIONS];
            let mut active = [0u16; MAX_ACTIVE];
            let mut sum = 0.0f64;
            for (pos, target) in chunk {
                let mut count = 0;
                pos.for_each_input(net.set, |i| {
                    active[count] = i as u16;
                    count += 1;
                });
                let p = net.forward(
                    &active[..count],
                    net.phase_of(pos),
                    &mut h[..net.activations()],
                );
                let y = match pos.side_to_move() {
                    Side::First => p,
                    Side::Second => 1.0 - p,
                };
                sum += f64::from(y - target).powi(2);
            }
            sum
        })
        .collect();
    parts.iter().sum::<f64>() / samples.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::brazilian::Brazilian;
    use crate::learn::td::{Mlp, TdSettings, TdState};

    /// Every part of the network's gradient (first layer, biases, heads, the second
    /// hidden layer) against central differences, for both losses: ∇Y for the squared
    /// loss, ∇ logit(Y) for cross-entropy; with and without a second layer, from both
    /// sides' points of view.
    #[test]
    fn gradients_match_finite_differences() {
        let settings = TdSettings {
            hidden: 16,
            hidden2: 8,
            ..TdSettings::default()
        };
        let two = TdState::new::<Brazilian>(1, &settings, 7).weights;
        let one = Mlp::<Brazilian>::new_random_over(1, 16, 1, 7).weights();
        let clipped_settings = TdSettings {
            activation: Activation::ClippedRelu,
            ..settings.clone()
        };
        let clipped_two = TdState::new::<Brazilian>(1, &clipped_settings, 7).weights;
        let clipped_one = TdState::new::<Brazilian>(
            1,
            &TdSettings {
                hidden2: 0,
                ..clipped_settings
            },
            7,
        )
        .weights;
        let after_a_move = {
            let mut moves = <Brazilian as Game>::Moves::default();
            let start = Brazilian::start();
            start.legal_moves(&mut moves);
            start.play(moves[0])
        };
        for (name, weights) in [
            ("two hidden layers", two),
            ("one hidden layer", one),
            ("two clipped layers", clipped_two),
            ("one clipped layer", clipped_one),
        ] {
            let net = FlatNet::from_weights::<Brazilian>(&weights, 1);
            let (mut checked, mut kinks) = (0, 0);
            for pos in [Brazilian::start(), after_a_move] {
                for loss in [TdLoss::Squared, TdLoss::CrossEntropy] {
                    let f = |y: f32| match loss {
                        TdLoss::Squared => f64::from(y),
                        TdLoss::CrossEntropy => (f64::from(y) / (1.0 - f64::from(y))).ln(),
                    };
                    let leaf = Leaf::of(&net, &pos, OutcomeTarget::Result);
                    let mut h = vec![0.0; net.activations()];
                    let (_, p) = leaf.value(&net, &mut h);
                    let mut g = net.zeros_like();
                    leaf.add_gradient(&net, p, &h, 1.0, loss, &mut g);
                    let eps = 1e-2;
                    for part in 0..6 {
                        let len = net.parts()[part].len();
                        if len == 0 {
                            continue;
                        }
                        for k in [0usize, 3, 7] {
                            // A first-layer weight of an active input.
                            let idx = match part {
                                0 => usize::from(leaf.active()[k]) * 16 + k,
                                _ => k % len,
                            };
                            let mut plus = net.clone();
                            plus.parts_mut()[part][idx] += eps;
                            let mut minus = net.clone();
                            minus.parts_mut()[part][idx] -= eps;
                            let (up, down) = (
                                f(leaf.value(&plus, &mut h).0),
                                f(leaf.value(&minus, &mut h).0),
                            );
                            let numeric = (up - down) / (2.0 * f64::from(eps));
                            let analytic = f64::from(g.parts()[part][idx]);
                            if net.activation == Activation::ClippedRelu {
                                // A clipped unit's slope jumps at 0 and 1: where the two
                                // one-sided differences part, a unit crossed one of them
                                // within ±eps, and no derivative is there to compare.
                                let here = f(leaf.value(&net, &mut h).0);
                                let (right, left) = (up - here, here - down);
                                if (right - left).abs() > 1e-3 * f64::from(eps) {
                                    kinks += 1;
                                    continue;
                                }
                            }
                            checked += 1;
                            assert!(
                                (numeric - analytic).abs() < 1e-3 + 1e-2 * analytic.abs(),
                                "{name}, {loss:?}, part {part}[{idx}]: {numeric} vs {analytic}"
                            );
                        }
                    }
                }
            }
            assert!(
                checked > 10 * kinks,
                "{name}: {checked} checked, {kinks} at kinks"
            );
        }
    }
}
