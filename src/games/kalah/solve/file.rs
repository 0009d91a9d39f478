//! Kalah solver data kept on disk: endgame databases ([`EndgameDb`], built once, read
//! back in a second) and solved values ([`super::cache`]), in one checksummed frame like
//! the draughts database's slices:
//!
//! | bytes | field                                                          |
//! |-------|----------------------------------------------------------------|
//! | 8     | magic: `EVALKLDB` (database) or `EVALKLSV` (solved values)     |
//! | 2     | format version, `u16` little-endian                            |
//! | 1     | capture rule: 0 standard, 1 empty-capture                      |
//! | 1     | database stones (0 for solved values)                          |
//! | 8     | payload length, `u64`                                          |
//! | 8     | compressed length, `u64`                                       |
//! | …     | payload, deflate-compressed                                    |
//! | 8     | checksum: CRC-64/XZ of every byte before it                    |
//!
//! A database's payload is its values in index order, one signed byte each.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use flate2::Compression;
use flate2::write::DeflateEncoder;

use super::db::{EndgameDb, configurations, rule_name};
use crate::games::kalah::KalahRules;
use crate::io::model::checksum;
use crate::io::write_atomic;

pub const VERSION: u16 = 1;
pub const DB_MAGIC: &[u8; 8] = b"EVALKLDB";
pub const VALUES_MAGIC: &[u8; 8] = b"EVALKLSV";
const HEADER_LEN: usize = 8 + 2 + 1 + 1 + 8 + 8;

/// Names the folder Kalah databases and solved values are kept in (empty: none).
pub const DIR_VARIABLE: &str = "EVALEARN_KALAH_DB";
/// The folder used when none is given and [`DIR_VARIABLE`] is not set.
pub const DEFAULT_DIR: &str = "kalah-db";

/// The folder of the commands that solve Kalah: `given`, else `$EVALEARN_KALAH_DB`
/// (empty: keep nothing on disk), else [`DEFAULT_DIR`] in the current folder.
pub fn db_dir(given: Option<&Path>) -> Option<PathBuf> {
    let dir = match given {
        Some(dir) => dir.to_path_buf(),
        None => {
            std::env::var_os(DIR_VARIABLE).map_or_else(|| PathBuf::from(DEFAULT_DIR), PathBuf::from)
        }
    };
    (!dir.as_os_str().is_empty()).then_some(dir)
}

/// The database size for positions with `stones` stones in the pits: all of them when
/// that is at most [`super::DEFAULT_DB_STONES`] (the value is then read, not searched),
/// else the default.
pub fn db_stones_for(stones: u32) -> u32 {
    stones.min(super::DEFAULT_DB_STONES)
}

/// The file of the `stones`-stone database for `rules`' capture rule in `dir`.
pub fn db_path(dir: &Path, rules: KalahRules, stones: u32) -> PathBuf {
    dir.join(format!("{}-{stones}.kdb", rule_name(rules)))
}

/// A frame's bytes (see the module docs).
pub fn encode(magic: &[u8; 8], rules: KalahRules, stones: u32, payload: &[u8]) -> Vec<u8> {
    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::fast());
    encoder
        .write_all(payload)
        .and_then(|()| encoder.try_finish())
        .expect("compressing into memory cannot fail");
    let compressed = encoder.get_ref();
    let mut out = Vec::with_capacity(HEADER_LEN + compressed.len() + 8);
    out.extend_from_slice(magic);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(u8::from(rules.empty_capture));
    out.push(stones as u8);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&(compressed.len() as u64).to_le_bytes());
    out.extend_from_slice(compressed);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Reads a frame written by [`encode`] with the same magic, rule and stones, whose
/// payload is at most `max_payload` bytes; checks everything, never panics. Errors name
/// the file.
pub fn read(
    path: &Path,
    magic: &[u8; 8],
    rules: KalahRules,
    stones: u32,
    max_payload: u64,
) -> Result<Vec<u8>, String> {
    let fail = |problem: String| format!("{}: {problem}", path.display());
    let bytes =
        crate::io::read_deflated_file(path, max_payload, HEADER_LEN as u64).map_err(fail)?;
    decode(&bytes, magic, rules, stones, max_payload).map_err(fail)
}

fn decode(
    bytes: &[u8],
    magic: &[u8; 8],
    rules: KalahRules,
    stones: u32,
    max_payload: u64,
) -> Result<Vec<u8>, String> {
    if bytes.len() < HEADER_LEN + 8 {
        return Err(format!("truncated: {} bytes", bytes.len()));
    }
    if &bytes[..8] != magic {
        return Err("not an evalearn Kalah solver file of this kind (bad magic)".to_string());
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != VERSION {
        return Err(format!(
            "format version {version}, but this evalearn reads version {VERSION}"
        ));
    }
    if bytes[10] != u8::from(rules.empty_capture) || u32::from(bytes[11]) != stones {
        return Err(format!(
            "holds capture rule {} and {} stones, not {} and {stones}",
            bytes[10],
            bytes[11],
            rule_name(rules)
        ));
    }
    let word = |from: usize| u64::from_le_bytes(bytes[from..from + 8].try_into().unwrap());
    let (payload, compressed) = (word(12), word(20));
    if payload > max_payload {
        return Err(format!(
            "{payload} bytes of payload, more than {max_payload}"
        ));
    }
    crate::io::inflate_checked(bytes, HEADER_LEN, compressed, payload)
}

/// Where a database came from, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DbSource {
    /// Read from this file.
    Read(PathBuf),
    /// Built, and written to this file.
    Built(PathBuf),
    /// Built in memory only (no folder, or it could not be written: the reason).
    BuiltOnly(Option<String>),
}

