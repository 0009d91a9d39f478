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
pub(crate) fn finished_game() -> crate::io::dataset::DatasetGame<Kalah> {
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
    use crate::game::Game;
    use crate::learn::{samuel, td};

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
