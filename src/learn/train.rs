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
//! same random streams. The same determinism splits a run across machines
//! ([`super::shard`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::config::{EvalOpponent, TrainConfig};
pub use super::files::{CHECKPOINT_KIND, Checkpoint, MetricsLine};
use super::files::{Metrics, describe, read_checkpoint, write_checkpoint};
use super::iteration::exploration;
pub use super::iteration::{GameSource, Iteration, Stage, StageSeconds};
use super::learner::{IterationReport, Learner, LearnerKind, TrainGame, find_learner};
mod evaluation;

pub use super::shard::{
    GameSupply, RecordedGames, ShardPlan, next_iteration, next_split_iteration, plan_shard,
    require_games_played_elsewhere,
};
use crate::accuracy::heldout::{self, HeldOut};
use crate::arena::openings::{random_openings, random_openings_up_to};
use crate::arena::stats::Estimate;
use crate::io::dataset::{DatasetGame, GameFrame};
use crate::io::model::ModelHeader;
use crate::search::Tablebase;

/// Distinct self-play openings a run cycles through at most.
const OPENING_POOL: usize = 4096;
/// Keeps the evaluation openings apart from the self-play ones of the same seed.
const EVALUATION_SEED: u64 = 0x6576_616C;
/// Keeps the held-out accuracy sample apart from the games of the same seed.
pub const HELD_OUT_SEED: u64 = 0x6865_6C64;
/// The depth whose held-out optimal-move rate the learning curve shows.
const CURVE_HELD_OUT_DEPTH: u32 = heldout::DEPTHS[1];

/// Options of a training run from the command line.
pub struct TrainOptions<'a, G: TrainGame> {
    pub start: Start,
    /// Games played elsewhere, learned from instead of playing: recorded beforehand
    /// (`--from-dataset`) or by workers (`--workers`).
    pub supply: Option<&'a mut dyn GameSupply<G>>,
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
    /// A learner from outside evalearn's own (the config's `learner` names it).
    pub learner: Option<&'a dyn LearnerKind<G>>,
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

/// How a run ended.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    pub iterations: u64,
    pub games: u64,
    pub positions: u64,
    /// Training time of all sessions.
    pub seconds: f64,
    pub interrupted: bool,
    pub last: Option<MetricsLine>,
    /// This session: its wall time, the games and positions it played and learned, the
    /// seconds of its stages (the rest of its time, [`TrainSummary::other_seconds`], went
    /// to starting up: openings, the held-out sample, the checkpoint read).
    pub session_seconds: f64,
    pub session_games: u64,
    pub session_positions: u64,
    pub stages: StageSeconds,
}

impl TrainSummary {
    /// The session's seconds outside the stages.
    pub fn other_seconds(&self) -> f64 {
        (self.session_seconds - self.stages.total()).max(0.0)
    }
}

/// A run between iterations: what its checkpoint holds, with the learner alive.
pub struct RunState<G: TrainGame> {
    pub config_text: String,
    /// Iterations finished.
    pub iteration: u64,
    pub games: u64,
    pub positions: u64,
    /// Training time so far (all sessions), in seconds.
    pub seconds: f64,
    pub model_revision: u64,
    pub learner: Box<dyn Learner<G>>,
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

impl<G: TrainGame> RunState<G> {
    /// The state of a run that has done nothing yet.
    fn fresh(config_text: &str, learner: Box<dyn Learner<G>>) -> RunState<G> {
        RunState {
            config_text: config_text.to_string(),
            iteration: 0,
            games: 0,
            positions: 0,
            seconds: 0.0,
            model_revision: 0,
            learner,
            curve: Vec::new(),
            held_out_curve: Vec::new(),
            validation: Vec::new(),
            best_val_loss: None,
        }
    }

