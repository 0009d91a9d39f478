//! A run split across machines: `selfplay --config` plays a shard of the next
//! iteration's games exactly as the loop would ([`plan_shard`]), and `train
//! --from-dataset` hands the merged shards to the learner in place of playing
//! ([`RecordedGames`]), so the model equals the one-process run's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::config::TrainConfig;
use super::iteration::selfplay_config;
use super::learner::{TrainGame, find_learner};
use super::train::{RunState, Start, selfplay_openings, start_state};
use crate::eval::spec::AnyEvaluator;
use crate::game::Game;
use crate::io::dataset::DatasetGame;
use crate::selfplay::{SelfPlayConfig, Shard};

/// Refuses a learner whose self-play cannot be played elsewhere (Samuel learns inside
/// its own games: player A updates after each of its moves against a frozen B).
pub fn require_games_played_elsewhere<G: TrainGame>(config: &TrainConfig) -> Result<(), String> {
    let learner = find_learner::<G>(&config.learner, None)?;
    if learner.learns_from_recorded_games(config) {
        return Ok(());
    }
    let others: Vec<&str> = G::learners()
        .iter()
        .filter(|l| l.learns_from_recorded_games(config))
        .map(|l| l.name())
        .collect();
    Err(format!(
        "the {} learner learns during its own self-play games, so its games cannot be \
         played as shards or read from a dataset; train it with `evalearn train --config` \
         alone ({} can)",
        config.learner,
        others.join(" and ")
    ))
}

/// The state the next iteration of the run of `config` (game `game`) starts from when
/// it is split into shards: its checkpoint, or a fresh learner's state. Refuses a learner
/// whose games cannot be played elsewhere, and a finished run: `budget.iterations` done,
/// or `budget.minutes` of training time used. Split, the training time is what the
/// fitting runs (`train --from-dataset`) record, the shards' time aside; checking it here,
/// before an iteration's shards play, means no iteration starts past the budget and every
/// started one is learned whole.
pub fn next_split_iteration<G: TrainGame>(
    game: &str,
    config: &TrainConfig,
    config_text: &str,
) -> Result<RunState<G>, String> {
    require_games_played_elsewhere::<G>(config)?;
    next_iteration::<G>(game, config, config_text, Start::Continue, true)
}

/// The state the next iteration of the run of `config` (game `game`) starts from when
/// `train` starts it as `start` (any learner); refuses a finished run as
/// [`next_split_iteration`] does (`split`: the run's games are played as shards, which
/// the time budget's message explains).
pub fn next_iteration<G: TrainGame>(
    game: &str,
    config: &TrainConfig,
    config_text: &str,
    start: Start,
    split: bool,
) -> Result<RunState<G>, String> {
    let state = start_state::<G>(game, config, config_text, start, &mut |_| {})?;
    let budget = &config.budget;
    if state.iteration >= budget.iterations {
        return Err(format!(
            "the run is finished: {} of budget.iterations = {} done; raise budget.iterations \
             to go on",
            state.iteration, budget.iterations
        ));
    }
    if let Some(minutes) = budget.minutes.filter(|m| state.seconds >= m * 60.0) {
        let split = if split {
            " (split into shards, the fitting runs' time counts, not the shards')"
        } else {
            ""
        };
        return Err(format!(
            "the run is finished: its time budget is used, {:.2} of budget.minutes = \
             {minutes} minutes of training after {} of {} iterations{split}; raise \
             budget.minutes to go on",
            state.seconds / 60.0,
            state.iteration,
            budget.iterations
        ));
    }
    Ok(state)
}

/// One shard of the next iteration of a run, as `train` would play it.
pub struct ShardPlan<G: TrainGame> {
    /// Iterations the run has finished: the shard's games belong to the next one.
    pub finished: u64,
    /// What plays the games: the learner's current model, or its teacher.
    pub evaluator: AnyEvaluator<G>,
    /// The teacher's name when a teacher plays them.
    pub teacher: Option<String>,
    pub selfplay: SelfPlayConfig,
    pub openings: Vec<G>,
}

/// Shard `shard` of the next iteration of the run of `config` (game `G`, `variant`):
/// the model of its checkpoint (or of a fresh learner when there is none), the run's
/// openings, exploration and limits, and the iteration's game numbers. `threads`, if
/// given, replaces the config's (the games do not depend on it).
pub fn plan_shard<G: TrainGame>(
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
    let (evaluator, teacher) = state.learner.player();
    Ok(ShardPlan {
        finished: state.iteration,
        evaluator,
        teacher,
        selfplay,
        openings: selfplay_openings(variant, config)?,
    })
}

/// Where the games of the iterations to come are found when they are played elsewhere:
/// a dataset recorded beforehand ([`RecordedGames`]), or workers playing them now
/// ([`super::cluster::Coordinator`]).
pub trait GameSupply<G: Game> {
    /// The games `first..first + count` (one iteration's), sorted by number; `None` when
    /// there are no more (said in `log`) or `stop` was raised.
    fn take(
        &mut self,
        first: u64,
        count: u64,
        stop: &std::sync::atomic::AtomicBool,
        log: &mut dyn FnMut(&str),
    ) -> Result<Option<Vec<DatasetGame<G>>>, String>;

    /// Whether the run's time budget applies (games recorded beforehand were played
    /// within it, and are all learned).
    fn timed(&self) -> bool;
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
    fn take_games(
        &mut self,
        first: u64,
        count: u64,
    ) -> Result<Option<Vec<DatasetGame<G>>>, String> {
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

impl<G: Game> GameSupply<G> for RecordedGames<G> {
    fn take(
        &mut self,
        first: u64,
        count: u64,
        _stop: &std::sync::atomic::AtomicBool,
        log: &mut dyn FnMut(&str),
    ) -> Result<Option<Vec<DatasetGame<G>>>, String> {
        let games = self.take_games(first, count)?;
        if games.is_none() {
            log(&format!(
                "{} holds no game of iteration {} (games {}): stopping",
                self.path.display(),
                first / count + 1,
                span(first, count)
            ));
        }
        Ok(games)
    }

    fn timed(&self) -> bool {
        false
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
