//! A learner evalearn does not ship, defined outside the crate and run by the library's
//! own training loop on Brazilian draughts: a least-squares fit of the linear evaluator
//! (the model kind Samuel's learner also writes) on the self-play games' results.
//!
//! What a learner implements (docs/architecture.md, "Adding a learner"):
//! - [`LearnerSection`]: its name — the config's `learner` value and its own section,
//!   here `[least-squares]` — and how that section is read and checked;
//! - [`LearnerKind`]: how a run of a game starts it and resumes it from a checkpoint;
//! - [`Learner`]: one iteration (self-play through [`Iteration::self_play`], then
//!   learning), the model as an evaluator, its model file, its loss on held-out games,
//!   and its state for checkpoints.
//!
//! Its model is a plain linear model file: `evalearn play --model`, `match` and `model
//! info` read it like Samuel's. Run it: `cargo run --release --example custom_learner`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use evalearn::arena::matches::{MatchConfig, run_match};
use evalearn::arena::openings::random_openings;
use evalearn::arena::players::Engine;
use evalearn::arena::stats::MatchTally;
use evalearn::eval::linear::{self, Features, Linear, LinearWeights, MAX_FEATURES, feature_count};
use evalearn::eval::spec::{AnyEvaluator, load_model_file};
use evalearn::game::Game;
use evalearn::games::brazilian::Brazilian;
use evalearn::io::dataset::DatasetGame;
use evalearn::io::model::{ModelError, ModelHeader, from_bytes, save_model, to_bytes};
use evalearn::learn::config::{ConfigError, TrainConfig, TrainingSettings, read_section};
use evalearn::learn::iteration::Iteration;
use evalearn::learn::train::{Start, TrainOptions, train};
use evalearn::learn::{IterationReport, Learner, LearnerKind, LearnerSection, TrainGame};
use evalearn::search::{Limits, WIN_THRESHOLD};

/// What a won game is worth as a target, in centi-units (three men).
const RESULT_VALUE: f64 = 300.0;

/// `[least-squares]`: the ridge penalty keeping the weights small where the games say
/// little.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    #[serde(default = "default_ridge")]
    ridge: f64,
}

fn default_ridge() -> f64 {
    10.0
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            ridge: default_ridge(),
        }
    }
}

/// The learner as configs name it.
struct LeastSquares;

impl LearnerSection for LeastSquares {
    fn name(&self) -> &'static str {
        "least-squares"
    }

    fn settle(
        &self,
        section: Option<&toml::Table>,
        _: &mut TrainingSettings,
    ) -> Result<String, ConfigError> {
        let settings: Settings = read_section("least-squares", section)?;
        if !(settings.ridge.is_finite() && settings.ridge >= 0.0) {
            return Err(ConfigError(format!(
                "least-squares.ridge: must be a number ≥ 0 (got {})",
                settings.ridge
            )));
        }
        Ok(format!("{settings:?}"))
    }
}

impl<G: TrainGame + Features> LearnerKind<G> for LeastSquares {
    fn start(&self, config: &TrainConfig) -> Result<Box<dyn Learner<G>>, String> {
        let count = feature_count::<G>();
        Ok(Box::new(Fit::<G> {
            settings: config.section("least-squares").map_err(|e| e.to_string())?,
            state: State {
                weights: all_active::<G>(),
                xx: vec![0.0; count * count],
                xy: vec![0.0; count],
            },
            game: std::marker::PhantomData,
        }))
    }

    fn resume(&self, config: &TrainConfig, state: &[u8]) -> Result<Box<dyn Learner<G>>, String> {
        let state: State = from_bytes(state)?;
        state.weights.validate::<G>()?;
        Ok(Box::new(Fit::<G> {
            settings: config.section("least-squares").map_err(|e| e.to_string())?,
            state,
            game: std::marker::PhantomData,
        }))
    }
}

/// Zero weights with every feature of the pool active (no term replacement here).
fn all_active<G: Features>() -> LinearWeights {
    let mut weights = LinearWeights::zero::<G>();
    weights.active.append(&mut weights.reserve);
    weights
}

/// The fit's state between iterations: the weights and the normal equations of every
/// position learned so far (`xx` = Σ f fᵀ, `xy` = Σ f (target − anchor)).
#[derive(Clone, Serialize, Deserialize)]
struct State {
    weights: LinearWeights,
    xx: Vec<f64>,
    xy: Vec<f64>,
}

#[derive(Clone)]
struct Fit<G> {
    settings: Settings,
    state: State,
    game: std::marker::PhantomData<fn() -> G>,
}

