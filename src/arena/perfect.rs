//! The `perfect` player: exact moves where evalearn knows the exact values (a game's
//! solver, capped in nodes per move; its endgame database), the search with the game's
//! baseline evaluator elsewhere. Against it a match measures how many stones
//! or games a model gives away to perfect play.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::players::{Contender, Engine, Player};
use crate::eval::EvalGame;
use crate::eval::spec::AnyEvaluator;
use crate::game::{ExactValue, Game, GameRecord};
use crate::search::{Limits, NodeCounts, SearchResult, Searcher, Tablebase, exact_score};

/// Nodes an exact solver may spend on one move before the search plays it instead.
pub const DEFAULT_NODE_CAP: u64 = 2_000_000;

/// Finds exact moves for some positions.
pub trait ExactMover<G: Game>: Send {
    /// A move keeping the value of `pos`, with its search score, if this mover knows
    /// one (within its cap).
    fn exact_move(&mut self, pos: &G) -> Option<(G::Move, i32)>;

    /// A new game starts: a mover whose capped solves use what earlier positions left
    /// behind forgets it, so a game's moves do not depend on which games the worker
    /// played before (which the scheduling decides).
    fn new_game(&mut self) {}
}

/// A game with a perfect player (the `perfect` side of a match); a game without one
/// keeps the default.
pub trait PerfectGame: EvalGame {
    /// What the perfect players of a match share (a database), for `variant`;
    /// `tablebase` is the match's endgame database, `db_dir` the folder given for the
    /// game's solver databases (`--db-dir`). Notes for the user go to `note`.
    fn perfect(
        variant: Self::Variant,
        tablebase: Option<Arc<dyn Tablebase<Self>>>,
        db_dir: Option<&Path>,
        node_cap: u64,
        note: &mut dyn FnMut(String),
    ) -> Result<Perfect<Self>, String> {
        let _ = (variant, tablebase, db_dir, node_cap, note);
        Err(format!("{} has no perfect player", Self::NAME))
    }
}

/// A perfect contender: an exact mover made per player, and the search it falls back to.
pub struct Perfect<G: EvalGame> {
    make: Box<dyn Fn() -> Box<dyn ExactMover<G>> + Send + Sync>,
    fallback: Engine<G, AnyEvaluator<G>>,
    moves: Arc<PerfectMoves>,
}

/// The moves a perfect contender's players have made so far, and how many of them were
/// exact (the rest the fallback search's): how perfect "perfect" was in a match.
#[derive(Debug, Default)]
pub struct PerfectMoves {
    exact: AtomicU64,
    searched: AtomicU64,
}

impl PerfectMoves {
    /// (exact moves, all moves).
    pub fn counts(&self) -> (u64, u64) {
        let exact = self.exact.load(Ordering::Relaxed);
        (exact, exact + self.searched.load(Ordering::Relaxed))
    }
}

impl<G: EvalGame> Perfect<G> {
    pub fn new(
        make: impl Fn() -> Box<dyn ExactMover<G>> + Send + Sync + 'static,
        tablebase: Option<Arc<dyn Tablebase<G>>>,
    ) -> Perfect<G> {
        Perfect {
            make: Box::new(make),
            fallback: Engine::new(AnyEvaluator::baseline(), tablebase),
            moves: Arc::default(),
        }
    }

    /// The moves its players have made so far (shared with them).
    pub fn moves(&self) -> Arc<PerfectMoves> {
        Arc::clone(&self.moves)
    }
}

impl<G: EvalGame> Contender<G> for Perfect<G> {
    type Player = PerfectPlayer<G>;

    fn player(&self, tt_mib: usize) -> Result<PerfectPlayer<G>, String> {
        Ok(PerfectPlayer {
            exact: (self.make)(),
            fallback: self.fallback.player(tt_mib)?,
            moves: self.moves(),
        })
    }
}

/// One worker's perfect player.
pub struct PerfectPlayer<G: EvalGame> {
    exact: Box<dyn ExactMover<G>>,
    fallback: Searcher<G, AnyEvaluator<G>>,
    moves: Arc<PerfectMoves>,
}

impl<G: EvalGame> Player<G> for PerfectPlayer<G> {
    fn new_game(&mut self) -> Result<(), String> {
        self.exact.new_game();
        self.fallback.new_game()
    }

    fn think(
        &mut self,
        record: &GameRecord<G>,
        limits: &Limits,
    ) -> Result<SearchResult<G>, String> {
        let started = Instant::now();
        match self.exact.exact_move(record.position()) {
            Some((mv, score)) => {
                self.moves.exact.fetch_add(1, Ordering::Relaxed);
                Ok(SearchResult {
                    best_move: Some(mv),
                    score,
                    depth: 0,
                    pv: vec![mv],
                    nodes: NodeCounts::default(),
                    elapsed: started.elapsed(),
                    stopped: false,
                    root_values: Vec::new(),
                    exact: None,
                })
            }
            None => {
                self.moves.searched.fetch_add(1, Ordering::Relaxed);
                self.fallback.think(record, limits)
            }
        }
    }
}

/// The perfect contender of a game with an endgame database: exact moves where the
/// database holds the position and all its moves, the baseline's search elsewhere.
pub fn from_tablebase<G: EvalGame>(tablebase: Arc<dyn Tablebase<G>>) -> Perfect<G> {
    let shared = Arc::clone(&tablebase);
    Perfect::new(
        move || {
            Box::new(TablebaseMover {
                tablebase: Arc::clone(&shared),
            })
        },
        Some(tablebase),
    )
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

/// The perfect contender of a match for `variant` (solver databases in `db_dir`, else
/// the game's default folder; notes on stderr).
pub fn load<G: PerfectGame>(
    variant: G::Variant,
    tablebase: Option<Arc<dyn Tablebase<G>>>,
    db_dir: Option<&Path>,
    node_cap: u64,
) -> Result<Box<Perfect<G>>, String> {
    G::perfect(variant, tablebase, db_dir, node_cap, &mut |line| {
        eprintln!("{line}")
    })
    .map(Box::new)
}
