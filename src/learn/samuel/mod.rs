//! Samuel's learning by self-play (Beling's master's thesis, ch. 5.2), on the linear evaluator over a game's named
//! features ([`crate::eval::linear`]), for any game that has them.
//!
//! Player A learns, player B is frozen. **The update rule**: after each of A's moves,
//! with `s` the position A moved from, `f = features(s)` over the active features,
//! `V(s) = anchor(s) + w·f` its static value and `v` the value A's search backed up for
//! `s` (both for A, in centi-units), the error `δ = clamp(v − V(s), ±error_clip)` moves
//! the active weights by the normalised LMS step `w ← w + α_g·δ·f / (1 + f·f)`, with the
//! step decaying over the games played, `α_g = α / (1 + g / step_decay_games)`. Positions
//! with a capture pending (no static value is used there) and decided ones (a win or loss
//! score) are skipped. The anchor (material; Kalah's store difference) keeps its fixed
//! weight, without which the weights would drift. After a game A wins, B takes A's
//! weights; after `loss_streak` losses in a row, A's largest weight (in absolute value)
//! is set to zero, to leave a local optimum.
//!
//! **Term replacement** (a footnote of Beling's thesis, after Samuel 1959): the game lists a pool of
//! candidate features larger than the active set. Over the games since the last
//! replacement, each feature's values at A's learning positions are correlated with the
//! result of their game for A (+1 win, 0 draw, −1 loss; with `[training] target =
//! "margin"`, `2σ(m / margin_scale) − 1` for A's final margin `m`); every `replace_every` games the
//! active feature whose |Pearson correlation| with winning is lowest goes to the end of
//! the reserve queue, and the queue's head takes its place with weight 0.
//!
//! **Stability**: besides the decaying step, keep-best by selection match. Every
//! `select_every` games A's weights play a selection match (the same openings each time,
//! both colours, no exploration): with `select_against = "anchor"` against the anchor
//! alone, the best-scoring weights so far being the model; with `select_against =
//! "model"` head to head against the model kept so far, which they replace only by
//! scoring more than `0.5 + select_margin` (the first weights are taken unopposed). The
//! model is what is evaluated and saved (A's weights before the first selection). A
//! longer run of the same seed replays the shorter one, then keeps its model unless later
//! weights win their selection match.
//!
//! Games are played one after another, because A changes after every move; A moves first
//! in even-numbered games and second in odd ones.
//!
//! **Taught** (`teacher = "MODEL"`, [`teacher`]): a stronger model plays the games, on
//! every core, and the weights (with `piece_squares`, the game's piece-square terms too)
//! are the least-squares fit of its search scores; the selection matches keep the model
//! as above.

mod games;
mod rule;
pub mod teacher;
#[cfg(test)]
pub(crate) mod tests;

use games::linear_evaluator;
pub use games::{SamuelControls, SamuelPlay, SamuelReport, iteration, select, selection_score};
pub use rule::{
    after_game, learning_features, replace_least_useful, step_size, update, zero_largest,
};
use teacher::{TaughtFit, Teacher};

use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::eval::EvalGame;
use crate::eval::Evaluator;
use crate::eval::linear::{self, Features, LinearWeights, feature_count};
use crate::eval::spec::AnyEvaluator;
use crate::io::dataset::DatasetGame;
use crate::io::model::{ModelError, ModelHeader, from_bytes, save_model, to_bytes};
use crate::search::{Limits, MAX_PLY};

use super::config::{ConfigError, TrainConfig, TrainingSettings, fail, positive, read_section};
use super::controls::{PositionFilter, held_out};
use super::iteration::{Iteration, Stage};
use super::learner::{IterationReport, Learner, LearnerKind, LearnerSection, TrainGame};

/// `[samuel]`: Samuel's method (Beling's master's thesis, ch. 5.2): player A learns
/// after each of its moves, B is frozen; the least useful active feature is periodically
/// replaced from the reserve, and the model kept is the best of A's weights by selection
/// match.
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
    /// A model file that teaches: it plays the games, and the weights are fitted to its
    /// search scores ([`teacher`]). None: Samuel's own self-play of A against B.
    #[serde(default)]
    pub teacher: Option<PathBuf>,
    /// With a teacher: only positions it scores within ± this many of its centi-units are
    /// fitted.
    #[serde(default = "default_teacher_range")]
    pub teacher_range: f64,
    /// With a teacher: also fit the game's piece-square terms (draughts: a man's and a
    /// king's weight on each square).
    #[serde(default)]
    pub piece_squares: bool,
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
fn default_teacher_range() -> f64 {
    125.0
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
            teacher: None,
            teacher_range: default_teacher_range(),
            piece_squares: false,
        }
    }
}

