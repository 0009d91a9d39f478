//! Opening books: positions of a game's opening, each with its *sound* moves — the moves
//! a deep search values within a margin of the best — their values and their weights
//! (how often each is chosen). Generic over the [`Game`], so Brazilian draughts and
//! Kalah books are the same code.
//!
//! - [`build`]: making a book by searching from the start position (and from the
//!   most-played lines of a self-play dataset);
//! - [`player`]: a [`crate::arena::players::Player`] that plays book moves while the
//!   position is in its book and asks the player it wraps otherwise.
//!
//! Positions are found by [`Game::hash_key`] and then compared whole, so a hash collision
//! can never return another position's moves. The file form is [`crate::io::book`].

pub mod build;
pub mod player;

use std::collections::BTreeMap;
use std::path::Path;

use rand::RngExt;

use crate::game::Game;
use crate::io::book::{self as file, BookError, EntryFrame, MoveFrame};
use crate::rng;
use crate::search::INFINITY;

/// Keeps the streams that order book openings apart from the game streams of a seed.
const OPENING_STREAM: u64 = 0x626F_6F6B_6F70_656E;

/// One sound move of a book position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BookMove<G: Game> {
    pub mv: G::Move,
    /// The search's value of the move for the side to move, in centi-units (or a win or
    /// loss score, [`crate::search::WIN`]).
    pub score: i32,
    /// Relative frequency with which [`Book::choose`] picks it (≥ 1).
    pub weight: u32,
}

#[derive(Clone, Debug)]
struct Entry<G: Game> {
    position: G,
    moves: Vec<BookMove<G>>,
}

/// An opening book of one game variant.
#[derive(Clone, Debug)]
pub struct Book<G: Game> {
    variant: G::Variant,
    /// How the book was built, in words (kept in the file for `book info`).
    info: String,
    /// Keyed by hash, so iteration (lines, files) is in a fixed order.
    entries: BTreeMap<u64, Entry<G>>,
}

impl<G: Game> Book<G> {
    /// An empty book of `variant`.
    pub fn new(variant: G::Variant, info: impl Into<String>) -> Self {
        Book {
            variant,
            info: info.into(),
            entries: BTreeMap::new(),
        }
    }

    pub fn variant(&self) -> G::Variant {
        self.variant
    }

