//! The evaluation matches of a run ([`super::Run`]): when they are due, whom they play
//! (`[evaluation] opponent`) at what limit, whether they find a new best model, and the
//! learning curve they draw.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{EVALUATION_SEED, Run, RunState, TrainOptions};
use crate::arena::interrupt::Interruptible;
use crate::arena::margins::{self, MarginSummary};
use crate::arena::matches::{MatchConfig, run_match};
use crate::arena::players::Engine;
use crate::arena::stats::Estimate;
use crate::eval::spec::{AnyEvaluator, EvalSpec};
use crate::learn::config::EvalOpponent;
use crate::learn::iteration::Stage;
use crate::learn::learner::{Learner, TrainGame};
use crate::learn::plot::{CurvePoint, learning_curve_svg};

impl<G: TrainGame> Run<'_, G> {
    /// Whether an evaluation match follows the iteration `iteration` (counted from 1).
    pub(super) fn evaluation_due(&self, iteration: u64) -> bool {
        let every = self.config.evaluation.every;
        (every > 0 && iteration.is_multiple_of(every)) || iteration == self.config.budget.iterations
    }

    /// Whether the evaluation `estimate` (not yet on the curve) finds the model the best
    /// so far: against the run's best, a score above 50%; against a fixed opponent, an
    /// Elo above every earlier evaluation's.
    pub(super) fn is_best_evaluation(&self, state: &RunState<G>, estimate: &Estimate) -> bool {
        match self.config.evaluation.opponent() {
            EvalOpponent::Best => estimate.score > 0.5,
            _ => state.curve.iter().all(|&(_, elo, _, _)| estimate.elo > elo),
        }
    }

    /// The evaluator the model plays in evaluations: `[evaluation] opponent`.
    fn opponent_evaluator(&self) -> Result<AnyEvaluator<G>, String> {
        match self.config.evaluation.opponent() {
            EvalOpponent::Baseline => Ok(AnyEvaluator::baseline()),
            EvalOpponent::Best if self.best_path.exists() => {
                load_opponent::<G>(&self.best_path.to_string_lossy())
            }
            EvalOpponent::Best => Ok(AnyEvaluator::baseline()),
            EvalOpponent::Named(name) => load_opponent::<G>(&name),
        }
    }

    /// The learner's model against its opponent (`[evaluation] opponent`, the game's
    /// baseline evaluator by default) at the evaluation's limit, with its margins where
    /// the game's results have them; `None` if `stop` was raised before the match ended.
    pub(super) fn evaluate(
        &self,
        learner: &dyn Learner<G>,
        options: &mut TrainOptions<G>,
    ) -> Result<Option<(Estimate, Option<MarginSummary>)>, String> {
        let (stop, tablebase) = (options.stop, options.tablebase.clone());
        let progress = &mut *options.progress;
        let eval = &self.config.evaluation;
        let selfplay = &self.config.selfplay;
        let opponent = self.opponent_evaluator()?;
        let match_config = MatchConfig {
            pairs: eval.games / 2,
            limits_a: eval.limits(),
            limits_b: eval.limits(),
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
            &side(learner.evaluator(), tablebase.clone()),
            &side(opponent, tablebase),
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
        let outcome = outcome?;
        Ok(Some((
            outcome.tally.estimate(),
            margins::summarise(&outcome.pairs),
        )))
    }

    /// Redraws the learning curve from the evaluations so far.
    pub(super) fn draw_curve(
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
            "{} learner ({}): Elo against {} ({}, {} games per evaluation)",
            self.config.learner,
            self.game,
            self.opponent,
            eval.limit_text(),
            eval.games
        );
        crate::io::write_atomic(
            &self.curve_path,
            learning_curve_svg(&title, &points, held_out).as_bytes(),
        )
        .map_err(|e| format!("cannot write {}: {e}", self.curve_path.display()))
    }
}

/// The evaluator `[evaluation] opponent` names (a built-in one of `G` or a model file).
pub(super) fn load_opponent<G: TrainGame>(name: &str) -> Result<AnyEvaluator<G>, String> {
    let spec = EvalSpec::parse_for::<G>(name).map_err(|e| format!("evaluation.opponent: {e}"))?;
    spec.load::<G>()
        .map(|(evaluator, _)| evaluator)
        .map_err(|e| format!("evaluation.opponent: {e}"))
}
