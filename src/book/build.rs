//! Building a book by search, ply by ply from the start position:
//!
//! 1. The positions of the current ply (the *frontier*) are ordered by how likely a game
//!    following the book reaches them and, while the book has room, each is searched to
//!    the book depth with exact values for every root move.
//! 2. Its *sound* moves — those within `margin` centi-units of the best — become its
//!    book moves, with their values.
//! 3. The positions after the sound moves, for both sides, form the next frontier.
//!
//! With a self-play dataset, the positions its games went through (from the start, in
//! their first `plies` plies) in at least `min_games` games also join the frontier of
//! their ply, so the book answers the lines the engine actually plays, including the
//! ones its own search would not choose; and each sound move's weight is 1 + the number
//! of games that played it, so the book plays the engine's most-played lines most often.
//!
//! The searches of a ply run in parallel, each from a fresh search state; the book is
//! the same whatever the thread count.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Book, BookMove};
use crate::arena::workers::run_workers;
use crate::eval::Evaluator;
use crate::game::{Game, GameRecord};
use crate::io::dataset::DatasetGame;
use crate::search::{Limits, SearchConfig, Searcher};

/// How a book is built.
#[derive(Clone, Debug)]
pub struct BuildConfig {
    /// Search depth of each book position.
    pub depth: u32,
    /// Plies from the start that the book covers: positions after up to `plies − 1`
    /// moves get book moves.
    pub plies: u32,
    /// Moves valued at least best − `margin` centi-units are sound.
    pub margin: i32,
    /// Most positions in the book.
    pub max_positions: usize,
    /// Dataset positions met in fewer games are not added on their own.
    pub min_games: u32,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Transposition table of each worker, in MiB.
    pub tt_mib: usize,
}

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildReport {
    /// Positions given book moves at each ply.
    pub per_ply: Vec<usize>,
    /// Nodes searched in all.
    pub nodes: u64,
    /// Stopped (Ctrl-C) before the plies were done: the book holds the positions whose
    /// search had finished.
    pub interrupted: bool,
}

/// The opening lines of a dataset: how many games went through each position in their
/// first plies, and which moves they played there.
#[derive(Clone, Debug)]
pub struct DatasetLines<G: Game> {
    /// Per position: games through it, and the games that played each move there.
    seen: HashMap<G, (u32, HashMap<G::Move, u32>)>,
    /// Positions by ply, each with the ply at which games met it first.
    by_ply: Vec<Vec<G>>,
    /// Games that start at the start position (the only ones used).
    pub games_used: u64,
    /// Games from other openings, left out: their plies from the start are unknown.
    pub games_skipped: u64,
}

impl<G: Game> DatasetLines<G> {
    /// The first `plies` plies of the games that start at `start`.
    pub fn new(start: G, games: &[DatasetGame<G>], plies: u32) -> Self {
        let mut lines = DatasetLines {
            seen: HashMap::new(),
            by_ply: vec![Vec::new(); plies as usize],
            games_used: 0,
            games_skipped: 0,
        };
        for game in games {
            if game.positions[0] != start {
                lines.games_skipped += 1;
                continue;
            }
            lines.games_used += 1;
            for (ply, (&pos, &mv)) in game.positions.iter().zip(&game.moves).enumerate() {
                if ply >= plies as usize {
                    break;
                }
                let (count, moves) = lines.seen.entry(pos).or_insert_with(|| {
                    lines.by_ply[ply].push(pos);
                    (0, HashMap::new())
                });
                *count += 1;
                *moves.entry(mv).or_insert(0) += 1;
            }
        }
        lines
    }

    /// Games that went through `pos`.
    pub fn games_through(&self, pos: &G) -> u32 {
        self.seen.get(pos).map_or(0, |s| s.0)
    }

    /// Games that played `mv` in `pos`.
    pub fn games_playing(&self, pos: &G, mv: G::Move) -> u32 {
        self.seen
            .get(pos)
            .and_then(|s| s.1.get(&mv))
            .copied()
            .unwrap_or(0)
    }
}

