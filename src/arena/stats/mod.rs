//! Match statistics: Elo, confidence intervals, likelihood of superiority, SPRT.
//!
//! Everything is seen from engine A's point of view: a win is a win for A. Games are
//! played in pairs (each opening twice, colours swapped), so two tallies exist:
//!
//! - the [`Trinomial`] (wins, draws, losses), which treats games as independent;
//! - the [`Pentanomial`] (pairs in which A scored 0, ½, 1, 1½, 2 points), which treats
//!   the *pair* as the independent unit. The two games of a pair share an opening and
//!   are correlated, so only the pentanomial variance is honest for paired openings
//!   (the trinomial one ignores the correlation, usually overstating the noise).
//!
//! Method (the normal approximation used by cutechess-cli, fishtest and most match
//! tools): each unit (a game, or a pair with its points halved) has a score x ∈ [0, 1].
//! Over N units, with mean m and variance v = (1/N)·Σ(x − m)²:
//!
//! - Elo = [`elo_from_score`]\(m), logistic model s = 1 / (1 + 10^(−elo/400));
//! - 95% interval: m ± 1.96·√(v/N), each bound mapped through `elo_from_score`;
//! - LOS = Φ((m − ½) / √(v₀/N)) with v₀ = (1/N)·Σ(x − ½)², the variance under "no
//!   difference". For the trinomial this is exactly the classic
//!   ½·(1 + erf((w − l) / √(2(w + l)))), whatever the number of draws;
//! - SPRT: the GSPRT log-likelihood ratio N·(s₁ − s₀)·(2m − s₀ − s₁) / (2v).
//!
//! Edge cases never produce infinities or NaN (the results go to JSON): a score of 0 or 1
//! would be an infinite Elo, so the score used for Elo (and for the interval bounds) is
//! clamped to [1/(2n), 1 − 1/(2n)] with n the number of games — as if one decisive game
//! had been a draw instead. Zero games give neutral numbers (see [`Estimate`]).

mod normal;
mod rates;
mod sprt;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::game::{Outcome, Side};

pub use normal::{erf, erfc, normal_cdf};
pub use rates::{Mean, Rate};
pub use sprt::{SprtDecision, SprtParams, SprtParamsError, SprtResult};

/// Two-sided 95% normal quantile, rounded as everyone quotes it.
pub const Z_95: f64 = 1.96;

// ---------------------------------------------------------------------------------------
// Elo model
// ---------------------------------------------------------------------------------------

/// Expected score of A against B when A is `elo` points stronger: 1 / (1 + 10^(−elo/400)).
///
/// Saturates to 0 or 1 for huge |elo|; NaN only for a NaN argument.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo difference that gives expected score `score`: 400·log10(s / (1 − s)).
///
/// This is the raw model: 0 gives −∞ and 1 gives +∞ (a score outside [0, 1] is treated
/// as the nearest end). The [`Estimate`]s never pass 0 or 1 here; they clamp first.
pub fn elo_from_score(score: f64) -> f64 {
    let s = score.clamp(0.0, 1.0);
    400.0 * (s / (1.0 - s)).log10()
}

/// The score used for Elo when `games` games were played: clamped to
/// [1/(2n), 1 − 1/(2n)] so that a perfect score gives a finite Elo (the Elo of the same
/// match with one decisive game turned into a draw). For one game that interval is {½}:
/// a single game says nothing about Elo.
fn score_for_elo(score: f64, games: u64) -> f64 {
    if games == 0 {
        return 0.5;
    }
    let margin = 0.5 / games as f64;
    score.clamp(margin, 1.0 - margin)
}

// ---------------------------------------------------------------------------------------
/// The result of one game for engine A.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameResult {
    Loss,
    Draw,
    Win,
}

impl GameResult {
    /// The result for the player who had side `a_side` in a game that ended in `outcome`.
    pub fn from_outcome(outcome: Outcome, a_side: Side) -> GameResult {
        match outcome {
            Outcome::Draw => GameResult::Draw,
            Outcome::Win(winner) if winner == a_side => GameResult::Win,
            Outcome::Win(_) => GameResult::Loss,
        }
    }

