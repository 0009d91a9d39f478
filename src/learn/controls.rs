//! The `[training]` controls every learner shares (see docs/training.md, "Training
//! controls"): which games are held out for validation, the blend of game result and
//! search score in the targets and its schedule, what a finished game teaches (its
//! result or its margin), which positions are learned from, and the learning-rate
//! schedule.

use rand::RngExt;

use super::config::{LrSchedule, TargetKind, TrainConfig, TrainingSettings};
use crate::arena::margins::game_margin;
use crate::eval::EVAL_LIMIT;
use crate::eval::glem::logistic;
use crate::game::{Game, Side};
use crate::io::dataset::DatasetGame;
use crate::search::Tablebase;

/// Keeps the validation split's hash apart from the games' own random streams.
const VALIDATION_STREAM: u64 = 0x7661_6C69_6461_7465;
/// Keeps the position sampling apart from the games' own random streams.
const SAMPLING_STREAM: u64 = 0x7361_6D70_6C65_7321;

/// Whether game `index` of the run of `seed` is held out for validation when a `share`
/// of the games is: a hash of the seed and the game number alone, so the same games are
/// held out whatever the thread count, the shards, or whether the games were played now
/// or read from a dataset.
pub fn held_out(seed: u64, index: u64, share: f64) -> bool {
    if share <= 0.0 {
        return false;
    }
    let draw: f64 = crate::rng::stream(seed ^ VALIDATION_STREAM, index).random();
    draw < share
}

/// Where iteration `iteration` (0 the first) of a run of `iterations` stands in a
/// schedule that starts after `warmup` iterations: 0 at the first iteration after the
/// warm-up, 1 at the last (and after it).
fn progress(iteration: u64, iterations: u64, warmup: u64) -> f64 {
    let span = iterations.saturating_sub(1).saturating_sub(warmup);
    if span == 0 {
        return 1.0;
    }
    (iteration.saturating_sub(warmup) as f64 / span as f64).min(1.0)
}

impl TrainingSettings {
    /// The factor of the learners' base rates (TD α, GLEM and Samuel `learning_rate`) at
    /// iteration `iteration` (0 the first) of a run of `iterations`:
    /// during the `lr_warmup` first iterations `(i + 1) / (lr_warmup + 1)`; then, with
    /// `t` going linearly from 0 (first iteration after the warm-up) to 1 (the last of
    /// the budget), `constant` 1, `linear` `1 + (lr_final − 1)·t`, `cosine`
    /// `lr_final + (1 − lr_final)·(1 + cos πt)/2`, `exponential` `lr_final^t`, and `step`
    /// `lr_gamma^⌊(i − lr_warmup)/lr_step_every⌋`.
    pub fn rate_factor(&self, iteration: u64, iterations: u64) -> f64 {
        if iteration < self.lr_warmup {
            return (iteration + 1) as f64 / (self.lr_warmup + 1) as f64;
        }
        let t = progress(iteration, iterations, self.lr_warmup);
        let end = self.lr_final;
        match self.lr_schedule {
            LrSchedule::Constant => 1.0,
            LrSchedule::Linear => 1.0 + (end - 1.0) * t,
            LrSchedule::Cosine => {
                end + (1.0 - end) * (1.0 + (std::f64::consts::PI * t).cos()) / 2.0
            }
            LrSchedule::Exponential => end.powf(t),
            LrSchedule::Step => {
                let steps = (iteration - self.lr_warmup) / self.lr_step_every.max(1);
                self.lr_gamma.powi(steps.min(i32::MAX as u64) as i32)
            }
        }
    }

    /// The weight of the search score in the targets at iteration `iteration` of a run
    /// of `iterations`: `search_weight` (or the learner's `default` when absent), going
    /// linearly to `search_weight_end` at the last iteration when that is given.
    pub fn search_weight_at(&self, default: f64, iteration: u64, iterations: u64) -> f64 {
        let start = self.search_weight.unwrap_or(default);
        match self.search_weight_end {
            Some(end) => start + (end - start) * progress(iteration, iterations, 0),
            None => start,
        }
    }
}

/// What a finished game teaches the learners (`[training] target`), for one side: its
/// result (won 1, drawn ½, lost 0), or its final margin `m` in the game's units
/// ([`Game::final_margin`]) as `σ(m / scale)` — so a net's logit, and its evaluation in
/// centi-units, estimates the margin (`100 · logit` centi-units stand for `scale` units
/// of margin). A game that did not end by the rules (ply cap, adjudication) has no
/// margin and counts by its result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OutcomeTarget {
    Result,
    Margin { scale: f64 },
}

impl OutcomeTarget {
    /// Centi-units per unit of logit of a model fitted to this target: `default` (the
    /// learner's own) for results; `100·scale` for margins, so that the model's
    /// evaluation is its expected final margin at 100 a stone, as the game's own
    /// evaluations count.
    pub fn centi_per_logit(self, default: f64) -> f64 {
        match self {
            OutcomeTarget::Result => default,
            OutcomeTarget::Margin { scale } => 100.0 * scale,
        }
    }

