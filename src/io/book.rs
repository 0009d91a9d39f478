//! Opening-book files: written by `evalearn book build`, read by `play`, `match`,
//! `selfplay` and `book info`/`book probe` (the book itself is [`crate::book::Book`]).
//!
//! Every read is fully validated: a missing, truncated, corrupt, wrong-version or
//! wrong-game file is an error naming the file and the problem, never a panic and never
//! an allocation larger than the caps below.
//!
//! # Layout (all integers little-endian)
//!
//! | bytes | field                                                                  |
//! |-------|------------------------------------------------------------------------|
//! | 8     | magic [`MAGIC`] (`EVALBOOK`)                                           |
//! | 2     | format version, `u16` ([`FORMAT_VERSION`])                             |
//! | 4 + n | game: `u32` length `n` ≤ 64, UTF-8 (`brazilian`, `kalah:6:4`)          |
//! | 4 + n | how the book was built: `u32` length `n` ≤ [`MAX_INFO_BYTES`], UTF-8   |
//! | 8     | entry count, `u64` ≤ [`MAX_ENTRIES`]                                   |
//! | 8     | payload length `p`, `u64` ≤ [`MAX_PAYLOAD_BYTES`]                      |
//! | p     | payload: the entries ([`EntryFrame`]), serde + bincode 2 standard      |
//! | 8     | checksum: CRC-64/XZ of every byte before it, `u64`                     |

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::model::checksum;
use super::write_atomic;
use crate::game::Game;

/// The first eight bytes of every book file.
pub const MAGIC: [u8; 8] = *b"EVALBOOK";
/// The layout version this build writes and reads.
pub const FORMAT_VERSION: u16 = 1;
/// Most positions a book may hold.
pub const MAX_ENTRIES: u64 = 1 << 20;
/// Largest payload accepted (and largest allocation the payload decoder may claim).
pub const MAX_PAYLOAD_BYTES: usize = 64 << 20;
/// Largest "how it was built" text.
pub const MAX_INFO_BYTES: usize = 4096;
const MAX_NAME_BYTES: usize = 64;
const CHECKSUM_BYTES: usize = 8;
/// Largest book file accepted.
pub const MAX_FILE_BYTES: usize =
    8 + 2 + 4 + MAX_NAME_BYTES + 4 + MAX_INFO_BYTES + 8 + 8 + MAX_PAYLOAD_BYTES + CHECKSUM_BYTES;

fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<MAX_PAYLOAD_BYTES>()
}

/// One book move in file form.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct MoveFrame<G: Game> {
    pub mv: G::PackedMove,
    /// The search's value of the move for the side to move, in centi-units.
    pub score: i32,
    /// Relative frequency with which the move is chosen (≥ 1).
    pub weight: u32,
}

/// One book position in file form, with its sound moves.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct EntryFrame<G: Game> {
    pub position: G::Packed,
    pub moves: Vec<MoveFrame<G>>,
}

/// Everything in a book file except its entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookHeader {
    /// The game and variant the book is for (`brazilian`, `kalah:6:4`).
    pub game: String,
    /// How the book was built (evaluator, depth, margin, plies), in words.
    pub info: String,
    pub entries: u64,
}

/// Why a book file could not be read or written. Every variant names the file.
#[derive(Debug)]
#[non_exhaustive]
pub enum BookError {
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file does not start with [`MAGIC`] (empty files included).
    NotABook {
        path: PathBuf,
    },
    TooLarge {
        path: PathBuf,
        size: u64,
    },
    /// The file ends before its header or payload says it does.
    Truncated {
        path: PathBuf,
        needed: u64,
        found: u64,
    },
    UnknownVersion {
        path: PathBuf,
        found: u16,
    },
    /// A length field exceeds its cap.
    LengthOverCap {
        path: PathBuf,
        field: &'static str,
        len: u64,
        cap: u64,
    },
    ChecksumMismatch {
        path: PathBuf,
        stored: u64,
        computed: u64,
    },
    /// Bytes follow the checksum.
    TrailingData {
        path: PathBuf,
        extra: u64,
    },
    WrongGame {
        path: PathBuf,
        found: String,
        expected: String,
    },
    /// The checksum is right but the contents are not a book (a text that is not UTF-8,
    /// a payload that does not decode, an illegal move, a position twice…).
    Invalid {
        path: PathBuf,
        problem: String,
    },
}

