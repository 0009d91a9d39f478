//! Training configurations (`configs/*.toml`): which learner, its hyperparameters, how
//! self-play plays, how long to train, when to measure against the material evaluator,
//! and where the model goes. Unknown keys and bad values are rejected with the key's name
//! and what is allowed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde::de::{DeserializeOwned, DeserializeSeed};

use super::learner::LearnerSection;
use super::registry::SECTIONS;
use crate::search::{Limits, MAX_PLY};
use document::{ConfigSeed, top_level_lines};

mod document;
mod evaluation;

pub use evaluation::{EvalOpponent, EvaluationSettings};

/// Longest configuration file read.
pub const MAX_CONFIG_BYTES: u64 = 64 << 10;

/// A whole training configuration.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// The learner: one of the game's (`samuel`, `glem`, `td` for the games evalearn
    /// ships; [`super::registry`]).
    pub learner: String,
    /// The game and variant (`kalah:6:4:empty-capture`), checked by the program that
    /// offers the games; absent: its default game (evalearn's: `brazilian`).
    pub game: Option<String>,
    /// Seed of every random choice of the run.
    pub seed: u64,
    /// Where the model is written (every iteration, as a new revision). The metrics
    /// (`NAME.metrics.jsonl`), learning curve (`NAME.curve.svg`) and checkpoint
    /// (`NAME.ckpt`) go beside it.
    pub model: PathBuf,
    pub budget: Budget,
    pub selfplay: SelfPlaySettings,
    pub evaluation: EvaluationSettings,
    pub training: TrainingSettings,
    /// The learners' own sections as written (`[td]`, `[glem]`, …): each learner reads
    /// its own ([`TrainConfig::section`]).
    pub sections: BTreeMap<String, toml::Table>,
    /// Every learner's section as its learner read it (defaults filled), in words: what
    /// a resumed run compares.
    settled: BTreeMap<String, String>,
}

/// A config's own keys before its first section.
const VALUE_KEYS: [&str; 4] = ["learner", "game", "seed", "model"];
/// A config's sections besides the learners' own.
const SECTION_KEYS: [&str; 4] = ["budget", "selfplay", "evaluation", "training"];

/// How long to train: stop after `iterations`, or once `minutes` have passed (at the end
/// of an iteration), whichever comes first.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    #[serde(default = "default_iterations")]
    pub iterations: u64,
    #[serde(default)]
    pub minutes: Option<f64>,
}

fn default_iterations() -> u64 {
    10
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            iterations: default_iterations(),
            minutes: None,
        }
    }
}

/// How self-play games are played. Exactly one of `depth`, `nodes`, `movetime_ms`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfPlaySettings {
    #[serde(default)]
    pub depth: Option<u32>,
    #[serde(default)]
    pub nodes: Option<u64>,
    #[serde(default)]
    pub movetime_ms: Option<u64>,
    #[serde(default = "default_games_per_iteration")]
    pub games_per_iteration: u64,
    /// Random plies from the start for each game's opening (ignored with `openings`).
    #[serde(default = "default_random_plies")]
    pub random_plies: u32,
    /// An openings file (a FEN per line, or .pdn) instead of random plies.
    #[serde(default)]
    pub openings: Option<PathBuf>,
    /// Softmax exploration temperature in units of 100 centi-units (a man, a stone) for the
    /// first `temperature_plies` plies.
    #[serde(default)]
    pub temperature: Option<f64>,
    #[serde(default = "default_temperature_plies")]
    pub temperature_plies: u32,
    /// Worker threads (0: one per core); results do not depend on it.
    #[serde(default)]
    pub threads: usize,
    #[serde(default = "default_ply_cap")]
    pub ply_cap: u32,
    #[serde(default = "default_tt_mb")]
    pub tt_mb: usize,
    /// With an endgame database (`train --egdb`, or the default folder): end each game on
    /// entering it, with the database's result.
    #[serde(default = "default_true")]
    pub egdb_adjudicate: bool,
    /// With an endgame database: positions it holds are labelled with their exact value
    /// (GLEM's samples) instead of the game's result.
    #[serde(default = "default_true")]
    pub egdb_targets: bool,
}

fn default_true() -> bool {
    true
}

