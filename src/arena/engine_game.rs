//! One game between engines, from an opening to its end: the loop self-play and matches
//! share. Each ply records what the search found (value, depth, principal-variation leaf).

use rand::RngExt;

use crate::eval::EVAL_LIMIT;
use crate::game::{EndReason, ExactValue, Game, GameRecord, GameStatus, Outcome};
use crate::io::dataset::DatasetGame;
use crate::rng::Rng;
use crate::search::{SearchResult, Tablebase};

/// Softmax exploration over the root moves' values during the first plies of a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exploration {
    /// In men (1.0 = 100 centi-units): a move `t·100` centi-units worse than the best is
    /// `e` times less likely.
    pub temperature: f64,
    /// Plies of the game (after the opening) that explore.
    pub plies: u32,
}

/// How an engine game is played, besides its players.
#[derive(Clone, Copy, Default)]
pub struct GameRules<'a, G: Game> {
    /// Plies after which the game stops as a draw.
    pub ply_cap: u32,
    pub exploration: Option<Exploration>,
    /// Ends the game with the database's result as soon as it holds the position.
    pub adjudicator: Option<&'a dyn Tablebase<G>>,
}

/// Plays a game from `opening` to its end (rules, draw rules, adjudication or the ply
/// cap). `search(record, exact)` searches the current position for the side to move;
/// `exact` asks for exact values of all root moves (for exploration).
pub fn play_engine_game<G: Game>(
    index: u64,
    opening: G,
    rules: GameRules<'_, G>,
    rng: &mut Rng,
    mut search: impl FnMut(&GameRecord<G>, bool) -> SearchResult<G>,
) -> DatasetGame<G> {
    let Ok(game) = try_play_engine_game(index, opening, rules, rng, |r, e| {
        Ok::<_, std::convert::Infallible>(Some(search(r, e)))
    });
    game
}

/// [`play_engine_game`] with players that may fail (an external engine that dies or
/// plays an illegal move): the first error ends the game. `Ok(None)` from `search`: the
/// side to move ran out of time and loses.
pub fn try_play_engine_game<G: Game, E>(
    index: u64,
    opening: G,
    rules: GameRules<'_, G>,
    rng: &mut Rng,
    mut search: impl FnMut(&GameRecord<G>, bool) -> Result<Option<SearchResult<G>>, E>,
) -> Result<DatasetGame<G>, E> {
    let GameRules {
        ply_cap,
        exploration,
        adjudicator,
    } = rules;
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
        if let Some(value) = adjudicator.and_then(|tb| tb.probe(&pos)) {
            let side = pos.side_to_move();
            game.outcome = match value {
                ExactValue::Win(_) => Outcome::Win(side),
                ExactValue::Loss(_) => Outcome::Win(side.opponent()),
                ExactValue::Draw => Outcome::Draw,
            };
            game.reason = EndReason::Adjudicated;
            return Ok(game);
        }
        let explore = exploration.filter(|e| (record.ply() as u32) < e.plies);
        let Some(result) = search(&record, explore.is_some())? else {
            game.outcome = Outcome::Win(pos.side_to_move().opponent());
            game.reason = EndReason::TimeForfeit;
            return Ok(game);
        };
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
