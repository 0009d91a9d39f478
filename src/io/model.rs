//! Model files: written by training, loaded by search, play and matches.
//!
//! Training rewrites its model file every iteration while `evalearn play` may be
//! hot-reloading it, so files are written atomically ([`super::write_atomic`]) and every
//! read is fully validated: any file that is not exactly what a save wrote is an error,
//! never a panic and never a large allocation.
//!
//! # Layout (all integers little-endian)
//!
//! | bytes         | field                                                        |
//! |---------------|--------------------------------------------------------------|
//! | 8             | magic [`MAGIC`] (`EVALEARN`)                                 |
//! | 2             | format version, `u16` ([`FORMAT_VERSION`])                   |
//! | 4 + n         | game: `u32` length `n` ≤ [`MAX_NAME_BYTES`], UTF-8 bytes     |
//! | 4 + n         | evaluator kind, same encoding                                |
//! | 4 + n         | feature-set identifier, same encoding                        |
//! | 8             | revision, `u64`                                              |
//! | 4 + n         | config text: `u32` length `n` ≤ [`MAX_CONFIG_BYTES`], UTF-8  |
//! | 8             | seed, `u64`                                                  |
//! | 8             | games seen, `u64`                                            |
//! | 8             | positions seen, `u64`                                        |
//! | 8             | creation time, unix seconds, `u64`                           |
//! | 8             | payload length `p`, `u64`, `p` ≤ [`MAX_MODEL_BYTES`]         |
//! | p             | payload: serde + bincode 2, `config::standard()`             |
//! | 8             | checksum: CRC-64/XZ of every byte before it, `u64`           |
//!
//! The header is written by hand rather than with bincode so that `evalearn model info`
//! can read and explain any model file without knowing its payload type.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The first eight bytes of every model file.
pub const MAGIC: [u8; 8] = *b"EVALEARN";
/// The layout version this build writes and reads.
pub const FORMAT_VERSION: u16 = 1;
/// Largest payload accepted (and largest allocation the payload decoder may claim).
pub const MAX_MODEL_BYTES: usize = 64 << 20;
/// Largest game, evaluator-kind and feature-set identifier, in bytes.
pub const MAX_NAME_BYTES: usize = 64;
/// Largest config text, in bytes.
pub const MAX_CONFIG_BYTES: usize = 64 << 10;
/// Largest possible header: everything before the payload.
pub const MAX_HEADER_BYTES: usize =
    8 + 2 + 3 * (4 + MAX_NAME_BYTES) + 8 + (4 + MAX_CONFIG_BYTES) + 5 * 8;
/// Size of the trailing checksum.
pub const CHECKSUM_BYTES: usize = 8;
/// Largest model file accepted.
pub const MAX_FILE_BYTES: usize = MAX_HEADER_BYTES + MAX_MODEL_BYTES + CHECKSUM_BYTES;

/// The payload codec. The limit caps what a corrupt length prefix inside the payload can
/// make the decoder allocate.
fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<MAX_MODEL_BYTES>()
}

/// How a model was trained.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrainingMeta {
    /// The TOML config text the model was trained with (empty if none).
    pub config: String,
    /// The training run's seed.
    pub seed: u64,
    /// Games seen in training so far.
    pub games: u64,
    /// Positions seen in training so far.
    pub positions: u64,
    /// When this revision was written, in unix seconds.
    pub created_unix: u64,
}

/// Everything in a model file except its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelHeader {
    /// The game the model evaluates, e.g. `brazilian`.
    pub game: String,
    /// The evaluator kind, e.g. `linear`; says what type the payload is.
    pub kind: String,
    /// The feature-set identifier, e.g. `samuel-v1`.
    pub features: String,
    /// A counter that every [`save_model`] increments.
    pub revision: u64,
    /// How the model was trained.
    pub meta: TrainingMeta,
}

impl ModelHeader {
    /// A header at revision 0 with empty training metadata.
    pub fn new(
        game: impl Into<String>,
        kind: impl Into<String>,
        features: impl Into<String>,
    ) -> Self {
        ModelHeader {
            game: game.into(),
            kind: kind.into(),
            features: features.into(),
            revision: 0,
            meta: TrainingMeta::default(),
        }
    }
}

