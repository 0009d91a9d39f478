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
//!
//! The same determinism splits a run across machines: `selfplay --config` plays a shard
//! of the next iteration's games exactly as the loop would ([`plan_shard`]), and
//! `train --from-dataset` hands the merged shards to the learner in place of playing
//! ([`GameSource::Recorded`]), so the model equals the one-process run's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::config::{LearnerKind, SelfPlaySettings, TrainConfig};
use super::controls::{PositionFilter, held_out};
use super::glem::GlemState;
use super::plot::{CurvePoint, learning_curve_svg};
use super::samuel::SamuelState;
use super::td::TdState;
use crate::accuracy::heldout::{self, HeldOut, HeldOutFigures, HeldOutGame};
use crate::arena::engine_game::Exploration;
use crate::arena::interrupt::Interruptible;
use crate::arena::matches::{MatchConfig, run_match};
use crate::arena::openings::{random_openings, random_openings_up_to, read_openings};
use crate::arena::players::Engine;
use crate::arena::stats::Estimate;
use crate::eval::EvalGame;
use crate::eval::spec::AnyEvaluator;
use crate::game::Game;
use crate::io::dataset::{DatasetGame, GameFrame};
use crate::io::model::{ModelError, ModelHeader, load_model, save_model};
use crate::search::{Limits, Tablebase};
use crate::selfplay::{self, SelfPlayConfig, Shard};

/// Kind of the checkpoint files in the model-file format.
pub const CHECKPOINT_KIND: &str = "checkpoint";
/// Distinct self-play openings a run cycles through at most.
const OPENING_POOL: usize = 4096;
/// Keeps the evaluation openings apart from the self-play ones of the same seed.
const EVALUATION_SEED: u64 = 0x6576_616C;
/// Keeps the held-out accuracy sample apart from the games of the same seed.
pub const HELD_OUT_SEED: u64 = 0x6865_6C64;
/// The depth whose held-out optimal-move rate the learning curve shows.
const CURVE_HELD_OUT_DEPTH: u32 = heldout::DEPTHS[1];

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
/// of its first game, where its games come from, and the worker pool for its self-play.
pub struct Iteration<'a, G: EvalGame> {
    pub config: &'a TrainConfig,
    /// Iterations finished before this one.
    pub number: u64,
    pub openings: &'a [G],
    /// Number of the iteration's first game (its random stream and opening follow it).
    pub first_game: u64,
    pub exploration: Option<Exploration>,
    /// Where [`Iteration::self_play`] gets the games.
    pub games: GameSource<G>,
    /// Raised (by Ctrl-C) to stop: the iteration then reports `None` within moments.
    pub stop: &'a Arc<AtomicBool>,
    /// The endgame database the games are played (and may be adjudicated) with.
    pub tablebase: Option<Arc<dyn Tablebase<G>>>,
    /// Called with (stage, units done, units in the stage) as the iteration goes on.
    pub progress: &'a mut dyn FnMut(Stage, u64, u64),
    /// The iteration's games held out for validation (`[training] validation`), which
    /// the learner must not learn from: [`Iteration::self_play`] puts them here, Samuel
    /// its own.
    pub held_out: Vec<DatasetGame<G>>,
}

/// Where an iteration's self-play games come from.
pub enum GameSource<G: Game> {
    /// Played now, on this machine's worker pool.
    Play,
    /// Played beforehand, sorted by number: the iteration's shards, played by
    /// `selfplay --config` with the same model, openings and random streams.
    Recorded(Vec<DatasetGame<G>>),
}

