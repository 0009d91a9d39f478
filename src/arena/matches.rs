//! Matches between two contenders A and B (evaluators or external engines): game pairs
//! (each opening played twice, colours swapped), played in parallel over the pairs,
//! scored with the pentanomial statistics of [`super::stats`]. Results are taken in pair
//! order, so the outcome, an SPRT stop included, is the same whatever the thread count.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::engine_game::{GameRules, try_play_engine_game};
use super::players::{Contender, Player};
use super::stats::{GameResult, MatchTally, SprtDecision, SprtParams, SprtResult};
use super::workers::run_workers;
use crate::game::{Game, Side};
use crate::io::dataset::DatasetGame;
use crate::rng;
use crate::search::time::{Clock, RealClock, TimeSource};
use crate::search::{Limits, SearchResult};

/// Plies after which a game stops as a draw, in every command that plays games (the
/// default of `match`, `tournament`, `selfplay` and of a training config's `ply_cap`).
/// Draughts games end earlier by their draw rules, Kalah games by the rules themselves:
/// the cap only stops the rare endless one.
pub const DEFAULT_PLY_CAP: u32 = 200;

/// Transposition table of each engine in each worker, in MiB, in every command that
/// plays many games at once (`match`, `tournament`, `selfplay`, training's self-play):
/// small, because every worker holds one per engine and the tables of two workers must
/// share the cache (8 MiB tables cost a sixth of the speed of two threads).
pub const GAMES_TT_MIB: u64 = 2;

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
    /// A game clock for each engine (in addition to `limits_a`/`limits_b`): a side that
    /// oversteps it loses the game.
    pub clock: Option<TimeControl>,
}

/// A Fischer clock: `base` at the start, `increment` added as each move starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub base: Duration,
    pub increment: Duration,
}

impl TimeControl {
    /// Reads `BASE+INC` or `BASE` in seconds, e.g. `10+0.1`.
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let seconds = |part: &str| -> Result<Duration, String> {
            part.trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && (0.0..=MAX_CLOCK_SECONDS).contains(s))
                .map(Duration::from_secs_f64)
                .ok_or_else(|| {
                    format!(
                        "clock '{text}': expected BASE+INC in seconds (each 0..{MAX_CLOCK_SECONDS}), e.g. 10+0.1"
                    )
                })
        };
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        let control = TimeControl {
            base: seconds(base)?,
            increment: seconds(increment)?,
        };
        if control.base.is_zero() && control.increment.is_zero() {
            return Err(format!("clock '{text}': no time at all"));
        }
        Ok(control)
    }

    /// Plays one move of the side whose clock shows `left`: the increment is added, the
    /// player thinks on [`Limits::clock`], the time spent (read on `time`) is taken off.
    /// `None`: the move took longer than the clock had.
    fn timed_move<G: Game>(
        &self,
        time: &dyn TimeSource,
        left: &mut Duration,
        limits: &Limits,
        think: impl FnOnce(&Limits) -> Result<SearchResult<G>, String>,
    ) -> Result<Option<SearchResult<G>>, String> {
        *left += self.increment;
        let limits = Limits {
            clock: Some(Clock {
                left: *left,
                increment: self.increment,
                moves_to_go: None,
            }),
            ..limits.clone()
        };
        let started = time.now();
        let result = think(&limits)?;
        let spent = time.now().saturating_sub(started);
        if spent > *left {
            return Ok(None);
        }
        *left -= spent;
        Ok(Some(result))
    }
}

/// Longest clock accepted, in seconds (a day).
const MAX_CLOCK_SECONDS: f64 = 86_400.0;

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
    let time = RealClock::new();
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
                // Each side's time left, while the game is on a clock.
                let mut clocks = config.clock.map(|c| (c, [c.base; 2]));
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
                        let a_moves = record.position().side_to_move() == a_side;
                        match &mut clocks {
                            Some((control, [left_a, _])) if a_moves => {
                                control.timed_move(&time, left_a, &config.limits_a, |limits| {
                                    player_a.think(record, limits)
                                })
                            }
                            Some((control, [_, left_b])) => {
                                control.timed_move(&time, left_b, &config.limits_b, |limits| {
                                    player_b.think(record, limits)
                                })
                            }
                            None if a_moves => player_a.think(record, &config.limits_a).map(Some),
                            None => player_b.think(record, &config.limits_b).map(Some),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::brazilian::Brazilian;
    use crate::search::time::SimulatedClock;

    #[test]
    fn time_controls_read_base_and_increment() {
        let tc = |b: u64, i: u64| TimeControl {
            base: Duration::from_millis(b),
            increment: Duration::from_millis(i),
        };
        assert_eq!(TimeControl::parse("10+0.1"), Ok(tc(10_000, 100)));
        assert_eq!(TimeControl::parse("2.5"), Ok(tc(2_500, 0)));
        assert_eq!(TimeControl::parse("0+0.05"), Ok(tc(0, 50)));
        for bad in [
            "", "+", "x+1", "1+y", "-1+0", "1+-1", "0+0", "1e9", "nan+1", "1+2+3",
        ] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_move_is_charged_to_its_clock_and_overstepping_it_loses() {
        let control = TimeControl {
            base: Duration::from_millis(5),
            increment: Duration::from_millis(1),
        };
        // A simulated clock: each move says how long it took, the same on any machine.
        let time = SimulatedClock::new();
        let searched = |limits: &Limits, takes: Duration| {
            let clock = limits.clock.expect("the player sees its clock");
            assert_eq!(clock.increment, control.increment);
            time.advance(takes);
            Ok(SearchResult::<Brazilian> {
                best_move: None,
                score: 0,
                depth: 0,
                pv: Vec::new(),
                nodes: Default::default(),
                elapsed: Duration::ZERO,
                stopped: false,
                root_values: Vec::new(),
                exact: None,
            })
        };
        // The increment comes first; a move never takes more than the clock had.
        let mut left = Duration::from_secs(10);
        let result = control.timed_move(&time, &mut left, &Limits::default(), |limits| {
            searched(limits, Duration::from_millis(3))
        });
        assert!(result.unwrap().is_some());
        assert!(left <= Duration::from_millis(10_001));
        assert!(left > Duration::from_secs(9));
        assert_eq!(left, Duration::from_millis(10_001 - 3));
        // A move slower than the whole clock loses.
        let mut left = control.base;
        let result = control.timed_move(&time, &mut left, &Limits::default(), |limits| {
            searched(limits, Duration::from_millis(50))
        });
        assert!(result.unwrap().is_none());
    }
}
