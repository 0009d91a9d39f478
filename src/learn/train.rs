//! The training loop behind `evalearn train`, the same for every learner and every game.
//! Each iteration: the learner plays its self-play games and learns from them (through
//! the small [`Learner`] trait: the loop knows nothing of which learner it drives) → the
//! model saved atomically as a new revision (a running `evalearn play --model` picks it
//! up) → on schedule, an evaluation match against the game's baseline evaluator
//! (draughts `material`, Kalah `stores`) → one metrics line, the learning curve redrawn,
//! a checkpoint.
//!
//! Every random choice of iteration `i` comes from the run's seed and the numbers of its
//! games, and a checkpoint holds the whole learner state at the end of an iteration. So
//! a run stopped (Ctrl-C) and resumed with `--resume` gives exactly the results of an
//! uninterrupted run: the interrupted iteration is played again from the start, with the
//! same random streams.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::config::{LearnerKind, TrainConfig};
use super::glem::GlemState;
use super::plot::{CurvePoint, learning_curve_svg};
use super::samuel::SamuelState;
use super::td::TdState;
use crate::arena::engine_game::Exploration;
use crate::arena::matches::{MatchConfig, run_match};
use crate::arena::openings::{random_openings, random_openings_up_to, read_openings};
use crate::arena::players::Engine;
use crate::eval::EvalGame;
use crate::eval::spec::AnyEvaluator;
use crate::io::dataset::DatasetGame;
use crate::io::model::{ModelError, ModelHeader, load_model, save_model};
use crate::search::{Limits, Tablebase};
use crate::selfplay::{self, SelfPlayConfig, Shard};

/// Kind of the checkpoint files in the model-file format.
pub const CHECKPOINT_KIND: &str = "checkpoint";
/// Distinct self-play openings a run cycles through at most.
const OPENING_POOL: usize = 4096;
/// Keeps the evaluation openings apart from the self-play ones of the same seed.
const EVALUATION_SEED: u64 = 0x6576_616C;

/// What one learner iteration did.
pub struct IterationReport {
    pub games: u64,
    pub positions: u64,
    /// The learner's loss on this iteration's data with the model from before the update
    /// and after it (see [`MetricsLine`]).
    pub loss_before: f64,
    pub loss: f64,
    /// Learner-specific figures, in words.
    pub detail: String,
}

/// What a learner gets for one iteration: the run's settings, the openings, the number
/// of its first game, and the worker pool for its self-play.
pub struct Iteration<'a, G: EvalGame> {
    pub config: &'a TrainConfig,
    /// Iterations finished before this one.
    pub number: u64,
    pub openings: &'a [G],
    /// Number of the iteration's first game (its random stream and opening follow it).
    pub first_game: u64,
    pub exploration: Option<Exploration>,
    /// Raised (by Ctrl-C) to stop: the iteration then reports `None`.
    pub stop: &'a AtomicBool,
    /// The endgame database the games are played (and may be adjudicated) with.
    pub tablebase: Option<Arc<dyn Tablebase<G>>>,
    /// Called with (stage, units done, units in the stage) as the iteration goes on.
    pub progress: &'a mut dyn FnMut(Stage, u64, u64),
}

impl<G: EvalGame> Iteration<'_, G> {
    /// The iteration's self-play games with `evaluator` on the worker pool, sorted by
    /// number, or `None` if the run was stopped before they were done.
    pub fn self_play(
        &mut self,
        evaluator: &AnyEvaluator<G>,
    ) -> Result<Option<Vec<DatasetGame<G>>>, String> {
        let s = &self.config.selfplay;
        let sp = SelfPlayConfig {
            games: s.games_per_iteration,
            first_game: self.first_game,
            limits: s.limits(),
            seed: self.config.seed,
            exploration: self.exploration,
            ply_cap: s.ply_cap,
            threads: s.threads,
            shard: Shard::WHOLE,
            tt_mib: s.tt_mb,
            adjudicate: s.egdb_adjudicate,
        };
        let mut games = Vec::with_capacity(s.games_per_iteration as usize);
        let progress = &mut self.progress;
        let engine = Engine::new(evaluator.clone(), self.tablebase.clone());
        selfplay::run(&sp, &engine, self.openings, self.stop, |game| {
            games.push(game);
            progress(Stage::SelfPlay, games.len() as u64, s.games_per_iteration);
        })?;
        if (games.len() as u64) < s.games_per_iteration {
            return Ok(None);
        }
        games.sort_by_key(|g| g.index);
        Ok(Some(games))
    }
}

