//! The `perfect` player: exact moves where evalearn knows the exact values (the Kalah
//! solver, capped in nodes per move; the draughts endgame database), the search with
//! the game's baseline evaluator elsewhere. Against it a match measures how many stones
//! or games a model gives away to perfect play.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::players::{Contender, Engine, Player};
use crate::eval::EvalGame;
use crate::eval::spec::AnyEvaluator;
use crate::game::brazilian::Brazilian;
use crate::game::kalah::solve::Solver;
use crate::game::kalah::solve::board::{pits_of, stones};
use crate::game::kalah::solve::db::EndgameDb;
use crate::game::kalah::solve::file::{db_stones_for, open_or_build};
use crate::game::kalah::{Kalah, KalahRules};
use crate::game::{ExactValue, Game, GameRecord};
use crate::search::{
    Limits, NodeCounts, SearchResult, Searcher, Tablebase, end_score, exact_score,
};

/// Nodes the Kalah solver may spend on one move before the search plays it instead.
pub const DEFAULT_NODE_CAP: u64 = 2_000_000;
/// The solver's table in each player, MiB.
const SOLVER_TT_MIB: usize = 64;

/// Finds exact moves for some positions.
pub trait ExactMover<G: Game>: Send {
    /// A move keeping the value of `pos`, with its search score, if this mover knows
    /// one (within its cap).
    fn exact_move(&mut self, pos: &G) -> Option<(G::Move, i32)>;
}

/// A game with a perfect player.
pub trait PerfectGame: EvalGame {
    /// What the perfect players of a match share (a database), for `variant`;
    /// `tablebase` is the match's endgame database, `kalah_db_dir` where Kalah databases
    /// are kept. Notes for the user go to `note`.
    fn perfect(
        variant: Self::Variant,
        tablebase: Option<Arc<dyn Tablebase<Self>>>,
        kalah_db_dir: Option<&Path>,
        node_cap: u64,
        note: &mut dyn FnMut(String),
    ) -> Result<Perfect<Self>, String>;
}

/// A perfect contender: an exact mover made per player, and the search it falls back to.
pub struct Perfect<G: EvalGame> {
    make: Box<dyn Fn() -> Box<dyn ExactMover<G>> + Send + Sync>,
    fallback: Engine<G, AnyEvaluator<G>>,
}

impl<G: EvalGame> Perfect<G> {
    pub fn new(
        make: impl Fn() -> Box<dyn ExactMover<G>> + Send + Sync + 'static,
        tablebase: Option<Arc<dyn Tablebase<G>>>,
    ) -> Perfect<G> {
        Perfect {
            make: Box::new(make),
            fallback: Engine::new(AnyEvaluator::baseline(), tablebase),
        }
    }
}

impl<G: EvalGame> Contender<G> for Perfect<G> {
    type Player = PerfectPlayer<G>;

    fn player(&self, tt_mib: usize) -> Result<PerfectPlayer<G>, String> {
        Ok(PerfectPlayer {
            exact: (self.make)(),
            fallback: self.fallback.player(tt_mib)?,
        })
    }
}

/// One worker's perfect player.
pub struct PerfectPlayer<G: EvalGame> {
    exact: Box<dyn ExactMover<G>>,
    fallback: Searcher<G, AnyEvaluator<G>>,
}

impl<G: EvalGame> Player<G> for PerfectPlayer<G> {
    fn think(
        &mut self,
        record: &GameRecord<G>,
        limits: &Limits,
    ) -> Result<SearchResult<G>, String> {
        let started = Instant::now();
        match self.exact.exact_move(record.position()) {
            Some((mv, score)) => Ok(SearchResult {
                best_move: Some(mv),
                score,
                depth: 0,
                pv: vec![mv],
                nodes: NodeCounts::default(),
                elapsed: started.elapsed(),
                stopped: false,
                root_values: Vec::new(),
                exact: None,
            }),
            None => self.fallback.think(record, limits),
        }
    }
}

/// The Kalah solver as an exact mover.
struct SolverMover {
    solver: Solver,
    node_cap: u64,
}

