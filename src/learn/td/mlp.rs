//! The trainable network of the TD(λ) learner: dense ndarray weights, forward pass and
//! backpropagation, and the loss of its predictions.

use std::marker::PhantomData;

use ndarray::{Array1, Array2, Zip};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::eval::td::{
    Activation, Inputs, MAX_HIDDEN, MAX_PHASES, MlpWeights, TdEvaluator, input_set, sigmoid,
};
use crate::game::{Outcome, Side};

/// Default number of hidden units: inside the 32–64 range TD-Gammon-style networks use
/// (docs/training.md has what other sizes did).
pub const DEFAULT_HIDDEN: usize = 48;

/// Half-width of the uniform initial distribution of the first-layer weights `W1`.
/// About 25 inputs are active in draughts, so a hidden unit starts with a sum of
/// standard deviation ≈ 0.2/√3·√25 ≈ 0.6 (Kalah, about 75: ≈ 1.0): in the sigmoid's
/// responsive range, not saturated.
pub const INIT_W1: f32 = 0.2;

/// Half-width of the uniform initial distribution of the output weights `w2` is
/// `INIT_W2 / √hidden`, so the initial output logit has a standard deviation of about
/// 0.15 whatever the size: every position starts near p = ½ (value within a few dozen
/// centi-units of 0).
pub const INIT_W2: f32 = 0.5;

/// The dense vector of `pos`'s inputs of set `set` (entries 0 or 1).
pub fn encode<G: Inputs>(pos: &G, set: usize) -> Array1<f32> {
    let mut x = Array1::zeros(input_set::<G>(set).inputs);
    pos.for_each_input(set, |i| x[i] = 1.0);
    x
}

/// The game result as a training target from the first player's point of view: 1 the
/// first player won, ½ draw, 0 the second player won.
pub fn result_for_first(outcome: Outcome) -> f32 {
    outcome.score_for(Side::First) as f32
}

/// ∂output/∂weight for every weight of an [`Mlp`] of the same hidden size and phases
/// (also used as the eligibility trace, and as any other weight-shaped vector).
#[derive(Clone, Debug, PartialEq)]
pub struct MlpGradient {
    /// `hidden × inputs`, as [`Mlp::w1`].
    pub w1: Array2<f32>,
    pub b1: Array1<f32>,
    /// `phases × hidden`, as [`Mlp::w2`].
    pub w2: Array2<f32>,
    /// `phases`.
    pub b2: Array1<f32>,
}

impl MlpGradient {
    /// All zero, for a network of `hidden` units over `inputs` inputs with `phases`
    /// output heads.
    pub fn zeros(hidden: usize, inputs: usize, phases: usize) -> MlpGradient {
        MlpGradient {
            w1: Array2::zeros((hidden, inputs)),
            b1: Array1::zeros(hidden),
            w2: Array2::zeros((phases, hidden)),
            b2: Array1::zeros(phases),
        }
    }

    pub fn hidden(&self) -> usize {
        self.b1.len()
    }

    pub fn phases(&self) -> usize {
        self.b2.len()
    }

    /// `self ← factor · self`.
    pub fn scale(&mut self, factor: f32) {
        self.w1 *= factor;
        self.b1 *= factor;
        self.w2 *= factor;
        self.b2 *= factor;
    }

    /// `self ← decay · self + g`: one step of an eligibility trace. Panics if the hidden
    /// sizes or phases differ.
    pub fn decay_and_add(&mut self, decay: f32, g: &MlpGradient) {
        assert_eq!(self.hidden(), g.hidden(), "gradient sizes differ");
        assert_eq!(self.phases(), g.phases(), "gradient phases differ");
        Zip::from(&mut self.w1)
            .and(&g.w1)
            .for_each(|e, &x| *e = decay * *e + x);
        Zip::from(&mut self.b1)
            .and(&g.b1)
            .for_each(|e, &x| *e = decay * *e + x);
        Zip::from(&mut self.w2)
            .and(&g.w2)
            .for_each(|e, &x| *e = decay * *e + x);
        Zip::from(&mut self.b2)
            .and(&g.b2)
            .for_each(|e, &x| *e = decay * *e + x);
    }
}

/// The trainable network: dense ndarray weights, forward pass and backpropagation.
/// Evaluate with [`TdEvaluator`] inside the search: it is much faster.
///
/// One output head per phase ([`Inputs::phase`]): a position's output is its phase's
/// head over the shared hidden layer, so a position's gradient is zero on every other
/// head.
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp<G> {
    /// The game's input set ([`Inputs::INPUT_SETS`]).
    set: usize,
    w1: Array2<f32>,
    b1: Array1<f32>,
    /// `phases × hidden`: row φ is phase φ's head.
    w2: Array2<f32>,
    /// `phases`.
    b2: Array1<f32>,
    game: PhantomData<fn() -> G>,
}

