//! Self-play datasets: one frame per game, appended as games finish, so a killed run
//! keeps every finished game; a finished run rewrites the file sorted by game index, so
//! the same seed gives the same bytes whatever the thread count.
//!
//! Layout (little-endian): magic `EVALDATA`, format version (u16), game name (u32 length
//! ≤ 64, UTF-8); then frames: payload length (u32, ≤ [`MAX_FRAME_BYTES`]), CRC-64/XZ of the
//! payload (u64), payload (serde + bincode 2, standard configuration). A torn or corrupt
//! last frame (a run killed mid-write) is skipped with a warning; damage before the last
//! frame is an error.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::model::checksum;
use super::write_atomic;
use crate::game::{EndReason, Game, Outcome, Side};

pub const MAGIC: [u8; 8] = *b"EVALDATA";
pub const FORMAT_VERSION: u16 = 1;
/// Largest frame (one game) accepted.
pub const MAX_FRAME_BYTES: usize = 16 << 20;
/// Largest dataset file read.
pub const MAX_DATASET_BYTES: u64 = 16 << 30;
const MAX_NAME_BYTES: usize = 64;
const FRAME_HEADER_BYTES: usize = 12;

/// What the engine found in one position of a game.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct PlyRecord<G: Game> {
    /// The move played.
    pub mv: G::PackedMove,
    /// The search's value of the position for the side to move (centi-units or a win
    /// or loss score).
    pub score: i32,
    /// Depth of the search that chose the move.
    pub depth: u8,
    /// The end of the principal variation: the quiet position whose static value the
    /// score came from (TD-Leaf trains on it).
    pub leaf: G::Packed,
}

/// One game in file form.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct GameFrame<G: Game> {
    /// Index of the game in its run (what shards split by, and the sort key).
    pub index: u64,
    pub start: G::Packed,
    pub plies: Vec<PlyRecord<G>>,
    /// 1 the first player won, 0 draw, −1 the second player won.
    pub result: i8,
    /// 0 no moves, 1 repetition, 2 quiet-move rule, 3 ply cap.
    pub end: u8,
}

/// A game read back and checked: positions replayed, moves legal.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DatasetGame<G: Game> {
    pub index: u64,
    /// `positions[i]` is the position before move `i`; one more at the end.
    pub positions: Vec<G>,
    pub moves: Vec<G::Move>,
    pub scores: Vec<i32>,
    pub depths: Vec<u8>,
    pub leaves: Vec<G>,
    pub outcome: Outcome,
    pub reason: EndReason,
}

impl<G: Game> DatasetGame<G> {
    /// Plies played.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The frame to store this game in.
    pub fn to_frame(&self) -> GameFrame<G> {
        GameFrame {
            index: self.index,
            start: self.positions[0].pack(),
            plies: (0..self.moves.len())
                .map(|i| PlyRecord {
                    mv: self.positions[i].pack_move(self.moves[i]),
                    score: self.scores[i],
                    depth: self.depths[i],
                    leaf: self.leaves[i].pack(),
                })
                .collect(),
            result: match self.outcome {
                Outcome::Win(Side::First) => 1,
                Outcome::Win(Side::Second) => -1,
                Outcome::Draw => 0,
            },
            end: self.reason.code(),
        }
    }

    /// Checks and unpacks a frame.
    pub fn from_frame(frame: &GameFrame<G>) -> Result<DatasetGame<G>, String> {
        let start = G::unpack(&frame.start).map_err(|e| format!("start position: {e}"))?;
        let mut game = DatasetGame {
            index: frame.index,
            positions: vec![start],
            moves: Vec::with_capacity(frame.plies.len()),
            scores: Vec::with_capacity(frame.plies.len()),
            depths: Vec::with_capacity(frame.plies.len()),
            leaves: Vec::with_capacity(frame.plies.len()),
            outcome: match frame.result {
                1 => Outcome::Win(Side::First),
                -1 => Outcome::Win(Side::Second),
                0 => Outcome::Draw,
                other => return Err(format!("result {other} is not 1, 0 or -1")),
            },
            reason: EndReason::from_code(frame.end).ok_or_else(|| {
                format!(
                    "end reason {} is not 0..{}",
                    frame.end,
                    EndReason::ALL.len() - 1
                )
            })?,
        };
        for (i, ply) in frame.plies.iter().enumerate() {
            let pos = game.positions[i];
            let mv = pos
                .unpack_move(&ply.mv)
                .map_err(|e| format!("ply {}: {e}", i + 1))?;
            let leaf = G::unpack(&ply.leaf).map_err(|e| format!("ply {} leaf: {e}", i + 1))?;
            game.positions.push(pos.play(mv));
            game.moves.push(mv);
            game.scores.push(ply.score);
            game.depths.push(ply.depth);
            game.leaves.push(leaf);
        }
        Ok(game)
    }
}