/// Builds a book of `variant` with `evaluator`; `lines` are a dataset's opening lines.
/// `on_position` hears of each position searched. Raising `stop` ends the build within
/// moments, with the positions searched so far.
pub fn build<G: Game, E: Evaluator<G> + Clone>(
    variant: G::Variant,
    evaluator: &E,
    config: &BuildConfig,
    lines: Option<&DatasetLines<G>>,
    info: String,
    stop: &Arc<AtomicBool>,
    mut on_position: impl FnMut(),
) -> Result<(Book<G>, BuildReport), String> {
    let mut book = Book::new(variant, info);
    let mut report = BuildReport::default();
    // Position → probability that a game following the book reaches it, keyed by hash
    // for a fixed order.
    let mut frontier: BTreeMap<u64, (G, f64)> = BTreeMap::new();
    let start = G::start_of(variant);
    frontier.insert(start.hash_key(), (start, 1.0));
    let limits = Limits {
        depth: Some(config.depth),
        exact_root_values: true,
        stop: Some(Arc::clone(stop)),
        ..Limits::default()
    };
    for ply in 0..config.plies as usize {
        if let Some(lines) = lines
            && lines.games_used > 0
        {
            for pos in lines.by_ply.get(ply).into_iter().flatten() {
                let games = lines.games_through(pos);
                if games >= config.min_games.max(1) {
                    let share = f64::from(games) / lines.games_used as f64;
                    let slot = frontier.entry(pos.hash_key()).or_insert((*pos, 0.0));
                    if slot.0 == *pos {
                        slot.1 = slot.1.max(share);
                    }
                }
            }
        }
        let mut todo: Vec<(G, f64)> = frontier
            .into_values()
            .filter(|(pos, _)| {
                book.probe(pos).is_none() && !book.collides(pos) && pos.has_legal_move()
            })
            .collect();
        frontier = BTreeMap::new();
        // Most likely first; the sort is stable, so ties keep hash-key order.
        todo.sort_by(|a, b| b.1.total_cmp(&a.1));
        todo.truncate(config.max_positions.saturating_sub(book.len()));
        if todo.is_empty() {
            break;
        }
        let jobs: Vec<u64> = (0..todo.len() as u64).collect();
        let mut results = Vec::with_capacity(todo.len());
        run_workers(
            config.threads,
            &jobs,
            stop,
            || Searcher::new(evaluator.clone(), SearchConfig::FULL, config.tt_mib),
            |searcher, job| {
                let pos = todo[job as usize].0;
                (job, searcher.search(&GameRecord::new(pos), &limits, |_| {}))
            },
            |result| {
                on_position();
                results.push(result);
            },
        )?;
        results.sort_by_key(|r| r.0);
        // Searches the flag cut short have no trustworthy values.
        report.interrupted = stop.load(Ordering::SeqCst);
        results.retain(|r| !r.1.stopped);
        let mut added = 0;
        for (job, result) in results {
            let (pos, reach) = todo[job as usize];
            report.nodes += result.nodes.total();
            let Some(&(_, best)) = result.root_values.first() else {
                continue;
            };
            let moves: Vec<BookMove<G>> = result
                .root_values
                .iter()
                .filter(|&&(_, value)| value >= best.saturating_sub(config.margin))
                .map(|&(mv, score)| BookMove {
                    mv,
                    score,
                    weight: lines
                        .map_or(0, |l| l.games_playing(&pos, mv))
                        .saturating_add(1),
                })
                .collect();
            let total: f64 = moves.iter().map(|m| f64::from(m.weight)).sum();
            for m in &moves {
                let child = pos.play(m.mv);
                let share = reach * f64::from(m.weight) / total;
                let slot = frontier.entry(child.hash_key()).or_insert((child, 0.0));
                if slot.0 == child {
                    slot.1 += share;
                }
            }
            book.insert(pos, moves)?;
            added += 1;
        }
        report.per_ply.push(added);
        if report.interrupted {
            break;
        }
    }
    Ok((book, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::brazilian::Brazilian;
    use crate::games::brazilian::Material;

    fn config(threads: usize) -> BuildConfig {
        BuildConfig {
            depth: 2,
            plies: 3,
            margin: 0,
            max_positions: 12,
            min_games: 1,
            threads,
            tt_mib: 1,
        }
    }

    #[test]
    fn sound_moves_are_within_the_margin_of_a_search_and_threads_do_not_matter() {
        let (book, report) = build::<Brazilian, _>(
            (),
            &Material,
            &config(1),
            None,
            String::new(),
            &Arc::default(),
            || {},
        )
        .unwrap();
        let (again, _) = build::<Brazilian, _>(
            (),
            &Material,
            &config(2),
            None,
            String::new(),
            &Arc::default(),
            || {},
        )
        .unwrap();
        assert_eq!(book.to_frames(), again.to_frames());
        assert!(book.len() <= 12);
        assert_eq!(report.per_ply.iter().sum::<usize>(), book.len());
        assert_eq!(report.per_ply[0], 1);
        // Every stored value is the search's exact value, and with margin 0 every book
        // move is a best move.
        let mut searcher = Searcher::new(Material, SearchConfig::FULL, 1);
        for (pos, moves) in book.positions() {
            let limits = Limits {
                depth: Some(2),
                exact_root_values: true,
                ..Limits::default()
            };
            let result = searcher.search_position(pos, &limits);
            let best = result.root_values[0].1;
            for m in moves {
                assert_eq!(m.score, best);
                assert!(result.root_values.contains(&(m.mv, m.score)));
                assert_eq!(m.weight, 1);
            }
        }
    }

    #[test]
    fn dataset_lines_join_the_book_and_weigh_its_moves() {
        let start = Brazilian::start();
        let mut moves = crate::game::MoveList::new();
        start.legal_moves(&mut moves);
        // Three games open with moves[6], one with moves[5]; a fifth starts elsewhere.
        let game = |first: usize, from: Brazilian| {
            let mut positions = vec![from];
            let mut played = Vec::new();
            let mut pos = from;
            for i in 0..3 {
                let mut list = crate::game::MoveList::new();
                pos.legal_moves(&mut list);
                let mv = if i == 0 && from == start {
                    moves[first]
                } else {
                    list[0]
                };
                played.push(mv);
                pos = pos.play(mv);
                positions.push(pos);
            }
            DatasetGame {
                index: 0,
                leaves: positions[1..].to_vec(),
                positions,
                scores: vec![0; 3],
                depths: vec![1; 3],
                moves: played,
                outcome: crate::game::Outcome::Draw,
                reason: crate::game::EndReason::PlyCap,
            }
        };
        let games = vec![
            game(6, start),
            game(6, start),
            game(6, start),
            game(5, start),
            game(0, start.play(moves[0])),
        ];
        let lines = DatasetLines::new(start, &games, 3);
        assert_eq!((lines.games_used, lines.games_skipped), (4, 1));
        assert_eq!(lines.games_through(&start), 4);
        assert_eq!(lines.games_playing(&start, moves[6]), 3);
        let config = BuildConfig {
            margin: 10_000,
            max_positions: 40,
            min_games: 3,
            ..config(2)
        };
        let (book, _) = build::<Brazilian, _>(
            (),
            &Material,
            &config,
            Some(&lines),
            String::new(),
            &Arc::default(),
            || {},
        )
        .unwrap();
        let at_start = book.probe(&start).unwrap();
        assert_eq!(at_start.len(), 7);
        for m in at_start {
            let expected = 1 + lines.games_playing(&start, m.mv);
            assert_eq!(m.weight, expected);
        }
        // The position after the three games' common two plies is in the book.
        assert!(book.probe(&games[0].positions[2]).is_some());
    }
}