fn default_games_per_iteration() -> u64 {
    100
}
fn default_random_plies() -> u32 {
    6
}
fn default_temperature_plies() -> u32 {
    10
}
fn default_ply_cap() -> u32 {
    200
}
/// Small tables: self-play searches are small, and two workers' tables must share the
/// cache (8 MiB tables cost a sixth of the speed of two threads).
fn default_tt_mb() -> usize {
    2
}

impl Default for SelfPlaySettings {
    fn default() -> Self {
        SelfPlaySettings {
            depth: Some(4),
            nodes: None,
            movetime_ms: None,
            games_per_iteration: default_games_per_iteration(),
            random_plies: default_random_plies(),
            openings: None,
            temperature: None,
            temperature_plies: default_temperature_plies(),
            threads: 0,
            ply_cap: default_ply_cap(),
            tt_mb: default_tt_mb(),
            egdb_adjudicate: true,
            egdb_targets: true,
        }
    }
}

impl SelfPlaySettings {
    pub fn limits(&self) -> Limits {
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime_ms.map(Duration::from_millis),
            ..Limits::default()
        }
    }
}

/// The `[training]` controls shared by every learner (docs/training.md, "Training
/// controls"; the formulas are in [`super::controls`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingSettings {
    /// Share of the games held out for validation (never learned from), 0..=0.5.
    #[serde(default)]
    pub validation: f64,
    /// Held-out games kept for the validation loss (the most recent).
    #[serde(default = "default_validation_games")]
    pub validation_games: usize,
    /// Iterations without a new best validation loss before the run stops; 0 never.
    #[serde(default)]
    pub patience: u64,
    /// Also write the model to `NAME.best.bin` whenever the validation loss improves.
    #[serde(default)]
    pub keep_best: bool,
    /// Weight of the search score in the targets, the rest the game result; absent, the
    /// learner's own default (GLEM 0.7, TD 0, Samuel 1).
    #[serde(default)]
    pub search_weight: Option<f64>,
    /// The weight at the last iteration of `[budget] iterations`, reached linearly.
    #[serde(default)]
    pub search_weight_end: Option<f64>,
    /// What a finished game teaches: its result, or (a game with margins) its margin.
    #[serde(default)]
    pub target: TargetKind,
    /// Stones (the game's units) of final margin per unit of logit, `target = "margin"`.
    #[serde(default = "default_margin_scale")]
    pub margin_scale: f64,
    /// Positions where the side to move must capture are not learned from.
    #[serde(default)]
    pub skip_capture_pending: bool,
    /// Positions the endgame database (Kalah: the solver) decides are not learned from.
    #[serde(default)]
    pub skip_decided: bool,
    /// 0: every position; else a seeded sample of this many per game.
    #[serde(default)]
    pub max_positions_per_game: usize,
    #[serde(default)]
    pub lr_schedule: LrSchedule,
    /// Iterations of linear warm-up of the learning rate.
    #[serde(default)]
    pub lr_warmup: u64,
    /// The learning rate's fraction at the last iteration (linear, cosine, exponential).
    #[serde(default = "default_lr_final")]
    pub lr_final: f64,
    /// Iterations between multiplications by `lr_gamma` (step).
    #[serde(default)]
    pub lr_step_every: u64,
    #[serde(default = "default_lr_gamma")]
    pub lr_gamma: f64,
}

/// What the learners fit a finished game to (`[training] target`; see
/// [`super::controls::OutcomeTarget`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// Won 1, drawn ½, lost 0.
    #[default]
    Result,
    /// The final margin `m` (in the game's units), as `σ(m / margin_scale)`.
    Margin,
}

/// The shape of the learning-rate schedule ([`TrainingSettings::rate_factor`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    #[default]
    Constant,
    Linear,
    Step,
    Cosine,
    Exponential,
}

fn default_validation_games() -> usize {
    400
}
fn default_lr_final() -> f64 {
    0.1
}
fn default_margin_scale() -> f64 {
    8.0
}
fn default_lr_gamma() -> f64 {
    0.5
}

impl Default for TrainingSettings {
    fn default() -> Self {
        TrainingSettings {
            validation: 0.0,
            validation_games: default_validation_games(),
            patience: 0,
            keep_best: false,
            search_weight: None,
            search_weight_end: None,
            target: TargetKind::Result,
            margin_scale: default_margin_scale(),
            skip_capture_pending: false,
            skip_decided: false,
            max_positions_per_game: 0,
            lr_schedule: LrSchedule::Constant,
            lr_warmup: 0,
            lr_final: default_lr_final(),
            lr_step_every: 0,
            lr_gamma: default_lr_gamma(),
        }
    }
}

