//! The held-out sample `train` measures its model on after every iteration: a fixed set
//! of positions with exact values, drawn once from the run's seed, so the curve shows how
//! close the model's choices come to perfect play as training goes on (cheaply: the
//! positions are few and small, a second or so for each measurement).
//!
//! Draughts: positions of 3 pieces up to the most the endgame database holds (at most
//! 5), drawn from its slices — only when the run has a database. Kalah (every variant):
//! late positions of seeded self-play games, with at most [`KALAH_PIT_STONES`] stones in
//! the pits, solved exactly with a small endgame database built in memory.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Case, Settings, draughts, kalah, report, verdicts};
use crate::eval::EvalGame;
use crate::eval::spec::AnyEvaluator;
use crate::game::brazilian::Brazilian;
use crate::game::kalah::solve::Solver;
use crate::game::kalah::solve::cache::{CachedSolver, SolvedCache};
use crate::game::kalah::solve::db::EndgameDb;
use crate::game::kalah::{Kalah, KalahRules};
use crate::search::Tablebase;

/// Search depths measured: the static choice and a shallow search.
pub const DEPTHS: [u32; 2] = [0, 4];
/// Most pieces of the draughts positions.
pub const DRAUGHTS_MAX_PIECES: u32 = 5;
/// Most stones in the pits of the Kalah positions, and the size of the database they
/// are solved with (every configuration of at most this many stones).
pub const KALAH_PIT_STONES: u32 = 24;
pub const KALAH_DB_STONES: u32 = 12;
/// The Kalah solver's table, MiB.
const KALAH_TT_MIB: usize = 32;
/// Each searcher's table, MiB.
const SEARCH_TT_MIB: usize = 2;

/// A game whose training runs can hold out positions with exact values.
pub trait HeldOutGame: EvalGame {
    /// `count` positions of `variant` with exact values, drawn from `seed`; `Err` says
    /// why there are none (no endgame database, …).
    fn held_out_cases(
        variant: Self::Variant,
        tablebase: Option<&Arc<dyn Tablebase<Self>>>,
        count: usize,
        seed: u64,
    ) -> Result<(Vec<Case<Self>>, String), String>;
}

impl HeldOutGame for Brazilian {
    fn held_out_cases(
        _variant: (),
        tablebase: Option<&Arc<dyn Tablebase<Brazilian>>>,
        count: usize,
        seed: u64,
    ) -> Result<(Vec<Case<Brazilian>>, String), String> {
        let tablebase = tablebase.ok_or("no endgame database (give --egdb DIR)")?;
        let most = tablebase.max_pieces().min(DRAUGHTS_MAX_PIECES);
        if most < 3 {
            return Err(format!("the endgame database holds only {most} pieces"));
        }
        let mix: Vec<(u32, f64)> = (3..=most).map(|pieces| (pieces, 1.0)).collect();
        // Slices the database lacks give no case: their draws are simply drawn again.
        let cases = draughts::sample_from(tablebase.as_ref(), |_| true, &mix, count, seed)?;
        Ok((
            cases,
            format!("positions of 3 to {most} pieces from the endgame database"),
        ))
    }
}

impl HeldOutGame for Kalah {
    fn held_out_cases(
        rules: KalahRules,
        _tablebase: Option<&Arc<dyn Tablebase<Kalah>>>,
        count: usize,
        seed: u64,
    ) -> Result<(Vec<Case<Kalah>>, String), String> {
        let positions = kalah::selfplay_positions(rules, count, seed, Some(KALAH_PIT_STONES))?;
        let db = Arc::new(EndgameDb::build(rules, KALAH_DB_STONES));
        let solver = Solver::new(rules, KALAH_TT_MIB, Some(db))?;
        let (cache, _) = SolvedCache::open(None, rules);
        let mut exact = CachedSolver { solver, cache };
        let cases = positions
            .iter()
            .filter_map(|pos| kalah::case_of(&mut exact, pos))
            .collect();
        Ok((
            cases,
            format!(
                "late positions (at most {KALAH_PIT_STONES} stones in the pits) of self-play games, solved"
            ),
        ))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::kalah::KalahEval;
    use crate::game::Game;
    use crate::game::kalah::solve::board::{pits_of, stones};

    #[test]
    fn the_kalah_sample_is_fixed_by_the_seed_late_and_exact() {
        let rules = KalahRules {
            stones: 3,
            ..KalahRules::default()
        };
        let a = HeldOut::<Kalah>::new(rules, None, 40, 5).unwrap();
        let b = HeldOut::<Kalah>::new(rules, None, 40, 5).unwrap();
        assert!(a.len() >= 30, "{}", a.len());
        let positions = |h: &HeldOut<Kalah>| h.cases.iter().map(|c| c.position).collect::<Vec<_>>();
        assert_eq!(positions(&a), positions(&b));
        assert_ne!(
            positions(&a),
            positions(&HeldOut::<Kalah>::new(rules, None, 40, 6).unwrap())
        );
        // Each value as a plain solve (no database, no cache) finds it.
        let mut solver = Solver::new(rules, 16, None).unwrap();
        for case in &a.cases {
            assert!(stones(&pits_of(&case.position)) <= KALAH_PIT_STONES);
            assert_eq!(solver.solve(&case.position).unwrap().value, case.value);
            for &(mv, value) in &case.moves {
                let child = case.position.play(mv);
                // A move is compound (extra turns included): the turn passes.
                assert_eq!(value, -solver.solve(&child).unwrap().value);
            }
        }
        let figures = a.measure(&AnyEvaluator::Builtin(KalahEval::Stores));
        assert_eq!(figures.positions, a.len() as u64);
        for depth in DEPTHS {
            let rate = figures.optimal_move_rate(depth).unwrap();
            assert!((0.0..=1.0).contains(&rate));
        }
    }

    #[test]
    fn draughts_without_a_database_has_no_sample() {
        let err = HeldOut::<Brazilian>::new((), None, 10, 1).err().unwrap();
        assert!(err.contains("no endgame database"), "{err}");
    }
}
