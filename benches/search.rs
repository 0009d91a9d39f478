//! Search speed on the bench positions (the same work as `evalearn bench`), with the
//! material evaluator and with the shipped TD network (`evalearn bench --eval
//! models/td.bin`), both through the run-time evaluator choice as the CLI makes it.

use criterion::{Criterion, criterion_group, criterion_main};
use evalearn::eval::Evaluator;
use evalearn::eval::spec::EvalSpec;
use evalearn::games::brazilian::Brazilian;
use evalearn::games::kalah::Kalah;
use evalearn::games::kalah::evaluators::KalahEval;
use evalearn::search::bench;

fn bench_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for spec in ["material", "models/td.bin"] {
        let (evaluator, _) = EvalSpec::parse_for::<Brazilian>(spec)
            .and_then(|s| s.load::<Brazilian>().map_err(|e| e.to_string()))
            .expect("the bench's evaluators load");
        let name = format!("bench_positions_depth_12_{}", evaluator.name());
        group.bench_function(name, |b| {
            b.iter(|| {
                bench::run::<Brazilian, _>(&evaluator, 12, bench::DEFAULT_TT_MIB, 1, |_, _, _| {})
            })
        });
    }
    group.bench_function("kalah_bench_positions_depth_9", |b| {
        b.iter(|| {
            bench::run::<Kalah, _>(KalahEval::Stores, 9, bench::DEFAULT_TT_MIB, 1, |_, _, _| {})
        })
    });
    group.finish();
}

criterion_group!(benches, bench_search);
criterion_main!(benches);