/// A rejected configuration: what and where.
#[derive(Debug)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl TrainConfig {
    /// Reads and checks a configuration file (the learners' sections by evalearn's own
    /// learners, [`super::registry::SECTIONS`]).
    pub fn read(path: &Path) -> Result<(TrainConfig, String), ConfigError> {
        let name = path.display();
        let size = std::fs::metadata(path)
            .map_err(|e| ConfigError(format!("config {name}: {e}")))?
            .len();
        if size > MAX_CONFIG_BYTES {
            return Err(ConfigError(format!(
                "config {name}: {size} bytes, more than {MAX_CONFIG_BYTES}"
            )));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError(format!("config {name}: {e}")))?;
        let config =
            TrainConfig::parse(&text).map_err(|e| ConfigError(format!("config {name}: {e}")))?;
        Ok((config, text))
    }

    /// Parses and checks configuration text for evalearn's own learners.
    pub fn parse(text: &str) -> Result<TrainConfig, ConfigError> {
        TrainConfig::parse_with(text, &[])
    }

    /// Parses a config saved by an earlier run (a checkpoint's, a model header's): as
    /// [`TrainConfig::parse`], but another learner's section is read as before rather
    /// than refused, since earlier versions accepted (and ignored) it.
    pub fn parse_saved(text: &str) -> Result<TrainConfig, ConfigError> {
        TrainConfig::parse_checked(text, &[], false)
    }

    /// Parses and checks configuration text; `extra` are learners from outside evalearn
    /// (their sections are read, and `learner` may name them).
    pub fn parse_with(
        text: &str,
        extra: &[&dyn LearnerSection],
    ) -> Result<TrainConfig, ConfigError> {
        TrainConfig::parse_checked(text, extra, true)
    }

    /// Parses and checks `text`; `own_section_only` refuses the sections of learners
    /// other than the config's.
    fn parse_checked(
        text: &str,
        extra: &[&dyn LearnerSection],
        own_section_only: bool,
    ) -> Result<TrainConfig, ConfigError> {
        let mut learners: Vec<&dyn LearnerSection> = SECTIONS.to_vec();
        learners.extend_from_slice(extra);
        let lines = top_level_lines(text, &learners)?;
        let document = toml::de::Deserializer::parse(text).map_err(|e| ConfigError(trimmed(&e)))?;
        let mut config = ConfigSeed {
            learners: &learners,
        }
        .deserialize(document)
        .map_err(|e| ConfigError(trimmed(&e)))?;
        config.check_learner(&learners)?;
        if own_section_only
            && let Some(other) = config.sections.keys().find(|&name| *name != config.learner)
        {
            // Another learner's section would be read by no one (or, with an older
            // spelling, quietly change [training]): a copy-paste slip to point out.
            return Err(ConfigError(format!(
                "line {}: [{other}] is the {other} learner's section; this config's learner \
                 is \"{}\" (its section is [{}]): remove [{other}] or change `learner`",
                lines.get(other.as_str()).copied().unwrap_or(1),
                config.learner,
                config.learner
            )));
        }
        config.settle(&learners)?;
        config.validate()?;
        Ok(config)
    }

    /// The section of learner `name` read as its settings `T` (absent: the defaults);
    /// errors name the section.
    pub fn section<T: DeserializeOwned + Default>(&self, name: &str) -> Result<T, ConfigError> {
        read_section(name, self.sections.get(name))
    }

    /// Checks that `learner` names one of `learners`.
    fn check_learner(&self, learners: &[&dyn LearnerSection]) -> Result<(), ConfigError> {
        if !learners.iter().any(|l| l.name() == self.learner) {
            let names: Vec<&str> = learners.iter().map(|l| l.name()).collect();
            return Err(ConfigError(format!(
                "learner: unknown learner '{}', expected one of {}",
                self.learner,
                names.join(", ")
            )));
        }
        Ok(())
    }

    /// Checks every learner's section, which may move older spellings into
    /// `[training]`.
    fn settle(&mut self, learners: &[&dyn LearnerSection]) -> Result<(), ConfigError> {
        for learner in learners {
            let name = learner.name();
            let settled = learner.settle(self.sections.get(name), &mut self.training)?;
            self.settled.insert(name.to_string(), settled);
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if self.model.file_stem().is_none() {
            return fail(
                "model",
                "must be a file path such as models/NAME.bin",
                format!("{:?}", self.model),
            );
        }
        let b = &self.budget;
        if b.iterations == 0 || b.iterations > 1_000_000 {
            return fail(
                "budget.iterations",
                "must be 1..=1000000",
                b.iterations.to_string(),
            );
        }
        if let Some(m) = b.minutes
            && !(m.is_finite() && m > 0.0)
        {
            return fail("budget.minutes", "must be a positive number", m.to_string());
        }
        self.selfplay.validate()?;
        self.evaluation.validate()?;
        if self.training.keep_best && self.evaluation.keeps_best() {
            return Err(ConfigError(
                "training.keep_best and evaluation.keep_best (or evaluation.opponent = \"best\"): \
                 both would write NAME.best.bin; keep the best by validation loss or by \
                 evaluation, not both"
                    .to_string(),
            ));
        }
        self.training.validate()
    }

    /// Whether a run of `other` trains the same way as one of this config: the same
    /// values, the learners' sections as their learners read them; only the budget, the
    /// thread count and where the model is written may differ (the results do not depend
    /// on them; a resumed run finds its checkpoint beside its model anyway).
    pub fn trains_like(&self, other: &TrainConfig) -> bool {
        let strip = |c: &TrainConfig| {
            let mut c = c.clone();
            c.budget = Budget::default();
            c.model = PathBuf::new();
            c.sections.clear();
            // Only the learner's own section trains: a checkpoint whose config carried
            // another's (accepted, unread, before such sections were refused) resumes
            // once the section is removed.
            let learner = c.learner.clone();
            c.settled.retain(|name, _| *name == learner);
            c.selfplay.threads = 0;
            format!("{c:?}")
        };
        strip(self) == strip(other)
    }

    /// A file beside the model: `models/NAME.bin` → `models/NAME.<suffix>`.
    pub fn beside_model(&self, suffix: &str) -> PathBuf {
        let stem = self
            .model
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".to_string());
        self.model.with_file_name(format!("{stem}.{suffix}"))
    }
}