impl<G: Inputs> Mlp<G> {
    /// A network of `hidden` units and one output (one phase) with small random weights
    /// from a Xoshiro256++ seeded with `seed`: `W1` uniform in ±[`INIT_W1`], `w2` uniform
    /// in ±[`INIT_W2`]/√hidden, biases 0. Every position starts with p ≈ ½. Panics unless
    /// `1 ≤ hidden ≤ MAX_HIDDEN`.
    pub fn new_random(hidden: usize, seed: u64) -> Mlp<G> {
        Mlp::new_random_phased(hidden, 1, seed)
    }

    /// [`Mlp::new_random`] with `phases` output heads, all starting equal (the same
    /// random draws as one head, so 1 phase is [`Mlp::new_random`]): training starts
    /// from the one-output network and lets the heads part. Panics unless
    /// `1 ≤ hidden ≤ MAX_HIDDEN` and `1 ≤ phases ≤ MAX_PHASES`.
    pub fn new_random_phased(hidden: usize, phases: usize, seed: u64) -> Mlp<G> {
        Mlp::new_random_over(0, hidden, phases, seed)
    }

    /// [`Mlp::new_random_phased`] over the game's input set `set` (the draws are the
    /// same whatever the set, in order). Panics unless `set` is one of the game's.
    pub fn new_random_over(set: usize, hidden: usize, phases: usize, seed: u64) -> Mlp<G> {
        let inputs = input_set::<G>(set).inputs;
        assert!(
            (1..=MAX_HIDDEN).contains(&hidden),
            "hidden size {hidden} outside 1..={MAX_HIDDEN}"
        );
        assert!(
            (1..=MAX_PHASES).contains(&phases),
            "{phases} phases outside 1..={MAX_PHASES}"
        );
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let w2_scale = INIT_W2 / (hidden as f32).sqrt();
        let w1 =
            Array2::from_shape_simple_fn((hidden, inputs), || rng.random_range(-INIT_W1..INIT_W1));
        let head = Array1::from_shape_simple_fn(hidden, || rng.random_range(-w2_scale..w2_scale));
        let w2 = Array2::from_shape_fn((phases, hidden), |(_, j)| head[j]);
        Mlp {
            set,
            w1,
            b1: Array1::zeros(hidden),
            w2,
            b2: Array1::zeros(phases),
            game: PhantomData,
        }
    }

    /// A network from a payload, after [`MlpWeights::validate`]. An error for a network
    /// with a second hidden layer, which this reference form does not hold.
    pub fn from_weights(weights: &MlpWeights) -> Result<Mlp<G>, String> {
        let set = weights.validate::<G>()?;
        if weights.activation != Activation::Sigmoid {
            return Err(format!(
                "a network of {} units: the reference network's are sigmoid",
                weights.activation.name()
            ));
        }
        if weights.hidden2() > 0 {
            return Err(format!(
                "a network with a second hidden layer ({} units): the reference network \
                 has one",
                weights.hidden2()
            ));
        }
        let inputs = input_set::<G>(set).inputs;
        let w1 = Array2::from_shape_vec((weights.hidden, inputs), weights.w1.clone())
            .map_err(|e| format!("w1: {e}"))?;
        let w2 = Array2::from_shape_vec((weights.phases, weights.hidden), weights.w2.clone())
            .map_err(|e| format!("w2: {e}"))?;
        Ok(Mlp {
            set,
            w1,
            b1: Array1::from_vec(weights.b1.clone()),
            w2,
            b2: Array1::from_vec(weights.b2.clone()),
            game: PhantomData,
        })
    }

    /// The fast evaluator of this network (a snapshot).
    pub fn evaluator(&self) -> TdEvaluator<G> {
        TdEvaluator::from_weights(&self.weights()).expect("a trained network is valid")
    }

    /// The model-file payload of this network.
    pub fn weights(&self) -> MlpWeights {
        MlpWeights {
            features: input_set::<G>(self.set).id.to_string(),
            hidden: self.hidden(),
            phases: self.phases(),
            w1: self.w1.iter().copied().collect(),
            b1: self.b1.to_vec(),
            w2: self.w2.iter().copied().collect(),
            b2: self.b2.to_vec(),
            w_hidden2: Vec::new(),
            b_hidden2: Vec::new(),
            activation: Activation::Sigmoid,
        }
    }

    /// The game's input set ([`Inputs::INPUT_SETS`]).
    pub fn input_set(&self) -> usize {
        self.set
    }

    pub fn hidden(&self) -> usize {
        self.b1.len()
    }

    /// Number of phases: output heads.
    pub fn phases(&self) -> usize {
        self.b2.len()
    }

