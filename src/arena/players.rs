//! Who plays a match: a [`Contender`] (an evaluator, an external engine) makes one
//! [`Player`] per worker thread — a searcher with its own tables, an engine process.

use crate::eval::Evaluator;
use crate::game::{Game, GameRecord};
use crate::search::{Limits, SearchConfig, SearchResult, Searcher};

/// Chooses moves in games.
pub trait Player<G: Game> {
    /// A new game starts (an engine forgets the last one).
    fn new_game(&mut self) -> Result<(), String> {
        Ok(())
    }

    /// Game `index` of a run starts: players that choose at random (from a book) seed
    /// their choices from it, so a game does not depend on which worker plays it. By
    /// default [`Player::new_game`].
    fn start_game(&mut self, index: u64) -> Result<(), String> {
        let _ = index;
        self.new_game()
    }

    /// The move for the current position of `record`, with what the search found.
    fn think(&mut self, record: &GameRecord<G>, limits: &Limits)
    -> Result<SearchResult<G>, String>;
}

impl<G: Game, E: Evaluator<G>> Player<G> for Searcher<G, E> {
    fn think(
        &mut self,
        record: &GameRecord<G>,
        limits: &Limits,
    ) -> Result<SearchResult<G>, String> {
        Ok(self.search(record, limits, |_| {}))
    }
}

impl<G: Game> Player<G> for Box<dyn Player<G>> {
    fn new_game(&mut self) -> Result<(), String> {
        (**self).new_game()
    }
    fn start_game(&mut self, index: u64) -> Result<(), String> {
        (**self).start_game(index)
    }

    fn think(
        &mut self,
        record: &GameRecord<G>,
        limits: &Limits,
    ) -> Result<SearchResult<G>, String> {
        (**self).think(record, limits)
    }
}

/// One side of a match, shared by the workers; each makes its own player.
pub trait Contender<G: Game>: Sync {
    type Player: Player<G>;

    /// A player whose search (if it has one) uses a table of `tt_mib` MiB.
    fn player(&self, tt_mib: usize) -> Result<Self::Player, String>;
}

/// An evaluator plays through the engine's own search.
impl<G: Game, E: Evaluator<G> + Clone + Sync> Contender<G> for E {
    type Player = Searcher<G, E>;

    fn player(&self, tt_mib: usize) -> Result<Searcher<G, E>, String> {
        Ok(Searcher::new(self.clone(), SearchConfig::FULL, tt_mib))
    }
}