impl<G: EvalGame> Iteration<'_, G> {
    /// The iteration's self-play games with `evaluator` to learn from, sorted by number:
    /// played on the worker pool, or the recorded ones, less those held out for
    /// validation (moved to [`Iteration::held_out`]). `None` if the run was stopped
    /// before they were done.
    pub fn self_play(
        &mut self,
        evaluator: &AnyEvaluator<G>,
    ) -> Result<Option<Vec<DatasetGame<G>>>, String> {
        let Some(games) = self.all_games(evaluator)? else {
            return Ok(None);
        };
        let (held, learned): (Vec<_>, Vec<_>) =
            games.into_iter().partition(|g| self.is_held_out(g.index));
        self.held_out = held;
        Ok(Some(learned))
    }

    /// Whether game `index` is held out for validation.
    pub fn is_held_out(&self, index: u64) -> bool {
        held_out(self.config.seed, index, self.config.training.validation)
    }

    /// The factor of the learner's base rate in this iteration (`[training] lr_*`).
    pub fn rate_factor(&self) -> f64 {
        (self.config.training).rate_factor(self.number, self.config.budget.iterations)
    }

    /// The weight of the search score in this iteration's targets, `default` the
    /// learner's own when `[training] search_weight` is absent.
    pub fn search_weight(&self, default: f64) -> f64 {
        (self.config.training).search_weight_at(default, self.number, self.config.budget.iterations)
    }

    /// Which positions are learned from (`[training]` filters).
    pub fn position_filter(&self) -> PositionFilter<'_, G> {
        PositionFilter::new(self.config, self.tablebase.as_deref())
    }

    fn all_games(
        &mut self,
        evaluator: &AnyEvaluator<G>,
    ) -> Result<Option<Vec<DatasetGame<G>>>, String> {
        if let GameSource::Recorded(games) = &mut self.games {
            return Ok(Some(std::mem::take(games)));
        }
        let sp = selfplay_config(self.config, self.first_game, Shard::WHOLE);
        let mut games = Vec::with_capacity(sp.games as usize);
        let progress = &mut self.progress;
        let engine = Engine::new(evaluator.clone(), self.tablebase.clone());
        progress(Stage::SelfPlay, 0, sp.games);
        selfplay::run(&sp, &engine, self.openings, self.stop, |game| {
            games.push(game);
            progress(Stage::SelfPlay, games.len() as u64, sp.games);
        })?;
        if (games.len() as u64) < sp.games {
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
    /// The current model's loss on held-out `games`, measured as the learner's training
    /// loss is (the same targets and position filters, those of iteration `it`).
    fn validation_loss(&self, games: &[DatasetGame<G>], it: &Iteration<'_, G>) -> f64;
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
            LearnerKind::Td => LearnerState::Td(TdState::new::<G>(
                config.td.hidden,
                config.td.phases,
                config.seed,
            )),
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
    /// Held-out accuracy so far: (games, optimal-move rate at [`CURVE_HELD_OUT_DEPTH`]).
    pub held_out_curve: Vec<(u64, f64)>,
    /// The most recent held-out games (`[training] validation_games`), oldest first.
    pub validation: Vec<GameFrame<G>>,
    /// The best validation loss so far and the iteration (counted from 1) it was measured
    /// after.
    pub best_val_loss: Option<(f64, u64)>,
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
    /// The loss, measured the same way, on the validation pool (the most recent
    /// held-out games) with the model after the update; absent without validation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub val_loss: Option<f64>,
    /// The evaluation match of this iteration, if one was played.
    pub eval_games: Option<u64>,
    pub score: Option<f64>,
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    /// The model on the held-out accuracy sample (`[evaluation] held_out`), at each
    /// evaluation: per depth its optimal-move rate and mean value lost a move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_out: Option<HeldOutFigures>,
    /// Training time so far, in seconds.
    pub elapsed_s: f64,
    /// Learner-specific figures, in words.
    pub detail: String,
}

/// Options of a training run from the command line.
pub struct TrainOptions<'a, G: Game> {
    pub start: Start,
    /// Games recorded beforehand (`--from-dataset`), learned from instead of playing.
    pub recorded: Option<RecordedGames<G>>,
    /// Raised (by Ctrl-C) to stop within moments in any stage: the iteration in progress
    /// is dropped, the files stay those of the last finished one.
    pub stop: &'a Arc<AtomicBool>,
    /// Prints progress lines and bars.
    pub log: &'a mut dyn FnMut(&str),
    /// Called with (stage, units done, units in the stage) as each stage goes on, first
    /// with 0 units done as it starts.
    pub progress: &'a mut dyn FnMut(Stage, u64, u64),
    /// Called with the iterations finished: once as the run starts (no line), then after
    /// each iteration with its metrics line.
    pub on_iteration: &'a mut dyn FnMut(u64, Option<&MetricsLine>),
    /// Endgame database of the self-play games and evaluation matches.
    pub tablebase: Option<Arc<dyn Tablebase<G>>>,
}

/// Where a run starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// From a fresh learner.
    New,
    /// From the checkpoint beside the model, which must exist.
    Resume,
    /// From the checkpoint if there is one, else from a fresh learner.
    Continue,
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
    /// The stage, in words.
    pub fn name(self) -> &'static str {
        match self {
            Stage::SelfPlay => "self-play",
            Stage::Fit => "fitting",
            Stage::Episodes => "TD(λ) learning",
            Stage::Evaluation => "evaluation match",
        }
    }

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
pub fn train<G: HeldOutGame>(
    variant: G::Variant,
    config: &TrainConfig,
    config_text: &str,
    mut options: TrainOptions<G>,
) -> Result<TrainSummary, String> {
    if options.recorded.is_some() {
        require_games_played_elsewhere(config)?;
    }
    let run = Run::new(variant, config, config_text)?;
    let mut state = start_state::<G>(&run.game, config, config_text, options.start, options.log)?;
    let held_out = held_out_sample(variant, config, options.tablebase.as_ref(), options.log);
    let mut metrics = Metrics::read(&run.metrics_path, state.iteration)?;
    let session = Instant::now();
    let seconds_before = state.seconds;
    let mut interrupted = false;
    (options.on_iteration)(state.iteration, None);
    // Recorded games were played within the time budget (`selfplay --config` checks it
    // before playing): all of them are learned.
    let timed = options.recorded.is_none();
    while state.iteration < config.budget.iterations {
        let elapsed = seconds_before + session.elapsed().as_secs_f64();
        if let Some(minutes) = config
            .budget
            .minutes
            .filter(|m| timed && elapsed >= m * 60.0)
        {
            (options.log)(&format!("time budget of {minutes} minutes used"));
            break;
        }
        if options.stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let first_game = state.iteration * config.selfplay.games_per_iteration;
        let Some(games) = run.game_source(first_game, options.recorded.as_mut(), options.log)?
        else {
            break;
        };
        let mut learner = state.learner.clone();
        let mut iteration = Iteration {
            config,
            number: state.iteration,
            openings: &run.openings,
            first_game,
            exploration: exploration(&config.selfplay),
            games,
            stop: options.stop,
            tablebase: options.tablebase.clone(),
            progress: &mut *options.progress,
            held_out: Vec::new(),
        };
        let Some(result) = learner.learner_mut().iterate(&mut iteration)? else {
            interrupted = true;
            break;
        };
        let mut validation = state.validation.clone();
        let val_loss = run.validate(&learner, &mut validation, &iteration);
        drop(iteration);
        let estimate = match run.evaluation_due(state.iteration + 1) {
            false => None,
            true => match run.evaluate(
                &learner,
                options.tablebase.clone(),
                options.stop,
                options.progress,
            )? {
                Some(estimate) => Some(estimate),
                // Stopped in its evaluation match, the iteration is played again on
                // resuming (so the curve is the uninterrupted run's).
                None => {
                    interrupted = true;
                    break;
                }
            },
        };
        state.learner = learner;
        state.iteration += 1;
        state.games += result.games;
        state.positions += result.positions;
        state.validation = validation;
        let improved =
            val_loss.is_some_and(|v| state.best_val_loss.is_none_or(|(best, _)| v < best));
        if let Some(v) = val_loss.filter(|_| improved) {
            state.best_val_loss = Some((v, state.iteration));
        }

        let mut line = MetricsLine::new(&state, result);
        line.val_loss = val_loss;
        if let Some(estimate) = estimate {
            line.record_evaluation(&estimate);
            if let Some(sample) = &held_out {
                let figures = sample.measure(&state.learner.learner().evaluator());
                if let Some(rate) = figures.optimal_move_rate(CURVE_HELD_OUT_DEPTH) {
                    state.held_out_curve.push((state.games, rate));
                }
                line.held_out = Some(figures);
            }
            state.curve.push((
                state.games,
                estimate.elo,
                estimate.elo_low,
                estimate.elo_high,
            ));
            run.draw_curve(&state.curve, &state.held_out_curve)?;
        }
        // Model, metrics and checkpoint all tell of the iteration just finished.
        run.save_model(&mut state)?;
        if improved && config.training.keep_best {
            run.save_best(&state)?;
        }
        state.seconds = seconds_before + session.elapsed().as_secs_f64();
        line.elapsed_s = state.seconds;
        (options.log)(&describe(&line, config.budget.iterations, run.baseline));
        metrics.push(line);
        metrics.write(&run.metrics_path)?;
        write_checkpoint(&run.checkpoint_path, &run.game, &state, config)?;
        (options.on_iteration)(state.iteration, metrics.last.as_ref());
        if let Some(reason) = run.early_stop(&state) {
            (options.log)(&reason);
            break;
        }
    }
    Ok(TrainSummary {
        iterations: state.iteration,
        games: state.games,
        positions: state.positions,
        seconds: state.seconds,
        interrupted,
        last: metrics.last,
    })
}