impl ExactMover<Kalah> for SolverMover {
    fn exact_move(&mut self, pos: &Kalah) -> Option<(crate::game::kalah::KalahMove, i32)> {
        let (mv, solution) = self.solver.best_move_capped(pos, self.node_cap).ok()??;
        Some((mv, end_score::<Kalah>(solution.value, 0)))
    }
}

/// A tablebase as an exact mover: in a position it holds with all its moves, the move
/// keeping the value (fastest win, slowest loss, the first drawing move).
struct TablebaseMover<G: Game> {
    tablebase: Arc<dyn Tablebase<G>>,
}

impl<G: Game> ExactMover<G> for TablebaseMover<G> {
    fn exact_move(&mut self, pos: &G) -> Option<(G::Move, i32)> {
        let value = self.tablebase.probe(pos)?;
        let mut moves = G::Moves::default();
        pos.legal_moves(&mut moves);
        let mut best: Option<(G::Move, ExactValue)> = None;
        for &mv in moves.iter() {
            let after = self.tablebase.probe(&pos.play(mv))?.parent();
            if best.is_none_or(|(_, b)| after.preference() > b.preference()) {
                best = Some((mv, after));
            }
        }
        let (mv, after) = best?;
        // A disagreement means a damaged database: then nothing is claimed.
        if after != value {
            return None;
        }
        Some((mv, exact_score::<G>(value, 0)))
    }
}

impl PerfectGame for Brazilian {
    fn perfect(
        _: (),
        tablebase: Option<Arc<dyn Tablebase<Brazilian>>>,
        _: Option<&Path>,
        _: u64,
        _: &mut dyn FnMut(String),
    ) -> Result<Perfect<Brazilian>, String> {
        let tablebase = tablebase
            .ok_or("perfect plays Brazilian draughts from the endgame database: give --egdb DIR")?;
        let shared = Arc::clone(&tablebase);
        Ok(Perfect::new(
            move || {
                Box::new(TablebaseMover {
                    tablebase: Arc::clone(&shared),
                })
            },
            Some(tablebase),
        ))
    }
}

impl PerfectGame for Kalah {
    fn perfect(
        rules: KalahRules,
        _: Option<Arc<dyn Tablebase<Kalah>>>,
        kalah_db_dir: Option<&Path>,
        node_cap: u64,
        note: &mut dyn FnMut(String),
    ) -> Result<Perfect<Kalah>, String> {
        let start = Kalah::start_of(rules);
        let size = db_stones_for(stones(&pits_of(&start)));
        let (db, _, took, warnings) = open_or_build(kalah_db_dir, rules, size);
        for warning in warnings {
            note(format!("warning: {warning}"));
        }
        note(format!(
            "perfect: Kalah solver ({node_cap} nodes a move, then the search with stores), \
             database of {size} stones ready in {:.1} s",
            took.as_secs_f64()
        ));
        Ok(Perfect::new(
            move || solver_mover(rules, &db, node_cap),
            None,
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

/// Reads `perfect` or `perfect:NODES` (the solver's nodes a move): `None` for any other
/// text, `Some(Err)` for a bad count.
pub fn parse_spec(text: &str) -> Option<Result<u64, String>> {
    let rest = text.trim().strip_prefix("perfect")?;
    if rest.is_empty() {
        return Some(Ok(DEFAULT_NODE_CAP));
    }
    let count = rest.strip_prefix(':')?;
    Some(
        count
            .parse::<u64>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("'{count}' is not a node count (perfect:NODES, NODES ≥ 1)")),
    )
}

/// The perfect contender of a match for `variant` (Kalah databases in `kalah_db_dir`,
/// else the folder of `evalearn solve`; notes on stderr).
pub fn load<G: PerfectGame>(
    variant: G::Variant,
    tablebase: Option<Arc<dyn Tablebase<G>>>,
    kalah_db_dir: Option<&Path>,
    node_cap: u64,
) -> Result<Box<Perfect<G>>, String> {
    let dir = crate::game::kalah::solve::file::db_dir(kalah_db_dir);
    G::perfect(variant, tablebase, dir.as_deref(), node_cap, &mut |line| {
        eprintln!("{line}")
    })
    .map(Box::new)
}
