use super::*;
use crate::eval::td::sigmoid;
use crate::eval::td::{active_inputs, centi_units, exp};
use crate::eval::{EVAL_LIMIT, Evaluator};
use crate::game::Game;
use crate::game::Side;
use crate::games::brazilian::Brazilian;
use crate::games::brazilian::encoding::SIDE_INPUT;
use ndarray::Array1;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

const INPUTS: usize = <Brazilian as Inputs>::INPUT_SETS[0].inputs;
use crate::game::MoveList;

fn pos(fen: &str) -> Brazilian {
    Brazilian::parse_position(fen).unwrap()
}

/// Positions from seeded random play, every position of `games` games.
fn random_positions(seed: u64, games: u64) -> Vec<Brazilian> {
    let mut out = Vec::new();
    let mut moves = MoveList::new();
    for game in 0..games {
        let mut rng = crate::rng::stream(seed, game);
        let mut p = Brazilian::start();
        for _ in 0..150 {
            p.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            out.push(p);
            p = p.play(moves[rng.random_range(0..moves.len())]);
        }
    }
    out
}

#[test]
fn inputs_are_the_relative_board_and_the_side() {
    // White man on 21, Black man on 12; Black to move sees the same board turned.
    assert_eq!(
        active_inputs(&pos("W:W21:B12"), 0),
        vec![20, 64 + 11, SIDE_INPUT]
    );
    assert_eq!(active_inputs(&pos("B:W21:B12"), 0), vec![20, 64 + 11]);
    assert_eq!(
        active_inputs(&pos("W:WK1:BK32"), 0),
        vec![32, 96 + 31, SIDE_INPUT]
    );
    let start = active_inputs(&Brazilian::start(), 0);
    assert_eq!(start.len(), 25);
    let x = encode(&Brazilian::start(), 0);
    assert_eq!(x.sum(), 25.0);
    assert!(start.iter().all(|&i| x[i] == 1.0));
}

/// Every weight in payload order: `W1` row-major, `b1`, `w2` (heads in order), `b2`.
fn flat(w: &MlpWeights) -> Vec<f64> {
    let all = w.w1.iter().chain(&w.b1).chain(&w.w2).chain(&w.b2);
    all.map(|&v| f64::from(v)).collect()
}

fn flat_gradient(g: &MlpGradient) -> Vec<f64> {
    let all = g.w1.iter().chain(&g.b1).chain(&g.w2).chain(&g.b2);
    all.map(|&v| f64::from(v)).collect()
}

/// The output of head `phase` in f64 from flat weights of a network with `phases`
/// heads and a dense input.
fn output_f64(w: &[f64], hidden: usize, phases: usize, phase: usize, x: &Array1<f32>) -> f64 {
    let sig = |a: f64| 1.0 / (1.0 + (-a).exp());
    let (b1, w2) = (hidden * INPUTS, hidden * INPUTS + hidden);
    let head = w2 + phase * hidden;
    let mut z = w[w2 + phases * hidden + phase];
    for j in 0..hidden {
        let mut a = w[b1 + j];
        for i in 0..INPUTS {
            a += w[j * INPUTS + i] * f64::from(x[i]);
        }
        z += w[head + j] * sig(a);
    }
    sig(z)
}

