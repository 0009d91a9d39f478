//! Samuel's learning by self-play (seed 5.2), on the linear evaluator over a game's named
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
//! **Term replacement** (the seed's footnote, Samuel 1959): the game lists a pool of
//! candidate features larger than the active set. Over the games since the last
//! replacement, each feature's values at A's learning positions are correlated with the
//! result of their game for A (+1 win, 0 draw, −1 loss); every `replace_every` games the
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

use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::arena::engine_game::{Exploration, GameRules, play_engine_game};
use crate::eval::Evaluator;
use crate::eval::linear::{self, Features, Linear, LinearWeights, MAX_FEATURES, feature_count};
use crate::eval::spec::AnyEvaluator;
use crate::game::{Game, Outcome, Side};
use crate::io::dataset::DatasetGame;
use crate::io::model::{ModelError, ModelHeader, save_model};
use crate::rng;
use crate::search::{Limits, MAX_PLY, SearchConfig, Searcher, Tablebase, WIN_THRESHOLD};

use super::config::{ConfigError, TrainConfig, TrainingSettings, fail, positive, read_section};
use super::controls::{PositionFilter, held_out};
use super::iteration::{Iteration, Stage};
use super::learner::{IterationReport, Learner, LearnerKind, LearnerSection, TrainGame};
use crate::io::model::{from_bytes, to_bytes};

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

impl SamuelSettings {
    fn validate(&self) -> Result<(), ConfigError> {
        positive("samuel.learning_rate", self.learning_rate)?;
        positive("samuel.error_clip", self.error_clip)?;
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
        let settings = config.section("samuel").map_err(|e| e.to_string())?;
        Ok(Box::new(SamuelLearner::<G>::new(
            SamuelState::new::<G>(),
            settings,
        )))
    }

    fn resume(&self, config: &TrainConfig, state: &[u8]) -> Result<Box<dyn Learner<G>>, String> {
        let settings = config.section("samuel").map_err(|e| e.to_string())?;
        let state: SamuelState = from_bytes(state)?;
        state.a.validate::<G>()?;
        Ok(Box::new(SamuelLearner::<G>::new(state, settings)))
    }

    /// Player A updates after each of its moves against a frozen B: its games are its
    /// own.
    fn learns_from_recorded_games(&self) -> bool {
        false
    }
}

/// Samuel's learner of a run: its state and its settings.
pub struct SamuelLearner<G> {
    state: SamuelState,
    settings: SamuelSettings,
    game: PhantomData<fn() -> G>,
}

impl<G> Clone for SamuelLearner<G> {
    fn clone(&self) -> Self {
        SamuelLearner::new(self.state.clone(), self.settings.clone())
    }
}

