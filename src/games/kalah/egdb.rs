//! The solver's endgame databases read by the playing commands' searches (`--egdb DIR`,
//! DIR the solver's `--db-dir`, e.g. `kalah-db`): a position with at most N stones in
//! its pits scores its exact final margin, the stores banked plus `V(pits)`.
//!
//! The databases hold margins but not how far the game's end is, so they answer
//! [`Tablebase::score`] and not [`Tablebase::probe`]. The margin scores as a static
//! value in centi-stones, the units of `stores` and of the margin models: an exact
//! +10 then ranks above an estimated +9 and below an estimated +11. As an ending it
//! would rank above every estimate (a sure win by 1 above a likely one by 10), which
//! lost more stones in the accuracy measure (docs/kalah.md).

use std::path::Path;
use std::sync::Arc;

use super::solve::board::{final_value, pits_of};
use super::solve::db::{EndgameDb, MAX_DB_STONES, rule_name};
use super::solve::file::{db_path, read_db};
use super::{Kalah, KalahRules};
use crate::eval::EVAL_LIMIT;
use crate::game::{ExactValue, Game};
use crate::search::OpenedTablebase;
use crate::search::Tablebase;

/// The databases found in one folder: the largest of each capture rule.
pub struct SearchDatabases {
    databases: Vec<EndgameDb>,
}

impl SearchDatabases {
    pub fn new(databases: Vec<EndgameDb>) -> SearchDatabases {
        SearchDatabases { databases }
    }

    /// Reads the largest database of each capture rule in `dir` (`standard-N.kdb`,
    /// `empty-capture-N.kdb`, as `evalearn solve --db-dir DIR` writes them).
    pub fn open(dir: &Path) -> Result<OpenedTablebase<Kalah>, String> {
        if !dir.is_dir() {
            return Err(format!("--egdb {}: no such folder", dir.display()));
        }
        let mut databases = Vec::new();
        let mut problems = Vec::new();
        let mut held = Vec::new();
        for empty_capture in [false, true] {
            let rules = KalahRules {
                empty_capture,
                ..KalahRules::default()
            };
            let Some((stones, path)) = (0..=MAX_DB_STONES)
                .rev()
                .map(|n| (n, db_path(dir, rules, n)))
                .find(|(_, path)| path.is_file())
            else {
                continue;
            };
            match read_db(&path, rules, stones) {
                Ok(db) => {
                    held.push(format!("{} capture, {stones} stones", rule_name(rules)));
                    databases.push(db);
                }
                Err(e) => problems.push(e),
            }
        }
        let summary = if held.is_empty() {
            format!(
                "no Kalah endgame database in {} (`evalearn solve --game kalah --db-dir {0}` \
                 builds one there)",
                dir.display()
            )
        } else {
            format!(
                "Kalah endgame database: {}, from {}",
                held.join("; "),
                dir.display()
            )
        };
        let tablebase: Option<Arc<dyn Tablebase<Kalah>>> =
            (!databases.is_empty()).then(|| Arc::new(SearchDatabases::new(databases)) as _);
        Ok(OpenedTablebase {
            tablebase,
            problems,
            summary,
        })
    }
}

impl Tablebase<Kalah> for SearchDatabases {
    fn probe(&self, _pos: &Kalah) -> Option<ExactValue> {
        None
    }

    #[inline]
    fn score(&self, pos: &Kalah, _ply: usize) -> Option<i32> {
        let pits = pits_of(pos);
        // A finished game scores on the same scale, so that a move ending the game by a
        // small margin does not outrank one the database knows wins by more.
        let still = match final_value(&pits) {
            Some(swept) => swept,
            None => self
                .databases
                .iter()
                .find(|db| db.serves(pos.rules()))?
                .value(&pits)?,
        };
        let side = pos.side_to_move();
        let banked = i32::from(pos.store(side)) - i32::from(pos.store(side.opponent()));
        Some((100 * (banked + still)).clamp(-EVAL_LIMIT, EVAL_LIMIT))
    }

    fn max_pieces(&self) -> u32 {
        self.databases
            .iter()
            .map(EndgameDb::stones)
            .max()
            .unwrap_or(0)
    }
}
