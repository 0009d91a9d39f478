//! Evaluators through model files: every kind round-trips (saved, reloaded, evaluates the
//! same), mismatched files are rejected with the right message, and `evalearn model info`
//! explains a file.

use crate::common;
use common::{evalearn, temp_dir};

use std::path::PathBuf;

use evalearn::eval::Evaluator;
use evalearn::eval::linear::{self, Linear, LinearWeights};
use evalearn::eval::spec::{EvalSpec, LoadError};
use evalearn::game::Game;
use evalearn::game::brazilian::Brazilian;
use evalearn::game::brazilian::features::FEATURE_SET_ID;
use evalearn::game::brazilian::treestats::random_positions;
use evalearn::io::model::{ModelError, ModelHeader, save_model};

fn some_weights() -> LinearWeights {
    let mut weights = LinearWeights::zero::<Brazilian>();
    for (i, w) in weights.weights.iter_mut().enumerate() {
        *w = (i as f32 * 7.3).sin() * 20.0;
    }
    weights
}

#[test]
fn a_linear_model_round_trips_through_its_file() {
    let dir = temp_dir("linear");
    let path = dir.join("linear.bin");
    let weights = some_weights();
    let mut header = ModelHeader::new(Brazilian::NAME, linear::KIND, FEATURE_SET_ID);
    header.meta.seed = 42;
    save_model(&path, &mut header, &weights).unwrap();

    let (loaded, loaded_header) = EvalSpec::Model(path.clone()).load::<Brazilian>().unwrap();
    let loaded_header = loaded_header.unwrap();
    assert_eq!(loaded_header.revision, 1);
    assert_eq!(loaded_header.meta.seed, 42);
    let original = Linear::<Brazilian>::new(&weights).unwrap();
    for pos in random_positions(500, 11) {
        assert_eq!(loaded.evaluate(&pos), original.evaluate(&pos));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mismatched_model_files_are_rejected_with_the_reason() {
    let dir = temp_dir("mismatch");
    let load = |path: &PathBuf| {
        EvalSpec::Model(path.clone())
            .load::<Brazilian>()
            .unwrap_err()
    };

    let other_game = dir.join("kalah.bin");
    let mut header = ModelHeader::new("kalah", linear::KIND, FEATURE_SET_ID);
    save_model(&other_game, &mut header, &some_weights()).unwrap();
    assert!(matches!(
        load(&other_game),
        LoadError::Model(ModelError::WrongGame { .. })
    ));

    let unknown = dir.join("unknown.bin");
    let mut header = ModelHeader::new(Brazilian::NAME, "mystery", FEATURE_SET_ID);
    save_model(&unknown, &mut header, &some_weights()).unwrap();
    assert!(matches!(load(&unknown), LoadError::UnknownKind { .. }));

    let short = dir.join("short.bin");
    let mut weights = some_weights();
    weights.weights.truncate(3);
    let mut header = ModelHeader::new(Brazilian::NAME, linear::KIND, FEATURE_SET_ID);
    save_model(&short, &mut header, &weights).unwrap();
    assert!(matches!(load(&short), LoadError::Invalid { .. }));

    let garbage = dir.join("garbage.bin");
    std::fs::write(&garbage, b"definitely not a model").unwrap();
    assert!(load(&garbage).to_string().contains("not a model"));

    let missing = dir.join("missing.bin");
    let error = load(&missing);
    assert!(matches!(error, LoadError::NoSuchEvaluator { .. }));
    assert!(
        error.to_string().contains("nor a model file") && error.to_string().contains("material"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn model_info_explains_a_file_and_rejects_a_broken_one() {
    let dir = temp_dir("info");
    let path = dir.join("m.bin");
    let mut header = ModelHeader::new(Brazilian::NAME, linear::KIND, FEATURE_SET_ID);
    header.meta.config = "learner = \"samuel\"".to_string();
    header.meta.games = 1234;
    save_model(&path, &mut header, &some_weights()).unwrap();
    save_model(&path, &mut header, &some_weights()).unwrap();
    let out = evalearn(&["model", "info", path.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "brazilian",
        "linear",
        FEATURE_SET_ID,
        "revision",
        "1234",
        "samuel",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    assert!(text.contains('2'), "revision 2: {text}");

    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 20;
    bytes[last] ^= 0xFF;
    std::fs::write(&path, &bytes).unwrap();
    let out = evalearn(&["model", "info", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("checksum"));
    std::fs::remove_dir_all(&dir).unwrap();
}
