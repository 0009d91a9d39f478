//! The sequential probability ratio test of a match (GSPRT on the sample's mean and
//! variance, as fishtest and cutechess-cli run it).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::{Sample, score_from_elo};

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

    pub(super) fn test(&self, sample: &Sample) -> SprtResult {
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
