//! Lazy evaluation: bounds on a learned model's value read off the game's baseline
//! evaluator (draughts material, Kalah stores), so that the search skips the model at a
//! leaf where the bounds alone settle it — the highest value the model gives at that
//! baseline value is at most alpha, or the lowest at least beta.
//!
//! The bounds are observed, not proven. When a model file loads, the model and the
//! baseline evaluate the quiet positions of [`GAMES`] random games from the model's
//! starting position (a fixed seed, so every machine gets the same bounds), and for each
//! baseline value seen at least [`MIN_SEEN`] times the lowest and highest model values
//! seen become its bounds; any other baseline value keeps the whole range, which bounds
//! every value exactly (values are clamped to ±[`EVAL_LIMIT`]). Random games reach far
//! stranger positions than a search's leaves do, so their extremes are wide: on the
//! draughts bench (depth 12, `td-clipped.bin`) none of the 1.08 M leaves the search
//! evaluates fell outside its bounds in a way that would have changed a cut-off, and a
//! quarter of them were settled by the bounds (docs/speed.md, "Lazy evaluation").

use std::collections::HashMap;

use rand::RngExt;
use rayon::prelude::*;

use super::{EVAL_LIMIT, EvalGame, Evaluator, IncrementalEval};
use crate::rng;

/// Random games played to find a model's bounds.
pub const GAMES: u64 = 20_000;
/// Longest random game, in plies (draughts games of random moves can go on long with
/// kings on the board).
pub const MAX_PLIES: usize = 200;
/// Observations a baseline value needs before its bounds are narrowed.
pub const MIN_SEEN: u32 = 200;
/// Largest span of baseline values the table covers (its entries are 4 bytes each).
const MAX_SPAN: i64 = 1 << 16;
/// The random games' seed: a constant, so the bounds depend on the model alone.
const SEED: u64 = 0x1a2b_0001;

/// The lowest and highest model value seen at each baseline value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LazyBounds {
    /// The baseline value of `ranges[0]`.
    first: i32,
    /// `(low, high)` for baseline values `first`, `first + 1`, …
    ranges: Vec<(i16, i16)>,
}

const WHOLE: (i16, i16) = (-EVAL_LIMIT as i16, EVAL_LIMIT as i16);

impl LazyBounds {
    /// Bounds from `(baseline value, model value)` observations: a baseline value seen
    /// at least [`MIN_SEEN`] times gets the extremes of its model values.
    fn from_observations(seen: &HashMap<i32, Observed>) -> LazyBounds {
        let narrowed: Vec<(i32, (i16, i16))> = seen
            .iter()
            .filter(|(_, o)| o.count >= MIN_SEEN)
            .map(|(&key, o)| (key, (o.low, o.high)))
            .collect();
        let (Some(first), Some(last)) = (
            narrowed.iter().map(|&(k, _)| k).min(),
            narrowed.iter().map(|&(k, _)| k).max(),
        ) else {
            return LazyBounds::none();
        };
        if i64::from(last) - i64::from(first) >= MAX_SPAN {
            return LazyBounds::none();
        }
        let mut ranges = vec![WHOLE; (last - first) as usize + 1];
        for (key, range) in narrowed {
            ranges[(key - first) as usize] = range;
        }
        LazyBounds { first, ranges }
    }

    /// No narrowed bounds: every baseline value keeps the whole range.
    pub fn none() -> LazyBounds {
        LazyBounds {
            first: 0,
            ranges: Vec::new(),
        }
    }

    /// Plays the random games and observes `model` and `baseline` on their quiet
    /// positions (in parallel; the result does not depend on the thread count).
    pub fn observe<G: EvalGame>(
        model: &dyn Evaluator<G>,
        baseline: &G::Builtin,
        start: G,
    ) -> LazyBounds {
        let seen = (0..GAMES)
            .into_par_iter()
            .fold(HashMap::new, |mut seen, game| {
                observe_game(model, baseline, start, game, &mut seen);
                seen
            })
            .reduce(HashMap::new, merge);
        LazyBounds::from_observations(&seen)
    }

    /// Bounds on the model's value where the baseline evaluates to `baseline`.
    #[inline]
    pub fn get(&self, baseline: i32) -> (i32, i32) {
        let index = baseline.wrapping_sub(self.first) as u32 as usize;
        let (low, high) = self.ranges.get(index).copied().unwrap_or(WHOLE);
        (i32::from(low), i32::from(high))
    }

    /// Baseline values with narrowed bounds.
    pub fn narrowed(&self) -> usize {
        self.ranges.iter().filter(|&&r| r != WHOLE).count()
    }

    /// One line for `evalearn model info`: how many values of the baseline (named
    /// `baseline`) have bounds, over what span.
    pub fn describe(&self, baseline: &str) -> String {
        let last = self.first + self.ranges.len() as i32 - 1;
        match self.narrowed() {
            0 => "lazy:        no bounds (every leaf is evaluated)\n".to_string(),
            n => format!(
                "lazy:        bounds at {n} {baseline} values from {} to {last} \
                 ({GAMES} random games; the search skips the model where they settle a \
                 leaf)\n",
                self.first
            ),
        }
    }
}

