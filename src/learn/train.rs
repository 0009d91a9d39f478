//! The training loop behind `evalearn train`. Each iteration: self-play with the current
//! model → learner update → the model saved atomically as a new revision (a running
//! `evalearn play --model` picks it up) → on schedule, an evaluation match against the
//! material evaluator → one metrics line, the learning curve redrawn, a checkpoint.
//!
//! Every random choice of iteration `i` comes from the run's seed and the numbers of its
//! games, and a checkpoint holds the whole learner state at the end of an iteration. So
//! a run stopped (Ctrl-C) and resumed with `--resume` gives exactly the results of an
//! uninterrupted run: the interrupted iteration is played again from the start, with the
//! same random streams.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::config::{LearnerKind, TrainConfig};
use super::plot::{CurvePoint, learning_curve_svg};
use super::samuel::{self, SamuelPlay, SamuelState};
use crate::arena::engine_game::Exploration;
use crate::arena::matches::{MatchConfig, run_match};
use crate::arena::openings::{random_openings, random_openings_up_to, read_openings};
use crate::eval::Material;
use crate::eval::features::FEATURE_SET_ID;
use crate::eval::linear::{self, Linear};
use crate::eval::spec::AnyEvaluator;
use crate::game::Game;
use crate::game::checkers::Checkers;
use crate::io::dataset::{DatasetGame, GameFrame};
use crate::io::model::{ModelError, ModelHeader, load_model, save_model};
use crate::learn::glem::{
    self, FitParams, Glem, GlemModel, Phases, default_regions, mine, samples_from_games,
};
use crate::learn::td::{self, Mlp, MlpWeights, TdEvaluator, result_for_white, td_lambda_episode};
use crate::search::Limits;
use crate::selfplay::{self, SelfPlayConfig, Shard};

/// Kind of the checkpoint files in the model-file format.
pub const CHECKPOINT_KIND: &str = "checkpoint";
/// Distinct self-play openings a run cycles through at most.
const OPENING_POOL: usize = 4096;
/// Keeps the evaluation openings apart from the self-play ones of the same seed.
const EVALUATION_SEED: u64 = 0x6576_616C;

/// A learner's state between iterations.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum LearnerState {
    Samuel(SamuelState),
    /// The network being trained by TD(λ).
    Td(MlpWeights),
    Glem(GlemState),
}

/// GLEM's state: the model and the recent games it is fitted on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GlemState {
    pub model: GlemModel,
    /// The most recent self-play games, oldest first.
    pub pool: Vec<GameFrame>,
}

impl LearnerState {
    fn new(config: &TrainConfig) -> LearnerState {
        match config.learner {
            LearnerKind::Samuel => LearnerState::Samuel(SamuelState::new()),
            LearnerKind::Td => {
                LearnerState::Td(Mlp::new_random(config.td.hidden, config.seed).weights())
            }
            LearnerKind::Glem => LearnerState::Glem(GlemState {
                model: GlemModel::new(default_regions(), Vec::new(), Phases::default()),
                pool: Vec::new(),
            }),
        }
    }

    /// The current model as an evaluator.
    pub fn evaluator(&self) -> AnyEvaluator {
        match self {
            LearnerState::Samuel(s) => {
                AnyEvaluator::Linear(Linear::new(&s.a).expect("learner weights are valid"))
            }
            LearnerState::Td(w) => td_evaluator(w),
            LearnerState::Glem(g) => glem_evaluator(&g.model),
        }
    }

    /// Saves the current model (a new revision of `header`).
    fn save_model(&self, path: &Path, header: &mut ModelHeader) -> Result<(), ModelError> {
        match self {
            LearnerState::Samuel(s) => save_model(path, header, &s.a),
            LearnerState::Td(w) => save_model(path, header, w),
            LearnerState::Glem(g) => save_model(path, header, &g.model),
        }
    }

