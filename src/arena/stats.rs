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

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::game::{Outcome, Side};

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
// erf and the normal distribution
// ---------------------------------------------------------------------------------------

/// 1/√π.
const FRAC_1_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI / 2.0;

// W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23
// (1969) 631–638, as coded in his CALERF (SPECFUN, ACM TOMS 715). The coefficients are
// copied verbatim, hence more digits than an f64 holds. Relative error ≲ 1e-16 in f64.
#[allow(clippy::excessive_precision)]
const ERF_A: [f64; 5] = [
    3.16112374387056560e00,
    1.13864154151050156e02,
    3.77485237685302021e02,
    3.20937758913846947e03,
    1.85777706184603153e-1,
];
#[allow(clippy::excessive_precision)]
const ERF_B: [f64; 4] = [
    2.36012909523441209e01,
    2.44024637934444173e02,
    1.28261652607737228e03,
    2.84423683343917062e03,
];
#[allow(clippy::excessive_precision)]
const ERF_C: [f64; 9] = [
    5.64188496988670089e-1,
    8.88314979438837594e00,
    6.61191906371416295e01,
    2.98635138197400131e02,
    8.81952221241769090e02,
    1.71204761263407058e03,
    2.05107837782607147e03,
    1.23033935479799725e03,
    2.15311535474403846e-8,
];
#[allow(clippy::excessive_precision)]
const ERF_D: [f64; 8] = [
    1.57449261107098347e01,
    1.17693950891312499e02,
    5.37181101862009858e02,
    1.62138957456669019e03,
    3.29079923573345963e03,
    4.36261909014324716e03,
    3.43936767414372164e03,
    1.23033935480374942e03,
];
#[allow(clippy::excessive_precision)]
const ERF_P: [f64; 6] = [
    3.05326634961232344e-1,
    3.60344899949804439e-1,
    1.25781726111229246e-1,
    1.60837851487422766e-2,
    6.58749161529837803e-4,
    1.63153871373020978e-2,
];
#[allow(clippy::excessive_precision)]
const ERF_Q: [f64; 5] = [
    2.56852019228982242e00,
    1.87295284992346047e00,
    5.27905102951428412e-1,
    6.05183413124413191e-2,
    2.33520497626869185e-3,
];

/// Below this |x|, erf is computed directly; above, through erfc.
const ERF_SMALL_LIMIT: f64 = 0.46875;
/// Above this x, erfc(x) underflows to 0 in f64.
const ERFC_ZERO_LIMIT: f64 = 26.543;

/// erf(x)/x for |x| ≤ 0.46875, from z = x².
fn erf_over_x_small(z: f64) -> f64 {
    let mut num = ERF_A[4] * z;
    let mut den = z;
    for i in 0..3 {
        num = (num + ERF_A[i]) * z;
        den = (den + ERF_B[i]) * z;
    }
    (num + ERF_A[3]) / (den + ERF_B[3])
}

/// erfc(y) for y > 0.46875.
fn erfc_large(y: f64) -> f64 {
    if y >= ERFC_ZERO_LIMIT {
        return 0.0;
    }
    let ratio = if y <= 4.0 {
        let mut num = ERF_C[8] * y;
        let mut den = y;
        for i in 0..7 {
            num = (num + ERF_C[i]) * y;
            den = (den + ERF_D[i]) * y;
        }
        (num + ERF_C[7]) / (den + ERF_D[7])
    } else {
        let z = 1.0 / (y * y);
        let mut num = ERF_P[5] * z;
        let mut den = z;
        for i in 0..4 {
            num = (num + ERF_P[i]) * z;
            den = (den + ERF_Q[i]) * z;
        }
        let r = z * (num + ERF_P[4]) / (den + ERF_Q[4]);
        (FRAC_1_SQRT_PI - r) / y
    };
    // exp(−y²) in two factors, as Cody does: y² rounded to a multiple of 1/16² is exact,
    // so the rounding error of y·y is not amplified by the exponential.
    let y_rounded = (y * 16.0).trunc() / 16.0;
    let rest = (y - y_rounded) * (y + y_rounded);
    (-y_rounded * y_rounded).exp() * (-rest).exp() * ratio
}

/// The error function erf(x) = (2/√π)·∫₀ˣ e^(−t²) dt (Cody's rational approximations,
/// error below 1e-15 everywhere).
pub fn erf(x: f64) -> f64 {
    let y = x.abs();
    if y <= ERF_SMALL_LIMIT {
        x * erf_over_x_small(y * y)
    } else if x < 0.0 {
        erfc_large(y) - 1.0
    } else {
        1.0 - erfc_large(y)
    }
}

/// The complementary error function erfc(x) = 1 − erf(x), accurate in the far tail.
pub fn erfc(x: f64) -> f64 {
    let y = x.abs();
    if y <= ERF_SMALL_LIMIT {
        1.0 - x * erf_over_x_small(y * y)
    } else if x < 0.0 {
        2.0 - erfc_large(y)
    } else {
        erfc_large(y)
    }
}