impl<G> SamuelLearner<G> {
    fn new(state: SamuelState, settings: SamuelSettings) -> SamuelLearner<G> {
        SamuelLearner {
            state,
            settings,
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

/// What one iteration did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SamuelReport {
    pub games: u64,
    pub positions: u64,
    /// Mean squared error (in units², a unit being 100 centi-units) of A's static values
    /// against its search values over the positions A learned from in this iteration,
    /// with A's weights from before the iteration and from after it.
    pub loss_before: f64,
    pub loss: f64,
    pub updates: u64,
    pub a_wins: u64,
    pub draws: u64,
    pub b_wins: u64,
    /// Times B took A's weights.
    pub copies: u64,
    /// Times A's largest weight was set to zero.
    pub zeroings: u64,
    /// Term replacements as (removed, added) feature indices.
    pub replaced: Vec<(usize, usize)>,
    /// Selection-match scores of A in this iteration.
    pub selections: Vec<f64>,
}

/// The step size after `games` games.
pub fn step_size(settings: &SamuelSettings, games: u64) -> f64 {
    if settings.step_decay_games > 0.0 {
        settings.learning_rate / (1.0 + games as f64 / settings.step_decay_games)
    } else {
        settings.learning_rate
    }
}

/// The pool's features of `pos` into `out`, or `false` if the position is not learned
/// from (a capture pending, or a decided `target`).
pub fn learning_features<G: Features>(pos: &G, target: i32, out: &mut [i32]) -> bool {
    if !pos.is_quiet() || target.abs() >= WIN_THRESHOLD {
        return false;
    }
    pos.features(&mut out[..feature_count::<G>()]);
    true
}

/// One normalised-LMS step of `weights`' active features with step `rate` towards
/// `target` at a position with (pool) features `f` and anchor `anchor`; returns the error
/// (centi-units, before clipping).
pub fn update(
    weights: &mut LinearWeights,
    anchor: i32,
    f: &[i32],
    target: i32,
    rate: f64,
    error_clip: f64,
) -> f64 {
    let (mut positional, mut norm) = (0.0, 1.0);
    for &i in &weights.active {
        let x = f[usize::from(i)] as f64;
        positional += weights.weights[usize::from(i)] as f64 * x;
        norm += x * x;
    }
    let error = target as f64 - (anchor as f64 + positional);
    let delta = error.clamp(-error_clip, error_clip);
    for &i in &weights.active {
        let i = usize::from(i);
        weights.weights[i] += (rate * delta * f[i] as f64 / norm) as f32;
    }
    error
}

/// Sets the largest weight (in absolute value) to zero.
pub fn zero_largest(weights: &mut LinearWeights) {
    let largest = weights
        .weights
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        .map(|(i, _)| i);
    if let Some(i) = largest {
        weights.weights[i] = 0.0;
    }
}

/// After a game: copy on A's win, count losses, zero A's largest weight after a streak.
/// Returns (copied, zeroed).
pub fn after_game(
    state: &mut SamuelState,
    a_result: Outcome,
    a_side: Side,
    settings: &SamuelSettings,
) -> (bool, bool) {
    match a_result {
        Outcome::Win(side) if side == a_side => {
            state.b = state.a.clone();
            state.loss_streak = 0;
            (true, false)
        }
        Outcome::Win(_) => {
            state.loss_streak += 1;
            if state.loss_streak >= settings.loss_streak {
                zero_largest(&mut state.a);
                state.loss_streak = 0;
                (false, true)
            } else {
                (false, false)
            }
        }
        Outcome::Draw => {
            state.loss_streak = 0;
            (false, false)
        }
    }
}

/// Samuel's term replacement after `games` games: the active feature least correlated
/// with winning (|r| over the games since the last replacement; the lowest index among
/// equals) makes way for the reserve's head, and the correlations restart. Returns
/// (removed, added), or `None` without data or reserve.
pub fn replace_least_useful(state: &mut SamuelState, games: u64) -> Option<(usize, usize)> {
    if state.usefulness.iter().all(|c| c.n == 0.0) {
        return None;
    }
    let (removed, measure) = state
        .a
        .active
        .iter()
        .map(|&i| {
            (
                usize::from(i),
                state.usefulness[usize::from(i)].value().abs(),
            )
        })
        .min_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)))?;
    let added = state.a.replace(removed, games, measure as f32)?;
    state.usefulness.fill(Correlation::default());
    Some((removed, added))
}

/// Self-play settings of a Samuel iteration.
pub struct SamuelPlay<'a, G> {
    pub limits: Limits,
    pub exploration: Option<Exploration>,
    pub ply_cap: u32,
    pub tt_mib: usize,
    pub openings: &'a [G],
    pub seed: u64,
    /// Endgame database of both players' searches.
    pub tablebase: Option<Arc<dyn Tablebase<G>>>,
    /// End each game on entering the database, with its result.
    pub adjudicate: bool,
}

impl<G: Features> SamuelPlay<'_, G> {
    fn searcher(&self, weights: &LinearWeights) -> Searcher<G, Linear<G>> {
        Searcher::new(linear(weights), SearchConfig::FULL, self.tt_mib)
            .with_tablebase(self.tablebase.clone())
    }

    fn rules(&self) -> GameRules<'_, G> {
        GameRules {
            ply_cap: self.ply_cap,
            exploration: self.exploration,
            adjudicator: self.tablebase.as_deref().filter(|_| self.adjudicate),
        }
    }
}