impl fmt::Display for ModelHeader {
    /// The header in words, one field a line, for `evalearn model info`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &self.meta;
        writeln!(f, "game:        {}", self.game)?;
        writeln!(f, "evaluator:   {}", self.kind)?;
        writeln!(f, "feature set: {}", self.features)?;
        writeln!(f, "revision:    {}", self.revision)?;
        writeln!(
            f,
            "trained with seed {}, {} games, {} positions",
            m.seed, m.games, m.positions
        )?;
        writeln!(f, "created at:  {}", format_utc(m.created_unix))?;
        if m.config.trim().is_empty() {
            write!(f, "config:      (none)")
        } else {
            write!(f, "config:")?;
            for line in m.config.lines() {
                write!(f, "\n    {line}")?;
            }
            Ok(())
        }
    }
}

/// A value as bytes in the payload codec (a learner's state inside a checkpoint).
pub fn to_bytes<T: serde::Serialize>(value: &T) -> Vec<u8> {
    bincode::serde::encode_to_vec(value, bincode_config()).expect("plain values encode")
}

/// A value from bytes [`to_bytes`] wrote; the error is the codec's message.
pub fn from_bytes<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let (value, used) =
        bincode::serde::decode_from_slice(bytes, bincode_config()).map_err(|e| e.to_string())?;
    if used != bytes.len() {
        return Err(format!("{} bytes left over", bytes.len() - used));
    }
    Ok(value)
}