/// Central differences in f64 on every weight of a small network, with one output
/// and with 3 phases' heads (the other heads' gradients are 0).
#[test]
fn gradient_matches_finite_differences() {
    const H: usize = 4;
    for phases in [1, 3] {
        // Larger weights than the initial ones, so every term of the gradient matters.
        let mut w = Mlp::<Brazilian>::new_random_phased(H, phases, 7).weights();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        for v in w.w1.iter_mut().chain(&mut w.b1).chain(&mut w.w2) {
            *v = rng.random_range(-1.0..1.0);
        }
        for (phase, b) in w.b2.iter_mut().enumerate() {
            *b = 0.3 - 0.2 * phase as f32;
        }
        let mlp = Mlp::<Brazilian>::from_weights(&w).unwrap();
        let base = flat(&w);
        let positions = [
            Brazilian::start(),
            pos("B:W21,22,K30:B1,K2,9"),
            pos("W:W13,14,21,K6:B5,K29,18"),
            pos("W:W21,22,23,25,26,27:B1,2,3,5,9,11"),
        ];
        let mut seen = std::collections::BTreeSet::new();
        let step = 1e-4;
        for p in positions {
            let phase = mlp.phase_of(&p);
            seen.insert(phase);
            let (out, g) = mlp.gradient(&p);
            assert_eq!(out, mlp.output(&p));
            let x = encode(&p, 0);
            let f = |w: &[f64]| output_f64(w, H, phases, phase, &x);
            assert!((f(&base) - f64::from(out)).abs() < 1e-6);
            let analytic = flat_gradient(&g);
            assert_eq!(analytic.len(), base.len());
            for (k, &a) in analytic.iter().enumerate() {
                let mut plus = base.clone();
                plus[k] += step;
                let mut minus = base.clone();
                minus[k] -= step;
                let numeric = (f(&plus) - f(&minus)) / (2.0 * step);
                assert!(
                    (a - numeric).abs() <= 1e-4 * numeric.abs() + 1e-7,
                    "{phases} phases, weight {k}: analytic {a}, numeric {numeric}"
                );
            }
        }
        assert_eq!(seen.len(), phases, "the positions cover every phase");
    }
}

#[test]
fn draughts_phases_bucket_the_pieces_on_the_board() {
    use crate::eval::td::phase_bucket;
    let start = Brazilian::start();
    assert_eq!(start.phase(1), 0);
    assert_eq!(start.phase(2), 1);
    assert_eq!(start.phase(4), 3);
    let ending = pos("W:WK1:BK32");
    assert_eq!(ending.phase(4), 0);
    // 4 phases: 0–6, 7–12, 13–18, 19–24 pieces.
    let expect4 = |n: u32| match n {
        0..=6 => 0,
        7..=12 => 1,
        13..=18 => 2,
        _ => 3,
    };
    for n in 0..=24 {
        assert_eq!(phase_bucket(n, 24, 4), expect4(n), "{n} pieces");
        assert_eq!(phase_bucket(n, 24, 1), 0);
        for phases in 1..=crate::eval::td::MAX_PHASES {
            assert!(phase_bucket(n, 24, phases) < phases);
        }
    }
    assert_eq!(
        phase_bucket(25, 24, 4),
        3,
        "past the maximum: the last phase"
    );
    assert_eq!(phase_bucket(0, 24, 0), 0);
    // The same board with either side to move is in the same phase.
    for p in random_positions(4, 5) {
        let turned = p.with_side_to_move(p.side_to_move().opponent());
        for phases in 1..=crate::eval::td::MAX_PHASES {
            assert_eq!(p.phase(phases), turned.phase(phases));
            assert!(p.phase(phases) < phases);
        }
    }
}

/// A phased network's integer form against its float form, with every head in use.
#[test]
fn fast_evaluator_equals_the_forward_pass_with_phases() {
    let positions = random_positions(12, 30);
    let mut w = Mlp::<Brazilian>::new_random_phased(DEFAULT_HIDDEN, 4, 5).weights();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
    for v in w.w2.iter_mut() {
        *v = rng.random_range(-2.0..2.0);
    }
    w.b2 = vec![0.5, -0.25, 0.1, 0.0];
    let mlp = Mlp::<Brazilian>::from_weights(&w).unwrap();
    let fast = mlp.evaluator();
    assert_eq!(fast.phases(), 4);
    let mut seen = [0; 4];
    for p in &positions {
        seen[mlp.phase_of(p)] += 1;
        // Output weights of ±2 over 48 units: the first layer's rounding moves the
        // value by a few centi-units.
        let expected = 100.0 * f64::from(mlp.logit(p));
        let value = fast.evaluate(p);
        assert!(
            (f64::from(value) - expected).abs() <= 4.0,
            "{value} vs {expected}"
        );
        // The head of the position's phase, and no other, gives the value.
        let mut one = w.clone();
        one.phases = 1;
        let phase = mlp.phase_of(p);
        one.w2 = w.head(phase).to_vec();
        one.b2 = vec![w.b2[phase]];
        assert_eq!(
            TdEvaluator::<Brazilian>::from_weights(&one)
                .unwrap()
                .evaluate(p),
            value
        );
    }
    assert!(seen.iter().all(|&n| n > 50), "{seen:?}");
}