    /// The state of `checkpoint`, its learner resumed by `kind`.
    fn resumed(
        checkpoint: Checkpoint<G>,
        kind: &dyn LearnerKind<G>,
        config: &TrainConfig,
    ) -> Result<RunState<G>, String> {
        if checkpoint.learner != kind.name() {
            return Err(format!(
                "the checkpoint holds a {} learner, the config asks for {}",
                checkpoint.learner,
                kind.name()
            ));
        }
        Ok(RunState {
            learner: kind.resume(config, &checkpoint.state)?,
            config_text: checkpoint.config_text,
            iteration: checkpoint.iteration,
            games: checkpoint.games,
            positions: checkpoint.positions,
            seconds: checkpoint.seconds,
            model_revision: checkpoint.model_revision,
            curve: checkpoint.curve,
            held_out_curve: checkpoint.held_out_curve,
            validation: checkpoint.validation,
            best_val_loss: checkpoint.best_val_loss,
        })
    }

    /// The metrics line of the iteration just finished, as `report` tells it; no
    /// evaluation yet, no time.
    fn metrics_line(&self, report: IterationReport) -> MetricsLine {
        MetricsLine {
            iteration: self.iteration,
            games: self.games,
            positions: self.positions,
            loss_before: report.loss_before,
            loss: report.loss,
            val_loss: None,
            eval_games: None,
            score: None,
            elo: None,
            elo_low: None,
            elo_high: None,
            opponent: None,
            limit: None,
            margin: None,
            margin_low: None,
            margin_high: None,
            held_out: None,
            elapsed_s: 0.0,
            stages: None,
            detail: report.detail,
        }
    }

    /// What the checkpoint file keeps of it.
    pub(super) fn checkpoint(&self, learner: &str) -> Checkpoint<G> {
        Checkpoint {
            config_text: self.config_text.clone(),
            iteration: self.iteration,
            games: self.games,
            positions: self.positions,
            seconds: self.seconds,
            model_revision: self.model_revision,
            learner: learner.to_string(),
            state: self.learner.state(),
            curve: self.curve.clone(),
            held_out_curve: self.held_out_curve.clone(),
            validation: self.validation.clone(),
            best_val_loss: self.best_val_loss,
        }
    }
}

/// What one iteration came to, for the loop.
enum Step {
    /// Finished and recorded; the loop goes on unless the reason to stop is given.
    Done(Option<String>),
    /// No more games (the recorded ones are used up).
    Exhausted,
    /// Stopped (Ctrl-C): the iteration is dropped.
    Interrupted,
}

/// Runs (or resumes) a training run of game `G` in `variant` (the config's game).
pub fn train<G: TrainGame>(
    variant: G::Variant,
    config: &TrainConfig,
    config_text: &str,
    mut options: TrainOptions<G>,
) -> Result<TrainSummary, String> {
    let kind = find_learner::<G>(&config.learner, options.learner)?;
    config.training.check_target::<G>()?;
    if options.supply.is_some() {
        require_games_played_elsewhere::<G>(config)?;
    }
    let mut run = Run::new(variant, config, config_text, kind)?;
    let mut state = start_state_of::<G>(
        &run.game,
        config,
        config_text,
        options.start,
        kind,
        options.log,
    )?;
    let (games_before, positions_before) = (state.games, state.positions);
    run.held_out = held_out_sample(variant, config, options.tablebase.as_ref(), options.log);
    let mut metrics = Metrics::read(&run.metrics_path, state.iteration)?;
    run.seconds_before = state.seconds;
    let mut interrupted = false;
    (options.on_iteration)(state.iteration, None);
    // Recorded games were played within the time budget (`selfplay --config` checks it
    // before playing): all of them are learned.
    let timed = options.supply.as_ref().is_none_or(|s| s.timed());
    while state.iteration < config.budget.iterations {
        if let Some(minutes) = config
            .budget
            .minutes
            .filter(|m| timed && run.elapsed() >= m * 60.0)
        {
            (options.log)(&format!("time budget of {minutes} minutes used"));
            break;
        }
        if options.stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        match run.step(&mut state, &mut metrics, &mut options)? {
            Step::Done(None) => {}
            Step::Done(Some(reason)) => {
                (options.log)(&reason);
                break;
            }
            Step::Exhausted => break,
            Step::Interrupted => {
                interrupted = true;
                break;
            }
        }
    }
    Ok(TrainSummary {
        iterations: state.iteration,
        games: state.games,
        positions: state.positions,
        seconds: state.seconds,
        interrupted,
        last: metrics.last,
        session_seconds: run.session.elapsed().as_secs_f64(),
        session_games: state.games - games_before,
        session_positions: state.positions - positions_before,
        stages: *run.stages.borrow(),
    })
}

/// What a run derives from its config once: its learner, files, game and openings.
struct Run<'a, G: TrainGame> {
    config: &'a TrainConfig,
    config_text: &'a str,
    kind: &'a dyn LearnerKind<G>,
    game: String,
    /// Who the evaluations play, in words: the baseline's name, a model file, `the
    /// run's best`.
    opponent: String,
    checkpoint_path: PathBuf,
    best_path: PathBuf,
    metrics_path: PathBuf,
    curve_path: PathBuf,
    openings: Vec<G>,
    eval_openings: Vec<G>,
    /// The held-out accuracy sample, if the run has one.
    held_out: Option<HeldOut<G>>,
    /// When this session started, and the training time of the sessions before.
    session: Instant,
    seconds_before: f64,
    /// This session's seconds in each stage.
    stages: std::cell::RefCell<StageSeconds>,
}

