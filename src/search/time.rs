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

use std::time::Duration;

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
}