impl MetricsLine {
    /// The line of the iteration `state` has just finished, as `report` tells it; no
    /// evaluation yet, no time.
    fn new<G: EvalGame>(state: &Checkpoint<G>, report: IterationReport) -> MetricsLine {
        MetricsLine {
            iteration: state.iteration,
            games: state.games,
            positions: state.positions,
            loss_before: report.loss_before,
            loss: report.loss,
            val_loss: None,
            eval_games: None,
            score: None,
            elo: None,
            elo_low: None,
            elo_high: None,
            held_out: None,
            elapsed_s: 0.0,
            detail: report.detail,
        }
    }

    fn record_evaluation(&mut self, estimate: &Estimate) {
        self.eval_games = Some(estimate.games);
        self.score = Some(estimate.score);
        self.elo = Some(estimate.elo);
        // An interval the games cannot support (all of one result) is not written.
        let measured = estimate.unmeasured().is_none();
        self.elo_low = measured.then_some(estimate.elo_low);
        self.elo_high = measured.then_some(estimate.elo_high);
    }
}

/// What a run derives from its config once: its files, game and openings.
struct Run<'a, G: EvalGame> {
    config: &'a TrainConfig,
    config_text: &'a str,
    game: String,
    baseline: &'static str,
    checkpoint_path: PathBuf,
    best_path: PathBuf,
    metrics_path: PathBuf,
    curve_path: PathBuf,
    openings: Vec<G>,
    eval_openings: Vec<G>,
}

