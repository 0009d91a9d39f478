//! How close an evaluator is to perfect play, measured against exact values (the draughts
//! endgame database, the Kalah solver) rather than against another evaluator.
//!
//! A sample is a list of [`Case`]s: a position, its exact value and the exact value of
//! each of its moves (each game builds them: [`cases::AccuracyGame`] for `evalearn
//! accuracy`, [`heldout::HeldOutGame`] for training). For each search depth the
//! evaluator's searcher chooses a move in every case; the figures are the share of cases
//! whose chosen move keeps the position's value (optimal-move rate) and the mean value
//! lost per move. Depth 0 is the static evaluation's own choice: every move's result
//! evaluated statically, through quiescence as the search does it (a one-ply search).
//! For the static evaluation of the position itself the figures are its agreement with
//! the exact result (win/draw/loss, with a draw band) and, for evaluators whose values are
//! logits of an expected result (TD, GLEM), the Brier score and log-loss of that
//! probability.
//!
//! Values are in the game's result units: Kalah the final store margin in stones,
//! draughts 1 win, 0 draw, −1 loss (so losing a win for a draw costs 1, for a loss 2).
//! Intervals are 95%: Wilson's for rates, the normal approximation for means.

pub mod cases;
pub mod heldout;

use std::sync::Arc;

use rayon::prelude::*;
use serde_json::{Value, json};

pub use crate::arena::stats::{Mean, Rate};
use crate::eval::{EVAL_LIMIT, Evaluator};
use crate::game::Game;
use crate::search::{Limits, SearchConfig, Searcher, Tablebase, ending};

/// One position with exact values.
#[derive(Clone, Debug)]
pub struct Case<G: Game> {
    pub position: G,
    /// The exact value for the side to move (the best of `moves`).
    pub value: i32,
    /// Every legal move with its exact value for the side to move, in generation order.
    pub moves: Vec<(G::Move, i32)>,
}

impl<G: Game> Case<G> {
    /// A case from the exact values of the positions after each move (for the side to
    /// move there); `None` for a position without moves.
    pub fn from_children(
        position: G,
        child_values: impl IntoIterator<Item = (G::Move, i32)>,
    ) -> Option<Case<G>> {
        let moves: Vec<(G::Move, i32)> = child_values.into_iter().map(|(m, v)| (m, -v)).collect();
        let value = moves.iter().map(|&(_, v)| v).max()?;
        Some(Case {
            position,
            value,
            moves,
        })
    }

    /// The value lost by playing `mv` (0 for a move keeping the value); `None` if `mv`
    /// is not one of the case's moves.
    pub fn lost_by(&self, mv: G::Move) -> Option<i32> {
        self.moves
            .iter()
            .find(|&&(m, _)| m == mv)
            .map(|&(_, v)| self.value - v)
    }

    /// True if some move loses value (the position can be got wrong).
    pub fn is_critical(&self) -> bool {
        self.moves.iter().any(|&(_, v)| v < self.value)
    }
}

/// At most `count` of `items`, in their order: all if there are no more, else a subset
/// drawn by `seed` (partial Fisher–Yates on one random stream).
pub fn choose_positions<T>(items: Vec<T>, count: usize, seed: u64) -> Vec<T> {
    if items.len() <= count {
        return items;
    }
    let mut rng = crate::rng::stream(seed, u64::MAX);
    let mut order: Vec<usize> = (0..items.len()).collect();
    for i in 0..count {
        let j = rand::RngExt::random_range(&mut rng, i..order.len());
        order.swap(i, j);
    }
    let mut keep = order[..count].to_vec();
    keep.sort_unstable();
    let mut wanted = keep.into_iter().peekable();
    items
        .into_iter()
        .enumerate()
        .filter_map(|(i, item)| {
            (wanted.peek() == Some(&i)).then(|| {
                wanted.next();
                item
            })
        })
        .collect()
}

/// How an evaluator's values map to a predicted result (1 win, ½ draw, 0 loss).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Probability {
    /// `p = σ(value / centi_per_logit)`: TD (100 centi-units per logit unit) and GLEM
    /// (its model's scale).
    Logistic { centi_per_logit: f64 },
}