/// Formats unix seconds as `YYYY-MM-DD hh:mm:ss UTC`.
pub fn format_utc(unix: u64) -> String {
    // u64 seconds / 86400 < 2^48 days, so every step below fits in i64.
    let days = (unix / 86_400) as i64;
    let secs = unix % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`: shifts the year to start in March so leap days come last).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March = 0
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Why a model file could not be read, decoded or written. Every variant carries the file's
/// path when there is one (decoding from memory has none).
#[derive(Debug)]
#[non_exhaustive]
pub enum ModelError {
    /// The file could not be opened, read or written.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The bytes do not start with [`MAGIC`] (including empty files).
    NotAModel { path: Option<PathBuf> },
    /// The file ends before its header or payload says it does.
    Truncated {
        path: Option<PathBuf>,
        needed: u64,
        found: u64,
    },
    /// The stored checksum does not match the bytes: the file is corrupt.
    ChecksumMismatch {
        path: Option<PathBuf>,
        stored: u64,
        computed: u64,
    },
    /// The file was written by a build with another layout.
    UnknownVersion { path: Option<PathBuf>, found: u16 },
    /// The model is for another game.
    WrongGame {
        path: Option<PathBuf>,
        found: String,
        expected: String,
    },
    /// The model is of another evaluator kind.
    WrongKind {
        path: Option<PathBuf>,
        found: String,
        expected: String,
    },
    /// A length field (`field`) exceeds its cap.
    LengthOverCap {
        path: Option<PathBuf>,
        field: &'static str,
        len: u64,
        cap: u64,
    },
    /// A header string (`field`) is not UTF-8.
    InvalidText {
        path: Option<PathBuf>,
        field: &'static str,
    },
    /// The payload does not decode as the expected type (bincode's message), or does not
    /// fill exactly its stated length.
    Payload {
        path: Option<PathBuf>,
        message: String,
    },
    /// The payload could not be encoded (bincode's message).
    Encode {
        path: Option<PathBuf>,
        message: String,
    },
    /// The file is larger than [`MAX_FILE_BYTES`].
    TooLarge {
        path: Option<PathBuf>,
        size: u64,
        cap: u64,
    },
    /// Bytes follow the checksum.
    TrailingData { path: Option<PathBuf>, extra: u64 },
}

impl ModelError {
    /// The file this error is about, if known.
    pub fn path(&self) -> Option<&Path> {
        match self {
            ModelError::Io { path, .. } => Some(path),
            ModelError::NotAModel { path }
            | ModelError::Truncated { path, .. }
            | ModelError::ChecksumMismatch { path, .. }
            | ModelError::UnknownVersion { path, .. }
            | ModelError::WrongGame { path, .. }
            | ModelError::WrongKind { path, .. }
            | ModelError::LengthOverCap { path, .. }
            | ModelError::InvalidText { path, .. }
            | ModelError::Payload { path, .. }
            | ModelError::Encode { path, .. }
            | ModelError::TooLarge { path, .. }
            | ModelError::TrailingData { path, .. } => path.as_deref(),
        }
    }

    /// Attaches `p` to an error raised while decoding the bytes of that file.
    pub(crate) fn at(mut self, p: &Path) -> Self {
        match &mut self {
            ModelError::Io { .. } => {}
            ModelError::NotAModel { path }
            | ModelError::Truncated { path, .. }
            | ModelError::ChecksumMismatch { path, .. }
            | ModelError::UnknownVersion { path, .. }
            | ModelError::WrongGame { path, .. }
            | ModelError::WrongKind { path, .. }
            | ModelError::LengthOverCap { path, .. }
            | ModelError::InvalidText { path, .. }
            | ModelError::Payload { path, .. }
            | ModelError::Encode { path, .. }
            | ModelError::TooLarge { path, .. }
            | ModelError::TrailingData { path, .. } => *path = Some(p.to_path_buf()),
        }
        self
    }

    fn io(path: &Path, source: std::io::Error) -> Self {
        ModelError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path() {
            Some(p) => write!(f, "model file {}: ", p.display())?,
            None => write!(f, "model: ")?,
        }
        match self {
            ModelError::Io { source, .. } => write!(f, "I/O error: {source}"),
            ModelError::NotAModel { .. } => {
                write!(f, "not a model file (it does not start with \"EVALEARN\")")
            }
            ModelError::Truncated { needed, found, .. } => write!(
                f,
                "truncated: needs at least {needed} bytes but has {found}"
            ),
            ModelError::ChecksumMismatch {
                stored, computed, ..
            } => write!(
                f,
                "checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is corrupt"
            ),
            ModelError::UnknownVersion { found, .. } => write!(
                f,
                "unknown format version: found {found}, this build reads {FORMAT_VERSION}"
            ),
            ModelError::WrongGame {
                found, expected, ..
            } => {
                write!(f, "wrong game: found '{found}', expected '{expected}'")
            }
            ModelError::WrongKind {
                found, expected, ..
            } => write!(
                f,
                "wrong evaluator kind: found '{found}', expected '{expected}'"
            ),
            ModelError::LengthOverCap {
                field, len, cap, ..
            } => {
                write!(f, "{field} length {len} is over its cap of {cap} bytes")
            }
            ModelError::InvalidText { field, .. } => write!(f, "{field} is not valid UTF-8"),
            ModelError::Payload { message, .. } => {
                write!(f, "payload does not decode: {message}")
            }
            ModelError::Encode { message, .. } => {
                write!(f, "payload does not encode: {message}")
            }
            ModelError::TooLarge { size, cap, .. } => {
                write!(f, "file too large: {size} bytes (cap {cap})")
            }
            ModelError::TrailingData { extra, .. } => {
                write!(f, "{extra} unexpected bytes after the checksum")
            }
        }
    }
}

impl std::error::Error for ModelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ModelError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Checksum: CRC-64/XZ (a.k.a. CRC-64/GO-ECMA): ECMA-182 polynomial, reflected, init and
// xorout all ones; check value 0x995DC9BBDF1939FA for "123456789". A CRC detects every
// burst error up to 64 bits, hence every single-byte corruption, unlike a plain hash.
// Slicing-by-8 tables so checking a 64 MiB model stays fast.

const CRC64_POLY_REFLECTED: u64 = 0xC96C_5795_D787_0F42;

const fn crc64_tables() -> [[u64; 256]; 8] {
    let mut t = [[0u64; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u64;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ CRC64_POLY_REFLECTED
            } else {
                crc >> 1
            };
            bit += 1;
        }
        t[0][i] = crc;
        i += 1;
    }
    // t[k][i]: the CRC of byte i followed by k zero bytes.
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
            i += 1;
        }
        k += 1;
    }
    t
}

static CRC64_TABLES: [[u64; 256]; 8] = crc64_tables();

/// CRC-64/XZ of `bytes`: the checksum stored at the end of every model file.
pub fn checksum(bytes: &[u8]) -> u64 {
    let t = &CRC64_TABLES;
    let mut crc = !0u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(c);
        let x = crc ^ u64::from_le_bytes(word);
        crc = t[7][(x & 0xFF) as usize]
            ^ t[6][((x >> 8) & 0xFF) as usize]
            ^ t[5][((x >> 16) & 0xFF) as usize]
            ^ t[4][((x >> 24) & 0xFF) as usize]
            ^ t[3][((x >> 32) & 0xFF) as usize]
            ^ t[2][((x >> 40) & 0xFF) as usize]
            ^ t[1][((x >> 48) & 0xFF) as usize]
            ^ t[0][(x >> 56) as usize];
    }
    for &b in chunks.remainder() {
        crc = (crc >> 8) ^ t[0][((crc ^ u64::from(b)) & 0xFF) as usize];
    }
    !crc
}

// ---------------------------------------------------------------------------------------
// Encoding.

fn put_str(out: &mut Vec<u8>, s: &str) {
    // Callers check the caps first, so the length fits in u32.
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn check_cap(field: &'static str, len: usize, cap: usize) -> Result<(), ModelError> {
    if len > cap {
        return Err(ModelError::LengthOverCap {
            path: None,
            field,
            len: len as u64,
            cap: cap as u64,
        });
    }
    Ok(())
}

/// Encodes a model file: header, payload, checksum (see the module docs for the layout).
pub fn encode_model<T: serde::Serialize>(
    header: &ModelHeader,
    payload: &T,
) -> Result<Vec<u8>, ModelError> {
    // Refuse what the decoder would refuse, so every file written can be read back.
    check_cap("game", header.game.len(), MAX_NAME_BYTES)?;
    check_cap("evaluator kind", header.kind.len(), MAX_NAME_BYTES)?;
    check_cap("feature set", header.features.len(), MAX_NAME_BYTES)?;
    check_cap("config", header.meta.config.len(), MAX_CONFIG_BYTES)?;
    let body = bincode::serde::encode_to_vec(payload, bincode_config()).map_err(|e| {
        ModelError::Encode {
            path: None,
            message: e.to_string(),
        }
    })?;
    check_cap("payload", body.len(), MAX_MODEL_BYTES)?;

    let m = &header.meta;
    let strings = header.game.len() + header.kind.len() + header.features.len() + m.config.len();
    let fixed = MAX_HEADER_BYTES - 3 * MAX_NAME_BYTES - MAX_CONFIG_BYTES;
    let mut out = Vec::with_capacity(fixed + strings + body.len() + CHECKSUM_BYTES);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    put_str(&mut out, &header.game);
    put_str(&mut out, &header.kind);
    put_str(&mut out, &header.features);
    out.extend_from_slice(&header.revision.to_le_bytes());
    put_str(&mut out, &m.config);
    for v in [
        m.seed,
        m.games,
        m.positions,
        m.created_unix,
        body.len() as u64,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&body);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Decoding.

/// A bounds-checked reader over the file's bytes: running off the end is `Truncated`.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ModelError> {
        match self.pos.checked_add(n) {
            Some(end) if end <= self.bytes.len() => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            end => Err(ModelError::Truncated {
                path: None,
                needed: end.map_or(u64::MAX, |e| e as u64),
                found: self.bytes.len() as u64,
            }),
        }
    }

    fn u16(&mut self) -> Result<u16, ModelError> {
        let mut b = [0u8; 2];
        b.copy_from_slice(self.take(2)?);
        Ok(u16::from_le_bytes(b))
    }

    fn u32(&mut self) -> Result<u32, ModelError> {
        let mut b = [0u8; 4];
        b.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> Result<u64, ModelError> {
        let mut b = [0u8; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }

    /// A length-prefixed string's raw bytes; the cap is checked before anything is taken.
    fn str_bytes(&mut self, field: &'static str, cap: usize) -> Result<&'a [u8], ModelError> {
        let len = self.u32()? as usize;
        check_cap(field, len, cap)?;
        self.take(len)
    }

    /// A length field as usize, checked against its cap.
    fn len_u64(&mut self, field: &'static str, cap: usize) -> Result<usize, ModelError> {
        let len = self.u64()?;
        if len > cap as u64 {
            return Err(ModelError::LengthOverCap {
                path: None,
                field,
                len,
                cap: cap as u64,
            });
        }
        Ok(len as usize)
    }
}

fn text(field: &'static str, bytes: &[u8]) -> Result<String, ModelError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| ModelError::InvalidText { path: None, field })
}

/// Validates the whole file except the payload's contents, returning the header and the
/// payload bytes. Order: size, magic, version, header lengths, file length, checksum,
/// text; so a corrupt file is reported as corrupt rather than as whatever the corruption
/// happened to look like, whenever that can be told.
fn parse(bytes: &[u8]) -> Result<(ModelHeader, &[u8]), ModelError> {
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        return Err(ModelError::NotAModel { path: None });
    }
    if bytes.len() > MAX_FILE_BYTES {
        return Err(ModelError::TooLarge {
            path: None,
            size: bytes.len() as u64,
            cap: MAX_FILE_BYTES as u64,
        });
    }
    let mut c = Cursor {
        bytes,
        pos: MAGIC.len(),
    };
    let version = c.u16()?;
    if version != FORMAT_VERSION {
        return Err(ModelError::UnknownVersion {
            path: None,
            found: version,
        });
    }
    let game = c.str_bytes("game", MAX_NAME_BYTES)?;
    let kind = c.str_bytes("evaluator kind", MAX_NAME_BYTES)?;
    let features = c.str_bytes("feature set", MAX_NAME_BYTES)?;
    let revision = c.u64()?;
    let config = c.str_bytes("config", MAX_CONFIG_BYTES)?;
    let seed = c.u64()?;
    let games = c.u64()?;
    let positions = c.u64()?;
    let created_unix = c.u64()?;
    let payload_len = c.len_u64("payload", MAX_MODEL_BYTES)?;
    let payload = c.take(payload_len)?;
    let end = c.pos;
    let stored = c.u64()?;
    let computed = checksum(&bytes[..end]);
    if stored != computed {
        return Err(ModelError::ChecksumMismatch {
            path: None,
            stored,
            computed,
        });
    }
    if c.pos < bytes.len() {
        return Err(ModelError::TrailingData {
            path: None,
            extra: (bytes.len() - c.pos) as u64,
        });
    }
    let header = ModelHeader {
        game: text("game", game)?,
        kind: text("evaluator kind", kind)?,
        features: text("feature set", features)?,
        revision,
        meta: TrainingMeta {
            config: text("config", config)?,
            seed,
            games,
            positions,
            created_unix,
        },
    };
    Ok((header, payload))
}

/// Decodes and validates a model file's header and returns it with the payload's bytes,
/// undecoded: what two models hold compares whatever their creation times.
pub fn decode_parts(bytes: &[u8]) -> Result<(ModelHeader, &[u8]), ModelError> {
    parse(bytes)
}

/// Decodes and validates a model file's header (magic, version, lengths and checksum),
/// without decoding the payload.
pub fn decode_header(bytes: &[u8]) -> Result<ModelHeader, ModelError> {
    parse(bytes).map(|(header, _)| header)
}

/// Decodes a model file, checking the game and evaluator kind when expectations are given.
pub fn decode_model<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    expect_game: Option<&str>,
    expect_kind: Option<&str>,
) -> Result<(ModelHeader, T), ModelError> {
    let (header, payload) = parse(bytes)?;
    if let Some(expected) = expect_game
        && header.game != expected
    {
        return Err(ModelError::WrongGame {
            path: None,
            found: header.game,
            expected: expected.to_string(),
        });
    }
    if let Some(expected) = expect_kind
        && header.kind != expected
    {
        return Err(ModelError::WrongKind {
            path: None,
            found: header.kind,
            expected: expected.to_string(),
        });
    }
    let payload_error = |message: String| ModelError::Payload {
        path: None,
        message,
    };
    let (value, used) = bincode::serde::decode_from_slice::<T, _>(payload, bincode_config())
        .map_err(|e| match e {
            // A payload type's own message (serde's `custom`), shown as written.
            bincode::error::DecodeError::OtherString(message) => payload_error(message),
            e => payload_error(e.to_string()),
        })?;
    if used != payload.len() {
        return Err(payload_error(format!(
            "{} of its {} bytes left over after decoding",
            payload.len() - used,
            payload.len()
        )));
    }
    Ok((header, value))
}

// ---------------------------------------------------------------------------------------
// Files.

/// Reads a whole model file, refusing files over [`MAX_FILE_BYTES`] before reading them.
pub fn read_capped(path: &Path) -> Result<Vec<u8>, ModelError> {
    // Size and contents come from one open handle: the path may be renamed over meanwhile.
    let file = File::open(path).map_err(|e| ModelError::io(path, e))?;
    let size = file.metadata().map_err(|e| ModelError::io(path, e))?.len();
    let too_large = |size: u64| ModelError::TooLarge {
        path: Some(path.to_path_buf()),
        size,
        cap: MAX_FILE_BYTES as u64,
    };
    if size > MAX_FILE_BYTES as u64 {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // `take` bounds the read even if the file grows after the size check.
    file.take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ModelError::io(path, e))?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Seconds since the unix epoch; 0 if the clock is before it.
fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Increments `header.revision`, sets `header.meta.created_unix` to now, then writes the
/// model to `path` atomically. `header` is updated only if the write succeeds, so a failed
/// save can simply be retried.
pub fn save_model<T: serde::Serialize>(
    path: &Path,
    header: &mut ModelHeader,
    payload: &T,
) -> Result<(), ModelError> {
    let mut next = header.clone();
    next.revision = next.revision.saturating_add(1);
    next.meta.created_unix = now_unix();
    let bytes = encode_model(&next, payload).map_err(|e| e.at(path))?;
    super::write_atomic(path, &bytes).map_err(|e| ModelError::io(path, e))?;
    *header = next;
    Ok(())
}

/// Loads a model file, checking the game and evaluator kind when expectations are given.
pub fn load_model<T: serde::de::DeserializeOwned>(
    path: &Path,
    expect_game: Option<&str>,
    expect_kind: Option<&str>,
) -> Result<(ModelHeader, T), ModelError> {
    let bytes = read_capped(path)?;
    decode_model(&bytes, expect_game, expect_kind).map_err(|e| e.at(path))
}

/// [`load_model`] for a payload type that replaced an earlier one: the payload decodes
/// as the current type `T`, or else as the earlier layout `Old`, converted. The first
/// error is returned when neither fits. Decoding is exact (a payload must fill its stated
/// length), so the two layouts cannot be mistaken for each other unless one is a prefix
/// of the other.
pub fn load_model_or_older<T, Old>(
    path: &Path,
    expect_game: Option<&str>,
    expect_kind: Option<&str>,
) -> Result<(ModelHeader, T), ModelError>
where
    T: serde::de::DeserializeOwned,
    Old: serde::de::DeserializeOwned + Into<T>,
{
    let bytes = read_capped(path)?;
    decode_model_or_older::<T, Old>(&bytes, expect_game, expect_kind).map_err(|e| e.at(path))
}

/// [`decode_model`] with the fallback of [`load_model_or_older`].
pub fn decode_model_or_older<T, Old>(
    bytes: &[u8],
    expect_game: Option<&str>,
    expect_kind: Option<&str>,
) -> Result<(ModelHeader, T), ModelError>
where
    T: serde::de::DeserializeOwned,
    Old: serde::de::DeserializeOwned + Into<T>,
{
    match decode_model::<T>(bytes, expect_game, expect_kind) {
        Err(first @ ModelError::Payload { .. }) => {
            match decode_model::<Old>(bytes, expect_game, expect_kind) {
                Ok((header, old)) => Ok((header, old.into())),
                Err(_) => Err(first),
            }
        }
        other => other,
    }
}

/// Reads and validates a model file's header (including the checksum) without decoding
/// its payload.
pub fn read_header(path: &Path) -> Result<ModelHeader, ModelError> {
    let bytes = read_capped(path)?;
    decode_header(&bytes).map_err(|e| e.at(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Weights {
        name: String,
        w: Vec<f32>,
    }

    fn weights() -> Weights {
        Weights {
            name: "material+mobility".to_string(),
            w: vec![1.0, -0.5, 3.25, 0.0, 1e-7],
        }
    }

    fn header() -> ModelHeader {
        let mut h = ModelHeader::new("brazilian", "linear", "samuel-v1");
        h.revision = 7;
        h.meta = TrainingMeta {
            config: "[train]\nseed = 42\ngames = 1000\n".to_string(),
            seed: 42,
            games: 1000,
            positions: 65_536,
            created_unix: 1_700_000_000,
        };
        h
    }

    fn encoded() -> Vec<u8> {
        encode_model(&header(), &weights()).unwrap()
    }

    /// Recomputes the trailing checksum after a deliberate edit.
    fn fix_checksum(bytes: &mut [u8]) {
        let end = bytes.len() - CHECKSUM_BYTES;
        let sum = checksum(&bytes[..end]);
        bytes[end..].copy_from_slice(&sum.to_le_bytes());
    }

    fn decode(bytes: &[u8]) -> Result<(ModelHeader, Weights), ModelError> {
        decode_model(bytes, Some("brazilian"), Some("linear"))
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("evalearn-model-unit-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn crc64_xz_check_value_and_slicing_matches_bytewise() {
        assert_eq!(checksum(b"123456789"), 0x995D_C9BB_DF19_39FA);
        assert_eq!(checksum(b""), 0);
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 131 + 7) as u8).collect();
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 999, 1000] {
            let mut crc = !0u64;
            for &b in &data[..len] {
                crc = (crc >> 8) ^ CRC64_TABLES[0][((crc ^ u64::from(b)) & 0xFF) as usize];
            }
            assert_eq!(checksum(&data[..len]), !crc, "len {len}");
        }
    }

    #[test]
    fn round_trip() {
        let bytes = encoded();
        let (h, w) = decode(&bytes).unwrap();
        assert_eq!(h, header());
        assert_eq!(w, weights());
        assert_eq!(decode_header(&bytes).unwrap(), header());
        let (_, w): (ModelHeader, Weights) = decode_model(&bytes, None, None).unwrap();
        assert_eq!(w, weights());
    }

    #[test]
    fn layout_starts_with_magic_and_version() {
        let bytes = encoded();
        assert_eq!(&bytes[..8], b"EVALEARN");
        assert_eq!(&bytes[8..10], &[1, 0]);
        assert_eq!(&bytes[10..14], &9u32.to_le_bytes());
        assert_eq!(&bytes[14..23], b"brazilian");
    }

    #[test]
    fn flipped_payload_byte_is_a_checksum_mismatch() {
        let mut bytes = encoded();
        let i = bytes.len() - CHECKSUM_BYTES - 3;
        bytes[i] ^= 0x10;
        assert!(matches!(
            decode(&bytes),
            Err(ModelError::ChecksumMismatch { .. })
        ));
        let mut bytes = encoded();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        assert!(matches!(
            decode(&bytes),
            Err(ModelError::ChecksumMismatch { .. })
        ));
    }

    #[test]
    fn other_version_is_unknown_version() {
        let mut bytes = encoded();
        bytes[8..10].copy_from_slice(&2u16.to_le_bytes());
        fix_checksum(&mut bytes);
        let err = decode(&bytes).unwrap_err();
        assert!(
            matches!(err, ModelError::UnknownVersion { found: 2, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("found 2"), "{err}");
        assert!(err.to_string().contains("reads 1"), "{err}");
    }

    #[test]
    fn wrong_game_and_kind() {
        let bytes = encoded();
        let err = decode_model::<Weights>(&bytes, Some("kalah"), None).unwrap_err();
        match &err {
            ModelError::WrongGame {
                found, expected, ..
            } => {
                assert_eq!((found.as_str(), expected.as_str()), ("brazilian", "kalah"));
            }
            other => panic!("{other}"),
        }
        let err = decode_model::<Weights>(&bytes, Some("brazilian"), Some("td")).unwrap_err();
        assert!(matches!(err, ModelError::WrongKind { .. }), "{err}");
        assert!(
            err.to_string().contains("found 'linear', expected 'td'"),
            "{err}"
        );
    }

    #[test]
    fn bad_magic_and_empty_are_not_model_files() {
        assert!(matches!(decode(b""), Err(ModelError::NotAModel { .. })));
        assert!(matches!(decode(b"EVAL"), Err(ModelError::NotAModel { .. })));
        let mut bytes = encoded();
        bytes[0] = b'e';
        assert!(matches!(decode(&bytes), Err(ModelError::NotAModel { .. })));
        assert!(matches!(
            decode(b"{\"json\": true}"),
            Err(ModelError::NotAModel { .. })
        ));
    }

    #[test]
    fn truncated_files() {
        let bytes = encoded();
        for len in [10, 12, 30, bytes.len() - 20, bytes.len() - 1] {
            let err = decode(&bytes[..len]).unwrap_err();
            assert!(
                matches!(err, ModelError::Truncated { .. }),
                "len {len}: {err}"
            );
        }
    }

    #[test]
    fn trailing_bytes_after_checksum() {
        let mut bytes = encoded();
        bytes.push(0);
        assert!(matches!(
            decode(&bytes),
            Err(ModelError::TrailingData { extra: 1, .. })
        ));
    }

    #[test]
    fn lengths_over_caps() {
        let mut h = header();
        h.game = "x".repeat(MAX_NAME_BYTES + 1);
        assert!(matches!(
            encode_model(&h, &weights()),
            Err(ModelError::LengthOverCap { field: "game", .. })
        ));
        // A game length field claiming 4 GiB.
        let mut bytes = encoded();
        bytes[10..14].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            decode(&bytes),
            Err(ModelError::LengthOverCap { field: "game", .. })
        ));
    }

    #[test]
    fn payload_of_another_type_does_not_decode() {
        let bytes = encode_model(&header(), &vec![u64::MAX; 3]).unwrap();
        let err = decode(&bytes).unwrap_err();
        assert!(matches!(err, ModelError::Payload { .. }), "{err}");
        // Decodes as a shorter type but leaves bytes over: also an error.
        let bytes = encode_model(&header(), &(5u8, 6u8)).unwrap();
        let err = decode_model::<u8>(&bytes, None, None).unwrap_err();
        assert!(matches!(err, ModelError::Payload { .. }), "{err}");
    }

    #[test]
    fn corrupt_inner_length_cannot_allocate() {
        // A payload whose string claims u64::MAX bytes, with a valid checksum: the bincode
        // limit must refuse it rather than allocate.
        let mut h = header();
        h.kind = "raw".into();
        let mut body = vec![0xFDu8]; // varint tag: a u64 follows
        body.extend_from_slice(&u64::MAX.to_le_bytes());
        let mut bytes = encode_model(&h, &()).unwrap();
        let payload_len_at = bytes.len() - CHECKSUM_BYTES - 8;
        bytes.truncate(payload_len_at);
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&body);
        bytes.extend_from_slice(&[0; 8]);
        fix_checksum(&mut bytes);
        let err = decode_model::<String>(&bytes, None, None).unwrap_err();
        assert!(matches!(err, ModelError::Payload { .. }), "{err}");
    }

    #[test]
    fn display_of_header() {
        let text = header().to_string();
        assert!(text.contains("revision:    7"), "{text}");
        assert!(text.contains("brazilian"), "{text}");
        assert!(text.contains("samuel-v1"), "{text}");
        assert!(
            text.contains("seed 42, 1000 games, 65536 positions"),
            "{text}"
        );
        assert!(text.contains("2023-11-14 22:13:20 UTC"), "{text}");
        assert!(text.contains("\n    [train]\n    seed = 42"), "{text}");
        let empty = ModelHeader::new("kalah", "td", "f").to_string();
        assert!(empty.contains("config:      (none)"), "{empty}");
    }

    #[test]
    fn utc_formatting() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(format_utc(1_700_000_000), "2023-11-14 22:13:20 UTC");
        assert_eq!(format_utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(format_utc(86_399), "1970-01-01 23:59:59 UTC");
        assert_eq!(format_utc(4_107_542_400), "2100-03-01 00:00:00 UTC");
        // The largest input must not overflow.
        assert!(format_utc(u64::MAX).ends_with("UTC"));
    }

    #[test]
    fn save_increments_revision_and_errors_name_the_path() {
        let dir = temp_dir("revision");
        let path = dir.join("m.model");
        let mut h = ModelHeader::new("brazilian", "linear", "samuel-v1");
        for expected in 1..=3 {
            save_model(&path, &mut h, &weights()).unwrap();
            assert_eq!(h.revision, expected);
            assert!(h.meta.created_unix > 1_700_000_000);
            let back = read_header(&path).unwrap();
            assert_eq!(back, h);
        }
        let err = load_model::<Weights>(&path, Some("kalah"), None).unwrap_err();
        assert_eq!(err.path(), Some(path.as_path()));
        assert!(err.to_string().contains("m.model"), "{err}");
        let missing = dir.join("missing.model");
        let err = read_header(&missing).unwrap_err();
        assert!(
            matches!(&err, ModelError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
        );
        assert!(err.to_string().contains("missing.model"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
