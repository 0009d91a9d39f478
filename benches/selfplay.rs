//! Self-play throughput at depth 6 with the material evaluator, on 1 and 2 threads (the
//! same games either way; only the time differs).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use criterion::{Criterion, criterion_group, criterion_main};
use evalearn::arena::openings::random_openings;
use evalearn::arena::players::Engine;
use evalearn::game::Game;
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::Material;
use evalearn::search::Limits;
use evalearn::selfplay::{self, SelfPlayConfig, Shard};

const GAMES: u64 = 40;

fn bench_selfplay(c: &mut Criterion) {
    let openings = random_openings(Brazilian::start(), GAMES as usize, 6, 1).unwrap();
    let engine = Engine::new(Material, None);
    let mut group = c.benchmark_group("selfplay_depth_6_40_games");
    group.sample_size(10);
    for threads in [1, 2] {
        let config = SelfPlayConfig {
            games: GAMES,
            first_game: 0,
            limits: Limits::depth(6),
            seed: 1,
            exploration: None,
            ply_cap: 300,
            threads,
            shard: Shard::WHOLE,
            tt_mib: 2,
            adjudicate: false,
        };
        group.bench_function(format!("{threads}_threads"), |b| {
            b.iter(|| {
                let stop = Arc::new(AtomicBool::new(false));
                let mut games = 0;
                selfplay::run(&config, &engine, &openings, &stop, |_| games += 1).unwrap();
                assert_eq!(games, GAMES);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_selfplay);
criterion_main!(benches);
