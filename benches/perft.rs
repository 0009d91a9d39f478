use criterion::{Criterion, criterion_group, criterion_main};
use evalearn::game::{Game, perft::perft};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::kalah::Kalah;

fn bench_perft(c: &mut Criterion) {
    let start = Brazilian::start();
    assert_eq!(perft(&start, 11), 105_491_257);
    let kalah = Kalah::start();
    assert_eq!(perft(&kalah, 8), 4_240_545);
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.bench_function("start_depth_9", |b| b.iter(|| perft(&start, 9)));
    group.bench_function("start_depth_11", |b| b.iter(|| perft(&start, 11)));
    group.bench_function("kalah_start_depth_8", |b| b.iter(|| perft(&kalah, 8)));
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
