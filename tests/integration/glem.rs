//! GLEM end to end on real self-play games: samples, mining, fitting (thread-count
//! independent), compiling, and the compiled evaluator inside search.

use crate::glem_parts::{default_regions, fit_on_threads};
use evalearn::arena::engine_game::{Exploration, GameRules, play_engine_game};
use evalearn::arena::openings::random_openings;
use evalearn::eval::glem::{self, Atoms, Glem, GlemModel};
use evalearn::eval::{EVAL_LIMIT, Evaluator};
use evalearn::game::Game;
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::Material;
use evalearn::io::dataset::DatasetGame;
use evalearn::learn::glem::{FitParams, mine, samples_from_games};
use evalearn::rng;
use evalearn::search::{Limits, SearchConfig, Searcher};

/// Self-play games of the material evaluator at depth 3 with softmax exploration.
fn self_play(games: usize, seed: u64) -> Vec<DatasetGame<Brazilian>> {
    let openings = random_openings(Brazilian::start(), games, 6, seed).unwrap();
    let mut searcher = Searcher::new(Material, SearchConfig::default(), 1);
    openings
        .iter()
        .enumerate()
        .map(|(i, &opening)| {
            let mut rng = rng::stream(seed, i as u64);
            let exploration = Exploration {
                temperature: 0.3,
                plies: 10,
            };
            play_engine_game(
                i as u64,
                opening,
                GameRules {
                    ply_cap: 200,
                    exploration: Some(exploration),
                    adjudicator: None,
                },
                &mut rng,
                |record, _| searcher.search(record, &Limits::depth(3), |_| {}),
            )
        })
        .collect()
}

#[test]
fn glem_learns_from_self_play() {
    let games = self_play(120, 42);
    let samples = samples_from_games(&games, 0.7, None);
    assert!(samples.len() > 2000, "{} samples", samples.len());
    assert!(samples.iter().all(|s| s.position.is_quiet()));
    assert!(samples.iter().all(|s| (0.0..=1.0).contains(&s.target)));

    let positions: Vec<Brazilian> = samples.iter().map(|s| s.position).collect();
    let configurations = mine(&positions, &default_regions(), 20, 3);
    assert!(configurations.len() > 1000, "{}", configurations.len());
    let model = GlemModel::new::<Brazilian>(
        default_regions(),
        configurations,
        Brazilian::default_phases(),
    );
    model.validate::<Brazilian>().unwrap();

    let params = FitParams {
        epochs: 40,
        ..FitParams::default()
    };
    let (trained, report) = fit_on_threads(&model, &samples, &params, 1);
    let (trained2, report2) = fit_on_threads(&model, &samples, &params, 2);
    assert_eq!(trained, trained2, "the fit depends on the thread count");
    assert_eq!(report, report2);
    assert!(
        report.loss_after < 0.7 * report.loss_before,
        "loss {} -> {}",
        report.loss_before,
        report.loss_after
    );
    assert!(
        report
            .epoch_losses
            .windows(2)
            .filter(|w| w[1] > w[0])
            .count()
            < 5
    );
    trained.validate::<Brazilian>().unwrap();

    // The model file payload survives a round trip and compiles from outside.
    let text = serde_json::to_string(&trained).unwrap();
    let loaded: GlemModel = serde_json::from_str(&text).unwrap();
    let glem = Glem::<Brazilian>::new(&loaded).unwrap();
    assert_eq!(glem.name(), glem::KIND);

    // It agrees with the material evaluator on the sign of clear material imbalances.
    let mut agree = 0;
    let mut clear = 0;
    for p in &positions {
        let material = Material.evaluate(p);
        if material.abs() >= 200 {
            clear += 1;
            if glem.evaluate(p).signum() == material.signum() {
                agree += 1;
            }
        }
        assert!(glem.evaluate(p).abs() <= EVAL_LIMIT);
    }
    assert!(clear > 100 && agree * 10 >= clear * 9, "{agree} of {clear}");

    // And it drives a search.
    let mut searcher = Searcher::new(glem.clone(), SearchConfig::default(), 1);
    let result = searcher.search_position(&Brazilian::start(), &Limits::depth(6));
    assert!(result.best_move.is_some());
    assert!(result.score.abs() < EVAL_LIMIT);
}

#[test]
fn remining_keeps_what_was_learned() {
    let games = self_play(40, 7);
    let samples = samples_from_games(&games, 0.0, None);
    let positions: Vec<Brazilian> = samples.iter().map(|s| s.position).collect();
    let first = mine(&positions[..positions.len() / 2], &default_regions(), 10, 3);
    let mut model =
        GlemModel::new::<Brazilian>(default_regions(), first, Brazilian::default_phases());
    model.fit(
        &samples,
        &FitParams {
            epochs: 10,
            ..FitParams::default()
        },
    );
    let second = mine(&positions, &default_regions(), 10, 3);
    let grown = model.with_configurations(second);
    grown.validate::<Brazilian>().unwrap();
    for (c, &w) in model.configurations.iter().zip(&model.weights[1]) {
        if let Some(i) = grown.configurations.iter().position(|d| d == c) {
            assert_eq!(grown.weights[1][i], w);
        }
    }
}
