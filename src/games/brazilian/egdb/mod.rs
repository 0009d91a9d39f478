//! Endgame databases for Brazilian draughts: the exact value of every position with few
//! pieces, with the plies to the end of the game, built by retrograde analysis
//! ([`build`]), kept one file per material slice ([`file`]), checked against the rules
//! ([`verify`]) and probed by the search.
//!
//! Values follow the game's real rules (compulsory maximum capture, flying kings) and
//! ignore the move-count draw rules: a position is a win if the winner can force the end
//! of the game at all. The game record applies the 20-move rule and its small-ending
//! cousins on top, as it does for any move.

pub mod build;
pub mod file;
pub mod index;
pub mod verify;

use std::path::{Path, PathBuf};

pub use index::{Material, SliceIndex};

use super::{Brazilian, Move};
use crate::game::{ExactValue, Game, MoveList};

/// The folder the commands look in when `--egdb` is not given.
pub const DEFAULT_DIR: &str = "egdb";

/// Material id: one slot per (own men, own kings, their men, their kings), each < 8.
#[inline(always)]
const fn slot(m: Material) -> usize {
    ((m.own_men as usize * 8 + m.own_kings as usize) * 8 + m.their_men as usize) * 8
        + m.their_kings as usize
}
const SLOTS: usize = 8 * 8 * 8 * 8;

/// An entry byte: 0 a draw, else plies to the end plus one (odd plies: a win).
#[inline(always)]
pub const fn decode_entry(byte: u8) -> ExactValue {
    match byte {
        0 => ExactValue::Draw,
        b => {
            let plies = (b - 1) as u32;
            if plies % 2 == 1 {
                ExactValue::Win(plies)
            } else {
                ExactValue::Loss(plies)
            }
        }
    }
}

/// The byte of a value; `None` if its distance does not fit a byte.
pub const fn encode_entry(value: ExactValue) -> Option<u8> {
    match value {
        ExactValue::Draw => Some(0),
        ExactValue::Win(d) | ExactValue::Loss(d) => {
            if d < u8::MAX as u32 {
                Some(d as u8 + 1)
            } else {
                None
            }
        }
    }
}

/// One loaded slice.
struct Slice {
    index: SliceIndex,
    entries: Box<[u8]>,
}

/// A database in memory: the slices that loaded, any subset of all slices (a missing or
/// damaged slice is simply not probed).
pub struct Egdb {
    slices: Vec<Option<Slice>>,
    /// Most pieces of any loaded slice: larger positions are not probed.
    max_pieces: u32,
    loaded: usize,
    entries: u64,
    dir: Option<PathBuf>,
}

/// What [`Egdb::open`] found: the database, and the slices it could not use.
pub struct Opened {
    pub egdb: Egdb,
    /// Damaged slice files, and the missing files of a piece count only partly there.
    pub problems: Vec<file::SliceError>,
    /// Every slice of up to this many pieces loaded (0: not even the 2-piece ones).
    pub complete_up_to: u32,
}

impl Default for Egdb {
    fn default() -> Self {
        Egdb::empty()
    }
}

impl Egdb {
    /// A database with no slice: probes find nothing.
    pub fn empty() -> Egdb {
        Egdb {
            slices: (0..SLOTS).map(|_| None).collect(),
            max_pieces: 0,
            loaded: 0,
            entries: 0,
            dir: None,
        }
    }

