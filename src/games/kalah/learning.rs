//! What Kalah offers evaluation and learning: its hand-made evaluators, the kinds of
//! learned models its inputs support (every one: its named features, atoms and network
//! inputs are in `features.rs` and `encoding.rs`), and its learners — all of evalearn's.

use std::path::Path;

use super::Kalah;
use super::evaluators::KalahEval;
use crate::eval::spec::ModelKind;
use crate::eval::{EvalGame, glem, linear, td};
use crate::learn::{LearnerKind, TrainGame, registry};

impl EvalGame for Kalah {
    type Builtin = KalahEval;
    const BUILTINS: &'static [&'static str] = &["stores", "activity", "tseitin"];

    const MODEL_KINDS: &'static [ModelKind<Kalah>] = &[linear::kind(), glem::kind(), td::kind()];
    // No lazy evaluation (the default): the stones still in the pits weigh as much as
    // the stores, which settle 2% of the bench's leaves with `kalah-clipped.bin`, less
    // than the check costs (docs/speed.md, "Lazy evaluation").

    fn builtin(name: &str) -> Option<KalahEval> {
        match name {
            "stores" => Some(KalahEval::Stores),
            "activity" => Some(KalahEval::Activity),
            "tseitin" => Some(KalahEval::Tseitin),
            _ => None,
        }
    }
}

impl TrainGame for Kalah {
    fn learners() -> Vec<&'static dyn LearnerKind<Self>> {
        registry::all()
    }

    /// A game file (`.klh`: the final position of each game) or a position per line.
    fn read_openings(
        variant: <Self as crate::game::Game>::Variant,
        path: &Path,
    ) -> Result<Vec<Self>, String> {
        crate::arena::openings::read_openings(variant, path)
    }
}

/// A finished Kalah(6,4) game of one move, for the learners' tests of their targets: A
/// (to move, first) sows its last stone into its store, 21, and the game ends with B's
/// two stones going to B's, 27: −6 for A. Its one score is 150 (A's search value), its
/// one leaf the end.
#[cfg(test)]
fn finished_game() -> crate::io::dataset::DatasetGame<Kalah> {
    use super::KalahRules;
    use crate::game::{EndReason, Game, Outcome, Side};
    let rules = KalahRules {
        stones: 4,
        empty_capture: false,
    };
    let start = Kalah::parse_position_of(rules, "A:0,0,0,0,0,1,20,0,0,0,0,0,2,25").unwrap();
    let mv = start.parse_move("6").unwrap();
    let end = start.play(mv);
    assert!(!end.has_legal_move());
    crate::io::dataset::DatasetGame {
        index: 0,
        positions: vec![start, end],
        moves: vec![mv],
        scores: vec![150],
        depths: vec![1],
        leaves: vec![end],
        outcome: Outcome::Win(Side::Second),
        reason: EndReason::NoMoves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::glem::logistic;
    use crate::game::{EndReason, Game, Outcome, Side};
    use crate::io::dataset::DatasetGame;
    use crate::learn::config::{TargetKind, TrainingSettings};
    use crate::learn::controls::{OutcomeTarget, PositionFilter};
    use crate::learn::{samuel, td};

    fn logistic_of(margin: f64, scale: f64) -> f64 {
        1.0 / (1.0 + (-margin / scale).exp())
    }

    #[test]
    fn a_finished_games_target_is_its_result_or_its_margin_scaled() {
        let game = finished_game();
        assert_eq!(
            game.positions[1].final_margin(),
            6,
            "B to move, B ahead by 6"
        );
        let result = OutcomeTarget::Result;
        assert_eq!(result.of_game(&game, Side::First), 0.0);
        assert_eq!(result.of_game(&game, Side::Second), 1.0);
        assert_eq!(result.of_end(&game.positions[1]), 1.0);
        assert_eq!(result.centi_of_game(&game, Side::First, 300.0), -300.0);
        for scale in [1.0, 4.0, 10.0] {
            let margin = OutcomeTarget::Margin { scale };
            let for_a = logistic_of(-6.0, scale);
            assert!((margin.of_game(&game, Side::First) - for_a).abs() < 1e-12);
            assert!((margin.of_game(&game, Side::Second) - (1.0 - for_a)).abs() < 1e-12);
            assert!((margin.of_end(&game.positions[1]) - (1.0 - for_a)).abs() < 1e-12);
            // Samuel's targets are in the evaluations' units: 100 a stone.
            assert_eq!(margin.centi_of_game(&game, Side::First, 300.0), -600.0);
            assert_eq!(margin.centi_of_game(&game, Side::Second, 300.0), 600.0);
        }
        // A game stopped by the ply cap has no margin: its result counts.
        let capped = DatasetGame {
            reason: EndReason::PlyCap,
            outcome: Outcome::Draw,
            ..game
        };
        let margin = OutcomeTarget::Margin { scale: 4.0 };
        assert_eq!(margin.of_game(&capped, Side::First), 0.5);
        assert_eq!(margin.centi_of_game(&capped, Side::First, 300.0), 0.0);
    }

    #[test]
    fn glem_samples_take_the_margin_as_their_target() {
        use crate::learn::glem::samples_from_games_filtered;
        let game = finished_game();
        let none = PositionFilter::none();
        let margin = OutcomeTarget::Margin { scale: 4.0 };
        // The one sample: the start, A to move, worth −6 to A.
        let samples =
            samples_from_games_filtered(std::slice::from_ref(&game), 0.0, None, &none, margin);
        assert_eq!(samples.len(), 1);
        assert_eq!(samples[0].target, logistic_of(-6.0, 4.0) as f32);
        let results = samples_from_games_filtered(
            std::slice::from_ref(&game),
            0.0,
            None,
            &none,
            OutcomeTarget::Result,
        );
        assert_eq!(results[0].target, 0.0);
        // Blended with the search's 150, a margin model's own value: 100·scale a logit.
        let blended = samples_from_games_filtered(&[game], 0.5, None, &none, margin);
        let searched = logistic(150.0 / 400.0);
        let expected = 0.5 * logistic_of(-6.0, 4.0) as f32 + 0.5 * searched as f32;
        assert!((blended[0].target - expected).abs() < 1e-6);
    }

    #[test]
    fn margin_targets_suit_kalah() {
        let t = TrainingSettings {
            target: TargetKind::Margin,
            ..TrainingSettings::default()
        };
        assert!(t.check_target::<Kalah>().is_ok());
    }

    #[test]
    fn td_targets_and_known_leaves_carry_the_margin() {
        td::tests::targets_and_known_leaves_carry_the_margin(&finished_game());
    }

    #[test]
    fn a_td_margin_model_evaluates_in_stones() {
        let mut rng = crate::rng::stream(3, 0);
        let mut moves = super::super::KalahMoves::new();
        let positions: Vec<Kalah> = (0..200)
            .filter_map(|_| crate::game::random_plies(Kalah::start(), 6, &mut rng, &mut moves))
            .collect();
        td::tests::a_margin_model_evaluates_in_stones(&positions);
    }

    #[test]
    fn samuel_targets_blend_in_the_margin_in_centi_units() {
        // A's one position: search 150, the game −6 stones = −600: (150 − 600) / 2.
        samuel::tests::targets_blend_in_the_margin_in_centi_units(&finished_game(), 150);
    }
}
