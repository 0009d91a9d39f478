//! GLEM's training half (seed 5.3): configurations mined from self-play positions
//! ([`mine`], the seed's GenConf within regions), samples labelled from games
//! ([`samples_from_games`]), and the weights fitted by gradient descent
//! ([`GlemModel::fit`]). The model, its checks and the compiled evaluator are run-time
//! code, in [`crate::eval::glem`]; this module only adds training to them, for any game
//! with GLEM atoms ([`Atoms`]).
//!
//! # Measurements (Brazilian draughts)
//!
//! Data: `evalearn selfplay --eval material --games 2000 --depth 4 --random-plies 8
//! --temperature 0.3`, 2,000 games, 123,947 positions, 94,074 samples (quiet with a
//! legal move); a 20,000-game run (seed 2) for the larger numbers. 2 cores.
//!
//! - Mining with the default regions, at most 4 atoms: support 20 → 100,707
//!   configurations, 50 ([`DEFAULT_MIN_SUPPORT`]) → 75,517, 100 → 61,721, 200 → 52,781;
//!   support 50 with at most 3 atoms → 25,422, 5 → 143,855, 8 → 225,654. About 1 s
//!   (4 atoms; 14 s for 8); 943,344 samples: support 500 → 75,713 (10 s). Mining took
//!   the positions of the samples.
//! - Fitting with [`FitParams::default`] (100 epochs) on the 94,074 samples: about 9 s;
//!   loss 0.095 → 0.0093 (targets blended with search weight 0.7). Against the
//!   material evaluator (1,000 game pairs at depth 4, 400 at depth 6, from 6-ply random
//!   openings): +216 and +211 Elo. Outcome-only targets (search weight 0): −2 and +56
//!   Elo — the search scores make the labels far less noisy. On the 943,344 samples of
//!   20,000 games (support 500, 33 s): +263 and +271 Elo; outcome-only +188 and +204.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::train::{Iteration, IterationReport, Learner, Stage};
use crate::eval::EvalGame;
use crate::eval::glem::{
    self, Atom, Atoms, Configuration, DEFAULT_SCALE, Glem, GlemModel, MAX_REGION_SQUARES,
    MAX_REGIONS, MAX_SLOTS, Region, logistic,
};
use crate::eval::spec::AnyEvaluator;
use crate::game::Game;
use crate::io::dataset::{DatasetGame, GameFrame};
use crate::io::model::{ModelError, ModelHeader, save_model};

/// Centi-units per logit unit used to turn search scores into targets in
/// [`samples_from_games`] (score `s` becomes `g(s / SEARCH_SCALE)`). Equal to
/// [`DEFAULT_SCALE`], so that when a model's own games are the data, its search scores
/// map back to logits exactly.
pub const SEARCH_SCALE: f32 = DEFAULT_SCALE;

/// A sensible default for the seed's `n` (see [`mine`]): on the 94,074 samples of 2,000
/// self-play games, the draughts default regions and at most 4 atoms give 75,517 configurations
/// (support 20 → 100,707, 100 → 61,721, 200 → 52,781). Scale it with the data (e.g. 500
/// for 20,000 games: 75,713 configurations).
pub const DEFAULT_MIN_SUPPORT: usize = 50;
/// A sensible default for the largest configuration.
pub const DEFAULT_MAX_ATOMS: usize = 4;

/// A configuration of one region as (region position, digit) pairs, positions
/// increasing.
type AtomPath = Vec<(u8, u8)>;

/// Sentinel: no child / no configuration.
const NONE: u32 = u32::MAX;

/// A region's contents as a slot mask: bit `5j + d` for digit `d` on region position
/// `j` (at most 40 bits).
#[inline(always)]
fn content_mask(digits: &[u8; MAX_SLOTS], squares: &[u8]) -> u64 {
    let mut mask = 0u64;
    for (j, &s) in squares.iter().enumerate() {
        mask |= 1 << (5 * j + digits[s as usize - 1] as usize);
    }
    mask
}

/// Builds a [`Trie`]: nodes with dense child tables, easy to insert into.
struct TrieBuilder {
    k: usize,
    /// First region position a child of the node may use (one past the node's last).
    first: Vec<u8>,
    /// Offset of the node's child table in `children`, or `NONE` if it has no child.
    /// Entry `(j − first)·5 + digit` is the child adding `digit` on position `j`.
    base: Vec<u32>,
    config: Vec<u32>,
    /// Child tables; 0 means no child (the root is never a child).
    children: Vec<u32>,
}

impl TrieBuilder {
    fn new(k: usize) -> TrieBuilder {
        TrieBuilder {
            k,
            first: vec![0],
            base: vec![NONE],
            config: vec![NONE],
            children: Vec::new(),
        }
    }

    /// The node of `path` ((position, digit) pairs, positions increasing), created if
    /// missing.
    fn insert(&mut self, path: &[(u8, u8)]) -> usize {
        let mut node = 0usize;
        for &(j, d) in path {
            let first = self.first[node] as usize;
            debug_assert!((j as usize) >= first && (j as usize) < self.k && d < 5);
            if self.base[node] == NONE {
                self.base[node] = self.children.len() as u32;
                self.children
                    .resize(self.children.len() + (self.k - first) * 5, 0);
            }
            let slot = self.base[node] as usize + (j as usize - first) * 5 + d as usize;
            if self.children[slot] == 0 {
                self.children[slot] = self.first.len() as u32;
                self.first.push(j + 1);
                self.base.push(NONE);
                self.config.push(NONE);
            }
            node = self.children[slot] as usize;
        }
        node
    }

    /// The compact tree (children of a node contiguous, breadth first) and the new
    /// index of every builder node.
    fn finish(&self) -> (Trie, Vec<u32>) {
        let n = self.first.len();
        let mut order = Vec::with_capacity(n);
        let mut new_index = vec![NONE; n];
        order.push(0usize);
        new_index[0] = 0;
        let mut nodes = Vec::with_capacity(n);
        let mut head = 0;
        while head < order.len() {
            let old = order[head];
            head += 1;
            let first = self.first[old] as u64;
            let mut slots = 0u64;
            let child0 = order.len() as u32;
            if self.base[old] != NONE {
                let base = self.base[old] as usize;
                let width = (self.k - first as usize) * 5;
                for (slot, &child) in self.children[base..base + width].iter().enumerate() {
                    if child != 0 {
                        slots |= 1 << slot;
                        new_index[child as usize] = order.len() as u32;
                        order.push(child as usize);
                    }
                }
            }
            nodes.push(TrieNode {
                mask: slots | first << FIRST_SHIFT,
                child0,
                config: self.config[old],
            });
        }
        (Trie { nodes }, new_index)
    }
}

/// Where a node's first child position is kept in [`TrieNode::mask`].
const FIRST_SHIFT: u32 = 56;
const SLOT_BITS: u64 = (1 << 40) - 1;

#[derive(Clone, Copy, Debug)]
struct TrieNode {
    /// Bit `s` set: a child on slot `s = (j − first)·5 + d`; bits 56.. hold `first`.
    mask: u64,
    /// Index of the first child; the others follow in slot order.
    child0: u32,
    /// The configuration the node is (an id chosen by the builder), or `NONE`.
    config: u32,
}

/// Configurations of one region as a prefix tree over the region's squares (in region
/// order): a node is a set of atoms, its children add one atom on a later square. Nodes
/// need not be configurations themselves. Walking the configurations active for some
/// contents costs a few instructions per active node: the active children of a node
/// are its child mask ANDed with the contents' slot mask ([`content_mask`]).
#[derive(Clone, Debug, Default)]
struct Trie {
    nodes: Vec<TrieNode>,
}

