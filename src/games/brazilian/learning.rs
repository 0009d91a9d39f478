//! What Brazilian draughts offers evaluation and learning: its hand-made evaluators, the kinds of
//! learned models its inputs support (every one: its named features, atoms and network
//! inputs are in `features.rs` and `encoding.rs`), and its learners — all of evalearn's.

use std::path::Path;

use super::{Brazilian, Material};
use crate::eval::spec::ModelKind;
use crate::eval::{EvalGame, glem, linear, td};
use crate::learn::{LearnerKind, TrainGame, registry};

impl EvalGame for Brazilian {
    type Builtin = Material;
    const BUILTINS: &'static [&'static str] = &["material"];

    const MODEL_KINDS: &'static [ModelKind<Brazilian>] =
        &[linear::kind(), glem::kind(), td::kind()];
    /// Material bounds a model's value closely: a quarter of the bench's leaves are
    /// settled by it with `td-clipped.bin` (docs/speed.md, "Lazy evaluation").
    const LAZY_EVALUATION: bool = true;

    fn builtin(name: &str) -> Option<Material> {
        (name == "material").then_some(Material)
    }
}

impl TrainGame for Brazilian {
    fn learners() -> Vec<&'static dyn LearnerKind<Self>> {
        registry::all()
    }

    /// A game file (`.pdn`: the final position of each game) or a position per line.
    fn read_openings(
        variant: <Self as crate::game::Game>::Variant,
        path: &Path,
    ) -> Result<Vec<Self>, String> {
        crate::arena::openings::read_openings(variant, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::config::{TargetKind, TrainingSettings};

    #[test]
    fn draughts_refuses_margin_targets() {
        let margin = TrainingSettings {
            target: TargetKind::Margin,
            ..TrainingSettings::default()
        };
        let err = margin.check_target::<Brazilian>().unwrap_err();
        assert!(
            err.contains("training.target") && err.contains("margins"),
            "{err}"
        );
        assert!(
            TrainingSettings::default()
                .check_target::<Brazilian>()
                .is_ok()
        );
    }
}
