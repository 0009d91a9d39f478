//! The shipped configurations parse, and each shipped model is the one its configuration
//! makes: it loads as the right evaluator kind, and its header holds that config's
//! settings.

use std::path::Path;

use evalearn::eval::EvalGame;
use evalearn::eval::spec::load_model_file;
use evalearn::games::brazilian::Brazilian;
use evalearn::games::kalah::Kalah;
use evalearn::learn::config::TrainConfig;

fn root(relative: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

#[test]
fn shipped_configs_parse() {
    for (name, learner) in [
        ("default", "td"),
        ("samuel", "samuel"),
        ("samuel-taught", "samuel"),
        ("glem", "glem"),
        ("td", "td"),
        ("td-pairs", "td"),
        ("td-two-layer", "td"),
        ("td-wide", "td"),
        ("td-clipped", "td"),
        ("kalah-samuel", "samuel"),
        ("kalah-glem", "glem"),
        ("kalah-td", "td"),
        ("kalah-clipped", "td"),
        ("kalah-6-4-samuel", "samuel"),
        ("kalah-6-4-glem", "glem"),
        ("kalah-6-4-td", "td"),
        ("bench-td", "td"),
        ("bench-glem", "glem"),
    ] {
        let path = root(&format!("configs/{name}.toml"));
        let (config, _) = TrainConfig::read(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.learner, learner, "{name}");
        let model = config.model.to_string_lossy().into_owned();
        assert_eq!(model, format!("models/{name}.bin"), "{name}");
        let game = if name.starts_with("kalah-6-4") {
            "kalah:6:4"
        } else if name.starts_with("kalah") {
            "kalah"
        } else {
            "brazilian"
        };
        assert_eq!(
            config.game.as_deref().unwrap_or("brazilian"),
            game,
            "{name}"
        );
    }
}

/// Checks `models/NAME.bin` against `configs/NAME.toml` for game `G`.
fn shipped_model<G: EvalGame>(name: &str, kind: &str) {
    shipped_model_of::<G>(name, name, kind);
}

/// Checks `models/MODEL.bin` against `configs/CONFIG.toml` for game `G`.
fn shipped_model_of<G: EvalGame>(model: &str, name: &str, kind: &str) {
    let path = root(&format!("models/{model}.bin"));
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    assert!(size > 0 && size <= 16 << 20, "{name}: {size} bytes");
    let (_, header) = load_model_file::<G>(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(header.kind, kind, "{name}");
    // The same settings; the comments may have been reworded since (they are the
    // config's documentation, and `train --resume` compares settings the same way).
    let config = std::fs::read_to_string(root(&format!("configs/{name}.toml"))).unwrap();
    let settings = |text: &str| TrainConfig::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (trained, shipped) = (settings(&header.meta.config), settings(&config));
    assert!(
        trained.trains_like(&shipped)
            && format!("{:?}", trained.budget) == format!("{:?}", shipped.budget),
        "{name}: trained with another config"
    );
    assert!(header.meta.games > 0, "{name}");
}

#[test]
fn shipped_models_come_from_shipped_configs() {
    for (name, kind) in [("samuel", "linear"), ("glem", "glem"), ("td", "td")] {
        shipped_model::<Brazilian>(name, kind);
        shipped_model::<Kalah>(&format!("kalah-{name}"), kind);
        shipped_model::<Kalah>(&format!("kalah-6-4-{name}"), kind);
    }
    // Samuel's evaluator taught by td.bin.
    shipped_model::<Brazilian>("samuel-taught", "linear");
    // TD over the inputs for pairs of squares.
    shipped_model::<Brazilian>("td-pairs", "td");
    // The same with a second hidden layer.
    shipped_model::<Brazilian>("td-two-layer", "td");
    // Both hidden layers wider (64 → 48).
    shipped_model::<Brazilian>("td-wide", "td");
    // Clipped-ReLU units, 128 → 32, in both games.
    shipped_model::<Brazilian>("td-clipped", "td");
    shipped_model::<Kalah>("kalah-clipped", "td");
    // The Kalah(6,4) model of docs/kalah.md: the TD(λ) run's.
    shipped_model_of::<Kalah>("kalah-6-4", "kalah-6-4-td", "td");
}

#[test]
fn the_readme_config_example_parses() {
    let readme = std::fs::read_to_string(root("README.md")).unwrap();
    let start = readme
        .find("```toml\n")
        .expect("a toml block in the README")
        + 8;
    let end = start + readme[start..].find("```").unwrap();
    let config = TrainConfig::parse(&readme[start..end]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.learner, "td");
}
