//! The live games: each in a slot with its search (at most one), its watchers and the
//! last time anyone asked about it; every change publishes a new snapshot of its state,
//! which event streams and waiting requests receive.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;

use super::live::LiveGame;

/// A game's state as JSON, with its version (every change increments it).
#[derive(Clone, Debug)]
pub(super) struct Snapshot {
    pub version: u64,
    pub json: Arc<str>,
}

/// A search in progress.
pub(super) struct Running {
    pub stop: Arc<AtomicBool>,
    pub hint: bool,
    /// The last finished iteration, as the page shows it.
    pub info: Option<Value>,
}

pub(super) struct Slot {
    pub game: Box<dyn LiveGame>,
    pub last_seen: Duration,
    /// Open event streams: a watched game is never idle.
    pub watchers: usize,
    pub search: Option<Running>,
    version: u64,
    snapshot: watch::Sender<Snapshot>,
}

impl Slot {
    pub fn new(game: Box<dyn LiveGame>, now: Duration) -> Slot {
        let (snapshot, _) = watch::channel(Snapshot {
            version: 0,
            json: Arc::from("{}"),
        });
        Slot {
            game,
            last_seen: now,
            watchers: 0,
            search: None,
            version: 0,
            snapshot,
        }
    }

    /// Makes and sends the snapshot of the game's current state.
    pub fn publish(&mut self, id: u64) -> Snapshot {
        self.version += 1;
        let mut state = self.game.state();
        if let Value::Object(fields) = &mut state {
            fields.insert("id".to_string(), json!(id.to_string()));
            fields.insert("version".to_string(), json!(self.version));
            fields.insert("thinking".to_string(), json!(self.search.is_some()));
            let search = self.search.as_ref().map(|s| {
                json!({
                    "purpose": if s.hint { "hint" } else { "move" },
                    "info": s.info,
                })
            });
            fields.insert("search".to_string(), search.unwrap_or(Value::Null));
        }
        let snapshot = Snapshot {
            version: self.version,
            json: Arc::from(state.to_string()),
        };
        self.snapshot.send_replace(snapshot.clone());
        snapshot
    }

    pub fn current(&self) -> Snapshot {
        self.snapshot.borrow().clone()
    }

    pub fn subscribe(&self) -> watch::Receiver<Snapshot> {
        self.snapshot.subscribe()
    }
}

#[derive(Default)]
pub(super) struct Table {
    slots: HashMap<u64, Slot>,
    last_id: u64,
}

impl Table {
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Adds a game and publishes its first snapshot; `None` when `capacity` games are
    /// live.
    pub fn insert(
        &mut self,
        game: Box<dyn LiveGame>,
        now: Duration,
        capacity: usize,
    ) -> Option<(u64, Snapshot)> {
        if self.slots.len() >= capacity {
            return None;
        }
        self.last_id += 1;
        let id = self.last_id;
        let mut slot = Slot::new(game, now);
        let snapshot = slot.publish(id);
        self.slots.insert(id, slot);
        Some((id, snapshot))
    }

    /// The slot of game `id`, marked as seen at `now`.
    pub fn touch(&mut self, id: u64, now: Duration) -> Option<&mut Slot> {
        let slot = self.slots.get_mut(&id)?;
        slot.last_seen = now;
        Some(slot)
    }

    /// The slot of game `id`, not marking it seen (a search reporting).
    pub fn get_mut(&mut self, id: u64) -> Option<&mut Slot> {
        self.slots.get_mut(&id)
    }

    pub fn remove(&mut self, id: u64) -> bool {
        match self.slots.remove(&id) {
            Some(slot) => {
                stop(&slot);
                true
            }
            None => false,
        }
    }

    /// Ids and states of the live games, oldest first.
    pub fn list(&self) -> Vec<(u64, Snapshot)> {
        let mut ids: Vec<u64> = self.slots.keys().copied().collect();
        ids.sort_unstable();
        ids.into_iter()
            .map(|id| (id, self.slots[&id].current()))
            .collect()
    }

    pub fn drop_idle(&mut self, now: Duration, timeout: Duration) -> usize {
        let before = self.slots.len();
        self.slots.retain(|_, slot| {
            let idle = slot.watchers == 0 && now.saturating_sub(slot.last_seen) > timeout;
            if idle {
                stop(slot);
            }
            !idle
        });
        before - self.slots.len()
    }

    pub fn stop_all(&mut self) {
        self.slots.values().for_each(stop);
    }
}

fn stop(slot: &Slot) {
    if let Some(search) = &slot.search {
        search.stop.store(true, Ordering::Relaxed);
    }
}
