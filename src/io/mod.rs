//! Everything evalearn reads and writes as files. Files are always written atomically (a
//! temporary file in the same folder, flushed, then renamed over the target), so a reader
//! never sees half a file and a killed job leaves the old file or the new one.
//!
//! - [`model`]: model files (header, bincode payload, checksum);
//! - [`dataset`]: self-play datasets (one checksummed frame per game);
//! - [`book`]: opening books (header, bincode payload, checksum).
//!
//! bincode is used here and nowhere else.

pub mod book;
pub mod dataset;
pub mod model;

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let mut tmp_name = name.to_os_string();
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The bytes of a deflated file of at most `payload` bytes once inflated, read without
/// trusting its length: a file longer than such a payload can deflate to is refused
/// before anything is allocated for it. Errors are the problem, for the caller to name
/// the file.
pub fn read_deflated_file(path: &Path, payload: u64, header: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    // Deflate never grows data by more than a few bytes per 16 KiB block.
    let cap = header + payload + payload / 1000 + 1024;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let len = file
        .metadata()
        .map_err(|e| format!("cannot read: {e}"))?
        .len();
    if len > cap {
        return Err(format!(
            "{len} bytes is more than {payload} bytes deflated can take"
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(cap)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    Ok(bytes)
}

/// The payload of a checksummed deflate frame — `header ‖ deflate(payload) ‖ CRC-64/XZ
/// of every byte before it` — whose `header_len`-byte header promised `compressed`
/// compressed bytes inflating to `payload` bytes: the length, the checksum and the
/// inflated length checked (the endgame database files of both games).
pub fn inflate_checked(
    bytes: &[u8],
    header_len: usize,
    compressed: u64,
    payload: u64,
) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let body = header_len as u64;
    if body.checked_add(compressed).and_then(|n| n.checked_add(8)) != Some(bytes.len() as u64) {
        return Err(format!(
            "truncated or padded: the header promises {compressed} compressed bytes, the file has {}",
            (bytes.len() as u64).saturating_sub(body + 8)
        ));
    }
    let end = bytes.len() - 8;
    let stored = u64::from_le_bytes(bytes[end..].try_into().expect("8 bytes"));
    let computed = model::checksum(&bytes[..end]);
    if stored != computed {
        return Err(format!(
            "checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is corrupt"
        ));
    }
    let mut out = Vec::with_capacity(payload as usize);
    flate2::read::DeflateDecoder::new(&bytes[header_len..end])
        .take(payload + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("the contents do not decompress: {e}"))?;
    if out.len() as u64 != payload {
        return Err(format!(
            "the contents decompress to {} bytes, not {payload}",
            out.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces_leaving_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("evalearn-io-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.json");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
