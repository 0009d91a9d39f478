//! The files of a run beside its model: the checkpoint (`NAME.ckpt`, everything needed
//! to continue) and the metrics (`NAME.metrics.jsonl`, a line per iteration).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::config::TrainConfig;
use super::iteration::StageSeconds;
use crate::accuracy::heldout::HeldOutFigures;
use crate::arena::margins::MarginSummary;
use crate::arena::stats::Estimate;
use crate::game::Game;
use crate::io::dataset::GameFrame;
use crate::io::model::{ModelError, ModelHeader, load_model, save_model};

/// Kind of the checkpoint files in the model-file format.
pub const CHECKPOINT_KIND: &str = "checkpoint";

/// Everything needed to continue a run: written after every iteration.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Checkpoint<G: Game> {
    pub config_text: String,
    /// Iterations finished.
    pub iteration: u64,
    pub games: u64,
    pub positions: u64,
    /// Training time so far (all sessions), in seconds.
    pub seconds: f64,
    pub model_revision: u64,
    /// The learner's name and its state ([`super::learner::Learner::state`]).
    pub learner: String,
    pub state: Vec<u8>,
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
    /// Who the evaluation played, when not the game's baseline (`[evaluation]
    /// opponent`): a built-in evaluator, a model file, `the run's best`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<String>,
    /// The evaluation's limit a move, when not a depth (`100 ms a move`, `20000 nodes a
    /// move`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// In a game whose results have margins, the model's mean final margin a
    /// game in the evaluation match, in the game's units, with its 95% interval over the
    /// pairs (see [`crate::arena::margins`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_high: Option<f64>,
    /// The model on the held-out accuracy sample (`[evaluation] held_out`), at each
    /// evaluation: per depth its optimal-move rate and mean value lost a move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_out: Option<HeldOutFigures>,
    /// Training time so far, in seconds.
    pub elapsed_s: f64,
    /// The seconds of this iteration's stages (absent in files of earlier versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stages: Option<StageSeconds>,
    /// Learner-specific figures, in words.
    pub detail: String,
}

impl MetricsLine {
    pub(super) fn record_evaluation(
        &mut self,
        estimate: &Estimate,
        margins: Option<&MarginSummary>,
    ) {
        self.eval_games = Some(estimate.games);
        self.score = Some(estimate.score);
        self.elo = Some(estimate.elo);
        // An interval the games cannot support (all of one result) is not written.
        let measured = estimate.unmeasured().is_none();
        self.elo_low = measured.then_some(estimate.elo_low);
        self.elo_high = measured.then_some(estimate.elo_high);
        // Nor one of a single pair (infinite), nor a mean of no game.
        let margins = margins.filter(|m| m.games > 0);
        self.margin = margins.map(|m| m.mean);
        let bounded = margins.filter(|m| m.low.is_finite() && m.high.is_finite());
        self.margin_low = bounded.map(|m| m.low);
        self.margin_high = bounded.map(|m| m.high);
    }
}

/// The iteration's line for the terminal.
pub(super) fn describe(line: &MetricsLine, iterations: u64, opponent: &str) -> String {
    let mut text = format!(
        "iteration {}/{iterations}: {} games, {} positions, loss {:.5} → {:.5}",
        line.iteration, line.games, line.positions, line.loss_before, line.loss
    );
    let against = match &line.limit {
        Some(limit) => format!("against {opponent} at {limit}"),
        None => format!("against {opponent}"),
    };
    if let (Some(score), Some(elo), Some(low), Some(high)) =
        (line.score, line.elo, line.elo_low, line.elo_high)
    {
        text.push_str(&format!(
            ", {against} {:.1}% (Elo {elo:+.0} [{low:+.0}, {high:+.0}])",
            100.0 * score
        ));
    } else if let Some(score) = line.score {
        text.push_str(&format!(
            ", {against} {:.1}% (Elo n/a: every game alike)",
            100.0 * score
        ));
    }
    if let (Some(mean), Some(low), Some(high)) = (line.margin, line.margin_low, line.margin_high) {
        text.push_str(&format!(
            ", margin {mean:+.2} [{low:+.2}, {high:+.2}] a game"
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
    text.push_str(&format!(", {:.0} s", line.elapsed_s));
    if let Some(stages) = &line.stages {
        text.push_str(&format!(
            " (self-play {:.2} s, learning {:.2} s, evaluation {:.2} s, files {:.2} s)",
            stages.selfplay, stages.learning, stages.evaluation, stages.writing
        ));
    }
    text.push_str(&format!("; {}", line.detail));
    text
}

pub(super) fn read_checkpoint<G: Game>(path: &Path, game: &str) -> Result<Checkpoint<G>, String> {
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

pub(super) fn write_checkpoint<G: Game>(
    path: &Path,
    game: &str,
    state: &Checkpoint<G>,
    config: &TrainConfig,
) -> Result<(), String> {
    let mut header = ModelHeader::new(game, CHECKPOINT_KIND, &config.learner);
    header.meta.seed = config.seed;
    header.meta.games = state.games;
    header.meta.positions = state.positions;
    header.meta.config = state.config_text.clone();
    save_model(path, &mut header, state).map_err(|e| e.to_string())
}

/// The metrics file of a run: its lines as written, so an earlier session's lines stay
/// byte for byte (serde_json's default float parsing may move a value by an ulp).
pub(super) struct Metrics {
    text: String,
    pub(super) last: Option<MetricsLine>,
}

impl Metrics {
    /// The lines of iterations up to `iteration` (older sessions of a resumed run).
    pub(super) fn read(path: &Path, iteration: u64) -> Result<Metrics, String> {
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

    pub(super) fn push(&mut self, line: MetricsLine) {
        self.text
            .push_str(&serde_json::to_string(&line).expect("plain values serialise"));
        self.text.push('\n');
        self.last = Some(line);
    }

    pub(super) fn write(&self, path: &Path) -> Result<(), String> {
        crate::io::write_atomic(path, self.text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}
