//! The search against exact values, per game: where it can see every end of the game it
//! must return the true result, and where it sees only some it must never call a lost
//! position won. (Kalah games once ended inside the search scored as a win for whoever
//! ended them; these tests would have caught it.)

use std::sync::Arc;

use evalearn::game::{ExactValue, Game};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::Material as MaterialEval;
use evalearn::games::brazilian::egdb::{Material, SliceIndex};
use evalearn::games::kalah::evaluators::KalahEval;
use evalearn::games::kalah::solve::Solver;
use evalearn::games::kalah::{Kalah, KalahRules};
use evalearn::rng;
use evalearn::search::{Limits, MAX_PLY, SearchConfig, Searcher, Tablebase, ending};
use rand::RngExt;

use crate::common::evalearn_ok;
use crate::kalah_solve::random_position;

/// Kalah positions near the end, searched until no static value is left in the tree: the
/// score is the solver's final margin, and the move keeps it.
#[test]
fn kalah_search_to_the_end_returns_the_solvers_result_and_move() {
    let mut rng = rng::stream(28, 0);
    let mut checked = 0;
    let mut by_margin = [0u32; 3];
    for (stones, empty_capture) in [(4, false), (6, false), (4, true), (6, true)] {
        let rules = KalahRules {
            stones,
            empty_capture,
        };
        let mut solver = Solver::new(rules, 16, None).unwrap();
        let mut searcher = Searcher::new(KalahEval::Stores, SearchConfig::FULL, 4);
        for i in 0..600 {
            let pos = random_position(rules, 2 + i % 9, &mut rng);
            if !pos.has_legal_move() {
                continue;
            }
            let value = solver.solve(&pos).unwrap().value;
            let result = searcher.search_position(&pos, &Limits::depth(MAX_PLY as u32 - 8));
            let found = ending::<Kalah>(result.score).map_or(0, |e| e.margin);
            assert_eq!(found, value, "{rules:?} {pos:?}: score {}", result.score);
            // With a draw the score is 0, also a possible static value: the search must
            // have stopped deepening because nothing was left to evaluate.
            assert!(result.depth < MAX_PLY as u32 - 8, "{pos:?}");
            let mv = result.best_move.unwrap();
            let after = -solver.solve(&pos.play(mv)).unwrap().value;
            assert_eq!(after, value, "{rules:?} {pos:?}: {mv:?} gives {after}");
            by_margin[(value.signum() + 1) as usize] += 1;
            checked += 1;
        }
    }
    // Thousands of positions, with wins, draws and losses among them.
    assert!(checked > 2000, "{checked}");
    assert!(by_margin.iter().all(|&n| n > 20), "{by_margin:?}");
}

/// The position of the report: A's only move ends the game and A loses by 30.
#[test]
fn analyse_says_a_loses_the_ending_it_cannot_avoid() {
    let out = evalearn_ok(&[
        "analyse",
        "--game",
        "kalah",
        "--position",
        "A:0,0,0,0,0,1,20,5,5,5,5,5,5,21",
        "--depth",
        "4",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap();
    assert!(first.contains("score loss by 30 in 1"), "{text}");
    assert_eq!(text.lines().last(), Some("bestmove 6"), "{text}");
}

/// Random draughts endings of up to four pieces against the endgame database: with the
/// database the search plays its result; without it, the
/// search may miss a result beyond its horizon but never claims a win the database calls
/// a draw or a loss, nor a loss it calls a draw or a win, nor a win slower than the
/// fastest one.
#[test]
fn draughts_search_never_contradicts_the_endgame_database() {
    let (_, egdb) = crate::egdb::database(4);
    let tablebase: Arc<dyn Tablebase<Brazilian>> = egdb.clone();
    let mut rng = rng::stream(28, 1);
    let mut plain = Searcher::new(MaterialEval, SearchConfig::FULL, 4);
    let mut seen = [0u32; 3];
    let mut checked = 0;
    for material in Material::all_up_to(4) {
        let index = SliceIndex::new(material);
        for _ in 0..40 {
            let pos = index.position(rng.random_range(0..index.size()));
            let pos = if rng.random::<bool>() {
                pos
            } else {
                pos.mirrored()
            };
            if !pos.has_legal_move() {
                continue;
            }
            let truth = egdb.probe(&pos).unwrap();
            let result = plain.search_position(&pos, &Limits::depth(8));
            match (ending::<Brazilian>(result.score), truth) {
                (None, _) => {}
                (Some(e), ExactValue::Win(d)) => {
                    assert!(e.margin > 0 && e.plies >= d, "{pos:?}: {e:?} vs {truth:?}")
                }
                (Some(e), ExactValue::Loss(d)) => {
                    assert!(e.margin < 0 && e.plies <= d, "{pos:?}: {e:?} vs {truth:?}")
                }
                (Some(e), ExactValue::Draw) => panic!("{pos:?}: {e:?} vs a draw"),
            }
            seen[match truth {
                ExactValue::Win(_) => 0,
                ExactValue::Draw => 1,
                ExactValue::Loss(_) => 2,
            }] += 1;
            // With the database the root's value is the database's, and the move keeps it
            // (a win by the fastest line).
            let mut with_db = Searcher::new(MaterialEval, SearchConfig::FULL, 1)
                .with_tablebase(Some(tablebase.clone()));
            let result = with_db.search_position(&pos, &Limits::depth(2));
            assert_eq!(result.exact, Some(truth), "{pos:?}");
            let after = egdb.probe(&pos.play(result.best_move.unwrap())).unwrap();
            let kept = match (truth, after) {
                (ExactValue::Win(d), ExactValue::Loss(e)) => e + 1 == d,
                (ExactValue::Draw, ExactValue::Draw) => true,
                (ExactValue::Loss(_), ExactValue::Win(_)) => true,
                _ => false,
            };
            assert!(kept, "{pos:?}: {truth:?} then {after:?}");
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked}");
    assert!(seen.iter().all(|&n| n > 50), "{seen:?}");
}