/// A learner as the training loop drives it.
pub trait Learner<G: EvalGame> {
    /// Plays the iteration's games and learns from them; `None` if the run was stopped
    /// (the learner's state must then be discarded).
    fn iterate(&mut self, it: &mut Iteration<'_, G>) -> Result<Option<IterationReport>, String>;
    /// The current model as an evaluator.
    fn evaluator(&self) -> AnyEvaluator<G>;
    /// The header of the model files (evaluator kind and feature set) for game `game`.
    fn model_header(&self, game: &str) -> ModelHeader;
    /// Saves the current model as a new revision of `header`.
    fn save_model(&self, path: &Path, header: &mut ModelHeader) -> Result<(), ModelError>;
}

/// A learner's state between iterations: what checkpoints hold.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub enum LearnerState<G: EvalGame> {
    Samuel(SamuelState),
    Td(TdState),
    Glem(GlemState<G>),
}

impl<G: EvalGame> LearnerState<G> {
    fn new(config: &TrainConfig) -> LearnerState<G> {
        match config.learner {
            LearnerKind::Samuel => LearnerState::Samuel(SamuelState::new::<G>()),
            LearnerKind::Td => LearnerState::Td(TdState::new::<G>(config.td.hidden, config.seed)),
            LearnerKind::Glem => LearnerState::Glem(GlemState::new()),
        }
    }

    /// The learner, to drive.
    pub fn learner_mut(&mut self) -> &mut dyn Learner<G> {
        match self {
            LearnerState::Samuel(s) => s,
            LearnerState::Td(s) => s,
            LearnerState::Glem(s) => s,
        }
    }

    /// The learner, to read its model.
    pub fn learner(&self) -> &dyn Learner<G> {
        match self {
            LearnerState::Samuel(s) => s,
            LearnerState::Td(s) => s,
            LearnerState::Glem(s) => s,
        }
    }
}

/// Everything needed to continue a run: written after every iteration.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Checkpoint<G: EvalGame> {
    pub config_text: String,
    /// Iterations finished.
    pub iteration: u64,
    pub games: u64,
    pub positions: u64,
    /// Training time so far (all sessions), in seconds.
    pub seconds: f64,
    pub model_revision: u64,
    pub learner: LearnerState<G>,
    /// Evaluations so far: (games, Elo, low, high).
    pub curve: Vec<(u64, f64, f64, f64)>,
}

/// One line of `NAME.metrics.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricsLine {
    pub iteration: u64,
    /// Training games so far.
    pub games: u64,
    pub positions: u64,
    /// The learner's loss on this iteration's training data with the model from before
    /// the update (`loss_before`) and after it (`loss`): Samuel, the squared error of the
    /// static values against the search values (units of 100 centi-units, squared); GLEM,
    /// the squared error of its predictions against the blended targets; TD(λ), the
    /// squared error of the predictions at the principal-variation leaves against the
    /// game results.
    pub loss_before: f64,
    pub loss: f64,
    /// The evaluation match of this iteration, if one was played.
    pub eval_games: Option<u64>,
    pub score: Option<f64>,
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    /// Training time so far, in seconds.
    pub elapsed_s: f64,
    /// Learner-specific figures, in words.
    pub detail: String,
}

/// Options of a training run from the command line.
pub struct TrainOptions<'a, G: crate::game::Game> {
    pub resume: bool,
    /// Raised (by Ctrl-C) to stop after saving the last finished iteration.
    pub stop: &'a AtomicBool,
    /// Prints progress lines and bars.
    pub log: &'a mut dyn FnMut(&str),
    /// Called with (stage, units done, units in the stage) as each stage goes on.
    pub progress: &'a mut dyn FnMut(Stage, u64, u64),
    /// Endgame database of the self-play games and evaluation matches.
    pub tablebase: Option<Arc<dyn Tablebase<G>>>,
}

/// The stages of an iteration, for progress bars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Self-play games (Samuel learns during them).
    SelfPlay,
    /// GLEM's gradient-descent epochs.
    Fit,
    /// TD(λ) episodes, one per game.
    Episodes,
    /// Games of the evaluation match against the baseline.
    Evaluation,
}