impl SamuelSettings {
    fn validate(&self) -> Result<(), ConfigError> {
        positive("samuel.learning_rate", self.learning_rate)?;
        positive("samuel.error_clip", self.error_clip)?;
        positive("samuel.teacher_range", self.teacher_range)?;
        if self.piece_squares && self.teacher.is_none() {
            return fail(
                "samuel.piece_squares",
                "needs samuel.teacher: only a taught run fits piece-square terms",
                "true".into(),
            );
        }
        if self.loss_streak == 0 {
            return fail("samuel.loss_streak", "must be at least 1", "0".into());
        }
        if !(self.step_decay_games.is_finite() && self.step_decay_games >= 0.0) {
            return fail(
                "samuel.step_decay_games",
                "must be a number ≥ 0",
                self.step_decay_games.to_string(),
            );
        }
        if self.select_every > 0 && (self.select_games == 0 || !self.select_games.is_multiple_of(2))
        {
            return fail(
                "samuel.select_games",
                "must be even and at least 2",
                self.select_games.to_string(),
            );
        }
        if !(1..=MAX_PLY as u32 - 8).contains(&self.select_depth) {
            return fail(
                "samuel.select_depth",
                "must be 1..=120",
                self.select_depth.to_string(),
            );
        }
        if !(self.select_margin.is_finite() && (0.0..0.5).contains(&self.select_margin)) {
            return fail(
                "samuel.select_margin",
                "must be a number in [0, 0.5)",
                self.select_margin.to_string(),
            );
        }
        Ok(())
    }
}

/// Samuel's learner, as configs name it (`learner = "samuel"`) and games offer it.
pub struct Samuel;

impl LearnerSection for Samuel {
    fn name(&self) -> &'static str {
        "samuel"
    }

    fn settle(
        &self,
        section: Option<&toml::Table>,
        _: &mut TrainingSettings,
    ) -> Result<String, ConfigError> {
        let settings: SamuelSettings = read_section("samuel", section)?;
        settings.validate()?;
        Ok(format!("{settings:?}"))
    }
}

impl<G: TrainGame + Features> LearnerKind<G> for Samuel {
    fn start(&self, config: &TrainConfig) -> Result<Box<dyn Learner<G>>, String> {
        let settings: SamuelSettings = config.section("samuel").map_err(|e| e.to_string())?;
        let teacher = Teacher::load(&settings, None)?;
        Ok(Box::new(SamuelLearner::<G> {
            teacher,
            ..SamuelLearner::new(SamuelState::new::<G>(), settings)
        }))
    }

    fn resume(&self, config: &TrainConfig, state: &[u8]) -> Result<Box<dyn Learner<G>>, String> {
        let settings: SamuelSettings = config.section("samuel").map_err(|e| e.to_string())?;
        let (state, teacher) = if settings.teacher.is_some() {
            let (state, fit): (SamuelState, TaughtFit) = from_bytes(state)?;
            (state, Teacher::load(&settings, Some(fit))?)
        } else {
            (from_bytes(state)?, None)
        };
        state.a.validate::<G>()?;
        Ok(Box::new(SamuelLearner::<G> {
            teacher,
            ..SamuelLearner::new(state, settings)
        }))
    }

    /// Player A updates after each of its moves against a frozen B: its games are its
    /// own. A teacher's games can be played anywhere.
    fn learns_from_recorded_games(&self, config: &TrainConfig) -> bool {
        config
            .section::<SamuelSettings>("samuel")
            .is_ok_and(|s| s.teacher.is_some())
    }
}

/// Samuel's learner of a run: its state and its settings, and its teacher if it has one.
pub struct SamuelLearner<G: EvalGame> {
    state: SamuelState,
    settings: SamuelSettings,
    teacher: Option<Teacher<G>>,
    game: PhantomData<fn() -> G>,
}

impl<G: EvalGame> Clone for SamuelLearner<G> {
    fn clone(&self) -> Self {
        SamuelLearner {
            teacher: self.teacher.clone(),
            ..SamuelLearner::new(self.state.clone(), self.settings.clone())
        }
    }
}

impl<G: EvalGame> SamuelLearner<G> {
    fn new(state: SamuelState, settings: SamuelSettings) -> SamuelLearner<G> {
        SamuelLearner {
            state,
            settings,
            teacher: None,
            game: PhantomData,
        }
    }
}