impl<'a, G: TrainGame> Run<'a, G> {
    /// The run of `config`, its model's folder made.
    fn new(
        variant: G::Variant,
        config: &'a TrainConfig,
        config_text: &'a str,
        kind: &'a dyn LearnerKind<G>,
    ) -> Result<Self, String> {
        if let Some(dir) = config.model.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let eval = &config.evaluation;
        let opponent = match eval.opponent() {
            EvalOpponent::Baseline => G::BUILTINS[0].to_string(),
            EvalOpponent::Best => "the run's best".to_string(),
            EvalOpponent::Named(name) => {
                evaluation::load_opponent::<G>(&name)?;
                name
            }
        };
        Ok(Run {
            config,
            config_text,
            kind,
            game: G::variant_name(variant),
            opponent,
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
            held_out: None,
            session: Instant::now(),
            seconds_before: 0.0,
            stages: Default::default(),
        })
    }

    /// Training time so far, all sessions.
    fn elapsed(&self) -> f64 {
        self.seconds_before + self.session.elapsed().as_secs_f64()
    }

    /// Plays and learns the next iteration, evaluates the model on schedule, and writes
    /// the model, the metrics line, the curve and the checkpoint.
    fn step(
        &self,
        state: &mut RunState<G>,
        metrics: &mut Metrics,
        options: &mut TrainOptions<G>,
    ) -> Result<Step, String> {
        let config = self.config;
        let first_game = state.iteration * config.selfplay.games_per_iteration;
        // Waiting for games played elsewhere is the run's self-play time.
        let Some((games, waited)) = self.game_source(first_game, options)? else {
            return Ok(Step::Exhausted);
        };
        let mut learner = state.learner.boxed_clone();
        let mut iteration = Iteration {
            config,
            number: state.iteration,
            openings: &self.openings,
            first_game,
            exploration: exploration(&config.selfplay),
            games,
            stop: options.stop,
            tablebase: options.tablebase.clone(),
            progress: &mut *options.progress,
            held_out: Vec::new(),
            selfplay_seconds: 0.0,
        };
        let mut stages = StageSeconds::default();
        let started = Instant::now();
        let Some(result) = learner.iterate(&mut iteration)? else {
            return Ok(Step::Interrupted);
        };
        stages.learning = started.elapsed().as_secs_f64() - iteration.selfplay_seconds;
        stages.selfplay = iteration.selfplay_seconds + waited;
        let started = Instant::now();
        let mut validation = state.validation.clone();
        let val_loss = self.validate(learner.as_ref(), &mut validation, &iteration);
        drop(iteration);
        let estimate = match self.evaluation_due(state.iteration + 1) {
            false => None,
            true => match self.evaluate(learner.as_ref(), options)? {
                Some(estimate) => Some(estimate),
                // Stopped in its evaluation match, the iteration is played again on
                // resuming (so the curve is the uninterrupted run's).
                None => return Ok(Step::Interrupted),
            },
        };
        stages.evaluation = started.elapsed().as_secs_f64();
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
        let mut line = state.metrics_line(result);
        line.val_loss = val_loss;
        let evaluated_best = estimate
            .as_ref()
            .is_some_and(|(e, _)| self.is_best_evaluation(state, e));
        if let Some(estimate) = estimate {
            let started = Instant::now();
            line.record_evaluation(&estimate.0, estimate.1.as_ref());
            let eval = &config.evaluation;
            line.opponent =
                (eval.opponent() != EvalOpponent::Baseline).then(|| self.opponent.clone());
            line.limit =
                (eval.nodes.is_some() || eval.movetime_ms.is_some()).then(|| eval.limit_text());
            self.measure_held_out(state, &mut line, &estimate.0);
            stages.evaluation += started.elapsed().as_secs_f64();
        }
        // Model, metrics and checkpoint all tell of the iteration just finished.
        let started = Instant::now();
        if estimate.is_some() {
            self.draw_curve(&state.curve, &state.held_out_curve)?;
        }
        self.save_model(state)?;
        if improved && config.training.keep_best {
            self.save_best(state)?;
        }
        if evaluated_best && config.evaluation.keeps_best() {
            self.save_best(state)?;
        }
        stages.writing = started.elapsed().as_secs_f64();
        line.stages = Some(stages);
        state.seconds = self.elapsed();
        line.elapsed_s = state.seconds;
        (options.log)(&describe(&line, config.budget.iterations, &self.opponent));
        metrics.push(line);
        metrics.write(&self.metrics_path)?;
        let checkpoint = state.checkpoint(self.kind.name());
        write_checkpoint(&self.checkpoint_path, &self.game, &checkpoint, config)?;
        // The run's own sums count the metrics and checkpoint files too.
        stages.writing += started.elapsed().as_secs_f64() - stages.writing;
        self.stages.borrow_mut().add(&stages);
        (options.on_iteration)(state.iteration, metrics.last.as_ref());
        Ok(Step::Done(self.early_stop(state)))
    }