impl Stage {
    /// What the stage counts, in words.
    pub fn unit(self) -> &'static str {
        match self {
            Stage::SelfPlay => "self-play games",
            Stage::Fit => "fitting epochs",
            Stage::Episodes => "TD(λ) episodes",
            Stage::Evaluation => "evaluation games against the baseline",
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    pub iterations: u64,
    pub games: u64,
    pub positions: u64,
    pub seconds: f64,
    pub interrupted: bool,
    pub last: Option<MetricsLine>,
}

/// Runs (or resumes) a training run of game `G` in `variant` (the config's game).
pub fn train<G: EvalGame>(
    variant: G::Variant,
    config: &TrainConfig,
    config_text: &str,
    options: TrainOptions<G>,
) -> Result<TrainSummary, String> {
    let game = G::variant_name(variant);
    let baseline = G::BUILTINS[0];
    let checkpoint_path = config.beside_model("ckpt");
    let metrics_path = config.beside_model("metrics.jsonl");
    let curve_path = config.beside_model("curve.svg");
    if let Some(dir) = config.model.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut state = if options.resume {
        let checkpoint = read_checkpoint::<G>(&checkpoint_path, &game)?;
        let saved = TrainConfig::parse(&checkpoint.config_text).map_err(|e| {
            format!(
                "checkpoint {}: its config does not parse: {e}",
                checkpoint_path.display()
            )
        })?;
        if !same_training(&saved, config) {
            return Err(format!(
                "checkpoint {} was made with a different configuration; resume with the same \
                 config (only [budget] may change)",
                checkpoint_path.display()
            ));
        }
        (options.log)(&format!(
            "resuming after iteration {} ({} games)",
            checkpoint.iteration, checkpoint.games
        ));
        Checkpoint {
            config_text: config_text.to_string(),
            ..checkpoint
        }
    } else {
        Checkpoint {
            config_text: config_text.to_string(),
            iteration: 0,
            games: 0,
            positions: 0,
            seconds: 0.0,
            model_revision: 0,
            learner: LearnerState::new(config),
            curve: Vec::new(),
        }
    };
    let mut metrics = read_metrics(&metrics_path, state.iteration)?;

    let start = G::start_of(variant);
    let selfplay = &config.selfplay;
    let total_games = selfplay
        .games_per_iteration
        .saturating_mul(config.budget.iterations);
    let openings = match &selfplay.openings {
        Some(path) => read_openings::<G>(variant, path)?,
        None => random_openings_up_to(
            start,
            (total_games as usize).min(OPENING_POOL),
            selfplay.random_plies,
            config.seed,
        ),
    };
    let eval = &config.evaluation;
    let eval_openings = random_openings(
        start,
        (eval.games / 2) as usize,
        eval.random_plies,
        config.seed ^ EVALUATION_SEED,
    )?;
    let exploration = selfplay.temperature.map(|temperature| Exploration {
        temperature,
        plies: selfplay.temperature_plies,
    });

    let session = Instant::now();
    let seconds_before = state.seconds;
    let mut interrupted = false;
    while state.iteration < config.budget.iterations {
        let elapsed = seconds_before + session.elapsed().as_secs_f64();
        if config.budget.minutes.is_some_and(|m| elapsed >= m * 60.0) {
            (options.log)(&format!(
                "time budget of {} minutes used",
                config.budget.minutes.unwrap_or(0.0)
            ));
            break;
        }
        if options.stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let mut learner = state.learner.clone();
        let mut iteration = Iteration {
            config,
            number: state.iteration,
            openings: &openings,
            first_game: state.iteration * selfplay.games_per_iteration,
            exploration,
            stop: options.stop,
            tablebase: options.tablebase.clone(),
            progress: &mut *options.progress,
        };
        let Some(result) = learner.learner_mut().iterate(&mut iteration)? else {
            interrupted = true;
            break;
        };
        state.learner = learner;
        state.iteration += 1;
        state.games += result.games;
        state.positions += result.positions;

        let model = state.learner.learner();
        let mut header = model.model_header(&game);
        header.revision = state.model_revision;
        header.meta.config = config_text.to_string();
        header.meta.seed = config.seed;
        header.meta.games = state.games;
        header.meta.positions = state.positions;
        model
            .save_model(&config.model, &mut header)
            .map_err(|e| e.to_string())?;
        state.model_revision = header.revision;

        let last = state.iteration == config.budget.iterations;
        let scheduled = (eval.every > 0 && state.iteration.is_multiple_of(eval.every)) || last;
        let mut line = MetricsLine {
            iteration: state.iteration,
            games: state.games,
            positions: state.positions,
            loss_before: result.loss_before,
            loss: result.loss,
            eval_games: None,
            score: None,
            elo: None,
            elo_low: None,
            elo_high: None,
            elapsed_s: 0.0,
            detail: result.detail,
        };
        if scheduled {
            let match_config = MatchConfig {
                pairs: eval.games / 2,
                limits_a: Limits::depth(eval.depth),
                limits_b: Limits::depth(eval.depth),
                ply_cap: selfplay.ply_cap,
                threads: selfplay.threads,
                tt_mib: selfplay.tt_mb,
                seed: config.seed ^ EVALUATION_SEED,
                sprt: None,
                clock: None,
            };
            let outcome = run_match(
                &Engine::new(model.evaluator(), options.tablebase.clone()),
                &Engine::new(AnyEvaluator::baseline(), options.tablebase.clone()),
                &eval_openings,
                &match_config,
                |_, tally| {
                    let done = 2 * tally.pentanomial.pairs();
                    (options.progress)(Stage::Evaluation, done, 2 * match_config.pairs)
                },
            )?;
            let e = outcome.tally.estimate();
            line.eval_games = Some(e.games);
            line.score = Some(e.score);
            line.elo = Some(e.elo);
            line.elo_low = Some(e.elo_low);
            line.elo_high = Some(e.elo_high);
            state
                .curve
                .push((state.games, e.elo, e.elo_low, e.elo_high));
            let points: Vec<CurvePoint> = state
                .curve
                .iter()
                .map(|&(games, elo, low, high)| CurvePoint {
                    games,
                    elo,
                    low,
                    high,
                })
                .collect();
            let title = format!(
                "{} learner ({game}): Elo against {baseline} (depth {}, {} games per evaluation)",
                config.learner.name(),
                eval.depth,
                eval.games
            );
            crate::io::write_atomic(&curve_path, learning_curve_svg(&title, &points).as_bytes())
                .map_err(|e| format!("cannot write {}: {e}", curve_path.display()))?;
        }
        state.seconds = seconds_before + session.elapsed().as_secs_f64();
        line.elapsed_s = state.seconds;
        (options.log)(&describe(&line, config.budget.iterations, baseline));
        metrics.push(line);
        write_metrics(&metrics_path, &metrics)?;
        write_checkpoint(&checkpoint_path, &game, &state, config)?;
    }
    Ok(TrainSummary {
        iterations: state.iteration,
        games: state.games,
        positions: state.positions,
        seconds: state.seconds,
        interrupted,
        last: metrics.last().cloned(),
    })
}

/// Two configurations train the same way (only the budget may differ).
fn same_training(a: &TrainConfig, b: &TrainConfig) -> bool {
    // Compare the parsed values through their debug text, budget set aside.
    let strip = |c: &TrainConfig| {
        let mut c = c.clone();
        c.budget = Default::default();
        format!("{c:?}")
    };
    strip(a) == strip(b)
}

/// The iteration's line for the terminal.
fn describe(line: &MetricsLine, iterations: u64, baseline: &str) -> String {
    let mut text = format!(
        "iteration {}/{iterations}: {} games, {} positions, loss {:.5} → {:.5}",
        line.iteration, line.games, line.positions, line.loss_before, line.loss
    );
    if let (Some(score), Some(elo), Some(low), Some(high)) =
        (line.score, line.elo, line.elo_low, line.elo_high)
    {
        text.push_str(&format!(
            ", against {baseline} {:.1}% (Elo {elo:+.0} [{low:+.0}, {high:+.0}])",
            100.0 * score
        ));
    }
    text.push_str(&format!(", {:.0} s; {}", line.elapsed_s, line.detail));
    text
}

fn read_checkpoint<G: EvalGame>(path: &Path, game: &str) -> Result<Checkpoint<G>, String> {
    load_model::<Checkpoint<G>>(path, Some(game), Some(CHECKPOINT_KIND))
        .map(|(_, checkpoint)| checkpoint)
        .map_err(|e| format!("cannot resume: {e}"))
}

fn write_checkpoint<G: EvalGame>(
    path: &Path,
    game: &str,
    state: &Checkpoint<G>,
    config: &TrainConfig,
) -> Result<(), String> {
    let mut header = ModelHeader::new(game, CHECKPOINT_KIND, config.learner.name());
    header.meta.seed = config.seed;
    header.meta.games = state.games;
    header.meta.positions = state.positions;
    header.meta.config = state.config_text.clone();
    save_model(path, &mut header, state).map_err(|e| e.to_string())
}

/// The metrics of iterations up to `iteration` (older sessions of a resumed run).
fn read_metrics(path: &Path, iteration: u64) -> Result<Vec<MetricsLine>, String> {
    if iteration == 0 {
        return Ok(Vec::new());
    }
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let metrics: MetricsLine = serde_json::from_str(line)
            .map_err(|e| format!("{} line {}: {e}", path.display(), n + 1))?;
        if metrics.iteration <= iteration {
            lines.push(metrics);
        }
    }
    Ok(lines)
}

fn write_metrics(path: &Path, lines: &[MetricsLine]) -> Result<(), String> {
    let mut text = String::new();
    for line in lines {
        text.push_str(&serde_json::to_string(line).expect("plain values serialise"));
        text.push('\n');
    }
    crate::io::write_atomic(path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
