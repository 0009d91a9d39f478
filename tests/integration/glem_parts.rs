//! GLEM piece by piece: mining against brute force, the run-time model (compiled tables,
//! mirror symmetry, phases, regions, validation) on mined configurations, fitting, and
//! the samples drawn from games.

use std::collections::HashSet;

use evalearn::eval::glem::{
    Atom, Atoms, Configuration, Glem, GlemModel, MAX_SLOTS, Phases, Region, TABLE_UNIT,
    atom_values, logistic,
};
use evalearn::eval::{EVAL_LIMIT, Evaluator};
use evalearn::game::{EndReason, Game, MoveList, Outcome, Side};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::encoding::{EMPTY, OPPONENT_KING, OPPONENT_MAN, OWN_KING, OWN_MAN};
use evalearn::io::dataset::DatasetGame;
use evalearn::learn::glem::{FitParams, FitReport, SEARCH_SCALE, Sample, mine, samples_from_games};
use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// A copy of `model` fitted on a pool of `threads` threads, with its report.
pub fn fit_on_threads(
    model: &GlemModel,
    samples: &[Sample<Brazilian>],
    params: &FitParams,
    threads: usize,
) -> (GlemModel, FitReport) {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| {
            let mut m = model.clone();
            let report = m.fit(samples, params);
            (m, report)
        })
}

pub fn default_regions() -> Vec<Region> {
    <Brazilian as Atoms>::default_regions()
}

fn default_phases() -> Phases {
    Brazilian::default_phases()
}

fn square_values(p: &Brazilian) -> [i8; MAX_SLOTS] {
    atom_values(p)
}

fn pos(fen: &str) -> Brazilian {
    Brazilian::parse_position(fen).unwrap()
}

/// Positions of seeded random games (every position, kings included), restarting
/// after a finished game or 150 plies.
fn random_positions(seed: u64, count: usize) -> Vec<Brazilian> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut moves = MoveList::new();
    let mut out = Vec::with_capacity(count);
    let mut p = Brazilian::start();
    let mut ply = 0;
    while out.len() < count {
        p.legal_moves(&mut moves);
        if moves.is_empty() || ply >= 150 {
            p = Brazilian::start();
            ply = 0;
            continue;
        }
        out.push(p);
        p = p.play(moves[rng.random_range(0..moves.len())]);
        ply += 1;
    }
    out
}

/// Every configuration (1..=max_atoms atoms) of each region with support ≥ n, by
/// enumerating all patterns over {values, *}; a pattern found in several regions
/// belongs to the first.
fn brute_force(
    positions: &[Brazilian],
    regions: &[Region],
    n: usize,
    max_atoms: usize,
) -> Vec<Configuration> {
    let values: Vec<[i8; MAX_SLOTS]> = positions.iter().map(square_values).collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (r, region) in regions.iter().enumerate() {
        let k = region.squares.len();
        for code in 0..6usize.pow(k as u32) {
            let mut atoms = Vec::new();
            let mut c = code;
            for &s in &region.squares {
                let v = c % 6;
                c /= 6;
                if v < 5 {
                    atoms.push(Atom::new(s, v as i8 - 2));
                }
            }
            if atoms.is_empty() || atoms.len() > max_atoms {
                continue;
            }
            atoms.sort();
            let config = Configuration {
                region: r as u16,
                atoms,
            };
            let support = values.iter().filter(|v| config.is_active(v)).count();
            if support >= n.max(1) && seen.insert(config.atoms.clone()) {
                out.push(config);
            }
        }
    }
    out.sort();
    out
}

fn sorted(mut configs: Vec<Configuration>) -> Vec<Configuration> {
    configs.sort();
    configs
}

