//! Kalah played perfectly: the solver's moves (capped in nodes a move), with the
//! endgame database of the variant's stones.

use std::path::Path;
use std::sync::Arc;

use super::solve::Solver;
use super::solve::board::{pits_of, stones};
use super::solve::db::EndgameDb;
use super::solve::file::{self, db_stones_for, open_or_build};
use super::{Kalah, KalahMove, KalahRules};
use crate::arena::perfect::{ExactMover, Perfect, PerfectGame};
use crate::game::Game;
use crate::search::{Tablebase, end_score};

/// The solver's table in each player, MiB.
const SOLVER_TT_MIB: usize = 64;

/// The Kalah solver as an exact mover.
struct SolverMover {
    solver: Solver,
    node_cap: u64,
}

impl ExactMover<Kalah> for SolverMover {
    fn exact_move(&mut self, pos: &Kalah) -> Option<(KalahMove, i32)> {
        let (mv, solution) = self.solver.best_move_capped(pos, self.node_cap).ok()??;
        Some((mv, end_score::<Kalah>(solution.value, 0)))
    }

    fn new_game(&mut self) {
        self.solver.forget();
    }
}

impl PerfectGame for Kalah {
    fn perfect(
        rules: KalahRules,
        tablebase: Option<Arc<dyn Tablebase<Kalah>>>,
        db_dir: Option<&Path>,
        node_cap: u64,
        note: &mut dyn FnMut(String),
    ) -> Result<Perfect<Kalah>, String> {
        let start = Kalah::start_of(rules);
        let size = db_stones_for(stones(&pits_of(&start)));
        let (db, _, took, warnings) = open_or_build(file::db_dir(db_dir).as_deref(), rules, size);
        for warning in warnings {
            note(format!("warning: {warning}"));
        }
        // The moves a capped solve does not finish are searched with the match's
        // database too (`--egdb`), as the other side's are.
        let fallback = if tablebase.is_some() {
            "stores and the match's database"
        } else {
            "stores"
        };
        note(format!(
            "perfect: Kalah solver ({node_cap} nodes a move, then the search with {fallback}), \
             database of {size} stones ready in {:.1} s",
            took.as_secs_f64()
        ));
        Ok(Perfect::new(
            move || solver_mover(rules, &db, node_cap),
            tablebase,
        ))
    }
}

fn solver_mover(
    rules: KalahRules,
    db: &Arc<EndgameDb>,
    node_cap: u64,
) -> Box<dyn ExactMover<Kalah>> {
    let solver = Solver::new(rules, SOLVER_TT_MIB, Some(Arc::clone(db)))
        .expect("the database was built for these rules");
    Box::new(SolverMover { solver, node_cap })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A capped solve that fails leaves its bounds in the table, so a second try within
    /// the game can succeed; a new game starts as a fresh solver does.
    #[test]
    fn a_new_game_forgets_the_capped_solves() {
        let rules = KalahRules {
            stones: 2,
            empty_capture: false,
        };
        let start = Kalah::start_of(rules);
        let solver = || Solver::new(rules, 16, None).unwrap();
        let needed = solver().solve(&start).unwrap().nodes;
        let mut mover = SolverMover {
            solver: solver(),
            node_cap: needed - 1,
        };
        assert_eq!(mover.exact_move(&start), None);
        assert!(mover.exact_move(&start).is_some());
        mover.new_game();
        assert_eq!(mover.exact_move(&start), None);
    }
}