/// A TD episode over positions of one phase leaves the other heads as they were.
#[test]
fn episodes_train_only_their_phases_heads() {
    let mut mlp = Mlp::<Brazilian>::new_random_phased(8, 4, 2);
    let before = mlp.clone();
    let leaves = [
        Brazilian::start(),
        pos("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"),
    ];
    assert!(leaves.iter().all(|p| mlp.phase_of(p) == 3));
    td_lambda_episode(&mut mlp, &leaves, 1.0, 0.7, 0.5);
    for phase in 0..3 {
        assert_eq!(mlp.w2().row(phase), before.w2().row(phase));
        assert_eq!(mlp.b2()[phase], before.b2()[phase]);
    }
    assert_ne!(mlp.w2().row(3), before.w2().row(3));
    assert_ne!(mlp.w1(), before.w1());
    // One phase draws the same initial weights as the one-output network, and a
    // phased network starts with equal heads.
    let one = Mlp::<Brazilian>::new_random(8, 2);
    assert_eq!(one, Mlp::<Brazilian>::new_random_phased(8, 1, 2));
    for phase in 0..4 {
        assert_eq!(before.w2().row(phase), one.w2().row(0));
    }
    assert_eq!(before.w1(), one.w1());
}

#[test]
fn fast_evaluator_equals_the_forward_pass() {
    let positions = random_positions(11, 40);
    assert!(positions.len() >= 1000, "{} positions", positions.len());
    for scale in [1.0f32, 8.0] {
        let mut w = Mlp::<Brazilian>::new_random(DEFAULT_HIDDEN, 5).weights();
        for v in w.w1.iter_mut().chain(&mut w.w2) {
            *v *= scale;
        }
        w.b2 = vec![0.25];
        let mlp = Mlp::<Brazilian>::from_weights(&w).unwrap();
        let fast = mlp.evaluator();
        let mut spread = 0;
        for p in &positions {
            let value = fast.evaluate(p);
            // The logit mapping of the output p, in f64; the integer network's
            // rounding moves it by a few centi-units at most.
            let out = f64::from(mlp.output(p));
            let expected = 100.0 * (out / (1.0 - out)).ln();
            assert!(
                (f64::from(value) - expected).abs() <= 2.0 * scale as f64,
                "{value} vs {expected}"
            );
            spread = spread.max(value.abs());
        }
        assert!(spread > 10, "the test network is too flat");
    }
}

#[test]
fn exp_is_accurate() {
    let mut worst = 0.0f64;
    for k in -1_000_000..=1_000_000 {
        let x = k as f32 * 8.7e-5;
        let exact = f64::from(x).exp();
        worst = worst.max((f64::from(exp(x)) - exact).abs() / exact);
    }
    assert!(worst < 3e-7, "relative error {worst}");
    assert_eq!(exp(0.0), 1.0);
    assert!(exp(-1000.0) > 0.0 && exp(-1000.0) < 1e-37);
    assert!(exp(1000.0).is_finite());
    assert!(sigmoid(-1000.0) > 0.0 && sigmoid(-1000.0) < 1e-37);
    assert_eq!(sigmoid(1000.0), 1.0);
    assert_eq!(sigmoid(0.0), 0.5);
}

#[test]
fn centi_units_clamp() {
    assert_eq!(centi_units(1.234), 123);
    assert_eq!(centi_units(-1e9), -EVAL_LIMIT);
    assert_eq!(centi_units(f32::INFINITY), EVAL_LIMIT);
    assert_eq!(centi_units(f32::NAN), 0);
}

#[test]
fn weights_round_trip_through_json() {
    let mlp = Mlp::<Brazilian>::new_random(6, 1);
    let w = mlp.weights();
    let text = serde_json::to_string(&w).unwrap();
    let back: MlpWeights = serde_json::from_str(&text).unwrap();
    assert_eq!(back, w);
    let again = Mlp::<Brazilian>::from_weights(&back).unwrap();
    assert_eq!(again, mlp);
    let p = Brazilian::start();
    assert_eq!(again.output(&p), mlp.output(&p));
}

