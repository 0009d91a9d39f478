//! Lazy evaluation: a leaf settled by bounds on the evaluator's value instead of the
//! value. Bounds that hold change no search result and spare evaluations; the shipped
//! draughts network's observed bounds give the bench's results unchanged; Kalah models
//! load without them.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use evalearn::eval::lazy::{Lazy, LazyBounds};
use evalearn::eval::spec::load_model_file;
use evalearn::eval::td::TdEvaluator;
use evalearn::eval::{Evaluator, baseline};
use evalearn::game::Game;
use evalearn::games::brazilian::{Brazilian, Material};
use evalearn::games::kalah::Kalah;
use evalearn::search::bench;

use crate::common::evalearn_ok;
use crate::td_incremental::shipped_weights;

/// Material and a made-up positional term within ±`SPREAD`, counting its evaluations;
/// with `bounded`, it tells the search the bounds that term allows.
struct Positional {
    bounded: bool,
    evaluations: AtomicU64,
}

const SPREAD: i32 = 60;

impl Positional {
    fn new(bounded: bool) -> Arc<Positional> {
        Arc::new(Positional {
            bounded,
            evaluations: AtomicU64::new(0),
        })
    }
}

impl Evaluator<Brazilian> for Positional {
    fn evaluate(&self, pos: &Brazilian) -> i32 {
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        let term = (pos.hash_key() % (2 * SPREAD as u64 + 1)) as i32 - SPREAD;
        Material.evaluate(pos) + term
    }

    fn name(&self) -> String {
        "positional".into()
    }

    fn bounds(&self, pos: &Brazilian) -> Option<(i32, i32)> {
        let material = Material.evaluate(pos);
        self.bounded
            .then_some((material - SPREAD, material + SPREAD))
    }
}

/// Every bench position's score and move to `depth`.
fn bench_results<E: Evaluator<Brazilian> + Clone>(evaluator: E, depth: u32) -> Vec<(i32, String)> {
    let mut results = Vec::new();
    bench::run::<Brazilian, _>(evaluator, depth, 16, 1, |_, pos, result| {
        let mv = result.best_move.map(|m| pos.format_move(m));
        results.push((result.score, mv.unwrap_or_default()));
    });
    results
}

#[test]
fn bounds_that_hold_change_no_score_and_spare_evaluations() {
    let exact = Positional::new(false);
    let lazy = Positional::new(true);
    let exact_results = bench_results(Arc::clone(&exact), 9);
    let lazy_results = bench_results(Arc::clone(&lazy), 9);
    let scores = |r: &[(i32, String)]| r.iter().map(|(s, _)| *s).collect::<Vec<_>>();
    assert_eq!(scores(&exact_results), scores(&lazy_results));
    let (spent, spared) = (
        exact.evaluations.load(Ordering::Relaxed),
        lazy.evaluations.load(Ordering::Relaxed),
    );
    assert!(
        spared * 10 < spent * 9,
        "{spared} evaluations with bounds, {spent} without"
    );
}

fn shipped(name: &str) -> Arc<dyn Evaluator<Brazilian>> {
    let weights = shipped_weights(&format!("models/{name}"));
    Arc::new(TdEvaluator::<Brazilian>::from_weights(&weights).unwrap())
}

/// The shipped network's observed bounds hold where the bench's searches test them: every
/// position keeps its score and move.
#[test]
fn the_shipped_networks_bounds_leave_the_bench_results_as_they_were() {
    let model = shipped("td-clipped.bin");
    let lazy = Arc::new(Lazy::new(Arc::clone(&model), Brazilian::start()));
    // Material values from 7 men down to 7 men up at least are narrowed.
    assert!(lazy.observed().narrowed() >= 15, "{:?}", lazy.observed());
    assert_eq!(bench_results(model, 10), bench_results(lazy, 10));
}

#[test]
fn bounds_do_not_depend_on_the_thread_count() {
    let model = shipped("td.bin");
    let observe = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            LazyBounds::observe(model.as_ref(), &baseline::<Brazilian>(), Brazilian::start())
        })
    };
    assert_eq!(observe(1), observe(2));
}

#[test]
fn draughts_models_load_with_bounds_and_kalah_models_without() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let (draughts, _) = load_model_file::<Brazilian>(&root.join("td-clipped.bin")).unwrap();
    let (low, high) = draughts.bounds(&Brazilian::start()).unwrap();
    assert!(low <= draughts.evaluate(&Brazilian::start()));
    assert!(draughts.evaluate(&Brazilian::start()) <= high);
    let (kalah, _) = load_model_file::<Kalah>(&root.join("kalah-clipped.bin")).unwrap();
    assert_eq!(kalah.bounds(&Kalah::start()), None);
    let info = |name: &str| {
        let out = evalearn_ok(&["model", "info", root.join(name).to_str().unwrap()]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let draughts = info("td-clipped.bin");
    assert!(draughts.contains("lazy:        bounds at "), "{draughts}");
    assert!(!info("kalah-clipped.bin").contains("lazy:"));
}
