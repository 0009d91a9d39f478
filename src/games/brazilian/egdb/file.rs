//! One slice of the database on disk.
//!
//! | bytes | field                                                         |
//! |-------|---------------------------------------------------------------|
//! | 8     | magic `EVALEGDB`                                              |
//! | 2     | format version, `u16` little-endian                           |
//! | 1 + n | game name (`brazilian`), length-prefixed                      |
//! | 1     | pieces in the slice                                           |
//! | 4     | material: own men, own kings, their men, their kings          |
//! | 8     | entries, `u64`: the slice's size, one byte each               |
//! | 8     | compressed length, `u64`                                      |
//! | …     | entries, deflate-compressed                                   |
//! | 8     | checksum: CRC-64/XZ of every byte before it                   |
//!
//! An entry is 0 for a draw, else the plies to the end plus one (odd plies: the side to
//! move wins; even: it loses).

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::DeflateEncoder;

use super::index::{Material, SliceIndex};
use crate::io::model::checksum;

const MAGIC: &[u8; 8] = b"EVALEGDB";
pub const VERSION: u16 = 1;
const GAME: &str = "brazilian";
/// Bytes before the compressed entries.
const HEADER_LEN: usize = 8 + 2 + 1 + GAME.len() + 1 + 4 + 8 + 8;

/// The file of `material`'s slice in `dir`.
pub fn slice_path(dir: &Path, material: Material) -> PathBuf {
    dir.join(format!("{}.egdb", material.name()))
}

/// Why a slice file could not be used.
#[derive(Debug)]
pub struct SliceError {
    pub path: PathBuf,
    pub problem: String,
}

impl fmt::Display for SliceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.problem)
    }
}

impl std::error::Error for SliceError {}

/// The file bytes of a slice's entries.
pub fn encode(material: Material, entries: &[u8]) -> Vec<u8> {
    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::new(6));
    encoder
        .write_all(entries)
        .and_then(|()| encoder.try_finish())
        .expect("compressing into memory cannot fail");
    let compressed = encoder.get_ref();
    let mut out = Vec::with_capacity(HEADER_LEN + compressed.len() + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(GAME.len() as u8);
    out.extend_from_slice(GAME.as_bytes());
    out.push(material.pieces() as u8);
    out.extend_from_slice(&[
        material.own_men,
        material.own_kings,
        material.their_men,
        material.their_kings,
    ]);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    out.extend_from_slice(&(compressed.len() as u64).to_le_bytes());
    out.extend_from_slice(compressed);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Reads and checks the file of `material`'s slice: header, lengths, checksum, and the
/// entry count the slice's index demands. Returns the entries.
pub fn read(dir: &Path, index: &SliceIndex) -> Result<Vec<u8>, SliceError> {
    let path = slice_path(dir, index.material());
    let fail = |problem: String| SliceError {
        path: path.clone(),
        problem,
    };
    let expected = index.size() as usize;
    let bytes =
        crate::io::read_deflated_file(&path, expected as u64, HEADER_LEN as u64).map_err(fail)?;
    decode(&bytes, index).map_err(fail)
}

fn decode(bytes: &[u8], index: &SliceIndex) -> Result<Vec<u8>, String> {
    let material = index.material();
    if bytes.len() < HEADER_LEN + 8 {
        return Err(format!(
            "truncated: {} bytes, shorter than a header",
            bytes.len()
        ));
    }
    if &bytes[..8] != MAGIC {
        return Err("not an evalearn endgame database file (bad magic)".to_string());
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != VERSION {
        return Err(format!(
            "format version {version}, but this evalearn reads version {VERSION}"
        ));
    }
    let name_len = bytes[10] as usize;
    if name_len != GAME.len() || &bytes[11..11 + name_len] != GAME.as_bytes() {
        let shown = String::from_utf8_lossy(&bytes[11..(11 + name_len).min(bytes.len())]);
        return Err(format!("for game '{shown}', not {GAME}"));
    }
    let at = 11 + name_len;
    let stored = Material::new(bytes[at + 1], bytes[at + 2], bytes[at + 3], bytes[at + 4]);
    if bytes[at] as u32 != material.pieces() || stored != material {
        return Err(format!(
            "holds slice {} ({} pieces), not {material}",
            stored.name(),
            bytes[at]
        ));
    }
    let word = |from: usize| u64::from_le_bytes(bytes[from..from + 8].try_into().unwrap());
    let entries = word(at + 5);
    let compressed = word(at + 13);
    if entries != index.size() {
        return Err(format!(
            "{entries} entries, but slice {material} has {}",
            index.size()
        ));
    }
    crate::io::inflate_checked(bytes, HEADER_LEN, compressed, entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_damage_is_named() {
        let material = Material::new(0, 1, 0, 1);
        let index = SliceIndex::new(material);
        let entries: Vec<u8> = (0..index.size()).map(|i| (i % 7) as u8).collect();
        let bytes = encode(material, &entries);
        assert_eq!(decode(&bytes, &index).unwrap(), entries);
        for cut in [0, 5, HEADER_LEN, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], &index).is_err(), "cut at {cut}");
        }
        for at in (0..bytes.len()).step_by(7) {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(decode(&bad, &index).is_err(), "flip at {at}");
        }
        let other = SliceIndex::new(Material::new(0, 2, 0, 1));
        assert!(decode(&bytes, &other).unwrap_err().contains("holds slice"));
    }
}
