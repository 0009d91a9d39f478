//! Kalah cases: positions from seeded self-play games of a variant (or a dataset), each
//! move's value solved exactly ([`CachedSolver`]: solved values are kept on disk).

use std::collections::HashSet;

use rand::RngExt;

use super::Case;
use crate::arena::engine_game::{Exploration, GameRules, play_engine_game};
use crate::eval::kalah::KalahEval;
use crate::game::Game;
use crate::game::kalah::solve::board::{pits_of, stones};
use crate::game::kalah::solve::cache::CachedSolver;
use crate::game::kalah::{Kalah, KalahMoves, KalahRules};
use crate::search::{Limits, SearchConfig, Searcher};

/// The games the positions come from: the `stores` evaluator at this depth, every
/// move drawn by softmax over the root values at this temperature (stones), so games
/// are varied but plausible.
pub const SELFPLAY_DEPTH: u32 = 2;
pub const SELFPLAY_TEMPERATURE: f64 = 1.0;
/// Plies after which a self-play game stops.
const PLY_CAP: u32 = 400;

/// `count` different positions of `rules`' games, each with two moves or more: game
/// `i` is played from random stream `i` of `seed`, and one of its positions (uniformly
/// among those before the end, with at most `max_pit_stones` stones in the pits when
/// given) is taken. Fails if the games keep repeating positions.
pub fn selfplay_positions(
    rules: KalahRules,
    count: usize,
    seed: u64,
    max_pit_stones: Option<u32>,
) -> Result<Vec<Kalah>, String> {
    let mut searcher = Searcher::new(KalahEval::Stores, SearchConfig::FULL, 4);
    let rules_of_game = GameRules {
        ply_cap: PLY_CAP,
        exploration: Some(Exploration {
            temperature: SELFPLAY_TEMPERATURE,
            plies: PLY_CAP,
        }),
        adjudicator: None,
    };
    let mut seen = HashSet::new();
    let mut positions = Vec::with_capacity(count);
    let mut moves = KalahMoves::new();
    let max_games = 1000 + 20 * count as u64;
    let mut index = 0;
    while positions.len() < count {
        if index >= max_games {
            return Err(format!(
                "only {} different positions of {} in {max_games} games",
                positions.len(),
                rules.name()
            ));
        }
        let mut rng = crate::rng::stream(seed, index);
        let game = play_engine_game(
            index,
            Kalah::start_of(rules),
            rules_of_game,
            &mut rng,
            |record, exact| {
                let limits = Limits {
                    depth: Some(SELFPLAY_DEPTH),
                    exact_root_values: exact,
                    ..Limits::default()
                };
                searcher.search(record, &limits, |_| {})
            },
        );
        index += 1;
        let ongoing = game.positions.len().saturating_sub(1).max(1);
        // Stones in the pits only fall as a game goes on: the late positions are a tail.
        let first = max_pit_stones.map_or(0, |most| {
            game.positions[..ongoing]
                .iter()
                .position(|p| stones(&pits_of(p)) <= most)
                .unwrap_or(ongoing)
        });
        if first == ongoing {
            continue;
        }
        let pos = game.positions[rng.random_range(first..ongoing)];
        pos.legal_moves(&mut moves);
        if moves.len() >= 2 && seen.insert(pos) {
            positions.push(pos);
        }
    }
    Ok(positions)
}

/// The case of `pos` with every move's value solved (`None` with fewer than two moves).
pub fn case_of(solver: &mut CachedSolver, pos: &Kalah) -> Option<Case<Kalah>> {
    let mut moves = KalahMoves::new();
    pos.legal_moves(&mut moves);
    if moves.len() < 2 {
        return None;
    }
    let children: Vec<_> = moves
        .iter()
        .map(|&mv| {
            let child = pos.play(mv);
            (
                mv,
                child.store_margin() + solver.future_value(&pits_of(&child)),
            )
        })
        .collect();
    Case::from_children(*pos, children)
}

/// `positions` without duplicates and without those with fewer than two moves, in order.
pub fn distinct_playable(positions: impl IntoIterator<Item = Kalah>) -> Vec<Kalah> {
    let mut seen = HashSet::new();
    let mut moves = KalahMoves::new();
    positions
        .into_iter()
        .filter(|p| {
            p.legal_moves(&mut moves);
            moves.len() >= 2 && seen.insert(*p)
        })
        .collect()
}
