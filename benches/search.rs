//! Search speed on the bench positions (the same work as `evalearn bench`).

use criterion::{Criterion, criterion_group, criterion_main};
use evalearn::eval::Material;
use evalearn::eval::kalah::KalahEval;
use evalearn::game::checkers::Checkers;
use evalearn::game::kalah::Kalah;
use evalearn::search::bench;

fn bench_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.bench_function("bench_positions_depth_12", |b| {
        b.iter(|| bench::run::<Checkers, _>(Material, 12, bench::DEFAULT_TT_MIB, |_, _, _| {}))
    });
    group.bench_function("kalah_bench_positions_depth_9", |b| {
        b.iter(|| bench::run::<Kalah, _>(KalahEval::Stores, 9, bench::DEFAULT_TT_MIB, |_, _, _| {}))
    });
    group.finish();
}

criterion_group!(benches, bench_search);
criterion_main!(benches);
