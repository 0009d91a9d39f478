//! Final margins of a match (Kalah: the final store difference, in stones) from A's
//! side: the mean per game with a 95% interval, and against the `perfect` player the
//! stones given away to perfect play.
//!
//! As for Elo (see [`super::stats`]), the unit is the *pair*: the two games of an
//! opening share it, so the interval comes from the spread of the pairs' mean margins
//! (normal approximation, 1.96 standard errors). Perfect play keeps the value of the
//! opening with either colour, so over a pair it gives up nothing: whatever the
//! opening's value `v`, a perfect A ends the pair with at least `v + (−v) = 0`, and the
//! margin a perfect B holds A to is what A lost.

use serde_json::{Value, json};

use super::matches::PairResult;
use super::stats::Mean;
use crate::game::{EndReason, Game, Side};

/// Which side of a match plays perfectly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerfectSide {
    A,
    B,
}

impl PerfectSide {
    /// The side's letter in the report.
    pub fn letter(self) -> char {
        match self {
            PerfectSide::A => 'A',
            PerfectSide::B => 'B',
        }
    }
}

/// The margins of a match's games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarginSummary {
    /// Mean final margin per game for A, over the counted pairs' games.
    pub mean: f64,
    /// Its 95% interval (both ends equal to `mean` when every pair is alike; infinite
    /// with one pair).
    pub low: f64,
    pub high: f64,
    /// Games counted: both games of every pair whose games ended by the rules.
    pub games: u64,
    /// Pairs left out: one of their games was stopped by the ply cap or a clock.
    pub pairs_left_out: u64,
}

/// A's final margin in `game`, where A had side `a_side`; `None` unless the game ended
/// by the rules (a game stopped by the ply cap or lost on time has no final margin).
pub fn game_margin<G: Game>(
    game: &crate::io::dataset::DatasetGame<G>,
    a_side: Side,
) -> Option<i32> {
    if game.reason != EndReason::NoMoves {
        return None;
    }
    let last = game.positions.last()?;
    let margin = last.final_margin();
    Some(if last.side_to_move() == a_side {
        margin
    } else {
        -margin
    })
}

/// The margins of `pairs` (A is the first side in a pair's first game), or `None` for a
/// game whose results have no margin (draughts: won, drawn or lost).
pub fn summarise<G: Game>(pairs: &[PairResult<G>]) -> Option<MarginSummary> {
    if G::MAX_MARGIN <= 1 {
        return None;
    }
    let mut pair_means = Mean::default();
    let mut left_out = 0;
    for pair in pairs {
        match (
            game_margin(&pair.games[0], Side::First),
            game_margin(&pair.games[1], Side::Second),
        ) {
            (Some(first), Some(second)) => pair_means.add(f64::from(first + second) / 2.0),
            _ => left_out += 1,
        }
    }
    let mean = pair_means.value();
    let half = pair_means.half_width();
    Some(MarginSummary {
        mean,
        low: mean - half,
        high: mean + half,
        games: 2 * pair_means.count,
        pairs_left_out: left_out,
    })
}

impl MarginSummary {
    /// The report's lines (`units`: the game's, e.g. `stones`), the stones lost to
    /// perfect play among them when one side plays perfectly.
    pub fn lines(&self, units: &str, perfect: Option<PerfectSide>) -> Vec<String> {
        if self.games == 0 {
            return vec![format!(
                "margin       n/a (no pair of games ended by the rules; {} left out)",
                self.pairs_left_out
            )];
        }
        let left_out = match self.pairs_left_out {
            0 => String::new(),
            1 => "; 1 pair left out: a game stopped by the ply cap or the clock".to_string(),
            n => format!("; {n} pairs left out: games stopped by the ply cap or the clock"),
        };
        // Margins are signed; stones lost are a plain amount.
        let interval = |low: f64, high: f64, signed: bool| match self.rounded(low, high) {
            Some((low, high)) if signed => format!("95% interval [{low:+.2}, {high:+.2}]"),
            Some((low, high)) => format!("95% interval [{low:.2}, {high:.2}]"),
            None => "no interval from one pair".to_string(),
        };
        let mut lines = vec![format!(
            "margin       A {:+.2} {units} a game (final stores A − B), {} ({} games{left_out})",
            self.mean,
            interval(self.low, self.high, true),
            self.games
        )];
        if let Some((loser, lost, low, high)) = self.lost_to_perfect(perfect) {
            lines.push(format!(
                "vs perfect   {loser} loses {lost:.2} {units} a game against perfect play, {}",
                interval(low, high, false)
            ));
        }
        lines
    }

    /// The side that is not perfect, with the mean it loses per game against perfect
    /// play and its interval (`None` unless exactly one side is perfect).
    fn lost_to_perfect(&self, perfect: Option<PerfectSide>) -> Option<(char, f64, f64, f64)> {
        match perfect? {
            // A's margin is what B lost.
            PerfectSide::A => Some(('B', self.mean, self.low, self.high)),
            PerfectSide::B => Some(('A', -self.mean, -self.high, -self.low)),
        }
    }

    /// The interval rounded outward to two decimals, so it never looks narrower than
    /// computed; `None` when it is infinite (a single pair).
    fn rounded(&self, low: f64, high: f64) -> Option<(f64, f64)> {
        (low.is_finite() && high.is_finite())
            .then(|| ((low * 100.0).floor() / 100.0, (high * 100.0).ceil() / 100.0))
    }