impl SelfPlaySettings {
    fn validate(&self) -> Result<(), ConfigError> {
        let s = self;
        let limits = [
            s.depth.is_some(),
            s.nodes.is_some(),
            s.movetime_ms.is_some(),
        ];
        if limits.iter().filter(|&&x| x).count() != 1 {
            return fail(
                "selfplay",
                "give exactly one of depth, nodes, movetime_ms",
                format!(
                    "depth {:?}, nodes {:?}, movetime_ms {:?}",
                    s.depth, s.nodes, s.movetime_ms
                ),
            );
        }
        if let Some(d) = s.depth
            && !(1..=MAX_PLY as u32 - 8).contains(&d)
        {
            return fail("selfplay.depth", "must be 1..=120", d.to_string());
        }
        if s.nodes == Some(0) || s.movetime_ms == Some(0) {
            return fail(
                "selfplay.nodes / selfplay.movetime_ms",
                "must be above 0",
                "0".into(),
            );
        }
        if !(1..=1_000_000).contains(&s.games_per_iteration) {
            return fail(
                "selfplay.games_per_iteration",
                "must be 1..=1000000",
                s.games_per_iteration.to_string(),
            );
        }
        if s.random_plies > 40 {
            return fail(
                "selfplay.random_plies",
                "must be 0..=40",
                s.random_plies.to_string(),
            );
        }
        if let Some(t) = s.temperature
            && !(t.is_finite() && t > 0.0)
        {
            return fail(
                "selfplay.temperature",
                "must be a positive number",
                t.to_string(),
            );
        }
        if !(1..=100_000).contains(&s.ply_cap) {
            return fail(
                "selfplay.ply_cap",
                "must be 1..=100000",
                s.ply_cap.to_string(),
            );
        }
        if !(1..=4096).contains(&s.tt_mb) {
            return fail("selfplay.tt_mb", "must be 1..=4096", s.tt_mb.to_string());
        }
        Ok(())
    }
}