/// Six tiny positions; the sixth is the first with colours swapped (Black to move),
/// so it looks the same from the side to move.
fn tiny_positions() -> Vec<Brazilian> {
    [
        "W:W21,22,25:B1",
        "W:W21,25,26:B1",
        "W:W21,22:B1",
        "W:W22,25,K26:B1",
        "W:W21,22,25,26:B1",
        "B:W5:B8,11,12",
    ]
    .iter()
    .map(|f| pos(f))
    .collect()
}

#[test]
fn mining_a_hand_checked_set() {
    let positions = tiny_positions();
    let region = vec![Region::new("corner", &[21, 22, 25, 26])];
    let mined = mine(&positions, &region, 2, 4);
    let has = |atoms: &[(u8, i8)]| {
        let atoms: Vec<Atom> = atoms.iter().map(|&(s, v)| Atom::new(s, v)).collect();
        mined.iter().any(|c| c.atoms == atoms)
    };
    // Own man on 21: positions 1, 2, 3, 5, 6.
    assert!(has(&[(21, OWN_MAN)]));
    // Own king on 26: position 4 only.
    assert!(!has(&[(26, OWN_KING)]));
    // 21, 22, 25 own men: positions 1, 5, 6; with 26 empty: 1 and 6; with 26 an own
    // man: 5 only.
    assert!(has(&[(21, OWN_MAN), (22, OWN_MAN), (25, OWN_MAN)]));
    assert!(has(&[
        (21, OWN_MAN),
        (22, OWN_MAN),
        (25, OWN_MAN),
        (26, EMPTY)
    ]));
    assert!(!has(&[
        (21, OWN_MAN),
        (22, OWN_MAN),
        (25, OWN_MAN),
        (26, OWN_MAN)
    ]));
    // 21 empty: positions 4 only.
    assert!(!has(&[(21, EMPTY)]));
    for n in 1..=6 {
        for max_atoms in 1..=4 {
            assert_eq!(
                sorted(mine(&positions, &region, n, max_atoms)),
                brute_force(&positions, &region, n, max_atoms),
                "n = {n}, max_atoms = {max_atoms}"
            );
        }
    }
    assert_eq!(mined.len(), brute_force(&positions, &region, 2, 4).len());
    assert!(mine(&positions, &region, 7, 4).is_empty());
    assert!(mine(&positions, &region, 1, 0).is_empty());
}

#[test]
fn mining_keeps_a_configuration_once_in_its_first_region() {
    let positions = tiny_positions();
    let regions = vec![
        Region::new("a", &[21, 22, 25, 26]),
        Region::new("b", &[25, 26, 29, 30]),
    ];
    let mined = mine(&positions, &regions, 2, 3);
    assert_eq!(
        sorted(mined.clone()),
        brute_force(&positions, &regions, 2, 3)
    );
    let atoms = vec![Atom::new(25, OWN_MAN)];
    let owners: Vec<u16> = mined
        .iter()
        .filter(|c| c.atoms == atoms)
        .map(|c| c.region)
        .collect();
    assert_eq!(owners, vec![0]);
    assert!(mined.iter().any(|c| c.region == 1));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn mining_matches_brute_force(
        seed in any::<u64>(),
        count in 1usize..120,
        n in 1usize..8,
        max_atoms in 1usize..5,
        squares in proptest::collection::vec(
            proptest::sample::subsequence((1u8..=32).collect::<Vec<_>>(), 1..=4), 1..3),
    ) {
        let positions = random_positions(seed, count);
        let regions: Vec<Region> = squares
            .iter()
            .enumerate()
            .map(|(i, s)| Region::new(&format!("r{i}"), s))
            .collect();
        prop_assert_eq!(
            sorted(mine(&positions, &regions, n, max_atoms)),
            brute_force(&positions, &regions, n, max_atoms)
        );
    }
}