impl Probability {
    pub fn of(self, value: i32) -> f64 {
        match self {
            Probability::Logistic { centi_per_logit } => {
                1.0 / (1.0 + (-f64::from(value) / centi_per_logit).exp())
            }
        }
    }
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Search depths; 0 is the static evaluation's choice.
    pub depths: Vec<u32>,
    /// Static values within ±this (centi-units) predict a draw.
    pub draw_band: i32,
    pub probability: Option<Probability>,
    /// Transposition table of each searcher, MiB.
    pub tt_mib: usize,
}

/// What the evaluator did in one case.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict<G: Game> {
    /// The move chosen at each depth of [`Settings::depths`].
    pub chosen: Vec<G::Move>,
    /// The static value of the position (centi-units; through quiescence; a game end
    /// found by quiescence as ±[`EVAL_LIMIT`] times the margin's sign).
    pub static_value: i32,
}

/// The static value of `pos` as the search sees it: the evaluation of a quiet
/// position; for one with a forced move pending, the one-ply search through quiescence.
pub fn static_value<G: Game, E: Evaluator<G>>(searcher: &mut Searcher<G, E>, pos: &G) -> i32 {
    if pos.is_quiet() {
        return searcher.evaluator().evaluate(pos);
    }
    let score = searcher.search_position(pos, &Limits::depth(1)).score;
    match ending::<G>(score) {
        Some(end) => end.margin.signum() * EVAL_LIMIT,
        None => score.clamp(-EVAL_LIMIT, EVAL_LIMIT),
    }
}

/// The move the evaluator chooses in `pos` at `depth` (0: the static choice).
pub fn choose<G: Game, E: Evaluator<G>>(
    searcher: &mut Searcher<G, E>,
    pos: &G,
    depth: u32,
) -> Option<G::Move> {
    searcher
        .search_position(pos, &Limits::depth(depth.max(1)))
        .best_move
}

/// The evaluator's verdicts on every case, in parallel (one searcher per task; each
/// position is searched afresh, so the verdicts do not depend on the thread count).
pub fn verdicts<G: Game, E: Evaluator<G> + Clone>(
    cases: &[Case<G>],
    evaluator: &E,
    settings: &Settings,
) -> Vec<Verdict<G>> {
    verdicts_with(cases, evaluator, settings, None)
}

/// [`verdicts`] with the depth searches reading `tablebase` too, as the playing commands'
/// do with `--egdb` (the static value stays the evaluator's own).
pub fn verdicts_with<G: Game, E: Evaluator<G> + Clone>(
    cases: &[Case<G>],
    evaluator: &E,
    settings: &Settings,
    tablebase: Option<&Arc<dyn Tablebase<G>>>,
) -> Vec<Verdict<G>> {
    let searcher = || Searcher::new(evaluator.clone(), SearchConfig::FULL, settings.tt_mib);
    cases
        .par_iter()
        .map_init(
            || {
                let plain = searcher();
                let probing = tablebase.map(|t| searcher().with_tablebase(Some(Arc::clone(t))));
                (plain, probing)
            },
            |(plain, probing), case| Verdict {
                chosen: settings
                    .depths
                    .iter()
                    .map(|&d| {
                        let searcher = probing.as_mut().unwrap_or(plain);
                        choose(searcher, &case.position, d).expect("a case has legal moves")
                    })
                    .collect(),
                static_value: static_value(plain, &case.position),
            },
        )
        .collect()
}

/// A rate with its 95% Wilson interval.
/// A rate as JSON: value, interval and counts.
fn rate_json(rate: Rate) -> Value {
    let (low, high) = rate.interval();
    json!({"value": rate.value(), "low": low, "high": high, "hits": rate.hits, "total": rate.total})
}

/// A mean as JSON: value and the half width of its interval (null when unknown).
fn mean_json(mean: Mean) -> Value {
    let half = mean.half_width();
    let half = half.is_finite().then_some(half);
    json!({"value": mean.value(), "half_width": half})
}

/// Figures of one depth.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthFigures {
    pub depth: u32,
    pub optimal: Rate,
    /// Among the critical cases (where some move loses value) only.
    pub optimal_critical: Rate,
    pub lost: Mean,
}

