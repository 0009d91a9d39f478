//! Evaluators through model files: every kind round-trips (saved, reloaded, evaluates the
//! same), mismatched files are rejected with the right message, and `evalearn model info`
//! explains a file.

use crate::common;
use common::{evalearn, temp_dir};

use std::path::PathBuf;

use evalearn::eval::Evaluator;
use evalearn::eval::linear::{self, Features, Linear, LinearWeights, MAX_FEATURES};
use evalearn::eval::spec::{EvalSpec, LoadError};
use evalearn::game::Game;
use evalearn::games::brazilian::features::FEATURE_SET_ID;
use evalearn::games::brazilian::treestats::random_positions;
use evalearn::games::brazilian::{Brazilian, Material};
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
fn zero_linear_weights_evaluate_like_material() {
    let linear = Linear::<Brazilian>::new(&LinearWeights::zero::<Brazilian>()).unwrap();
    for fen in ["W:W21,22,K30:B1,K2", "B:W13,14,21:B5,K29"] {
        let pos = Brazilian::parse_position(fen).unwrap();
        assert_eq!(linear.evaluate(&pos), Material.evaluate(&pos));
    }
}

#[test]
fn mismatched_linear_weights_are_rejected() {
    let check = |w: &LinearWeights| Linear::<Brazilian>::new(w).is_err();
    let mut weights = LinearWeights::zero::<Brazilian>();
    weights.weights.pop();
    assert!(check(&weights));
    let mut weights = LinearWeights::zero::<Brazilian>();
    weights.features = "other".into();
    assert!(check(&weights));
    let mut weights = LinearWeights::zero::<Brazilian>();
    weights.weights[0] = f32::NAN;
    assert!(check(&weights));
    // The active and reserve features must split the pool.
    let mut weights = LinearWeights::zero::<Brazilian>();
    weights.reserve.pop();
    assert!(check(&weights));
    let mut weights = LinearWeights::zero::<Brazilian>();
    weights.active[1] = weights.active[0];
    assert!(check(&weights));
    let mut weights = LinearWeights::zero::<Brazilian>();
    weights.reserve.push(200);
    assert!(check(&weights));
}

#[test]
fn piece_square_weights_add_their_squares_and_must_match_the_set() {
    // Men's weights by rank and kings' by file: the value is material plus each piece's
    // weight on its square (the opponent's negated, from its own end).
    let mut weights = LinearWeights::zero_with_piece_squares::<Brazilian>();
    assert!(Linear::<Brazilian>::new(&weights).is_ok());
    let pool = weights.weights.len() - Brazilian::PIECE_SQUARES;
    for n in 1..=32u8 {
        let sq = evalearn::games::brazilian::Square::from_number(n).unwrap();
        weights.weights[pool + sq.index()] = 5.0 * f32::from(sq.rank());
        weights.weights[pool + 32 + sq.index()] = 2.0 * f32::from(sq.file());
    }
    let linear = Linear::<Brazilian>::new(&weights).unwrap();
    // White: a man on c3 (rank index 2) and a king on h8 (file index 7); Black: a man on
    // e7, which is d2 from Black's end (rank index 1).
    let pos = Brazilian::parse_position("W:W22,K4:B7").unwrap();
    assert_eq!(
        linear.evaluate(&pos),
        Material.evaluate(&pos) + 5 * 2 + 2 * 7 - 5
    );
    for pos in random_positions(300, 5) {
        let mut expected = Material.evaluate(&pos) as f32;
        pos.piece_squares(|term, v| expected += weights.weights[pool + term] * v as f32);
        assert_eq!(linear.evaluate(&pos), expected.round() as i32);
    }
    // The set's name and the number of weights must agree.
    let mut short = weights.clone();
    short.weights.pop();
    assert!(Linear::<Brazilian>::new(&short).is_err());
    let mut unnamed = weights.clone();
    unnamed.features = FEATURE_SET_ID.into();
    assert!(Linear::<Brazilian>::new(&unnamed).is_err());
    let mut kalah = LinearWeights::zero::<evalearn::games::kalah::Kalah>();
    kalah.features += linear::PIECE_SQUARES_SUFFIX;
    let err = Linear::<evalearn::games::kalah::Kalah>::new(&kalah).unwrap_err();
    assert!(err.contains("feature set"), "{err}");
}