/// Standard normal cumulative distribution Φ(z) = ½·erfc(−z/√2).
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

// ---------------------------------------------------------------------------------------
// Tallies
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

/// Why SPRT parameters were rejected.
#[derive(Clone, PartialEq, Debug)]
pub enum SprtParamsError {
    /// Not four comma-separated fields.
    Format { text: String },
    /// A field is not a number.
    Number { name: &'static str, text: String },
    /// An Elo bound is infinite or NaN.
    NotFinite { name: &'static str, value: f64 },
    /// elo0 ≥ elo1.
    EloOrder { elo0: f64, elo1: f64 },
    /// alpha or beta outside (0, 1).
    ErrorRate { name: &'static str, value: f64 },
    /// alpha + beta ≥ 1: the acceptance bounds would cross.
    ErrorSum { alpha: f64, beta: f64 },
}

impl fmt::Display for SprtParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SprtParamsError::Format { text } => write!(
                f,
                "SPRT parameters must be ELO0,ELO1,ALPHA,BETA (e.g. 0,10,0.05,0.05), got '{text}'"
            ),
            SprtParamsError::Number { name, text } => {
                write!(f, "SPRT {name} must be a number, got '{text}'")
            }
            SprtParamsError::NotFinite { name, value } => {
                write!(f, "SPRT {name} must be a finite number, got {value}")
            }
            SprtParamsError::EloOrder { elo0, elo1 } => write!(
                f,
                "SPRT needs ELO0 < ELO1 (H0: elo = ELO0 against H1: elo = ELO1), \
                 got ELO0 = {elo0} and ELO1 = {elo1}"
            ),
            SprtParamsError::ErrorRate { name, value } => write!(
                f,
                "SPRT {name} is an error probability and must be strictly between 0 and 1, \
                 got {value}"
            ),
            SprtParamsError::ErrorSum { alpha, beta } => write!(
                f,
                "SPRT needs ALPHA + BETA < 1 (otherwise the acceptance bounds cross), \
                 got {alpha} + {beta}"
            ),
        }
    }
}

impl std::error::Error for SprtParamsError {}

/// Sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1, with
/// false-positive rate alpha (accepting H1 when H0 holds) and false-negative rate beta.
/// Always valid: built only by [`SprtParams::new`] or parsing.
#[derive(Clone, Copy, PartialEq, Debug, Serialize)]
pub struct SprtParams {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
}

impl SprtParams {
    /// Checks elo0 < elo1 (both finite), 0 < alpha < 1, 0 < beta < 1 and
    /// alpha + beta < 1.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<SprtParams, SprtParamsError> {
        for (name, value) in [("ELO0", elo0), ("ELO1", elo1)] {
            if !value.is_finite() {
                return Err(SprtParamsError::NotFinite { name, value });
            }
        }
        if elo0 >= elo1 {
            return Err(SprtParamsError::EloOrder { elo0, elo1 });
        }
        for (name, value) in [("ALPHA", alpha), ("BETA", beta)] {
            // Written so that NaN fails too.
            if !(value > 0.0 && value < 1.0) {
                return Err(SprtParamsError::ErrorRate { name, value });
            }
        }
        if alpha + beta >= 1.0 {
            return Err(SprtParamsError::ErrorSum { alpha, beta });
        }
        Ok(SprtParams {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Parses `"ELO0,ELO1,ALPHA,BETA"`, e.g. `"0,10,0.05,0.05"` (spaces around the
    /// numbers allowed).
    pub fn parse(text: &str) -> Result<SprtParams, SprtParamsError> {
        let fields: Vec<&str> = text.split(',').map(str::trim).collect();
        let [elo0, elo1, alpha, beta] = fields.as_slice() else {
            return Err(SprtParamsError::Format {
                text: text.to_owned(),
            });
        };
        let number = |name: &'static str, field: &str| {
            field.parse::<f64>().map_err(|_| SprtParamsError::Number {
                name,
                text: field.to_owned(),
            })
        };
        SprtParams::new(
            number("ELO0", elo0)?,
            number("ELO1", elo1)?,
            number("ALPHA", alpha)?,
            number("BETA", beta)?,
        )
    }

    pub fn elo0(&self) -> f64 {
        self.elo0
    }

    pub fn elo1(&self) -> f64 {
        self.elo1
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// Accept H0 at or below this LLR: ln(beta / (1 − alpha)) (negative).
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// Accept H1 at or above this LLR: ln((1 − beta) / alpha) (positive).
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The decision for a log-likelihood ratio; reaching a bound counts as crossing it.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }

    /// Generalized SPRT log-likelihood ratio, normal approximation:
    ///
    /// LLR = N·(s₁ − s₀)·(2m − s₀ − s₁) / (2v)
    ///
    /// with s₀, s₁ the expected scores at elo0, elo1, and m, v the mean and variance of
    /// the unit scores over N units. It is 0 when v = 0 (no games, or every unit scored
    /// the same): there is no noise estimate yet, so the test goes on.
    fn llr(&self, sample: &Sample) -> f64 {
        if sample.variance <= 0.0 {
            return 0.0;
        }
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        sample.units * (s1 - s0) * (2.0 * sample.mean - s0 - s1) / (2.0 * sample.variance)
    }

    fn test(&self, sample: &Sample) -> SprtResult {
        let llr = self.llr(sample);
        SprtResult {
            llr,
            lower: self.lower_bound(),
            upper: self.upper_bound(),
            decision: self.decide(llr),
        }
    }
}

impl FromStr for SprtParams {
    type Err = SprtParamsError;

    fn from_str(text: &str) -> Result<SprtParams, SprtParamsError> {
        SprtParams::parse(text)
    }
}

/// Writes the form [`SprtParams::parse`] reads, e.g. `0,10,0.05,0.05`.
impl fmt::Display for SprtParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{},{},{},{}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtDecision {
    /// LLR ≤ lower bound: A is not `elo1` stronger (H0: elo = elo0 accepted).
    AcceptH0,
    /// LLR ≥ upper bound: A is `elo1` stronger (H1 accepted).
    AcceptH1,
    /// Between the bounds: play more games.
    Continue,
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::Continue => "continue",
        })
    }
}