/// Why a dataset could not be read or written.
#[derive(Debug)]
pub enum DatasetError {
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    NotADataset {
        path: PathBuf,
    },
    UnknownVersion {
        path: PathBuf,
        found: u16,
    },
    WrongGame {
        path: PathBuf,
        found: String,
        expected: String,
    },
    /// A frame before the last one is damaged.
    Corrupt {
        path: PathBuf,
        frame: usize,
        offset: u64,
        problem: String,
    },
    TooLarge {
        path: PathBuf,
        size: u64,
    },
    DuplicateGame {
        path: PathBuf,
        index: u64,
    },
}

impl fmt::Display for DatasetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DatasetError::Io { path, source } => write!(f, "dataset {}: {source}", path.display()),
            DatasetError::NotADataset { path } => {
                write!(
                    f,
                    "dataset {}: not an evalearn dataset (bad magic)",
                    path.display()
                )
            }
            DatasetError::UnknownVersion { path, found } => write!(
                f,
                "dataset {}: format version {found}, this build reads {FORMAT_VERSION}",
                path.display()
            ),
            DatasetError::WrongGame {
                path,
                found,
                expected,
            } => write!(
                f,
                "dataset {}: games of '{found}', expected '{expected}'",
                path.display()
            ),
            DatasetError::Corrupt {
                path,
                frame,
                offset,
                problem,
            } => write!(
                f,
                "dataset {}: game frame {frame} at byte {offset} is damaged: {problem}",
                path.display()
            ),
            DatasetError::TooLarge { path, size } => write!(
                f,
                "dataset {}: {size} bytes, more than the {MAX_DATASET_BYTES} read",
                path.display()
            ),
            DatasetError::DuplicateGame { path, index } => {
                write!(f, "dataset {}: game {index} appears twice", path.display())
            }
        }
    }
}

impl std::error::Error for DatasetError {}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn file_header(game: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(14 + game.len());
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(game.len() as u32).to_le_bytes());
    bytes.extend_from_slice(game.as_bytes());
    bytes
}

fn encode_frame<G: Game>(frame: &GameFrame<G>) -> Vec<u8> {
    let payload = bincode::serde::encode_to_vec(frame, bincode::config::standard())
        .expect("plain data always encodes");
    let mut bytes = Vec::with_capacity(FRAME_HEADER_BYTES + payload.len());
    bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&checksum(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    bytes
}

/// Appends games to a dataset as they finish; [`DatasetWriter::finish`] rewrites it
/// sorted by game index.
pub struct DatasetWriter {
    path: PathBuf,
    game: String,
    file: File,
    frames: Vec<(u64, Vec<u8>)>,
}

impl DatasetWriter {
    /// Creates (or truncates) the dataset at `path` for games of `game`.
    pub fn create(path: &Path, game: &str) -> Result<DatasetWriter, DatasetError> {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(io_error(path))?;
        file.write_all(&file_header(game)).map_err(io_error(path))?;
        file.flush().map_err(io_error(path))?;
        Ok(DatasetWriter {
            path: path.to_path_buf(),
            game: game.to_string(),
            file,
            frames: Vec::new(),
        })
    }

    /// Appends one game and flushes it to the file.
    pub fn append<G: Game>(&mut self, game: &DatasetGame<G>) -> Result<(), DatasetError> {
        let bytes = encode_frame(&game.to_frame());
        self.file.write_all(&bytes).map_err(io_error(&self.path))?;
        self.file.flush().map_err(io_error(&self.path))?;
        self.frames.push((game.index, bytes));
        Ok(())
    }

    /// Rewrites the file atomically with the games sorted by index.
    pub fn finish(mut self) -> Result<(), DatasetError> {
        self.frames.sort_by_key(|f| f.0);
        write_sorted(
            &self.path,
            &self.game,
            self.frames.iter().map(|f| f.1.as_slice()),
        )
    }
}

fn write_sorted<'a>(
    path: &Path,
    game: &str,
    frames: impl Iterator<Item = &'a [u8]>,
) -> Result<(), DatasetError> {
    let mut bytes = file_header(game);
    for frame in frames {
        bytes.extend_from_slice(frame);
    }
    write_atomic(path, &bytes).map_err(io_error(path))
}

/// A dataset read back.
#[derive(Debug)]
pub struct Dataset<G: Game> {
    pub game: String,
    pub games: Vec<DatasetGame<G>>,
    /// Set when a torn last frame was skipped.
    pub warning: Option<String>,
}

/// The game a dataset file records (its header's name, e.g. `brazilian`, `kalah:6:4`),
/// read without decoding the games.
pub fn read_game_name(path: &Path) -> Result<String, DatasetError> {
    let mut file = File::open(path).map_err(io_error(path))?;
    let mut head = [0u8; 14 + MAX_NAME_BYTES];
    let mut len = 0;
    while len < head.len() {
        let n = file.read(&mut head[len..]).map_err(io_error(path))?;
        if n == 0 {
            break;
        }
        len += n;
    }
    let (name, _) = decode_header(&head[..len], path)?;
    Ok(name)
}