    /// Loads every slice file of up to [`index::MAX_PIECES`] pieces in `dir`, checking
    /// each (header, length, checksum). Damaged files are reported in
    /// [`Opened::problems`] and left out; so are missing ones among the slices of the
    /// smallest piece count that is not complete. Never fails: a missing folder gives an
    /// empty database and one problem.
    pub fn open(dir: &Path) -> Opened {
        let mut egdb = Egdb::empty();
        egdb.dir = Some(dir.to_path_buf());
        let mut problems = Vec::new();
        if !dir.is_dir() {
            problems.push(file::SliceError {
                path: dir.to_path_buf(),
                problem: "no such folder".to_string(),
            });
            return Opened {
                egdb,
                problems,
                complete_up_to: 0,
            };
        }
        let mut complete_up_to = 0;
        let mut complete = true;
        for pieces in 2..=index::MAX_PIECES {
            let slices: Vec<Material> = Material::all_up_to(pieces)
                .into_iter()
                .filter(|m| m.pieces() == pieces)
                .collect();
            let mut missing = Vec::new();
            let mut damaged = false;
            for &material in &slices {
                let path = file::slice_path(dir, material);
                if !path.exists() {
                    missing.push(file::SliceError {
                        path,
                        problem: "missing".to_string(),
                    });
                    continue;
                }
                match file::read(dir, &SliceIndex::new(material)) {
                    Ok(entries) => egdb.insert(SliceIndex::new(material), entries),
                    Err(err) => {
                        damaged = true;
                        problems.push(err);
                    }
                }
            }
            // A piece count with no file at all is where the database ends; one with
            // some files is a partial build, and its missing files are worth naming.
            if missing.len() < slices.len() {
                problems.append(&mut missing);
            }
            complete &= missing.is_empty() && !damaged;
            if complete {
                complete_up_to = pieces;
            }
        }
        Opened {
            egdb,
            problems,
            complete_up_to,
        }
    }

    fn insert(&mut self, index: SliceIndex, entries: Vec<u8>) {
        let material = index.material();
        self.max_pieces = self.max_pieces.max(material.pieces());
        self.loaded += 1;
        self.entries += entries.len() as u64;
        self.slices[slot(material)] = Some(Slice {
            index,
            entries: entries.into_boxed_slice(),
        });
    }

    /// Most pieces of a position the database may hold.
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// Slices loaded.
    pub fn slice_count(&self) -> usize {
        self.loaded
    }

    /// Entries (positions) loaded, all slices together.
    pub fn entry_count(&self) -> u64 {
        self.entries
    }

    /// The folder the database came from.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// True if `material`'s slice is loaded.
    pub fn has(&self, material: Material) -> bool {
        material.is_slice() && self.slices[slot(material)].is_some()
    }

    /// The exact value of `pos` for the side to move, if its slice is loaded. A side to
    /// move without pieces has lost.
    #[inline]
    pub fn probe(&self, pos: &Brazilian) -> Option<ExactValue> {
        if (pos.white | pos.black).count_ones() > self.max_pieces {
            // A side to move without pieces has lost, whatever the database holds.
            return (pos.side_bits(pos.side) == 0).then_some(ExactValue::Loss(0));
        }
        let masks = pos.relative_masks();
        if masks[0] | masks[1] == 0 {
            return Some(ExactValue::Loss(0));
        }
        let material = Material::new(
            masks[0].count_ones() as u8,
            masks[1].count_ones() as u8,
            masks[2].count_ones() as u8,
            masks[3].count_ones() as u8,
        );
        if !material.is_slice() {
            return None;
        }
        let slice = self.slices[slot(material)].as_ref()?;
        let entry = slice.entries[slice.index.index(masks) as usize];
        Some(decode_entry(entry))
    }

    /// The value of `pos` worked out from its moves (fastest win, slowest loss; for a
    /// draw, the first move that keeps it) with that move, if every position after its
    /// moves is in the database. Without legal moves: a loss in 0 and no move.
    pub fn from_moves(&self, pos: &Brazilian) -> Option<(ExactValue, Option<Move>)> {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let mut best: Option<(Move, ExactValue)> = None;
        for &mv in moves.iter() {
            let after = self.probe(&pos.play(mv))?.parent();
            if best.is_none_or(|(_, b)| after.preference() > b.preference()) {
                best = Some((mv, after));
            }
        }
        Some(match best {
            Some((mv, value)) => (value, Some(mv)),
            None => (ExactValue::Loss(0), None),
        })
    }

    /// The stored value of `pos` and its best move, if `pos` and every position after its
    /// moves are in the database and agree (a disagreement means a damaged database:
    /// then nothing is claimed).
    pub fn best_move(&self, pos: &Brazilian) -> Option<(ExactValue, Option<Move>)> {
        let stored = self.probe(pos)?;
        let (value, mv) = self.from_moves(pos)?;
        (value == stored).then_some((value, mv))
    }
}

impl crate::search::Tablebase<Brazilian> for Egdb {
    #[inline]
    fn probe(&self, pos: &Brazilian) -> Option<ExactValue> {
        Egdb::probe(self, pos)
    }

    fn max_pieces(&self) -> u32 {
        self.max_pieces
    }
}
