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