/// Result classes, from the side to move: win, draw, loss.
pub const CLASSES: [&str; 3] = ["win", "draw", "loss"];

fn class_of_value(value: i32) -> usize {
    match value.signum() {
        1 => 0,
        0 => 1,
        _ => 2,
    }
}

/// The static evaluation against the exact results.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticFigures {
    pub draw_band: i32,
    /// `confusion[true class][predicted class]`, classes as [`CLASSES`].
    pub confusion: [[u64; 3]; 3],
    pub agreement: Rate,
    pub brier: Option<Mean>,
    pub log_loss: Option<Mean>,
    /// In a game whose results have margins, the mean `|static value / 100 −
    /// exact value|` in the game's units: how far the evaluation, read as a margin, is
    /// from the true one.
    pub margin_error: Option<Mean>,
}

/// Everything measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub positions: u64,
    pub critical: u64,
    pub depths: Vec<DepthFigures>,
    pub static_figures: StaticFigures,
}

/// Smallest probability log-loss is taken of (a certain and wrong prediction would
/// otherwise cost infinitely).
const MIN_PROBABILITY: f64 = 1e-6;

/// The figures of `verdicts` on `cases`.
pub fn report<G: Game>(cases: &[Case<G>], verdicts: &[Verdict<G>], settings: &Settings) -> Report {
    let total = cases.len() as u64;
    let critical = cases.iter().filter(|c| c.is_critical()).count() as u64;
    let depths = settings
        .depths
        .iter()
        .enumerate()
        .map(|(i, &depth)| {
            let mut figures = DepthFigures {
                depth,
                optimal: Rate { hits: 0, total },
                optimal_critical: Rate {
                    hits: 0,
                    total: critical,
                },
                lost: Mean::default(),
            };
            for (case, verdict) in cases.iter().zip(verdicts) {
                let lost = case
                    .lost_by(verdict.chosen[i])
                    .expect("the searcher chooses a legal move");
                figures.lost.add(f64::from(lost));
                if lost == 0 {
                    figures.optimal.hits += 1;
                    if case.is_critical() {
                        figures.optimal_critical.hits += 1;
                    }
                }
            }
            figures
        })
        .collect();
    let band = settings.draw_band;
    let mut confusion = [[0u64; 3]; 3];
    let (mut brier, mut log_loss) = (Mean::default(), Mean::default());
    let mut margin_error = Mean::default();
    for (case, verdict) in cases.iter().zip(verdicts) {
        margin_error.add((f64::from(verdict.static_value) / 100.0 - f64::from(case.value)).abs());
        let truth = class_of_value(case.value);
        let predicted = match verdict.static_value {
            v if v > band => 0,
            v if v < -band => 2,
            _ => 1,
        };
        confusion[truth][predicted] += 1;
        if let Some(probability) = settings.probability {
            let p = probability.of(verdict.static_value);
            let score = [1.0, 0.5, 0.0][truth];
            brier.add((p - score) * (p - score));
            let p = p.clamp(MIN_PROBABILITY, 1.0 - MIN_PROBABILITY);
            log_loss.add(-(score * p.ln() + (1.0 - score) * (1.0 - p).ln()));
        }
    }
    let agreement = Rate {
        hits: (0..3).map(|k| confusion[k][k]).sum(),
        total,
    };
    let with_probability = settings.probability.is_some();
    Report {
        positions: total,
        critical,
        depths,
        static_figures: StaticFigures {
            draw_band: band,
            confusion,
            agreement,
            brier: with_probability.then_some(brier),
            log_loss: with_probability.then_some(log_loss),
            margin_error: (G::MAX_MARGIN > 1).then_some(margin_error),
        },
    }
}

