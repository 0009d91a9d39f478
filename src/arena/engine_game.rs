//! One game between engines, from an opening to its end: the loop self-play and matches
//! share. Each ply records what the search found (value, depth, principal-variation leaf).

use rand::RngExt;

use crate::eval::EVAL_LIMIT;
use crate::game::{Game, GameRecord, GameStatus};
use crate::io::dataset::DatasetGame;
use crate::rng::Rng;
use crate::search::SearchResult;

/// Softmax exploration over the root moves' values during the first plies of a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exploration {
    /// In men (1.0 = 100 centi-units): a move `t·100` centi-units worse than the best is
    /// `e` times less likely.
    pub temperature: f64,
    /// Plies of the game (after the opening) that explore.
    pub plies: u32,
}

/// Plays a game from `opening` to its end (rules, draw rules or `ply_cap` plies).
/// `search(record, exact)` searches the current position for the side to move; `exact`
/// asks for exact values of all root moves (for exploration).
pub fn play_engine_game<G: Game>(
    index: u64,
    opening: G,
    ply_cap: u32,
    exploration: Option<Exploration>,
    rng: &mut Rng,
    mut search: impl FnMut(&GameRecord<G>, bool) -> SearchResult<G>,
) -> DatasetGame<G> {
    let Ok(game) = try_play_engine_game(index, opening, ply_cap, exploration, rng, |r, e| {
        Ok::<_, std::convert::Infallible>(search(r, e))
    });
    game
}

/// [`play_engine_game`] with players that may fail (an external engine that dies or
/// plays an illegal move): the first error ends the game.
pub fn try_play_engine_game<G: Game, E>(
    index: u64,
    opening: G,
    ply_cap: u32,
    exploration: Option<Exploration>,
    rng: &mut Rng,
    mut search: impl FnMut(&GameRecord<G>, bool) -> Result<SearchResult<G>, E>,
) -> Result<DatasetGame<G>, E> {
    let mut record = GameRecord::new(opening).with_ply_cap(Some(ply_cap));
    let mut game = DatasetGame {
        index,
        positions: vec![opening],
        moves: Vec::new(),
        scores: Vec::new(),
        depths: Vec::new(),
        leaves: Vec::new(),
        outcome: crate::game::Outcome::Draw,
        reason: crate::game::EndReason::PlyCap,
    };
    loop {
        if let GameStatus::Over { outcome, reason } = record.status() {
            game.outcome = outcome;
            game.reason = reason;
            return Ok(game);
        }
        let pos = *record.position();
        let explore = exploration.filter(|e| (record.ply() as u32) < e.plies);
        let result = search(&record, explore.is_some())?;
        let best = result.best_move.expect("an ongoing game has a legal move");
        let mv = match explore {
            Some(e) => softmax_choice(&result, e.temperature, rng).unwrap_or(best),
            None => best,
        };
        let leaf = result.pv.iter().fold(pos, |at, &m| at.play(m));
        game.scores.push(result.score);
        game.depths.push(result.depth.min(u8::MAX as u32) as u8);
        game.leaves.push(leaf);
        game.moves.push(mv);
        record.play(mv);
        game.positions.push(*record.position());
    }
}

/// A root move drawn with probability ∝ exp((value − best) / (100·temperature)).
fn softmax_choice<G: Game>(
    result: &SearchResult<G>,
    temperature: f64,
    rng: &mut Rng,
) -> Option<G::Move> {
    let values = &result.root_values;
    if values.is_empty() || temperature <= 0.0 {
        return None;
    }
    let clamp = |v: i32| v.clamp(-EVAL_LIMIT, EVAL_LIMIT) as f64;
    let best = values
        .iter()
        .map(|&(_, v)| clamp(v))
        .fold(f64::MIN, f64::max);
    let weights: Vec<f64> = values
        .iter()
        .map(|&(_, v)| ((clamp(v) - best) / (100.0 * temperature)).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut draw = rng.random::<f64>() * total;
    for (&(mv, _), w) in values.iter().zip(&weights) {
        if draw < *w {
            return Some(mv);
        }
        draw -= w;
    }
    values.last().map(|&(mv, _)| mv)
}