/// A model over the default regions with mined configurations (plus a few
/// impossible ones) and random weights.
fn random_model(seed: u64, phases: Phases) -> GlemModel {
    let positions = random_positions(seed, 3000);
    let mut configs = mine(&positions, &default_regions(), 5, 3);
    // Impossible atoms (an own man on the crowning row) are never active.
    configs.push(Configuration {
        region: 6,
        atoms: vec![Atom::new(2, OWN_MAN)],
    });
    configs.push(Configuration {
        region: 0,
        atoms: vec![Atom::new(26, EMPTY), Atom::new(30, OPPONENT_MAN)],
    });
    let mut model = GlemModel::new::<Brazilian>(default_regions(), configs, phases);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xABCD);
    for row in &mut model.weights {
        for w in row.iter_mut() {
            *w = rng.random_range(-0.5f32..0.5);
        }
    }
    model.scale = 137.0;
    model.validate::<Brazilian>().unwrap();
    model
}

#[test]
fn compiled_tables_agree_with_the_definition() {
    let model = random_model(7, default_phases());
    let glem = model.compile::<Brazilian>();
    let positions = random_positions(99, 1500);
    let regions = model.regions.len();
    for p in &positions {
        let values = square_values(p);
        let phase = model.phases.phase_of_position(p);
        let mut by_region = vec![0.0f64; regions];
        for (c, &w) in model.configurations.iter().zip(&model.weights[phase]) {
            if c.is_active(&values) {
                by_region[c.region as usize] += w as f64;
            }
        }
        let factor = model.scale as f64 * TABLE_UNIT;
        let entries = glem.entries(p);
        for (r, (&sum, &entry)) in by_region.iter().zip(&entries).enumerate() {
            let expected = (sum * factor).round() as i32;
            assert!(
                (expected - entry as i32).abs() <= 1,
                "{}: region {r}: entry {entry}, definition {expected}",
                p.format_position()
            );
        }
        let x = model.logit(p);
        assert!((by_region.iter().sum::<f64>() - x).abs() < 1e-6);
        let value = glem.evaluate(p);
        let direct = (x * model.scale as f64).round() as i32;
        // Each entry is within 1/8 centi-unit of its exact value.
        let slack = (regions as f64 / 8.0).ceil() as i32 + 1;
        assert!(
            (value - direct.clamp(-EVAL_LIMIT, EVAL_LIMIT)).abs() <= slack,
            "{}: compiled {value}, definition {direct}",
            p.format_position()
        );
    }
}

#[test]
fn evaluation_is_clamped() {
    let positions = random_positions(3, 500);
    let configs = mine(&positions, &default_regions(), 1, 1);
    let mut model = GlemModel::new::<Brazilian>(default_regions(), configs, Phases::single());
    for w in &mut model.weights[0] {
        *w = 50.0;
    }
    let glem = model.compile::<Brazilian>();
    assert_eq!(glem.evaluate(&Brazilian::start()), EVAL_LIMIT);
    for w in &mut model.weights[0] {
        *w = -50.0;
    }
    assert_eq!(
        model.compile::<Brazilian>().evaluate(&Brazilian::start()),
        -EVAL_LIMIT
    );
}

#[test]
fn a_position_and_its_colour_swapped_mirror_evaluate_the_same() {
    let model = random_model(11, default_phases());
    let glem = model.compile::<Brazilian>();
    for p in random_positions(5, 1000) {
        let m = p.mirrored();
        assert_ne!(p.side_to_move(), m.side_to_move());
        assert_eq!(square_values(&p), square_values(&m));
        assert_eq!(
            glem.evaluate(&p),
            glem.evaluate(&m),
            "{}",
            p.format_position()
        );
        assert_eq!(model.logit(&p), model.logit(&m));
    }
}

#[test]
fn square_values_follow_the_side_to_move() {
    let p = pos("W:W21,K30:B5,K12");
    let v = square_values(&p);
    assert_eq!(
        (v[20], v[29], v[4], v[11], v[0]),
        (OWN_MAN, OWN_KING, OPPONENT_MAN, OPPONENT_KING, EMPTY)
    );
    let v = square_values(&p.with_side_to_move(Side::Second));
    assert_eq!(
        (
            v[33 - 5 - 1],
            v[33 - 12 - 1],
            v[33 - 21 - 1],
            v[33 - 30 - 1]
        ),
        (OWN_MAN, OWN_KING, OPPONENT_MAN, OPPONENT_KING)
    );
}