impl Report {
    /// The report as JSON: `{"positions": N, "depths": {"0": {"optimal_move_rate": …,
    /// "mean_value_lost": …, …}, …}, "static": {…}}`.
    pub fn json(&self) -> Value {
        let depths: serde_json::Map<String, Value> = self
            .depths
            .iter()
            .map(|d| {
                let (low, high) = d.optimal.interval();
                let half = d.lost.half_width();
                let half = half.is_finite().then_some(half);
                (
                    d.depth.to_string(),
                    json!({
                        "optimal_move_rate": d.optimal.value(),
                        "optimal_move_rate_interval": [low, high],
                        "optimal_moves": d.optimal.hits,
                        "optimal_move_rate_critical": rate_json(d.optimal_critical),
                        "mean_value_lost": d.lost.value(),
                        "mean_value_lost_half_width": half,
                        "value_lost_total": d.lost.sum,
                    }),
                )
            })
            .collect();
        let s = &self.static_figures;
        let confusion: serde_json::Map<String, Value> = CLASSES
            .iter()
            .zip(&s.confusion)
            .map(|(truth, row)| {
                let row: serde_json::Map<String, Value> = CLASSES
                    .iter()
                    .zip(row)
                    .map(|(predicted, &n)| (predicted.to_string(), json!(n)))
                    .collect();
                (truth.to_string(), Value::Object(row))
            })
            .collect();
        json!({
            "positions": self.positions,
            "critical_positions": self.critical,
            "depths": depths,
            "static": {
                "draw_band": s.draw_band,
                "confusion": confusion,
                "agreement": rate_json(s.agreement),
                "brier": s.brier.map(mean_json),
                "log_loss": s.log_loss.map(mean_json),
                "margin_error": s.margin_error.map(mean_json),
            },
        })
    }

    /// The report as text, one figure a line.
    pub fn text(&self, units: &str) -> String {
        let mut out = format!(
            "positions {} ({} where some move loses value)\n",
            self.positions, self.critical
        );
        for d in &self.depths {
            let (low, high) = d.optimal.interval();
            let (cl, ch) = d.optimal_critical.interval();
            out.push_str(&format!(
                "depth {}: optimal moves {:.1}% [{:.1}, {:.1}] ({}/{}; critical {:.1}% [{:.1}, {:.1}]), \
                 value lost {:.3} ± {:.3} {units} a move\n",
                d.depth,
                100.0 * d.optimal.value(),
                100.0 * low,
                100.0 * high,
                d.optimal.hits,
                d.optimal.total,
                100.0 * d.optimal_critical.value(),
                100.0 * cl,
                100.0 * ch,
                d.lost.value(),
                d.lost.half_width(),
            ));
        }
        let s = &self.static_figures;
        let (low, high) = s.agreement.interval();
        out.push_str(&format!(
            "static: result agrees {:.1}% [{:.1}, {:.1}] (draw band ±{})\n",
            100.0 * s.agreement.value(),
            100.0 * low,
            100.0 * high,
            s.draw_band
        ));
        out.push_str("static: true \\ predicted   win  draw  loss\n");
        for (name, row) in CLASSES.iter().zip(&s.confusion) {
            out.push_str(&format!(
                "static: {name:>16} {:>5} {:>5} {:>5}\n",
                row[0], row[1], row[2]
            ));
        }
        if let (Some(brier), Some(log_loss)) = (s.brier, s.log_loss) {
            out.push_str(&format!(
                "static: brier {:.4} ± {:.4}, log-loss {:.4} ± {:.4}\n",
                brier.value(),
                brier.half_width(),
                log_loss.value(),
                log_loss.half_width()
            ));
        }
        if let Some(error) = s.margin_error {
            out.push_str(&format!(
                "static: margin off by {:.2} ± {:.2} {units} (|value − exact value|)\n",
                error.value(),
                error.half_width()
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_and_mean_intervals() {
        // 80 of 100: Wilson's interval is [0.7112, 0.8666].
        let (low, high) = Rate {
            hits: 80,
            total: 100,
        }
        .interval();
        assert!(
            (low - 0.7112).abs() < 1e-4 && (high - 0.8666).abs() < 1e-4,
            "{low} {high}"
        );
        let (low, high) = Rate { hits: 0, total: 10 }.interval();
        assert_eq!(low, 0.0);
        assert!((high - 0.2775).abs() < 1e-4, "{high}");
        let mut mean = Mean::default();
        for x in [1.0, 2.0, 3.0, 4.0] {
            mean.add(x);
        }
        assert_eq!(mean.value(), 2.5);
        // s² = 5/3, se = √(5/12).
        assert!((mean.half_width() - 1.96 * (5.0f64 / 12.0).sqrt()).abs() < 1e-12);
    }
}