fn linear<G: Features>(weights: &LinearWeights) -> Linear<G> {
    Linear::new(weights).expect("learner weights fit the feature set")
}

/// A's score for `a_result` with A on `a_side`: 1 a win, ½ a draw, 0 a loss.
fn score(a_result: Outcome, a_side: Side) -> f64 {
    match a_result {
        Outcome::Win(side) if side == a_side => 1.0,
        Outcome::Win(_) => 0.0,
        Outcome::Draw => 0.5,
    }
}

/// The selection match: `weights` against `opponent`, `select_games` games at
/// `select_depth` from the first `select_games / 2` openings, each with both colours, no
/// exploration. Returns the weights' score (0..=1).
pub fn selection_score<G: Features>(
    weights: &LinearWeights,
    opponent: &LinearWeights,
    settings: &SamuelSettings,
    play: &SamuelPlay<G>,
) -> f64 {
    let limits = Limits::depth(settings.select_depth);
    let rules = || GameRules {
        exploration: None,
        ..play.rules()
    };
    let mut total = 0.0;
    for index in 0..settings.select_games {
        // Fresh searchers each game: the score depends on the weights alone.
        let mut candidate = play.searcher(weights);
        let mut other = play.searcher(opponent);
        let a_side = if index.is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        };
        let opening = play.openings[((index / 2) % play.openings.len() as u64) as usize];
        let mut rng = rng::stream(play.seed ^ SELECTION_STREAM, index);
        let game = play_engine_game(index, opening, rules(), &mut rng, |record, _| {
            if record.position().side_to_move() == a_side {
                candidate.search(record, &limits, |_| {})
            } else {
                other.search(record, &limits, |_| {})
            }
        });
        total += score(game.outcome, a_side);
    }
    total / settings.select_games.max(1) as f64
}

/// The selection after `played` games: A's weights play their match (against the anchor
/// or the model, as `select_against` says) and become the model if they win it. Returns
/// their score, or `None` for the first weights taken unopposed.
pub fn select<G: Features>(
    state: &mut SamuelState,
    settings: &SamuelSettings,
    play: &SamuelPlay<G>,
    played: u64,
) -> Option<f64> {
    let candidate = &state.a;
    let (score, kept) = match (settings.select_against, &state.best) {
        (SelectAgainst::Anchor, best) => {
            let score = selection_score(candidate, &LinearWeights::zero::<G>(), settings, play);
            (Some(score), best.as_ref().is_none_or(|b| score > b.score))
        }
        (SelectAgainst::Model, None) => (None, true),
        (SelectAgainst::Model, Some(best)) => {
            let score = selection_score(candidate, &best.weights, settings, play);
            (Some(score), score > 0.5 + settings.select_margin)
        }
    };
    if kept {
        state.best = Some(Box::new(Selected {
            weights: state.a.clone(),
            score: score.unwrap_or(0.5),
            game: played,
        }));
    }
    score
}

/// Keeps the selection matches' random streams apart from the self-play games'.
const SELECTION_STREAM: u64 = 0x5E1E_C7ED_5A4E_1959;

/// Per-game sums of the pool's features at A's learning positions, for the correlations.
struct GameSums {
    count: f64,
    x: [f64; MAX_FEATURES],
    xx: [f64; MAX_FEATURES],
}

impl GameSums {
    fn new() -> GameSums {
        GameSums {
            count: 0.0,
            x: [0.0; MAX_FEATURES],
            xx: [0.0; MAX_FEATURES],
        }
    }

    fn add(&mut self, f: &[i32]) {
        self.count += 1.0;
        for (i, &v) in f.iter().enumerate() {
            self.x[i] += v as f64;
            self.xx[i] += (v as f64) * (v as f64);
        }
    }

