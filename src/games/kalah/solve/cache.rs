//! Solved values kept between runs: `V(pits)` of every configuration solved so far, one
//! file per capture rule in the database folder (`solved-standard.kvals`), so measuring
//! an evaluator again on the same positions costs no search. A [`CachedSolver`] asks the
//! cache, then the endgame database, then the solver.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{PoisonError, RwLock};

use super::Solver;
use super::board::{Pits, final_value, stones};
use super::db::rule_name;
use super::file::{VALUES_MAGIC, encode, read};
use crate::games::kalah::KalahRules;
use crate::io::write_atomic;

/// Bytes of one entry: the twelve pits and the value.
const ENTRY: usize = 13;
/// Most entries a file may hold (a cap before allocating; about 200 MiB).
const MAX_ENTRIES: u64 = 16 << 20;

/// The file of solved values for `rules`' capture rule in `dir`.
pub fn values_path(dir: &Path, rules: KalahRules) -> PathBuf {
    dir.join(format!("solved-{}.kvals", rule_name(rules)))
}

/// Solved values of one capture rule, read from and written back to a file.
pub struct SolvedCache {
    rules: KalahRules,
    path: Option<PathBuf>,
    values: HashMap<Pits, i8>,
    /// Values found since the file was read.
    added: usize,
}

impl SolvedCache {
    /// The cache of `rules` in `dir` (empty without a folder or a file). A damaged file
    /// is left out, with a warning, and replaced on [`SolvedCache::save`].
    pub fn open(dir: Option<&Path>, rules: KalahRules) -> (SolvedCache, Option<String>) {
        let path = dir.map(|d| values_path(d, rules));
        let mut cache = SolvedCache {
            rules,
            path: path.clone(),
            values: HashMap::new(),
            added: 0,
        };
        let Some(path) = path.filter(|p| p.exists()) else {
            return (cache, None);
        };
        let entries =
            read(&path, VALUES_MAGIC, rules, 0, MAX_ENTRIES * ENTRY as u64).and_then(|bytes| {
                decode_entries(&bytes).map_err(|e| format!("{}: {e}", path.display()))
            });
        match entries {
            Ok(values) => {
                cache.values = values;
                (cache, None)
            }
            Err(e) => (cache, Some(format!("{e}; starting an empty cache"))),
        }
    }

    /// Values held.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Values found since the file was read.
    pub fn added(&self) -> usize {
        self.added
    }

    pub fn get(&self, pits: &Pits) -> Option<i32> {
        self.values.get(pits).map(|&v| i32::from(v))
    }

    pub fn insert(&mut self, pits: Pits, value: i32) {
        if self.values.insert(pits, value as i8).is_none() {
            self.added += 1;
        }
    }

    /// Writes the file (atomically) if anything was added; `Ok(false)` if there was
    /// nothing to write or no folder.
    pub fn save(&mut self) -> Result<bool, String> {
        let Some(path) = &self.path else {
            return Ok(false);
        };
        if self.added == 0 || self.values.len() as u64 > MAX_ENTRIES {
            return Ok(false);
        }
        let mut entries: Vec<(&Pits, &i8)> = self.values.iter().collect();
        entries.sort_unstable();
        let mut payload = Vec::with_capacity(entries.len() * ENTRY);
        for (pits, &value) in entries {
            payload.extend_from_slice(pits);
            payload.push(value as u8);
        }
        let bytes = encode(VALUES_MAGIC, self.rules, 0, &payload);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        write_atomic(path, &bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        self.added = 0;
        Ok(true)
    }
}

fn decode_entries(bytes: &[u8]) -> Result<HashMap<Pits, i8>, String> {
    if !bytes.len().is_multiple_of(ENTRY) {
        return Err(format!(
            "{} bytes is not a whole number of entries",
            bytes.len()
        ));
    }
    let mut values = HashMap::with_capacity(bytes.len() / ENTRY);
    for entry in bytes.chunks_exact(ENTRY) {
        let pits: Pits = entry[..12].try_into().expect("12 bytes");
        let value = entry[12] as i8;
        if i32::from(value).unsigned_abs() > stones(&pits) {
            return Err(format!("value {value} of {pits:?} is out of range"));
        }
        values.insert(pits, value);
    }
    Ok(values)
}

/// Exact `V(pits)` of configurations, however they are found.
pub trait ExactValues {
    fn future_value(&mut self, pits: &Pits) -> i32;
}

/// `V(pits)`: a finished game's, else the endgame database's, else `known`'s, else the
/// solver's; the flag is true for a value solved here and exact (to remember).
fn value_of(
    solver: &mut Solver,
    pits: &Pits,
    known: impl FnOnce(&Pits) -> Option<i32>,
) -> (i32, bool) {
    if let Some(value) = final_value(pits) {
        return (value, false);
    }
    if let Some(db) = solver.db()
        && let Some(value) = db.value(pits)
    {
        return (value, false);
    }
    if let Some(value) = known(pits) {
        return (value, false);
    }
    let value = solver.future_value(pits);
    // A solve cut short by Ctrl-C returned a bound, not the value.
    (value, !solver.stopped())
}

/// The exact `V(pits)` of any configuration: from the cache, else the solver (which
/// reads its endgame database), remembered in the cache.
pub struct CachedSolver {
    pub solver: Solver,
    pub cache: SolvedCache,
}

impl ExactValues for CachedSolver {
    fn future_value(&mut self, pits: &Pits) -> i32 {
        let (value, new) = value_of(&mut self.solver, pits, |p| self.cache.get(p));
        if new {
            self.cache.insert(*pits, value);
        }
        value
    }
}

/// A solver of its own over a cache shared by threads: each thread's [`Solver`] (and
/// table) with every value any of them has found.
pub struct SharedCacheSolver<'a> {
    pub solver: Solver,
    pub cache: &'a RwLock<SolvedCache>,
}

impl ExactValues for SharedCacheSolver<'_> {
    fn future_value(&mut self, pits: &Pits) -> i32 {
        let cache = self.cache;
        let (value, new) = value_of(&mut self.solver, pits, |p| {
            cache.read().unwrap_or_else(PoisonError::into_inner).get(p)
        });
        if new {
            cache
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(*pits, value);
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_the_file() {
        let dir = std::env::temp_dir().join(format!("evalearn-kcache-{}", std::process::id()));
        let rules = KalahRules::default();
        let (mut cache, warning) = SolvedCache::open(Some(&dir), rules);
        assert!(warning.is_none() && cache.is_empty());
        cache.insert([1, 2, 3, 0, 0, 0, 4, 0, 0, 0, 0, 1], -5);
        cache.insert([0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 2, 0], 3);
        assert!(cache.save().unwrap());
        let (back, warning) = SolvedCache::open(Some(&dir), rules);
        assert!(warning.is_none());
        assert_eq!(back.len(), 2);
        assert_eq!(back.get(&[1, 2, 3, 0, 0, 0, 4, 0, 0, 0, 0, 1]), Some(-5));
        std::fs::write(values_path(&dir, rules), b"EVALKLSV garbage").unwrap();
        let (back, warning) = SolvedCache::open(Some(&dir), rules);
        assert!(warning.is_some() && back.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
