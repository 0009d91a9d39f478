//! The TD network with clipped-ReLU units (`[td] activation = "clipped-relu"`): every
//! kernel path the CPU has (AVX-512 VNNI, AVX2, SSE2, portable) gives the portable
//! path's values bit for bit, from scratch, along search paths and in whole searches;
//! the integer network stays near the float one; a model plays on a path without AVX2.

use evalearn::eval::Evaluator;
use evalearn::eval::td::clipped::{W2_LIMIT, w1_limit};
use evalearn::eval::td::simd::SimdPath;
use evalearn::eval::td::{Activation, Inputs, MlpWeights, TdEvaluator, input_set};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::encoding::BOARD_PAIRS;
use evalearn::games::kalah::Kalah;
use evalearn::learn::td::{TdSettings, TdState};
use evalearn::search::bench::Bench;
use evalearn::search::{Limits, SearchConfig, Searcher};
use rand::RngExt;

use super::td_incremental::{deviation, shipped_weights, walk_agrees_with};

/// A random clipped network over `G`'s input set `set`, its weights spread over the
/// whole range the integer form holds (some at its ends), so that sums reach both clips
/// and the `i8` weights both ends; each head drawn apart.
fn random_clipped<G: Inputs>(
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
        activation: Activation::ClippedRelu,
        ..TdSettings::default()
    };
    let mut w = TdState::new::<G>(set, &settings, seed).weights;
    let mut rng = evalearn::rng::stream(seed, 1);
    let limit = w1_limit(input_set::<G>(set).max_active);
    for (i, v) in w.w1.iter_mut().enumerate() {
        *v = match i % 97 {
            0 => limit,
            1 => -limit,
            _ => rng.random_range(-0.8..0.8),
        };
    }
    for v in w.b1.iter_mut() {
        *v = rng.random_range(-1.0..1.5);
    }
    for (i, v) in w.w_hidden2.iter_mut().enumerate() {
        *v = match i % 31 {
            0 => W2_LIMIT,
            1 => -W2_LIMIT,
            _ => rng.random_range(-0.3..0.3),
        };
    }
    for v in w.b_hidden2.iter_mut() {
        *v = rng.random_range(-0.5..1.0);
    }
    for v in w.w2.iter_mut() {
        *v = rng.random_range(-3.0..3.0);
    }
    for (phase, b) in w.b2.iter_mut().enumerate() {
        *b = 0.3 - 0.4 * phase as f32;
    }
    w
}

/// The networks the tests check: both games, both draughts input sets, with and without
/// a second layer, first layers of 64 to 384 units (and one that is no multiple of 64),
/// one and several heads.
fn draughts_networks() -> Vec<(&'static str, MlpWeights)> {
    vec![
        (
            "board 256-32",
            random_clipped::<Brazilian>(0, 256, 32, 1, 1),
        ),
        (
            "board 128-32, 4 heads",
            random_clipped::<Brazilian>(0, 128, 32, 4, 2),
        ),
        (
            "board 384-48",
            random_clipped::<Brazilian>(0, 384, 48, 1, 3),
        ),
        (
            "pairs 64-16",
            random_clipped::<Brazilian>(BOARD_PAIRS, 64, 16, 1, 4),
        ),
        (
            "board 96, no second layer, 2 heads",
            random_clipped::<Brazilian>(0, 96, 0, 2, 5),
        ),
    ]
}

fn kalah_networks() -> Vec<(&'static str, MlpWeights)> {
    vec![
        (
            "kalah 128-32, 3 heads",
            random_clipped::<Kalah>(0, 128, 32, 3, 6),
        ),
        (
            "kalah 64, no second layer",
            random_clipped::<Kalah>(0, 64, 0, 1, 7),
        ),
    ]
}

/// Positions of `games` self-play games: a few random plies, then moves of a depth-2
/// search with the game's baseline evaluator, every position kept.
fn selfplay_positions<G: Inputs + evalearn::eval::EvalGame>(seed: u64, games: u64) -> Vec<G> {
    let mut out = Vec::new();
    let mut moves = G::Moves::default();
    let mut searcher = Searcher::new(evalearn::eval::baseline::<G>(), SearchConfig::FULL, 1);
    for game in 0..games {
        let mut rng = evalearn::rng::stream(seed, game);
        let mut pos = G::start();
        for ply in 0..160 {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            out.push(pos);
            let mv = match ply < 6 || rng.random_range(0..10) == 0 {
                true => moves[rng.random_range(0..moves.len())],
                false => searcher
                    .search_position(&pos, &Limits::depth(2))
                    .best_move
                    .expect("a position with moves has a best move"),
            };
            pos = pos.play(mv);
        }
    }
    out
}

