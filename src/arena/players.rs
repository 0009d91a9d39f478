//! Who plays a match: a [`Contender`] (an evaluator, an external engine) makes one
//! [`Player`] per worker thread — a searcher with its own tables, an engine process.

use std::sync::Arc;

use crate::eval::Evaluator;
use crate::game::{Game, GameRecord};
use crate::search::{Limits, SearchConfig, SearchResult, Searcher, Tablebase};

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

/// A protocol through which external engines play a game (Brazilian draughts: Hub),
/// both ways: evalearn as an engine (a subcommand of the protocol's name) and other
/// engines as match players. A game without one keeps the defaults.
pub trait EngineProtocol: Game {
    /// The protocol's name (`Hub`) and the subcommand serving a model through it
    /// (`hub`), if the game has one.
    const PROTOCOL: Option<(&'static str, &'static str)> = None;

    /// Starts the external engine `command` as a player of this game.
    fn external_player(command: &str) -> Result<Box<dyn Player<Self>>, String> {
        Err(format!(
            "{command}: {} has no external-engine protocol",
            Self::NAME
        ))
    }
}

/// One side of a match, shared by the workers; each makes its own player.
pub trait Contender<G: Game>: Sync {
    type Player: Player<G>;

    /// A player whose search (if it has one) uses a table of `tt_mib` MiB.
    fn player(&self, tt_mib: usize) -> Result<Self::Player, String>;
}

/// The engine's search with an evaluator and, if given, an endgame database shared by
/// every player made from it.
#[derive(Clone)]
pub struct Engine<G: Game, E> {
    pub evaluator: E,
    pub tablebase: Option<Arc<dyn Tablebase<G>>>,
    /// The search's enhancements ([`SearchConfig::FULL`] unless changed).
    pub search: SearchConfig,
    /// Threads of each search (1 unless changed), sharing the player's table.
    pub threads: usize,
}

impl<G: Game, E: Evaluator<G>> Engine<G, E> {
    pub fn new(evaluator: E, tablebase: Option<Arc<dyn Tablebase<G>>>) -> Self {
        Engine {
            evaluator,
            tablebase,
            search: SearchConfig::FULL,
            threads: 1,
        }
    }

    /// The same engine searching with `search`.
    pub fn with_search(self, search: SearchConfig) -> Self {
        Engine { search, ..self }
    }

    /// The same engine searching on `threads` threads (see [`Searcher::with_threads`]).
    pub fn with_threads(self, threads: usize) -> Self {
        Engine { threads, ..self }
    }
}

impl<G: Game, E: Evaluator<G> + Clone + Sync> Contender<G> for Engine<G, E> {
    type Player = Searcher<G, E>;

    fn player(&self, tt_mib: usize) -> Result<Searcher<G, E>, String> {
        Ok(Searcher::new(self.evaluator.clone(), self.search, tt_mib)
            .with_tablebase(self.tablebase.clone())
            .with_threads(self.threads))
    }
}
