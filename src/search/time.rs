//! How much of a game clock one move may spend. The Hub engine (a clock sent by the GUI)
//! and `match --clock` share it.
//!
//! The budget has two marks:
//! - *soft*: no new iteration starts after half of it (the next one would take longer
//!   than what is left of it) — this is where most moves end;
//! - *hard*: the search is stopped, whatever it is doing.
//!
//! The soft budget is the time left over the moves still to play (`moves_to_go`, or 25
//! when the clock has no move count) plus three quarters of the increment; the hard one
//! three times that, but never more than three quarters of the clock (nine tenths on the
//! last move of a period). A move overhead (pipe and client latency) comes off first.
//!
//! The time itself is read from a [`TimeSource`]: the real clock in play, a
//! [`SimulatedClock`] in tests, so no test depends on how fast or busy the machine is.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Moves assumed still to play when the clock does not say.
const MOVES_TO_GO: f64 = 25.0;
/// Least time any search gets.
pub const MIN_BUDGET: Duration = Duration::from_millis(1);

/// A side's clock as a move starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    /// Time on the clock now, this move's increment included: all the move may spend.
    pub left: Duration,
    /// Added for each move.
    pub increment: Duration,
    /// Moves to the next time control, if the clock has one.
    pub moves_to_go: Option<u32>,
}

/// How long one move may take; `None`: no limit of that kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// After half of this, no new iteration starts.
    pub soft: Option<Duration>,
    /// The search stops here.
    pub hard: Option<Duration>,
}

impl Budget {
    /// When, after the start, no new iteration may begin: half the soft budget (the next
    /// iteration would take longer than what is left of it).
    pub fn last_iteration_start(&self) -> Option<Duration> {
        self.soft.map(|soft| soft / 2)
    }
}

impl Clock {
    /// The time marks of a move with `overhead` of latency on top of the search.
    pub fn budget(&self, overhead: Duration) -> Budget {
        let left = self.left.as_secs_f64();
        let inc = self.increment.as_secs_f64();
        let available = (left - overhead.as_secs_f64()).max(0.0);
        let to_go = self.moves_to_go.map_or(MOVES_TO_GO, f64::from);
        let last = self.moves_to_go == Some(1);
        let soft = ((left - inc).max(0.0) / to_go + 0.75 * inc)
            .min(available * if last { 0.8 } else { 0.5 });
        let hard = (3.0 * soft).min(available * if last { 0.9 } else { 0.75 });
        let from_secs = |s: f64| Duration::from_secs_f64(s.max(0.0)).max(MIN_BUDGET);
        Budget {
            soft: Some(from_secs(soft)),
            hard: Some(from_secs(hard.max(soft))),
        }
    }
}

/// Where searches and the Hub engine read the time.
pub trait TimeSource: Send + Sync {
    /// Time since the source's start.
    fn now(&self) -> Duration;
    /// How long to wait, in real time, before looking again whether `until` (on this
    /// source) has come.
    fn wait_until(&self, until: Duration) -> Duration;
}

/// The real clock, from its creation.
pub struct RealClock(Instant);

impl RealClock {
    pub fn new() -> RealClock {
        RealClock(Instant::now())
    }
}

impl Default for RealClock {
    fn default() -> Self {
        RealClock::new()
    }
}

impl TimeSource for RealClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }

    fn wait_until(&self, until: Duration) -> Duration {
        until.saturating_sub(self.now())
    }
}

/// A clock that moves only when told to ([`SimulatedClock::advance`]), and, if made
/// [`SimulatedClock::ticking`], by a fixed step at every reading: a search that reads it
/// every so many nodes then sees time pass in proportion to its work, the same on any
/// machine.
#[derive(Default)]
pub struct SimulatedClock {
    nanos: AtomicU64,
    tick: u64,
}

/// How often a waiter looks at a simulated clock again, in real time.
const SIMULATED_POLL: Duration = Duration::from_millis(1);

impl SimulatedClock {
    /// Stands at zero until advanced.
    pub fn new() -> SimulatedClock {
        SimulatedClock::default()
    }

    /// Moves on by `step` at every reading.
    pub fn ticking(step: Duration) -> SimulatedClock {
        SimulatedClock {
            nanos: AtomicU64::new(0),
            tick: nanos(step),
        }
    }

    pub fn advance(&self, by: Duration) {
        self.nanos.fetch_add(nanos(by), Ordering::SeqCst);
    }

    /// The time now, without a tick.
    pub fn peek(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl TimeSource for SimulatedClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.fetch_add(self.tick, Ordering::SeqCst))
    }

    fn wait_until(&self, until: Duration) -> Duration {
        if self.peek() >= until {
            Duration::ZERO
        } else {
            SIMULATED_POLL
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_never_takes_more_than_three_quarters_of_the_clock() {
        for left_ms in [0u64, 1, 5, 50, 500, 5_000, 500_000] {
            for inc_ms in [0u64, 10, 1_000] {
                let clock = Clock {
                    left: Duration::from_millis(left_ms + inc_ms),
                    increment: Duration::from_millis(inc_ms),
                    moves_to_go: None,
                };
                let b = clock.budget(Duration::ZERO);
                let (soft, hard) = (b.soft.unwrap(), b.hard.unwrap());
                assert!(soft <= hard, "{clock:?}: {b:?}");
                assert!(
                    hard <= (clock.left * 3 / 4).max(MIN_BUDGET),
                    "{clock:?}: {b:?}"
                );
            }
        }
    }

    #[test]
    fn a_simulated_clock_moves_only_when_told_or_read_while_ticking() {
        let still = SimulatedClock::new();
        assert_eq!(still.now(), Duration::ZERO);
        assert_eq!(still.now(), Duration::ZERO);
        assert_eq!(still.wait_until(Duration::from_millis(5)), SIMULATED_POLL);
        still.advance(Duration::from_millis(5));
        assert_eq!(still.now(), Duration::from_millis(5));
        assert_eq!(still.wait_until(Duration::from_millis(5)), Duration::ZERO);

        let ticking = SimulatedClock::ticking(Duration::from_millis(2));
        assert_eq!(ticking.now(), Duration::ZERO);
        assert_eq!(ticking.now(), Duration::from_millis(2));
        assert_eq!(ticking.peek(), Duration::from_millis(4));
        ticking.advance(Duration::from_secs(1));
        assert_eq!(ticking.now(), Duration::from_millis(1004));
    }
}
