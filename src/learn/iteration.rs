//! One iteration of a training run as a learner sees it: the run's settings, the
//! openings and game numbers of its self-play games, where the games come from (played
//! now, or recorded beforehand by shards), and the progress of its stages.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::config::{SelfPlaySettings, TrainConfig};
use super::controls::{PositionFilter, held_out};
use super::learner::TrainGame;
use crate::arena::engine_game::Exploration;
use crate::arena::players::Engine;
use crate::eval::spec::AnyEvaluator;
use crate::game::Game;
use crate::io::dataset::DatasetGame;
use crate::search::Tablebase;
use crate::selfplay::{self, SelfPlayConfig, Shard};

/// What a learner gets for one iteration: the run's settings, the openings, the number
/// of its first game, where its games come from, and the worker pool for its self-play.
pub struct Iteration<'a, G: TrainGame> {
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
    /// Seconds spent playing the iteration's games ([`Iteration::self_play`] counts its
    /// own; a learner that plays in its own way adds its time): the rest of the
    /// learner's iteration is learning.
    pub selfplay_seconds: f64,
}

/// Where an iteration's self-play games come from.
pub enum GameSource<G: Game> {
    /// Played now, on this machine's worker pool.
    Play,
    /// Played beforehand, sorted by number: the iteration's shards, played by
    /// `selfplay --config` with the same model, openings and random streams.
    Recorded(Vec<DatasetGame<G>>),
}

impl<G: TrainGame> Iteration<'_, G> {
    /// The iteration's self-play games with `evaluator` to learn from, sorted by number:
    /// played on the worker pool, or the recorded ones, less those held out for
    /// validation (moved to [`Iteration::held_out`]). `None` if the run was stopped
    /// before they were done.
    pub fn self_play(
        &mut self,
        evaluator: &AnyEvaluator<G>,
    ) -> Result<Option<Vec<DatasetGame<G>>>, String> {
        let started = Instant::now();
        let games = self.all_games(evaluator);
        self.selfplay_seconds += started.elapsed().as_secs_f64();
        let Some(games) = games? else {
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

/// Seconds a training iteration (or a run) spent in each stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StageSeconds {
    /// Playing the self-play games (Samuel: with the learning during them).
    pub selfplay: f64,
    /// The learner's own work on the games: TD(λ) episodes, GLEM's mining and fitting,
    /// Samuel's selection matches; the loss measures.
    pub learning: f64,
    /// The evaluation match, the held-out accuracy sample, the validation loss.
    pub evaluation: f64,
    /// Writing the run's files. In a metrics line: the model, the best model and the
    /// curve (the line itself and the checkpoint are written after it).
    pub writing: f64,
}

impl StageSeconds {
    pub fn total(&self) -> f64 {
        self.selfplay + self.learning + self.evaluation + self.writing
    }

    /// Adds `other`'s seconds to these.
    pub fn add(&mut self, other: &StageSeconds) {
        self.selfplay += other.selfplay;
        self.learning += other.learning;
        self.evaluation += other.evaluation;
        self.writing += other.writing;
    }

    /// The stages as shares of `wall` seconds, in words (`self-play 78% (90.7 s), …`).
    pub fn shares(&self, wall: f64) -> String {
        let part =
            |name: &str, s: f64| format!("{name} {:.0}% ({s:.1} s)", 100.0 * s / wall.max(1e-9));
        [
            part("self-play", self.selfplay),
            part("learning", self.learning),
            part("evaluation", self.evaluation),
            part("files", self.writing),
        ]
        .join(", ")
    }
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
    /// Games of the evaluation match against its opponent.
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
            Stage::Evaluation => "evaluation games",
        }
    }
}

/// The softmax exploration of the self-play games, if the config asks for one.
pub(super) fn exploration(selfplay: &SelfPlaySettings) -> Option<Exploration> {
    selfplay.temperature.map(|temperature| Exploration {
        temperature,
        plies: selfplay.temperature_plies,
    })
}

/// How the games of the iteration whose first game is `first_game` are played, the part
/// `shard` plays of them.
pub(super) fn selfplay_config(
    config: &TrainConfig,
    first_game: u64,
    shard: Shard,
) -> SelfPlayConfig {
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