/// The game name of a dataset's header and the offset of its first frame.
fn decode_header(bytes: &[u8], path: &Path) -> Result<(String, usize), DatasetError> {
    let not_dataset = || DatasetError::NotADataset {
        path: path.to_path_buf(),
    };
    if bytes.len() < 14 || bytes[..8] != MAGIC {
        return Err(not_dataset());
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != FORMAT_VERSION {
        return Err(DatasetError::UnknownVersion {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let name_len = u32::from_le_bytes([bytes[10], bytes[11], bytes[12], bytes[13]]) as usize;
    if name_len > MAX_NAME_BYTES || bytes.len() < 14 + name_len {
        return Err(not_dataset());
    }
    let game = std::str::from_utf8(&bytes[14..14 + name_len])
        .map_err(|_| not_dataset())?
        .to_string();
    Ok((game, 14 + name_len))
}

impl<G: Game> Dataset<G> {
    /// Reads and checks a dataset of game `G`, of variant `expect_game` when given (the
    /// exact name, e.g. `kalah:6:4`); a dataset of another game is an error.
    pub fn read(path: &Path, expect_game: Option<&str>) -> Result<Dataset<G>, DatasetError> {
        let file = File::open(path).map_err(io_error(path))?;
        let size = file.metadata().map_err(io_error(path))?.len();
        if size > MAX_DATASET_BYTES {
            return Err(DatasetError::TooLarge {
                path: path.to_path_buf(),
                size,
            });
        }
        let mut bytes = Vec::with_capacity(size as usize);
        file.take(MAX_DATASET_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io_error(path))?;
        Dataset::decode(&bytes, path, expect_game)
    }

    /// Decodes dataset bytes (`path` only names them in errors).
    pub fn decode(
        bytes: &[u8],
        path: &Path,
        expect_game: Option<&str>,
    ) -> Result<Dataset<G>, DatasetError> {
        let (game, first_frame) = decode_header(bytes, path)?;
        let family = game.split(':').next().unwrap_or("");
        if family != G::NAME || expect_game.is_some_and(|expected| game != expected) {
            return Err(DatasetError::WrongGame {
                path: path.to_path_buf(),
                found: game,
                expected: expect_game.unwrap_or(G::NAME).to_string(),
            });
        }
        let mut dataset = Dataset {
            game,
            games: Vec::new(),
            warning: None,
        };
        let mut offset = first_frame;
        let mut frame_number = 0;
        while offset < bytes.len() {
            frame_number += 1;
            let corrupt = |problem: String| DatasetError::Corrupt {
                path: path.to_path_buf(),
                frame: frame_number,
                offset: offset as u64,
                problem,
            };
            let rest = &bytes[offset..];
            let torn = |what: &str| {
                Some(format!(
                    "dataset {}: skipped a torn last game frame at byte {offset} ({what}); \
                     the run that wrote it was probably stopped",
                    path.display()
                ))
            };
            if rest.len() < FRAME_HEADER_BYTES {
                dataset.warning = torn("incomplete frame header");
                break;
            }
            let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            let stored = u64::from_le_bytes(rest[4..12].try_into().expect("8 bytes"));
            if len > MAX_FRAME_BYTES {
                return Err(corrupt(format!(
                    "length {len} over the {MAX_FRAME_BYTES}-byte cap"
                )));
            }
            let end = FRAME_HEADER_BYTES + len;
            if rest.len() < end {
                dataset.warning = torn("frame cut short");
                break;
            }
            let payload = &rest[FRAME_HEADER_BYTES..end];
            let last = end == rest.len();
            if checksum(payload) != stored {
                if last {
                    dataset.warning = torn("checksum mismatch");
                    break;
                }
                return Err(corrupt("checksum mismatch".to_string()));
            }
            let config = bincode::config::standard().with_limit::<MAX_FRAME_BYTES>();
            let (frame, used): (GameFrame<G>, usize) =
                bincode::serde::decode_from_slice(payload, config)
                    .map_err(|e| corrupt(format!("does not decode: {e}")))?;
            if used != payload.len() {
                return Err(corrupt(format!(
                    "{} bytes after the game",
                    payload.len() - used
                )));
            }
            let game = DatasetGame::from_frame(&frame).map_err(corrupt)?;
            dataset.games.push(game);
            offset += end;
        }
        Ok(dataset)
    }

    /// Writes `games` (of `game`) as a dataset sorted by index, atomically; the same game
    /// index twice is an error.
    pub fn write_sorted(
        path: &Path,
        game: &str,
        games: &[DatasetGame<G>],
    ) -> Result<(), DatasetError> {
        let mut frames: Vec<(u64, Vec<u8>)> = games
            .iter()
            .map(|g| (g.index, encode_frame(&g.to_frame())))
            .collect();
        frames.sort_by_key(|f| f.0);
        if let Some(pair) = frames.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(DatasetError::DuplicateGame {
                path: path.to_path_buf(),
                index: pair[0].0,
            });
        }
        write_sorted(path, game, frames.iter().map(|f| f.1.as_slice()))
    }
}