/// The paths this CPU runs, the portable one first.
fn paths() -> Vec<SimdPath> {
    let paths: Vec<SimdPath> = SimdPath::ALL
        .into_iter()
        .filter(|p| p.available())
        .collect();
    eprintln!(
        "kernel paths checked: {}",
        paths
            .iter()
            .map(|p| p.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    paths
}

fn evaluator<G: Inputs>(weights: &MlpWeights, path: SimdPath) -> TdEvaluator<G> {
    TdEvaluator::<G>::from_weights(weights)
        .unwrap()
        .with_path(path)
}

/// From scratch: every path's value of every position equals the portable path's.
fn paths_agree_from_scratch<G: Inputs>(name: &str, weights: &MlpWeights, positions: &[G]) {
    let portable = evaluator::<G>(weights, SimdPath::Scalar);
    let values: Vec<i32> = positions.iter().map(|p| portable.evaluate(p)).collect();
    let distinct: std::collections::HashSet<i32> = values.iter().copied().collect();
    assert!(
        distinct.len() > positions.len() / 20,
        "{name}: values barely differ"
    );
    for path in paths() {
        let fast = evaluator::<G>(weights, path);
        for (pos, &value) in positions.iter().zip(&values) {
            assert_eq!(
                fast.evaluate(pos),
                value,
                "{name}, {}: {}",
                path.name(),
                pos.format_position()
            );
        }
    }
}

/// Along a random walk through the tree as a search makes one, every path's incremental
/// value equals the portable path's from-scratch value.
fn paths_agree_along_walks<G: Inputs>(name: &str, weights: &MlpWeights, seed: u64) {
    let portable = evaluator::<G>(weights, SimdPath::Scalar);
    for path in paths() {
        let fast = evaluator::<G>(weights, path);
        let label = format!("{name}, {}:", path.name());
        let checked = walk_agrees_with(&fast, &portable, seed, 6_000, &label);
        assert!(checked > 1_000, "{checked}");
    }
}

#[test]
fn every_kernel_path_gives_the_portable_values_bit_for_bit() {
    let draughts = selfplay_positions::<Brazilian>(11, 60);
    let kalah = selfplay_positions::<Kalah>(11, 120);
    eprintln!(
        "{} draughts, {} Kalah positions",
        draughts.len(),
        kalah.len()
    );
    assert!(draughts.len() > 3_000 && kalah.len() > 3_000);
    for (seed, (name, weights)) in draughts_networks().into_iter().enumerate() {
        paths_agree_from_scratch(name, &weights, &draughts);
        paths_agree_along_walks::<Brazilian>(name, &weights, seed as u64);
    }
    for (seed, (name, weights)) in kalah_networks().into_iter().enumerate() {
        paths_agree_from_scratch(name, &weights, &kalah);
        paths_agree_along_walks::<Kalah>(name, &weights, seed as u64);
    }
}

/// Whole searches (the bench positions) are the same, node for node, on every path.
fn searches_agree<G: Inputs + Bench>(weights: &MlpWeights, depth: u32) {
    let mut reference = Searcher::new(
        evaluator::<G>(weights, SimdPath::Scalar),
        SearchConfig::FULL,
        4,
    );
    let expected: Vec<_> = G::BENCH_POSITIONS
        .iter()
        .map(|text| {
            let r =
                reference.search_position(&G::parse_position(text).unwrap(), &Limits::depth(depth));
            (r.score, r.best_move, r.pv, r.nodes)
        })
        .collect();
    for path in paths() {
        let mut searcher = Searcher::new(evaluator::<G>(weights, path), SearchConfig::FULL, 4);
        for (text, expected) in G::BENCH_POSITIONS.iter().zip(&expected) {
            let r =
                searcher.search_position(&G::parse_position(text).unwrap(), &Limits::depth(depth));
            assert_eq!(
                &(r.score, r.best_move, r.pv, r.nodes),
                expected,
                "{}: {text}",
                path.name()
            );
        }
    }
}

#[test]
fn searches_are_the_same_on_every_kernel_path() {
    searches_agree::<Brazilian>(&random_clipped::<Brazilian>(0, 256, 32, 1, 8), 6);
    searches_agree::<Kalah>(&random_clipped::<Kalah>(0, 128, 32, 1, 9), 7);
}

/// The integer network is the float one up to its rounding: the first layer in steps of
/// 1/127, the second layer's weights in steps of 1/64 (these networks have weights at
/// ±127/64; a trained one's smaller weights get 1/128 or finer) and activations in 1/127.
/// With heads of ±3 over 32 units (values in the thousands) this comes to 27–111
/// centi-units at most, 5–16 on average (2026-12-07: board 384-48 81 and 15.8, Kalah
/// 128-32 111 and 11.8); a trained network's weights are smaller (a 20,000-game draughts
/// network of 128-32 units: 13.7 at most, mean 1.9).
#[test]
fn integer_clipped_network_stays_near_the_float_network() {
    let draughts = selfplay_positions::<Brazilian>(12, 30);
    let kalah = selfplay_positions::<Kalah>(12, 60);
    for (name, weights) in draughts_networks() {
        let (largest, mean) = deviation(&weights, &draughts);
        eprintln!("{name}: largest deviation {largest:.2}, mean {mean:.3} centi-units");
        assert!(largest <= 100.0 && mean <= 20.0, "{name}: {largest} {mean}");
    }
    for (name, weights) in kalah_networks() {
        let (largest, mean) = deviation(&weights, &kalah);
        eprintln!("{name}: largest deviation {largest:.2}, mean {mean:.3} centi-units");
        assert!(largest <= 140.0 && mean <= 16.0, "{name}: {largest} {mean}");
    }
}

/// The shipped clipped networks: every path gives the portable values, and the integer
/// network stays near the float one.
#[test]
fn shipped_clipped_networks_agree_on_every_path_and_with_the_float_network() {
    let draughts = selfplay_positions::<Brazilian>(13, 40);
    let kalah = selfplay_positions::<Kalah>(13, 80);
    let weights = shipped_weights("models/td-clipped.bin");
    // The AVX2 kernel adds the products of 4 groups (td-clipped) and of 2 (Kalah) in
    // `i16`, so the paths compared here include those runs.
    assert_eq!(i16_groups::<Brazilian>(&weights), 4);
    paths_agree_from_scratch("td-clipped.bin", &weights, &draughts);
    paths_agree_along_walks::<Brazilian>("td-clipped.bin", &weights, 3);
    let (largest, mean) = deviation(&weights, &draughts);
    eprintln!("td-clipped.bin: largest deviation {largest:.2}, mean {mean:.3} centi-units");
    // 21.5 at most, mean 2.7 (2026-12-07): its second-layer weights reach 1.33, so they
    // are bytes at scale 64, in steps of 1/64.
    assert!(largest <= 30.0 && mean <= 4.0, "{largest} {mean}");
    let weights = shipped_weights("models/kalah-clipped.bin");
    assert_eq!(i16_groups::<Kalah>(&weights), 2);
    paths_agree_from_scratch("kalah-clipped.bin", &weights, &kalah);
    let (largest, mean) = deviation(&weights, &kalah);
    eprintln!("kalah-clipped.bin: largest deviation {largest:.2}, mean {mean:.3} centi-units");
    // 48.2 at most, mean 9.3 (2026-12-07): its heads are 8 times a results network's
    // (margin_scale 8: the value counts centi-stones of margin), and so is its rounding.
    assert!(largest <= 60.0 && mean <= 12.0, "{largest} {mean}");
}

/// How many groups of 4 first-layer units the AVX2 kernel of `weights`' network adds in
/// `i16`.
fn i16_groups<G: Inputs>(weights: &MlpWeights) -> usize {
    evaluator::<G>(weights, SimdPath::Scalar)
        .clipped_net()
        .unwrap()
        .i16_groups()
}

/// Weights beyond what the integers hold are refused with a message, not wrapped.
#[test]
fn weights_beyond_the_integer_range_are_refused() {
    let mut w = random_clipped::<Brazilian>(0, 64, 16, 1, 10);
    w.w_hidden2[3] = 2.5;
    let error = TdEvaluator::<Brazilian>::from_weights(&w).unwrap_err();
    assert!(error.contains("second-layer weight"), "{error}");
    let mut w = random_clipped::<Brazilian>(0, 64, 16, 1, 10);
    w.w1[5] = 100.0;
    let error = TdEvaluator::<Brazilian>::from_weights(&w).unwrap_err();
    assert!(error.contains("first-layer weight"), "{error}");
    let mut w = random_clipped::<Brazilian>(0, 64, 16, 1, 10);
    w.hidden = 600;
    assert!(
        w.validate::<Brazilian>()
            .unwrap_err()
            .contains("hidden units")
    );
}
