//! Training configurations (`configs/*.toml`): which learner, its hyperparameters, how
//! self-play plays, how long to train, when to measure against the material evaluator,
//! and where the model goes. Unknown keys and bad values are rejected with the key's name
//! and what is allowed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::search::{Limits, MAX_PLY};

/// Longest configuration file read.
pub const MAX_CONFIG_BYTES: u64 = 64 << 10;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LearnerKind {
    Samuel,
    Glem,
    Td,
}

impl LearnerKind {
    pub fn name(self) -> &'static str {
        match self {
            LearnerKind::Samuel => "samuel",
            LearnerKind::Glem => "glem",
            LearnerKind::Td => "td",
        }
    }
}

/// A whole training configuration.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// `samuel`, `glem` or `td`.
    pub learner: LearnerKind,
    /// The game: `brazilian` (default), `kalah`, or a Kalah variant such as
    /// `kalah:6:4:empty-capture`.
    #[serde(default = "default_game")]
    pub game: String,
    /// Seed of every random choice of the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Where the model is written (every iteration, as a new revision). The metrics
    /// (`NAME.metrics.jsonl`), learning curve (`NAME.curve.svg`) and checkpoint
    /// (`NAME.ckpt`) go beside it.
    pub model: PathBuf,
    #[serde(default)]
    pub budget: Budget,
    #[serde(default)]
    pub selfplay: SelfPlaySettings,
    #[serde(default)]
    pub evaluation: EvaluationSettings,
    #[serde(default)]
    pub samuel: SamuelSettings,
    #[serde(default)]
    pub glem: GlemSettings,
    #[serde(default)]
    pub td: TdSettings,
    #[serde(default)]
    pub training: TrainingSettings,
}

fn default_game() -> String {
    "brazilian".to_string()
}

fn default_seed() -> u64 {
    1
}

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

/// Evaluation matches against the game's baseline evaluator (draughts `material`, Kalah
/// `stores`): every `every` iterations (and after
/// the last), `games` games (pairs of openings) at `depth`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluationSettings {
    /// Iterations between evaluations; 0 = only after the last iteration.
    #[serde(default = "default_every")]
    pub every: u64,
    #[serde(default = "default_eval_games")]
    pub games: u64,
    #[serde(default = "default_eval_depth")]
    pub depth: u32,
    #[serde(default = "default_random_plies")]
    pub random_plies: u32,
    /// Positions with exact values the model is measured on at each evaluation (the
    /// held-out accuracy sample: Kalah late positions, draughts ≤ 5 pieces when an
    /// endgame database is present); 0 = none.
    #[serde(default = "default_held_out")]
    pub held_out: usize,
}

/// Most held-out positions (each is searched at every evaluation).
const MAX_HELD_OUT: usize = 5000;

fn default_held_out() -> usize {
    200
}
fn default_every() -> u64 {
    5
}
fn default_eval_games() -> u64 {
    100
}
fn default_eval_depth() -> u32 {
    6
}

impl Default for EvaluationSettings {
    fn default() -> Self {
        EvaluationSettings {
            every: default_every(),
            games: default_eval_games(),
            depth: default_eval_depth(),
            random_plies: default_random_plies(),
            held_out: default_held_out(),
        }
    }
}

/// Samuel's method (Beling's master's thesis, ch. 5.2): player A learns after each of its moves, B is frozen; the
/// least useful active feature is periodically replaced from the reserve, and the model
/// kept is the best of A's weights by selection match.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SamuelSettings {
    /// Step size of the normalised LMS update (at game 0; see `step_decay_games`).
    #[serde(default = "default_samuel_rate")]
    pub learning_rate: f64,
    /// The step after `g` games is `learning_rate / (1 + g / step_decay_games)`; 0 keeps
    /// it constant.
    #[serde(default = "default_step_decay_games")]
    pub step_decay_games: f64,
    /// Largest error (centi-units) one update follows; larger ones are clipped.
    #[serde(default = "default_error_clip")]
    pub error_clip: f64,
    /// Losses in a row after which A's largest weight is set to zero.
    #[serde(default = "default_loss_streak")]
    pub loss_streak: u32,
    /// Games between term replacements (0: the active features never change).
    #[serde(default = "default_replace_every")]
    pub replace_every: u64,
    /// Games between selection matches of A against the anchor alone; the best-scoring
    /// weights are the model (0: the model is A's latest weights).
    #[serde(default = "default_select_every")]
    pub select_every: u64,
    /// Games of a selection match (even: each opening with both colours).
    #[serde(default = "default_select_games")]
    pub select_games: u64,
    /// Search depth of the selection matches.
    #[serde(default = "default_select_depth")]
    pub select_depth: u32,
    /// Whom A plays in a selection match: `anchor` (the anchor alone; the best-scoring
    /// weights are kept) or `model` (the model kept so far, head to head on the same
    /// openings with both colours; A's weights replace it if they score more than
    /// `0.5 + select_margin`).
    #[serde(default)]
    pub select_against: SelectAgainst,
    /// How far above ½ A must score against the model to replace it
    /// (`select_against = "model"` only).
    #[serde(default)]
    pub select_margin: f64,
}

