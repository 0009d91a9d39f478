//! The `level` command and how much of the clock a move may spend.
//!
//! Hub times are seconds (real numbers). With a clock, `time` is what is left before
//! this move and `inc` is added first (Scan's convention, which pydraughts follows by
//! sending `time − inc`). A clock's budget is [`crate::search::time`]'s (shared with
//! `match --clock`); a fixed move time is searched to its end, less the move overhead
//! down to half of it.

use std::time::Duration;

use super::protocol::{Line, whole_number};
pub use crate::search::time::Budget;
use crate::search::time::{Clock, MIN_BUDGET};

/// Longest time read, in seconds (a year): larger values are refused, not overflowed.
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// How a search is limited, as the last `level` command said.
#[derive(Clone, Debug, PartialEq)]
pub enum Level {
    /// Fixed limits (any may be absent); all absent means search until `stop`.
    Fixed {
        depth: Option<u32>,
        nodes: Option<u64>,
        move_time: Option<f64>,
    },
    /// A clock: seconds left, increment, and moves to the next time control.
    Clock {
        time: f64,
        inc: f64,
        moves: Option<u32>,
    },
}

impl Default for Level {
    /// One second a move until told otherwise.
    fn default() -> Self {
        Level::Fixed {
            depth: None,
            nodes: None,
            move_time: Some(1.0),
        }
    }
}

fn seconds(line: &Line, name: &str) -> Result<Option<f64>, String> {
    let Some(text) = line.value(name) else {
        return Ok(None);
    };
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=MAX_SECONDS).contains(&v) => Ok(Some(v)),
        Ok(v) if v.is_finite() && v < 0.0 => Ok(Some(0.0)), // a clock already run down
        _ => Err(format!(
            "level {name}={text}: expected seconds, a number from 0 to {MAX_SECONDS}"
        )),
    }
}

fn count(line: &Line, name: &str, max: u64) -> Result<Option<u64>, String> {
    line.value(name)
        .map(|text| whole_number(&format!("level {name}"), text, 1, max, "a whole number"))
        .transpose()
}

impl Level {
    /// Reads a `level` line. Each `level` replaces the previous one whole.
    pub fn parse(line: &Line, max_depth: u32) -> Result<Level, String> {
        for arg in &line.args {
            let known = [
                "depth",
                "nodes",
                "move-time",
                "time",
                "inc",
                "moves",
                "infinite",
            ];
            if !known.contains(&arg.name.as_str()) {
                return Err(format!(
                    "level: unknown argument '{}' (known: {})",
                    arg.name,
                    known.join(", ")
                ));
            }
        }
        let depth = count(line, "depth", max_depth.into())?.map(|d| d as u32);
        let nodes = count(line, "nodes", u64::MAX)?;
        let move_time = seconds(line, "move-time")?;
        let time = seconds(line, "time")?;
        let inc = seconds(line, "inc")?;
        let moves = count(line, "moves", 10_000)?.map(|m| m as u32);
        if line.has("infinite") {
            if line.args.len() > 1 {
                return Err("level infinite: takes no other argument".into());
            }
            return Ok(Level::Fixed {
                depth: None,
                nodes: None,
                move_time: None,
            });
        }
        match time {
            Some(time) => {
                if depth.is_some() || nodes.is_some() || move_time.is_some() {
                    return Err(
                        "level: time does not combine with depth, nodes or move-time".into(),
                    );
                }
                Ok(Level::Clock {
                    time,
                    inc: inc.unwrap_or(0.0),
                    moves,
                })
            }
            None if inc.is_some() || moves.is_some() => {
                Err("level: inc and moves need time".into())
            }
            None if depth.is_none() && nodes.is_none() && move_time.is_none() => {
                Err("level: give depth, nodes, move-time, time [inc moves] or infinite".into())
            }
            None => Ok(Level::Fixed {
                depth,
                nodes,
                move_time,
            }),
        }
    }

    /// The time marks of a move searched at this level with `overhead` of latency.
    pub fn budget(&self, overhead: Duration) -> Budget {
        match *self {
            Level::Fixed { move_time, .. } => match move_time {
                // No clock to save time for: the whole move time is searched (as `match
                // --movetime` does), less the overhead, which takes at most half of it.
                Some(t) => {
                    let t = Duration::from_secs_f64((t - overhead.as_secs_f64()).max(t / 2.0))
                        .max(MIN_BUDGET);
                    Budget {
                        soft: None,
                        hard: Some(t),
                    }
                }
                None => Budget::default(),
            },
            Level::Clock { time, inc, moves } => Clock {
                left: Duration::from_secs_f64(time.max(0.0) + inc),
                increment: Duration::from_secs_f64(inc),
                moves_to_go: moves,
            }
            .budget(overhead),
        }
    }