    fn model_header(&self) -> ModelHeader {
        match self {
            LearnerState::Samuel(_) => {
                ModelHeader::new(Checkers::NAME, linear::KIND, FEATURE_SET_ID)
            }
            LearnerState::Td(_) => ModelHeader::new(Checkers::NAME, td::KIND, td::FEATURE_SET_ID),
            LearnerState::Glem(_) => {
                ModelHeader::new(Checkers::NAME, glem::KIND, glem::FEATURE_SET_ID)
            }
        }
    }
}

/// Everything needed to continue a run: written after every iteration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint {
    pub config_text: String,
    /// Iterations finished.
    pub iteration: u64,
    pub games: u64,
    pub positions: u64,
    /// Training time so far (all sessions), in seconds.
    pub seconds: f64,
    pub model_revision: u64,
    pub learner: LearnerState,
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
    /// static values against the search values (men²); GLEM, the squared error of its
    /// predictions against the blended targets; TD(λ), the squared error of the
    /// predictions at the principal-variation leaves against the game results.
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

/// What one learner iteration did.
struct IterationResult {
    games: u64,
    positions: u64,
    loss_before: f64,
    loss: f64,
    detail: String,
}

/// Options of a training run from the command line.
pub struct TrainOptions<'a> {
    pub resume: bool,
    /// Raised (by Ctrl-C) to stop after saving the last finished iteration.
    pub stop: &'a AtomicBool,
    /// Prints progress lines and bars.
    pub log: &'a mut dyn FnMut(&str),
    /// Called with (stage, units done, units in the stage) as each stage goes on.
    pub progress: &'a mut dyn FnMut(Stage, u64, u64),
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
    /// Games of the evaluation match against material.
    Evaluation,
}