impl BookError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            BookError::Io { path, .. }
            | BookError::NotABook { path }
            | BookError::TooLarge { path, .. }
            | BookError::Truncated { path, .. }
            | BookError::UnknownVersion { path, .. }
            | BookError::LengthOverCap { path, .. }
            | BookError::ChecksumMismatch { path, .. }
            | BookError::TrailingData { path, .. }
            | BookError::WrongGame { path, .. }
            | BookError::Invalid { path, .. } => path,
        }
    }
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "book file {}: ", self.path().display())?;
        match self {
            BookError::Io { source, .. } => write!(f, "{source}"),
            BookError::NotABook { .. } => {
                write!(
                    f,
                    "not an opening book (it does not start with \"EVALBOOK\")"
                )
            }
            BookError::TooLarge { size, .. } => {
                write!(f, "file too large: {size} bytes (cap {MAX_FILE_BYTES})")
            }
            BookError::Truncated { needed, found, .. } => write!(
                f,
                "truncated: needs at least {needed} bytes but has {found}"
            ),
            BookError::UnknownVersion { found, .. } => write!(
                f,
                "unknown format version: found {found}, this build reads {FORMAT_VERSION}"
            ),
            BookError::LengthOverCap {
                field, len, cap, ..
            } => write!(f, "{field} {len} is over its cap of {cap}"),
            BookError::ChecksumMismatch {
                stored, computed, ..
            } => write!(
                f,
                "checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is corrupt"
            ),
            BookError::TrailingData { extra, .. } => {
                write!(f, "{extra} unexpected bytes after the checksum")
            }
            BookError::WrongGame {
                found, expected, ..
            } => write!(f, "a book of '{found}', expected '{expected}'"),
            BookError::Invalid { problem, .. } => write!(f, "{problem}"),
        }
    }
}