#[test]
fn phases() {
    let phases = default_phases();
    phases.validate::<Brazilian>().unwrap();
    let got: Vec<usize> = [0, 2, 5, 6, 10, 11, 15, 16, 24]
        .iter()
        .map(|&n| phases.phase_of(n))
        .collect();
    assert_eq!(got, vec![0, 0, 0, 1, 1, 2, 2, 3, 3]);
    assert_eq!(phases.phase_of_position(&Brazilian::start()), 3);
    assert_eq!(Phases::single().phase_of(24), 0);
    for bad in [
        vec![],
        vec![1, 5],
        vec![0, 5, 5],
        vec![0, 25],
        vec![0, 9, 3],
    ] {
        assert!(
            Phases {
                starts: bad.clone()
            }
            .validate::<Brazilian>()
            .is_err(),
            "{bad:?}"
        );
    }
}

#[test]
fn default_regions_are_valid_and_cover_the_board() {
    let regions = default_regions();
    assert_eq!(regions.len(), 14);
    let mut covered = 0u32;
    for r in &regions {
        r.validate::<Brazilian>().unwrap();
        for &s in &r.squares {
            covered |= 1 << (s - 1);
        }
    }
    assert_eq!(covered, u32::MAX);
    assert_eq!(regions[0].squares, (25..=32).collect::<Vec<u8>>());
    assert_eq!(regions[6].squares, (1..=8).collect::<Vec<u8>>());
    assert_eq!(regions[7].squares, vec![1, 5, 9, 13, 17, 21, 25, 29]);
    let model = GlemModel::new::<Brazilian>(regions, Vec::new(), default_phases());
    assert_eq!(model.table_entries::<Brazilian>(), 4 * 3_648_125);
    assert_eq!(
        model.compile::<Brazilian>().table_bytes(),
        2 * 4 * 3_648_125
    );
}

/// Synthetic samples: random positions, target from the material balance plus a
/// deterministic perturbation.
fn synthetic_samples(seed: u64, count: usize) -> Vec<Sample<Brazilian>> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    random_positions(seed, count)
        .into_iter()
        .filter(|p| p.is_quiet())
        .map(|p| {
            let m = p.relative_masks();
            let material = m[0].count_ones() as f64 + 3.0 * m[1].count_ones() as f64
                - m[2].count_ones() as f64
                - 3.0 * m[3].count_ones() as f64;
            let noise = rng.random_range(-0.2..0.2);
            Sample {
                position: p,
                target: (logistic(0.7 * material) + noise).clamp(0.0, 1.0) as f32,
            }
        })
        .collect()
}

#[test]
fn fit_lowers_the_loss_and_does_not_depend_on_threads() {
    let samples = synthetic_samples(21, 6000);
    let positions: Vec<Brazilian> = samples.iter().map(|s| s.position).collect();
    let configs = mine(&positions, &default_regions(), 10, 3);
    let model = GlemModel::new::<Brazilian>(default_regions(), configs, default_phases());
    let params = FitParams {
        epochs: 30,
        ..FitParams::default()
    };
    let (one, report) = fit_on_threads(&model, &samples, &params, 1);
    let (two, report2) = fit_on_threads(&model, &samples, &params, 2);
    assert_eq!(one, two);
    assert_eq!(report, report2);
    assert_eq!(report.epoch_losses.len(), 30);
    assert_eq!(report.samples, samples.len());
    assert!((report.loss_before - model.loss(&samples)).abs() < 1e-12);
    // The stored weights are f32.
    assert!((report.loss_after - one.loss(&samples)).abs() < 1e-6);
    assert!(
        report.loss_after < 0.5 * report.loss_before,
        "{} -> {}",
        report.loss_before,
        report.loss_after
    );
    // It learned material: a man more is better.
    let glem = one.compile::<Brazilian>();
    let up = pos("W:W21,22,23:B10,11");
    let down = pos("W:W21,22:B9,10,11");
    assert!(glem.evaluate(&up) > glem.evaluate(&down));
    let mut calibrated = one.clone();
    let scale = calibrated.calibrate_scale(&positions);
    assert!(scale > 0.0 && scale.is_finite());
    assert_eq!(one.weights, calibrated.weights);
}