#[test]
fn corrupt_weights_are_rejected() {
    let good = Mlp::<Brazilian>::new_random(4, 2).weights();
    assert!(good.validate::<Brazilian>().is_ok());
    let mut bad: Vec<MlpWeights> = Vec::new();
    let mut w = good.clone();
    w.w1.pop();
    bad.push(w);
    let mut w = good.clone();
    w.b1.push(0.0);
    bad.push(w);
    let mut w = good.clone();
    w.w2.clear();
    bad.push(w);
    let mut w = good.clone();
    w.hidden = 5;
    bad.push(w);
    let mut w = good.clone();
    w.hidden = 0;
    w.w1.clear();
    w.b1.clear();
    w.w2.clear();
    bad.push(w);
    let mut w = good.clone();
    w.hidden = usize::MAX;
    bad.push(w);
    let mut w = good.clone();
    w.w1[17] = f32::NAN;
    bad.push(w);
    let mut w = good.clone();
    w.w2[3] = f32::INFINITY;
    bad.push(w);
    let mut w = good.clone();
    w.b2 = vec![f32::NAN];
    bad.push(w);
    let mut w = good.clone();
    w.phases = 0;
    w.w2.clear();
    w.b2.clear();
    bad.push(w);
    let mut w = good.clone();
    w.phases = 2;
    bad.push(w);
    let mut w = good.clone();
    w.b2.push(0.0);
    bad.push(w);
    let mut w = Mlp::<Brazilian>::new_random_phased(4, 2, 2).weights();
    w.w2.pop();
    bad.push(w);
    let mut w = Mlp::<Brazilian>::new_random_phased(4, 8, 2).weights();
    w.phases = 9;
    w.w2.extend([0.0; 4]);
    w.b2.push(0.0);
    bad.push(w);
    let mut w = good.clone();
    w.phases = usize::MAX;
    bad.push(w);
    let mut w = good.clone();
    w.features = "samuel-v1".into();
    bad.push(w);
    let two = two_layer_state(8, 1, 3).weights;
    assert!(two.validate::<Brazilian>().is_ok());
    let mut w = two.clone();
    w.w_hidden2.pop();
    bad.push(w);
    let mut w = two.clone();
    w.b_hidden2.push(0.0);
    bad.push(w);
    let mut w = two.clone();
    // Heads that read the first hidden layer instead of the second.
    w.w2 = vec![0.0; 32];
    bad.push(w);
    let mut w = two.clone();
    w.w_hidden2[5] = f32::NAN;
    bad.push(w);
    let mut w = two.clone();
    w.b_hidden2 = vec![0.0; MAX_HIDDEN + 1];
    w.w_hidden2 = vec![0.0; (MAX_HIDDEN + 1) * 32];
    w.w2 = vec![0.0; MAX_HIDDEN + 1];
    bad.push(w);
    for (i, w) in bad.into_iter().enumerate() {
        assert!(w.validate::<Brazilian>().is_err(), "case {i}");
        assert!(Mlp::<Brazilian>::from_weights(&w).is_err());
        assert!(TdEvaluator::<Brazilian>::from_weights(&w).is_err());
    }
    // Valid, but not a network the one-layer reference form holds.
    assert!(Mlp::<Brazilian>::from_weights(&two).is_err());
    assert!(TdEvaluator::<Brazilian>::from_weights(&two).is_ok());
    let short_json = r#"{"features":"board-onehot-129","hidden":1,"phases":1,"w1":[],
        "b1":[0],"w2":[0],"b2":[0],"w_hidden2":[],"b_hidden2":[]}"#;
    let w: MlpWeights = serde_json::from_str(short_json).unwrap();
    assert!(Mlp::<Brazilian>::from_weights(&w).is_err());
}

/// A random network of 32 hidden units, a second hidden layer of `hidden2` and `phases`
/// heads, drawn from `seed`.
fn two_layer_state(hidden2: usize, phases: usize, seed: u64) -> TdState {
    let settings = TdSettings {
        hidden: 32,
        hidden2,
        phases,
        ..TdSettings::default()
    };
    TdState::new::<Brazilian>(0, &settings, seed)
}

/// The payload an earlier build wrote for `w`, a network without a second hidden layer.
fn v2_payload(w: &MlpWeights) -> td::MlpWeightsV2 {
    td::MlpWeightsV2 {
        features: w.features.clone(),
        hidden: w.hidden,
        phases: w.phases,
        w1: w.w1.clone(),
        b1: w.b1.clone(),
        w2: w.w2.clone(),
        b2: w.b2.clone(),
    }
}