    /// Adds the evaluation of `line` to the curve, with the held-out sample's figures
    /// when the run has one.
    fn measure_held_out(
        &self,
        state: &mut RunState<G>,
        line: &mut MetricsLine,
        estimate: &Estimate,
    ) {
        if let Some(sample) = &self.held_out {
            let figures = sample.measure(&state.learner.evaluator());
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
    }

    /// Where the games of the iteration starting at `first_game` come from: played, or
    /// taken from the run's supply; `None` once the supply holds no more.
    fn game_source(
        &self,
        first_game: u64,
        options: &mut TrainOptions<G>,
    ) -> Result<Option<(GameSource<G>, f64)>, String> {
        let Some(supply) = options.supply.as_deref_mut() else {
            return Ok(Some((GameSource::Play, 0.0)));
        };
        let count = self.config.selfplay.games_per_iteration;
        let started = Instant::now();
        let games = supply.take(first_game, count, options.stop, options.log)?;
        let waited = started.elapsed().as_secs_f64();
        let Some(games) = games else {
            return Ok(None);
        };
        let foreign = games
            .iter()
            .filter(|g| {
                g.positions[0] != self.openings[(g.index % self.openings.len() as u64) as usize]
            })
            .count();
        if foreign > 0 {
            (options.log)(&format!(
                "warning: {foreign} of the {count} recorded games of iteration {} do not start \
                 from this run's openings (played with another seed or opening settings?)",
                first_game / count + 1
            ));
        }
        Ok(Some((GameSource::Recorded(games), waited)))
    }

    /// The header of the learner's model files at `state`, its revision the last one
    /// saved.
    fn model_header(&self, state: &RunState<G>) -> ModelHeader {
        let mut header = state.learner.model_header(&self.game);
        header.revision = state.model_revision;
        header.meta.config = self.config_text.to_string();
        header.meta.seed = self.config.seed;
        header.meta.games = state.games;
        header.meta.positions = state.positions;
        header
    }

    /// Saves the learner's model as the next revision.
    fn save_model(&self, state: &mut RunState<G>) -> Result<(), String> {
        let mut header = self.model_header(state);
        state
            .learner
            .save_model(&self.config.model, &mut header)
            .map_err(|e| e.to_string())?;
        state.model_revision = header.revision;
        Ok(())
    }

    /// Writes the model to `NAME.best.bin` (`[training] keep_best`), with the revision
    /// and figures of the model file of the same iteration.
    fn save_best(&self, state: &RunState<G>) -> Result<(), String> {
        let mut header = self.model_header(state);
        header.revision = header.revision.saturating_sub(1);
        state
            .learner
            .save_model(&self.best_path, &mut header)
            .map_err(|e| e.to_string())
    }

    /// Adds the iteration's held-out games to the validation pool `pool` (keeping the
    /// most recent `validation_games`) and returns the learner's loss on it; `None`
    /// without validation.
    fn validate(
        &self,
        learner: &dyn Learner<G>,
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
        Some(learner.validation_loss(&games, it))
    }

    /// Why the run stops after the iteration `state` has just finished, if it does:
    /// `[training] patience` iterations without a new best validation loss.
    fn early_stop(&self, state: &RunState<G>) -> Option<String> {
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
}

/// The self-play openings of the run of `config`: its openings file, or up to
/// [`OPENING_POOL`] distinct random openings from its seed; game `i` starts from opening
/// `i mod len`.
pub(super) fn selfplay_openings<G: TrainGame>(
    variant: G::Variant,
    config: &TrainConfig,
) -> Result<Vec<G>, String> {
    let selfplay = &config.selfplay;
    match &selfplay.openings {
        Some(path) => G::read_openings(variant, path),
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

/// The state a run of game `game` starts from: a fresh learner, or the checkpoint beside
/// the model (which must have been made with the same config, [budget] aside).
pub(super) fn start_state<G: TrainGame>(
    game: &str,
    config: &TrainConfig,
    config_text: &str,
    start: Start,
    log: &mut dyn FnMut(&str),
) -> Result<RunState<G>, String> {
    let kind = find_learner::<G>(&config.learner, None)?;
    start_state_of(game, config, config_text, start, kind, log)
}

fn start_state_of<G: TrainGame>(
    game: &str,
    config: &TrainConfig,
    config_text: &str,
    start: Start,
    kind: &dyn LearnerKind<G>,
    log: &mut dyn FnMut(&str),
) -> Result<RunState<G>, String> {
    let path = config.beside_model("ckpt");
    if start == Start::New || (start == Start::Continue && !path.exists()) {
        return Ok(RunState::fresh(config_text, kind.start(config)?));
    }
    let checkpoint = read_checkpoint::<G>(&path, game)?;
    let saved = TrainConfig::parse_saved(&checkpoint.config_text).map_err(|e| {
        format!(
            "checkpoint {}: its config does not parse: {e}",
            path.display()
        )
    })?;
    if !saved.trains_like(config) {
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
    let mut state = RunState::resumed(checkpoint, kind, config)
        .map_err(|e| format!("cannot resume from {}: {e}", path.display()))?;
    state.config_text = config_text.to_string();
    Ok(state)
}

/// The run's held-out accuracy sample (said in `log`), if `[evaluation] held_out` asks
/// for one and the game has exact values to give.
fn held_out_sample<G: TrainGame>(
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