/// What the random games showed at one baseline value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Observed {
    count: u32,
    low: i16,
    high: i16,
}

impl Observed {
    fn merge(&mut self, other: Observed) {
        self.count += other.count;
        self.low = self.low.min(other.low);
        self.high = self.high.max(other.high);
    }
}

/// Records one model value at one baseline value.
fn record(seen: &mut HashMap<i32, Observed>, baseline: i32, value: i32) {
    let value = value.clamp(-EVAL_LIMIT, EVAL_LIMIT) as i16;
    let one = Observed {
        count: 1,
        low: value,
        high: value,
    };
    seen.entry(baseline)
        .and_modify(|o| o.merge(one))
        .or_insert(one);
}

fn merge(mut a: HashMap<i32, Observed>, b: HashMap<i32, Observed>) -> HashMap<i32, Observed> {
    for (key, o) in b {
        a.entry(key).and_modify(|m| m.merge(o)).or_insert(o);
    }
    a
}

/// One random game (its own stream of the fixed seed): every quiet position with a
/// legal move — the positions a search evaluates — observed.
fn observe_game<G: EvalGame>(
    model: &dyn Evaluator<G>,
    baseline: &G::Builtin,
    start: G,
    game: u64,
    seen: &mut HashMap<i32, Observed>,
) {
    let mut rng = rng::stream(SEED, game);
    let mut moves = G::Moves::default();
    let mut pos = start;
    for _ in 0..MAX_PLIES {
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            return;
        }
        if pos.is_quiet() {
            record(seen, baseline.evaluate(&pos), model.evaluate(&pos));
        }
        pos = pos.play(moves[rng.random_range(0..moves.len())]);
    }
}

/// A learned model with its [`LazyBounds`]: evaluates as the model does, and tells the
/// search its bounds from the baseline.
pub struct Lazy<G: EvalGame> {
    model: std::sync::Arc<dyn Evaluator<G>>,
    baseline: G::Builtin,
    bounds: LazyBounds,
}

impl<G: EvalGame> Lazy<G> {
    /// `model` with the bounds the random games from `start` show.
    pub fn new(model: std::sync::Arc<dyn Evaluator<G>>, start: G) -> Lazy<G> {
        let baseline = super::baseline::<G>();
        let bounds = LazyBounds::observe(model.as_ref(), &baseline, start);
        Lazy {
            model,
            baseline,
            bounds,
        }
    }

    /// The bounds the random games showed.
    pub fn observed(&self) -> &LazyBounds {
        &self.bounds
    }
}

impl<G: EvalGame> Evaluator<G> for Lazy<G> {
    #[inline]
    fn evaluate(&self, pos: &G) -> i32 {
        self.model.evaluate(pos)
    }

    fn name(&self) -> String {
        self.model.name()
    }

    fn logit_scale(&self) -> Option<f64> {
        self.model.logit_scale()
    }

    fn incremental(&self, plies: usize) -> Option<Box<dyn IncrementalEval<G>>> {
        self.model.incremental(plies)
    }

    #[inline]
    fn bounds(&self, pos: &G) -> Option<(i32, i32)> {
        Some(self.bounds.get(self.baseline.evaluate(pos)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_seen_often_enough_are_narrowed_and_the_rest_keep_the_whole_range() {
        let mut seen = HashMap::new();
        for k in 0..MIN_SEEN as i32 {
            record(&mut seen, 100, k - 50);
            record(&mut seen, -300, 2 * k);
        }
        record(&mut seen, 500, 7);
        record(&mut seen, 100, 90_000); // clamped to the evaluation limit
        let bounds = LazyBounds::from_observations(&seen);
        assert_eq!(bounds.get(100), (-50, EVAL_LIMIT));
        assert_eq!(bounds.get(-300), (0, 2 * (MIN_SEEN as i32 - 1)));
        assert_eq!(bounds.narrowed(), 2);
        assert!(
            bounds
                .describe("material")
                .contains("bounds at 2 material values from -300 to 100")
        );
        for unseen in [500, 0, -301, 101, i32::MIN, i32::MAX] {
            assert_eq!(bounds.get(unseen), (-EVAL_LIMIT, EVAL_LIMIT), "{unseen}");
        }
        assert_eq!(LazyBounds::none().get(100), (-EVAL_LIMIT, EVAL_LIMIT));
        assert!(
            LazyBounds::none()
                .describe("material")
                .contains("no bounds")
        );
    }

    #[test]
    fn observations_merge_whatever_their_order() {
        let mut a = HashMap::new();
        let mut b = HashMap::new();
        record(&mut a, 1, 5);
        record(&mut b, 1, -5);
        record(&mut b, 2, 3);
        let ab = merge(a.clone(), b.clone());
        assert_eq!(ab, merge(b, a));
        assert_eq!(
            ab[&1],
            Observed {
                count: 2,
                low: -5,
                high: 5
            }
        );
    }
}