/// The learner's state between iterations (saved in checkpoints).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamuelState {
    /// Player A's weights (the one learning).
    pub a: LinearWeights,
    /// Player B's weights (frozen; A's after A's last win).
    pub b: LinearWeights,
    /// A's losses in a row.
    pub loss_streak: u32,
    /// Per feature of the pool: its correlation with A's results since the last
    /// replacement.
    pub usefulness: Vec<Correlation>,
    /// The model: A's best weights by selection match (A's own until the first match).
    /// Boxed: the learners' states share an enum.
    pub best: Option<Box<Selected>>,
}

/// A's weights kept at a selection match and how they scored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Selected {
    pub weights: LinearWeights,
    /// Their score (wins + draws / 2 over games) against the anchor alone, or against the
    /// model they replaced (½ for the first, taken unopposed).
    pub score: f64,
    /// Self-play games played when they were selected.
    pub game: u64,
}

impl SamuelState {
    /// Both players with all weights zero, for game `G`.
    pub fn new<G: Features>() -> Self {
        SamuelState {
            a: LinearWeights::zero::<G>(),
            b: LinearWeights::zero::<G>(),
            loss_streak: 0,
            usefulness: vec![Correlation::default(); feature_count::<G>()],
            best: None,
        }
    }

    /// The model's weights: the best selected, or A's before any selection.
    pub fn model(&self) -> &LinearWeights {
        self.best.as_ref().map_or(&self.a, |b| &b.weights)
    }
}

/// Running sums for the Pearson correlation of a feature `x` with game results `y`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Correlation {
    n: f64,
    x: f64,
    xx: f64,
    y: f64,
    yy: f64,
    xy: f64,
}

impl Correlation {
    /// Adds one game: `count` positions whose feature values sum to `x` and whose squares
    /// sum to `xx`, all with result `y`.
    pub fn add_game(&mut self, count: f64, x: f64, xx: f64, y: f64) {
        self.n += count;
        self.x += x;
        self.xx += xx;
        self.y += count * y;
        self.yy += count * y * y;
        self.xy += x * y;
    }

    /// Pearson's r; 0 when either variance is 0 (a constant feature, or all games with
    /// the same result).
    pub fn value(&self) -> f64 {
        let covariance = self.n * self.xy - self.x * self.y;
        let vx = self.n * self.xx - self.x * self.x;
        let vy = self.n * self.yy - self.y * self.y;
        if vx <= 0.0 || vy <= 0.0 {
            return 0.0;
        }
        covariance / (vx * vy).sqrt()
    }
}

/// Mean squared error, in units² (100 centi-units a unit), of the static values of
/// `weights` against the targets.
fn squared_error<G: Features>(weights: &LinearWeights, pairs: &[(G, i32)]) -> f64 {
    let linear = linear_evaluator::<G>(weights);
    let sum: f64 = pairs
        .iter()
        .map(|(pos, target)| ((*target - linear.evaluate(pos)) as f64 / 100.0).powi(2))
        .sum();
    sum / pairs.len().max(1) as f64
}

/// The iteration's one-line summary.
fn detail<G: Features>(r: &SamuelReport, state: &SamuelState, against: SelectAgainst) -> String {
    let mut text = format!(
        "A {}-{}-{} against B, {} copies to B, {} weights zeroed",
        r.a_wins, r.draws, r.b_wins, r.copies, r.zeroings
    );
    for &(removed, added) in &r.replaced {
        let names = G::FEATURE_NAMES;
        text += &format!(", {} → {}", names[removed], names[added]);
    }
    text + &selection_text(&r.selections, state, against)
}

/// The selection matches' part of an iteration's summary: their scores and the model's.
fn selection_text(selections: &[f64], state: &SamuelState, against: SelectAgainst) -> String {
    let mut text = String::new();
    if !selections.is_empty() {
        let scores: Vec<String> = selections
            .iter()
            .map(|s| format!("{:.1}%", 100.0 * s))
            .collect();
        let opponent = match against {
            SelectAgainst::Anchor => "",
            SelectAgainst::Model => " against the model",
        };
        text += &format!(", selection {}{opponent}", scores.join(" "));
    }
    match (&state.best, against) {
        (Some(best), SelectAgainst::Anchor) => {
            text += &format!(" (model: {:.1}% at game {})", 100.0 * best.score, best.game);
        }
        (Some(best), SelectAgainst::Model) => text += &format!(" (model: game {})", best.game),
        (None, _) => {}
    }
    text
}

