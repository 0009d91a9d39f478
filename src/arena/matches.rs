//! Matches between two contenders A and B (evaluators or external engines): game pairs
//! (each opening played twice, colours swapped), played in parallel over the pairs,
//! scored with the pentanomial statistics of [`super::stats`]. Results are taken in pair
//! order, so the outcome, an SPRT stop included, is the same whatever the thread count.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use super::engine_game::{GameRules, try_play_engine_game};
use super::players::{Contender, Player};
use super::stats::{GameResult, MatchTally, SprtDecision, SprtParams, SprtResult};
use super::workers::run_workers;
use crate::game::{Game, Side};
use crate::io::dataset::DatasetGame;
use crate::rng;
use crate::search::Limits;

/// How a match is played.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Game pairs; pair `p` plays opening `p` twice.
    pub pairs: u64,
    pub limits_a: Limits,
    pub limits_b: Limits,
    pub ply_cap: u32,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Transposition table of each engine of each worker, in MiB.
    pub tt_mib: usize,
    pub seed: u64,
    /// Stop as soon as the test decides.
    pub sprt: Option<SprtParams>,
}

/// One pair of games: `games[0]` with A as White, `games[1]` with A as Black.
#[derive(Clone, Debug)]
pub struct PairResult<G: Game> {
    pub index: u64,
    pub games: [DatasetGame<G>; 2],
    /// The two results from A's side.
    pub results: (GameResult, GameResult),
}

/// What a match found.
#[derive(Clone, Debug)]
pub struct MatchOutcome<G: Game> {
    pub tally: MatchTally,
    /// The pairs counted, in order.
    pub pairs: Vec<PairResult<G>>,
    pub sprt: Option<SprtResult>,
    /// True when the SPRT decided before all pairs were played.
    pub stopped_early: bool,
}

/// Plays the match; `on_pair` hears of each counted pair (in order) with the tally. A
/// player that fails (an external engine dying, or playing an illegal move) stops the
/// match with its error.
pub fn run_match<G: Game, A: Contender<G>, B: Contender<G>>(
    a: &A,
    b: &B,
    openings: &[G],
    config: &MatchConfig,
    mut on_pair: impl FnMut(&PairResult<G>, &MatchTally),
) -> Result<MatchOutcome<G>, String> {
    if openings.is_empty() {
        return Err("no opening to start games from".to_string());
    }
    let jobs: Vec<u64> = (0..config.pairs).collect();
    let stop = AtomicBool::new(false);
    let mut outcome = MatchOutcome {
        tally: MatchTally::default(),
        pairs: Vec::new(),
        sprt: None,
        stopped_early: false,
    };
    // Pairs finish out of order; they are counted in order.
    let mut waiting: BTreeMap<u64, PairResult<G>> = BTreeMap::new();
    let mut decided = false;
    let mut failure: Option<String> = None;
    run_workers(
        config.threads,
        &jobs,
        &stop,
        || Ok((a.player(config.tt_mib)?, b.player(config.tt_mib)?)),
        |players: &mut Result<(A::Player, B::Player), String>, pair| {
            let (player_a, player_b) = players.as_mut().map_err(|e| e.clone())?;
            let opening = openings[(pair % openings.len() as u64) as usize];
            let mut game = |a_side: Side, index: u64| {
                player_a.start_game(index)?;
                player_b.start_game(index)?;
                let mut rng = rng::stream(config.seed, index);
                try_play_engine_game(
                    index,
                    opening,
                    GameRules {
                        ply_cap: config.ply_cap,
                        exploration: None,
                        adjudicator: None,
                    },
                    &mut rng,
                    |record, _| {
                        if record.position().side_to_move() == a_side {
                            player_a.think(record, &config.limits_a)
                        } else {
                            player_b.think(record, &config.limits_b)
                        }
                    },
                )
            };
            let first = game(Side::First, 2 * pair)?;
            let second = game(Side::Second, 2 * pair + 1)?;
            Ok(PairResult {
                index: pair,
                results: (
                    GameResult::from_outcome(first.outcome, Side::First),
                    GameResult::from_outcome(second.outcome, Side::Second),
                ),
                games: [first, second],
            })
        },
        |pair: Result<PairResult<G>, String>| {
            if decided {
                return;
            }
            let pair = match pair {
                Ok(pair) => pair,
                Err(e) => {
                    failure.get_or_insert(e);
                    decided = true;
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
            };
            waiting.insert(pair.index, pair);
            while let Some(pair) = waiting.remove(&(outcome.pairs.len() as u64)) {
                outcome.tally.add_pair(pair.results.0, pair.results.1);
                on_pair(&pair, &outcome.tally);
                outcome.pairs.push(pair);
                if let Some(params) = &config.sprt {
                    let result = outcome.tally.sprt(params);
                    outcome.sprt = Some(result);
                    if result.decision != SprtDecision::Continue {
                        decided = true;
                        outcome.stopped_early = (outcome.pairs.len() as u64) < config.pairs;
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            }
        },
    )?;
    match failure {
        Some(e) => Err(e),
        None => Ok(outcome),
    }
}