    /// Adds the game to the correlations with A's result `y`, then clears.
    fn finish(&mut self, usefulness: &mut [Correlation], y: f64) {
        for (i, c) in usefulness.iter_mut().enumerate() {
            c.add_game(self.count, self.x[i], self.xx[i], y);
        }
        *self = GameSums::new();
    }
}

/// The value of a won game in Samuel's targets when they blend in the result (`[training]
/// search_weight` below 1): three men (stones), the lost game its negative, a draw 0.
pub const RESULT_VALUE: f64 = 300.0;

/// The `[training]` controls of a Samuel iteration.
pub struct SamuelControls<'a, G: Game> {
    /// Whether a game (by number) is held out: played without learning, and kept.
    pub held_out: &'a dyn Fn(u64) -> bool,
    /// Weight of the search value in the targets, the rest the game result.
    pub search_weight: f64,
    /// Factor of `learning_rate` (the schedule).
    pub rate_factor: f64,
    pub filter: PositionFilter<'a, G>,
    /// The held-out games played.
    pub held_games: Vec<DatasetGame<G>>,
}

impl<G: Game> SamuelControls<'_, G> {
    /// No game held out, search values as targets, every position learned from.
    pub fn plain() -> SamuelControls<'static, G> {
        SamuelControls {
            held_out: &|_| false,
            search_weight: 1.0,
            rate_factor: 1.0,
            filter: PositionFilter::none(),
            held_games: Vec::new(),
        }
    }

    /// Whether A learns during its games, after each move (Samuel's rule); otherwise at
    /// the end of each game, in order, from its record: blending in the result or
    /// sampling the game's positions needs the whole game.
    fn online(&self) -> bool {
        self.search_weight == 1.0 && self.filter.max_per_game == 0
    }

    /// The target at a position whose search value is `score` for the side to move, which
    /// scored `result` (1, ½, 0) in the game: `w·score + (1 − w)·(2·result − 1)·`
    /// [`RESULT_VALUE`], rounded.
    fn target(&self, score: i32, result: f64) -> i32 {
        let w = self.search_weight;
        if w == 1.0 {
            return score;
        }
        (w * score as f64 + (1.0 - w) * (2.0 * result - 1.0) * RESULT_VALUE).round() as i32
    }

    /// The (position, target) pairs learned from in `game`: the positions (of `side`
    /// alone, if given) with a search value that [`learning_features`] and the filter
    /// keep, in order.
    fn learning_pairs(&self, game: &DatasetGame<G>, side: Option<Side>) -> Vec<(G, i32)>
    where
        G: Features,
    {
        let mut f = [0; MAX_FEATURES];
        let candidates = (0..game.scores.len()).filter(|&i| {
            let pos = &game.positions[i];
            side.is_none_or(|s| pos.side_to_move() == s)
                && learning_features(pos, game.scores[i], &mut f)
        });
        (self.filter.select(game, candidates).into_iter())
            .map(|i| {
                let pos = game.positions[i];
                let result = game.outcome.score_for(pos.side_to_move());
                (pos, self.target(game.scores[i], result))
            })
            .collect()
    }
}