impl Trie {
    /// Calls `f(node)` for every non-root node whose atoms all hold in the contents
    /// `content` ([`content_mask`]), parents before children.
    #[inline]
    fn walk<F: FnMut(usize)>(&self, node: usize, content: u64, f: &mut F) {
        let n = self.nodes[node];
        let first = (n.mask >> FIRST_SHIFT) as u32;
        let slots = n.mask & SLOT_BITS;
        let mut active = slots & (content >> (5 * first));
        while active != 0 {
            let s = active.trailing_zeros();
            let child = n.child0 as usize + (slots & ((1u64 << s) - 1)).count_ones() as usize;
            f(child);
            self.walk(child, content, f);
            active &= active - 1;
        }
    }

    /// Calls `f(config)` for every configuration active for `content`.
    #[inline]
    fn for_each_active<F: FnMut(u32)>(&self, content: u64, f: &mut F) {
        self.walk(0, content, &mut |node| {
            let c = self.nodes[node].config;
            if c != NONE {
                f(c);
            }
        });
    }

    /// First region position of `node`'s children.
    fn first(&self, node: usize) -> usize {
        (self.nodes[node].mask >> FIRST_SHIFT) as usize
    }
}

/// Positions per chunk of parallel work (a fixed size: results never depend on the
/// number of threads).
const CHUNK: usize = 4096;

/// All configurations of one region (as (position, digit) paths) active in at least
/// `n` of the positions, with at most `max_atoms` atoms: GenConf level by level. A
/// level-`l + 1` candidate is a frequent level-`l` configuration plus one frequent atom
/// on a later square; every frequent configuration is found this way because all its
/// subsets are frequent.
fn mine_region(
    digits: &[[u8; MAX_SLOTS]],
    squares: &[u8],
    n: usize,
    max_atoms: usize,
) -> Vec<AtomPath> {
    let k = squares.len();
    let mut found: Vec<AtomPath> = Vec::new();
    if max_atoms == 0 {
        return found;
    }
    let contents: Vec<u64> = digits.iter().map(|d| content_mask(d, squares)).collect();
    // Level 1: R, the frequent atoms.
    // Counts are integers: summing per-thread counters gives the same result whatever
    // the split.
    let counts = contents
        .par_chunks(CHUNK)
        .fold(
            || vec![0u64; k * 5],
            |mut counts, chunk| {
                for &content in chunk {
                    let mut bits = content;
                    while bits != 0 {
                        counts[bits.trailing_zeros() as usize] += 1;
                        bits &= bits - 1;
                    }
                }
                counts
            },
        )
        .reduce(|| vec![0u64; k * 5], add_counts);
    let mut frontier: Vec<usize> = Vec::new();
    for (slot, &c) in counts.iter().enumerate() {
        if c >= n as u64 {
            frontier.push(found.len());
            found.push(vec![((slot / 5) as u8, (slot % 5) as u8)]);
        }
    }
    for _level in 2..=max_atoms {
        if frontier.is_empty() {
            break;
        }
        // The tree of everything found so far; frontier nodes get counters for their
        // extensions (positions after their last atom, 5 digits each).
        let mut builder = TrieBuilder::new(k);
        for path in &found {
            builder.insert(path);
        }
        let mut frontier_nodes = Vec::with_capacity(frontier.len());
        for &f in &frontier {
            frontier_nodes.push(builder.insert(&found[f]));
        }
        let (trie, new_index) = builder.finish();
        let mut counter_of_node = vec![NONE; trie.nodes.len()];
        let mut counter_base = Vec::with_capacity(frontier.len());
        let mut total = 0usize;
        for (&f, &node) in frontier.iter().zip(&frontier_nodes) {
            counter_of_node[new_index[node] as usize] = counter_base.len() as u32;
            counter_base.push(total);
            let last = found[f].last().expect("non-empty").0 as usize;
            total += (k - last - 1) * 5;
        }
        let counts = contents
            .par_chunks(CHUNK)
            .fold(
                || vec![0u64; total],
                |mut counts, chunk| {
                    for &content in chunk {
                        trie.walk(0, content, &mut |node| {
                            let c = counter_of_node[node];
                            if c != NONE {
                                let first = trie.first(node);
                                let base = counter_base[c as usize];
                                // One extension per later square: its digit here.
                                let mut ext =
                                    (content >> (5 * first)) & ((1u64 << (5 * (k - first))) - 1);
                                while ext != 0 {
                                    counts[base + ext.trailing_zeros() as usize] += 1;
                                    ext &= ext - 1;
                                }
                            }
                        });
                    }
                    counts
                },
            )
            .reduce(|| vec![0u64; total], add_counts);
        let mut next = Vec::new();
        for (i, &f) in frontier.iter().enumerate() {
            let last = found[f].last().expect("non-empty").0 as usize;
            let base = counter_base[i];
            for slot in 0..(k - last - 1) * 5 {
                if counts[base + slot] >= n as u64 {
                    let mut path = found[f].clone();
                    path.push(((last + 1 + slot / 5) as u8, (slot % 5) as u8));
                    next.push(path);
                }
            }
        }
        frontier = (found.len()..found.len() + next.len()).collect();
        found.extend(next);
    }
    found
}

