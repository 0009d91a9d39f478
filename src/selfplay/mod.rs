//! Self-play: many games of one evaluator against itself, played in parallel on rayon
//! workers (each with its own searcher). Game `i` starts from opening `i` and draws its
//! exploration from its own random stream `(seed, i)`, so every game, and the dataset,
//! is the same whatever the thread count or scheduling.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::arena::engine_game::{Exploration, GameRules, play_engine_game};
use crate::arena::players::{Contender, Engine};
use crate::arena::workers::run_workers;
use crate::book::Book;
use crate::eval::Evaluator;
use crate::game::{Game, Outcome, Side};
use crate::io::dataset::DatasetGame;
use crate::rng;
use crate::search::Limits;

/// Which games of a run this process plays: those whose index ≡ `index` (mod `count`),
/// so `count` machines split one job.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shard {
    /// 0-based.
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N` with 1 ≤ I ≤ N (as users count shards).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("shard '{text}': write I/N with 1 ≤ I ≤ N, e.g. 1/4");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let i: u64 = i.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || i == 0 || i > n {
            return Err(bad());
        }
        Ok(Shard {
            index: i - 1,
            count: n,
        })
    }

    /// The numbers of this shard's games among `first..first + games`.
    pub fn games(&self, first: u64, games: u64) -> Vec<u64> {
        (first + self.index..first + games)
            .step_by(self.count as usize)
            .collect()
    }
}

/// How a self-play run plays.
#[derive(Clone, Debug)]
pub struct SelfPlayConfig {
    /// Games in the whole run (all shards).
    pub games: u64,
    /// Number of the first game: games are numbered `first_game..first_game + games`
    /// (their openings and random streams follow the number), so a training run's
    /// iterations never replay the same streams.
    pub first_game: u64,
    pub limits: Limits,
    pub seed: u64,
    pub exploration: Option<Exploration>,
    /// Plies after which a game is stopped and counted as a draw.
    pub ply_cap: u32,
    /// Worker threads (0: one per core).
    pub threads: usize,
    pub shard: Shard,
    /// Transposition table of each worker, in MiB.
    pub tt_mib: usize,
    /// End each game on entering the engine's endgame database, with its result.
    pub adjudicate: bool,
}

/// Results so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub games: u64,
    pub positions: u64,
    pub first_wins: u64,
    pub second_wins: u64,
    pub draws: u64,
    /// Draws that were ply-cap stops.
    pub capped: u64,
}

impl Tally {
    pub fn add<G: Game>(&mut self, game: &DatasetGame<G>) {
        self.games += 1;
        self.positions += game.len() as u64;
        match game.outcome {
            Outcome::Win(Side::First) => self.first_wins += 1,
            Outcome::Win(Side::Second) => self.second_wins += 1,
            Outcome::Draw => self.draws += 1,
        }
        if game.reason == crate::game::EndReason::PlyCap {
            self.capped += 1;
        }
    }
}

/// Keeps the streams of book choices apart from the games' exploration streams.
const BOOK_STREAM: u64 = 0x626F_6F6B_6D6F_7665;

/// Plays this shard's games; `openings[i % len]` starts game `i`. Each finished game goes
/// to `on_game` (on the calling thread, in completion order). Raising `stop` (Ctrl-C)
/// ends the run within moments: the searches in progress stop, their games are dropped
/// unfinished, and no game starts.
pub fn run<G: Game, E: Evaluator<G> + Clone + Sync>(
    config: &SelfPlayConfig,
    engine: &Engine<G, E>,
    openings: &[G],
    stop: &Arc<AtomicBool>,
    on_game: impl FnMut(DatasetGame<G>),
) -> Result<(), String> {
    run_with_book(config, engine, openings, None, stop, on_game)
}

/// [`run`] with games that follow `book` while their position is in it: the move played
/// is a book move drawn from the game's own stream (from the seed and the game index),
/// before any exploration. The search still runs on those plies, so the dataset records
/// the engine's value and leaf of every position, as it does for explored plies.
pub fn run_with_book<G: Game, E: Evaluator<G> + Clone + Sync>(
    config: &SelfPlayConfig,
    engine: &Engine<G, E>,
    openings: &[G],
    book: Option<&Book<G>>,
    stop: &Arc<AtomicBool>,
    mut on_game: impl FnMut(DatasetGame<G>),
) -> Result<(), String> {
    if openings.is_empty() {
        return Err("no opening to start games from".to_string());
    }
    let jobs = config.shard.games(config.first_game, config.games);
    run_workers(
        config.threads,
        &jobs,
        stop,
        || {
            engine
                .player(config.tt_mib)
                .expect("an engine's searcher is always made")
        },
        |searcher, index| {
            let mut rng = rng::stream(config.seed, index);
            let mut book_rng = rng::stream(config.seed ^ BOOK_STREAM, index);
            let opening = openings[(index % openings.len() as u64) as usize];
            let game = play_engine_game(
                index,
                opening,
                GameRules {
                    ply_cap: config.ply_cap,
                    exploration: config.exploration,
                    adjudicator: engine.tablebase.as_deref().filter(|_| config.adjudicate),
                },
                &mut rng,
                |record, exact| {
                    let limits = Limits {
                        exact_root_values: exact,
                        stop: Some(Arc::clone(stop)),
                        ..config.limits.clone()
                    };
                    let mut result = searcher.search(record, &limits, |_| {});
                    if let Some(mv) = book.and_then(|b| b.choose(record.position(), &mut book_rng))
                    {
                        result.best_move = Some(mv);
                        // Without root values exploration keeps the best move: the book's.
                        result.root_values.clear();
                    }
                    result
                },
            );
            // Searches cut short by the flag played moves the games would not have.
            (!stop.load(Ordering::SeqCst)).then_some(game)
        },
        |game| {
            if let Some(game) = game {
                on_game(game);
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_the_games() {
        assert_eq!(Shard::parse("2/3").unwrap().games(0, 10), vec![1, 4, 7]);
        assert_eq!(Shard::WHOLE.games(0, 3), vec![0, 1, 2]);
        assert_eq!(Shard::WHOLE.games(100, 3), vec![100, 101, 102]);
        for bad in ["0/3", "4/3", "1/0", "x/2", "3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
