//! A linear evaluator over a game's named features (Samuel-style): a fixed-weight anchor
//! (material in draughts, the stores in Kalah) plus a learned weighted sum of positional
//! features (Beling's master's thesis, ch. 5.1–5.2). Each game says which features it has through [`Features`].

use std::fmt::Write;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::spec::{LoadError, ModelKind};
use super::{EVAL_LIMIT, Evaluator};
use crate::game::Game;
use crate::io::model::{self, ModelHeader};

/// The evaluator kind written in model files.
pub const KIND: &str = "linear";

/// Most features a game may define (the evaluator keeps them in a stack array).
pub const MAX_FEATURES: usize = 64;

/// Most piece-square terms a game may define ([`Features::PIECE_SQUARES`]).
pub const MAX_PIECE_SQUARES: usize = 64;

/// Ends the feature-set identifier of weights that carry piece-square terms after the
/// pool's weights (`[samuel] piece_squares`).
pub const PIECE_SQUARES_SUFFIX: &str = "+piece-squares";

/// A game's named features for the linear evaluator and Samuel's learner. Each feature is
/// an integer, (value for the side to move) − (value for the opponent).
pub trait Features: Game {
    /// Identifies the feature set (and its order) in saved weight files.
    const FEATURE_SET_ID: &'static str;
    /// Short names of the whole pool of candidate features, in [`Features::features`]
    /// order (at most [`MAX_FEATURES`]).
    const FEATURE_NAMES: &'static [&'static str];
    /// Features active at a time (Samuel's term replacement keeps the rest in reserve);
    /// a fresh model activates the first `ACTIVE` of the pool, the others queue in order.
    const ACTIVE: usize;
    /// One line per feature saying what it counts, in the same order.
    const FEATURE_DESCRIPTIONS: &'static [&'static str];
    /// The fixed-weight part of the value, for the side to move, in centi-units (material:
    /// a man 100, a king 300; Kalah: 100 a stone of store difference). It keeps the learned
    /// weights from drifting (Beling's master's thesis, ch. 5.2).
    fn anchor(&self) -> i32;
    /// Writes the whole pool's features into `out[..FEATURE_NAMES.len()]`.
    fn features(&self, out: &mut [i32]);
    /// Feature-set identifiers earlier builds wrote for this game, each with the config
    /// that retrains it: such model files are refused, naming it.
    const RETIRED_SETS: &'static [(&'static str, &'static str)] = &[];
    /// Piece-square terms a taught fit may add to the pool (`[samuel] piece_squares`, at
    /// most [`MAX_PIECE_SQUARES`]); 0 when the game has none.
    const PIECE_SQUARES: usize = 0;
    /// Calls `add(term, value)` for each piece-square term that is not 0 in this position:
    /// like the features, (side to move) − (opponent), each side seen from its own end.
    fn piece_squares(&self, _add: impl FnMut(usize, i32)) {}
    /// The piece-square weights laid out for `model info`.
    fn describe_piece_squares(_weights: &[f32]) -> String {
        String::new()
    }
}

/// The number of features of `G`.
pub fn feature_count<G: Features>() -> usize {
    G::FEATURE_NAMES.len()
}

/// Weights of the positional features, in centi-units per unit of feature, with the
/// state of Samuel's term replacement: which features of the pool are active, the reserve
/// queue and what was replaced so far. The anchor is not among them: it keeps its fixed
/// weight. Weights whose feature set ends in [`PIECE_SQUARES_SUFFIX`] carry the game's
/// piece-square terms after the pool's (always counted). Model files of a retired feature
/// set are refused when read, naming the config that retrains them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearWeights {
    /// Feature-set identifier the weights belong to.
    pub features: String,
    /// One weight per feature of the pool (only the active ones are used), then one per
    /// piece-square term if the set has them.
    pub weights: Vec<f32>,
    /// Indices of the active features, in the order they entered.
    pub active: Vec<u16>,
    /// Indices of the reserve features, the next to enter first.
    pub reserve: Vec<u16>,
    /// Every replacement so far, oldest first.
    pub replaced: Vec<Replacement>,
}

/// One term replacement: `removed` (the least useful active feature) left the active set
/// for the end of the reserve queue and `added` (the head of the queue) took its place.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Replacement {
    /// Self-play games played when it happened.
    pub game: u64,
    pub removed: u16,
    pub added: u16,
    /// The removed feature's usefulness measure (see the learner) at that time.
    pub measure: f32,
}

impl LinearWeights {
    /// All weights zero (plays exactly like the anchor alone), the first
    /// [`Features::ACTIVE`] features active and the rest queued in order.
    pub fn zero<G: Features>() -> Self {
        let count = feature_count::<G>();
        let active = G::ACTIVE.min(count);
        LinearWeights {
            features: G::FEATURE_SET_ID.to_string(),
            weights: vec![0.0; count],
            active: (0..active as u16).collect(),
            reserve: (active as u16..count as u16).collect(),
            replaced: Vec::new(),
        }
    }