    /// Depth and node limits for the searcher (time is watched by the caller).
    pub fn depth_and_nodes(&self) -> (Option<u32>, Option<u64>) {
        match *self {
            Level::Fixed { depth, nodes, .. } => (depth, nodes),
            Level::Clock { .. } => (None, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::brazilian::hub::protocol::parse_line;

    fn level(text: &str) -> Result<Level, String> {
        Level::parse(&parse_line(text).unwrap().unwrap(), 120)
    }

    fn secs(d: Option<Duration>) -> f64 {
        d.unwrap().as_secs_f64()
    }

    #[test]
    fn reads_every_form() {
        assert_eq!(
            level("level depth=6"),
            Ok(Level::Fixed {
                depth: Some(6),
                nodes: None,
                move_time: None
            })
        );
        assert_eq!(
            level("level nodes=1000 depth=9"),
            Ok(Level::Fixed {
                depth: Some(9),
                nodes: Some(1000),
                move_time: None
            })
        );
        assert_eq!(
            level("level move-time=0.5"),
            Ok(Level::Fixed {
                depth: None,
                nodes: None,
                move_time: Some(0.5)
            })
        );
        assert_eq!(
            level("level moves=40 time=120 inc=1.5"),
            Ok(Level::Clock {
                time: 120.0,
                inc: 1.5,
                moves: Some(40)
            })
        );
        assert_eq!(
            level("level time=-0.2 inc=0.1"),
            Ok(Level::Clock {
                time: 0.0,
                inc: 0.1,
                moves: None
            })
        );
        assert!(matches!(
            level("level infinite"),
            Ok(Level::Fixed {
                depth: None,
                nodes: None,
                move_time: None
            })
        ));
        for bad in [
            "level",
            "level depth=0",
            "level depth=121",
            "level depth=x",
            "level time=NaN",
            "level time=inf",
            "level time=1e300",
            "level inc=1",
            "level time=10 depth=5",
            "level speed=3",
            "level infinite depth=3",
        ] {
            assert!(level(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn clock_budgets_leave_time_for_the_rest_of_the_game() {
        let overhead = Duration::from_millis(30);
        // 60 s + 1 s: about 60/25 + 0.75 s soft, three times that hard.
        let b = level("level time=60 inc=1").unwrap().budget(overhead);
        assert!((secs(b.soft) - 3.15).abs() < 1e-9, "{b:?}");
        assert!((secs(b.hard) - 9.45).abs() < 1e-9, "{b:?}");
        // Short of time: never more than three quarters of what is left.
        let b = level("level time=0.2 inc=0.05").unwrap().budget(overhead);
        assert!(secs(b.hard) <= 0.75 * (0.25 - 0.03) + 1e-9, "{b:?}");
        assert!(secs(b.soft) <= secs(b.hard));
        // The last move before the time control may use most of the clock.
        let b = level("level moves=1 time=10").unwrap().budget(overhead);
        assert!(secs(b.hard) > 8.0 && secs(b.hard) < 9.0, "{b:?}");
        // A flag already fallen still gets a search of the least length.
        let b = level("level time=0").unwrap().budget(overhead);
        assert_eq!(b.hard, Some(MIN_BUDGET));
        // Fixed time per move, less the overhead, all of it searched: iterations start
        // until the end.
        let b = level("level move-time=0.5").unwrap().budget(overhead);
        assert_eq!(b.hard, Some(Duration::from_millis(470)));
        assert_eq!(b.last_iteration_start(), None);
        let b = level("level move-time=0.05")
            .unwrap()
            .budget(Duration::from_millis(100));
        assert_eq!(b.hard, Some(Duration::from_millis(25)));
        assert_eq!(
            level("level depth=5").unwrap().budget(overhead),
            Budget::default()
        );
    }

    #[test]
    fn a_whole_game_with_increment_never_runs_out() {
        // The worst case: every move spends its hard budget plus 10 ms of real latency
        // (the overhead allowed is 30 ms), for 300 moves. `clock` is what the client's
        // clock shows, the increment of the last move included; the client sends
        // `time = clock − inc` (pydraughts). Without increment latency alone ends any
        // game eventually, so only increments are checked.
        for (time, inc) in [(0.5, 0.02), (1.0, 0.05), (10.0, 0.1), (60.0, 1.0)] {
            let mut clock: f64 = time;
            for _ in 0..300 {
                let line = format!("level time={} inc={inc}", clock - inc);
                let b = level(&line).unwrap().budget(Duration::from_millis(30));
                let spent = secs(b.hard) + 0.01;
                assert!(spent < clock, "time {time} inc {inc}: {spent} > {clock}");
                clock = clock - spent + inc;
            }
        }
    }
}