impl<'a, G: EvalGame> Run<'a, G> {
    /// The run of `config`, its model's folder made.
    fn new(
        variant: G::Variant,
        config: &'a TrainConfig,
        config_text: &'a str,
    ) -> Result<Self, String> {
        if let Some(dir) = config.model.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let eval = &config.evaluation;
        Ok(Run {
            config,
            config_text,
            game: G::variant_name(variant),
            baseline: G::BUILTINS[0],
            checkpoint_path: config.beside_model("ckpt"),
            best_path: config.beside_model("best.bin"),
            metrics_path: config.beside_model("metrics.jsonl"),
            curve_path: config.beside_model("curve.svg"),
            openings: selfplay_openings(variant, config)?,
            eval_openings: random_openings(
                G::start_of(variant),
                (eval.games / 2) as usize,
                eval.random_plies,
                config.seed ^ EVALUATION_SEED,
            )?,
        })
    }

    /// Where the games of the iteration starting at `first_game` come from: played, or
    /// taken from `recorded`; `None` (said in `log`) once the recorded games hold no more.
    fn game_source(
        &self,
        first_game: u64,
        recorded: Option<&mut RecordedGames<G>>,
        log: &mut dyn FnMut(&str),
    ) -> Result<Option<GameSource<G>>, String> {
        let Some(recorded) = recorded else {
            return Ok(Some(GameSource::Play));
        };
        let count = self.config.selfplay.games_per_iteration;
        let Some(games) = recorded.take(first_game, count)? else {
            log(&format!(
                "{} holds no game of iteration {} (games {}): stopping",
                recorded.path.display(),
                first_game / count + 1,
                span(first_game, count)
            ));
            return Ok(None);
        };
        let foreign = games
            .iter()
            .filter(|g| {
                g.positions[0] != self.openings[(g.index % self.openings.len() as u64) as usize]
            })
            .count();
        if foreign > 0 {
            log(&format!(
                "warning: {foreign} of the {count} recorded games of iteration {} do not start \
                 from this run's openings (played with another seed or opening settings?)",
                first_game / count + 1
            ));
        }
        Ok(Some(GameSource::Recorded(games)))
    }

    /// The header of the learner's model files at `state`, its revision the last one
    /// saved.
    fn model_header(&self, state: &Checkpoint<G>) -> ModelHeader {
        let mut header = state.learner.learner().model_header(&self.game);
        header.revision = state.model_revision;
        header.meta.config = self.config_text.to_string();
        header.meta.seed = self.config.seed;
        header.meta.games = state.games;
        header.meta.positions = state.positions;
        header
    }

    /// Saves the learner's model as the next revision.
    fn save_model(&self, state: &mut Checkpoint<G>) -> Result<(), String> {
        let mut header = self.model_header(state);
        (state.learner.learner())
            .save_model(&self.config.model, &mut header)
            .map_err(|e| e.to_string())?;
        state.model_revision = header.revision;
        Ok(())
    }

