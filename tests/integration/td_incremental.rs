//! The TD network inside search: the integer network against the float one it is built
//! from, and the first-layer sums kept along the search path against sums from scratch,
//! for both games.

use std::path::Path;

use evalearn::eval::Evaluator;
use evalearn::eval::td::{Activation, Inputs, MlpWeights, TdEvaluator};
use evalearn::game::Game;
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::encoding::BOARD_PAIRS;
use evalearn::games::kalah::Kalah;
use evalearn::learn::td::{Mlp, TdSettings, TdState};
use evalearn::search::bench::Bench;
use evalearn::search::{Limits, MAX_PLY, SearchConfig, Searcher};
use rand::RngExt;

pub(crate) fn shipped_weights(name: &str) -> MlpWeights {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    evalearn::eval::td::load_weights(&path, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .1
}

/// A random network with weights 8 times the training start's (values spread widely).
fn random_weights<G: Inputs>(hidden: usize, seed: u64) -> MlpWeights {
    random_phased_weights::<G>(hidden, 1, seed)
}

/// [`random_weights`] with `phases` output heads, each drawn apart (heads of a fresh
/// network start equal) and with its own bias.
fn random_phased_weights<G: Inputs>(hidden: usize, phases: usize, seed: u64) -> MlpWeights {
    random_weights_over::<G>(0, hidden, phases, seed)
}

/// [`random_phased_weights`] over the game's input set `set`.
fn random_weights_over<G: Inputs>(
    set: usize,
    hidden: usize,
    phases: usize,
    seed: u64,
) -> MlpWeights {
    let mut w = Mlp::<G>::new_random_over(set, hidden, phases, seed).weights();
    for phase in 1..phases {
        let other = Mlp::<G>::new_random_over(set, hidden, 1, seed + 1000 * phase as u64).weights();
        w.w2[phase * hidden..(phase + 1) * hidden].copy_from_slice(&other.w2);
    }
    for v in w.w1.iter_mut().chain(&mut w.w2) {
        *v *= 8.0;
    }
    for (phase, b) in w.b2.iter_mut().enumerate() {
        *b = 0.3 - 0.4 * phase as f32;
    }
    w
}

/// A random network with a second hidden layer of `hidden2` units over game `G`'s input
/// set `set`, its weights spread as [`random_weights_over`]'s, each head drawn apart.
fn random_two_layer_weights<G: Inputs>(
    set: usize,
    hidden: usize,
    hidden2: usize,
    phases: usize,
    seed: u64,
) -> MlpWeights {
    let settings = TdSettings {
        hidden,
        hidden2,
        phases,
        ..TdSettings::default()
    };
    let mut w = TdState::new::<G>(set, &settings, seed).weights;
    let mut rng = evalearn::rng::stream(seed, 1);
    for v in w.w1.iter_mut() {
        *v *= 8.0;
    }
    for v in w.w_hidden2.iter_mut().chain(&mut w.b_hidden2) {
        *v = rng.random_range(-2.0..2.0);
    }
    for v in w.w2.iter_mut() {
        *v = rng.random_range(-3.0..3.0);
    }
    for (phase, b) in w.b2.iter_mut().enumerate() {
        *b = 0.3 - 0.4 * phase as f32;
    }
    w
}

/// For the plain computations: the number of inputs of `weights`' input set, those of
/// them active in `pos`, and `pos`'s phase among the network's heads.
fn plain_inputs<G: Inputs>(weights: &MlpWeights, pos: &G) -> (usize, Vec<usize>, usize) {
    let set = weights.validate::<G>().unwrap();
    let phase = if weights.phases == 1 {
        0
    } else {
        pos.phase(weights.phases)
    };
    (
        G::INPUT_SETS[set].inputs,
        evalearn::eval::td::active_inputs(pos, set),
        phase,
    )
}

/// The float network's output logit, computed the plain way (both hidden layers, the
/// network's activation).
fn float_logit<G: Inputs>(weights: &MlpWeights, pos: &G) -> f64 {
    let (inputs, active, phase) = plain_inputs(weights, pos);
    let clipped = weights.activation == Activation::ClippedRelu;
    let activation = |x: f64| match clipped {
        true => x.clamp(0.0, 1.0),
        false => 1.0 / (1.0 + (-x).exp()),
    };
    let mut h: Vec<f64> = (0..weights.hidden)
        .map(|j| {
            let row = &weights.w1[j * inputs..(j + 1) * inputs];
            activation(
                f64::from(weights.b1[j]) + active.iter().map(|&i| f64::from(row[i])).sum::<f64>(),
            )
        })
        .collect();
    if weights.hidden2() > 0 {
        h = (0..weights.hidden2())
            .map(|k| {
                let row = &weights.w_hidden2[k * weights.hidden..(k + 1) * weights.hidden];
                let sum: f64 = row.iter().zip(&h).map(|(&w, &h)| f64::from(w) * h).sum();
                activation(f64::from(weights.b_hidden2[k]) + sum)
            })
            .collect();
    }
    let head = weights.head(phase);
    f64::from(weights.b2[phase])
        + head
            .iter()
            .zip(&h)
            .map(|(&w, &h)| f64::from(w) * h)
            .sum::<f64>()
}

/// Every position of `games` random-play games from the start.
fn random_positions<G: Game>(seed: u64, games: u64) -> Vec<G> {
    let mut out = Vec::new();
    let mut moves = G::Moves::default();
    for game in 0..games {
        let mut rng = evalearn::rng::stream(seed, game);
        let mut pos = G::start();
        for _ in 0..200 {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            out.push(pos);
            pos = pos.play(moves[rng.random_range(0..moves.len())]);
        }
    }
    out
}

/// The evaluator without its incremental state: the search evaluates from scratch.
struct FromScratch<E>(E);

impl<G: Game, E: Evaluator<G>> Evaluator<G> for FromScratch<E> {
    fn evaluate(&self, pos: &G) -> i32 {
        self.0.evaluate(pos)
    }
    fn name(&self) -> String {
        self.0.name()
    }
}

/// A random walk through the game tree as a search makes one (down by a random move,
/// back up by a random number of plies), evaluating about every other position entered:
/// the incremental value equals the from-scratch one at every step.
fn walk_agrees<G: Inputs>(evaluator: &TdEvaluator<G>, seed: u64, steps: usize) {
    let checked = walk_agrees_with(evaluator, evaluator, seed, steps, "");
    assert!(checked > steps / 4, "{checked} evaluations");
}

/// The walk of [`walk_agrees`] with `evaluator`'s incremental values checked against
/// `reference`'s from-scratch ones (`label` names the pair in a failure); returns how
/// many positions it checked.
pub(crate) fn walk_agrees_with<G: Inputs>(
    evaluator: &TdEvaluator<G>,
    reference: &TdEvaluator<G>,
    seed: u64,
    steps: usize,
    label: &str,
) -> usize {
    let mut state = evaluator.incremental(MAX_PLY).expect("td keeps sums");
    let mut rng = evalearn::rng::stream(seed, 0);
    let mut moves = G::Moves::default();
    let mut path = vec![G::start()];
    state.enter(&path[0], 0);
    let mut checked = 0;
    for _ in 0..steps {
        let pos = *path.last().unwrap();
        pos.legal_moves(&mut moves);
        if moves.is_empty() || path.len() >= 60 || rng.random_range(0..4) == 0 {
            let back = rng.random_range(0..path.len());
            path.truncate(path.len() - back);
            if back > 0 && path.len() > 1 {
                // Re-enter a sibling of the position backed up to.
                path.pop();
            }
            continue;
        }
        let child = pos.play(moves[rng.random_range(0..moves.len())]);
        path.push(child);
        state.enter(&child, path.len() - 1);
        if rng.random_range(0..2) == 0 {
            let ply = path.len() - 1;
            assert_eq!(
                state.evaluate(&child, ply),
                reference.evaluate(&child),
                "{label} {} at ply {ply}",
                child.format_position()
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn incremental_sums_equal_sums_from_scratch_along_random_walks() {
    for seed in 0..3 {
        let draughts =
            TdEvaluator::<Brazilian>::from_weights(&random_weights::<Brazilian>(48, seed)).unwrap();
        walk_agrees(&draughts, seed, 20_000);
        let kalah = TdEvaluator::<Kalah>::from_weights(&random_weights::<Kalah>(48, seed)).unwrap();
        walk_agrees(&kalah, seed, 20_000);
    }
    for (seed, phases) in [(3, 2), (4, 4), (5, 8)] {
        let draughts = random_phased_weights::<Brazilian>(48, phases, seed);
        walk_agrees(
            &TdEvaluator::<Brazilian>::from_weights(&draughts).unwrap(),
            seed,
            20_000,
        );
        let kalah = random_phased_weights::<Kalah>(48, phases, seed);
        walk_agrees(
            &TdEvaluator::<Kalah>::from_weights(&kalah).unwrap(),
            seed,
            20_000,
        );
    }
    for (seed, phases) in [(6, 1), (7, 4)] {
        let pairs = random_weights_over::<Brazilian>(BOARD_PAIRS, 48, phases, seed);
        walk_agrees(
            &TdEvaluator::<Brazilian>::from_weights(&pairs).unwrap(),
            seed,
            20_000,
        );
    }
    for (seed, hidden2, phases) in [(8, 32, 1), (9, 8, 3)] {
        let two = random_two_layer_weights::<Brazilian>(BOARD_PAIRS, 48, hidden2, phases, seed);
        walk_agrees(
            &TdEvaluator::<Brazilian>::from_weights(&two).unwrap(),
            seed,
            20_000,
        );
    }
    let shipped =
        TdEvaluator::<Brazilian>::from_weights(&shipped_weights("models/td.bin")).unwrap();
    walk_agrees(&shipped, 7, 20_000);
    let shipped =
        TdEvaluator::<Kalah>::from_weights(&shipped_weights("models/kalah-td.bin")).unwrap();
    walk_agrees(&shipped, 7, 20_000);
}

/// Searches with the sums kept along the path give the same result, node for node, as
/// searches evaluating every leaf from scratch.
fn searches_agree<G: Inputs + Bench>(evaluator: &TdEvaluator<G>, depth: u32) {
    let mut incremental = Searcher::new(evaluator.clone(), SearchConfig::FULL, 4);
    let mut scratch = Searcher::new(FromScratch(evaluator.clone()), SearchConfig::FULL, 4);
    for text in G::BENCH_POSITIONS {
        let pos = G::parse_position(text).unwrap();
        let a = incremental.search_position(&pos, &Limits::depth(depth));
        let b = scratch.search_position(&pos, &Limits::depth(depth));
        assert_eq!(
            (a.score, a.best_move, &a.pv, a.nodes),
            (b.score, b.best_move, &b.pv, b.nodes),
            "{text}"
        );
    }
}

#[test]
fn searches_with_incremental_sums_equal_searches_from_scratch() {
    let draughts = shipped_weights("models/td.bin");
    searches_agree(
        &TdEvaluator::<Brazilian>::from_weights(&draughts).unwrap(),
        6,
    );
    let kalah = shipped_weights("models/kalah-td.bin");
    searches_agree(&TdEvaluator::<Kalah>::from_weights(&kalah).unwrap(), 7);
    let draughts = random_phased_weights::<Brazilian>(48, 4, 9);
    searches_agree(
        &TdEvaluator::<Brazilian>::from_weights(&draughts).unwrap(),
        6,
    );
    let kalah = random_phased_weights::<Kalah>(48, 4, 9);
    searches_agree(&TdEvaluator::<Kalah>::from_weights(&kalah).unwrap(), 7);
    let pairs = random_weights_over::<Brazilian>(BOARD_PAIRS, 48, 1, 9);
    searches_agree(&TdEvaluator::<Brazilian>::from_weights(&pairs).unwrap(), 6);
    let two = random_two_layer_weights::<Brazilian>(BOARD_PAIRS, 48, 32, 1, 9);
    searches_agree(&TdEvaluator::<Brazilian>::from_weights(&two).unwrap(), 6);
}

/// [`deviation`] of a sigmoid network, its first layer's scale told on the way.
fn sigmoid_deviation<G: Inputs>(weights: &MlpWeights, positions: &[G]) -> (f64, f64) {
    let q1 = 1
        << TdEvaluator::<G>::from_weights(weights)
            .unwrap()
            .sigmoid_net()
            .unwrap()
            .shift1();
    eprintln!("{} hidden units, Q1 = {q1}", weights.hidden);
    deviation(weights, positions)
}

/// The integer network's value against the float network's `100 · logit` (unrounded):
/// (largest, mean) absolute difference over the positions.
pub(crate) fn deviation<G: Inputs>(weights: &MlpWeights, positions: &[G]) -> (f64, f64) {
    let integer = TdEvaluator::<G>::from_weights(weights).unwrap();
    let (mut largest, mut total) = (0.0f64, 0.0f64);
    for pos in positions {
        let exact = 100.0 * float_logit(weights, pos);
        let d = (f64::from(integer.evaluate(pos)) - exact.clamp(-20_000.0, 20_000.0)).abs();
        largest = largest.max(d);
        total += d;
    }
    (largest, total / positions.len() as f64)
}

#[test]
fn integer_network_stays_within_a_few_centi_units_of_the_float_network() {
    let draughts = random_positions::<Brazilian>(3, 450);
    let kalah = random_positions::<Kalah>(3, 600);
    eprintln!(
        "{} draughts, {} Kalah positions",
        draughts.len(),
        kalah.len()
    );
    assert!(draughts.len() > 15_000 && kalah.len() > 15_000);
    for (name, (largest, mean), (max_bound, mean_bound)) in [
        (
            "models/td.bin",
            sigmoid_deviation(&shipped_weights("models/td.bin"), &draughts),
            // The 80,000-game network's weights are larger than the 40,000-game one's
            // (largest 1.91, mean 0.40): 2.83, mean 0.60; the 160,000-game one: 2.54,
            // mean 0.42.
            (3.0, 0.8),
        ),
        (
            "models/kalah-td.bin",
            sigmoid_deviation(&shipped_weights("models/kalah-td.bin"), &kalah),
            // Its output layer is 8 times the network's (margin_scale 8: the evaluation
            // counts stones of expected margin), so the first layer's rounding shows 8
            // times larger in centi-units: 12.8 at most, mean 3.5 (2026-11-26), against
            // 3.0 and 0.6 scaled by 8.
            (24.0, 4.8),
        ),
        (
            "random draughts network ×8",
            sigmoid_deviation(&random_weights::<Brazilian>(128, 5), &draughts),
            (6.0, 1.5),
        ),
        (
            "random draughts network ×8, 4 phases",
            sigmoid_deviation(&random_phased_weights::<Brazilian>(48, 4, 6), &draughts),
            (6.0, 1.5),
        ),
        (
            "random Kalah network ×8, 3 phases",
            sigmoid_deviation(&random_phased_weights::<Kalah>(48, 3, 6), &kalah),
            (6.0, 1.5),
        ),
        (
            "models/td-two-layer.bin",
            sigmoid_deviation(&shipped_weights("models/td-two-layer.bin"), &draughts),
            // 4.4 at most, mean 0.5 (2026-11-29).
            (6.0, 1.0),
        ),
        (
            "models/td-wide.bin",
            sigmoid_deviation(&shipped_weights("models/td-wide.bin"), &draughts),
            // 3.3 at most, mean 0.5 (2026-11-29).
            (6.0, 1.0),
        ),
        // Heads of ±3 per unit over 32 units make values of several thousand: the first
        // layer's rounding passes through the second layer's slopes to 10.2 at most, mean
        // 1.3 (2026-11-29, the second layer in integers; 9.2 and 1.3 with it in f32).
        (
            "random pairs network with a second hidden layer of 32",
            sigmoid_deviation(
                &random_two_layer_weights::<Brazilian>(BOARD_PAIRS, 48, 32, 1, 6),
                &draughts,
            ),
            (12.0, 2.0),
        ),
        (
            "random Kalah network with a second hidden layer of 16, 3 phases",
            sigmoid_deviation(&random_two_layer_weights::<Kalah>(0, 48, 16, 3, 6), &kalah),
            (12.0, 2.0),
        ),
    ] {
        eprintln!("{name}: largest deviation {largest:.2}, mean {mean:.3} centi-units");
        assert!(
            largest <= max_bound && mean <= mean_bound,
            "{name}: {largest} {mean}"
        );
    }
}

/// The integer network's value written the plain way, from the scales its module
/// documents: each hidden sum the rounded weights of the active inputs added one by one,
/// the activation `round(σ(clamp(s, ±12·Q1) / Q1) · 2^15)` computed, the output
/// `b2 + Σ w2·h` in `i64`; the second hidden layer (if any) as its comment says. Nothing
/// shared with the evaluator but `sigmoid` and the scales.
fn plain_integer_value<G: Inputs>(
    weights: &MlpWeights,
    (shift1, shift2): (u32, u32),
    pos: &G,
) -> i32 {
    use evalearn::eval::td::quantised::{H_BITS, Q2, SPAN2, W2_BITS};
    let q1 = (1u32 << shift1) as f32;
    let span = 12i32 << shift1;
    let quantise = |w: f32| i32::from((w * q1).round() as i16);
    let (inputs, active, phase) = plain_inputs(weights, pos);
    let w2_scale = evalearn::eval::td::CENTI_PER_LOGIT * (1u32 << W2_BITS) as f32;
    let b2_scale = 100.0 * f64::from(1u32 << (H_BITS + W2_BITS));
    let h: Vec<u16> = (0..weights.hidden)
        .map(|j| {
            let row = &weights.w1[j * inputs..(j + 1) * inputs];
            let sum =
                quantise(weights.b1[j]) + active.iter().map(|&i| quantise(row[i])).sum::<i32>();
            let clamped = sum.clamp(-span, span) as f32 / q1;
            (evalearn::eval::td::sigmoid(clamped) * (1u32 << H_BITS) as f32).round() as u16
        })
        .collect();
    // The second hidden layer: integer sums of the weights times Q3 = 2^shift2 and the
    // activations capped at 32,767, the bias times Q3 · 2^15, taken to the grid of 1/Q2
    // within ±SPAN2 by rounding half up (in i64, which cannot overflow), then its table's
    // value.
    let q3 = (1u32 << shift2) as f32;
    let h2: Vec<u16> = (0..weights.hidden2())
        .map(|k| {
            let row = &weights.w_hidden2[k * weights.hidden..(k + 1) * weights.hidden];
            let bias = f64::from(weights.b_hidden2[k]) * f64::from(1u32 << (shift2 + H_BITS));
            let mut a = bias.round() as i64;
            for (&w, &h) in row.iter().zip(&h) {
                a += i64::from((w * q3).round() as i16) * i64::from(h.min(32_767));
            }
            let unit = 1i64 << (shift2 + H_BITS);
            let grid = (a * Q2 as i64 + unit / 2).div_euclid(unit) + (SPAN2 * Q2) as i64;
            let i = grid.clamp(0, (2 * SPAN2 * Q2) as i64);
            let x = i as f32 / Q2 as f32 - SPAN2 as f32;
            (evalearn::eval::td::sigmoid(x) * (1u32 << H_BITS) as f32).round() as u16
        })
        .collect();
    let last = if h2.is_empty() { &h } else { &h2 };
    let mut total = (f64::from(weights.b2[phase]) * b2_scale).round() as i64;
    for (&w2, &h) in weights.head(phase).iter().zip(last) {
        total += i64::from((w2 * w2_scale).round() as i32) * i64::from(h);
    }
    let shift = H_BITS + W2_BITS;
    let centi = (total + (1 << (shift - 1))) >> shift;
    let limit = i64::from(evalearn::eval::EVAL_LIMIT);
    centi.clamp(-limit, limit) as i32
}

fn equals_plain_value<G: Inputs>(name: &str, weights: &MlpWeights, positions: &[G]) {
    let evaluator = TdEvaluator::<G>::from_weights(weights).unwrap();
    let shifts = (
        evaluator.sigmoid_net().unwrap().shift1(),
        evaluator.sigmoid_net().unwrap().shift2(),
    );
    for pos in positions {
        assert_eq!(
            evaluator.evaluate(pos),
            plain_integer_value(weights, shifts, pos),
            "{name}: {}",
            pos.format_position()
        );
    }
}

/// The fast evaluator (sums by blocks of 16 held in vector registers, the activation
/// table indexed by the sum's bits) equals the plain integer computation bit for bit:
/// every hidden size's block count (1 to 8), shipped and random networks whose sums
/// reach the table's clamped ends, one and several output heads, and networks with a
/// second hidden layer of every block count.
#[test]
fn fast_integer_network_equals_the_plain_integer_computation() {
    let draughts = random_positions::<Brazilian>(11, 40);
    let kalah = random_positions::<Kalah>(11, 60);
    assert!(draughts.len() > 1_500 && kalah.len() > 1_500);
    equals_plain_value(
        "models/td.bin",
        &shipped_weights("models/td.bin"),
        &draughts,
    );
    equals_plain_value(
        "models/kalah-td.bin",
        &shipped_weights("models/kalah-td.bin"),
        &kalah,
    );
    for (seed, hidden) in [1, 16, 17, 40, 64, 80, 100, 128].into_iter().enumerate() {
        let seed = seed as u64;
        let name = format!("{hidden} hidden units");
        equals_plain_value(&name, &random_weights::<Brazilian>(hidden, seed), &draughts);
        equals_plain_value(&name, &random_weights::<Kalah>(hidden, seed), &kalah);
    }
    let phased = random_phased_weights::<Brazilian>(100, 4, 3);
    equals_plain_value("100 hidden units, 4 phases", &phased, &draughts);
    let phased = random_phased_weights::<Kalah>(33, 3, 3);
    equals_plain_value("33 hidden units, 3 phases", &phased, &kalah);
    for (seed, hidden) in [(4, 48), (5, 128)] {
        let pairs = random_weights_over::<Brazilian>(BOARD_PAIRS, hidden, 1, seed);
        equals_plain_value(&format!("pairs, {hidden} hidden units"), &pairs, &draughts);
    }
    // A second hidden layer: every block count of its units (1 to 8), several heads.
    for (seed, hidden2) in [1, 16, 17, 32, 40, 64, 100, 128].into_iter().enumerate() {
        let seed = seed as u64;
        let name = format!("a second hidden layer of {hidden2}");
        let two = random_two_layer_weights::<Brazilian>(BOARD_PAIRS, 48, hidden2, 1, seed);
        equals_plain_value(&name, &two, &draughts);
        let two = random_two_layer_weights::<Kalah>(0, 20, hidden2, 3, seed);
        equals_plain_value(&format!("{name}, 3 phases"), &two, &kalah);
    }
}

/// Second-layer weights too large for `Q3 = 2^12` get a smaller scale (the value still
/// the plain computation's), and ones no `i32` sum can hold are refused with a message.
#[test]
fn large_second_layer_weights_get_a_smaller_scale_or_a_message() {
    let draughts = random_positions::<Brazilian>(12, 4);
    let mut two = random_two_layer_weights::<Brazilian>(BOARD_PAIRS, 48, 32, 1, 9);
    let base = TdEvaluator::<Brazilian>::from_weights(&two)
        .unwrap()
        .sigmoid_net()
        .unwrap()
        .shift2();
    for v in two.w_hidden2.iter_mut() {
        *v *= 40.0;
    }
    let evaluator = TdEvaluator::<Brazilian>::from_weights(&two).unwrap();
    assert!(
        evaluator.sigmoid_net().unwrap().shift2() + 5 <= base,
        "{base}"
    );
    equals_plain_value("second-layer weights × 40", &two, &draughts);
    two.w_hidden2[7] = 1.0e6;
    let error = TdEvaluator::<Brazilian>::from_weights(&two).unwrap_err();
    assert!(error.contains("second-layer weights too large"), "{error}");
}

/// [`walk_agrees`] for every block count of hidden units (1 to 8).
#[test]
fn incremental_sums_equal_sums_from_scratch_for_every_block_count() {
    for (seed, hidden) in [1, 20, 48, 50, 77, 96, 112, 128].into_iter().enumerate() {
        let seed = 20 + seed as u64;
        let draughts = random_weights::<Brazilian>(hidden, seed);
        walk_agrees(
            &TdEvaluator::<Brazilian>::from_weights(&draughts).unwrap(),
            seed,
            4_000,
        );
        let kalah = random_weights::<Kalah>(hidden, seed);
        walk_agrees(
            &TdEvaluator::<Kalah>::from_weights(&kalah).unwrap(),
            seed,
            4_000,
        );
    }
}