/// The error for `key`: what is allowed, and what was given.
pub fn fail(key: &str, allowed: &str, got: String) -> Result<(), ConfigError> {
    Err(ConfigError(format!("{key}: {allowed} (got {got})")))
}

/// `value` must be a positive finite number.
pub fn positive(key: &str, value: f64) -> Result<(), ConfigError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        fail(key, "must be a positive number", value.to_string())
    }
}

/// A learner's section `name` read as its settings `T` (absent: the defaults).
pub fn read_section<T: DeserializeOwned + Default>(
    name: &str,
    section: Option<&toml::Table>,
) -> Result<T, ConfigError> {
    match section {
        None => Ok(T::default()),
        Some(table) => T::deserialize(table.clone())
            .map_err(|e| ConfigError(format!("[{name}] {}", trimmed(&e)))),
    }
}

/// A TOML error's text without its trailing newline.
fn trimmed(error: &impl std::fmt::Display) -> String {
    error.to_string().trim_end().to_string()
}

impl TrainingSettings {
    fn validate(&self) -> Result<(), ConfigError> {
        let fail = |key: &str, allowed: &str, got: String| {
            Err(ConfigError(format!(
                "training.{key}: {allowed} (got {got})"
            )))
        };
        let share = |key: &str, v: f64, high: f64| {
            if (0.0..=high).contains(&v) {
                Ok(())
            } else {
                fail(key, &format!("must be in 0..={high}"), v.to_string())
            }
        };
        share("validation", self.validation, 0.5)?;
        if !(1..=100_000).contains(&self.validation_games) {
            return fail(
                "validation_games",
                "must be 1..=100000",
                self.validation_games.to_string(),
            );
        }
        if self.validation == 0.0 && (self.patience > 0 || self.keep_best) {
            return fail(
                if self.patience > 0 {
                    "patience"
                } else {
                    "keep_best"
                },
                "needs a validation loss: set training.validation above 0",
                "validation = 0".into(),
            );
        }
        if let Some(w) = self.search_weight {
            share("search_weight", w, 1.0)?;
        }
        if let Some(w) = self.search_weight_end {
            share("search_weight_end", w, 1.0)?;
        }
        if !(self.margin_scale.is_finite() && (0.1..=100.0).contains(&self.margin_scale)) {
            return fail(
                "margin_scale",
                "must be in 0.1..=100 (stones per logit)",
                self.margin_scale.to_string(),
            );
        }
        if self.max_positions_per_game > 100_000 {
            return fail(
                "max_positions_per_game",
                "must be 0..=100000 (0: all)",
                self.max_positions_per_game.to_string(),
            );
        }
        if self.lr_warmup > 1_000_000 {
            return fail(
                "lr_warmup",
                "must be 0..=1000000",
                self.lr_warmup.to_string(),
            );
        }
        if !(self.lr_final.is_finite() && self.lr_final >= 0.0 && self.lr_final <= 1.0) {
            return fail("lr_final", "must be in 0..=1", self.lr_final.to_string());
        }
        if self.lr_schedule == LrSchedule::Exponential && self.lr_final == 0.0 {
            return fail("lr_final", "must be above 0 for exponential", "0".into());
        }
        if self.lr_schedule == LrSchedule::Step && self.lr_step_every == 0 {
            return fail(
                "lr_step_every",
                "must be at least 1 with lr_schedule = \"step\"",
                "0".into(),
            );
        }
        if !(self.lr_gamma.is_finite() && self.lr_gamma > 0.0 && self.lr_gamma <= 1.0) {
            return fail("lr_gamma", "must be in (0, 1]", self.lr_gamma.to_string());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = "learner = \"samuel\"\nmodel = \"models/x.bin\"\n";

    #[test]
    fn a_minimal_config_takes_the_defaults() {
        let config = TrainConfig::parse(MINIMAL).unwrap();
        assert_eq!(config.learner, "samuel");
        assert_eq!(config.selfplay.depth, Some(4));
        assert_eq!(
            config.beside_model("metrics.jsonl"),
            PathBuf::from("models/x.metrics.jsonl")
        );
    }

    /// A minimal config of the learner whose section `extra` starts with (`[glem]…`).
    fn of_section(extra: &str) -> String {
        let learner = ["glem", "td"]
            .into_iter()
            .find(|l| extra.starts_with(&format!("[{l}]")))
            .unwrap_or("samuel");
        format!("learner = \"{learner}\"\nmodel = \"models/x.bin\"\n{extra}")
    }

    #[test]
    fn older_spellings_become_the_training_keys() {
        let parse = |extra: &str| TrainConfig::parse(&of_section(extra));
        let glem = "learner = \"glem\"\nmodel = \"models/x.bin\"\n";
        let old = parse("[glem]\nsearch_weight = 0.5\n").unwrap();
        let new = TrainConfig::parse(&format!("{glem}[training]\nsearch_weight = 0.5\n")).unwrap();
        assert!(old.trains_like(&new), "{old:?} {new:?}");
        let old = parse("[td]\nalpha = 0.1\nalpha_end = 0.005\n").unwrap();
        let new =
            parse("[td]\nalpha = 0.1\n[training]\nlr_schedule = \"linear\"\nlr_final = 0.05\n")
                .unwrap();
        assert!(old.trains_like(&new), "{old:?} {new:?}");
        let err = |extra: &str| parse(extra).unwrap_err().to_string();
        let e = err("[glem]\nsearch_weight = 0.5\n[training]\nsearch_weight = 0.5\n");
        assert!(
            e.contains("glem.search_weight") && e.contains("training.search_weight"),
            "{e}"
        );
        let e = err("[glem]\nsearch_weight = 1.5\n");
        assert!(e.contains("glem.search_weight"), "{e}");
        let e = err("[td]\nalpha_end = -0.1\n");
        assert!(e.contains("td.alpha_end"), "{e}");
        let e = err("[td]\nalpha_end = 0.01\n[training]\nlr_schedule = \"cosine\"\n");
        assert!(
            e.contains("td.alpha_end") && e.contains("training.lr_schedule"),
            "{e}"
        );
    }

    #[test]
    fn training_keys_default_and_bad_values_name_the_key() {
        let config = TrainConfig::parse(MINIMAL).unwrap();
        let t = &config.training;
        assert_eq!((t.validation, t.patience, t.keep_best), (0.0, 0, false));
        assert_eq!((t.search_weight, t.max_positions_per_game), (None, 0));
        assert_eq!(t.lr_schedule, LrSchedule::Constant);
        let err = |extra: &str| {
            TrainConfig::parse(&format!("{MINIMAL}[training]\n{extra}\n"))
                .unwrap_err()
                .to_string()
        };
        for (extra, key) in [
            ("validation = 0.6", "training.validation"),
            ("validation = -0.1", "training.validation"),
            (
                "validation = 0.1\nvalidation_games = 0",
                "training.validation_games",
            ),
            ("patience = 3", "training.patience"),
            ("keep_best = true", "training.keep_best"),
            ("search_weight = 1.5", "training.search_weight"),
            ("search_weight_end = -1", "training.search_weight_end"),
            (
                "max_positions_per_game = 1000000",
                "training.max_positions_per_game",
            ),
            ("lr_final = 2", "training.lr_final"),
            (
                "lr_schedule = \"exponential\"\nlr_final = 0",
                "training.lr_final",
            ),
            ("lr_schedule = \"step\"", "training.lr_step_every"),
            ("lr_gamma = 0", "training.lr_gamma"),
            ("lr_schedule = \"sawtooth\"", "lr_schedule"),
            ("skip_decided = 1", "skip_decided"),
            ("validaton = 0.1", "validaton"),
        ] {
            let e = err(extra);
            assert!(e.contains(key), "{extra}: {e}");
        }
        let ok = "validation = 0.2\nvalidation_games = 50\npatience = 3\nkeep_best = true\n\
                  search_weight = 0.5\nsearch_weight_end = 0.1\nskip_capture_pending = true\n\
                  skip_decided = true\nmax_positions_per_game = 8\nlr_schedule = \"step\"\n\
                  lr_step_every = 4\nlr_gamma = 0.7\nlr_warmup = 2\nlr_final = 0.05\n";
        let t = TrainConfig::parse(&format!("{MINIMAL}[training]\n{ok}"))
            .unwrap()
            .training;
        assert_eq!((t.validation, t.validation_games, t.patience), (0.2, 50, 3));
        assert!(t.keep_best && t.skip_capture_pending && t.skip_decided);
        assert_eq!(
            (t.search_weight, t.search_weight_end),
            (Some(0.5), Some(0.1))
        );
        assert_eq!(
            (t.max_positions_per_game, t.lr_step_every, t.lr_warmup),
            (8, 4, 2)
        );
        assert_eq!(
            (t.lr_schedule, t.lr_gamma, t.lr_final),
            (LrSchedule::Step, 0.7, 0.05)
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key() {
        let err = |text: &str| TrainConfig::parse(text).unwrap_err().to_string();
        let e = err(&format!("{MINIMAL}colour = 3\n"));
        assert!(e.contains("colour") && e.contains("learner"), "{e}");
        let e = err("learner = \"magic\"\nmodel = \"m.bin\"\n");
        assert!(
            e.contains("magic") && e.contains("samuel") && e.contains("td"),
            "{e}"
        );
        let e = err(&format!("{MINIMAL}[selfplay]\ndepth = 4\nnodes = 100\n"));
        assert!(e.contains("exactly one of depth"), "{e}");
        let e = err(&of_section("[td]\nhidden = 500\n"));
        assert!(e.contains("td.hidden") && e.contains("32..=128"), "{e}");
        let e = err(&of_section("[td]\nlambda = 1.5\n"));
        assert!(e.contains("td.lambda"), "{e}");
        for phases in ["0", "9", "-1"] {
            let e = err(&of_section(&format!("[td]\nphases = {phases}\n")));
            assert!(e.contains("td.phases") || e.contains("phases"), "{e}");
        }
        let e = err(&format!("{MINIMAL}[evaluation]\ngames = 7\n"));
        assert!(e.contains("evaluation.games"), "{e}");
        let e = err(&of_section("[glem]\nmin_suport = 3\n"));
        assert!(e.contains("min_suport") && e.contains("min_support"), "{e}");
        let e = err("model = \"m.bin\"\n");
        assert!(e.contains("learner"), "{e}");
    }

    #[test]
    fn an_unknown_section_or_key_is_named_with_its_line() {
        let err = |text: &str| TrainConfig::parse(text).unwrap_err().to_string();
        let e = err(&format!(
            "# a comment\n{MINIMAL}\n[budgt]\niterations = 3\n"
        ));
        assert!(
            e.starts_with("line 5: unknown section [budgt]; expected one of [budget]"),
            "{e}"
        );
        let e = err(&format!("{MINIMAL}seeed = 3\n"));
        assert!(e.starts_with("line 3: unknown key `seeed`"), "{e}");
    }

    /// The budget, the threads and the model's path do not change what a run learns;
    /// any other setting does.
    #[test]
    fn runs_train_alike_whatever_their_budget_threads_and_model_path() {
        let config = |extra: &str| {
            TrainConfig::parse(&format!("learner = \"td\"\nseed = 2\n{extra}")).unwrap()
        };
        let base = config("model = \"models/a.bin\"\n[selfplay]\ndepth = 4\nthreads = 2\n");
        let alike = config(
            "model = \"/elsewhere/b.bin\"\n[budget]\niterations = 9\n[selfplay]\ndepth = 4\nthreads = 0\n",
        );
        assert!(base.trains_like(&alike));
        let other = config("model = \"models/a.bin\"\n[selfplay]\ndepth = 4\n[td]\nhidden2 = 8\n");
        assert!(!base.trains_like(&other));
    }

    #[test]
    fn another_learners_section_is_refused_but_read_from_saved_configs() {
        let text =
            "learner = \"td\"\nmodel = \"m.bin\"\n[td]\nalpha = 0.1\n\n[glem]\nmin_support = 3\n";
        let e = TrainConfig::parse(text).unwrap_err().to_string();
        assert_eq!(
            e,
            "line 6: [glem] is the glem learner's section; this config's learner is \"td\" \
             (its section is [td]): remove [glem] or change `learner`"
        );
        // Earlier versions took it and read it from no one: a run saved so resumes with
        // the section removed.
        let saved = TrainConfig::parse_saved(text).unwrap();
        let edited = TrainConfig::parse("learner = \"td\"\nmodel = \"m.bin\"\n[td]\nalpha = 0.1\n");
        assert!(saved.trains_like(&edited.unwrap()));
    }
}
