//! Samuel's learner end to end: term replacement and selection in a real `train` run
//! (reported by `model info`, resumable), its config keys, and old model files refused.

use crate::common;
use common::{evalearn, evalearn_ok, stdout, temp_dir};

use std::path::{Path, PathBuf};

use evalearn::eval::linear::{self, LinearWeights};
use evalearn::io::model::{ModelHeader, load_model, save_model};

/// A tiny Samuel config on `game` with replacements every 10 games and a selection match
/// every 20, writing `DIR/samuel.bin`.
fn config(dir: &Path, game: &str, iterations: u64, samuel: &str) -> PathBuf {
    let text = format!(
        "learner = \"samuel\"\ngame = \"{game}\"\nseed = 9\nmodel = \"{}\"\n\n\
         [budget]\niterations = {iterations}\n\n\
         [selfplay]\ndepth = 2\ngames_per_iteration = 20\ntemperature = 0.3\n\n\
         [evaluation]\nevery = 10\ngames = 10\ndepth = 2\n\n\
         [samuel]\nreplace_every = 10\nselect_every = 20\nselect_games = 4\nselect_depth = 2\n{samuel}",
        dir.join("samuel.bin").display()
    );
    let path = dir.join(format!("samuel-{iterations}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn train(config: &Path, resume: bool) {
    let mut args = vec!["train", "--config", config.to_str().unwrap()];
    if resume {
        args.push("--resume");
    }
    evalearn_ok(&args);
}

fn weights(dir: &Path) -> LinearWeights {
    load_model::<LinearWeights>(&dir.join("samuel.bin"), None, Some(linear::KIND))
        .unwrap()
        .1
}

#[test]
fn replacements_show_in_model_info_and_survive_a_resume() {
    for (game, active, pool) in [("brazilian", 16, 34), ("kalah", 12, 16)] {
        let straight = temp_dir(&format!("samuel-straight-{game}"));
        train(&config(&straight, game, 4, ""), false);
        let model = weights(&straight);
        // 80 games: 8 replacements (every 10 games) in A's history; the model is A at
        // one of the 4 selections (games 20, 40, 60, 80), with the history up to then.
        assert_eq!(model.active.len(), active, "{game}");
        assert_eq!(model.active.len() + model.reserve.len(), pool, "{game}");
        let made = model.replaced.len();
        assert!([2, 4, 6, 8].contains(&made), "{game}: {made} replacements");
        let info = stdout(&evalearn_ok(&[
            "model",
            "info",
            straight.join("samuel.bin").to_str().unwrap(),
        ]));
        assert!(
            info.contains(&format!("active features: {active} of a pool of {pool}")),
            "{info}"
        );
        assert!(info.contains(&format!("replacements: {made}")), "{info}");
        assert!(info.contains("entered at game"), "{info}");
        assert!(info.contains("reserve, next first:"), "{info}");

        // Stopping after 2 iterations and resuming gives the same model.
        let resumed = temp_dir(&format!("samuel-resumed-{game}"));
        train(&config(&resumed, game, 2, ""), false);
        train(&config(&resumed, game, 4, ""), true);
        assert_eq!(weights(&resumed), model, "{game}");
        std::fs::remove_dir_all(&straight).unwrap();
        std::fs::remove_dir_all(&resumed).unwrap();
    }
}

#[test]
fn head_to_head_selection_survives_a_resume() {
    // The model plays each candidate head to head (every 20 games) and is replaced only
    // by a winner: a run stopped and resumed keeps the same model as a straight one.
    let samuel = "select_against = \"model\"\nselect_margin = 0.05\n";
    let straight = temp_dir("samuel-h2h-straight");
    train(&config(&straight, "kalah", 4, samuel), false);
    let model = weights(&straight);
    let resumed = temp_dir("samuel-h2h-resumed");
    train(&config(&resumed, "kalah", 2, samuel), false);
    train(&config(&resumed, "kalah", 4, samuel), true);
    assert_eq!(weights(&resumed), model);
    let metrics = std::fs::read_to_string(straight.join("samuel.metrics.jsonl")).unwrap();
    assert!(metrics.contains("(model: game "), "{metrics}");
    std::fs::remove_dir_all(&straight).unwrap();
    std::fs::remove_dir_all(&resumed).unwrap();
}

#[test]
fn bad_samuel_settings_name_their_key() {
    let dir = temp_dir("samuel-bad");
    for (extra, key) in [
        ("select_games = 3\n", "samuel.select_games"),
        ("step_decay_games = -1\n", "samuel.step_decay_games"),
        ("select_depth = 0\n", "samuel.select_depth"),
        ("select_margin = 0.5\n", "samuel.select_margin"),
        ("select_against = \"best\"\n", "select_against"),
    ] {
        // The key is given twice if it is one the tiny config sets: replace it there.
        let path = config(&dir, "brazilian", 1, "");
        let name = extra.split(' ').next().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let text: String = text
            .lines()
            .filter(|l| !l.starts_with(&format!("{name} ")))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&path, text + extra).unwrap();
        let out = evalearn(&["train", "--config", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{extra}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(key), "{extra}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_samuel_v1_model_is_refused_with_the_config_to_retrain() {
    #[derive(serde::Serialize)]
    struct V1 {
        features: String,
        weights: Vec<f32>,
    }
    let dir = temp_dir("samuel-v1");
    let path = dir.join("old.bin");
    let mut header = ModelHeader::new("brazilian", linear::KIND, "samuel-v1");
    let old = V1 {
        features: "samuel-v1".into(),
        weights: vec![2.0; 22],
    };
    save_model(&path, &mut header, &old).unwrap();
    for args in [
        vec!["model", "info", path.to_str().unwrap()],
        vec!["analyse", "--eval", path.to_str().unwrap(), "--depth", "2"],
    ] {
        let out = evalearn(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("'samuel-v1'") && err.contains("configs/samuel.toml"),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