    /// [`LinearWeights::zero`] with `G`'s piece-square terms after the pool, all 0.
    pub fn zero_with_piece_squares<G: Features>() -> Self {
        let mut weights = LinearWeights::zero::<G>();
        weights.features += PIECE_SQUARES_SUFFIX;
        weights
            .weights
            .resize(weights.weights.len() + G::PIECE_SQUARES, 0.0);
        weights
    }

    /// Whether the weights carry `G`'s piece-square terms (checked by
    /// [`LinearWeights::validate`]).
    pub fn has_piece_squares<G: Features>(&self) -> bool {
        self.features.len() > G::FEATURE_SET_ID.len()
    }

    /// The piece-square weights (empty without them).
    pub fn piece_square_weights<G: Features>(&self) -> &[f32] {
        self.weights.get(feature_count::<G>()..).unwrap_or(&[])
    }

    /// Checks that the weights fit `G`'s feature set in this build and that the active
    /// and reserve features split the pool.
    pub fn validate<G: Features>(&self) -> Result<(), String> {
        let squares = G::PIECE_SQUARES;
        let with_squares = format!("{}{PIECE_SQUARES_SUFFIX}", G::FEATURE_SET_ID);
        let terms = if self.features == G::FEATURE_SET_ID {
            0
        } else if squares > 0 && self.features == with_squares {
            squares
        } else {
            return Err(format!(
                "weights for feature set '{}', this build computes '{}' for {}",
                self.features,
                if squares > 0 {
                    format!("{}' or '{with_squares}", G::FEATURE_SET_ID)
                } else {
                    G::FEATURE_SET_ID.to_string()
                },
                G::NAME
            ));
        };
        let count = feature_count::<G>();
        if self.weights.len() != count + terms {
            return Err(match terms {
                0 => format!("{} weights for {count} features", self.weights.len()),
                _ => format!(
                    "{} weights for {count} features and {terms} piece-square terms",
                    self.weights.len()
                ),
            });
        }
        if let Some(i) = self.weights.iter().position(|w| !w.is_finite()) {
            let name = match G::FEATURE_NAMES.get(i) {
                Some(name) => name.to_string(),
                None => format!("piece-square term {}", i - count),
            };
            return Err(format!("weight {i} ({name}) is not a finite number"));
        }
        if count > MAX_FEATURES {
            return Err(format!("{count} features, at most {MAX_FEATURES}"));
        }
        // A bit per feature (at most 64): validation runs after every learning step.
        let mut seen = 0u64;
        for &i in self.active.iter().chain(&self.reserve) {
            let i = usize::from(i);
            if i >= count {
                return Err(format!("feature index {i} of {count} features"));
            }
            if seen & (1 << i) != 0 {
                return Err(format!(
                    "feature {i} ({}) listed twice",
                    G::FEATURE_NAMES[i]
                ));
            }
            seen |= 1 << i;
        }
        if let Some(i) = (0..count).find(|&i| seen & (1 << i) == 0) {
            return Err(format!(
                "feature {i} ({}) is neither active nor in reserve",
                G::FEATURE_NAMES[i]
            ));
        }
        let replaced_ok = self
            .replaced
            .iter()
            .all(|r| usize::from(r.removed) < count && usize::from(r.added) < count);
        if !replaced_ok {
            return Err("a replacement names a feature outside the pool".into());
        }
        Ok(())
    }

    /// Whether feature `i` is active.
    pub fn is_active(&self, i: usize) -> bool {
        self.active.iter().any(|&a| usize::from(a) == i)
    }

    /// Samuel's term replacement: active feature `removed` goes to the end of the reserve
    /// queue with its weight cleared, the queue's head takes its place with weight 0.
    /// Returns the feature that entered, or `None` if the reserve is empty or `removed`
    /// is not active.
    pub fn replace(&mut self, removed: usize, game: u64, measure: f32) -> Option<usize> {
        let slot = self
            .active
            .iter()
            .position(|&a| usize::from(a) == removed)?;
        if self.reserve.is_empty() {
            return None;
        }
        let added = self.reserve.remove(0);
        self.active[slot] = added;
        self.reserve.push(removed as u16);
        self.weights[removed] = 0.0;
        self.weights[usize::from(added)] = 0.0;
        self.replaced.push(Replacement {
            game,
            removed: removed as u16,
            added,
            measure,
        });
        Some(usize::from(added))
    }
}

/// The linear evaluator: `anchor + Σ wᵢ·fᵢ` (plus the piece-square terms' weights when
/// the model has them), clamped to the evaluation range.
#[derive(Clone, Debug, PartialEq)]
pub struct Linear<G> {
    weights: [f32; MAX_FEATURES],
    count: usize,
    piece_squares: Option<[f32; MAX_PIECE_SQUARES]>,
    game: PhantomData<fn() -> G>,
}