    /// Writes the model to `NAME.best.bin` (`[training] keep_best`), with the revision
    /// and figures of the model file of the same iteration.
    fn save_best(&self, state: &Checkpoint<G>) -> Result<(), String> {
        let mut header = self.model_header(state);
        header.revision = header.revision.saturating_sub(1);
        (state.learner.learner())
            .save_model(&self.best_path, &mut header)
            .map_err(|e| e.to_string())
    }

    /// Adds the iteration's held-out games to the validation pool `pool` (keeping the
    /// most recent `validation_games`) and returns the learner's loss on it; `None`
    /// without validation.
    fn validate(
        &self,
        learner: &LearnerState<G>,
        pool: &mut Vec<GameFrame<G>>,
        it: &Iteration<'_, G>,
    ) -> Option<f64> {
        let settings = &self.config.training;
        if settings.validation <= 0.0 {
            return None;
        }
        pool.extend(it.held_out.iter().map(DatasetGame::to_frame));
        let excess = pool.len().saturating_sub(settings.validation_games);
        pool.drain(..excess);
        let games: Vec<DatasetGame<G>> = pool
            .iter()
            .map(|f| DatasetGame::from_frame(f).expect("own games replay"))
            .collect();
        Some(learner.learner().validation_loss(&games, it))
    }

    /// Why the run stops after the iteration `state` has just finished, if it does:
    /// `[training] patience` iterations without a new best validation loss.
    fn early_stop(&self, state: &Checkpoint<G>) -> Option<String> {
        let patience = self.config.training.patience;
        let (best, at) = state.best_val_loss?;
        (patience > 0 && state.iteration - at >= patience).then(|| {
            format!(
                "early stop after iteration {}: no better validation loss in {patience} \
                 iterations (best {best:.5} after iteration {at})",
                state.iteration
            )
        })
    }

    /// Whether an evaluation match follows the iteration `iteration` (counted from 1).
    fn evaluation_due(&self, iteration: u64) -> bool {
        let every = self.config.evaluation.every;
        (every > 0 && iteration.is_multiple_of(every)) || iteration == self.config.budget.iterations
    }

    /// The learner's model against the game's baseline evaluator; `None` if `stop` was
    /// raised before the match ended.
    fn evaluate(
        &self,
        learner: &LearnerState<G>,
        tablebase: Option<Arc<dyn Tablebase<G>>>,
        stop: &Arc<AtomicBool>,
        progress: &mut dyn FnMut(Stage, u64, u64),
    ) -> Result<Option<Estimate>, String> {
        let eval = &self.config.evaluation;
        let selfplay = &self.config.selfplay;
        let match_config = MatchConfig {
            pairs: eval.games / 2,
            limits_a: Limits::depth(eval.depth),
            limits_b: Limits::depth(eval.depth),
            ply_cap: selfplay.ply_cap,
            threads: selfplay.threads,
            tt_mib: selfplay.tt_mb,
            seed: self.config.seed ^ EVALUATION_SEED,
            sprt: None,
            clock: None,
        };
        let side = |evaluator, tablebase| Interruptible {
            inner: Engine::new(evaluator, tablebase),
            stop: Arc::clone(stop),
        };
        progress(Stage::Evaluation, 0, 2 * match_config.pairs);
        let outcome = run_match(
            &side(learner.learner().evaluator(), tablebase.clone()),
            &side(AnyEvaluator::baseline(), tablebase),
            &self.eval_openings,
            &match_config,
            |_, tally| {
                let done = 2 * tally.pentanomial.pairs();
                progress(Stage::Evaluation, done, 2 * match_config.pairs)
            },
        );
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        Ok(Some(outcome?.tally.estimate()))
    }

    /// Redraws the learning curve from the evaluations so far.
    fn draw_curve(
        &self,
        curve: &[(u64, f64, f64, f64)],
        held_out: &[(u64, f64)],
    ) -> Result<(), String> {
        let points: Vec<CurvePoint> = curve
            .iter()
            .map(|&(games, elo, low, high)| CurvePoint {
                games,
                elo,
                low,
                high,
            })
            .collect();
        let eval = &self.config.evaluation;
        let title = format!(
            "{} learner ({}): Elo against {} (depth {}, {} games per evaluation)",
            self.config.learner.name(),
            self.game,
            self.baseline,
            eval.depth,
            eval.games
        );
        crate::io::write_atomic(
            &self.curve_path,
            learning_curve_svg(&title, &points, held_out).as_bytes(),
        )
        .map_err(|e| format!("cannot write {}: {e}", self.curve_path.display()))
    }
}