    /// Points for A in half-points: 0, 1 or 2.
    pub const fn half_points(self) -> usize {
        match self {
            GameResult::Loss => 0,
            GameResult::Draw => 1,
            GameResult::Win => 2,
        }
    }
}

/// Game totals for A: wins, draws, losses.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub struct Trinomial {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Trinomial {
    pub const fn new(wins: u64, draws: u64, losses: u64) -> Trinomial {
        Trinomial {
            wins,
            draws,
            losses,
        }
    }

    pub fn from_results<I: IntoIterator<Item = GameResult>>(results: I) -> Trinomial {
        let mut tally = Trinomial::default();
        for result in results {
            tally.add(result);
        }
        tally
    }

    pub fn add(&mut self, result: GameResult) {
        let count = match result {
            GameResult::Win => &mut self.wins,
            GameResult::Draw => &mut self.draws,
            GameResult::Loss => &mut self.losses,
        };
        *count = count.saturating_add(1);
    }

    pub fn games(&self) -> u64 {
        self.wins
            .saturating_add(self.draws)
            .saturating_add(self.losses)
    }

    /// A's points: wins + ½·draws.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    fn sample(&self) -> Sample {
        Sample::new(&[(1.0, self.wins), (0.5, self.draws), (0.0, self.losses)])
    }

    /// Elo estimate treating every game as independent (per-game variance).
    /// `draw_ratio` is draws / games (0 for no games).
    pub fn estimate(&self) -> Estimate {
        let games = self.games();
        let draw_ratio = ratio(self.draws, games);
        Estimate::from_sample(&self.sample(), games, Some(draw_ratio))
    }

    /// SPRT on per-game scores.
    pub fn sprt(&self, params: &SprtParams) -> SprtResult {
        params.test(&self.sample())
    }
}

/// Pair totals for A: `counts[k]` = number of pairs in which A scored k half-points
/// (0, ½, 1, 1½, 2 points).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub struct Pentanomial {
    pub counts: [u64; 5],
}

impl Pentanomial {
    pub const fn new(counts: [u64; 5]) -> Pentanomial {
        Pentanomial { counts }
    }

    /// Tally pairs given as the results of their two games (order irrelevant).
    pub fn from_pairs<I: IntoIterator<Item = (GameResult, GameResult)>>(pairs: I) -> Pentanomial {
        let mut tally = Pentanomial::default();
        for (first, second) in pairs {
            tally.add_pair(first, second);
        }
        tally
    }

    pub fn add_pair(&mut self, first: GameResult, second: GameResult) {
        let count = &mut self.counts[first.half_points() + second.half_points()];
        *count = count.saturating_add(1);
    }

    pub fn pairs(&self) -> u64 {
        self.counts.iter().fold(0u64, |a, &c| a.saturating_add(c))
    }

    pub fn games(&self) -> u64 {
        self.pairs().saturating_mul(2)
    }

    /// A's points: Σ k/2 · `counts[k]`.
    pub fn points(&self) -> f64 {
        self.counts
            .iter()
            .enumerate()
            .map(|(k, &c)| 0.5 * k as f64 * c as f64)
            .sum()
    }

    fn sample(&self) -> Sample {
        // The unit is the pair; its score is its points / 2 ∈ {0, ¼, ½, ¾, 1}.
        let units: [(f64, u64); 5] = std::array::from_fn(|k| (k as f64 / 4.0, self.counts[k]));
        Sample::new(&units)
    }

    /// Elo estimate with the per-pair variance (N = pairs, `games` = 2·pairs).
    ///
    /// `draw_ratio` is `None`: a pair scoring 1 point may be two draws or a win and a
    /// loss, so the pentanomial alone does not know the draws ([`MatchTally::estimate`]
    /// fills it in).
    pub fn estimate(&self) -> Estimate {
        Estimate::from_sample(&self.sample(), self.games(), None)
    }

    /// SPRT on per-pair scores (pair points / 2).
    pub fn sprt(&self, params: &SprtParams) -> SprtResult {
        params.test(&self.sample())
    }
}

/// Both tallies of a paired match, kept side by side because the pentanomial cannot
/// be turned back into game totals.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub struct MatchTally {
    pub trinomial: Trinomial,
    pub pentanomial: Pentanomial,
}

