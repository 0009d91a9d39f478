//! `[evaluation]`: the matches that measure a run's model as it trains — how often, how
//! many games, at what limit a move, against whom.

use std::time::Duration;

use serde::Deserialize;

use super::{ConfigError, default_random_plies, fail};
use crate::search::{Limits, MAX_PLY};

/// Evaluation matches, by default against the game's baseline evaluator (draughts
/// `material`, Kalah `stores`): every `every` iterations (and after the last), `games`
/// games (pairs of openings) at `depth`, or at a node or time limit a move, against
/// `opponent`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluationSettings {
    /// Iterations between evaluations; 0 = only after the last iteration.
    #[serde(default = "default_every")]
    pub every: u64,
    #[serde(default = "default_eval_games")]
    pub games: u64,
    #[serde(default = "default_eval_depth")]
    pub depth: u32,
    #[serde(default = "default_random_plies")]
    pub random_plies: u32,
    /// Positions with exact values the model is measured on at each evaluation (the
    /// held-out accuracy sample: Kalah late positions, draughts ≤ 5 pieces when an
    /// endgame database is present); 0 = none.
    #[serde(default = "default_held_out")]
    pub held_out: usize,
    /// Milliseconds a move for both sides, instead of `depth`: strength as a user meets
    /// it, at the clock (not reproducible: the games depend on the machine's speed).
    #[serde(default)]
    pub movetime_ms: Option<u64>,
    /// Nodes a move for both sides, instead of `depth` (reproducible).
    #[serde(default)]
    pub nodes: Option<u64>,
    /// Who the model plays: `"baseline"` (the default: the game's first built-in
    /// evaluator), another built-in evaluator by name, a model file, or `"best"` (the
    /// run's best model so far, `NAME.best.bin`; the baseline until there is one).
    #[serde(default)]
    pub opponent: Option<String>,
    /// Also write the model to `NAME.best.bin` whenever an evaluation finds it the best
    /// so far: against a fixed opponent the highest Elo yet, against `"best"` a score
    /// above 50% (so `opponent = "best"` keeps it whether or not this is set).
    #[serde(default)]
    pub keep_best: bool,
}

/// What `[evaluation] opponent` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalOpponent {
    /// The game's first built-in evaluator.
    Baseline,
    /// The run's best model so far (`NAME.best.bin`).
    Best,
    /// A built-in evaluator or a model file, as evaluator arguments name them.
    Named(String),
}

/// Most held-out positions (each is searched at every evaluation).
const MAX_HELD_OUT: usize = 5000;

fn default_held_out() -> usize {
    200
}
fn default_every() -> u64 {
    5
}
fn default_eval_games() -> u64 {
    100
}
fn default_eval_depth() -> u32 {
    6
}

impl Default for EvaluationSettings {
    fn default() -> Self {
        EvaluationSettings {
            every: default_every(),
            games: default_eval_games(),
            depth: default_eval_depth(),
            random_plies: default_random_plies(),
            held_out: default_held_out(),
            movetime_ms: None,
            nodes: None,
            opponent: None,
            keep_best: false,
        }
    }
}

impl EvaluationSettings {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        let e = self;
        if e.games == 0 || !e.games.is_multiple_of(2) {
            return fail(
                "evaluation.games",
                "must be an even number above 0",
                e.games.to_string(),
            );
        }
        if !(1..=MAX_PLY as u32 - 8).contains(&e.depth) {
            return fail("evaluation.depth", "must be 1..=120", e.depth.to_string());
        }
        if e.random_plies > 40 {
            return fail(
                "evaluation.random_plies",
                "must be 0..=40",
                e.random_plies.to_string(),
            );
        }
        if e.held_out > MAX_HELD_OUT {
            return fail(
                "evaluation.held_out",
                "must be 0..=5000",
                e.held_out.to_string(),
            );
        }
        if e.movetime_ms.is_some() && e.nodes.is_some() {
            return Err(ConfigError(
                "evaluation.movetime_ms and evaluation.nodes: give one limit a move, not both"
                    .to_string(),
            ));
        }
        if let Some(ms) = e.movetime_ms.filter(|ms| !(1..=600_000).contains(ms)) {
            return fail(
                "evaluation.movetime_ms",
                "must be 1..=600000 milliseconds",
                ms.to_string(),
            );
        }
        if let Some(n) = e.nodes.filter(|&n| n == 0) {
            return fail("evaluation.nodes", "must be at least 1", n.to_string());
        }
        if e.opponent.as_deref().is_some_and(|o| o.trim().is_empty()) {
            return fail(
                "evaluation.opponent",
                "must be \"baseline\", \"best\", a built-in evaluator or a model file",
                "\"\"".to_string(),
            );
        }
        Ok(())
    }

    /// The search limit of both sides' moves: `nodes`, else `movetime`, else `depth`.
    pub fn limits(&self) -> Limits {
        match (self.nodes, self.movetime_ms) {
            (Some(nodes), _) => Limits::nodes(nodes),
            (None, Some(ms)) => Limits::movetime(Duration::from_millis(ms)),
            (None, None) => Limits::depth(self.depth),
        }
    }

    /// The limit in words: `depth 6`, `100 ms a move`, `20000 nodes a move`.
    pub fn limit_text(&self) -> String {
        match (self.nodes, self.movetime_ms) {
            (Some(nodes), _) => format!("{nodes} nodes a move"),
            (None, Some(ms)) => format!("{ms} ms a move"),
            (None, None) => format!("depth {}", self.depth),
        }
    }

    /// Who the model plays.
    pub fn opponent(&self) -> EvalOpponent {
        match self.opponent.as_deref().map(str::trim) {
            None | Some("baseline") => EvalOpponent::Baseline,
            Some("best") => EvalOpponent::Best,
            Some(name) => EvalOpponent::Named(name.to_string()),
        }
    }

    /// Whether evaluations keep `NAME.best.bin`.
    pub fn keeps_best(&self) -> bool {
        self.keep_best || self.opponent() == EvalOpponent::Best
    }
}