/// The self-play openings of the run of `config`: its openings file, or up to
/// [`OPENING_POOL`] distinct random openings from its seed; game `i` starts from opening
/// `i mod len`.
fn selfplay_openings<G: EvalGame>(
    variant: G::Variant,
    config: &TrainConfig,
) -> Result<Vec<G>, String> {
    let selfplay = &config.selfplay;
    match &selfplay.openings {
        Some(path) => read_openings::<G>(variant, path),
        None => {
            let total_games = selfplay
                .games_per_iteration
                .saturating_mul(config.budget.iterations);
            Ok(random_openings_up_to(
                G::start_of(variant),
                (total_games as usize).min(OPENING_POOL),
                selfplay.random_plies,
                config.seed,
            ))
        }
    }
}

/// The softmax exploration of the self-play games, if the config asks for one.
fn exploration(selfplay: &SelfPlaySettings) -> Option<Exploration> {
    selfplay.temperature.map(|temperature| Exploration {
        temperature,
        plies: selfplay.temperature_plies,
    })
}

/// How the games of the iteration whose first game is `first_game` are played, the part
/// `shard` plays of them.
fn selfplay_config(config: &TrainConfig, first_game: u64, shard: Shard) -> SelfPlayConfig {
    let s = &config.selfplay;
    SelfPlayConfig {
        games: s.games_per_iteration,
        first_game,
        limits: s.limits(),
        seed: config.seed,
        exploration: exploration(s),
        ply_cap: s.ply_cap,
        threads: s.threads,
        shard,
        tt_mib: s.tt_mb,
        adjudicate: s.egdb_adjudicate,
    }
}

/// The state a run of game `game` starts from: a fresh learner, or the checkpoint beside
/// the model (which must have been made with the same config, [budget] aside).
fn start_state<G: EvalGame>(
    game: &str,
    config: &TrainConfig,
    config_text: &str,
    start: Start,
    log: &mut dyn FnMut(&str),
) -> Result<Checkpoint<G>, String> {
    let path = config.beside_model("ckpt");
    if start == Start::New || (start == Start::Continue && !path.exists()) {
        return Ok(Checkpoint {
            config_text: config_text.to_string(),
            iteration: 0,
            games: 0,
            positions: 0,
            seconds: 0.0,
            model_revision: 0,
            learner: LearnerState::new(config),
            curve: Vec::new(),
            held_out_curve: Vec::new(),
            validation: Vec::new(),
            best_val_loss: None,
        });
    }
    let checkpoint = read_checkpoint::<G>(&path, game)?;
    let saved = TrainConfig::parse(&checkpoint.config_text).map_err(|e| {
        format!(
            "checkpoint {}: its config does not parse: {e}",
            path.display()
        )
    })?;
    if !same_training(&saved, config) {
        return Err(format!(
            "checkpoint {} was made with a different configuration; resume with the same \
             config (only [budget] may change)",
            path.display()
        ));
    }
    log(&format!(
        "resuming after iteration {} ({} games)",
        checkpoint.iteration, checkpoint.games
    ));
    Ok(Checkpoint {
        config_text: config_text.to_string(),
        ..checkpoint
    })
}

/// Refuses a learner whose self-play cannot be played elsewhere: Samuel learns inside
/// its own games (player A updates after each of its moves against a frozen B).
fn require_games_played_elsewhere(config: &TrainConfig) -> Result<(), String> {
    match config.learner {
        LearnerKind::Samuel => Err(
            "the samuel learner learns during its own self-play games (player A against B), \
             so its games cannot be played as shards or read from a dataset; train it with \
             `evalearn train --config` alone (glem and td can)"
                .to_string(),
        ),
        LearnerKind::Glem | LearnerKind::Td => Ok(()),
    }
}

/// The state the next iteration of the run of `config` (game `game`) starts from when
/// it is split into shards: its checkpoint, or a fresh learner's state. Refuses a learner
/// whose games cannot be played elsewhere, and a finished run: `budget.iterations` done,
/// or `budget.minutes` of training time used. Split, the training time is what the
/// fitting runs (`train --from-dataset`) record, the shards' time aside; checking it here,
/// before an iteration's shards play, means no iteration starts past the budget and every
/// started one is learned whole.
pub fn next_split_iteration<G: EvalGame>(
    game: &str,
    config: &TrainConfig,
    config_text: &str,
) -> Result<Checkpoint<G>, String> {
    require_games_played_elsewhere(config)?;
    let state = start_state::<G>(game, config, config_text, Start::Continue, &mut |_| {})?;
    let budget = &config.budget;
    if state.iteration >= budget.iterations {
        return Err(format!(
            "the run is finished: {} of budget.iterations = {} done; raise budget.iterations \
             to go on",
            state.iteration, budget.iterations
        ));
    }
    if let Some(minutes) = budget.minutes.filter(|m| state.seconds >= m * 60.0) {
        return Err(format!(
            "the run is finished: its time budget is used, {:.2} of budget.minutes = \
             {minutes} minutes of training after {} of {} iterations (split into shards, \
             the fitting runs' time counts, not the shards'); raise budget.minutes to go on",
            state.seconds / 60.0,
            state.iteration,
            budget.iterations
        ));
    }
    Ok(state)
}