fn add_counts<T: std::ops::AddAssign + Copy>(mut a: Vec<T>, b: Vec<T>) -> Vec<T> {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

/// The seed's GenConf(E, n) (listing 5.1) within regions: every configuration of at most
/// `max_atoms` atoms of one region that is active in at least `min_support` of
/// `positions` (counted with repetitions; `min_support` 0 counts as 1), built level by
/// level — R = the frequent single atoms, then M = { c ∪ d : c found at the previous
/// level, d ∈ R on another square of the same region, support ≥ n } until M is empty or
/// configurations reach `max_atoms`. (As written, the listing never stops: c ∪ d = c
/// when d ∈ c; only strictly larger sets count as new.)
///
/// A configuration lying in several regions is kept once, in the first of them. The
/// result is sorted by region, then by size, then by atoms, and does not depend on the
/// number of threads. Cost: one pass over the positions per level, each visiting the
/// frequent configurations active in the position.
///
/// # Panics
///
/// If a region is invalid ([`Region::validate`]) or there are more than
/// [`MAX_REGIONS`] regions.
pub fn mine<G: Atoms>(
    positions: &[G],
    regions: &[Region],
    min_support: usize,
    max_atoms: usize,
) -> Vec<Configuration> {
    assert!(regions.len() <= MAX_REGIONS, "too many regions");
    for region in regions {
        if let Err(e) = region.validate::<G>() {
            panic!("mine: {e}");
        }
    }
    let n = min_support.max(1);
    let max_atoms = max_atoms.min(MAX_REGION_SQUARES);
    let digits: Vec<[u8; MAX_SLOTS]> = positions.par_iter().map(G::atom_digits).collect();
    let per_region: Vec<Vec<AtomPath>> = regions
        .iter()
        .map(|r| mine_region(&digits, &r.squares, n, max_atoms))
        .collect();
    let mut seen: HashSet<Vec<Atom>> = HashSet::new();
    let mut out = Vec::new();
    for (r, (region, paths)) in regions.iter().zip(per_region).enumerate() {
        let mut configs: Vec<Configuration> = paths
            .into_iter()
            .map(|path| {
                let mut atoms: Vec<Atom> = path
                    .iter()
                    .map(|&(j, d)| Atom::new(region.squares[j as usize], G::atom_value(d)))
                    .collect();
                atoms.sort();
                Configuration {
                    region: r as u16,
                    atoms,
                }
            })
            .collect();
        configs.sort_by(|a, b| (a.atoms.len(), &a.atoms).cmp(&(b.atoms.len(), &b.atoms)));
        for c in configs {
            if seen.insert(c.atoms.clone()) {
                out.push(c);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Samples
// ---------------------------------------------------------------------------------------

/// A training position with its target: the expected result for the side to move
/// (1 win, ½ draw, 0 loss), in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample<G> {
    pub position: G,
    pub target: f32,
}

/// Labels every quiet position (no capture pending, since search evaluates only those)
/// with a legal move of each game with the game's final result for that position's side
/// to move (1, ½, 0), blended with the search score when `search_weight` > 0:
/// `target = (1 − w)·result + w·g(score / SEARCH_SCALE)` ([`SEARCH_SCALE`]). `w` is
/// clamped to [0, 1] (NaN counts as 0); the game's last position has no score and gets
/// the result alone.
pub fn samples_from_games<G: Game>(games: &[DatasetGame<G>], search_weight: f32) -> Vec<Sample<G>> {
    let w = if search_weight.is_nan() {
        0.0
    } else {
        search_weight.clamp(0.0, 1.0)
    };
    let per_game: Vec<Vec<Sample<G>>> = games
        .par_iter()
        .map(|game| {
            let mut out = Vec::with_capacity(game.positions.len());
            for (i, pos) in game.positions.iter().enumerate() {
                if !pos.is_quiet() || !pos.has_legal_move() {
                    continue;
                }
                let result = game.outcome.score_for(pos.side_to_move()) as f32;
                let target = match game.scores.get(i) {
                    Some(&score) if w > 0.0 => {
                        let searched = logistic(score as f64 / SEARCH_SCALE as f64) as f32;
                        (1.0 - w) * result + w * searched
                    }
                    _ => result,
                };
                out.push(Sample {
                    position: *pos,
                    target: target.clamp(0.0, 1.0),
                });
            }
            out
        })
        .collect();
    per_game.into_iter().flatten().collect()
}

// ---------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------

/// How [`GlemModel::fit`] descends.
#[derive(Clone, Debug, PartialEq)]
pub struct FitParams {
    /// Passes over the samples (one descent step each).
    pub epochs: usize,
    /// Step length α.
    pub learning_rate: f64,
    /// L2 penalty on the shared weights `s` (see [`GlemModel::fit`]).
    pub l2: f64,
    /// L2 penalty on each phase's deviation `d` from the shared weight. Large values tie
    /// the phases together (one phase's worth of data for every weight); small values
    /// let each phase learn on its own samples. Unused with a single phase.
    pub phase_l2: f64,
    /// Heavy-ball momentum in [0, 1) (0: plain steepest descent).
    pub momentum: f64,
    /// Divide each parameter's gradient by `(nᵢ + 1)/N + 2·λ/c` (`N` samples, `nᵢ` of them
    /// with the configuration active — in the phase, for a deviation; `λ` its L2
    /// penalty; `c` = 1/8, a sample's typical curvature in its logit): a diagonal
    /// estimate of the curvature, so a configuration seen 50 times learns about as fast
    /// as one seen everywhere, and one seen nowhere stays stable. The minimum is the
    /// same.
    pub normalize: bool,
}

impl Default for FitParams {
    /// Tuned on self-play data (94k and 943k samples, judged by matches against the
    /// material evaluator): 100 epochs at rate 0.01 with momentum 0.9 (50 or 200 epochs
    /// play the same; a rate far too large is halved automatically); `l2` 1e-4 (3e-5
    /// and 3e-4 play 20–40 Elo weaker); `phase_l2` 1e-3 (4 phases then play like 1).
    /// About 10 s for 100k samples and 75k configurations on 2 cores.
    fn default() -> Self {
        FitParams {
            epochs: 100,
            learning_rate: 0.01,
            l2: 1e-4,
            phase_l2: 1e-3,
            momentum: 0.9,
            normalize: true,
        }
    }
}

/// An epoch raising the loss by more than this factor is undone (see
/// [`FitReport::rate_halvings`]).
const DIVERGENCE: f64 = 1.05;

/// A sample's typical curvature of the squared error in its logit, `2·(g(1 − g))²` at
/// `g = ½` (Gauss–Newton).
const SAMPLE_CURVATURE: f64 = 0.125;

/// What [`GlemModel::fit`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct FitReport {
    pub samples: usize,
    /// Mean squared error before the first step and after the last.
    pub loss_before: f64,
    pub loss_after: f64,
    /// Mean squared error after each epoch.
    pub epoch_losses: Vec<f64>,
    /// The learning rate at the end (lower than asked if the descent diverged).
    pub learning_rate: f64,
    /// Epochs undone because the loss grew by more than 5% (or was not finite): the
    /// step is taken back, the momentum dropped and the learning rate halved.
    pub rate_halvings: usize,
}
impl GlemModel {
    /// The same model over the configurations `new`: configurations present in both keep
    /// their weights (for every phase), new ones start at zero. Use it after re-mining,
    /// so what was learned is kept.
    pub fn with_configurations(&self, new: Vec<Configuration>) -> GlemModel {
        let old: HashMap<&Configuration, usize> = self
            .configurations
            .iter()
            .enumerate()
            .map(|(i, c)| (c, i))
            .collect();
        let weights = self
            .weights
            .iter()
            .map(|phase| {
                new.iter()
                    .map(|c| old.get(c).map_or(0.0, |&i| phase[i]))
                    .collect()
            })
            .collect();
        GlemModel {
            features: self.features.clone(),
            regions: self.regions.clone(),
            configurations: new,
            phases: self.phases.clone(),
            scale: self.scale,
            weights,
        }
    }

    /// Mean squared error `1/n Σ (target − g(x))²` over the samples (0 if none).
    pub fn loss<G: Atoms>(&self, samples: &[Sample<G>]) -> f64 {
        if samples.is_empty() {
            return 0.0;
        }
        let fitter = Fitter::new(self, samples);
        let (_, loss) = fitter.forward(&fitter.local_weights(self));
        loss
    }

    /// Steepest descent (preconditioned, with momentum: [`FitParams`]) on
    ///
    /// `E = 1/N Σᵢ (rᵢ − g(xᵢ))² + l2·Σ s² + phase_l2·Σ d²`,
    ///
    /// starting from the current weights, each weight `w[p][c] = s[c] + d[p][c]`: a
    /// shared part and a per-phase deviation (starting as the mean over phases and the
    /// rest), so every phase learns from all samples and deviates where its own samples
    /// insist. Samples' targets should lie in [0, 1].
    ///
    /// Parallel without depending on the number of threads: the pass over samples
    /// computes each sample's value on its own; gradients are summed per (phase,
    /// region), each over its samples in order. An epoch that raises the loss by more
    /// than 5% is undone and the learning rate halved. Reports the mean squared error
    /// (without the penalties) before, after, and after each epoch.
    pub fn fit<G: Atoms>(&mut self, samples: &[Sample<G>], params: &FitParams) -> FitReport {
        self.fit_with_progress(samples, params, &mut |_| {})
    }

    /// [`GlemModel::fit`], calling `on_epoch` with the number of epochs done after each.
    pub fn fit_with_progress<G: Atoms>(
        &mut self,
        samples: &[Sample<G>],
        params: &FitParams,
        on_epoch: &mut dyn FnMut(usize),
    ) -> FitReport {
        let mut report = FitReport {
            samples: samples.len(),
            loss_before: 0.0,
            loss_after: 0.0,
            epoch_losses: Vec::with_capacity(params.epochs),
            learning_rate: params.learning_rate,
            rate_halvings: 0,
        };
        if samples.is_empty() || self.configurations.is_empty() {
            return report;
        }
        let fitter = Fitter::new(self, samples);
        let r = fitter.regions;
        let phases = self.phases.count();
        // Weights as shared + deviation: the shared part starts as the mean over phases.
        let w0 = fitter.local_weights(self);
        let mut shared: Vec<Vec<f64>> = (0..r)
            .map(|region| {
                let mut mean = vec![0.0; w0[region].len()];
                for p in 0..phases {
                    for (m, w) in mean.iter_mut().zip(&w0[p * r + region]) {
                        *m += w / phases as f64;
                    }
                }
                mean
            })
            .collect();
        let mut deviation: Vec<Vec<f64>> = w0
            .iter()
            .enumerate()
            .map(|(task, w)| {
                w.iter()
                    .zip(&shared[task % r])
                    .map(|(w, s)| if phases > 1 { w - s } else { 0.0 })
                    .collect()
            })
            .collect();
        let combine = |shared: &[Vec<f64>], deviation: &[Vec<f64>]| -> Vec<Vec<f64>> {
            deviation
                .iter()
                .enumerate()
                .map(|(task, d)| {
                    d.iter()
                        .zip(&shared[task % r])
                        .map(|(d, s)| s + d)
                        .collect()
                })
                .collect()
        };
        let counts = fitter.active_counts();
        let shared_counts = sum_phases(&counts, r, phases);
        let mut shared_velocity: Vec<Vec<f64>> =
            shared.iter().map(|v| vec![0.0; v.len()]).collect();
        let mut deviation_velocity: Vec<Vec<f64>> =
            deviation.iter().map(|v| vec![0.0; v.len()]).collect();
        let (mut delta, loss) = fitter.forward(&combine(&shared, &deviation));
        report.loss_before = loss;
        let n = samples.len() as f64;
        // One parameter's step: gradient `g/N + 2·l2·x`, preconditioned, with momentum.
        let step = |x: &mut [f64], v: &mut [f64], g: &[f64], count: &[f64], l2: f64, rate: f64| {
            for i in 0..x.len() {
                let mut grad = g[i] / n + 2.0 * l2 * x[i];
                if params.normalize {
                    grad /= (count[i] + 1.0) / n + 2.0 * l2 / SAMPLE_CURVATURE;
                }
                v[i] = params.momentum * v[i] + rate * grad;
                x[i] -= v[i];
            }
        };
        let mut rate = params.learning_rate;
        let mut last_loss = loss;
        for epoch in 1..=params.epochs {
            let saved = (shared.clone(), deviation.clone());
            let grads = fitter.gradient(&delta);
            let shared_grads = sum_phases(&grads, r, phases);
            shared
                .par_iter_mut()
                .zip(shared_velocity.par_iter_mut())
                .zip(shared_grads.par_iter().zip(&shared_counts))
                .for_each(|((x, v), (g, c))| step(x, v, g, c, params.l2, rate));
            if phases > 1 {
                deviation
                    .par_iter_mut()
                    .zip(deviation_velocity.par_iter_mut())
                    .zip(grads.par_iter().zip(&counts))
                    .for_each(|((x, v), (g, c))| step(x, v, g, c, params.phase_l2, rate));
            }
            let (d, loss) = fitter.forward(&combine(&shared, &deviation));
            if !loss.is_finite() || loss > DIVERGENCE * last_loss {
                // The step was too long: undo it, forget the momentum, halve the rate.
                (shared, deviation) = saved;
                for v in shared_velocity.iter_mut().chain(&mut deviation_velocity) {
                    v.fill(0.0);
                }
                rate *= 0.5;
                report.rate_halvings += 1;
                report.epoch_losses.push(last_loss);
                on_epoch(epoch);
                continue;
            }
            delta = d;
            last_loss = loss;
            report.epoch_losses.push(loss);
            on_epoch(epoch);
        }
        let w = combine(&shared, &deviation);
        report.loss_after = last_loss;
        report.learning_rate = rate;
        fitter.store_weights(self, &w);
        report
    }

    /// Sets [`GlemModel::scale`] so that a unit of material ([`Atoms::material`]: a man,
    /// a stone) is worth about 100 centi-units: the least-squares slope `b` of the logit
    /// against the material balance over the positions, then
    /// `scale = 100 / b`. Leaves the scale unchanged if the slope is not positive (no
    /// material imbalance in the positions, or an untrained model). Returns the scale.
    ///
    /// Optional: the default ([`DEFAULT_SCALE`]) already puts a man near 100 (fitted
    /// models measure 130–190). When training on the model's own games with a search
    /// weight, keep `scale` = [`SEARCH_SCALE`] so the search scores in the targets
    /// mean the same logits as the model's values.
    pub fn calibrate_scale<G: Atoms>(&mut self, positions: &[G]) -> f32 {
        let fitter = Fitter::new_positions(self, positions);
        let x = fitter.logits(&fitter.local_weights(self));
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (pos, x) in positions.iter().zip(x) {
            let material = pos.material();
            sxy += x * material;
            sxx += material * material;
        }
        if sxx > 0.0 && sxy > 0.0 {
            let slope = sxy / sxx;
            let scale = (100.0 / slope) as f32;
            if scale.is_finite() && scale > 0.0 && scale <= 1e6 {
                self.scale = scale;
            }
        }
        self.scale
    }
}

// ---------------------------------------------------------------------------------------
// Fitting machinery
// ---------------------------------------------------------------------------------------

/// Per region, the sum over phases of per-task (phase-major) vectors.
fn sum_phases(by_task: &[Vec<f64>], regions: usize, phases: usize) -> Vec<Vec<f64>> {
    (0..regions)
        .map(|region| {
            let mut sum = by_task[region].clone();
            for p in 1..phases {
                for (s, x) in sum.iter_mut().zip(&by_task[p * regions + region]) {
                    *s += x;
                }
            }
            sum
        })
        .collect()
}

/// Samples prepared for a model. Many samples share the contents of a region (24× on
/// self-play data: 54,891 distinct (phase, region, contents) for 94,074 samples × 14
/// regions), so the configurations active for each distinct contents are walked once
/// per pass and samples only index the partial sums.
struct Fitter {
    regions: usize,
    tries: Vec<Trie>,
    /// Global configuration index of each region's local configuration.
    globals: Vec<Vec<u32>>,
    /// Distinct contents ([`content_mask`]) of each task (phase-major (phase, region)),
    /// in order of first appearance.
    distinct: Vec<Vec<u64>>,
    /// Each sample's index into its task's distinct contents, `[sample][region]`.
    ids: Vec<u32>,
    phase: Vec<u8>,
    targets: Vec<f32>,
    /// Sample indices of each phase, in order.
    by_phase: Vec<Vec<u32>>,
}

impl Fitter {
    fn new<G: Atoms>(model: &GlemModel, samples: &[Sample<G>]) -> Fitter {
        let positions: Vec<G> = samples.iter().map(|s| s.position).collect();
        let mut f = Fitter::new_positions(model, &positions);
        f.targets = samples.iter().map(|s| s.target).collect();
        f
    }

    fn new_positions<G: Atoms>(model: &GlemModel, positions: &[G]) -> Fitter {
        let r = model.regions.len();
        let mut paths: Vec<Vec<(AtomPath, u32)>> = vec![Vec::new(); r];
        for (i, c) in model.configurations.iter().enumerate() {
            let squares = &model.regions[c.region as usize].squares;
            let mut path: AtomPath = c
                .atoms
                .iter()
                .map(|a| {
                    let j = squares
                        .iter()
                        .position(|&s| s == a.square)
                        .expect("validated: atom in region");
                    let digit = G::atom_digit(a.value).expect("validated: a value of the game");
                    (j as u8, digit)
                })
                .collect();
            path.sort();
            paths[c.region as usize].push((path, i as u32));
        }
        let mut tries = Vec::with_capacity(r);
        let mut globals = Vec::with_capacity(r);
        for (region, list) in model.regions.iter().zip(paths) {
            let mut builder = TrieBuilder::new(region.squares.len());
            let mut global = Vec::with_capacity(list.len());
            for (local, (path, g)) in list.into_iter().enumerate() {
                let node = builder.insert(&path);
                builder.config[node] = local as u32;
                global.push(g);
            }
            tries.push(builder.finish().0);
            globals.push(global);
        }
        let digits: Vec<[u8; MAX_SLOTS]> = positions.par_iter().map(G::atom_digits).collect();
        let phase: Vec<u8> = positions
            .iter()
            .map(|p| model.phases.phase_of_position(p) as u8)
            .collect();
        let mut by_phase = vec![Vec::new(); model.phases.count()];
        for (i, &p) in phase.iter().enumerate() {
            by_phase[p as usize].push(i as u32);
        }
        let per_task: Vec<(Vec<u64>, Vec<u32>)> = (0..by_phase.len() * r)
            .into_par_iter()
            .map(|task| {
                let squares = &model.regions[task % r].squares;
                let mut seen: HashMap<u64, u32> = HashMap::new();
                let mut distinct = Vec::new();
                let ids = by_phase[task / r]
                    .iter()
                    .map(|&i| {
                        let content = content_mask(&digits[i as usize], squares);
                        *seen.entry(content).or_insert_with(|| {
                            distinct.push(content);
                            distinct.len() as u32 - 1
                        })
                    })
                    .collect();
                (distinct, ids)
            })
            .collect();
        let mut ids = vec![0u32; positions.len() * r];
        let mut distinct = Vec::with_capacity(per_task.len());
        for (task, (d, task_ids)) in per_task.into_iter().enumerate() {
            for (&i, id) in by_phase[task / r].iter().zip(task_ids) {
                ids[i as usize * r + task % r] = id;
            }
            distinct.push(d);
        }
        Fitter {
            regions: r,
            tries,
            globals,
            distinct,
            ids,
            phase,
            targets: Vec::new(),
            by_phase,
        }
    }

    /// The model's weights by task in local order, as f64.
    fn local_weights(&self, model: &GlemModel) -> Vec<Vec<f64>> {
        let mut out = Vec::with_capacity(model.phases.count() * self.regions);
        for row in &model.weights {
            for global in &self.globals {
                out.push(global.iter().map(|&g| row[g as usize] as f64).collect());
            }
        }
        out
    }

    fn store_weights(&self, model: &mut GlemModel, w: &[Vec<f64>]) {
        let r = self.regions;
        for (p, row) in model.weights.iter_mut().enumerate() {
            for (region, global) in self.globals.iter().enumerate() {
                for (local, &g) in global.iter().enumerate() {
                    row[g as usize] = w[p * r + region][local] as f32;
                }
            }
        }
    }

    /// The logit of every sample under local weights `w`.
    fn logits(&self, w: &[Vec<f64>]) -> Vec<f64> {
        let r = self.regions;
        let partial: Vec<Vec<f64>> = self
            .distinct
            .par_iter()
            .enumerate()
            .map(|(task, distinct)| {
                let trie = &self.tries[task % r];
                let weights = &w[task];
                distinct
                    .iter()
                    .map(|&content| {
                        let mut x = 0.0;
                        trie.for_each_active(content, &mut |c| x += weights[c as usize]);
                        x
                    })
                    .collect()
            })
            .collect();
        self.ids
            .par_chunks(r * CHUNK)
            .enumerate()
            .flat_map_iter(|(c, chunk)| {
                let partial = &partial;
                chunk.chunks_exact(r).enumerate().map(move |(k, ids)| {
                    let base = self.phase[c * CHUNK + k] as usize * r;
                    ids.iter()
                        .enumerate()
                        .map(|(region, &id)| partial[base + region][id as usize])
                        .sum::<f64>()
                })
            })
            .collect()
    }

    /// Per sample `δᵢ = ∂(g(xᵢ) − rᵢ)²/∂xᵢ = 2(g − r)·g·(1 − g)`, and the mean squared
    /// error.
    fn forward(&self, w: &[Vec<f64>]) -> (Vec<f64>, f64) {
        let x = self.logits(w);
        let per_chunk: Vec<(Vec<f64>, f64)> = x
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut deltas = Vec::with_capacity(chunk.len());
                let mut sum = 0.0;
                for (k, &x) in chunk.iter().enumerate() {
                    let g = logistic(x);
                    let err = g - self.targets[c * CHUNK + k] as f64;
                    sum += err * err;
                    deltas.push(2.0 * err * g * (1.0 - g));
                }
                (deltas, sum)
            })
            .collect();
        let mut deltas = Vec::with_capacity(x.len());
        let mut sum = 0.0;
        for (d, s) in per_chunk {
            deltas.extend(d);
            sum += s;
        }
        (deltas, sum / x.len().max(1) as f64)
    }

    /// `Σᵢ δᵢ·[c active in sample i]` for every configuration, by task.
    fn gradient(&self, delta: &[f64]) -> Vec<Vec<f64>> {
        self.per_task(|i| delta[i])
    }

    /// Number of samples in which each configuration is active, by task.
    fn active_counts(&self) -> Vec<Vec<f64>> {
        self.per_task(|_| 1.0)
    }

    /// `Σᵢ value(i)·[c active in sample i]` by task: the values summed per distinct
    /// contents (samples in order), then pushed to the active configurations.
    fn per_task(&self, value: impl Fn(usize) -> f64 + Sync) -> Vec<Vec<f64>> {
        let r = self.regions;
        self.distinct
            .par_iter()
            .enumerate()
            .map(|(task, distinct)| {
                let (p, region) = (task / r, task % r);
                let mut acc = vec![0.0; distinct.len()];
                for &i in &self.by_phase[p] {
                    acc[self.ids[i as usize * r + region] as usize] += value(i as usize);
                }
                let trie = &self.tries[region];
                let mut g = vec![0.0; self.globals[region].len()];
                for (&content, &a) in distinct.iter().zip(&acc) {
                    if a != 0.0 {
                        trie.for_each_active(content, &mut |c| g[c as usize] += a);
                    }
                }
                g
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------
// The learner
// ---------------------------------------------------------------------------------------

/// GLEM's learner state: the model and the recent games it is fitted on.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct GlemState<G: Game> {
    pub model: GlemModel,
    /// The most recent self-play games, oldest first.
    pub pool: Vec<GameFrame<G>>,
}

impl<G: Atoms> GlemState<G> {
    /// A model over the game's default regions and phases, no configuration yet.
    pub fn new() -> GlemState<G> {
        GlemState {
            model: GlemModel::empty::<G>(),
            pool: Vec::new(),
        }
    }
}

impl<G: Atoms> Default for GlemState<G> {
    fn default() -> Self {
        Self::new()
    }
}

impl<G: EvalGame> Learner<G> for GlemState<G> {
    /// Self-play with the current model; the games join the pool (the oldest leave);
    /// configurations are mined again every `remine_every` iterations (and while there
    /// are none); then the weights are fitted on the pool's samples.
    fn iterate(&mut self, it: &mut Iteration<'_, G>) -> Result<Option<IterationReport>, String> {
        let Some(games) = it.self_play(&self.evaluator())? else {
            return Ok(None);
        };
        let settings = &it.config.glem;
        let positions = games.iter().map(|g| g.len() as u64).sum();
        self.pool.extend(games.iter().map(DatasetGame::to_frame));
        let excess = self.pool.len().saturating_sub(settings.pool_games);
        self.pool.drain(..excess);
        let pool: Vec<DatasetGame<G>> = self
            .pool
            .iter()
            .map(|f| DatasetGame::from_frame(f).expect("own games replay"))
            .collect();
        let samples = samples_from_games(&pool, settings.search_weight as f32);
        let mut mined = false;
        if self.model.configurations.is_empty() || it.number.is_multiple_of(settings.remine_every) {
            let sample_positions: Vec<G> = samples.iter().map(|s| s.position).collect();
            let configurations = mine(
                &sample_positions,
                &self.model.regions,
                settings.min_support,
                settings.max_atoms,
            );
            mined = true;
            self.model = self.model.with_configurations(configurations);
        }
        let params = FitParams {
            epochs: settings.epochs,
            learning_rate: settings.learning_rate,
            ..FitParams::default()
        };
        let report = self
            .model
            .fit_with_progress(&samples, &params, &mut |epoch| {
                (it.progress)(Stage::Fit, epoch as u64, params.epochs as u64)
            });
        Ok(Some(IterationReport {
            games: games.len() as u64,
            positions,
            loss_before: report.loss_before,
            loss: report.loss_after,
            detail: format!(
                "{} samples from {} games, {} configurations{}",
                samples.len(),
                pool.len(),
                self.model.configurations.len(),
                if mined { " (mined again)" } else { "" },
            ),
        }))
    }

    /// Before any configuration is mined the model is all zeros, so the first games are
    /// played with the game's baseline evaluator instead.
    fn evaluator(&self) -> AnyEvaluator<G> {
        if self.model.configurations.is_empty() {
            AnyEvaluator::baseline()
        } else {
            AnyEvaluator::Glem(Glem::new(&self.model).expect("learner model is valid"))
        }
    }

    fn model_header(&self, game: &str) -> ModelHeader {
        ModelHeader::new(game, glem::KIND, G::ATOM_SET_ID)
    }

    fn save_model(&self, path: &Path, header: &mut ModelHeader) -> Result<(), ModelError> {
        save_model(path, header, &self.model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::glem::{Phases, TABLE_UNIT, atom_values};
    use crate::eval::{EVAL_LIMIT, Evaluator};
    use crate::game::checkers::Checkers;
    use crate::game::checkers::encoding::{EMPTY, OPPONENT_KING, OPPONENT_MAN, OWN_KING, OWN_MAN};
    use crate::game::{EndReason, Game, MoveList, Outcome, Side};
    use proptest::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    fn default_regions() -> Vec<Region> {
        <Checkers as Atoms>::default_regions()
    }

    fn default_phases() -> Phases {
        Checkers::default_phases()
    }

    fn square_values(p: &Checkers) -> [i8; MAX_SLOTS] {
        atom_values(p)
    }

    fn pos(fen: &str) -> Checkers {
        Checkers::parse_position(fen).unwrap()
    }

    /// Positions of seeded random games (every position, kings included), restarting
    /// after a finished game or 150 plies.
    fn random_positions(seed: u64, count: usize) -> Vec<Checkers> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut moves = MoveList::new();
        let mut out = Vec::with_capacity(count);
        let mut p = Checkers::start();
        let mut ply = 0;
        while out.len() < count {
            p.legal_moves(&mut moves);
            if moves.is_empty() || ply >= 150 {
                p = Checkers::start();
                ply = 0;
                continue;
            }
            out.push(p);
            p = p.play(moves[rng.random_range(0..moves.len())]);
            ply += 1;
        }
        out
    }

    /// Every configuration (1..=max_atoms atoms) of each region with support ≥ n, by
    /// enumerating all patterns over {values, *}; a pattern found in several regions
    /// belongs to the first.
    fn brute_force(
        positions: &[Checkers],
        regions: &[Region],
        n: usize,
        max_atoms: usize,
    ) -> Vec<Configuration> {
        let values: Vec<[i8; MAX_SLOTS]> = positions.iter().map(square_values).collect();
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for (r, region) in regions.iter().enumerate() {
            let k = region.squares.len();
            for code in 0..6usize.pow(k as u32) {
                let mut atoms = Vec::new();
                let mut c = code;
                for &s in &region.squares {
                    let v = c % 6;
                    c /= 6;
                    if v < 5 {
                        atoms.push(Atom::new(s, v as i8 - 2));
                    }
                }
                if atoms.is_empty() || atoms.len() > max_atoms {
                    continue;
                }
                atoms.sort();
                let config = Configuration {
                    region: r as u16,
                    atoms,
                };
                let support = values.iter().filter(|v| config.is_active(v)).count();
                if support >= n.max(1) && seen.insert(config.atoms.clone()) {
                    out.push(config);
                }
            }
        }
        out.sort();
        out
    }

    fn sorted(mut configs: Vec<Configuration>) -> Vec<Configuration> {
        configs.sort();
        configs
    }

    /// Six tiny positions; the sixth is the first with colours swapped (Black to move),
    /// so it looks the same from the side to move.
    fn tiny_positions() -> Vec<Checkers> {
        [
            "W:W21,22,25:B1",
            "W:W21,25,26:B1",
            "W:W21,22:B1",
            "W:W22,25,K26:B1",
            "W:W21,22,25,26:B1",
            "B:W5:B8,11,12",
        ]
        .iter()
        .map(|f| pos(f))
        .collect()
    }

    #[test]
    fn mining_a_hand_checked_set() {
        let positions = tiny_positions();
        let region = vec![Region::new("corner", &[21, 22, 25, 26])];
        let mined = mine(&positions, &region, 2, 4);
        let has = |atoms: &[(u8, i8)]| {
            let atoms: Vec<Atom> = atoms.iter().map(|&(s, v)| Atom::new(s, v)).collect();
            mined.iter().any(|c| c.atoms == atoms)
        };
        // Own man on 21: positions 1, 2, 3, 5, 6.
        assert!(has(&[(21, OWN_MAN)]));
        // Own king on 26: position 4 only.
        assert!(!has(&[(26, OWN_KING)]));
        // 21, 22, 25 own men: positions 1, 5, 6; with 26 empty: 1 and 6; with 26 an own
        // man: 5 only.
        assert!(has(&[(21, OWN_MAN), (22, OWN_MAN), (25, OWN_MAN)]));
        assert!(has(&[
            (21, OWN_MAN),
            (22, OWN_MAN),
            (25, OWN_MAN),
            (26, EMPTY)
        ]));
        assert!(!has(&[
            (21, OWN_MAN),
            (22, OWN_MAN),
            (25, OWN_MAN),
            (26, OWN_MAN)
        ]));
        // 21 empty: positions 4 only.
        assert!(!has(&[(21, EMPTY)]));
        for n in 1..=6 {
            for max_atoms in 1..=4 {
                assert_eq!(
                    sorted(mine(&positions, &region, n, max_atoms)),
                    brute_force(&positions, &region, n, max_atoms),
                    "n = {n}, max_atoms = {max_atoms}"
                );
            }
        }
        assert_eq!(mined.len(), brute_force(&positions, &region, 2, 4).len());
        assert!(mine(&positions, &region, 7, 4).is_empty());
        assert!(mine(&positions, &region, 1, 0).is_empty());
    }

    #[test]
    fn mining_keeps_a_configuration_once_in_its_first_region() {
        let positions = tiny_positions();
        let regions = vec![
            Region::new("a", &[21, 22, 25, 26]),
            Region::new("b", &[25, 26, 29, 30]),
        ];
        let mined = mine(&positions, &regions, 2, 3);
        assert_eq!(
            sorted(mined.clone()),
            brute_force(&positions, &regions, 2, 3)
        );
        let atoms = vec![Atom::new(25, OWN_MAN)];
        let owners: Vec<u16> = mined
            .iter()
            .filter(|c| c.atoms == atoms)
            .map(|c| c.region)
            .collect();
        assert_eq!(owners, vec![0]);
        assert!(mined.iter().any(|c| c.region == 1));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]
        #[test]
        fn mining_matches_brute_force(
            seed in any::<u64>(),
            count in 1usize..120,
            n in 1usize..8,
            max_atoms in 1usize..5,
            squares in proptest::collection::vec(
                proptest::sample::subsequence((1u8..=32).collect::<Vec<_>>(), 1..=4), 1..3),
        ) {
            let positions = random_positions(seed, count);
            let regions: Vec<Region> = squares
                .iter()
                .enumerate()
                .map(|(i, s)| Region::new(&format!("r{i}"), s))
                .collect();
            prop_assert_eq!(
                sorted(mine(&positions, &regions, n, max_atoms)),
                brute_force(&positions, &regions, n, max_atoms)
            );
        }
    }

    /// A model over the default regions with mined configurations (plus a few
    /// impossible ones) and random weights.
    fn random_model(seed: u64, phases: Phases) -> GlemModel {
        let positions = random_positions(seed, 3000);
        let mut configs = mine(&positions, &default_regions(), 5, 3);
        // Impossible atoms (an own man on the crowning row) are never active.
        configs.push(Configuration {
            region: 6,
            atoms: vec![Atom::new(2, OWN_MAN)],
        });
        configs.push(Configuration {
            region: 0,
            atoms: vec![Atom::new(26, EMPTY), Atom::new(30, OPPONENT_MAN)],
        });
        let mut model = GlemModel::new::<Checkers>(default_regions(), configs, phases);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xABCD);
        for row in &mut model.weights {
            for w in row.iter_mut() {
                *w = rng.random_range(-0.5f32..0.5);
            }
        }
        model.scale = 137.0;
        model.validate::<Checkers>().unwrap();
        model
    }

    #[test]
    fn compiled_tables_agree_with_the_definition() {
        let model = random_model(7, default_phases());
        let glem = model.compile::<Checkers>();
        let positions = random_positions(99, 1500);
        let regions = model.regions.len();
        for p in &positions {
            let values = square_values(p);
            let phase = model.phases.phase_of_position(p);
            let mut by_region = vec![0.0f64; regions];
            for (c, &w) in model.configurations.iter().zip(&model.weights[phase]) {
                if c.is_active(&values) {
                    by_region[c.region as usize] += w as f64;
                }
            }
            let factor = model.scale as f64 * TABLE_UNIT;
            let entries = glem.entries(p);
            for (r, (&sum, &entry)) in by_region.iter().zip(&entries).enumerate() {
                let expected = (sum * factor).round() as i32;
                assert!(
                    (expected - entry as i32).abs() <= 1,
                    "{}: region {r}: entry {entry}, definition {expected}",
                    p.format_position()
                );
            }
            let x = model.logit(p);
            assert!((by_region.iter().sum::<f64>() - x).abs() < 1e-6);
            let value = glem.evaluate(p);
            let direct = (x * model.scale as f64).round() as i32;
            // Each entry is within 1/8 centi-unit of its exact value.
            let slack = (regions as f64 / 8.0).ceil() as i32 + 1;
            assert!(
                (value - direct.clamp(-EVAL_LIMIT, EVAL_LIMIT)).abs() <= slack,
                "{}: compiled {value}, definition {direct}",
                p.format_position()
            );
        }
    }

    #[test]
    fn evaluation_is_clamped() {
        let positions = random_positions(3, 500);
        let configs = mine(&positions, &default_regions(), 1, 1);
        let mut model = GlemModel::new::<Checkers>(default_regions(), configs, Phases::single());
        for w in &mut model.weights[0] {
            *w = 50.0;
        }
        let glem = model.compile::<Checkers>();
        assert_eq!(glem.evaluate(&Checkers::start()), EVAL_LIMIT);
        for w in &mut model.weights[0] {
            *w = -50.0;
        }
        assert_eq!(
            model.compile::<Checkers>().evaluate(&Checkers::start()),
            -EVAL_LIMIT
        );
    }

    #[test]
    fn a_position_and_its_colour_swapped_mirror_evaluate_the_same() {
        let model = random_model(11, default_phases());
        let glem = model.compile::<Checkers>();
        for p in random_positions(5, 1000) {
            let m = p.mirrored();
            assert_ne!(p.side_to_move(), m.side_to_move());
            assert_eq!(square_values(&p), square_values(&m));
            assert_eq!(
                glem.evaluate(&p),
                glem.evaluate(&m),
                "{}",
                p.format_position()
            );
            assert_eq!(model.logit(&p), model.logit(&m));
        }
    }

    #[test]
    fn square_values_follow_the_side_to_move() {
        let p = pos("W:W21,K30:B5,K12");
        let v = square_values(&p);
        assert_eq!(
            (v[20], v[29], v[4], v[11], v[0]),
            (OWN_MAN, OWN_KING, OPPONENT_MAN, OPPONENT_KING, EMPTY)
        );
        let v = square_values(&p.with_side_to_move(Side::Second));
        assert_eq!(
            (
                v[33 - 5 - 1],
                v[33 - 12 - 1],
                v[33 - 21 - 1],
                v[33 - 30 - 1]
            ),
            (OWN_MAN, OWN_KING, OPPONENT_MAN, OPPONENT_KING)
        );
    }

    #[test]
    fn phases() {
        let phases = default_phases();
        phases.validate::<Checkers>().unwrap();
        let got: Vec<usize> = [0, 2, 5, 6, 10, 11, 15, 16, 24]
            .iter()
            .map(|&n| phases.phase_of(n))
            .collect();
        assert_eq!(got, vec![0, 0, 0, 1, 1, 2, 2, 3, 3]);
        assert_eq!(phases.phase_of_position(&Checkers::start()), 3);
        assert_eq!(Phases::single().phase_of(24), 0);
        for bad in [
            vec![],
            vec![1, 5],
            vec![0, 5, 5],
            vec![0, 25],
            vec![0, 9, 3],
        ] {
            assert!(
                Phases {
                    starts: bad.clone()
                }
                .validate::<Checkers>()
                .is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn default_regions_are_valid_and_cover_the_board() {
        let regions = default_regions();
        assert_eq!(regions.len(), 14);
        let mut covered = 0u32;
        for r in &regions {
            r.validate::<Checkers>().unwrap();
            for &s in &r.squares {
                covered |= 1 << (s - 1);
            }
        }
        assert_eq!(covered, u32::MAX);
        assert_eq!(regions[0].squares, (25..=32).collect::<Vec<u8>>());
        assert_eq!(regions[6].squares, (1..=8).collect::<Vec<u8>>());
        assert_eq!(regions[7].squares, vec![1, 5, 9, 13, 17, 21, 25, 29]);
        let model = GlemModel::new::<Checkers>(regions, Vec::new(), default_phases());
        assert_eq!(model.table_entries::<Checkers>(), 4 * 3_648_125);
        assert_eq!(model.compile::<Checkers>().table_bytes(), 2 * 4 * 3_648_125);
    }

    /// Synthetic samples: random positions, target from the material balance plus a
    /// deterministic perturbation.
    fn synthetic_samples(seed: u64, count: usize) -> Vec<Sample<Checkers>> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        random_positions(seed, count)
            .into_iter()
            .filter(|p| p.is_quiet())
            .map(|p| {
                let m = p.relative_masks();
                let material = m[0].count_ones() as f64 + 3.0 * m[1].count_ones() as f64
                    - m[2].count_ones() as f64
                    - 3.0 * m[3].count_ones() as f64;
                let noise = rng.random_range(-0.2..0.2);
                Sample {
                    position: p,
                    target: (logistic(0.7 * material) + noise).clamp(0.0, 1.0) as f32,
                }
            })
            .collect()
    }

    #[test]
    fn fit_lowers_the_loss_and_does_not_depend_on_threads() {
        let samples = synthetic_samples(21, 6000);
        let positions: Vec<Checkers> = samples.iter().map(|s| s.position).collect();
        let configs = mine(&positions, &default_regions(), 10, 3);
        let model = GlemModel::new::<Checkers>(default_regions(), configs, default_phases());
        let params = FitParams {
            epochs: 30,
            ..FitParams::default()
        };
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    let mut m = model.clone();
                    let report = m.fit(&samples, &params);
                    (m, report)
                })
        };
        let (one, report) = run(1);
        let (two, report2) = run(2);
        assert_eq!(one, two);
        assert_eq!(report, report2);
        assert_eq!(report.epoch_losses.len(), 30);
        assert_eq!(report.samples, samples.len());
        assert!((report.loss_before - model.loss(&samples)).abs() < 1e-12);
        // The stored weights are f32.
        assert!((report.loss_after - one.loss(&samples)).abs() < 1e-6);
        assert!(
            report.loss_after < 0.5 * report.loss_before,
            "{} -> {}",
            report.loss_before,
            report.loss_after
        );
        // It learned material: a man more is better.
        let glem = one.compile::<Checkers>();
        let up = pos("W:W21,22,23:B10,11");
        let down = pos("W:W21,22:B9,10,11");
        assert!(glem.evaluate(&up) > glem.evaluate(&down));
        let mut calibrated = one.clone();
        let scale = calibrated.calibrate_scale(&positions);
        assert!(scale > 0.0 && scale.is_finite());
        assert_eq!(one.weights, calibrated.weights);
    }

    #[test]
    fn fit_survives_a_learning_rate_far_too_large() {
        let samples = synthetic_samples(23, 3000);
        let positions: Vec<Checkers> = samples.iter().map(|s| s.position).collect();
        let configs = mine(&positions, &default_regions(), 10, 3);
        let mut model = GlemModel::new::<Checkers>(default_regions(), configs, default_phases());
        let params = FitParams {
            epochs: 30,
            learning_rate: 10.0,
            ..FitParams::default()
        };
        let report = model.fit(&samples, &params);
        assert!(report.rate_halvings > 0);
        assert!(report.learning_rate < 10.0);
        assert!(report.loss_after < report.loss_before);
        assert!(report.epoch_losses.iter().all(|l| l.is_finite()));
        model.validate::<Checkers>().unwrap();
    }

    #[test]
    fn the_evaluator_is_shareable() {
        fn check<T: Clone + Send + Sync + 'static>() {}
        check::<Glem<Checkers>>();
        check::<GlemModel>();
        let glem = random_model(29, Phases::single()).compile::<Checkers>();
        let copy = glem.clone();
        let p = Checkers::start();
        assert_eq!(
            std::thread::spawn(move || copy.evaluate(&p))
                .join()
                .unwrap(),
            glem.evaluate(&p)
        );
    }

    #[test]
    fn fit_on_nothing_does_nothing() {
        let mut model = GlemModel::new::<Checkers>(default_regions(), Vec::new(), default_phases());
        let report = model.fit::<Checkers>(&[], &FitParams::default());
        assert_eq!(report.loss_before, 0.0);
        assert!(report.epoch_losses.is_empty());
        assert_eq!(model.loss::<Checkers>(&[]), 0.0);
    }

    #[test]
    fn with_configurations_keeps_the_weights_of_common_configurations() {
        let model = random_model(13, default_phases());
        let keep = model.configurations[3].clone();
        let new_config = Configuration {
            region: 1,
            atoms: vec![Atom::new(21, OPPONENT_KING), Atom::new(22, OPPONENT_KING)],
        };
        assert!(!model.configurations.contains(&new_config));
        let next = model.with_configurations(vec![new_config, keep]);
        next.validate::<Checkers>().unwrap();
        for p in 0..model.phases.count() {
            assert_eq!(next.weights[p], vec![0.0, model.weights[p][3]]);
        }
        assert_eq!(next.scale, model.scale);
    }

    #[test]
    fn json_round_trip() {
        let model = random_model(17, default_phases());
        let text = serde_json::to_string(&model).unwrap();
        let back: GlemModel = serde_json::from_str(&text).unwrap();
        assert_eq!(back, model);
        back.validate::<Checkers>().unwrap();
        let (a, b) = (model.compile::<Checkers>(), Glem::new(&back).unwrap());
        for p in random_positions(1, 200) {
            assert_eq!(a.evaluate(&p), b.evaluate(&p));
        }
    }

    #[test]
    fn validate_rejects_corrupt_models() {
        let good = random_model(19, default_phases());
        good.validate::<Checkers>().unwrap();
        type Corrupt = fn(&mut GlemModel);
        let cases: Vec<(&str, Corrupt)> = vec![
            ("feature set", |m| m.features = "other".into()),
            ("no regions", |m| m.regions.clear()),
            ("region square 40", |m| m.regions[0].squares[0] = 40),
            ("region square 0", |m| m.regions[0].squares[0] = 0),
            ("region square twice", |m| {
                m.regions[0].squares[1] = m.regions[0].squares[0]
            }),
            ("region of 9 squares", |m| m.regions[0].squares.push(1)),
            ("empty region", |m| m.regions[0].squares.clear()),
            ("phases", |m| m.phases.starts = vec![0, 12, 12]),
            ("weight rows", |m| {
                m.weights.pop();
            }),
            ("weight row length", |m| {
                m.weights[1].pop();
            }),
            ("NaN weight", |m| m.weights[2][5] = f32::NAN),
            ("infinite weight", |m| m.weights[0][0] = f32::INFINITY),
            ("config square 40", |m| {
                m.configurations[0].atoms[0].square = 40
            }),
            ("config value 3", |m| m.configurations[0].atoms[0].value = 3),
            ("config region", |m| m.configurations[0].region = 99),
            ("config outside region", |m| {
                m.configurations[0] = Configuration {
                    region: 0,
                    atoms: vec![Atom::new(1, EMPTY)],
                }
            }),
            ("no atoms", |m| m.configurations[0].atoms.clear()),
            ("unsorted atoms", |m| {
                let c = m
                    .configurations
                    .iter_mut()
                    .find(|c| c.atoms.len() == 2)
                    .unwrap();
                c.atoms.swap(0, 1);
            }),
            ("duplicate", |m| {
                let c = m.configurations[0].clone();
                m.configurations.push(c);
                for row in &mut m.weights {
                    row.push(0.0);
                }
            }),
            ("scale", |m| m.scale = f32::NAN),
            ("zero scale", |m| m.scale = 0.0),
        ];
        for (name, corrupt) in cases {
            let mut m = good.clone();
            corrupt(&mut m);
            assert!(m.validate::<Checkers>().is_err(), "{name} accepted");
            assert!(Glem::<Checkers>::new(&m).is_err(), "{name} compiled");
        }
        // A payload with the wrong shape never decodes.
        assert!(serde_json::from_str::<GlemModel>("{\"features\": 3}").is_err());
    }

    #[test]
    fn samples_label_quiet_positions_with_the_result_for_the_side_to_move() {
        // 1. 22-18 11-15 2. 18x11 8x15: captures pending after 11-15 and 18x11.
        let mut positions = vec![Checkers::start()];
        let mut moves = Vec::new();
        for text in ["22-18", "11-15", "18x11", "8x15"] {
            let p = *positions.last().unwrap();
            let mv = p.parse_move(text).unwrap();
            moves.push(mv);
            positions.push(p.play(mv));
        }
        assert!(!positions[2].is_quiet() && !positions[3].is_quiet());
        assert!(positions[4].is_quiet());
        let game = DatasetGame {
            index: 0,
            positions: positions.clone(),
            moves,
            scores: vec![0, 150, -300, 200],
            depths: vec![4; 4],
            leaves: positions[..4].to_vec(),
            outcome: Outcome::Win(Side::First),
            reason: EndReason::PlyCap,
        };
        let samples = samples_from_games(std::slice::from_ref(&game), 0.0);
        let got: Vec<(Checkers, f32)> = samples.iter().map(|s| (s.position, s.target)).collect();
        // The last position has no score: the result alone.
        assert_eq!(
            got,
            vec![
                (positions[0], 1.0),
                (positions[1], 0.0),
                (positions[4], 1.0)
            ]
        );
        let blended = samples_from_games(&[game], 0.5);
        let expected = [
            0.5 + 0.5 * 0.5,
            0.5 * logistic(150.0 / SEARCH_SCALE as f64) as f32,
            1.0,
        ];
        assert_eq!(blended.len(), 3);
        for (s, e) in blended.iter().zip(expected) {
            assert!((s.target - e).abs() < 1e-6, "{} vs {e}", s.target);
        }
    }
}
