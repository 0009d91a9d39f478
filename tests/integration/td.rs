//! TD(λ) learner through the public API: learning from random-play games, and the fast
//! evaluator inside the engine's search.

use evalearn::eval::Evaluator;
use evalearn::eval::td::TdEvaluator;
use evalearn::game::{Game, MoveList, Outcome};
use evalearn::games::brazilian::Brazilian;
use evalearn::learn::td::{self, Mlp};
use evalearn::search::{Limits, SearchConfig, Searcher};
use rand::RngExt;

/// A game of uniformly random moves from the start: its positions and the result for
/// White (a game still going after `cap` plies counts as a draw).
fn random_game(seed: u64, index: u64, cap: usize) -> (Vec<Brazilian>, f32) {
    let mut rng = evalearn::rng::stream(seed, index);
    let mut moves = MoveList::new();
    let mut pos = Brazilian::start();
    let mut positions = Vec::new();
    for _ in 0..cap {
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            return (positions, td::result_for_first(pos.outcome_without_moves()));
        }
        positions.push(pos);
        pos = pos.play(moves[rng.random_range(0..moves.len())]);
    }
    (positions, td::result_for_first(Outcome::Draw))
}

/// Positions with the result of their game, the second half of every game (where the
/// result is predictable from the board).
fn samples(games: &[(Vec<Brazilian>, f32)]) -> Vec<(Brazilian, f32)> {
    games
        .iter()
        .flat_map(|(positions, result)| {
            positions[positions.len() / 2..]
                .iter()
                .map(move |&p| (p, *result))
        })
        .collect()
}

/// TD(λ) over a few hundred random-play games makes the network predict the results of
/// other random-play games better than at the start (and than a constant guess).
#[test]
fn td_lambda_learns_to_predict_random_play_results() {
    let training: Vec<_> = (0..400).map(|i| random_game(1, i, 200)).collect();
    let held_out: Vec<_> = (0..200).map(|i| random_game(2, i, 200)).collect();
    let test = samples(&held_out);
    let mean = test.iter().map(|s| s.1).sum::<f32>() / test.len() as f32;
    let constant = test.iter().map(|s| (s.1 - mean).powi(2)).sum::<f32>() / test.len() as f32;

    let mut mlp = Mlp::<Brazilian>::new_random(td::DEFAULT_HIDDEN, 42);
    let before = td::loss(&mlp, &test);
    let mut td_error = 0.0;
    for (positions, result) in &training {
        let report = td::td_lambda_episode(&mut mlp, positions, *result, 0.7, 0.1);
        assert_eq!(report.steps, positions.len());
        td_error += report.mean_squared_td_error;
    }
    let after = td::loss(&mlp, &test);
    eprintln!(
        "held-out loss: {before:.4} before, {after:.4} after, constant guess {constant:.4}; \
         mean squared TD error {:.4}",
        td_error / training.len() as f32
    );
    assert!(after < 0.8 * before, "loss {before} -> {after}");
    assert!(
        after < 0.9 * constant,
        "loss {after}, constant guess {constant}"
    );
}

/// The evaluator drives the engine's search, and the search's score is the static value
/// of the principal-variation leaf (what TD-Leaf trains), seen from the root.
#[test]
fn evaluator_drives_the_search_and_the_pv_leaf_carries_the_score() {
    let mlp = Mlp::<Brazilian>::new_random(td::DEFAULT_HIDDEN, 3);
    let evaluator: TdEvaluator<Brazilian> = mlp.evaluator();
    let mut searcher = Searcher::new(evaluator.clone(), SearchConfig::FULL, 1);
    let limits = Limits {
        depth: Some(4),
        ..Limits::default()
    };
    let (positions, _) = random_game(5, 0, 30);
    let mut checked = 0;
    for pos in positions.iter().filter(|p| p.is_quiet()) {
        let result = searcher.search_position(pos, &limits);
        let leaf = result.pv.iter().fold(*pos, |at, &mv| at.play(mv));
        if !leaf.is_quiet() || !leaf.has_legal_move() {
            continue;
        }
        let value = evaluator.evaluate(&leaf);
        let sign = if leaf.side_to_move() == pos.side_to_move() {
            1
        } else {
            -1
        };
        assert_eq!(result.score, sign * value, "{}", pos.format_position());
        checked += 1;
    }
    assert!(checked > 0);
}