#[test]
fn only_active_linear_features_count() {
    let pos = Brazilian::parse_position("W:W17,21,22,23:B1,2,3").unwrap();
    let mut values = [0; MAX_FEATURES];
    pos.features(&mut values);
    let mut weights = LinearWeights::zero::<Brazilian>();
    let reserve = usize::from(weights.reserve[0]);
    assert_ne!(
        values[reserve], 0,
        "pick a position where the feature is not 0"
    );
    weights.weights[reserve] = 50.0;
    let evaluate = |w: &LinearWeights| Linear::<Brazilian>::new(w).unwrap().evaluate(&pos);
    assert_eq!(evaluate(&weights), Material.evaluate(&pos));
    // Swapping the first active feature out brings the reserve's head in, weight 0.
    let first = usize::from(weights.active[0]);
    weights.weights[first] = 3.0;
    assert_eq!(weights.replace(first, 10, 0.01), Some(reserve));
    assert_eq!(
        (weights.weights[first], weights.weights[reserve]),
        (0.0, 0.0)
    );
    assert_eq!(usize::from(*weights.reserve.last().unwrap()), first);
    weights.weights[reserve] = 50.0;
    assert_eq!(
        evaluate(&weights),
        Material.evaluate(&pos) + 50 * values[reserve]
    );
    // An inactive feature cannot be swapped out.
    assert_eq!(weights.replace(first, 20, 0.0), None);
}

#[test]
fn retired_linear_feature_sets_are_refused_with_the_config_to_retrain() {
    #[derive(serde::Serialize)]
    struct V1 {
        features: String,
        weights: Vec<f32>,
    }
    let old = V1 {
        features: "samuel-v1".into(),
        weights: vec![1.0; 22],
    };
    let dir = temp_dir("retired");
    let path = dir.join("old.bin");
    let mut header = ModelHeader::new(Brazilian::NAME, linear::KIND, "samuel-v1");
    save_model(&path, &mut header, &old).unwrap();
    let error = EvalSpec::Model(path)
        .load::<Brazilian>()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("'samuel-v1'")
            && error.contains(&format!("'{FEATURE_SET_ID}'"))
            && error.contains("configs/samuel.toml"),
        "{error}"
    );
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

    // A path that is not there is a missing model file; a bare word, a mistyped name.
    let missing = dir.join("missing.bin");
    let error = load(&missing);
    assert!(matches!(error, LoadError::NoSuchEvaluator { .. }));
    assert_eq!(
        error.to_string(),
        format!("no such model file: {}", missing.display())
    );
    let error = load(&PathBuf::from("materail"));
    assert!(
        error.to_string().contains("nor a model file") && error.to_string().contains("material"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A missing model file is said the same way in every game, on the command line.
#[test]
fn a_missing_model_file_is_named_in_both_games() {
    for (game, builtin) in [("brazilian", "material"), ("kalah:6:4", "stores")] {
        for path in ["models/nope.bin", "nope.bin", "models/nope"] {
            let out = evalearn(&[
                "match", "--game", game, "--a", path, "--b", builtin, "--games", "2", "--depth",
                "1",
            ]);
            assert_eq!(out.status.code(), Some(2), "{game} {path}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                format!("error: no such model file: {path}\n"),
                "{game}"
            );
        }
        let out = evalearn(&["analyse", "--game", game, "--eval", "nope", "--depth", "1"]);
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("is neither a built-in evaluator of"),
            "{said}"
        );
    }
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