    /// The phase of `pos` among this network's ([`Inputs::phase`], 0 with one phase).
    pub fn phase_of(&self, pos: &G) -> usize {
        if self.phases() == 1 {
            0
        } else {
            pos.phase(self.phases()).min(self.phases() - 1)
        }
    }

    /// First-layer weights, `hidden × inputs` (row j: the weights into hidden unit j).
    pub fn w1(&self) -> &Array2<f32> {
        &self.w1
    }

    pub fn b1(&self) -> &Array1<f32> {
        &self.b1
    }

    /// Output weights, `phases × hidden` (row φ: phase φ's head).
    pub fn w2(&self) -> &Array2<f32> {
        &self.w2
    }

    /// Output biases, one per phase.
    pub fn b2(&self) -> &Array1<f32> {
        &self.b2
    }

    /// Hidden activations and the logit of head `phase` for the dense input `x`.
    fn forward(&self, x: &Array1<f32>, phase: usize) -> (Array1<f32>, f32) {
        let h = (self.w1.dot(x) + &self.b1).mapv_into(sigmoid);
        let z = self.w2.row(phase).dot(&h) + self.b2[phase];
        (h, z)
    }

    /// The logit `w2[φ]·h + b2[φ]` of the output of `pos`'s phase φ (so
    /// `output = σ(logit)`).
    pub fn logit(&self, pos: &G) -> f32 {
        self.forward(&encode(pos, self.set), self.phase_of(pos)).1
    }

    /// The expected result for the side to move in `pos`: 1 win, ½ draw, 0 loss.
    pub fn output(&self, pos: &G) -> f32 {
        sigmoid(self.logit(pos))
    }

    /// The output and its gradient with respect to every weight, by backpropagation:
    /// with `x` the input, φ its phase, `h = σ(W1 x + b1)`, `p = σ(w2[φ]·h + b2[φ])` and
    /// `d = p(1 − p)`: `∂p/∂b2[φ] = d`, `∂p/∂w2[φ]_j = d h_j`,
    /// `∂p/∂b1_j = d w2[φ]_j h_j (1 − h_j)` and `∂p/∂W1_ji = ∂p/∂b1_j · x_i`; the other
    /// heads' gradients are 0.
    pub fn gradient(&self, pos: &G) -> (f32, MlpGradient) {
        let x = encode(pos, self.set);
        let phase = self.phase_of(pos);
        let (h, z) = self.forward(&x, phase);
        let p = sigmoid(z);
        let d = p * (1.0 - p);
        let mut g = MlpGradient::zeros(self.hidden(), x.len(), self.phases());
        g.b2[phase] = d;
        g.w2.row_mut(phase).assign(&(&h * d));
        g.b1 = Zip::from(&h)
            .and(self.w2.row(phase))
            .map_collect(|&h, &w| d * w * h * (1.0 - h));
        // x is 0/1: the outer product `b1-gradient ⊗ x` is that column at each active
        // input and zero elsewhere.
        pos.for_each_input(self.set, |i| g.w1.column_mut(i).assign(&g.b1));
        (p, g)
    }

    /// `w ← w + scale · g`, every weight in place. Panics if `g` is for another hidden
    /// size.
    pub fn add_scaled(&mut self, g: &MlpGradient, scale: f32) {
        assert_eq!(
            self.hidden(),
            g.hidden(),
            "gradient for another network size"
        );
        self.w1.scaled_add(scale, &g.w1);
        self.b1.scaled_add(scale, &g.b1);
        self.w2.scaled_add(scale, &g.w2);
        self.b2.scaled_add(scale, &g.b2);
    }

    /// The prediction of the game result from the first player's point of view: the
    /// output if the first player is to move in `pos`, else 1 − output.
    pub fn first_view(&self, pos: &G) -> f32 {
        let p = self.output(pos);
        if pos.side_to_move() == Side::First {
            p
        } else {
            1.0 - p
        }
    }

    /// [`Mlp::first_view`] and its gradient (the output's gradient, negated when the
    /// second player is to move).
    pub fn first_view_gradient(&self, pos: &G) -> (f32, MlpGradient) {
        let (p, mut g) = self.gradient(pos);
        if pos.side_to_move() == Side::First {
            (p, g)
        } else {
            g.scale(-1.0);
            (1.0 - p, g)
        }
    }
}

/// Mean squared error of the network's predictions of game results: `samples` are
/// (position, result for the first player: 1 / ½ / 0) pairs, predicted by
/// [`Mlp::first_view`]. 0 for no samples. For monitoring training (e.g. on held-out
/// games).
pub fn loss<G: Inputs>(mlp: &Mlp<G>, samples: &[(G, f32)]) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .iter()
        .map(|(pos, target)| f64::from(mlp.first_view(pos) - target).powi(2))
        .sum();
    (sum / samples.len() as f64) as f32
}