/// Plays `games` games numbered from `first_game` (their random streams and openings
/// follow the number), learning as it goes, but not in held-out games (`controls`).
/// Returns `None` if `stop` was raised: the iteration is then incomplete and `state`
/// must be discarded.
#[allow(clippy::too_many_arguments)]
pub fn iteration<G: Features>(
    state: &mut SamuelState,
    settings: &SamuelSettings,
    play: &SamuelPlay<G>,
    controls: &mut SamuelControls<'_, G>,
    first_game: u64,
    games: u64,
    stop: &AtomicBool,
    mut on_game: impl FnMut(),
) -> Option<SamuelReport> {
    let mut searcher_a = play.searcher(&state.a);
    let mut searcher_b = play.searcher(&state.b);
    let mut report = SamuelReport::default();
    let start = state.a.clone();
    let mut learned: Vec<(G, i32)> = Vec::new();
    let mut sums = GameSums::new();
    let count = feature_count::<G>();
    for index in first_game..first_game + games {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let a_side = if index.is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        };
        let rate = step_size(settings, index) * controls.rate_factor;
        let held = (controls.held_out)(index);
        let online = controls.online() && !held;
        let opening = play.openings[(index % play.openings.len() as u64) as usize];
        let mut rng = rng::stream(play.seed, index);
        let game = play_engine_game(index, opening, play.rules(), &mut rng, |record, exact| {
            let limits = Limits {
                exact_root_values: exact,
                ..play.limits.clone()
            };
            let pos = *record.position();
            if pos.side_to_move() != a_side {
                return searcher_b.search(record, &limits, |_| {});
            }
            let result = searcher_a.search(record, &limits, |_| {});
            let mut f = [0; MAX_FEATURES];
            if online
                && learning_features(&pos, result.score, &mut f)
                && controls.filter.admits(&pos)
            {
                let f = &f[..count];
                sums.add(f);
                update(
                    &mut state.a,
                    pos.anchor(),
                    f,
                    result.score,
                    rate,
                    settings.error_clip,
                );
                learned.push((pos, result.score));
                report.updates += 1;
                *searcher_a.evaluator_mut() = linear(&state.a);
            }
            result
        });
        // Raised during the game, the flag cut its searches short: it is not learned from.
        if stop.load(Ordering::SeqCst) {
            return None;
        }
        if held {
            controls.held_games.push(game);
            on_game();
            continue;
        }
        if !controls.online() {
            for (pos, target) in controls.learning_pairs(&game, Some(a_side)) {
                let mut f = [0; MAX_FEATURES];
                learning_features(&pos, target, &mut f);
                let f = &f[..count];
                sums.add(f);
                update(
                    &mut state.a,
                    pos.anchor(),
                    f,
                    target,
                    rate,
                    settings.error_clip,
                );
                learned.push((pos, target));
                report.updates += 1;
            }
            *searcher_a.evaluator_mut() = linear(&state.a);
        }
        report.games += 1;
        report.positions += controls
            .filter
            .admitted_positions(std::slice::from_ref(&game));
        match game.outcome {
            Outcome::Win(side) if side == a_side => report.a_wins += 1,
            Outcome::Win(_) => report.b_wins += 1,
            Outcome::Draw => report.draws += 1,
        }
        sums.finish(
            &mut state.usefulness,
            2.0 * score(game.outcome, a_side) - 1.0,
        );
        let (copied, zeroed) = after_game(state, game.outcome, a_side, settings);
        report.copies += u64::from(copied);
        report.zeroings += u64::from(zeroed);
        if copied {
            *searcher_b.evaluator_mut() = linear(&state.b);
        }
        let played = index + 1;
        let due = |every: u64| every > 0 && played.is_multiple_of(every);
        if due(settings.replace_every)
            && let Some(swap) = replace_least_useful(state, played)
        {
            report.replaced.push(swap);
        }
        if zeroed || due(settings.replace_every) {
            *searcher_a.evaluator_mut() = linear(&state.a);
        }
        if due(settings.select_every)
            && let Some(score) = select(state, settings, play, played)
        {
            report.selections.push(score);
        }
        on_game();
    }
    if stop.load(Ordering::SeqCst) {
        return None;
    }
    report.loss_before = squared_error(&start, &learned);
    report.loss = squared_error(&state.a, &learned);
    Some(report)
}

