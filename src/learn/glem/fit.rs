//! GLEM's fitting: samples labelled from self-play games, and the weights fitted to them
//! by gradient descent (phase-major, deterministic whatever the thread count).

use std::collections::HashMap;
use std::ops::ControlFlow;

use rayon::prelude::*;

use super::super::controls::{OutcomeTarget, PositionFilter};
use super::trie::{AtomPath, CHUNK, TrieBuilder, content_mask};
use crate::eval::glem::{Atoms, Configuration, DEFAULT_SCALE, GlemModel, MAX_SLOTS, logistic};
use crate::game::{ExactValue, Game};
use crate::io::dataset::DatasetGame;
use crate::search::Tablebase;

/// Centi-units per logit unit used to turn search scores into targets in
/// [`samples_from_games`] (score `s` becomes `g(s / SEARCH_SCALE)`). Equal to
/// [`DEFAULT_SCALE`], so that when a model's own games are the data, its search scores
/// map back to logits exactly.
pub const SEARCH_SCALE: f32 = DEFAULT_SCALE;

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
/// the result alone. A position `exact` (an endgame database) holds gets its exact value
/// instead.
pub fn samples_from_games<G: Game>(
    games: &[DatasetGame<G>],
    search_weight: f32,
    exact: Option<&dyn Tablebase<G>>,
) -> Vec<Sample<G>> {
    let filter = PositionFilter::none();
    samples_from_games_filtered(games, search_weight, exact, &filter, OutcomeTarget::Result)
}

/// [`samples_from_games`] of the positions `filter` keeps among those (its
/// `skip_capture_pending` changes nothing: positions with a capture pending are never
/// samples), the game's value for each position's side to move being what `target`
/// says (its result, or its margin; then the search scores count
/// [`OutcomeTarget::centi_per_logit`] to a logit).
pub fn samples_from_games_filtered<G: Game>(
    games: &[DatasetGame<G>],
    search_weight: f32,
    exact: Option<&dyn Tablebase<G>>,
    filter: &PositionFilter<'_, G>,
    target: OutcomeTarget,
) -> Vec<Sample<G>> {
    // The search scores are the model's own values: with margins, 100·margin_scale a logit.
    let search_scale = target.centi_per_logit(f64::from(SEARCH_SCALE));
    let w = if search_weight.is_nan() {
        0.0
    } else {
        search_weight.clamp(0.0, 1.0)
    };
    let per_game: Vec<Vec<Sample<G>>> = games
        .par_iter()
        .map(|game| {
            let candidates = (0..game.positions.len()).filter(|&i| {
                let pos = &game.positions[i];
                pos.is_quiet() && pos.has_legal_move()
            });
            let kept = filter.select(game, candidates);
            let mut out = Vec::with_capacity(kept.len());
            for i in kept {
                let pos = &game.positions[i];
                let result = target.of_game(game, pos.side_to_move()) as f32;
                let known = exact.and_then(|tb| tb.probe(pos)).map(|v| match v {
                    ExactValue::Win(_) => 1.0,
                    ExactValue::Draw => 0.5,
                    ExactValue::Loss(_) => 0.0,
                });
                let target = match game.scores.get(i) {
                    _ if known.is_some() => known.unwrap_or(result),
                    Some(&score) if w > 0.0 => {
                        let searched = logistic(score as f64 / search_scale) as f32;
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
        self.fit_with_progress(samples, params, &mut |_| ControlFlow::Continue(()))
    }

    /// [`GlemModel::fit`], calling `on_epoch` with the number of epochs done after each;
    /// the fitting ends there if it answers `Break` (the weights are then part-fitted).
    pub fn fit_with_progress<G: Atoms>(
        &mut self,
        samples: &[Sample<G>],
        params: &FitParams,
        on_epoch: &mut dyn FnMut(usize) -> ControlFlow<()>,
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
        let (mut shared, mut deviation) = split_phases(&fitter.local_weights(self), r, phases);
        let combine = |shared: &[Vec<f64>], deviation: &[Vec<f64>]| combine(shared, deviation, r);
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
                if on_epoch(epoch).is_break() {
                    break;
                }
                continue;
            }
            delta = d;
            last_loss = loss;
            report.epoch_losses.push(loss);
            if on_epoch(epoch).is_break() {
                break;
            }
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
/// Per-(phase, region) weights as a part shared by the phases (their mean) and each
/// phase's deviation from it (zero with one phase).
fn split_phases(w0: &[Vec<f64>], r: usize, phases: usize) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let shared: Vec<Vec<f64>> = (0..r)
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
    let deviation = w0
        .iter()
        .enumerate()
        .map(|(task, w)| {
            w.iter()
                .zip(&shared[task % r])
                .map(|(w, s)| if phases > 1 { w - s } else { 0.0 })
                .collect()
        })
        .collect();
    (shared, deviation)
}

/// The per-(phase, region) weights of a shared part and the phases' deviations.
// `combine` and `sum_phases` run once per epoch over every weight: in parallel over the
// tasks (regions), each element computed as it was serially, so the bytes do not change.
fn combine(shared: &[Vec<f64>], deviation: &[Vec<f64>], r: usize) -> Vec<Vec<f64>> {
    deviation
        .par_iter()
        .enumerate()
        .map(|(task, d)| {
            d.iter()
                .zip(&shared[task % r])
                .map(|(d, s)| s + d)
                .collect()
        })
        .collect()
}

fn sum_phases(by_task: &[Vec<f64>], regions: usize, phases: usize) -> Vec<Vec<f64>> {
    (0..regions)
        .into_par_iter()
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
/// regions), so the configurations active for each distinct contents are found once per
/// fit (a walk of the region's trie) and samples only index the partial sums.
struct Fitter {
    regions: usize,
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
    /// Per task, the local configurations active for each distinct contents, in the
    /// trie's walk order (so sums over them add in the same order as the walk):
    /// contents `d` has `active[task][offsets[task][d]..offsets[task][d + 1]]`.
    /// Walked once here instead of twice per epoch.
    offsets: Vec<Vec<u32>>,
    active: Vec<Vec<u32>>,
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
        let lists: Vec<(Vec<u32>, Vec<u32>)> = distinct
            .par_iter()
            .enumerate()
            .map(|(task, contents)| {
                let trie = &tries[task % r];
                let mut offsets = Vec::with_capacity(contents.len() + 1);
                let mut active = Vec::new();
                offsets.push(0);
                for &content in contents {
                    trie.for_each_active(content, &mut |c| active.push(c));
                    offsets.push(active.len() as u32);
                }
                (offsets, active)
            })
            .collect();
        let (offsets, active) = lists.into_iter().unzip();
        Fitter {
            regions: r,
            globals,
            distinct,
            ids,
            phase,
            targets: Vec::new(),
            by_phase,
            offsets,
            active,
        }
    }

    /// The local configurations active for distinct contents `d` of `task`.
    #[inline]
    fn active_of(&self, task: usize, d: usize) -> &[u32] {
        let o = &self.offsets[task];
        &self.active[task][o[d] as usize..o[d + 1] as usize]
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
                let weights = &w[task];
                (0..distinct.len())
                    .map(|d| {
                        let mut x = 0.0;
                        for &c in self.active_of(task, d) {
                            x += weights[c as usize];
                        }
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
                let mut g = vec![0.0; self.globals[region].len()];
                for (d, &a) in acc.iter().enumerate().take(distinct.len()) {
                    if a != 0.0 {
                        for &c in self.active_of(task, d) {
                            g[c as usize] += a;
                        }
                    }
                }
                g
            })
            .collect()
    }
}