/// The state of an SPRT: the LLR, its bounds and the decision they give.
#[derive(Clone, Copy, PartialEq, Debug, Serialize)]
pub struct SprtResult {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub decision: SprtDecision,
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPS: f64 = 1e-6;

    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "expected {expected}, got {actual} (tolerance {tolerance})"
        );
    }

    fn assert_finite(e: &Estimate) {
        for value in [e.score, e.elo, e.elo_low, e.elo_high, e.los] {
            assert!(value.is_finite(), "non-finite value in {e:?}");
        }
        if let Some(d) = e.draw_ratio {
            assert!(d.is_finite(), "non-finite draw ratio in {e:?}");
        }
        assert!(e.elo_low <= e.elo && e.elo <= e.elo_high, "{e:?}");
        assert!((0.0..=1.0).contains(&e.los), "{e:?}");
    }

    // --- Elo model ---

    #[test]
    fn elo_of_three_quarters_is_400_log10_3() {
        // s/(1 − s) = 0.75/0.25 = 3, so Elo = 400·log10(3) = 190.848501887…
        assert_close(elo_from_score(0.75), 400.0 * 3f64.log10(), 1e-12);
        assert_close(elo_from_score(0.75), 190.848_501_887_864_98, 1e-9);
        assert_close(elo_from_score(0.25), -190.848_501_887_864_98, 1e-9);
        assert_eq!(elo_from_score(0.5), 0.0);
        assert_close(score_from_elo(400.0 * 3f64.log10()), 0.75, 1e-12);
        // 400 Elo: 10^1 = 10 times the odds, s = 10/11.
        assert_close(score_from_elo(400.0), 10.0 / 11.0, 1e-12);
    }

    #[test]
    fn score_and_elo_round_trip() {
        for elo in [-800.0, -190.0, -35.5, -1.0, 0.0, 0.25, 10.0, 123.4, 700.0] {
            assert_close(elo_from_score(score_from_elo(elo)), elo, 1e-9);
        }
        for score in [0.001, 0.1, 0.37, 0.5, 0.62, 0.9, 0.999] {
            assert_close(score_from_elo(elo_from_score(score)), score, 1e-12);
        }
    }

    #[test]
    fn raw_elo_model_saturates_without_nan() {
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert_eq!(elo_from_score(1.5), f64::INFINITY);
        assert_eq!(elo_from_score(-0.5), f64::NEG_INFINITY);
        assert_eq!(score_from_elo(1e6), 1.0);
        assert_eq!(score_from_elo(-1e6), 0.0);
    }

    // --- erf ---

    #[test]
    fn erf_matches_known_values() {
        // Reference values to 16 digits (e.g. mpmath / glibc).
        let table = [
            (0.1, 0.1124629160182849, 0.8875370839817152),
            (0.5, 0.5204998778130465, 0.4795001221869535),
            (1.0, 0.8427007929497149, 0.15729920705028513),
            (1.5, 0.9661051464753108, 0.033894853524689274),
            (2.0, 0.9953222650189527, 0.004677734981047265),
            (3.0, 0.9999779095030014, 2.2090496998585438e-05),
            (4.0, 0.9999999845827421, 1.541725790028002e-08),
            (5.0, 0.9999999999984626, 1.5374597944280351e-12),
        ];
        for (x, erf_x, erfc_x) in table {
            assert_close(erf(x), erf_x, 1e-15);
            assert_close(erf(-x), -erf_x, 1e-15);
            // erfc is checked relatively: the tail is what it is for.
            assert_close(erfc(x) / erfc_x, 1.0, 1e-14);
            assert_close(erfc(-x), 2.0 - erfc_x, 1e-15);
        }
        assert_eq!(erf(0.0), 0.0);
        assert_eq!(erfc(0.0), 1.0);
        assert_close(erfc(6.0) / 2.1519736712498916e-17, 1.0, 1e-13);
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
        assert_eq!(erfc(30.0), 0.0);
    }

    /// erf by a series with positive terms only (no cancellation):
    /// erf(x) = (2/√π)·e^(−x²)·Σₙ 2ⁿ·x^(2n+1) / (1·3·…·(2n+1)).
    fn erf_by_series(x: f64) -> f64 {
        let mut term = x;
        let mut sum = x;
        let mut n = 0.0;
        while term > 1e-18 * sum {
            n += 1.0;
            term *= 2.0 * x * x / (2.0 * n + 1.0);
            sum += term;
        }
        std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp() * sum
    }

    #[test]
    fn erf_agrees_with_series_across_branches() {
        // Covers the three branches and their joins at 0.46875 and 4.
        let mut x = 0.01;
        while x < 5.0 {
            assert_close(erf(x), erf_by_series(x), 1e-14);
            x += 0.0123;
        }
        for x in [0.46875, 0.468_750_001, 4.0, 4.000_000_001] {
            assert_close(erf(x), erf_by_series(x), 1e-14);
        }
    }

    #[test]
    fn normal_cdf_known_values() {
        assert_eq!(normal_cdf(0.0), 0.5);
        assert_close(normal_cdf(1.96), 0.9750021048517795, 1e-15);
        assert_close(normal_cdf(-1.0), 0.15865525393145707, 1e-15);
        assert_close(normal_cdf(-8.0) / 6.220960574271819e-16, 1.0, 1e-12);
    }

    // --- Estimates ---

    #[test]
    fn trinomial_60_20_20() {
        // n = 100 games, points = 60 + 20/2 = 70, score m = 0.7.
        // Per-game variance: 0.6·(1 − 0.7)² + 0.2·(0.5 − 0.7)² + 0.2·(0 − 0.7)²
        //                  = 0.6·0.09 + 0.2·0.04 + 0.2·0.49 = 0.054 + 0.008 + 0.098 = 0.16.
        // stderr = √(0.16/100) = 0.04; 1.96·0.04 = 0.0784 → scores [0.6216, 0.7784].
        // Elo  = 400·log10(0.7/0.3)       = 147.190714…
        // low  = 400·log10(0.6216/0.3784) =  86.223951…
        // high = 400·log10(0.7784/0.2216) = 218.253228…
        // LOS = Φ((w − l)/√(w + l)) = Φ(40/√80) = ½(1 + erf(40/√160)) = 0.999996127…
        let e = Trinomial::new(60, 20, 20).estimate();
        assert_eq!(e.games, 100);
        assert_close(e.score, 0.7, 1e-12);
        assert_close(e.elo, 400.0 * (0.7f64 / 0.3).log10(), 1e-9);
        assert_close(e.elo, 147.190_714_117_837_73, EPS);
        assert_close(e.elo_low, 400.0 * (0.6216f64 / 0.3784).log10(), 1e-9);
        assert_close(e.elo_low, 86.223_951_225_241_02, EPS);
        assert_close(e.elo_high, 400.0 * (0.7784f64 / 0.2216).log10(), 1e-9);
        assert_close(e.elo_high, 218.253_228_481_561_3, EPS);
        assert_close(e.los, 0.5 * (1.0 + erf(40.0 / 160f64.sqrt())), 1e-15);
        assert_close(e.los, 0.999_996_127_891_784_5, 1e-12);
        assert_eq!(e.draw_ratio, Some(0.2));
        assert_finite(&e);
    }

    #[test]
    fn los_10_wins_5_losses_is_classic_formula() {
        // (w − l)/√(2(w + l)) = 5/√30; draws do not matter.
        let expected = 0.5 * (1.0 + erf(5.0 / 30f64.sqrt()));
        assert_close(expected, 0.901_647_198_770_526_6, 1e-12);
        for draws in [0, 7, 100] {
            assert_close(Trinomial::new(10, draws, 5).estimate().los, expected, 1e-12);
        }
        // Swapping wins and losses mirrors it.
        assert_close(
            Trinomial::new(5, 3, 10).estimate().los,
            1.0 - expected,
            1e-12,
        );
    }

    #[test]
    fn pentanomial_example() {
        // counts [1, 8, 32, 28, 31]: 100 pairs, 200 games.
        // Pair scores x = points/2 ∈ {0, ¼, ½, ¾, 1}:
        // Σx  = 0·1 + 0.25·8 + 0.5·32 + 0.75·28 + 1·31 = 0 + 2 + 16 + 21 + 31 = 70 → m = 0.7.
        // Σx² = 0.0625·8 + 0.25·32 + 0.5625·28 + 1·31 = 0.5 + 8 + 15.75 + 31 = 55.25
        // v = 55.25/100 − 0.7² = 0.5525 − 0.49 = 0.0625 (per pair).
        // stderr = √(0.0625/100) = 0.025; 1.96·0.025 = 0.049 → scores [0.651, 0.749].
        // Elo  = 400·log10(0.7/0.3)     = 147.190714…
        // low  = 400·log10(0.651/0.349) = 108.302225…
        // high = 400·log10(0.749/0.251) = 189.923238…
        // LOS: v₀ = v + (m − ½)² = 0.0625 + 0.04 = 0.1025, z = 0.2/√(0.1025/100) = 6.2470…,
        //      Φ(z) = 0.99999999979…
        let p = Pentanomial::new([1, 8, 32, 28, 31]);
        assert_eq!(p.pairs(), 100);
        assert_eq!(p.games(), 200);
        assert_close(p.points(), 140.0, 1e-12);
        let e = p.estimate();
        assert_eq!(e.games, 200);
        assert_close(e.score, 0.7, 1e-12);
        assert_close(e.elo, 147.190_714_117_837_73, EPS);
        assert_close(e.elo_low, 400.0 * (0.651f64 / 0.349).log10(), 1e-9);
        assert_close(e.elo_low, 108.302_224_643_604_75, EPS);
        assert_close(e.elo_high, 400.0 * (0.749f64 / 0.251).log10(), 1e-9);
        assert_close(e.elo_high, 189.923_238_487_371_35, EPS);
        assert_close(e.los, normal_cdf(0.2 / (0.1025f64 / 100.0).sqrt()), 1e-15);
        assert_close(e.los, 0.999_999_999_790_728_2, 1e-12);
        assert_eq!(e.draw_ratio, None);
        assert_finite(&e);
    }

    #[test]
    fn tallies_from_pairs() {
        use GameResult::{Draw, Loss, Win};
        let pairs = [
            (Win, Loss),  // 1 point
            (Draw, Draw), // 1 point
            (Win, Draw),  // 1½
            (Win, Win),   // 2
            (Loss, Draw), // ½
        ];
        let tally = MatchTally::from_pairs(pairs);
        assert_eq!(tally.pentanomial.counts, [0, 1, 2, 1, 1]);
        assert_eq!(tally.pentanomial, Pentanomial::from_pairs(pairs));
        assert_eq!(tally.trinomial, Trinomial::new(4, 4, 2));
        assert_eq!(
            tally.trinomial,
            Trinomial::from_results(pairs.iter().flat_map(|&(a, b)| [a, b]))
        );
        // Both tallies count the same points: 4 + 4/2 = 6 = 1 + 1 + 1.5 + 2 + 0.5.
        assert_close(tally.trinomial.points(), 6.0, 1e-12);
        assert_close(tally.pentanomial.points(), 6.0, 1e-12);
        let e = tally.estimate();
        assert_eq!(e.games, 10);
        assert_close(e.score, 0.6, 1e-12);
        assert_eq!(e.draw_ratio, Some(0.4));
        assert_eq!(
            e,
            Estimate {
                draw_ratio: Some(0.4),
                ..tally.pentanomial.estimate()
            }
        );
    }

    #[test]
    fn game_result_from_outcome() {
        assert_eq!(
            GameResult::from_outcome(Outcome::Win(Side::First), Side::First),
            GameResult::Win
        );
        assert_eq!(
            GameResult::from_outcome(Outcome::Win(Side::First), Side::Second),
            GameResult::Loss
        );
        assert_eq!(
            GameResult::from_outcome(Outcome::Draw, Side::Second),
            GameResult::Draw
        );
    }

    #[test]
    fn all_draws() {
        // Variance 0 and mean ½: interval collapses to [0, 0], LOS ½.
        let neutral = |e: Estimate| {
            assert_eq!(e.score, 0.5);
            assert_eq!((e.elo, e.elo_low, e.elo_high), (0.0, 0.0, 0.0));
            assert_eq!(e.los, 0.5);
            assert_finite(&e);
        };
        let t = Trinomial::new(0, 30, 0).estimate();
        assert_eq!(t.draw_ratio, Some(1.0));
        neutral(t);
        neutral(Pentanomial::new([0, 0, 15, 0, 0]).estimate());
    }

    #[test]
    fn all_wins_and_all_losses() {
        // 10 wins of 10: score 1 → clamped to 1 − 1/20 = 0.95 → Elo 400·log10(19) = 511.501…;
        // variance 0, so the interval is that point. LOS: v₀ = ¼, z = ½/√(¼/10) = √10.
        let wins = Trinomial::new(10, 0, 0).estimate();
        let elo_19 = 400.0 * 19f64.log10();
        assert_close(elo_19, 511.501_440_381_131_4, 1e-9);
        assert_eq!(wins.score, 1.0);
        assert_close(wins.elo, elo_19, 1e-9);
        assert_close(wins.elo_low, elo_19, 1e-9);
        assert_close(wins.elo_high, elo_19, 1e-9);
        assert_close(wins.los, normal_cdf(10f64.sqrt()), 1e-15);
        assert_finite(&wins);

        let losses = Trinomial::new(0, 0, 10).estimate();
        assert_eq!(losses.score, 0.0);
        assert_close(losses.elo, -elo_19, 1e-9);
        assert_close(losses.elo_high, -elo_19, 1e-9);
        assert_close(losses.los, normal_cdf(-(10f64.sqrt())), 1e-15);
        assert_finite(&losses);

        // 5 pairs won 2–0: 10 games, the same clamp.
        let pair_wins = Pentanomial::new([0, 0, 0, 0, 5]).estimate();
        assert_close(pair_wins.elo, elo_19, 1e-9);
        assert_close(pair_wins.elo_low, elo_19, 1e-9);
        assert_finite(&pair_wins);
        let pair_losses = Pentanomial::new([5, 0, 0, 0, 0]).estimate();
        assert_close(pair_losses.elo, -elo_19, 1e-9);
        assert_finite(&pair_losses);

        // One game decides nothing: the clamp interval is {½}.
        let single = Trinomial::new(1, 0, 0).estimate();
        assert_eq!(
            (single.elo, single.elo_low, single.elo_high),
            (0.0, 0.0, 0.0)
        );
        assert_finite(&single);
    }

    #[test]
    fn interval_bounds_beyond_0_or_1_are_clamped() {
        // 9 W, 1 L: m = 0.9, v = 0.09, stderr = 0.3/√10 = 0.0949, high = 1.086 > 1
        // → clamped to 0.95 → 400·log10(19).
        let e = Trinomial::new(9, 0, 1).estimate();
        assert_close(e.elo_high, 400.0 * 19f64.log10(), 1e-9);
        assert_close(e.elo, 400.0 * 9f64.log10(), 1e-9);
        assert_finite(&e);
    }

    #[test]
    fn zero_width_intervals_are_never_given() {
        let text = |e: Estimate| e.elo_text(1);
        assert_eq!(text(MatchTally::default().estimate()), "n/a (no games)");
        let pairs = |pairs: &[(GameResult, GameResult)]| {
            MatchTally::from_pairs(pairs.iter().copied()).estimate()
        };
        use GameResult::{Draw, Loss, Win};
        assert_eq!(text(pairs(&[(Draw, Draw)])), "n/a (both games drawn)");
        assert_eq!(text(pairs(&[(Win, Loss)])), "n/a (a single pair)");
        assert_eq!(text(pairs(&[(Loss, Loss); 20])), "n/a (all 40 games lost)");
        assert_eq!(text(pairs(&[(Win, Win); 3])), "n/a (all 6 games won)");
        assert_eq!(
            text(pairs(&[(Win, Loss), (Draw, Draw), (Loss, Win)])),
            "n/a (all 3 pairs scored 1–1)"
        );
        assert_eq!(
            text(pairs(&[(Draw, Loss), (Loss, Draw)])),
            "n/a (all 2 pairs scored ½–1½)"
        );
        assert_eq!(
            Trinomial::new(1, 0, 0).estimate().unmeasured().as_deref(),
            Some("the only game won")
        );
        // Every other small match has an interval of positive width, also as printed.
        for counts in (0..4u64.pow(5)).map(|i| {
            let mut c = [0; 5];
            (0..5).fold(i, |rest, k| {
                c[k] = rest % 4;
                rest / 4
            });
            c
        }) {
            let e = Pentanomial::new(counts).estimate();
            match e.interval_rounded(1) {
                Some((low, high)) => {
                    assert!(low < high, "{counts:?}: {e:?}");
                    assert!(low <= e.elo && e.elo <= high, "{counts:?}: {e:?}");
                    assert!(!e.elo_text(1).contains("n/a"), "{counts:?}");
                }
                None => assert!(e.elo_text(1).starts_with("n/a ("), "{counts:?}"),
            }
        }
    }

    #[test]
    fn printed_intervals_are_rounded_outwards() {
        let e = Estimate {
            games: 100,
            score: 0.5,
            elo: 0.015,
            elo_low: 0.01,
            elo_high: 0.02,
            los: 0.5,
            draw_ratio: None,
        };
        assert_eq!(e.elo_text(1), "+0.0 [+0.0, +0.1]");
        let e = Estimate {
            elo: -3.3,
            elo_low: -3.31,
            elo_high: -3.29,
            ..e
        };
        assert_eq!(e.elo_text(1), "-3.3 [-3.4, -3.2]");
        assert_eq!(e.elo_text(0), "-3 [-4, -3]");
    }

    #[test]
    fn zero_games() {
        for e in [
            Trinomial::default().estimate(),
            Pentanomial::default().estimate(),
            MatchTally::default().estimate(),
        ] {
            assert_eq!(e.games, 0);
            assert_eq!(e.score, 0.5);
            assert_eq!((e.elo, e.elo_low, e.elo_high), (0.0, 0.0, 0.0));
            assert_eq!(e.los, 0.5);
            assert_finite(&e);
        }
        assert_eq!(Trinomial::default().estimate().draw_ratio, Some(0.0));
    }

    #[test]
    fn no_nan_on_many_small_tallies() {
        for w in 0..6 {
            for d in 0..6 {
                for l in 0..6 {
                    assert_finite(&Trinomial::new(w, d, l).estimate());
                }
            }
        }
        for a in 0..3 {
            for b in 0..3 {
                for c in 0..3 {
                    for d in 0..3 {
                        for e in 0..3 {
                            assert_finite(&Pentanomial::new([a, b, c, d, e]).estimate());
                        }
                    }
                }
            }
        }
        let huge = Trinomial::new(u64::MAX, u64::MAX, 1).estimate();
        assert_finite(&huge);
        assert_finite(&Pentanomial::new([u64::MAX; 5]).estimate());
    }

    #[test]
    fn estimate_serializes_to_json() {
        let json = serde_json::to_string(&Trinomial::new(60, 20, 20).estimate()).unwrap();
        assert!(json.contains("\"games\":100"), "{json}");
        assert!(json.contains("\"draw_ratio\":0.2"), "{json}");
        let json = serde_json::to_string(&Pentanomial::default().estimate()).unwrap();
        assert!(json.contains("\"draw_ratio\":null"), "{json}");
    }

    // --- SPRT ---

    fn params(text: &str) -> SprtParams {
        SprtParams::parse(text).unwrap()
    }

    #[test]
    fn sprt_bounds_for_five_percent_are_ln_19() {
        // ln(0.05/0.95) = −ln 19, ln(0.95/0.05) = ln 19 = 2.944438979…
        let p = params("0,10,0.05,0.05");
        assert_close(p.lower_bound(), -(19f64.ln()), 1e-12);
        assert_close(p.upper_bound(), 19f64.ln(), 1e-12);
        assert_close(p.upper_bound(), 2.944_438_979_166_44, 1e-12);
        // Asymmetric: alpha 0.05, beta 0.1 → ln(0.1/0.95), ln(0.9/0.05) = ln 18.
        let q = params("0,5,0.05,0.1");
        assert_close(q.lower_bound(), (0.1f64 / 0.95).ln(), 1e-12);
        assert_close(q.upper_bound(), 18f64.ln(), 1e-12);
    }

    #[test]
    fn sprt_decisions_at_the_bounds() {
        let p = params("0,10,0.05,0.05");
        let (lower, upper) = (p.lower_bound(), p.upper_bound());
        assert_eq!(p.decide(upper), SprtDecision::AcceptH1);
        assert_eq!(p.decide(upper + 1.0), SprtDecision::AcceptH1);
        assert_eq!(p.decide(lower), SprtDecision::AcceptH0);
        assert_eq!(p.decide(lower - 1.0), SprtDecision::AcceptH0);
        assert_eq!(p.decide(0.0), SprtDecision::Continue);
        assert_eq!(p.decide(upper - 1e-9), SprtDecision::Continue);
        assert_eq!(p.decide(lower + 1e-9), SprtDecision::Continue);
    }

    #[test]
    fn sprt_llr_trinomial_by_hand() {
        // 12 W, 20 D, 8 L: N = 40, m = (12 + 10)/40 = 0.55,
        // v = (12·1 + 20·0.25)/40 − 0.55² = 0.425 − 0.3025 = 0.1225.
        // elo0 = −10, elo1 = 10: s₀ + s₁ = 1 by symmetry, so 2m − s₀ − s₁ = 0.1;
        // s₁ = 1/(1 + 10^(−1/40)) = 0.514387184…, s₁ − s₀ = 2s₁ − 1 = 0.028774368…
        // LLR = 40·0.028774368·0.1/(2·0.1225) = 0.469785605…
        let p = params("-10,10,0.05,0.05");
        let s1 = score_from_elo(10.0);
        assert_close(s1, 0.514_387_184_165_998_7, 1e-12);
        let r = Trinomial::new(12, 20, 8).sprt(&p);
        assert_close(r.llr, 40.0 * (2.0 * s1 - 1.0) * 0.1 / (2.0 * 0.1225), 1e-12);
        assert_close(r.llr, 0.469_785_605_420_366_1, EPS);
        assert_eq!(r.decision, SprtDecision::Continue);
        assert_close(r.lower, -(19f64.ln()), 1e-12);
        assert_close(r.upper, 19f64.ln(), 1e-12);

        // elo0 = 0, elo1 = 10: s₀ = ½, (2m − s₀ − s₁) = 1.1 − 0.5 − s₁ = 0.085612816…
        // LLR = 40·(s₁ − ½)·(0.6 − s₁)/0.245 = 0.201089…
        let r = Trinomial::new(12, 20, 8).sprt(&params("0,10,0.05,0.05"));
        assert_close(r.llr, 40.0 * (s1 - 0.5) * (0.6 - s1) / 0.245, 1e-12);
        assert_eq!(r.decision, SprtDecision::Continue);
    }

    #[test]
    fn sprt_llr_pentanomial_by_hand() {
        // Pentanomial [1, 8, 32, 28, 31] (see pentanomial_example): N = 100 pairs,
        // m = 0.7, v = 0.0625. With elo0 = −10, elo1 = 10:
        // LLR = 100·(2s₁ − 1)·(1.4 − 1)/(2·0.0625) = 320·(2s₁ − 1) = 9.207797…
        // ≥ ln 19 → H1.
        let s1 = score_from_elo(10.0);
        let r = Pentanomial::new([1, 8, 32, 28, 31]).sprt(&params("-10,10,0.05,0.05"));
        assert_close(r.llr, 320.0 * (2.0 * s1 - 1.0), 1e-9);
        assert_close(r.llr, 9.207_797_866_239_176, EPS);
        assert_eq!(r.decision, SprtDecision::AcceptH1);
        // The mirror image rejects.
        let r = Pentanomial::new([31, 28, 32, 8, 1]).sprt(&params("-10,10,0.05,0.05"));
        assert_close(r.llr, -320.0 * (2.0 * s1 - 1.0), 1e-9);
        assert_eq!(r.decision, SprtDecision::AcceptH0);
    }

    #[test]
    fn sprt_with_zero_variance_continues() {
        let p = params("0,10,0.05,0.05");
        for r in [
            Trinomial::default().sprt(&p),
            Trinomial::new(0, 50, 0).sprt(&p),
            Trinomial::new(50, 0, 0).sprt(&p),
            Pentanomial::new([0, 0, 0, 0, 9]).sprt(&p),
            MatchTally::default().sprt(&p),
        ] {
            assert_eq!(r.llr, 0.0);
            assert_eq!(r.decision, SprtDecision::Continue);
        }
    }

    #[test]
    fn sprt_result_serializes() {
        // 60 W 20 D 20 L, elo0 = −10, elo1 = 10: LLR = 100·0.028774·(1.4 − 1)/(2·0.16) = 3.597
        // ≥ ln 19 = 2.944 → H1.
        let r = Trinomial::new(60, 20, 20).sprt(&params("-10,10,0.05,0.05"));
        assert_close(r.llr, 3.596_796_041_499_678, 1e-6);
        assert_eq!(r.decision, SprtDecision::AcceptH1);
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains("\"decision\":\"accept_h1\""), "{json}");
    }

    #[test]
    fn sprt_params_parse_and_display() {
        let p = params(" -2.5 , 7.5,0.05, 0.1 ");
        assert_eq!(
            (p.elo0(), p.elo1(), p.alpha(), p.beta()),
            (-2.5, 7.5, 0.05, 0.1)
        );
        assert_eq!(p.to_string(), "-2.5,7.5,0.05,0.1");
        assert_eq!(p.to_string().parse::<SprtParams>(), Ok(p));
    }

    #[test]
    fn bad_sprt_params_are_rejected() {
        use SprtParamsError as E;
        // Which check fired, and on which field.
        fn kind(e: &E) -> String {
            match e {
                E::Format { .. } => "format".into(),
                E::Number { name, .. } => format!("number {name}"),
                E::NotFinite { name, .. } => format!("finite {name}"),
                E::EloOrder { .. } => "order".into(),
                E::ErrorRate { name, .. } => format!("rate {name}"),
                E::ErrorSum { .. } => "sum".into(),
            }
        }
        let cases = [
            ("", "format"),
            ("0,10,0.05", "format"),
            ("0,10,0.05,0.05,1", "format"),
            ("0;10;0.05;0.05", "format"),
            ("0,ten,0.05,0.05", "number ELO1"),
            ("0,10,,0.05", "number ALPHA"),
            ("inf,10,0.05,0.05", "finite ELO0"),
            ("0,NaN,0.05,0.05", "finite ELO1"),
            ("10,0,0.05,0.05", "order"),
            ("5,5,0.05,0.05", "order"),
            ("0,10,0,0.05", "rate ALPHA"),
            ("0,10,0.05,1", "rate BETA"),
            ("0,10,-0.1,0.05", "rate ALPHA"),
            ("0,10,NaN,0.05", "rate ALPHA"),
            ("0,10,0.6,0.5", "sum"),
            ("0,10,0.5,0.5", "sum"),
        ];
        for (text, expected) in cases {
            let err = SprtParams::parse(text).unwrap_err();
            assert_eq!(kind(&err), expected, "{text:?} gave {err:?}");
            assert!(err.to_string().starts_with("SPRT"), "{err}");
        }
        assert_eq!(
            SprtParams::parse("10,0,0.05,0.05").unwrap_err().to_string(),
            "SPRT needs ELO0 < ELO1 (H0: elo = ELO0 against H1: elo = ELO1), \
             got ELO0 = 10 and ELO1 = 0"
        );
        assert_eq!(
            SprtParams::parse("0,10").unwrap_err().to_string(),
            "SPRT parameters must be ELO0,ELO1,ALPHA,BETA (e.g. 0,10,0.05,0.05), got '0,10'"
        );
        assert!(SprtParams::new(0.0, 10.0, 0.05, f64::NAN).is_err());
        assert!(SprtParams::new(f64::NAN, 10.0, 0.05, 0.05).is_err());
    }
}