/// Mean squared error, in units² (100 centi-units a unit), of the static values of
/// `weights` against the targets.
fn squared_error<G: Features>(weights: &LinearWeights, pairs: &[(G, i32)]) -> f64 {
    let linear = linear::<G>(weights);
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
    if !r.selections.is_empty() {
        let scores: Vec<String> = r
            .selections
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

impl<G: TrainGame + Features> Learner<G> for SamuelLearner<G> {
    fn iterate(&mut self, it: &mut Iteration<'_, G>) -> Result<Option<IterationReport>, String> {
        let s = &it.config.selfplay;
        let play = SamuelPlay {
            // Ctrl-C stops the search in progress, not only the next game.
            limits: Limits {
                stop: Some(Arc::clone(it.stop)),
                ..s.limits()
            },
            exploration: it.exploration,
            ply_cap: s.ply_cap,
            tt_mib: s.tt_mb,
            openings: it.openings,
            seed: it.config.seed,
            tablebase: it.tablebase.clone(),
            adjudicate: s.egdb_adjudicate,
        };
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
        let controls = SamuelControls {
            held_out: &|_| false,
            search_weight: it.search_weight(1.0),
            rate_factor: 1.0,
            filter: it.position_filter(),
            held_games: Vec::new(),
        };
        let pairs: Vec<(G, i32)> = games
            .iter()
            .flat_map(|g| controls.learning_pairs(g, None))
            .collect();
        squared_error(self.state.model(), &pairs)
    }

    fn evaluator(&self) -> AnyEvaluator<G> {
        AnyEvaluator::model(linear::<G>(self.state.model()))
    }

    fn model_header(&self, game: &str) -> ModelHeader {
        ModelHeader::new(game, linear::KIND, G::FEATURE_SET_ID)
    }

    fn save_model(&self, path: &Path, header: &mut ModelHeader) -> Result<(), ModelError> {
        save_model(path, header, self.state.model())
    }

    fn state(&self) -> Vec<u8> {
        to_bytes(&self.state)
    }

    fn boxed_clone(&self) -> Box<dyn Learner<G>> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::game::brazilian::Brazilian;
    use crate::game::kalah::Kalah;

    fn settings() -> SamuelSettings {
        SamuelSettings::default()
    }

    #[test]
    fn copy_on_win_and_zero_after_three_losses() {
        let mut state = SamuelState::new::<Brazilian>();
        state.a.weights[3] = 5.0;
        state.a.weights[7] = -9.0;
        // A wins with White: B takes A's weights.
        let (copied, zeroed) = after_game(
            &mut state,
            Outcome::Win(Side::First),
            Side::First,
            &settings(),
        );
        assert!(copied && !zeroed);
        assert_eq!(state.b, state.a);
        // Two losses, a draw (the streak breaks), then three losses: the largest weight
        // (|−9|) goes to zero at the third.
        for outcome in [
            Outcome::Win(Side::Second),
            Outcome::Win(Side::Second),
            Outcome::Draw,
        ] {
            assert_eq!(
                after_game(&mut state, outcome, Side::First, &settings()),
                (false, false)
            );
        }
        assert_eq!(state.a.weights[7], -9.0);
        for _ in 0..2 {
            assert_eq!(
                after_game(
                    &mut state,
                    Outcome::Win(Side::First),
                    Side::Second,
                    &settings()
                ),
                (false, false)
            );
        }
        let (copied, zeroed) = after_game(
            &mut state,
            Outcome::Win(Side::First),
            Side::Second,
            &settings(),
        );
        assert!(!copied && zeroed);
        assert_eq!(state.a.weights[7], 0.0);
        assert_eq!(state.a.weights[3], 5.0);
        assert_eq!(state.loss_streak, 0);
        // B was not touched by the losses.
        assert_eq!(state.b.weights[7], -9.0);
    }

    /// The pool features of a learnable position.
    fn pool_features(pos: &Brazilian, target: i32) -> Option<[i32; MAX_FEATURES]> {
        let mut f = [0; MAX_FEATURES];
        learning_features(pos, target, &mut f).then_some(f)
    }

    #[test]
    fn the_update_moves_the_static_value_towards_the_search_value() {
        // Men far apart: no capture pending, and the features are not all zero.
        let pos = Brazilian::parse_position("W:W17,21,22,23:B1,2,3").unwrap();
        assert!(pos.is_quiet());
        let mut weights = LinearWeights::zero::<Brazilian>();
        let before = Linear::<Brazilian>::new(&weights).unwrap().evaluate(&pos);
        let target = before + 150;
        let f = pool_features(&pos, target).unwrap();
        let s = settings();
        let error = update(&mut weights, pos.anchor(), &f, target, 0.005, s.error_clip);
        assert_eq!(error, 150.0);
        let after = Linear::<Brazilian>::new(&weights).unwrap().evaluate(&pos);
        assert!(
            after > before && after < target,
            "{before} → {after} (target {target})"
        );
        // Only active features learn.
        for &i in &weights.reserve {
            assert_eq!(weights.weights[usize::from(i)], 0.0);
        }
        // Decided values and positions with a capture pending are not learned from.
        assert!(pool_features(&pos, WIN_THRESHOLD).is_none());
        let capture = Brazilian::parse_position("W:W22:B18").unwrap();
        assert!(pool_features(&capture, 0).is_none());
    }

    #[test]
    fn the_step_decays_with_the_games_played() {
        let mut s = settings();
        s.learning_rate = 0.01;
        s.step_decay_games = 1000.0;
        assert_eq!(step_size(&s, 0), 0.01);
        assert_eq!(step_size(&s, 1000), 0.005);
        assert!((step_size(&s, 3000) - 0.0025).abs() < 1e-12);
        s.step_decay_games = 0.0;
        assert_eq!(step_size(&s, 5000), 0.01);
    }

    #[test]
    fn correlation_of_hand_made_games() {
        // Feature 2 in two won games, 0 in two lost ones (2 positions each): r = 1.
        let mut c = Correlation::default();
        c.add_game(2.0, 4.0, 8.0, 1.0);
        c.add_game(2.0, 4.0, 8.0, 1.0);
        c.add_game(2.0, 0.0, 0.0, -1.0);
        c.add_game(2.0, 0.0, 0.0, -1.0);
        assert!((c.value() - 1.0).abs() < 1e-12);
        // Values 1 and 3 in a win, 1 and 3 in a loss: no relation, r = 0.
        let mut c = Correlation::default();
        c.add_game(2.0, 4.0, 10.0, 1.0);
        c.add_game(2.0, 4.0, 10.0, -1.0);
        assert_eq!(c.value(), 0.0);
        // A constant feature has no variance: 0, not NaN.
        let mut c = Correlation::default();
        c.add_game(3.0, 3.0, 3.0, 1.0);
        c.add_game(1.0, 1.0, 1.0, -1.0);
        assert_eq!(c.value(), 0.0);
    }

    #[test]
    fn the_least_correlated_active_feature_makes_way_for_the_reserve_head() {
        let mut state = SamuelState::new::<Brazilian>();
        assert_eq!(replace_least_useful(&mut state, 100), None, "no data yet");
        let n = feature_count::<Brazilian>();
        // Every feature perfectly correlated except active feature 5 (value 1 in both a
        // win and a loss: r = 0); it carries a weight, which is cleared.
        for i in 0..n {
            let (win, loss) = if i == 5 { (1.0, 1.0) } else { (1.0, 0.0) };
            state.usefulness[i].add_game(1.0, win, win, 1.0);
            state.usefulness[i].add_game(1.0, loss, loss, -1.0);
        }
        state.a.weights[5] = 7.0;
        let head = usize::from(state.a.reserve[0]);
        assert_eq!(replace_least_useful(&mut state, 100), Some((5, head)));
        assert!(state.a.is_active(head) && !state.a.is_active(5));
        assert_eq!(usize::from(*state.a.reserve.last().unwrap()), 5);
        assert_eq!(state.a.weights[5], 0.0);
        assert_eq!(state.a.active.len(), Brazilian::ACTIVE);
        let r = state.a.replaced[0];
        assert_eq!((r.game, r.removed, usize::from(r.added)), (100, 5, head));
        state.a.validate::<Brazilian>().unwrap();
        // The correlations restart.
        assert!(
            state
                .usefulness
                .iter()
                .all(|c| *c == Correlation::default())
        );
    }

    #[test]
    fn the_model_is_the_best_selected_weights() {
        let openings = [Brazilian::start()];
        let play = SamuelPlay {
            limits: Limits::depth(1),
            exploration: None,
            ply_cap: 40,
            tt_mib: 1,
            openings: &openings,
            seed: 3,
            tablebase: None,
            adjudicate: false,
        };
        let mut s = settings();
        s.replace_every = 2;
        s.select_every = 2;
        s.select_games = 2;
        s.select_depth = 3;
        let mut state = SamuelState::new::<Brazilian>();
        let stop = AtomicBool::new(false);
        let mut controls = SamuelControls::plain();
        let report = iteration(&mut state, &s, &play, &mut controls, 0, 6, &stop, || {}).unwrap();
        assert_eq!(report.selections.len(), 3);
        assert_eq!(report.replaced.len(), 3);
        let best = state.best.as_ref().unwrap();
        let top = report.selections.iter().cloned().fold(f64::MIN, f64::max);
        assert_eq!(best.score, top);
        // The first selection reaching the top is kept.
        let first = report.selections.iter().position(|&x| x == top).unwrap();
        assert_eq!(best.game, 2 * (first as u64 + 1));
        assert_eq!(state.model(), &best.weights);
        // The match depends on the weights alone.
        let zero = LinearWeights::zero::<Brazilian>();
        assert_eq!(selection_score(&best.weights, &zero, &s, &play), best.score);
    }

    fn kalah_play(openings: &[Kalah]) -> SamuelPlay<'_, Kalah> {
        SamuelPlay {
            limits: Limits::depth(2),
            exploration: None,
            ply_cap: 200,
            tt_mib: 1,
            openings,
            seed: 5,
            tablebase: None,
            adjudicate: false,
        }
    }

    #[test]
    fn head_to_head_the_model_is_replaced_only_by_a_winner_by_the_margin() {
        let openings = [Kalah::start()];
        let play = kalah_play(&openings);
        let mut s = settings();
        s.select_against = SelectAgainst::Model;
        s.select_games = 2;
        s.select_depth = 3;
        // The first candidate is taken unopposed.
        let mut state = SamuelState::new::<Kalah>();
        assert_eq!(select(&mut state, &s, &play, 10), None);
        let first = state.best.clone().unwrap();
        assert_eq!((first.game, first.score), (10, 0.5));
        assert_eq!(first.weights, state.a);
        // The same weights again: the paired match is a tie, which keeps the model.
        assert_eq!(select(&mut state, &s, &play, 20), Some(0.5));
        assert_eq!(state.best.as_ref().unwrap().game, 10);
        // A model that gives stones away loses to the store difference alone: the
        // candidate replaces it when it scores above ½ + margin, not otherwise.
        let mut bad = LinearWeights::zero::<Kalah>();
        let given_away = Kalah::FEATURE_NAMES
            .iter()
            .position(|&n| n == "given_away")
            .unwrap();
        let out = bad.active[0];
        bad.active[0] = given_away as u16;
        bad.reserve.retain(|&r| usize::from(r) != given_away);
        bad.reserve.push(out);
        bad.weights[given_away] = 5000.0;
        bad.validate::<Kalah>().unwrap();
        let zero = LinearWeights::zero::<Kalah>();
        let won = selection_score(&zero, &bad, &s, &play);
        assert!(won > 0.5, "{won}");
        for (margin, replaced) in [(won - 0.5, false), ((won - 0.5) / 2.0, true)] {
            s.select_margin = margin;
            let mut state = SamuelState::new::<Kalah>();
            state.best = Some(Box::new(Selected {
                weights: bad.clone(),
                score: 0.5,
                game: 0,
            }));
            assert_eq!(select(&mut state, &s, &play, 30), Some(won));
            let best = state.best.as_ref().unwrap();
            assert_eq!(best.weights == zero, replaced, "margin {margin}");
            assert_eq!(best.game, if replaced { 30 } else { 0 });
            assert_eq!(state.model(), &best.weights);
        }
    }
}