impl MatchTally {
    pub fn from_pairs<I: IntoIterator<Item = (GameResult, GameResult)>>(pairs: I) -> MatchTally {
        let mut tally = MatchTally::default();
        for (first, second) in pairs {
            tally.add_pair(first, second);
        }
        tally
    }

    pub fn add_pair(&mut self, first: GameResult, second: GameResult) {
        self.trinomial.add(first);
        self.trinomial.add(second);
        self.pentanomial.add_pair(first, second);
    }

    /// The pentanomial estimate, with the draw ratio taken from the game totals.
    pub fn estimate(&self) -> Estimate {
        Estimate {
            draw_ratio: Some(ratio(self.trinomial.draws, self.trinomial.games())),
            ..self.pentanomial.estimate()
        }
    }

    /// SPRT on the pentanomial.
    pub fn sprt(&self, params: &SprtParams) -> SprtResult {
        self.pentanomial.sprt(params)
    }
}

/// `part / whole`, 0 when `whole` is 0.
fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

// ---------------------------------------------------------------------------------------
// Estimates
// ---------------------------------------------------------------------------------------

/// Mean and variances of a sample of unit scores in [0, 1].
#[derive(Clone, Copy, Debug)]
struct Sample {
    /// N, the number of units (games or pairs).
    units: f64,
    mean: f64,
    /// (1/N)·Σ(x − mean)²: the maximum-likelihood variance, as the GSPRT uses.
    variance: f64,
    /// (1/N)·Σ(x − ½)²: the variance if A and B were equal, for the LOS.
    variance_about_half: f64,
}

impl Sample {
    /// From (unit score, count) pairs. With no units: mean ½, variances 0.
    fn new(values: &[(f64, u64)]) -> Sample {
        let units: f64 = values.iter().map(|&(_, c)| c as f64).sum();
        if units == 0.0 {
            return Sample {
                units: 0.0,
                mean: 0.5,
                variance: 0.0,
                variance_about_half: 0.0,
            };
        }
        let mean_square_about = |centre: f64| {
            values
                .iter()
                .map(|&(x, c)| c as f64 * (x - centre) * (x - centre))
                .sum::<f64>()
                / units
        };
        let mean = values.iter().map(|&(x, c)| c as f64 * x).sum::<f64>() / units;
        Sample {
            units,
            mean,
            variance: mean_square_about(mean),
            variance_about_half: mean_square_about(0.5),
        }
    }
}

/// What a match says about A − B.
///
/// Conventions for the edge cases (all values finite):
/// - no games: score ½, Elo 0, interval [0, 0], LOS ½;
/// - zero variance (all draws, all wins, all losses): the interval collapses onto `elo`;
/// - score 0 or 1: Elo from the score clamped to [1/(2n), 1 − 1/(2n)], n = `games`
///   (e.g. 10 wins out of 10 → score 0.95 → +511.5); the interval bounds are clamped
///   the same way;
/// - LOS is ½ only when the variance about ½ is 0, i.e. no games or all draws.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Estimate {
    /// Games played (2·pairs for a pentanomial estimate).
    pub games: u64,
    /// A's mean score per game in [0, 1], unclamped.
    pub score: f64,
    /// Elo difference A − B.
    pub elo: f64,
    /// Lower end of the 95% interval of the Elo difference.
    pub elo_low: f64,
    /// Upper end of the 95% interval of the Elo difference.
    pub elo_high: f64,
    /// Likelihood of superiority: probability that A is stronger than B, in [0, 1].
    pub los: f64,
    /// Fraction of games drawn; `None` when unknown (pentanomial alone).
    pub draw_ratio: Option<f64>,
}

impl Estimate {
    fn from_sample(sample: &Sample, games: u64, draw_ratio: Option<f64>) -> Estimate {
        if sample.units == 0.0 {
            return Estimate {
                games,
                score: 0.5,
                elo: 0.0,
                elo_low: 0.0,
                elo_high: 0.0,
                los: 0.5,
                draw_ratio,
            };
        }
        let elo_at = |score: f64| elo_from_score(score_for_elo(score, games));
        let stderr = (sample.variance / sample.units).sqrt();
        let half_width = Z_95 * stderr;
        let stderr_if_equal = (sample.variance_about_half / sample.units).sqrt();
        let los = if stderr_if_equal > 0.0 {
            normal_cdf((sample.mean - 0.5) / stderr_if_equal)
        } else {
            // Only all draws get here: the mean is exactly ½.
            0.5
        };
        Estimate {
            games,
            score: sample.mean,
            elo: elo_at(sample.mean),
            elo_low: elo_at(sample.mean - half_width),
            elo_high: elo_at(sample.mean + half_width),
            los,
            draw_ratio,
        }
    }
}