    /// The value for `side` of game `game`, in [0, 1].
    pub fn of_game<G: Game>(self, game: &DatasetGame<G>, side: Side) -> f64 {
        match (self, game_margin(game, side)) {
            (OutcomeTarget::Margin { scale }, Some(m)) => logistic(f64::from(m) / scale),
            _ => game.outcome.score_for(side),
        }
    }

    /// The value for the side to move of `pos`, a finished position (no legal move).
    pub fn of_end<G: Game>(self, pos: &G) -> f64 {
        match self {
            OutcomeTarget::Result => pos.outcome_without_moves().score_for(pos.side_to_move()),
            OutcomeTarget::Margin { scale } => logistic(f64::from(pos.final_margin()) / scale),
        }
    }

    /// The value of game `game` for `side` in centi-units of the evaluations (Samuel's
    /// targets): `±result_value` for a win or loss (0 drawn), or `100·m` for a margin
    /// `m`, within ±[`EVAL_LIMIT`].
    pub fn centi_of_game<G: Game>(
        self,
        game: &DatasetGame<G>,
        side: Side,
        result_value: f64,
    ) -> f64 {
        match (self, game_margin(game, side)) {
            (OutcomeTarget::Margin { .. }, Some(m)) => {
                f64::from(m.saturating_mul(100).clamp(-EVAL_LIMIT, EVAL_LIMIT))
            }
            _ => (2.0 * game.outcome.score_for(side) - 1.0) * result_value,
        }
    }
}

impl TrainingSettings {
    /// What a finished game teaches (`target`, `margin_scale`).
    pub fn outcome_target(&self) -> OutcomeTarget {
        match self.target {
            TargetKind::Result => OutcomeTarget::Result,
            TargetKind::Margin => OutcomeTarget::Margin {
                scale: self.margin_scale,
            },
        }
    }

    /// Refuses `target = "margin"` for a game whose results have no margin.
    pub fn check_target<G: Game>(&self) -> Result<(), String> {
        if self.target == TargetKind::Margin && G::MAX_MARGIN <= 1 {
            return Err(format!(
                "training.target: \"margin\" needs a game whose results have margins; {}'s are won, drawn or lost",
                G::NAME
            ));
        }
        Ok(())
    }
}

/// Which positions of a game are learned from (`[training]` skip_capture_pending,
/// skip_decided, max_positions_per_game).
pub struct PositionFilter<'a, G> {
    pub skip_capture_pending: bool,
    /// Positions this database decides are skipped.
    pub decided: Option<&'a dyn Tablebase<G>>,
    /// 0: all; else a sample of this many per game, drawn from the run's seed and the
    /// game's number.
    pub max_per_game: usize,
    pub seed: u64,
}