    /// How the book was built.
    pub fn info(&self) -> &str {
        &self.info
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every position with its moves, in hash-key order.
    pub fn positions(&self) -> impl Iterator<Item = (&G, &[BookMove<G>])> {
        self.entries
            .values()
            .map(|e| (&e.position, e.moves.as_slice()))
    }

    /// The book position colliding with `pos`'s hash key, if it is another position.
    pub fn collides(&self, pos: &G) -> bool {
        self.entries
            .get(&pos.hash_key())
            .is_some_and(|e| e.position != *pos)
    }

    /// Adds a position with its sound moves. Refused: a position of another variant, no
    /// moves, a move that is not legal or given twice, a weight of 0, a score beyond any
    /// search score, a position already in the book, or one whose hash key a different
    /// book position has.
    pub fn insert(&mut self, position: G, moves: Vec<BookMove<G>>) -> Result<(), String> {
        let at = || position.format_position();
        if position.variant() != self.variant {
            return Err(format!(
                "{} is a position of {}, the book is of {}",
                at(),
                G::variant_name(position.variant()),
                G::variant_name(self.variant)
            ));
        }
        if moves.is_empty() {
            return Err(format!("{} has no book move", at()));
        }
        let mut legal = G::Moves::default();
        position.legal_moves(&mut legal);
        for (i, m) in moves.iter().enumerate() {
            if !legal.contains(&m.mv) {
                return Err(format!("a book move of {} is not legal", at()));
            }
            if moves[..i].iter().any(|o| o.mv == m.mv) {
                return Err(format!(
                    "{} has the book move {} twice",
                    at(),
                    position.format_move(m.mv)
                ));
            }
            if m.weight == 0 {
                return Err(format!(
                    "book move {} of {} has weight 0",
                    position.format_move(m.mv),
                    at()
                ));
            }
            if m.score.abs() > INFINITY {
                return Err(format!(
                    "book move {} of {} has the impossible score {}",
                    position.format_move(m.mv),
                    at(),
                    m.score
                ));
            }
        }
        let key = position.hash_key();
        if let Some(old) = self.entries.get(&key) {
            return Err(if old.position == position {
                format!("{} is in the book twice", at())
            } else {
                format!(
                    "{} and {} share a hash key",
                    at(),
                    old.position.format_position()
                )
            });
        }
        self.entries.insert(key, Entry { position, moves });
        Ok(())
    }

    /// The sound moves of `pos`, best first, if it is in the book.
    pub fn probe(&self, pos: &G) -> Option<&[BookMove<G>]> {
        self.entries
            .get(&pos.hash_key())
            .filter(|e| e.position == *pos)
            .map(|e| e.moves.as_slice())
    }

    /// A book move of `pos` drawn from `rng` with probability proportional to its
    /// weight; `None` if `pos` is not in the book.
    pub fn choose(&self, pos: &G, rng: &mut impl RngExt) -> Option<G::Move> {
        let moves = self.probe(pos)?;
        let total: u64 = moves.iter().map(|m| u64::from(m.weight)).sum();
        let mut draw = rng.random_range(0..total);
        for m in moves {
            if draw < u64::from(m.weight) {
                return Some(m.mv);
            }
            draw -= u64::from(m.weight);
        }
        moves.last().map(|m| m.mv)
    }

    /// The distinct positions reached from the start by `plies` book moves, or where a
    /// line leaves the book earlier (a position the book has no moves for), in hash-key
    /// order. Finished games are left out.
    pub fn lines(&self, plies: u32) -> Vec<G> {
        let mut level: BTreeMap<u64, G> = BTreeMap::new();
        let start = G::start_of(self.variant);
        level.insert(start.hash_key(), start);
        for _ in 0..plies {
            let mut next = BTreeMap::new();
            for pos in level.values() {
                match self.probe(pos) {
                    Some(moves) => {
                        for m in moves {
                            let child = pos.play(m.mv);
                            if child.has_legal_move() {
                                next.insert(child.hash_key(), child);
                            }
                        }
                    }
                    None => {
                        next.insert(pos.hash_key(), *pos);
                    }
                }
            }
            level = next;
        }
        level.into_values().collect()
    }

    /// Openings for a match: the [`Book::lines`] of `plies` plies in an order shuffled
    /// by `seed`, at most `count` of them (a match with more pairs uses them in turn).
    pub fn openings(&self, count: usize, plies: u32, seed: u64) -> Vec<G> {
        let mut lines = self.lines(plies);
        let mut rng = rng::stream(seed ^ OPENING_STREAM, 0);
        for i in (1..lines.len()).rev() {
            lines.swap(i, rng.random_range(0..=i));
        }
        lines.truncate(count.max(1));
        lines
    }

    /// Book positions by their distance from the start along book moves: element `p`
    /// counts the positions first reached after `p` plies. Positions no book line
    /// reaches are not counted.
    pub fn reachable_by_ply(&self) -> Vec<usize> {
        let mut counts = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let start = G::start_of(self.variant);
        let mut level = vec![start];
        seen.insert(start);
        while !level.is_empty() {
            let mut next = Vec::new();
            let mut in_book = 0;
            for pos in &level {
                if let Some(moves) = self.probe(pos) {
                    in_book += 1;
                    for m in moves {
                        let child = pos.play(m.mv);
                        if seen.insert(child) {
                            next.push(child);
                        }
                    }
                }
            }
            if in_book == 0 {
                break;
            }
            counts.push(in_book);
            level = next;
        }
        counts
    }

    /// The book in file form.
    pub fn to_frames(&self) -> Vec<EntryFrame<G>> {
        self.entries
            .values()
            .map(|e| EntryFrame {
                position: e.position.pack(),
                moves: e
                    .moves
                    .iter()
                    .map(|m| MoveFrame {
                        mv: e.position.pack_move(m.mv),
                        score: m.score,
                        weight: m.weight,
                    })
                    .collect(),
            })
            .collect()
    }

    /// A book from its file form, every entry checked as [`Book::insert`] does; `path`
    /// names the file in errors.
    pub fn from_frames(
        variant: G::Variant,
        info: String,
        frames: &[EntryFrame<G>],
        path: &Path,
    ) -> Result<Book<G>, BookError> {
        let mut book = Book::new(variant, info);
        for (i, frame) in frames.iter().enumerate() {
            let invalid = |problem: String| BookError::Invalid {
                path: path.to_path_buf(),
                problem: format!("position {} of {}: {problem}", i + 1, frames.len()),
            };
            let position = G::unpack(&frame.position).map_err(invalid)?;
            let moves = frame
                .moves
                .iter()
                .map(|m| {
                    Ok(BookMove {
                        mv: position.unpack_move(&m.mv)?,
                        score: m.score,
                        weight: m.weight,
                    })
                })
                .collect::<Result<Vec<_>, String>>()
                .map_err(invalid)?;
            book.insert(position, moves).map_err(invalid)?;
        }
        Ok(book)
    }

    /// Reads and checks the book file at `path`, which must be a book of `variant`.
    pub fn read(path: &Path, variant: G::Variant) -> Result<Book<G>, BookError> {
        let (header, frames) = file::read::<G>(path, &G::variant_name(variant))?;
        Book::from_frames(variant, header.info, &frames, path)
    }

    /// Writes the book to `path`, atomically.
    pub fn write(&self, path: &Path) -> Result<(), BookError> {
        file::write(
            path,
            &G::variant_name(self.variant),
            &self.info,
            &self.to_frames(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::MoveList;
    use crate::games::brazilian::Brazilian;

    /// A book of the start (its first two moves) and of the position after the first.
    fn small_book() -> Book<Brazilian> {
        let start = Brazilian::start();
        let mut moves = MoveList::new();
        start.legal_moves(&mut moves);
        let mut book = Book::new((), "test");
        book.insert(
            start,
            vec![
                BookMove {
                    mv: moves[0],
                    score: 10,
                    weight: 3,
                },
                BookMove {
                    mv: moves[1],
                    score: 5,
                    weight: 1,
                },
            ],
        )
        .unwrap();
        let after = start.play(moves[0]);
        let mut replies = MoveList::new();
        after.legal_moves(&mut replies);
        book.insert(
            after,
            vec![BookMove {
                mv: replies[0],
                score: -10,
                weight: 1,
            }],
        )
        .unwrap();
        book
    }

    #[test]
    fn probe_finds_only_the_same_position() {
        let book = small_book();
        let start = Brazilian::start();
        assert_eq!(book.probe(&start).unwrap().len(), 2);
        let mut moves = MoveList::new();
        start.legal_moves(&mut moves);
        assert!(book.probe(&start.play(moves[0])).is_some());
        assert!(book.probe(&start.play(moves[2])).is_none());
        assert!(!book.collides(&start));
    }

    #[test]
    fn choose_follows_the_weights_and_the_stream() {
        let book = small_book();
        let start = Brazilian::start();
        let first = book.probe(&start).unwrap()[0].mv;
        let mut rng = rng::stream(5, 0);
        let picks: Vec<_> = (0..4000)
            .map(|_| book.choose(&start, &mut rng).unwrap())
            .collect();
        let share = picks.iter().filter(|&&m| m == first).count() as f64 / 4000.0;
        assert!((share - 0.75).abs() < 0.03, "{share}");
        let mut again = rng::stream(5, 0);
        assert_eq!(book.choose(&start, &mut again), Some(picks[0]));
        let mut moves = MoveList::new();
        start.legal_moves(&mut moves);
        assert_eq!(book.choose(&start.play(moves[3]), &mut again), None);
    }

    #[test]
    fn insert_refuses_bad_entries() {
        let mut book = small_book();
        let start = Brazilian::start();
        let mut moves = MoveList::new();
        start.legal_moves(&mut moves);
        let good = BookMove {
            mv: moves[0],
            score: 0,
            weight: 1,
        };
        assert!(
            book.insert(start, vec![good])
                .unwrap_err()
                .contains("twice")
        );
        let other = start.play(moves[2]);
        assert!(
            book.insert(other, vec![])
                .unwrap_err()
                .contains("no book move")
        );
        assert!(
            book.insert(other, vec![good])
                .unwrap_err()
                .contains("not legal")
        );
        let mut replies = MoveList::new();
        other.legal_moves(&mut replies);
        let reply = BookMove {
            mv: replies[0],
            score: 0,
            weight: 1,
        };
        assert!(
            book.insert(other, vec![reply, reply])
                .unwrap_err()
                .contains("twice")
        );
        let zero = BookMove { weight: 0, ..reply };
        assert!(
            book.insert(other, vec![zero])
                .unwrap_err()
                .contains("weight 0")
        );
        assert_eq!(book.len(), 2);
        book.insert(other, vec![reply]).unwrap();
        assert_eq!(book.len(), 3);
    }

    #[test]
    fn lines_follow_book_moves_and_stop_where_the_book_ends() {
        let book = small_book();
        assert_eq!(book.lines(0), vec![Brazilian::start()]);
        assert_eq!(book.lines(1).len(), 2);
        // One line goes on with the book's reply, the other left the book after a ply.
        let two = book.lines(2);
        assert_eq!(two.len(), 2);
        assert_eq!(book.reachable_by_ply(), vec![1, 1]);
        let openings = book.openings(10, 2, 7);
        assert_eq!(openings.len(), 2);
        let mut sorted = openings.clone();
        sorted.sort_by_key(|p| p.hash_key());
        assert_eq!(sorted, two);
        assert_eq!(book.openings(1, 2, 7).len(), 1);
        assert_eq!(book.openings(10, 2, 7), openings);
    }

    #[test]
    fn frames_round_trip() {
        let book = small_book();
        let frames = book.to_frames();
        let back =
            Book::<Brazilian>::from_frames((), "test".into(), &frames, Path::new("b")).unwrap();
        assert_eq!(back.to_frames(), frames);
        let mut bad = frames.clone();
        bad.push(bad[0].clone());
        let err = Book::<Brazilian>::from_frames((), String::new(), &bad, Path::new("b.book"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("b.book") && err.contains("position 3 of 3"),
            "{err}"
        );
    }
}