impl Estimate {
    /// Why these games give no Elo estimate worth printing, or `None` when they do.
    /// With no games, a single pair, or every game (every pair) of one result, the
    /// sample's variance is 0: the interval would collapse onto the point and claim a
    /// certainty a handful of games cannot give (and all wins or all losses would show
    /// only the clamp of [`score_for_elo`]).
    pub fn unmeasured(&self) -> Option<String> {
        let n = self.games;
        if n == 0 {
            return Some("no games".to_string());
        }
        if self.elo_low < self.elo_high {
            return None;
        }
        let all = |what: &str| match n {
            1 => format!("the only game {what}"),
            2 => format!("both games {what}"),
            _ => format!("all {n} games {what}"),
        };
        Some(if self.score >= 1.0 {
            all("won")
        } else if self.score <= 0.0 {
            all("lost")
        } else if self.draw_ratio == Some(1.0) {
            all("drawn")
        } else if n <= 2 {
            "a single pair".to_string()
        } else {
            // Every pair scored the same, e.g. each won once and lost once.
            let half_points = (4.0 * self.score).round() as u32;
            format!(
                "all {} pairs scored {}–{}",
                n / 2,
                points_text(half_points),
                points_text(4 - half_points)
            )
        })
    }

    /// The 95% interval's ends rounded outwards to `decimals` places (the low end down,
    /// the high end up): what is printed is never narrower than what was computed.
    /// `None` when the games give no estimate ([`Estimate::unmeasured`]).
    pub fn interval_rounded(&self, decimals: i32) -> Option<(f64, f64)> {
        if self.unmeasured().is_some() {
            return None;
        }
        let scale = 10f64.powi(decimals);
        // `+ 0.0` turns a −0 into 0, so that it prints as +0.
        Some((
            (self.elo_low * scale).floor() / scale + 0.0,
            (self.elo_high * scale).ceil() / scale + 0.0,
        ))
    }

    /// Elo and interval as the reports print them, `+12.3 [-4.6, +29.1]` (with
    /// `decimals` places), or why there is none: `n/a (all 2 games drawn)`.
    pub fn elo_text(&self, decimals: usize) -> String {
        match (self.interval_rounded(decimals as i32), self.unmeasured()) {
            (Some((low, high)), _) => {
                format!(
                    "{:+.decimals$} [{low:+.decimals$}, {high:+.decimals$}]",
                    self.elo
                )
            }
            (None, why) => format!("n/a ({})", why.unwrap_or_default()),
        }
    }
}

/// As JSON: the fields, but no Elo or interval when the games give none (`null`, with
/// `unmeasured` saying why), so that no reader takes a collapsed interval for certainty.
impl Serialize for Estimate {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let why = self.unmeasured();
        let measured = |value: f64| why.is_none().then_some(value);
        let mut s = serializer.serialize_struct("Estimate", 8)?;
        s.serialize_field("games", &self.games)?;
        s.serialize_field("score", &self.score)?;
        s.serialize_field("elo", &measured(self.elo))?;
        s.serialize_field("elo_low", &measured(self.elo_low))?;
        s.serialize_field("elo_high", &measured(self.elo_high))?;
        s.serialize_field("unmeasured", &why)?;
        s.serialize_field("los", &self.los)?;
        s.serialize_field("draw_ratio", &self.draw_ratio)?;
        s.end()
    }
}

/// Points of a pair from half points: `0`, `½`, `1`, `1½`, `2`.
fn points_text(half_points: u32) -> String {
    match (half_points / 2, half_points % 2) {
        (0, 1) => "½".to_string(),
        (whole, 1) => format!("{whole}½"),
        (whole, _) => whole.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// SPRT
// ---------------------------------------------------------------------------------------