impl<'a, G: Game> PositionFilter<'a, G> {
    /// Every position passes.
    pub fn none() -> PositionFilter<'a, G> {
        PositionFilter {
            skip_capture_pending: false,
            decided: None,
            max_per_game: 0,
            seed: 0,
        }
    }

    /// The filter of the run of `config`, with its endgame database.
    pub fn new(
        config: &TrainConfig,
        tablebase: Option<&'a dyn Tablebase<G>>,
    ) -> PositionFilter<'a, G> {
        let settings = &config.training;
        PositionFilter {
            skip_capture_pending: settings.skip_capture_pending,
            decided: tablebase.filter(|_| settings.skip_decided),
            max_per_game: settings.max_positions_per_game,
            seed: config.seed,
        }
    }

    /// Whether `pos` may be learned from (before the per-game sampling).
    pub fn admits(&self, pos: &G) -> bool {
        !(self.skip_capture_pending && !pos.is_quiet()
            || self.decided.is_some_and(|tb| tb.probe(pos).is_some()))
    }

    /// Of the candidate positions `candidates` (indices into `game.positions`, in
    /// order), those learned from, in order: the admitted ones, then, with a
    /// `max_per_game`, a uniform sample of that many of them (partial Fisher–Yates on
    /// the game's own stream).
    pub fn select(
        &self,
        game: &DatasetGame<G>,
        candidates: impl Iterator<Item = usize>,
    ) -> Vec<usize> {
        let mut kept: Vec<usize> = candidates
            .filter(|&i| self.admits(&game.positions[i]))
            .collect();
        if self.max_per_game > 0 && kept.len() > self.max_per_game {
            let mut rng = crate::rng::stream(self.seed ^ SAMPLING_STREAM, game.index);
            for k in 0..self.max_per_game {
                let j = rng.random_range(k..kept.len());
                kept.swap(k, j);
            }
            kept.truncate(self.max_per_game);
            kept.sort_unstable();
        }
        kept
    }

    /// The positions of `games` (before each move) this filter admits: what the metrics
    /// count as the positions learned from.
    pub fn admitted_positions(&self, games: &[DatasetGame<G>]) -> u64 {
        games
            .iter()
            .map(|g| self.select(g, 0..g.len()).len() as u64)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn margin_targets_read_their_scale_and_refuse_bad_ones() {
        let t = training("target = \"margin\"\nmargin_scale = 3\n");
        assert_eq!(t.outcome_target(), OutcomeTarget::Margin { scale: 3.0 });
        assert_eq!(training("").outcome_target(), OutcomeTarget::Result);
        for bad in ["0", "-1", "1000", "nan"] {
            let text =
                format!("learner = \"td\"\nmodel = \"m.bin\"\n[training]\nmargin_scale = {bad}\n");
            let err = TrainConfig::parse(&text).unwrap_err().to_string();
            assert!(err.contains("margin_scale"), "{bad}: {err}");
        }
    }

    fn training(extra: &str) -> TrainingSettings {
        let text = format!("learner = \"td\"\nmodel = \"m.bin\"\n[training]\n{extra}");
        TrainConfig::parse(&text).unwrap().training
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn constant_is_one_and_warm_up_climbs_linearly() {
        let t = training("");
        assert!((0..10).all(|i| t.rate_factor(i, 10) == 1.0));
        let t = training("lr_warmup = 3\n");
        let f: Vec<f64> = (0..6).map(|i| t.rate_factor(i, 10)).collect();
        assert_eq!(f, [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn linear_cosine_and_exponential_end_at_lr_final() {
        for schedule in ["linear", "cosine", "exponential"] {
            let t = training(&format!("lr_schedule = \"{schedule}\"\nlr_final = 0.1\n"));
            assert_eq!(t.rate_factor(0, 11), 1.0, "{schedule}");
            assert!(close(t.rate_factor(10, 11), 0.1), "{schedule}");
            assert!(
                close(t.rate_factor(50, 11), 0.1),
                "{schedule}: after the budget"
            );
        }
        let t = training("lr_schedule = \"linear\"\nlr_final = 0.1\n");
        assert!(close(t.rate_factor(5, 11), 0.55));
        let t = training("lr_schedule = \"cosine\"\nlr_final = 0.1\n");
        assert!(close(t.rate_factor(5, 11), 0.55), "half-way: the mean");
        let t = training("lr_schedule = \"exponential\"\nlr_final = 0.01\n");
        assert!(
            close(t.rate_factor(5, 11), 0.1),
            "half-way: the geometric mean"
        );
        // After a warm-up the schedule starts: t = 0 at the first iteration past it.
        let t = training("lr_schedule = \"cosine\"\nlr_final = 0.0\nlr_warmup = 2\n");
        assert_eq!(t.rate_factor(2, 11), 1.0);
        assert!(close(t.rate_factor(6, 11), 0.5));
        assert!(close(t.rate_factor(10, 11), 0.0));
        // One iteration: the end at once.
        let t = training("lr_schedule = \"linear\"\nlr_final = 0.5\n");
        assert_eq!(t.rate_factor(0, 1), 0.5);
    }

    #[test]
    fn step_multiplies_by_gamma_every_so_many_iterations() {
        let t = training("lr_schedule = \"step\"\nlr_step_every = 3\nlr_gamma = 0.5\n");
        let f: Vec<f64> = (0..8).map(|i| t.rate_factor(i, 8)).collect();
        assert_eq!(f, [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25]);
        let t =
            training("lr_schedule = \"step\"\nlr_step_every = 2\nlr_gamma = 0.1\nlr_warmup = 1\n");
        let f: Vec<f64> = (0..4).map(|i| t.rate_factor(i, 8)).collect();
        assert!(close(f[0], 0.5) && f[1] == 1.0 && f[2] == 1.0 && close(f[3], 0.1));
    }

    #[test]
    fn search_weight_defaults_per_learner_and_follows_its_schedule() {
        let t = training("");
        assert_eq!(t.search_weight_at(0.7, 3, 10), 0.7);
        let t = training("search_weight = 1.0\nsearch_weight_end = 0.5\n");
        assert_eq!(t.search_weight_at(0.0, 0, 11), 1.0);
        assert!(close(t.search_weight_at(0.0, 5, 11), 0.75));
        assert!(close(t.search_weight_at(0.0, 10, 11), 0.5));
        let t = training("search_weight_end = 0.0\n");
        assert!(close(t.search_weight_at(0.7, 10, 11), 0.0));
    }

    #[test]
    fn the_split_is_a_function_of_seed_and_game_number() {
        let held: Vec<bool> = (0..2000).map(|i| held_out(7, i, 0.1)).collect();
        let share = held.iter().filter(|&&h| h).count() as f64 / 2000.0;
        assert!((0.07..0.13).contains(&share), "{share}");
        assert_eq!(
            held,
            (0..2000).map(|i| held_out(7, i, 0.1)).collect::<Vec<_>>()
        );
        assert_ne!(
            held,
            (0..2000).map(|i| held_out(8, i, 0.1)).collect::<Vec<_>>()
        );
        // A larger share holds out a superset: the same draw against a higher bar.
        assert!((0..2000).all(|i| !held_out(7, i, 0.1) || held_out(7, i, 0.3)));
        assert!((0..2000).all(|i| !held_out(7, i, 0.0)));
    }
}