/// Each quiet, undecided position of `game` with its features and its target: the
/// game's result for the side to move, in centi-units.
fn samples<G: Features>(game: &DatasetGame<G>) -> Vec<([i32; MAX_FEATURES], f64)> {
    let count = feature_count::<G>();
    (0..game.len())
        .filter(|&i| game.positions[i].is_quiet() && game.scores[i].abs() < WIN_THRESHOLD)
        .map(|i| {
            let pos = &game.positions[i];
            let mut f = [0; MAX_FEATURES];
            pos.features(&mut f[..count]);
            let result = game.outcome.score_for(pos.side_to_move());
            (
                f,
                RESULT_VALUE * (2.0 * result - 1.0) - f64::from(pos.anchor()),
            )
        })
        .collect()
}

impl<G: Features> Fit<G> {
    /// Mean squared error of the weights' values against the targets of `games`, in
    /// units (100 centi-units) squared.
    fn loss(&self, games: &[DatasetGame<G>]) -> f64 {
        let count = feature_count::<G>();
        let (mut sum, mut n) = (0.0, 0.0);
        for game in games {
            for (f, y) in samples(game) {
                let value: f64 = (0..count)
                    .map(|k| f64::from(self.state.weights.weights[k]) * f64::from(f[k]))
                    .sum();
                sum += ((value - y) / 100.0).powi(2);
                n += 1.0;
            }
        }
        if n == 0.0 { 0.0 } else { sum / n }
    }

    /// Solves (Σ f fᵀ + ridge·I) w = Σ f y by Gaussian elimination with partial pivoting.
    fn solve(&mut self) {
        let n = feature_count::<G>();
        let mut a: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let mut row: Vec<f64> = self.state.xx[i * n..(i + 1) * n].to_vec();
                row[i] += self.settings.ridge;
                row.push(self.state.xy[i]);
                row
            })
            .collect();
        for col in 0..n {
            let pivot = (col..n)
                .max_by(|&r, &s| a[r][col].abs().total_cmp(&a[s][col].abs()))
                .expect("a row");
            a.swap(col, pivot);
            if a[col][col].abs() < 1e-12 {
                continue;
            }
            let pivot_row = a[col].clone();
            for (r, row) in a.iter_mut().enumerate() {
                if r != col {
                    let factor = row[col] / pivot_row[col];
                    for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                        *x -= factor * p;
                    }
                }
            }
        }
        for (i, row) in a.iter().enumerate() {
            let w = if row[i].abs() < 1e-12 {
                0.0
            } else {
                row[n] / row[i]
            };
            self.state.weights.weights[i] = w as f32;
        }
    }
}

impl<G: TrainGame + Features> Learner<G> for Fit<G> {
    /// Self-play with the current weights; the games' positions join the normal
    /// equations; the weights are solved again.
    fn iterate(&mut self, it: &mut Iteration<'_, G>) -> Result<Option<IterationReport>, String> {
        let Some(games) = it.self_play(&self.evaluator())? else {
            return Ok(None);
        };
        let n = feature_count::<G>();
        let loss_before = self.loss(&games);
        let mut positions = 0;
        for game in &games {
            for (f, y) in samples(game) {
                positions += 1;
                for i in 0..n {
                    self.state.xy[i] += f64::from(f[i]) * y;
                    for j in 0..n {
                        self.state.xx[i * n + j] += f64::from(f[i]) * f64::from(f[j]);
                    }
                }
            }
        }
        self.solve();
        Ok(Some(IterationReport {
            games: games.len() as u64,
            positions,
            loss_before,
            loss: self.loss(&games),
            detail: format!("least squares over {n} features"),
        }))
    }

    fn evaluator(&self) -> AnyEvaluator<G> {
        AnyEvaluator::model(Linear::<G>::new(&self.state.weights).expect("valid weights"))
    }

    fn model_header(&self, game: &str) -> ModelHeader {
        ModelHeader::new(game, linear::KIND, G::FEATURE_SET_ID)
    }

    fn save_model(&self, path: &Path, header: &mut ModelHeader) -> Result<(), ModelError> {
        save_model(path, header, &self.state.weights)
    }

    fn validation_loss(&self, games: &[DatasetGame<G>], _: &Iteration<'_, G>) -> f64 {
        self.loss(games)
    }

    fn state(&self) -> Vec<u8> {
        to_bytes(&self.state)
    }

    fn boxed_clone(&self) -> Box<dyn Learner<G>> {
        Box::new(self.clone())
    }
}