/// Model files written before output heads existed (payload [`MlpWeightsV1`]) load as
/// one phase and evaluate as they did; those written before the second hidden layer
/// ([`td::MlpWeightsV2`]) load without one; current files round-trip, with and without
/// the second layer; a payload of
/// neither layout is refused.
#[test]
fn model_files_of_both_layouts_load() {
    use crate::eval::td::{MlpWeightsV1, load_weights};
    use crate::io::model::{ModelHeader, save_model};
    let dir = std::env::temp_dir().join(format!("evalearn-td-layouts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mlp = Mlp::<Brazilian>::new_random(6, 3);
    let w = mlp.weights();
    let old = MlpWeightsV1 {
        features: w.features.clone(),
        hidden: w.hidden,
        w1: w.w1.clone(),
        b1: w.b1.clone(),
        w2: w.w2.clone(),
        b2: w.b2[0],
    };
    let mut header = ModelHeader::new("brazilian", td::KIND, Brazilian::INPUT_SETS[0].id);
    let old_path = dir.join("old.bin");
    save_model(&old_path, &mut header, &old).unwrap();
    let (_, loaded) = load_weights(&old_path, Some("brazilian")).unwrap();
    assert_eq!(loaded, w);
    assert_eq!(loaded.phases, 1);
    let p = pos("W:W13,14,21,K6:B5,K29,18");
    assert_eq!(
        TdEvaluator::<Brazilian>::from_weights(&loaded)
            .unwrap()
            .evaluate(&p),
        mlp.evaluator().evaluate(&p)
    );

    // Files written before the second hidden layer existed.
    let phased = Mlp::<Brazilian>::new_random_phased(6, 3, 4).weights();
    let v2 = v2_payload(&phased);
    let v2_path = dir.join("v2.bin");
    save_model(&v2_path, &mut header, &v2).unwrap();
    assert_eq!(load_weights(&v2_path, Some("brazilian")).unwrap().1, phased);

    let two = two_layer_state(16, 2, 5).weights;
    for (name, weights) in [("phased", &phased), ("two", &two)] {
        let new_path = dir.join(format!("{name}.bin"));
        save_model(&new_path, &mut header, weights).unwrap();
        assert_eq!(
            &load_weights(&new_path, Some("brazilian")).unwrap().1,
            weights
        );
        assert!(load_weights(&new_path, Some("kalah")).is_err());
    }

    let other_path = dir.join("other.bin");
    save_model(&other_path, &mut header, &(1u32, "not a network")).unwrap();
    let e = load_weights(&other_path, None).unwrap_err().to_string();
    assert!(e.contains("payload does not decode"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn terminal_leaves_have_the_known_value() {
    // White to move without pieces has lost; Black to move without a move too.
    let lost_white = pos("W:W:B12,K20");
    let lost_black = pos("B:W21,K30:B");
    assert!(!lost_white.has_legal_move() && !lost_black.has_legal_move());
    let mlp = Mlp::<Brazilian>::new_random(4, 1);
    // A known value is the prediction, and has no gradient: nothing moves.
    for (leaf, value) in [(lost_white, 0.0), (lost_black, 1.0)] {
        let mut trained = mlp.clone();
        let report = td_lambda_episode(&mut trained, &[leaf], 1.0 - value, 0.7, 0.5);
        assert_eq!(report.first_prediction, value);
        assert_eq!(trained, mlp);
    }
    // An episode that is all known values, ending as they say, changes nothing.
    let mut trained = mlp.clone();
    let report = td_lambda_episode(&mut trained, &[lost_black, lost_black], 1.0, 0.7, 0.5);
    assert_eq!(trained, mlp);
    assert_eq!(report.mean_squared_td_error, 0.0);
    // The prediction before a known loss for White moves towards 0.
    let before = pos("W:W21:B12");
    let mut trained = mlp.clone();
    td_lambda_episode(&mut trained, &[before, lost_white], 0.0, 0.7, 0.5);
    assert!(trained.first_view(&before) < mlp.first_view(&before));
}

#[test]
fn empty_episode_changes_nothing() {
    let mut mlp = Mlp::<Brazilian>::new_random(4, 9);
    let before = mlp.clone();
    let report = td_lambda_episode(&mut mlp, &[], 1.0, 0.7, 0.1);
    assert_eq!(report.steps, 0);
    assert_eq!(mlp, before);
}

/// The thesis's rule by hand on a three-leaf episode with a 2-unit network: outputs
/// and gradients by explicit scalar formulas in f64 from hand-listed active inputs,
/// the three steps written out.
// The hand computation of `td_lambda_matches_a_hand_computation`: a network of H hidden
// units with its parameters flattened: W1 row-major (H × 129), then b1, w2, b2.
const H: usize = 2;
const B1: usize = H * INPUTS;
const W2: usize = B1 + H;
const B2: usize = W2 + H;
const N: usize = B2 + 1;

/// The starting weights: on the inputs the three leaves use, and on one they do not.
fn hand_weights() -> Vec<f64> {
    let mut w0 = vec![0.0f64; N];
    let set = |w: &mut Vec<f64>, j: usize, i: usize, v: f64| w[j * INPUTS + i] = v;
    set(&mut w0, 0, 20, 0.8); // own man on 21
    set(&mut w0, 1, 20, -0.5);
    set(&mut w0, 0, 75, -0.6); // opponent man on 12
    set(&mut w0, 1, 75, 0.9);
    set(&mut w0, 0, 64 + 12, 0.4); // opponent man on 13
    set(&mut w0, 1, 64 + 12, 0.3);
    set(&mut w0, 0, 32 + 4, 1.1); // own king on 5
    set(&mut w0, 1, 32 + 4, -0.7);
    set(&mut w0, 0, SIDE_INPUT, 0.2);
    set(&mut w0, 1, SIDE_INPUT, -0.3);
    set(&mut w0, 0, 100, 5.0); // opponent king on 5: never active here
    w0[B1] = 0.1;
    w0[B1 + 1] = -0.2;
    w0[W2] = 1.5;
    w0[W2 + 1] = -1.2;
    w0[B2] = 0.05;
    w0
}

/// Y (White's view) and ∇Y at weights `w` of a leaf with active `inputs`, White to move
/// when `white`.
fn hand_y_and_grad(w: &[f64], (inputs, white): (&[usize], bool)) -> (f64, Vec<f64>) {
    let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
    let mut h = [0.0; H];
    for j in 0..H {
        let a = w[B1 + j] + inputs.iter().map(|&i| w[j * INPUTS + i]).sum::<f64>();
        h[j] = sig(a);
    }
    let p = sig(w[B2] + w[W2] * h[0] + w[W2 + 1] * h[1]);
    let d = p * (1.0 - p);
    let mut g = vec![0.0; N];
    g[B2] = d;
    for j in 0..H {
        g[W2 + j] = d * h[j];
        g[B1 + j] = d * w[W2 + j] * h[j] * (1.0 - h[j]);
        for &i in inputs {
            g[j * INPUTS + i] = g[B1 + j];
        }
    }
    if white {
        (p, g)
    } else {
        (1.0 - p, g.iter().map(|v| -v).collect())
    }
}

/// The network of flattened weights `w`.
fn hand_payload(w: &[f64]) -> MlpWeights {
    MlpWeights {
        features: Brazilian::INPUT_SETS[0].id.into(),
        hidden: H,
        w1: w[..B1].iter().map(|&v| v as f32).collect(),
        b1: w[B1..W2].iter().map(|&v| v as f32).collect(),
        w2: w[W2..B2].iter().map(|&v| v as f32).collect(),
        b2: vec![w[B2] as f32],
        phases: 1,
        w_hidden2: Vec::new(),
        b_hidden2: Vec::new(),
        activation: Default::default(),
    }
}

#[test]
fn td_lambda_matches_a_hand_computation() {
    let w0 = hand_weights();
    // Leaves, with their active inputs listed by hand (Black's view is turned 180°:
    // square n becomes 33 − n).
    let leaves = [
        pos("W:W21:B12"),       // own man 21, opp man 12, White to move
        pos("B:W21:B12,20"),    // own men 21 (12), 13 (20); opp man 12 (21)
        pos("W:WK5,21:B12,13"), // own king 5, own man 21, opp men 12, 13
    ];
    let active: [(&[usize], bool); 3] = [
        (&[20, 75, SIDE_INPUT], true),
        (&[12, 20, 75], false),
        (&[20, 36, 75, 76, SIDE_INPUT], true),
    ];
    for (leaf, (inputs, white)) in leaves.iter().zip(active) {
        let mut expected: Vec<usize> = inputs.to_vec();
        expected.sort_unstable();
        assert_eq!(active_inputs(leaf, 0), expected);
        assert_eq!(leaf.side_to_move() == Side::First, white);
    }
    let y_and_grad = |w: &[f64], k: usize| hand_y_and_grad(w, active[k]);
    let (lambda, alpha, z) = (0.6, 0.5, 1.0);
    let axpy = |w: &[f64], s: f64, e: &[f64]| -> Vec<f64> {
        w.iter().zip(e).map(|(a, b)| a + s * b).collect()
    };

    // Step 1: Y1, ∇Y1 at w0; e1 = ∇Y1; δ1 = Y2(w0) − Y1(w0); w1 = w0 + α δ1 e1.
    let (y1, g1) = y_and_grad(&w0, 0);
    let e1 = g1.clone();
    let d1 = y_and_grad(&w0, 1).0 - y1;
    let w1 = axpy(&w0, alpha * d1, &e1);
    // Step 2: Y2, ∇Y2 at w1; e2 = λ e1 + ∇Y2; δ2 = Y3(w1) − Y2(w1).
    let (y2, g2) = y_and_grad(&w1, 1);
    let e2: Vec<f64> = e1.iter().zip(&g2).map(|(e, g)| lambda * e + g).collect();
    let d2 = y_and_grad(&w1, 2).0 - y2;
    let w2 = axpy(&w1, alpha * d2, &e2);
    // Step 3 (last): Y3, ∇Y3 at w2; e3 = λ e2 + ∇Y3; δ3 = Z − Y3(w2).
    let (y3, g3) = y_and_grad(&w2, 2);
    let e3: Vec<f64> = e2.iter().zip(&g3).map(|(e, g)| lambda * e + g).collect();
    let d3 = z - y3;
    let w3 = axpy(&w2, alpha * d3, &e3);

    let mut mlp = Mlp::<Brazilian>::from_weights(&hand_payload(&w0)).unwrap();
    let report = td_lambda_episode(&mut mlp, &leaves, z as f32, lambda as f32, alpha as f32);
    assert_eq!(report.steps, 3);
    assert!((f64::from(report.first_prediction) - y1).abs() < 1e-6);
    assert!((f64::from(report.final_error) - d3).abs() < 1e-5);
    let mse = (d1 * d1 + d2 * d2 + d3 * d3) / 3.0;
    assert!((f64::from(report.mean_squared_td_error) - mse).abs() < 1e-5);

    let got = flat(&mlp.weights());
    let close = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-5 * (1.0 + y.abs()))
    };
    for (k, (g, e)) in got.iter().zip(&w3).enumerate() {
        assert!(
            (g - e).abs() <= 1e-5 * (1.0 + e.abs()),
            "weight {k}: {g} vs {e}"
        );
    }
    // The test can tell the weights the gradients are taken at: with every gradient
    // and prediction at w0 (no online update) the result differs.
    let offline = {
        let (y2, g2) = y_and_grad(&w0, 1);
        let (y3, g3) = y_and_grad(&w0, 2);
        let e2: Vec<f64> = e1.iter().zip(&g2).map(|(e, g)| lambda * e + g).collect();
        let e3: Vec<f64> = e2.iter().zip(&g3).map(|(e, g)| lambda * e + g).collect();
        let w = axpy(&w0, alpha * d1, &e1);
        let w = axpy(&w, alpha * (y3 - y2), &e2);
        axpy(&w, alpha * (z - y3), &e3)
    };
    assert!(!close(&offline, &w3));
    // The weights no leaf uses did not move.
    assert_eq!(got[100], 5.0);
    assert!(w0.iter().zip(&w3).any(|(a, b)| (a - b).abs() > 1e-3));
}

/// For a game's own tests (a game with margins; `game` finished by the rules, its one
/// leaf the end): TD's loss targets are the margin `m` as `σ(m / 4)` for the first
/// player, its result as a result; the end's value is known, by the margin, so a game
/// worth that much teaches nothing, while valued as a result it would.
pub(crate) fn targets_and_known_leaves_carry_the_margin<G: Inputs>(game: &DatasetGame<G>) {
    use crate::arena::margins::game_margin;
    use crate::learn::controls::{OutcomeTarget, PositionFilter};
    let margin = OutcomeTarget::Margin { scale: 4.0 };
    let m = game_margin(game, Side::First).expect("a game finished by the rules");
    let for_first = sigmoid(m as f32 / 4.0);
    let games = std::slice::from_ref(game);
    let targets = episode::loss_targets(games, &PositionFilter::none(), margin);
    assert_eq!(targets.len(), 1);
    assert!((targets[0].1 - for_first).abs() < 1e-6);
    let targets = episode::loss_targets(games, &PositionFilter::none(), OutcomeTarget::Result);
    assert_eq!(targets[0].1, game.outcome.score_for(Side::First) as f32);
    let mlp = Mlp::<G>::new_random(8, 5);
    let mut net = flat::FlatNet::from_weights::<G>(&mlp.weights(), 0);
    let before = net.clone();
    let target = margin.of_game(game, Side::First) as f32;
    let episode = |net: &mut flat::FlatNet, known: OutcomeTarget| {
        let mut scratch = flat::Scratch::new();
        flat::episode(
            net,
            &game.leaves,
            &[],
            0.0,
            target,
            known,
            flat::TdLoss::Squared,
            0.7,
            0.1,
            &mut scratch,
        )
    };
    let figures = episode(&mut net, margin);
    assert!(figures.final_error.abs() < 1e-6 && (figures.first_prediction - target).abs() < 1e-6);
    assert_eq!(net, before);
    let figures = episode(&mut net, OutcomeTarget::Result);
    assert_eq!(
        figures.first_prediction,
        game.outcome.score_for(Side::First) as f32
    );
    assert!((figures.final_error - (target - figures.first_prediction)).abs() < 1e-6);
}

/// For a game's own tests (a game with margins): a TD learner with `margin_scale = 8`
/// plays and saves a model whose logit is 8 times its network's, `m / 8`, so that its
/// evaluation counts the game's units at 100 a unit; with results, the network's.
pub(crate) fn a_margin_model_evaluates_in_stones<G: TrainGame + Inputs>(positions: &[G]) {
    use crate::learn::learner::LearnerKind;
    let config = |training: &str| {
        let text = format!(
            "learner = \"td\"\ngame = \"{}\"\nmodel = \"m.bin\"\n[td]\nhidden = 32\n[training]\n{training}",
            G::NAME
        );
        crate::learn::config::TrainConfig::parse(&text).unwrap()
    };
    let results = LearnerKind::<G>::start(&Td, &config("")).unwrap();
    let margins =
        LearnerKind::<G>::start(&Td, &config("target = \"margin\"\nmargin_scale = 8\n")).unwrap();
    // The same network: the run's seed, 1.
    let mlp = Mlp::<G>::from_weights(
        &TdState::new::<G>(
            0,
            &TdSettings {
                hidden: 32,
                ..TdSettings::default()
            },
            1,
        )
        .weights,
    )
    .unwrap();
    assert!(positions.len() > 100);
    for pos in positions {
        let z = mlp.logit(pos);
        let (r, m) = (
            results.evaluator().evaluate(pos),
            margins.evaluator().evaluate(pos),
        );
        assert!((r - centi_units(z)).abs() <= 1, "{r} against {z}");
        assert!(
            (m - centi_units(8.0 * z)).abs() <= 2,
            "{m} against {}",
            8.0 * z
        );
    }
}

/// A checkpoint written before the second hidden layer existed resumes as the network
/// it held; this build's round-trips; another layout is an error.
#[test]
fn checkpoints_of_both_layouts_resume() {
    #[derive(Serialize)]
    struct OldState {
        weights: td::MlpWeightsV2,
    }
    let w = Mlp::<Brazilian>::new_random_phased(6, 2, 3).weights();
    let old = OldState {
        weights: v2_payload(&w),
    };
    let bytes = crate::io::model::to_bytes(&old);
    assert_eq!(TdState::from_checkpoint(&bytes).unwrap().weights, w);
    let two = two_layer_state(4, 1, 1);
    let bytes = crate::io::model::to_bytes(&two);
    assert_eq!(TdState::from_checkpoint(&bytes).unwrap(), two);
    let other = crate::io::model::to_bytes(&(1u32, "not a learner state"));
    assert!(TdState::from_checkpoint(&other).is_err());
}
