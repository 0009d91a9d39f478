//! Model files through the public API: hostile bytes, torn reads under concurrent saves,
//! and header/expectation checks on disk.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use evalearn::io::model::{
    self, CHECKSUM_BYTES, FORMAT_VERSION, MAGIC, MAX_FILE_BYTES, ModelError, ModelHeader,
    TrainingMeta,
};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Weights {
    name: String,
    w: Vec<f32>,
}

fn header() -> ModelHeader {
    let mut h = ModelHeader::new("brazilian", "linear", "samuel-v1");
    h.revision = 3;
    h.meta = TrainingMeta {
        config: "[train]\ngames = 10\n".to_string(),
        seed: 9,
        games: 10,
        positions: 700,
        created_unix: 1_700_000_000,
    };
    h
}

fn weights() -> Weights {
    Weights {
        name: "w".to_string(),
        w: (0..24).map(|i| i as f32 * 0.25 - 2.0).collect(),
    }
}

fn valid_file() -> Vec<u8> {
    model::encode_model(&header(), &weights()).unwrap()
}

fn decode(bytes: &[u8]) -> Result<(ModelHeader, Weights), ModelError> {
    model::decode_model(bytes, None, None)
}

/// A per-test folder of the run's folder, removed when dropped (even on failure).
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        let dir = crate::common::run_dir().join(format!("model-{test}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The documented layout, written out independently of the encoder.
fn handmade(h: &ModelHeader, payload_len: u64, payload: &[u8]) -> Vec<u8> {
    fn s(out: &mut Vec<u8>, text: &str) {
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    s(&mut out, &h.game);
    s(&mut out, &h.kind);
    s(&mut out, &h.features);
    out.extend_from_slice(&h.revision.to_le_bytes());
    s(&mut out, &h.meta.config);
    let m = &h.meta;
    for v in [m.seed, m.games, m.positions, m.created_unix, payload_len] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(payload);
    let sum = model::checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

#[test]
fn layout_matches_the_documentation() {
    // bincode 2 standard config: a u32 is one varint byte below 251.
    let bytes = model::encode_model(&header(), &42u32).unwrap();
    assert_eq!(bytes, handmade(&header(), 1, &[42]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_are_rejected(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        prop_assert!(decode(&bytes).is_err());
        prop_assert!(model::decode_header(&bytes).is_err());
    }

    #[test]
    fn random_bytes_after_the_magic_are_rejected(
        tail in proptest::collection::vec(any::<u8>(), 0..4096),
        version in any::<bool>(),
    ) {
        // Gets past the magic (and often the version) so the deeper checks are exercised.
        let mut bytes = MAGIC.to_vec();
        if version {
            bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        }
        bytes.extend_from_slice(&tail);
        prop_assert!(decode(&bytes).is_err());
    }

    #[test]
    fn every_single_byte_mutation_is_detected(index in any::<prop::sample::Index>(), flip in 1u8..=255) {
        let mut bytes = valid_file();
        let i = index.index(bytes.len());
        bytes[i] ^= flip;
        prop_assert!(decode(&bytes).is_err(), "mutation at {} undetected", i);
        prop_assert!(model::decode_header(&bytes).is_err());
    }
}

#[test]
fn every_truncation_is_rejected() {
    let bytes = valid_file();
    for len in 0..bytes.len() {
        let result = decode(&bytes[..len]);
        assert!(result.is_err(), "prefix of {len} bytes accepted");
        if len >= MAGIC.len() + 2 {
            assert!(
                matches!(result, Err(ModelError::Truncated { .. })),
                "prefix of {len} bytes: {:?}",
                result.err()
            );
        }
    }
    assert!(decode(&bytes).is_ok());
}

#[test]
fn huge_claimed_payload_lengths_fail_fast() {
    // Refused by the cap, or found truncated, before anything of the claimed length is
    // allocated (2^64 bytes would abort the test). Not timed: a busy machine would make
    // any time limit a guess.
    for claimed in [u64::MAX, 1 << 40, (MAX_FILE_BYTES as u64) + 1] {
        let bytes = handmade(&header(), claimed, &[]);
        let err = decode(&bytes).unwrap_err();
        assert!(
            matches!(
                err,
                ModelError::LengthOverCap {
                    field: "payload",
                    ..
                }
            ),
            "{err}"
        );
    }
    // Within the cap but beyond the file: truncated, not allocated.
    let bytes = handmade(&header(), 60 << 20, &[1, 2, 3]);
    assert!(matches!(decode(&bytes), Err(ModelError::Truncated { .. })));
}

#[test]
fn oversized_file_is_refused_before_reading() {
    let dir = TempDir::new("oversized");
    let path = dir.path().join("big.model");
    let file = std::fs::File::create(&path).unwrap();
    // Sparse: costs no disk space, and must never be read.
    file.set_len(MAX_FILE_BYTES as u64 + 1).unwrap();
    drop(file);
    let err = model::load_model::<Weights>(&path, None, None).unwrap_err();
    assert!(matches!(err, ModelError::TooLarge { .. }), "{err}");
    let err = model::read_header(&path).unwrap_err();
    assert!(matches!(err, ModelError::TooLarge { .. }), "{err}");
}

#[test]
fn empty_file_is_not_a_model() {
    let dir = TempDir::new("empty");
    let path = dir.path().join("empty.model");
    std::fs::write(&path, b"").unwrap();
    let err = model::read_header(&path).unwrap_err();
    assert!(matches!(err, ModelError::NotAModel { .. }), "{err}");
    assert!(err.to_string().contains("empty.model"), "{err}");
}

#[test]
fn concurrent_saves_never_give_torn_reads() {
    const REVISIONS: u64 = 50;
    const LEN: usize = 1 << 20; // 4 MiB of f32
    let dir = TempDir::new("torn");
    let path = dir.path().join("live.model");
    let done = AtomicBool::new(false);

    let (loads, distinct) = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let mut header = ModelHeader::new("brazilian", "linear", "samuel-v1");
            let mut w = vec![0f32; LEN];
            for _ in 0..REVISIONS {
                // The next revision's number, so a load can check payload against header.
                w.fill((header.revision + 1) as f32);
                model::save_model(&path, &mut header, &w).unwrap();
            }
            done.store(true, Ordering::Release);
            header.revision
        });
        let reader = s.spawn(|| {
            let mut loads = 0u64;
            let mut distinct = 0u64;
            let mut last = 0u64;
            loop {
                // Read `done` before loading, so the last revision is always seen once.
                let finished = done.load(Ordering::Acquire);
                match model::load_model::<Vec<f32>>(&path, Some("brazilian"), Some("linear")) {
                    Ok((h, w)) => {
                        assert_eq!(w.len(), LEN);
                        let expect = h.revision as f32;
                        assert!(
                            w.iter().all(|&x| x == expect),
                            "revision {} holds another revision's weights",
                            h.revision
                        );
                        assert!(h.revision >= last, "revision went back");
                        distinct += u64::from(h.revision != last);
                        last = h.revision;
                        loads += 1;
                    }
                    Err(ModelError::Io { source, .. })
                        if source.kind() == std::io::ErrorKind::NotFound && last == 0 => {}
                    Err(e) => panic!("load during saves failed: {e}"),
                }
                if finished {
                    break;
                }
            }
            assert_eq!(last, REVISIONS);
            (loads, distinct)
        });
        assert_eq!(writer.join().unwrap(), REVISIONS);
        reader.join().unwrap()
    });
    assert!(
        loads >= 1 && distinct >= 1,
        "{loads} loads, {distinct} revisions seen"
    );
    eprintln!("{loads} loads saw {distinct} of {REVISIONS} revisions");
}

#[test]
fn saved_header_reads_back() {
    let dir = TempDir::new("header");
    let path = dir.path().join("m.model");
    let mut h = header();
    model::save_model(&path, &mut h, &weights()).unwrap();
    assert_eq!(h.revision, 4);
    let back = model::read_header(&path).unwrap();
    assert_eq!(back, h);
    assert_eq!(back.game, "brazilian");
    assert_eq!(back.kind, "linear");
    assert_eq!(back.features, "samuel-v1");
    assert_eq!(back.meta.config, header().meta.config);
    assert_eq!(
        (back.meta.seed, back.meta.games, back.meta.positions),
        (9, 10, 700)
    );
    let (loaded, w) =
        model::load_model::<Weights>(&path, Some("brazilian"), Some("linear")).unwrap();
    assert_eq!(loaded, h);
    assert_eq!(w, weights());
    let info = back.to_string();
    assert!(
        info.contains("revision:    4") && info.contains("brazilian"),
        "{info}"
    );
}

#[test]
fn wrong_expectations_give_the_right_variant() {
    let dir = TempDir::new("expect");
    let path = dir.path().join("m.model");
    let mut h = header();
    model::save_model(&path, &mut h, &weights()).unwrap();

    let err = model::load_model::<Weights>(&path, Some("kalah"), Some("linear")).unwrap_err();
    match &err {
        ModelError::WrongGame {
            found, expected, ..
        } => assert_eq!((found.as_str(), expected.as_str()), ("brazilian", "kalah")),
        other => panic!("expected WrongGame, got {other}"),
    }
    assert_eq!(err.path(), Some(path.as_path()));

    let err = model::load_model::<Weights>(&path, Some("brazilian"), Some("glem")).unwrap_err();
    match &err {
        ModelError::WrongKind {
            found, expected, ..
        } => assert_eq!((found.as_str(), expected.as_str()), ("linear", "glem")),
        other => panic!("expected WrongKind, got {other}"),
    }
    let text = err.to_string();
    assert!(text.contains("m.model") && text.contains("glem"), "{text}");

    // Corrupt the file on disk: a checksum mismatch naming the file.
    let mut bytes = std::fs::read(&path).unwrap();
    let i = bytes.len() - CHECKSUM_BYTES - 1;
    bytes[i] ^= 0x80;
    std::fs::write(&path, &bytes).unwrap();
    let err = model::load_model::<Weights>(&path, None, None).unwrap_err();
    assert!(matches!(err, ModelError::ChecksumMismatch { .. }), "{err}");
    assert!(err.to_string().contains("m.model"), "{err}");
}