/// The `stones`-stone database for `rules`: read from `dir` if it holds a sound copy,
/// else built (and written there, atomically, for the next run). A damaged file is
/// rebuilt and replaced (it holds nothing but what the build recomputes); a folder that
/// cannot be written only costs the rebuild next time. Returns the database, where it
/// came from, the time taken and any warnings.
pub fn open_or_build(
    dir: Option<&Path>,
    rules: KalahRules,
    stones: u32,
) -> (Arc<EndgameDb>, DbSource, Duration, Vec<String>) {
    let never = AtomicBool::new(false);
    open_or_build_until(dir, rules, stones, &never)
        .unwrap_or_else(|_| unreachable!("a build without a raised stop flag finishes"))
}

/// The `stones`-stone database for `rules` written at `path`, checked; errors name the
/// file.
pub fn read_db(path: &Path, rules: KalahRules, stones: u32) -> Result<EndgameDb, String> {
    read(path, DB_MAGIC, rules, stones, configurations(stones))
        .and_then(|bytes| EndgameDb::from_bytes(rules, stones, &bytes))
}

/// A build stopped before it was complete (nothing of it is written): the stone
/// counts finished out of the database's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildStopped {
    pub levels_done: u32,
    pub levels: u32,
}

/// [`open_or_build`] with a build that ends early, writing nothing, once `stop` is
/// raised.
pub fn open_or_build_until(
    dir: Option<&Path>,
    rules: KalahRules,
    stones: u32,
    stop: &AtomicBool,
) -> Result<(Arc<EndgameDb>, DbSource, Duration, Vec<String>), BuildStopped> {
    let started = Instant::now();
    let mut warnings = Vec::new();
    if let Some(dir) = dir {
        let path = db_path(dir, rules, stones);
        if path.exists() {
            match read_db(&path, rules, stones) {
                Ok(db) => {
                    return Ok((
                        Arc::new(db),
                        DbSource::Read(path),
                        started.elapsed(),
                        warnings,
                    ));
                }
                Err(e) => warnings.push(format!("{e}; rebuilding it")),
            }
        }
    }
    let (db, levels_done) = EndgameDb::build_until(rules, stones, stop);
    if levels_done <= stones {
        return Err(BuildStopped {
            levels_done,
            levels: stones + 1,
        });
    }
    let source = match dir {
        None => DbSource::BuiltOnly(None),
        Some(dir) => {
            let path = db_path(dir, rules, stones);
            let bytes = encode(DB_MAGIC, rules, stones, &db.to_bytes());
            match std::fs::create_dir_all(dir).and_then(|()| write_atomic(&path, &bytes)) {
                Ok(()) => DbSource::Built(path),
                Err(e) => {
                    let why = format!("cannot write {}: {e}", path.display());
                    warnings.push(format!("{why}; the database is kept in memory only"));
                    DbSource::BuiltOnly(Some(why))
                }
            }
        }
    };
    Ok((Arc::new(db), source, started.elapsed(), warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_round_trips_and_every_damage_is_named() {
        let rules = KalahRules::default();
        let db = EndgameDb::build(rules, 3);
        let bytes = encode(DB_MAGIC, rules, 3, &db.to_bytes());
        let payload = decode(&bytes, DB_MAGIC, rules, 3, configurations(3)).unwrap();
        let back = EndgameDb::from_bytes(rules, 3, &payload).unwrap();
        assert_eq!(back.to_bytes(), db.to_bytes());
        for cut in [0, 5, HEADER_LEN, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], DB_MAGIC, rules, 3, 1 << 20).is_err());
        }
        for at in (0..bytes.len()).step_by(5) {
            let mut bad = bytes.clone();
            bad[at] ^= 0x04;
            assert!(
                decode(&bad, DB_MAGIC, rules, 3, 1 << 20).is_err(),
                "flip at {at}"
            );
        }
        let other = KalahRules {
            empty_capture: true,
            ..rules
        };
        assert!(decode(&bytes, DB_MAGIC, other, 3, 1 << 20).is_err());
        assert!(decode(&bytes, VALUES_MAGIC, rules, 3, 1 << 20).is_err());
        assert!(EndgameDb::from_bytes(rules, 3, &payload[1..]).is_err());
        let mut wild = payload.clone();
        wild[7] = 100;
        assert!(EndgameDb::from_bytes(rules, 3, &wild).is_err());
    }
}
