//! The held-out sample `train` measures its model on after every iteration: a fixed set
//! of positions with exact values, drawn once from the run's seed, so the curve shows how
//! close the model's choices come to perfect play as training goes on (cheaply: the
//! positions are few and small, a second or so for each measurement).
//!
//! Each game draws its own sample ([`HeldOutGame`]): Brazilian draughts from its endgame
//! database, Kalah late positions of self-play games, solved exactly.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Case, Settings, report, verdicts};
use crate::eval::EvalGame;
use crate::eval::spec::AnyEvaluator;
use crate::search::Tablebase;

/// Search depths measured: the static choice and a shallow search.
pub const DEPTHS: [u32; 2] = [0, 4];
/// Each searcher's table, MiB.
const SEARCH_TT_MIB: usize = 2;

/// A game whose training runs can hold out positions with exact values; a game without
/// exact values keeps the default (training then measures no held-out sample).
pub trait HeldOutGame: EvalGame {
    /// `count` positions of `variant` with exact values, drawn from `seed`, and where
    /// they come from in words; `Err` says why there are none (no endgame database, …).
    fn held_out_cases(
        variant: Self::Variant,
        tablebase: Option<&Arc<dyn Tablebase<Self>>>,
        count: usize,
        seed: u64,
    ) -> Result<(Vec<Case<Self>>, String), String> {
        let _ = (variant, tablebase, count, seed);
        Err(format!("{} has no positions with exact values", Self::NAME))
    }
}

/// The held-out sample of a run and how its figures are measured.
pub struct HeldOut<G: EvalGame> {
    cases: Vec<Case<G>>,
    /// Where the positions come from, in words.
    pub source: String,
}

/// What the model scored on the held-out sample: per depth (as a string, as in
/// `evalearn accuracy --json`), the optimal-move rate and the mean value lost a move
/// (Kalah stones; draughts result steps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldOutFigures {
    pub positions: u64,
    pub depths: BTreeMap<String, DepthScore>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DepthScore {
    pub optimal_move_rate: f64,
    pub mean_value_lost: f64,
}

impl HeldOutFigures {
    /// The optimal-move rate at `depth`, if measured.
    pub fn optimal_move_rate(&self, depth: u32) -> Option<f64> {
        self.depths
            .get(&depth.to_string())
            .map(|d| d.optimal_move_rate)
    }
}

impl<G: HeldOutGame> HeldOut<G> {
    /// The sample of a run of `variant` with `seed` (`count` positions).
    pub fn new(
        variant: G::Variant,
        tablebase: Option<&Arc<dyn Tablebase<G>>>,
        count: usize,
        seed: u64,
    ) -> Result<HeldOut<G>, String> {
        let (cases, source) = G::held_out_cases(variant, tablebase, count, seed)?;
        Ok(HeldOut { cases, source })
    }
}

impl<G: EvalGame> HeldOut<G> {
    /// Positions in the sample.
    pub fn len(&self) -> usize {
        self.cases.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cases.is_empty()
    }

    /// The figures of `evaluator` on the sample (each position searched afresh, so they
    /// do not depend on the thread count).
    pub fn measure(&self, evaluator: &AnyEvaluator<G>) -> HeldOutFigures {
        let settings = Settings {
            depths: DEPTHS.to_vec(),
            draw_band: 0,
            probability: None,
            tt_mib: SEARCH_TT_MIB,
        };
        let verdicts = verdicts(&self.cases, evaluator, &settings);
        let report = report(&self.cases, &verdicts, &settings);
        HeldOutFigures {
            positions: report.positions,
            depths: report
                .depths
                .iter()
                .map(|d| {
                    (
                        d.depth.to_string(),
                        DepthScore {
                            optimal_move_rate: d.optimal.value(),
                            mean_value_lost: d.lost.value(),
                        },
                    )
                })
                .collect(),
        }
    }
}