/// 4,000 self-play games at depth 4.
fn config(model: &Path) -> String {
    format!(
        r#"
learner = "least-squares"
seed = 5
model = "{}"

[budget]
iterations = 20

[selfplay]
depth = 4
games_per_iteration = 200
random_plies = 8

[evaluation]
every = 0
games = 100
depth = 4
held_out = 0

[least-squares]
ridge = 10.0
"#,
        model.display()
    )
}

/// Trains in `dir`, then plays the model against material at depth 4: `pairs` pairs of
/// games from random eight-ply openings. The model's file is read back as any linear
/// model is, by the loader `play` and `match` use.
fn train_and_match(dir: &Path, pairs: u64) -> Result<MatchTally, String> {
    let model = dir.join("least-squares.bin");
    let text = config(&model);
    let config = TrainConfig::parse_with(&text, &[&LeastSquares]).map_err(|e| e.to_string())?;
    let stop = Arc::new(AtomicBool::new(false));
    let summary = train::<Brazilian>(
        (),
        &config,
        &text,
        TrainOptions {
            start: Start::New,
            supply: None,
            stop: &stop,
            log: &mut |line| println!("{line}"),
            progress: &mut |_, _, _| {},
            on_iteration: &mut |_, _| {},
            tablebase: None,
            learner: Some(&LeastSquares),
        },
    )?;
    println!(
        "trained {} games in {:.1} s",
        summary.games, summary.seconds
    );
    let (learned, header) = load_model_file::<Brazilian>(&model).map_err(|e| e.to_string())?;
    println!(
        "model {}: {} revision {}",
        model.display(),
        header.kind,
        header.revision
    );
    let openings = random_openings(Brazilian::start(), pairs as usize, 8, 2026)?;
    let match_config = MatchConfig {
        pairs,
        limits_a: Limits::depth(4),
        limits_b: Limits::depth(4),
        ply_cap: 200,
        threads: 0,
        tt_mib: 2,
        seed: 2026,
        sprt: None,
        clock: None,
    };
    let outcome = run_match(
        &Engine::new(learned, None),
        &Engine::new(AnyEvaluator::<Brazilian>::baseline(), None),
        &openings,
        &match_config,
        |_, _| {},
    )?;
    Ok(outcome.tally)
}

fn work_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("evalearn-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

fn main() {
    let dir = work_dir("custom-learner");
    let result = train_and_match(&dir, 100);
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(tally) => {
            let (t, e) = (tally.trinomial, tally.estimate());
            println!(
                "least-squares model vs material, depth 4, {} games: {}-{}-{} (W-D-L), score \
                 {:.1}%, Elo {}",
                t.games(),
                t.wins,
                t.draws,
                t.losses,
                100.0 * e.score,
                e.elo_text(0)
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_is_read_and_checked_with_the_config() {
        let base = "learner = \"least-squares\"\nmodel = \"m.bin\"\n";
        let config = TrainConfig::parse_with(base, &[&LeastSquares]).unwrap();
        assert_eq!(config.learner, "least-squares");
        let bad = format!("{base}[least-squares]\nridge = -1\n");
        let e = TrainConfig::parse_with(&bad, &[&LeastSquares]).unwrap_err();
        assert!(e.to_string().contains("least-squares.ridge"), "{e}");
        // evalearn alone does not know it.
        assert!(TrainConfig::parse(base).is_err());
    }

    /// The example's whole run, fewer games in the final match: the loop trains the
    /// outside learner, its file loads as a linear model, and the fit beats material
    /// (the result is fixed by the seeds).
    #[test]
    fn trains_through_the_loop_and_beats_material() {
        let dir = work_dir("custom-learner-test");
        let tally = train_and_match(&dir, 50);
        let _ = std::fs::remove_dir_all(&dir);
        let score = tally.unwrap().estimate().score;
        assert!(score > 0.5, "the least-squares model scored {score}");
    }

    #[test]
    fn the_normal_equations_are_solved() {
        let mut fit = Fit::<Brazilian> {
            settings: Settings { ridge: 0.0 },
            state: State {
                weights: all_active::<Brazilian>(),
                xx: vec![0.0; feature_count::<Brazilian>().pow(2)],
                xy: vec![0.0; feature_count::<Brazilian>()],
            },
            game: std::marker::PhantomData,
        };
        // A diagonal system: w_i = (i + 1) / 2.
        let n = feature_count::<Brazilian>();
        for i in 0..n {
            fit.state.xx[i * n + i] = 2.0;
            fit.state.xy[i] = (i + 1) as f64;
        }
        fit.solve();
        for i in 0..n {
            assert_eq!(fit.state.weights.weights[i], (i + 1) as f32 / 2.0);
        }
    }
}