/// One shard of the next iteration of a run, as `train` would play it.
pub struct ShardPlan<G: EvalGame> {
    /// Iterations the run has finished: the shard's games belong to the next one.
    pub finished: u64,
    /// The learner's current model.
    pub evaluator: AnyEvaluator<G>,
    pub selfplay: SelfPlayConfig,
    pub openings: Vec<G>,
}

/// Shard `shard` of the next iteration of the run of `config` (game `G`, `variant`):
/// the model of its checkpoint (or of a fresh learner when there is none), the run's
/// openings, exploration and limits, and the iteration's game numbers. `threads`, if
/// given, replaces the config's (the games do not depend on it).
pub fn plan_shard<G: EvalGame>(
    variant: G::Variant,
    config: &TrainConfig,
    config_text: &str,
    shard: Shard,
    threads: Option<usize>,
) -> Result<ShardPlan<G>, String> {
    let state = next_split_iteration::<G>(&G::variant_name(variant), config, config_text)?;
    let mut selfplay = selfplay_config(
        config,
        state.iteration * config.selfplay.games_per_iteration,
        shard,
    );
    selfplay.threads = threads.unwrap_or(selfplay.threads);
    Ok(ShardPlan {
        finished: state.iteration,
        evaluator: state.learner.learner().evaluator(),
        selfplay,
        openings: selfplay_openings(variant, config)?,
    })
}

/// Games played beforehand for the iterations to come (`train --from-dataset`): merged
/// `selfplay --config` shards, or any dataset of the run's game.
pub struct RecordedGames<G: Game> {
    path: PathBuf,
    games: BTreeMap<u64, DatasetGame<G>>,
    /// Whether an iteration has taken games yet: the first one must find its games.
    taken: bool,
}

impl<G: Game> RecordedGames<G> {
    /// The games of the dataset at `path` (named in messages); a game number twice is an
    /// error.
    pub fn new(path: &Path, games: Vec<DatasetGame<G>>) -> Result<RecordedGames<G>, String> {
        let mut by_number = BTreeMap::new();
        for game in games {
            let index = game.index;
            if by_number.insert(index, game).is_some() {
                return Err(format!(
                    "dataset {}: game {index} appears twice (a shard merged twice?)",
                    path.display()
                ));
            }
        }
        Ok(RecordedGames {
            path: path.to_path_buf(),
            games: by_number,
            taken: false,
        })
    }

    /// Takes games `first..first + count`, sorted; `None` when there is none of them
    /// after an earlier iteration took its games. Some but not all of them, or none for
    /// the first iteration, is an error naming what the dataset holds.
    fn take(&mut self, first: u64, count: u64) -> Result<Option<Vec<DatasetGame<G>>>, String> {
        let wanted = first..first + count;
        let found = self.games.range(wanted.clone()).count() as u64;
        if found == 0 && self.taken {
            return Ok(None);
        }
        if found < count {
            let iteration = first / count + 1;
            let missing: Vec<u64> = wanted.filter(|i| !self.games.contains_key(i)).collect();
            return Err(format!(
                "dataset {}: iteration {iteration} needs games {}, it holds {found} of them \
                 (missing {}); the dataset holds {}",
                self.path.display(),
                span(first, count),
                numbers(&missing),
                self.describe()
            ));
        }
        self.taken = true;
        let rest = self.games.split_off(&(first + count));
        let games = std::mem::replace(&mut self.games, rest);
        Ok(Some(
            games.into_values().filter(|g| g.index >= first).collect(),
        ))
    }

    /// The game numbers held, in words.
    fn describe(&self) -> String {
        if self.games.is_empty() {
            return "no game".to_string();
        }
        let held: Vec<u64> = self.games.keys().copied().collect();
        format!("games {} ({} games)", numbers(&held), held.len())
    }
}