    /// The `--json` fields: `mean_margin`, `mean_margin_interval`, `margin_games`,
    /// `margin_pairs_left_out`, `margin_units` and, against perfect play,
    /// `lost_to_perfect` (`side`, `mean`, `interval`). Unknown values are `null`.
    pub fn json(&self, units: &str, perfect: Option<PerfectSide>) -> Vec<(&'static str, Value)> {
        let measured = self.games > 0;
        let interval = |low: f64, high: f64| {
            (measured && low.is_finite() && high.is_finite()).then_some([low, high])
        };
        let mut fields = vec![
            ("mean_margin", json!(measured.then_some(self.mean))),
            ("mean_margin_interval", json!(interval(self.low, self.high))),
            ("margin_games", json!(self.games)),
            ("margin_pairs_left_out", json!(self.pairs_left_out)),
            ("margin_units", json!(units)),
        ];
        if let Some((loser, lost, low, high)) = self.lost_to_perfect(perfect) {
            fields.push((
                "lost_to_perfect",
                json!({
                    "side": loser.to_string(),
                    "mean": measured.then_some(lost),
                    "interval": interval(low, high),
                }),
            ));
        }
        fields
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::stats::GameResult;
    use crate::games::brazilian::Brazilian;
    use crate::games::kalah::{Kalah, KalahRules};
    use crate::io::dataset::DatasetGame;

    fn finished(text: &str, reason: EndReason) -> DatasetGame<Kalah> {
        let rules = KalahRules {
            stones: 4,
            empty_capture: false,
        };
        let pos = Kalah::parse_position_of(rules, text).unwrap();
        DatasetGame {
            index: 0,
            positions: vec![pos],
            moves: Vec::new(),
            scores: Vec::new(),
            depths: Vec::new(),
            leaves: Vec::new(),
            outcome: crate::game::Outcome::Draw,
            reason,
        }
    }

    fn pair(first: DatasetGame<Kalah>, second: DatasetGame<Kalah>) -> PairResult<Kalah> {
        PairResult {
            index: 0,
            games: [first, second],
            results: (GameResult::Draw, GameResult::Draw),
        }
    }

    // A game over with A's stores 30, B's 18 (B to move, B's pits empty): +12 for A.
    const A_BY_12: &str = "B:0,0,0,0,0,0,30,0,0,0,0,0,0,18";
    // A to move with no stones: A 20, B 28, −8 for A.
    const B_BY_8: &str = "A:0,0,0,0,0,0,20,0,0,0,0,0,0,28";

    #[test]
    fn margins_are_seen_from_a_and_averaged_by_pairs() {
        let won = finished(A_BY_12, EndReason::NoMoves);
        let lost = finished(B_BY_8, EndReason::NoMoves);
        assert_eq!(game_margin(&won, Side::First), Some(12));
        assert_eq!(game_margin(&won, Side::Second), Some(-12));
        assert_eq!(game_margin(&lost, Side::First), Some(-8));
        assert_eq!(
            game_margin(&finished(A_BY_12, EndReason::PlyCap), Side::First),
            None
        );
        // Pair means: (12 + 8) / 2 = 10 and (−8 − 12) / 2 = −10; a capped pair is left out.
        let pairs = [
            pair(won.clone(), lost.clone()),
            pair(lost.clone(), won.clone()),
            pair(finished(A_BY_12, EndReason::PlyCap), lost.clone()),
        ];
        let summary = summarise(&pairs).unwrap();
        assert_eq!(
            (summary.mean, summary.games, summary.pairs_left_out),
            (0.0, 4, 1)
        );
        let half = 1.96 * (200.0f64 / 2.0).sqrt();
        assert!((summary.high - half).abs() < 1e-9 && (summary.low + half).abs() < 1e-9);
        let lines = summary.lines("stones", Some(PerfectSide::B));
        assert!(lines[0].contains("A +0.00 stones a game"), "{lines:?}");
        assert!(lines[0].contains("1 pair left out"), "{lines:?}");
        assert!(lines[1].contains("A loses"), "{lines:?}");
    }

    #[test]
    fn the_loser_against_perfect_play_is_the_other_side() {
        let summary = MarginSummary {
            mean: -1.5,
            low: -2.0,
            high: -1.0,
            games: 10,
            pairs_left_out: 0,
        };
        assert_eq!(
            summary.lost_to_perfect(Some(PerfectSide::B)),
            Some(('A', 1.5, 1.0, 2.0))
        );
        assert_eq!(
            summary.lost_to_perfect(Some(PerfectSide::A)),
            Some(('B', -1.5, -2.0, -1.0))
        );
        assert_eq!(summary.lost_to_perfect(None), None);
        let lines = summary.lines("stones", Some(PerfectSide::B));
        assert_eq!(
            lines[1],
            "vs perfect   A loses 1.50 stones a game against perfect play, 95% interval [1.00, 2.00]"
        );
        let json: serde_json::Map<String, Value> = summary
            .json("stones", Some(PerfectSide::B))
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert_eq!(json["mean_margin"], json!(-1.5));
        assert_eq!(json["mean_margin_interval"], json!([-2.0, -1.0]));
        assert_eq!(json["lost_to_perfect"]["mean"], json!(1.5));
    }

    #[test]
    fn draughts_has_no_margins() {
        assert_eq!(summarise::<Brazilian>(&[]), None);
    }
}
