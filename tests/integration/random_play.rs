//! The random-play statistics of Beling's master's thesis (6.5.1): when both sides play uniformly random
//! legal moves, positions average about 5.345 legal moves and over a quarter of them have
//! a single legal move.

use evalearn::game::{Game, GameRecord, GameStatus, MoveList};
use evalearn::games::brazilian::Brazilian;
use rand::{RngExt, SeedableRng, rngs::Xoshiro256PlusPlus};

#[test]
fn branching_factor_of_random_games_matches_the_seed() {
    const GAMES: usize = 20_000;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2024);
    let mut moves = MoveList::new();
    let (mut positions, mut legal_moves, mut forced, mut plies) = (0u64, 0u64, 0u64, 0u64);
    for _ in 0..GAMES {
        let mut record = GameRecord::new(Brazilian::start());
        while record.status() == GameStatus::Ongoing {
            record.position().legal_moves(&mut moves);
            positions += 1;
            legal_moves += moves.len() as u64;
            forced += u64::from(moves.len() == 1);
            record.play(moves[rng.random_range(0..moves.len())]);
        }
        plies += record.ply() as u64;
    }
    let mean = legal_moves as f64 / positions as f64;
    let single = forced as f64 / positions as f64;
    eprintln!(
        "{GAMES} random games: {positions} positions, mean {mean:.4} legal moves, \
         {single:.4} single-move, {:.1} plies per game",
        plies as f64 / GAMES as f64
    );
    assert!((mean - 5.345).abs() <= 0.03, "mean branching factor {mean}");
    assert!(
        (0.24..=0.27).contains(&single),
        "single-move share {single}"
    );
}
