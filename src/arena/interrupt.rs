//! Stopping a match from outside (Ctrl-C): once the flag is raised, every player's search
//! stops at its next node check and the player then fails with [`INTERRUPTED`], so the
//! games in progress end at once and are not counted, and no new game starts.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::players::{Contender, Player};
use crate::game::{Game, GameRecord};
use crate::search::{Limits, SearchResult};

/// The error of a player stopped by the flag.
pub const INTERRUPTED: &str = "interrupted";

/// A match side whose players stop when `stop` is raised.
pub struct Interruptible<C> {
    pub inner: C,
    pub stop: Arc<AtomicBool>,
}

impl<G: Game, C: Contender<G>> Contender<G> for Interruptible<C> {
    type Player = InterruptiblePlayer<C::Player>;

    fn player(&self, tt_mib: usize) -> Result<Self::Player, String> {
        Ok(InterruptiblePlayer {
            inner: self.inner.player(tt_mib)?,
            stop: Arc::clone(&self.stop),
        })
    }
}

/// A player of an [`Interruptible`] side.
pub struct InterruptiblePlayer<P> {
    inner: P,
    stop: Arc<AtomicBool>,
}

impl<P> InterruptiblePlayer<P> {
    fn check(&self) -> Result<(), String> {
        if self.stop.load(Ordering::SeqCst) {
            Err(INTERRUPTED.to_string())
        } else {
            Ok(())
        }
    }
}

impl<G: Game, P: Player<G>> Player<G> for InterruptiblePlayer<P> {
    fn new_game(&mut self) -> Result<(), String> {
        self.check()?;
        self.inner.new_game()
    }

    fn start_game(&mut self, index: u64) -> Result<(), String> {
        self.check()?;
        self.inner.start_game(index)
    }

    fn think(
        &mut self,
        record: &GameRecord<G>,
        limits: &Limits,
    ) -> Result<SearchResult<G>, String> {
        self.check()?;
        let limits = Limits {
            stop: Some(Arc::clone(&self.stop)),
            ..limits.clone()
        };
        let result = self.inner.think(record, &limits)?;
        // A search cut short by the flag chose its move on too little: the game ends here.
        self.check()?;
        Ok(result)
    }
}