/// Games `first..first + count`, in words.
fn span(first: u64, count: u64) -> String {
    format!("{first}–{}", first + count - 1)
}

/// Sorted game numbers as runs (`0–15, 17, 19`), the first few of them.
fn numbers(sorted: &[u64]) -> String {
    const SHOWN: usize = 6;
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &n in sorted {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == n => *last = n,
            _ => runs.push((n, n)),
        }
    }
    let mut text: Vec<String> = runs
        .iter()
        .take(SHOWN)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    if runs.len() > SHOWN {
        text.push("…".to_string());
    }
    text.join(", ")
}

/// Two configurations train the same way (only the budget and the threads may differ).
fn same_training(a: &TrainConfig, b: &TrainConfig) -> bool {
    // Compare the parsed values through their debug text, budget set aside.
    let strip = |c: &TrainConfig| {
        let mut c = c.clone();
        c.budget = Default::default();
        // The results do not depend on the thread count (`train --threads` sets it).
        c.selfplay.threads = 0;
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
    } else if let Some(score) = line.score {
        text.push_str(&format!(
            ", against {baseline} {:.1}% (Elo n/a: every game alike)",
            100.0 * score
        ));
    }
    if let Some(figures) = &line.held_out {
        let rates: Vec<String> = figures
            .depths
            .iter()
            .map(|(depth, d)| format!("{:.1}% at depth {depth}", 100.0 * d.optimal_move_rate))
            .collect();
        text.push_str(&format!(", held-out optimal moves {}", rates.join(", ")));
    }
    text.push_str(&format!(", {:.0} s; {}", line.elapsed_s, line.detail));
    text
}

/// The run's held-out accuracy sample (said in `log`), if `[evaluation] held_out` asks
/// for one and the game has exact values to give.
fn held_out_sample<G: HeldOutGame>(
    variant: G::Variant,
    config: &TrainConfig,
    tablebase: Option<&Arc<dyn Tablebase<G>>>,
    log: &mut dyn FnMut(&str),
) -> Option<HeldOut<G>> {
    let count = config.evaluation.held_out;
    if count == 0 {
        return None;
    }
    let started = Instant::now();
    match HeldOut::new(variant, tablebase, count, config.seed ^ HELD_OUT_SEED) {
        Ok(sample) if !sample.is_empty() => {
            log(&format!(
                "held-out accuracy sample: {} {} ({:.1} s)",
                sample.len(),
                sample.source,
                started.elapsed().as_secs_f64()
            ));
            Some(sample)
        }
        Ok(_) => None,
        Err(why) => {
            log(&format!("no held-out accuracy sample: {why}"));
            None
        }
    }
}

fn read_checkpoint<G: EvalGame>(path: &Path, game: &str) -> Result<Checkpoint<G>, String> {
    load_model::<Checkpoint<G>>(path, Some(game), Some(CHECKPOINT_KIND))
        .map(|(_, checkpoint)| checkpoint)
        .map_err(|e| match e {
            // The checksum held, so the bytes are as written: by an evalearn whose
            // learner state had another layout.
            ModelError::Payload { .. } => format!(
                "cannot resume: {e} (a checkpoint of an earlier evalearn version cannot be \
                 continued: train anew without --resume)"
            ),
            _ => format!("cannot resume: {e}"),
        })
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

/// The metrics file of a run: its lines as written, so an earlier session's lines stay
/// byte for byte (serde_json's default float parsing may move a value by an ulp).
struct Metrics {
    text: String,
    last: Option<MetricsLine>,
}

impl Metrics {
    /// The lines of iterations up to `iteration` (older sessions of a resumed run).
    fn read(path: &Path, iteration: u64) -> Result<Metrics, String> {
        let mut metrics = Metrics {
            text: String::new(),
            last: None,
        };
        if iteration == 0 {
            return Ok(metrics);
        }
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(metrics),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        for (n, line) in text.lines().enumerate() {
            let parsed: MetricsLine = serde_json::from_str(line)
                .map_err(|e| format!("{} line {}: {e}", path.display(), n + 1))?;
            if parsed.iteration <= iteration {
                metrics.text.push_str(line);
                metrics.text.push('\n');
                metrics.last = Some(parsed);
            }
        }
        Ok(metrics)
    }

    fn push(&mut self, line: MetricsLine) {
        self.text
            .push_str(&serde_json::to_string(&line).expect("plain values serialise"));
        self.text.push('\n');
        self.last = Some(line);
    }

    fn write(&self, path: &Path) -> Result<(), String> {
        crate::io::write_atomic(path, self.text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}