#[test]
fn fit_survives_a_learning_rate_far_too_large() {
    let samples = synthetic_samples(23, 3000);
    let positions: Vec<Brazilian> = samples.iter().map(|s| s.position).collect();
    let configs = mine(&positions, &default_regions(), 10, 3);
    let mut model = GlemModel::new::<Brazilian>(default_regions(), configs, default_phases());
    let params = FitParams {
        epochs: 30,
        learning_rate: 10.0,
        ..FitParams::default()
    };
    let report = model.fit(&samples, &params);
    assert!(report.rate_halvings > 0);
    assert!(report.learning_rate < 10.0);
    assert!(report.loss_after < report.loss_before);
    assert!(report.epoch_losses.iter().all(|l| l.is_finite()));
    model.validate::<Brazilian>().unwrap();
}

#[test]
fn the_evaluator_is_shareable() {
    fn check<T: Clone + Send + Sync + 'static>() {}
    check::<Glem<Brazilian>>();
    check::<GlemModel>();
    let glem = random_model(29, Phases::single()).compile::<Brazilian>();
    let copy = glem.clone();
    let p = Brazilian::start();
    assert_eq!(
        std::thread::spawn(move || copy.evaluate(&p))
            .join()
            .unwrap(),
        glem.evaluate(&p)
    );
}

#[test]
fn fit_on_nothing_does_nothing() {
    let mut model = GlemModel::new::<Brazilian>(default_regions(), Vec::new(), default_phases());
    let report = model.fit::<Brazilian>(&[], &FitParams::default());
    assert_eq!(report.loss_before, 0.0);
    assert!(report.epoch_losses.is_empty());
    assert_eq!(model.loss::<Brazilian>(&[]), 0.0);
}

#[test]
fn with_configurations_keeps_the_weights_of_common_configurations() {
    let model = random_model(13, default_phases());
    let keep = model.configurations[3].clone();
    let new_config = Configuration {
        region: 1,
        atoms: vec![Atom::new(21, OPPONENT_KING), Atom::new(22, OPPONENT_KING)],
    };
    assert!(!model.configurations.contains(&new_config));
    let next = model.with_configurations(vec![new_config, keep]);
    next.validate::<Brazilian>().unwrap();
    for p in 0..model.phases.count() {
        assert_eq!(next.weights[p], vec![0.0, model.weights[p][3]]);
    }
    assert_eq!(next.scale, model.scale);
}

#[test]
fn json_round_trip() {
    let model = random_model(17, default_phases());
    let text = serde_json::to_string(&model).unwrap();
    let back: GlemModel = serde_json::from_str(&text).unwrap();
    assert_eq!(back, model);
    back.validate::<Brazilian>().unwrap();
    let (a, b) = (model.compile::<Brazilian>(), Glem::new(&back).unwrap());
    for p in random_positions(1, 200) {
        assert_eq!(a.evaluate(&p), b.evaluate(&p));
    }
}