/// The iteration's games and selection matches as Samuel plays them (from the fields of
/// the iteration it needs, so that its progress stays free to report).
fn samuel_play<'a, G: TrainGame>(it: &Iteration<'a, G>, openings: &'a [G]) -> SamuelPlay<'a, G> {
    let s = &it.config.selfplay;
    SamuelPlay {
        // Ctrl-C stops the search in progress, not only the next game.
        limits: Limits {
            stop: Some(Arc::clone(it.stop)),
            ..s.limits()
        },
        exploration: it.exploration,
        ply_cap: s.ply_cap,
        tt_mib: s.tt_mb,
        openings,
        seed: it.config.seed,
        tablebase: it.tablebase.clone(),
        adjudicate: s.egdb_adjudicate,
        target: it.config.training.outcome_target(),
    }
}

impl<G: TrainGame + Features> Learner<G> for SamuelLearner<G> {
    fn iterate(&mut self, it: &mut Iteration<'_, G>) -> Result<Option<IterationReport>, String> {
        if self.teacher.is_some() {
            return self.iterate_taught(it);
        }
        let s = &it.config.selfplay;
        let play = samuel_play(it, it.openings);
        let games = s.games_per_iteration;
        let (config, tablebase) = (it.config, it.tablebase.clone());
        let held_out = |index| held_out(config.seed, index, config.training.validation);
        let mut controls = SamuelControls {
            held_out: &held_out,
            search_weight: it.search_weight(1.0),
            rate_factor: it.rate_factor(),
            filter: PositionFilter::new(config, tablebase.as_deref()),
            held_games: Vec::new(),
        };
        let mut done = 0;
        let progress = &mut it.progress;
        progress(Stage::SelfPlay, 0, games);
        let started = std::time::Instant::now();
        let report = iteration(
            &mut self.state,
            &self.settings,
            &play,
            &mut controls,
            it.first_game,
            games,
            it.stop,
            || {
                done += 1;
                progress(Stage::SelfPlay, done, games);
            },
        );
        it.held_out = std::mem::take(&mut controls.held_games);
        // Samuel learns during its games: they and the learning count as self-play, the
        // selection matches as learning.
        let selection = report.as_ref().map_or(0.0, |r| r.selection_seconds);
        it.selfplay_seconds += started.elapsed().as_secs_f64() - selection;
        Ok(report.map(|r| IterationReport {
            games: r.games,
            positions: r.positions,
            loss_before: r.loss_before,
            loss: r.loss,
            detail: detail::<G>(&r, &self.state, self.settings.select_against),
        }))
    }

    /// The model's squared error against the targets at every position of the held-out
    /// games it would learn from (either side to move; the target blended and the
    /// positions filtered as in learning).
    fn validation_loss(&self, games: &[DatasetGame<G>], it: &Iteration<'_, G>) -> f64 {
        if let Some(teacher) = &self.teacher {
            // The latest fit's error against the teacher's scores, in its units (the fit
            // is the model unless a selection match kept an earlier one).
            let samples = self.settings.taught_samples(games, &it.position_filter());
            return teacher::residual(&teacher.fit.solution, &samples);
        }
        let controls = SamuelControls {
            held_out: &|_| false,
            search_weight: it.search_weight(1.0),
            rate_factor: 1.0,
            filter: it.position_filter(),
            held_games: Vec::new(),
        };
        let pairs: Vec<(G, i32)> = games
            .iter()
            .flat_map(|g| controls.learning_pairs(g, None, it.config.training.outcome_target()))
            .collect();
        squared_error(self.state.model(), &pairs)
    }

    fn evaluator(&self) -> AnyEvaluator<G> {
        AnyEvaluator::model(linear_evaluator::<G>(self.state.model()))
    }

    fn player(&self) -> (AnyEvaluator<G>, Option<String>) {
        match &self.teacher {
            Some(teacher) => (
                teacher.evaluator.clone(),
                Some(teacher.path.display().to_string()),
            ),
            None => (self.evaluator(), None),
        }
    }

    fn model_header(&self, game: &str) -> ModelHeader {
        ModelHeader::new(game, linear::KIND, G::FEATURE_SET_ID)
    }

    fn save_model(&self, path: &Path, header: &mut ModelHeader) -> Result<(), ModelError> {
        save_model(path, header, self.state.model())
    }

    fn state(&self) -> Vec<u8> {
        match &self.teacher {
            Some(teacher) => to_bytes(&(&self.state, &teacher.fit)),
            None => to_bytes(&self.state),
        }
    }

    fn boxed_clone(&self) -> Box<dyn Learner<G>> {
        Box::new(self.clone())
    }
}