/// Opponent of Samuel's selection matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SelectAgainst {
    /// The anchor alone (material, the store difference).
    #[default]
    Anchor,
    /// The model kept so far.
    Model,
}

fn default_samuel_rate() -> f64 {
    0.005
}
fn default_step_decay_games() -> f64 {
    2000.0
}
fn default_error_clip() -> f64 {
    300.0
}
fn default_loss_streak() -> u32 {
    3
}
fn default_replace_every() -> u64 {
    100
}
fn default_select_every() -> u64 {
    200
}
fn default_select_games() -> u64 {
    100
}
fn default_select_depth() -> u32 {
    4
}

impl Default for SamuelSettings {
    fn default() -> Self {
        SamuelSettings {
            learning_rate: default_samuel_rate(),
            step_decay_games: default_step_decay_games(),
            error_clip: default_error_clip(),
            loss_streak: default_loss_streak(),
            replace_every: default_replace_every(),
            select_every: default_select_every(),
            select_games: default_select_games(),
            select_depth: default_select_depth(),
            select_against: SelectAgainst::Anchor,
            select_margin: 0.0,
        }
    }
}

/// GLEM (Beling's master's thesis, ch. 5.3): configurations mined from the positions of recent games, weights fit
/// by gradient descent on the results.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlemSettings {
    /// Positions a configuration must occur in to be kept (the seed's n).
    #[serde(default = "default_min_support")]
    pub min_support: usize,
    /// Most atoms in one configuration.
    #[serde(default = "default_max_atoms")]
    pub max_atoms: usize,
    /// Games kept for fitting (the most recent).
    #[serde(default = "default_pool_games")]
    pub pool_games: usize,
    /// Iterations between re-minings of the configurations.
    #[serde(default = "default_remine_every")]
    pub remine_every: u64,
    #[serde(default = "default_glem_epochs")]
    pub epochs: usize,
    #[serde(default = "default_glem_rate")]
    pub learning_rate: f64,
    /// The older spelling of `[training] search_weight`, still read (the shipped models
    /// were trained with it): moved there when the config is parsed.
    #[serde(default)]
    pub search_weight: Option<f64>,
}

fn default_min_support() -> usize {
    50
}
fn default_max_atoms() -> usize {
    4
}
fn default_pool_games() -> usize {
    2000
}
fn default_remine_every() -> u64 {
    5
}
fn default_glem_epochs() -> usize {
    100
}
fn default_glem_rate() -> f64 {
    0.01
}
/// GLEM's weight of the search score in its targets when `[training] search_weight` is
/// absent: blending makes the labels far less noisy.
pub const GLEM_SEARCH_WEIGHT: f64 = 0.7;

impl Default for GlemSettings {
    fn default() -> Self {
        GlemSettings {
            min_support: default_min_support(),
            max_atoms: default_max_atoms(),
            pool_games: default_pool_games(),
            remine_every: default_remine_every(),
            epochs: default_glem_epochs(),
            learning_rate: default_glem_rate(),
            search_weight: None,
        }
    }
}