#[test]
fn validate_rejects_corrupt_models() {
    let good = random_model(19, default_phases());
    good.validate::<Brazilian>().unwrap();
    type Corrupt = fn(&mut GlemModel);
    let cases: Vec<(&str, Corrupt)> = vec![
        ("feature set", |m| m.features = "other".into()),
        ("no regions", |m| m.regions.clear()),
        ("region square 40", |m| m.regions[0].squares[0] = 40),
        ("region square 0", |m| m.regions[0].squares[0] = 0),
        ("region square twice", |m| {
            m.regions[0].squares[1] = m.regions[0].squares[0]
        }),
        ("region of 9 squares", |m| m.regions[0].squares.push(1)),
        ("empty region", |m| m.regions[0].squares.clear()),
        ("phases", |m| m.phases.starts = vec![0, 12, 12]),
        ("weight rows", |m| {
            m.weights.pop();
        }),
        ("weight row length", |m| {
            m.weights[1].pop();
        }),
        ("NaN weight", |m| m.weights[2][5] = f32::NAN),
        ("infinite weight", |m| m.weights[0][0] = f32::INFINITY),
        ("config square 40", |m| {
            m.configurations[0].atoms[0].square = 40
        }),
        ("config value 3", |m| m.configurations[0].atoms[0].value = 3),
        ("config region", |m| m.configurations[0].region = 99),
        ("config outside region", |m| {
            m.configurations[0] = Configuration {
                region: 0,
                atoms: vec![Atom::new(1, EMPTY)],
            }
        }),
        ("no atoms", |m| m.configurations[0].atoms.clear()),
        ("unsorted atoms", |m| {
            let c = m
                .configurations
                .iter_mut()
                .find(|c| c.atoms.len() == 2)
                .unwrap();
            c.atoms.swap(0, 1);
        }),
        ("duplicate", |m| {
            let c = m.configurations[0].clone();
            m.configurations.push(c);
            for row in &mut m.weights {
                row.push(0.0);
            }
        }),
        ("scale", |m| m.scale = f32::NAN),
        ("zero scale", |m| m.scale = 0.0),
    ];
    for (name, corrupt) in cases {
        let mut m = good.clone();
        corrupt(&mut m);
        assert!(m.validate::<Brazilian>().is_err(), "{name} accepted");
        assert!(Glem::<Brazilian>::new(&m).is_err(), "{name} compiled");
    }
    // A payload with the wrong shape never decodes.
    assert!(serde_json::from_str::<GlemModel>("{\"features\": 3}").is_err());
}

#[test]
fn samples_label_quiet_positions_with_the_result_for_the_side_to_move() {
    // 1. 22-18 11-15 2. 18x11 8x15: captures pending after 11-15 and 18x11.
    let mut positions = vec![Brazilian::start()];
    let mut moves = Vec::new();
    for text in ["22-18", "11-15", "18x11", "8x15"] {
        let p = *positions.last().unwrap();
        let mv = p.parse_move(text).unwrap();
        moves.push(mv);
        positions.push(p.play(mv));
    }
    assert!(!positions[2].is_quiet() && !positions[3].is_quiet());
    assert!(positions[4].is_quiet());
    let game = DatasetGame {
        index: 0,
        positions: positions.clone(),
        moves,
        scores: vec![0, 150, -300, 200],
        depths: vec![4; 4],
        leaves: positions[..4].to_vec(),
        outcome: Outcome::Win(Side::First),
        reason: EndReason::PlyCap,
    };
    let samples = samples_from_games(std::slice::from_ref(&game), 0.0, None);
    let got: Vec<(Brazilian, f32)> = samples.iter().map(|s| (s.position, s.target)).collect();
    // The last position has no score: the result alone.
    assert_eq!(
        got,
        vec![
            (positions[0], 1.0),
            (positions[1], 0.0),
            (positions[4], 1.0)
        ]
    );
    let blended = samples_from_games(&[game], 0.5, None);
    let expected = [
        0.5 + 0.5 * 0.5,
        0.5 * logistic(150.0 / SEARCH_SCALE as f64) as f32,
        1.0,
    ];
    assert_eq!(blended.len(), 3);
    for (s, e) in blended.iter().zip(expected) {
        assert!((s.target - e).abs() < 1e-6, "{} vs {e}", s.target);
    }
}