impl std::error::Error for BookError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BookError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// The bytes of a book file; refuses what the reader would refuse, so every file written
/// can be read back.
pub fn encode<G: Game>(
    game: &str,
    info: &str,
    entries: &[EntryFrame<G>],
) -> Result<Vec<u8>, String> {
    if game.len() > MAX_NAME_BYTES {
        return Err(format!("game name over {MAX_NAME_BYTES} bytes"));
    }
    if info.len() > MAX_INFO_BYTES {
        return Err(format!("build description over {MAX_INFO_BYTES} bytes"));
    }
    if entries.len() as u64 > MAX_ENTRIES {
        return Err(format!(
            "{} positions, more than the {MAX_ENTRIES} a book file holds",
            entries.len()
        ));
    }
    let payload =
        bincode::serde::encode_to_vec(entries, bincode_config()).map_err(|e| e.to_string())?;
    if payload.len() > MAX_PAYLOAD_BYTES {
        return Err(format!("payload over {MAX_PAYLOAD_BYTES} bytes"));
    }
    let mut out = Vec::with_capacity(46 + game.len() + info.len() + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    put_str(&mut out, game);
    put_str(&mut out, info);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// Writes a book file atomically.
pub fn write<G: Game>(
    path: &Path,
    game: &str,
    info: &str,
    entries: &[EntryFrame<G>],
) -> Result<(), BookError> {
    let bytes = encode(game, info, entries).map_err(|problem| BookError::Invalid {
        path: path.to_path_buf(),
        problem,
    })?;
    write_atomic(path, &bytes).map_err(|source| BookError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// A bounds-checked reader over the file's bytes: running off the end is `Truncated`.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    path: &'a Path,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], BookError> {
        match self.pos.checked_add(n) {
            Some(end) if end <= self.bytes.len() => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            end => Err(BookError::Truncated {
                path: self.path.to_path_buf(),
                needed: end.map_or(u64::MAX, |e| e as u64),
                found: self.bytes.len() as u64,
            }),
        }
    }

    fn u64(&mut self) -> Result<u64, BookError> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    /// A length field checked against its cap before anything is taken.
    fn len(&mut self, field: &'static str, bytes: usize, cap: u64) -> Result<u64, BookError> {
        let len = match bytes {
            4 => u64::from(u32::from_le_bytes(
                self.take(4)?.try_into().expect("4 bytes"),
            )),
            _ => self.u64()?,
        };
        if len > cap {
            return Err(BookError::LengthOverCap {
                path: self.path.to_path_buf(),
                field,
                len,
                cap,
            });
        }
        Ok(len)
    }

    fn text(&mut self, field: &'static str, cap: usize) -> Result<&'a [u8], BookError> {
        let len = self.len(field, 4, cap as u64)?;
        self.take(len as usize)
    }
}

/// Validates the whole file except the payload's contents: magic, version, lengths,
/// size, checksum, then the texts (so corruption is reported as corruption whenever the
/// checksum can tell). Returns the header and the payload bytes.
pub fn parse<'a>(bytes: &'a [u8], path: &'a Path) -> Result<(BookHeader, &'a [u8]), BookError> {
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        return Err(BookError::NotABook {
            path: path.to_path_buf(),
        });
    }
    if bytes.len() > MAX_FILE_BYTES {
        return Err(BookError::TooLarge {
            path: path.to_path_buf(),
            size: bytes.len() as u64,
        });
    }
    let mut c = Cursor {
        bytes,
        pos: MAGIC.len(),
        path,
    };
    let version = u16::from_le_bytes(c.take(2)?.try_into().expect("2 bytes"));
    if version != FORMAT_VERSION {
        return Err(BookError::UnknownVersion {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let game = c.text("game name length", MAX_NAME_BYTES)?;
    let info = c.text("build description length", MAX_INFO_BYTES)?;
    let entries = c.len("entry count", 8, MAX_ENTRIES)?;
    let payload_len = c.len("payload length", 8, MAX_PAYLOAD_BYTES as u64)?;
    let payload = c.take(payload_len as usize)?;
    let end = c.pos;
    let stored = c.u64()?;
    let computed = checksum(&bytes[..end]);
    if stored != computed {
        return Err(BookError::ChecksumMismatch {
            path: path.to_path_buf(),
            stored,
            computed,
        });
    }
    if c.pos < bytes.len() {
        return Err(BookError::TrailingData {
            path: path.to_path_buf(),
            extra: (bytes.len() - c.pos) as u64,
        });
    }
    let text = |field: &str, raw: &[u8]| {
        String::from_utf8(raw.to_vec()).map_err(|_| BookError::Invalid {
            path: path.to_path_buf(),
            problem: format!("the {field} is not UTF-8"),
        })
    };
    let header = BookHeader {
        game: text("game name", game)?,
        info: text("build description", info)?,
        entries,
    };
    Ok((header, payload))
}

/// Decodes a book file's bytes (`path` names them in errors) for game `expect_game`
/// (the exact variant name, e.g. `kalah:6:4`).
pub fn decode<G: Game>(
    bytes: &[u8],
    path: &Path,
    expect_game: &str,
) -> Result<(BookHeader, Vec<EntryFrame<G>>), BookError> {
    let (header, payload) = parse(bytes, path)?;
    if header.game != expect_game {
        return Err(BookError::WrongGame {
            path: path.to_path_buf(),
            found: header.game,
            expected: expect_game.to_string(),
        });
    }
    let invalid = |problem: String| BookError::Invalid {
        path: path.to_path_buf(),
        problem,
    };
    let (entries, used): (Vec<EntryFrame<G>>, usize) =
        bincode::serde::decode_from_slice(payload, bincode_config())
            .map_err(|e| invalid(format!("the entries do not decode: {e}")))?;
    if used != payload.len() {
        return Err(invalid(format!(
            "{} bytes left over after the entries",
            payload.len() - used
        )));
    }
    if entries.len() as u64 != header.entries {
        return Err(invalid(format!(
            "the header counts {} positions but the file holds {}",
            header.entries,
            entries.len()
        )));
    }
    Ok((header, entries))
}

/// Reads a whole book file, refusing files over [`MAX_FILE_BYTES`] before reading them.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, BookError> {
    let io = |source| BookError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    let too_large = |size| BookError::TooLarge {
        path: path.to_path_buf(),
        size,
    };
    if size > MAX_FILE_BYTES as u64 {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // `take` bounds the read even if the file grows after the size check.
    file.take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The validated header of a book file (the whole file is read and checksummed).
pub fn read_header(path: &Path) -> Result<BookHeader, BookError> {
    let bytes = read_bytes(path)?;
    parse(&bytes, path).map(|(header, _)| header)
}

/// Reads a book file of game `expect_game`.
pub fn read<G: Game>(
    path: &Path,
    expect_game: &str,
) -> Result<(BookHeader, Vec<EntryFrame<G>>), BookError> {
    let bytes = read_bytes(path)?;
    decode(&bytes, path, expect_game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::brazilian::Brazilian;

    fn sample() -> Vec<u8> {
        let start = Brazilian::start();
        let mut moves = crate::game::MoveList::new();
        start.legal_moves(&mut moves);
        let entries = vec![EntryFrame::<Brazilian> {
            position: start.pack(),
            moves: vec![MoveFrame {
                mv: start.pack_move(moves[0]),
                score: 12,
                weight: 3,
            }],
        }];
        encode("brazilian", "test book", &entries).unwrap()
    }

    #[test]
    fn round_trip_and_every_damage_is_named() {
        let path = Path::new("x.book");
        let bytes = sample();
        let (header, entries) = decode::<Brazilian>(&bytes, path, "brazilian").unwrap();
        assert_eq!(header.info, "test book");
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].moves[0].weight, 3);

        for cut in 0..bytes.len() {
            let err = decode::<Brazilian>(&bytes[..cut], path, "brazilian").unwrap_err();
            assert!(
                matches!(
                    err,
                    BookError::NotABook { .. } | BookError::Truncated { .. }
                ),
                "cut {cut}: {err}"
            );
        }
        // Every single flipped byte after the magic and version is caught.
        for i in 10..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x20;
            let err = decode::<Brazilian>(&bad, path, "brazilian").unwrap_err();
            assert!(err.to_string().contains("x.book"), "{err}");
        }
        let mut bad = bytes.clone();
        bad[8] = 9;
        assert!(matches!(
            decode::<Brazilian>(&bad, path, "brazilian"),
            Err(BookError::UnknownVersion { found: 9, .. })
        ));
        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(
            decode::<Brazilian>(&long, path, "brazilian"),
            Err(BookError::TrailingData { extra: 1, .. })
        ));
        assert!(matches!(
            decode::<Brazilian>(&bytes, path, "kalah"),
            Err(BookError::WrongGame { .. })
        ));
    }

    #[test]
    fn huge_lengths_are_refused_before_allocating() {
        let path = Path::new("x.book");
        let mut bad = sample();
        // The game-name length field.
        bad[10..14].copy_from_slice(&u32::MAX.to_le_bytes());
        let err = decode::<Brazilian>(&bad, path, "brazilian").unwrap_err();
        assert!(matches!(err, BookError::LengthOverCap { .. }), "{err}");
    }
}
