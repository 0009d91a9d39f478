//! Playing from a book in engine games: [`BookPlayer`] answers from its book while the
//! position is in it (a move drawn by weight, instantly) and hands every other position
//! to the player it wraps; [`BookContender`] gives one to each match worker.

use std::sync::Arc;
use std::time::Duration;

use super::Book;
use crate::arena::players::{Contender, Player};
use crate::game::{Game, GameRecord};
use crate::rng::{self, Rng};
use crate::search::{Limits, NodeCounts, SearchResult};

/// The search result that stands for a book move: its book value, depth 0, no nodes,
/// and the position's book moves as root values.
pub fn book_result<G: Game>(book: &Book<G>, pos: &G, mv: G::Move) -> SearchResult<G> {
    let moves = book.probe(pos).unwrap_or(&[]);
    SearchResult {
        exact: None,
        best_move: Some(mv),
        score: moves.iter().find(|m| m.mv == mv).map_or(0, |m| m.score),
        depth: 0,
        pv: vec![mv],
        nodes: NodeCounts::default(),
        elapsed: Duration::ZERO,
        stopped: false,
        root_values: moves.iter().map(|m| (m.mv, m.score)).collect(),
    }
}

/// A player that plays from `book` while it can. Its choices come from the stream
/// (`seed` ^ `domain`, game index), set by [`Player::start_game`].
pub struct BookPlayer<G: Game, P: Player<G>> {
    inner: P,
    book: Option<Arc<Book<G>>>,
    seed: u64,
    rng: Rng,
}

impl<G: Game, P: Player<G>> BookPlayer<G, P> {
    /// `inner` with `book` (none: `inner` alone); `seed` already holds the stream domain.
    pub fn new(inner: P, book: Option<Arc<Book<G>>>, seed: u64) -> Self {
        BookPlayer {
            inner,
            book,
            seed,
            rng: rng::stream(seed, 0),
        }
    }
}

impl<G: Game, P: Player<G>> Player<G> for BookPlayer<G, P> {
    fn new_game(&mut self) -> Result<(), String> {
        self.inner.new_game()
    }

    fn start_game(&mut self, index: u64) -> Result<(), String> {
        self.rng = rng::stream(self.seed, index);
        self.inner.start_game(index)
    }

    fn think(
        &mut self,
        record: &GameRecord<G>,
        limits: &Limits,
    ) -> Result<SearchResult<G>, String> {
        let pos = record.position();
        if let Some(book) = &self.book
            && let Some(mv) = book.choose(pos, &mut self.rng)
        {
            return Ok(book_result(book, pos, mv));
        }
        self.inner.think(record, limits)
    }
}

/// A match side that plays from a book (when it has one) before its own moves.
pub struct BookContender<G: Game, C: Contender<G>> {
    pub inner: C,
    pub book: Option<Arc<Book<G>>>,
    /// The match seed mixed with a constant of this side, so the two sides' choices are
    /// drawn from different streams.
    pub seed: u64,
}

impl<G: Game, C: Contender<G>> Contender<G> for BookContender<G, C> {
    type Player = BookPlayer<G, C::Player>;

    fn player(&self, tt_mib: usize) -> Result<Self::Player, String> {
        Ok(BookPlayer::new(
            self.inner.player(tt_mib)?,
            self.book.clone(),
            self.seed,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::BookMove;
    use crate::game::MoveList;
    use crate::games::brazilian::Brazilian;
    use crate::games::brazilian::Material;
    use crate::search::{SearchConfig, Searcher};

    #[test]
    fn plays_the_book_then_searches() {
        let start = Brazilian::start();
        let mut moves = MoveList::new();
        start.legal_moves(&mut moves);
        let mut book = Book::new((), "");
        let entry: Vec<_> = [2, 4]
            .iter()
            .map(|&i| BookMove {
                mv: moves[i],
                score: 7,
                weight: 1,
            })
            .collect();
        book.insert(start, entry).unwrap();
        let searcher = Searcher::new(Material, SearchConfig::FULL, 1);
        let mut player = BookPlayer::new(searcher, Some(Arc::new(book)), 3);
        let limits = Limits::depth(2);
        let mut record = GameRecord::new(start);
        let mut seen = Vec::new();
        for game in 0..20 {
            player.start_game(game).unwrap();
            let result = player.think(&record, &limits).unwrap();
            assert_eq!((result.depth, result.score), (0, 7));
            seen.push(result.best_move.unwrap());
        }
        assert!(
            seen.contains(&moves[2]) && seen.contains(&moves[4]),
            "{seen:?}"
        );
        // The same game index draws the same move.
        player.start_game(5).unwrap();
        assert_eq!(
            player.think(&record, &limits).unwrap().best_move,
            Some(seen[5])
        );
        // Out of the book, the wrapped searcher answers.
        record.play(moves[2]);
        let result = player.think(&record, &limits).unwrap();
        assert_eq!(result.depth, 2);
        assert!(result.nodes.total() > 0);
    }
}