/// TD(λ) (Beling's master's thesis, ch. 5.4): a multilayer perceptron trained on the principal-variation leaves.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TdSettings {
    #[serde(default = "default_hidden")]
    pub hidden: usize,
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    #[serde(default = "default_lambda")]
    pub lambda: f64,
    /// Game phases, each with its own output head over the shared hidden layer
    /// ([`crate::eval::td::Inputs::phase`]); 1 (the default) is one output.
    #[serde(default = "default_phases")]
    pub phases: usize,
    /// The older spelling of `[training] lr_schedule = "linear"` with `lr_final =
    /// alpha_end / alpha`, still read (the shipped model was trained with it): rewritten
    /// so when the config is parsed.
    #[serde(default)]
    pub alpha_end: Option<f64>,
}

fn default_hidden() -> usize {
    48
}
fn default_alpha() -> f64 {
    0.05
}
fn default_lambda() -> f64 {
    0.7
}
fn default_phases() -> usize {
    1
}

impl Default for TdSettings {
    fn default() -> Self {
        TdSettings {
            hidden: default_hidden(),
            alpha: default_alpha(),
            lambda: default_lambda(),
            phases: default_phases(),
            alpha_end: None,
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
    /// Reads and checks a configuration file.
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

    /// Parses and checks configuration text.
    pub fn parse(text: &str) -> Result<TrainConfig, ConfigError> {
        let mut config: TrainConfig =
            toml::from_str(text).map_err(|e| ConfigError(e.to_string().trim_end().to_string()))?;
        config.move_old_keys()?;
        config.validate()?;
        Ok(config)
    }

    /// Moves the older spellings to their `[training]` keys: `[glem] search_weight` to
    /// `search_weight`, `[td] alpha_end` to `lr_schedule = "linear"` with `lr_final =
    /// alpha_end / alpha` (to 12 decimals, so `0.005 / 0.1` is 0.05). Both spellings at
    /// once are refused.
    fn move_old_keys(&mut self) -> Result<(), ConfigError> {
        let both = |old: &str, new: &str| {
            Err(ConfigError(format!(
                "{old}: is the older spelling of {new}; give only {new}"
            )))
        };
        if let Some(w) = self.glem.search_weight.take() {
            if self.training.search_weight.is_some() {
                return both("glem.search_weight", "training.search_weight");
            }
            if !(0.0..=1.0).contains(&w) {
                return Err(ConfigError(format!(
                    "glem.search_weight: must be in 0..=1 (got {w})"
                )));
            }
            self.training.search_weight = Some(w);
        }
        if let Some(end) = self.td.alpha_end.take() {
            if self.training.lr_schedule != LrSchedule::Constant {
                return both(
                    "td.alpha_end",
                    "training.lr_schedule with training.lr_final",
                );
            }
            if !(end.is_finite() && end > 0.0 && end <= self.td.alpha) {
                return Err(ConfigError(format!(
                    "td.alpha_end: must be a positive number at most td.alpha (got {end})"
                )));
            }
            self.training.lr_schedule = LrSchedule::Linear;
            self.training.lr_final = (end / self.td.alpha * 1e12).round() / 1e12;
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let fail = |key: &str, allowed: &str, got: String| {
            Err(ConfigError(format!("{key}: {allowed} (got {got})")))
        };
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
        let s = &self.selfplay;
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
        let e = &self.evaluation;
        if e.games == 0 || !e.games.is_multiple_of(2) {
            return fail(
                "evaluation.games",
                "must be an even number above 0",
                e.games.to_string(),
            );
        }
        if !(1..=MAX_PLY as u32 - 8).contains(&e.depth) {
            return fail("evaluation.depth", "must be 1..=120", e.depth.to_string());
        }
        if e.random_plies > 40 {
            return fail(
                "evaluation.random_plies",
                "must be 0..=40",
                e.random_plies.to_string(),
            );
        }
        if e.held_out > MAX_HELD_OUT {
            return fail(
                "evaluation.held_out",
                "must be 0..=5000",
                e.held_out.to_string(),
            );
        }
        let positive = |key: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                fail(key, "must be a positive number", v.to_string())
            }
        };
        positive("samuel.learning_rate", self.samuel.learning_rate)?;
        positive("samuel.error_clip", self.samuel.error_clip)?;
        let sam = &self.samuel;
        if sam.loss_streak == 0 {
            return fail("samuel.loss_streak", "must be at least 1", "0".into());
        }
        if !(sam.step_decay_games.is_finite() && sam.step_decay_games >= 0.0) {
            return fail(
                "samuel.step_decay_games",
                "must be a number ≥ 0",
                sam.step_decay_games.to_string(),
            );
        }
        if sam.select_every > 0 && (sam.select_games == 0 || !sam.select_games.is_multiple_of(2)) {
            return fail(
                "samuel.select_games",
                "must be even and at least 2",
                sam.select_games.to_string(),
            );
        }
        if !(1..=MAX_PLY as u32 - 8).contains(&sam.select_depth) {
            return fail(
                "samuel.select_depth",
                "must be 1..=120",
                sam.select_depth.to_string(),
            );
        }
        if !(sam.select_margin.is_finite() && (0.0..0.5).contains(&sam.select_margin)) {
            return fail(
                "samuel.select_margin",
                "must be a number in [0, 0.5)",
                sam.select_margin.to_string(),
            );
        }
        let g = &self.glem;
        if g.min_support == 0 {
            return fail("glem.min_support", "must be at least 1", "0".into());
        }
        if !(1..=8).contains(&g.max_atoms) {
            return fail("glem.max_atoms", "must be 1..=8", g.max_atoms.to_string());
        }
        if g.pool_games == 0 || g.remine_every == 0 || g.epochs == 0 {
            return fail(
                "glem.pool_games / remine_every / epochs",
                "must be at least 1",
                "0".into(),
            );
        }
        positive("glem.learning_rate", g.learning_rate)?;

        let t = &self.td;
        if !(32..=128).contains(&t.hidden) {
            return fail(
                "td.hidden",
                "must be 32..=128 hidden units",
                t.hidden.to_string(),
            );
        }
        positive("td.alpha", t.alpha)?;

        if !(0.0..=1.0).contains(&t.lambda) {
            return fail("td.lambda", "must be in 0..=1", t.lambda.to_string());
        }
        if !(1..=crate::eval::td::MAX_PHASES).contains(&t.phases) {
            return fail(
                "td.phases",
                &format!("must be 1..={} phases", crate::eval::td::MAX_PHASES),
                t.phases.to_string(),
            );
        }
        self.training.validate()
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
        assert_eq!(config.learner, LearnerKind::Samuel);
        assert_eq!(config.selfplay.depth, Some(4));
        assert_eq!(
            config.beside_model("metrics.jsonl"),
            PathBuf::from("models/x.metrics.jsonl")
        );
    }

    #[test]
    fn older_spellings_become_the_training_keys() {
        let parse = |extra: &str| TrainConfig::parse(&format!("{MINIMAL}{extra}"));
        let old = parse("[glem]\nsearch_weight = 0.5\n").unwrap();
        let new = parse("[training]\nsearch_weight = 0.5\n").unwrap();
        assert_eq!(format!("{old:?}"), format!("{new:?}"));
        let old = parse("[td]\nalpha = 0.1\nalpha_end = 0.005\n").unwrap();
        let new =
            parse("[td]\nalpha = 0.1\n[training]\nlr_schedule = \"linear\"\nlr_final = 0.05\n")
                .unwrap();
        assert_eq!(format!("{old:?}"), format!("{new:?}"));
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
        let e = err(&format!("{MINIMAL}[td]\nhidden = 500\n"));
        assert!(e.contains("td.hidden") && e.contains("32..=128"), "{e}");
        let e = err(&format!("{MINIMAL}[td]\nlambda = 1.5\n"));
        assert!(e.contains("td.lambda"), "{e}");
        for phases in ["0", "9", "-1"] {
            let e = err(&format!("{MINIMAL}[td]\nphases = {phases}\n"));
            assert!(e.contains("td.phases") || e.contains("phases"), "{e}");
        }
        let e = err(&format!("{MINIMAL}[evaluation]\ngames = 7\n"));
        assert!(e.contains("evaluation.games"), "{e}");
        let e = err(&format!("{MINIMAL}[glem]\nmin_suport = 3\n"));
        assert!(e.contains("min_suport") && e.contains("min_support"), "{e}");
        let e = err("model = \"m.bin\"\n");
        assert!(e.contains("learner"), "{e}");
        let e = err(&format!("{MINIMAL}game = \"chess\"\n"));
        assert!(e.contains("game"), "{e}");
    }
}