impl<G: Features> Linear<G> {
    /// An evaluator from checked weights (see [`LinearWeights::validate`]).
    pub fn new(weights: &LinearWeights) -> Result<Linear<G>, String> {
        const { assert!(MAX_FEATURES >= 1 && G::PIECE_SQUARES <= MAX_PIECE_SQUARES) };
        weights.validate::<G>()?;
        // Inactive features count for nothing, whatever weight a file gives them.
        let mut array = [0.0; MAX_FEATURES];
        for &i in &weights.active {
            array[usize::from(i)] = weights.weights[usize::from(i)];
        }
        let count = feature_count::<G>();
        let given = weights.piece_square_weights::<G>();
        let piece_squares = (!given.is_empty()).then(|| {
            let mut squares = [0.0; MAX_PIECE_SQUARES];
            squares[..given.len()].copy_from_slice(given);
            squares
        });
        Ok(Linear {
            weights: array,
            count,
            piece_squares,
            game: PhantomData,
        })
    }

    /// The positional part alone, in centi-units (unrounded).
    #[inline]
    pub fn positional(&self, values: &[i32]) -> f32 {
        self.weights[..self.count]
            .iter()
            .zip(values)
            .map(|(w, &f)| w * f as f32)
            .sum()
    }
}

impl<G: Features> Evaluator<G> for Linear<G> {
    #[inline]
    fn evaluate(&self, pos: &G) -> i32 {
        let mut values = [0; MAX_FEATURES];
        pos.features(&mut values[..self.count]);
        let mut value = pos.anchor() as f32 + self.positional(&values[..self.count]);
        if let Some(squares) = &self.piece_squares {
            pos.piece_squares(|term, v| value += squares[term] * v as f32);
        }
        (value.round() as i32).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    fn name(&self) -> String {
        KIND.to_string()
    }
}

/// The model kind of linear evaluators, for a game with named features.
pub const fn kind<G: Features>() -> ModelKind<G> {
    ModelKind {
        kind: KIND,
        load: load::<G>,
        describe: describe::<G>,
    }
}

fn read<G: Features>(path: &Path, game: &str) -> Result<(ModelHeader, LinearWeights), LoadError> {
    // A retired set is refused before its payload (laid out differently then) fails to
    // decode with a less helpful message.
    let header = model::read_header(path)?;
    if let Some((old, config)) = G::RETIRED_SETS
        .iter()
        .find(|(old, _)| *old == header.features)
    {
        return Err(LoadError::Invalid {
            path: path.to_path_buf(),
            reason: format!(
                "feature set '{old}' is no longer supported: this build computes '{}' for {}; \
                 retrain with `evalearn train --config {config}`",
                G::FEATURE_SET_ID,
                G::NAME
            ),
        });
    }
    let (header, weights) = model::load_model::<LinearWeights>(path, Some(game), Some(KIND))?;
    weights
        .validate::<G>()
        .map_err(|reason| LoadError::Invalid {
            path: path.to_path_buf(),
            reason,
        })?;
    Ok((header, weights))
}

fn load<G: Features>(
    path: &Path,
    game: &str,
) -> Result<(Arc<dyn Evaluator<G>>, ModelHeader), LoadError> {
    let (header, weights) = read::<G>(path, game)?;
    let evaluator = Linear::<G>::new(&weights).map_err(|reason| LoadError::Invalid {
        path: path.to_path_buf(),
        reason,
    })?;
    Ok((Arc::new(evaluator), header))
}

fn describe<G: Features>(path: &Path, game: &str) -> Result<String, LoadError> {
    Ok(describe_weights::<G>(&read::<G>(path, game)?.1))
}

/// A linear model's active features with their weights and since when they are active,
/// its reserve queue and the term replacements that led there.
fn describe_weights<G: Features>(weights: &LinearWeights) -> String {
    let mut out = String::new();
    let names = G::FEATURE_NAMES;
    let entered = |i: usize| {
        weights
            .replaced
            .iter()
            .rev()
            .find(|r| usize::from(r.added) == i)
            .map(|r| r.game)
    };
    let _ = writeln!(
        out,
        "active features: {} of a pool of {} (weights in centi-units per unit of feature; the \
         anchor keeps its fixed weight):",
        weights.active.len(),
        names.len()
    );
    for &i in &weights.active {
        let i = usize::from(i);
        let since = match entered(i) {
            Some(game) => format!("entered at game {game}"),
            None => "active from the start".to_string(),
        };
        let _ = writeln!(
            out,
            "    {:<24} {:>9.2}   {since}",
            names[i], weights.weights[i]
        );
    }
    let reserve: Vec<&str> = weights
        .reserve
        .iter()
        .map(|&i| names[usize::from(i)])
        .collect();
    let _ = writeln!(out, "reserve, next first: {}", reserve.join(", "));
    if weights.has_piece_squares::<G>() {
        out += &G::describe_piece_squares(weights.piece_square_weights::<G>());
    }
    let _ = writeln!(
        out,
        "replacements: {} (the active feature least correlated with winning, |r|, makes way \
         for the reserve's head)",
        weights.replaced.len()
    );
    for r in &weights.replaced {
        let _ = writeln!(
            out,
            "    game {:>6}: {:<24} → {:<24} |r| {:.3}",
            r.game,
            names[usize::from(r.removed)],
            names[usize::from(r.added)],
            r.measure
        );
    }
    out
}