impl Stage {
    /// What the stage counts, in words.
    pub fn unit(self) -> &'static str {
        match self {
            Stage::SelfPlay => "self-play games",
            Stage::Fit => "fitting epochs",
            Stage::Episodes => "TD(λ) episodes",
            Stage::Evaluation => "evaluation games against material",
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

/// Runs (or resumes) a training run.
pub fn train(
    config: &TrainConfig,
    config_text: &str,
    mut options: TrainOptions,
) -> Result<TrainSummary, String> {
    let checkpoint_path = config.beside_model("ckpt");
    let metrics_path = config.beside_model("metrics.jsonl");
    let curve_path = config.beside_model("curve.svg");
    if let Some(dir) = config.model.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut state = if options.resume {
        let checkpoint = read_checkpoint(&checkpoint_path)?;
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

    let selfplay = &config.selfplay;
    let total_games = selfplay
        .games_per_iteration
        .saturating_mul(config.budget.iterations);
    let openings = match &selfplay.openings {
        Some(path) => read_openings(path)?,
        None => random_openings_up_to(
            (total_games as usize).min(OPENING_POOL),
            selfplay.random_plies,
            config.seed,
        ),
    };
    let eval = &config.evaluation;
    let eval_openings = random_openings(
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
        let first_game = state.iteration * selfplay.games_per_iteration;
        let mut learner = state.learner.clone();
        let result = match &mut learner {
            LearnerState::Samuel(s) => {
                let play = SamuelPlay {
                    limits: selfplay.limits(),
                    exploration,
                    ply_cap: selfplay.ply_cap,
                    tt_mib: selfplay.tt_mb,
                    openings: &openings,
                    seed: config.seed,
                };
                let mut done = 0;
                let games = selfplay.games_per_iteration;
                samuel::iteration(
                    s,
                    &config.samuel,
                    &play,
                    first_game,
                    games,
                    options.stop,
                    || {
                        done += 1;
                        (options.progress)(Stage::SelfPlay, done, games);
                    },
                )
                .map(|r| IterationResult {
                    games: r.games,
                    positions: r.positions,
                    loss_before: r.loss_before,
                    loss: r.loss,
                    detail: format!(
                        "A {}-{}-{} against B, {} copies to B, {} weights zeroed",
                        r.a_wins, r.draws, r.b_wins, r.copies, r.zeroings
                    ),
                })
            }
            LearnerState::Td(weights) => {
                let evaluator = td_evaluator(weights);
                let settings = &config.td;
                self_play(
                    config,
                    &evaluator,
                    &openings,
                    first_game,
                    exploration,
                    &mut options,
                )?
                .map(|games| {
                    let mut mlp = Mlp::from_weights(weights).expect("learner weights are valid");
                    let targets: Vec<(Checkers, f32)> = games
                        .iter()
                        .flat_map(|g| {
                            g.leaves
                                .iter()
                                .map(|&leaf| (leaf, result_for_white(g.outcome)))
                        })
                        .collect();
                    let loss_before = td::loss(&mlp, &targets) as f64;
                    let mut squared = 0.0;
                    let mut steps = 0;
                    for (done, game) in games.iter().enumerate() {
                        let report = td_lambda_episode(
                            &mut mlp,
                            &game.leaves,
                            result_for_white(game.outcome),
                            settings.lambda as f32,
                            settings.alpha as f32,
                        );
                        squared += report.mean_squared_td_error as f64 * report.steps as f64;
                        steps += report.steps;
                        (options.progress)(Stage::Episodes, done as u64 + 1, games.len() as u64);
                    }
                    *weights = mlp.weights();
                    IterationResult {
                        games: games.len() as u64,
                        positions: games.iter().map(|g| g.len() as u64).sum(),
                        loss_before,
                        loss: td::loss(&mlp, &targets) as f64,
                        detail: format!(
                            "{steps} TD(λ) steps, mean squared temporal difference {:.5}",
                            squared / steps.max(1) as f64
                        ),
                    }
                })
            }
            LearnerState::Glem(g) => {
                let evaluator = glem_evaluator(&g.model);
                let settings = &config.glem;
                let iteration = state.iteration;
                self_play(
                    config,
                    &evaluator,
                    &openings,
                    first_game,
                    exploration,
                    &mut options,
                )?
                .map(|games| {
                    let positions = games.iter().map(|g| g.len() as u64).sum();
                    g.pool.extend(games.iter().map(DatasetGame::to_frame));
                    let excess = g.pool.len().saturating_sub(settings.pool_games);
                    g.pool.drain(..excess);
                    let pool: Vec<DatasetGame> = g
                        .pool
                        .iter()
                        .map(|f| DatasetGame::from_frame(f).expect("own games replay"))
                        .collect();
                    let samples = samples_from_games(&pool, settings.search_weight as f32);
                    let mut mined = None;
                    if g.model.configurations.is_empty()
                        || iteration.is_multiple_of(settings.remine_every)
                    {
                        let sample_positions: Vec<Checkers> =
                            samples.iter().map(|s| s.position).collect();
                        let configurations = mine(
                            &sample_positions,
                            &g.model.regions,
                            settings.min_support,
                            settings.max_atoms,
                        );
                        mined = Some(configurations.len());
                        g.model = g.model.with_configurations(configurations);
                    }
                    let params = FitParams {
                        epochs: settings.epochs,
                        learning_rate: settings.learning_rate,
                        ..FitParams::default()
                    };
                    let report = g.model.fit_with_progress(&samples, &params, &mut |epoch| {
                        (options.progress)(Stage::Fit, epoch as u64, params.epochs as u64)
                    });
                    IterationResult {
                        games: games.len() as u64,
                        positions,
                        loss_before: report.loss_before,
                        loss: report.loss_after,
                        detail: format!(
                            "{} samples from {} games, {} configurations{}",
                            samples.len(),
                            pool.len(),
                            g.model.configurations.len(),
                            mined.map_or(String::new(), |_| " (mined again)".to_string()),
                        ),
                    }
                })
            }
        };
        let Some(result) = result else {
            interrupted = true;
            break;
        };
        state.learner = learner;
        state.iteration += 1;
        state.games += result.games;
        state.positions += result.positions;

        let mut header = state.learner.model_header();
        header.revision = state.model_revision;
        header.meta.config = config_text.to_string();
        header.meta.seed = config.seed;
        header.meta.games = state.games;
        header.meta.positions = state.positions;
        state
            .learner
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
            let evaluator = state.learner.evaluator();
            let match_config = MatchConfig {
                pairs: eval.games / 2,
                limits_a: Limits::depth(eval.depth),
                limits_b: Limits::depth(eval.depth),
                ply_cap: selfplay.ply_cap,
                threads: selfplay.threads,
                tt_mib: selfplay.tt_mb,
                seed: config.seed ^ EVALUATION_SEED,
                sprt: None,
            };
            let outcome = run_match(
                &evaluator,
                &AnyEvaluator::Material(Material),
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
                "{} learner: Elo against material (depth {}, {} games per evaluation)",
                config.learner.name(),
                eval.depth,
                eval.games
            );
            crate::io::write_atomic(&curve_path, learning_curve_svg(&title, &points).as_bytes())
                .map_err(|e| format!("cannot write {}: {e}", curve_path.display()))?;
        }
        state.seconds = seconds_before + session.elapsed().as_secs_f64();
        line.elapsed_s = state.seconds;
        (options.log)(&describe(&line, config.budget.iterations));
        metrics.push(line);
        write_metrics(&metrics_path, &metrics)?;
        write_checkpoint(&checkpoint_path, &state, config)?;
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

/// A TD network as an evaluator.
fn td_evaluator(weights: &MlpWeights) -> AnyEvaluator {
    AnyEvaluator::Td(TdEvaluator::from_weights(weights).expect("learner weights are valid"))
}

/// A GLEM model as an evaluator. Before any configuration is mined the model is all
/// zeros, so the first games are played with the material evaluator instead.
fn glem_evaluator(model: &GlemModel) -> AnyEvaluator {
    if model.configurations.is_empty() {
        AnyEvaluator::Material(Material)
    } else {
        AnyEvaluator::Glem(Glem::new(model).expect("learner model is valid"))
    }
}

/// Plays one iteration's self-play games with `evaluator` on the worker pool; the games
/// come back sorted by number, or `None` if the run was stopped before they were done.
fn self_play(
    config: &TrainConfig,
    evaluator: &AnyEvaluator,
    openings: &[Checkers],
    first_game: u64,
    exploration: Option<Exploration>,
    options: &mut TrainOptions,
) -> Result<Option<Vec<DatasetGame>>, String> {
    let s = &config.selfplay;
    let sp = SelfPlayConfig {
        games: s.games_per_iteration,
        first_game,
        limits: s.limits(),
        seed: config.seed,
        exploration,
        ply_cap: s.ply_cap,
        threads: s.threads,
        shard: Shard::WHOLE,
        tt_mib: s.tt_mb,
    };
    let mut games = Vec::with_capacity(s.games_per_iteration as usize);
    selfplay::run(&sp, evaluator, openings, options.stop, |game| {
        games.push(game);
        (options.progress)(Stage::SelfPlay, games.len() as u64, s.games_per_iteration);
    })?;
    if (games.len() as u64) < s.games_per_iteration {
        return Ok(None);
    }
    games.sort_by_key(|g| g.index);
    Ok(Some(games))
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
fn describe(line: &MetricsLine, iterations: u64) -> String {
    let mut text = format!(
        "iteration {}/{iterations}: {} games, {} positions, loss {:.5} → {:.5}",
        line.iteration, line.games, line.positions, line.loss_before, line.loss
    );
    if let (Some(score), Some(elo), Some(low), Some(high)) =
        (line.score, line.elo, line.elo_low, line.elo_high)
    {
        text.push_str(&format!(
            ", against material {:.1}% (Elo {elo:+.0} [{low:+.0}, {high:+.0}])",
            100.0 * score
        ));
    }
    text.push_str(&format!(", {:.0} s; {}", line.elapsed_s, line.detail));
    text
}

fn read_checkpoint(path: &Path) -> Result<Checkpoint, String> {
    load_model::<Checkpoint>(path, Some(Checkers::NAME), Some(CHECKPOINT_KIND))
        .map(|(_, checkpoint)| checkpoint)
        .map_err(|e| format!("cannot resume: {e}"))
}

fn write_checkpoint(path: &Path, state: &Checkpoint, config: &TrainConfig) -> Result<(), String> {
    let mut header = ModelHeader::new(Checkers::NAME, CHECKPOINT_KIND, config.learner.name());
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
