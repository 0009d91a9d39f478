//! `evalearn serve`: the browser front end. A small HTTP server (axum on tokio) serves
//! the embedded page ([`assets`]) and a JSON API under `/api/` ([`api`]): games against
//! the engine in both games ([`live`], [`table`]) and the models to play ([`models`]),
//! the training runs of a folder with their metrics as they are written ([`runs`]), and
//! game files to replay.
//!
//! Bounded work: at most [`Config::max_games`] live games, one search each, every search
//! capped in depth and time and run on a blocking thread so the server keeps answering;
//! a game nobody has looked at for [`Config::idle_timeout`] (by the injectable
//! [`TimeSource`]) is dropped.

mod api;
mod assets;
mod games;
mod live;
mod models;
mod runs;
mod table;

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use crate::game::Game;
use crate::search::Tablebase;
use crate::search::time::TimeSource;

pub use api::router;
pub use games::Games;
pub(crate) use games::{GameHandle, Handle};
pub(crate) use live::{WebGame, side_key};

/// Largest request body of an upload (a game file to replay).
pub const MAX_UPLOAD_BYTES: usize = 1 << 20;
/// Largest body of any other request.
pub const MAX_BODY_BYTES: usize = 64 << 10;

/// The server's settings.
#[derive(Clone)]
pub struct Config {
    /// Folder of the model files offered to play against (`*.bin`).
    pub models: Option<PathBuf>,
    /// Folder of the training runs (`NAME.metrics.jsonl` beside `NAME.bin`) and game
    /// files to replay.
    pub runs: Option<PathBuf>,
    /// Most live games at once.
    pub max_games: usize,
    /// Deepest search a page may ask for.
    pub max_depth: u32,
    /// Longest search, whatever the page asks: depth-limited searches stop there too.
    pub max_movetime: Duration,
    /// A game nobody has asked about (and no page watches) for this long is dropped.
    pub idle_timeout: Duration,
    /// Transposition table of each game's searcher, in MiB.
    pub tt_mib: usize,
    /// Threads of each game's search (sharing its table).
    pub threads: usize,
    /// How often a watched metrics file is looked at.
    pub poll_interval: Duration,
    /// Endgame databases of the games' searchers.
    pub tablebases: Tablebases,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            models: None,
            runs: None,
            max_games: 16,
            max_depth: 30,
            max_movetime: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30 * 60),
            tt_mib: 16,
            threads: 1,
            poll_interval: Duration::from_millis(250),
            tablebases: Tablebases::default(),
        }
    }
}

/// Endgame databases of several games, each found by its game's type.
#[derive(Clone, Default)]
pub struct Tablebases {
    by_game: Vec<(&'static str, Arc<dyn std::any::Any + Send + Sync>)>,
}

impl Tablebases {
    /// Adds the database of game `G`.
    pub fn insert<G: Game>(&mut self, tablebase: Arc<dyn Tablebase<G>>) {
        self.by_game.retain(|(name, _)| *name != G::NAME);
        self.by_game.push((G::NAME, Arc::new(tablebase)));
    }

    /// The database of game `G`, if there is one.
    pub fn get<G: Game>(&self) -> Option<Arc<dyn Tablebase<G>>> {
        let (_, any) = self.by_game.iter().find(|(name, _)| *name == G::NAME)?;
        any.downcast_ref::<Arc<dyn Tablebase<G>>>().cloned()
    }
}

/// The server's shared state: settings, clock and the live games. Cheap to clone.
#[derive(Clone)]
pub struct App {
    inner: Arc<Inner>,
}

struct Inner {
    games: Games,
    config: Config,
    clock: Arc<dyn TimeSource>,
    /// The system's time when the clock started.
    started: SystemTime,
    table: Mutex<table::Table>,
}

impl App {
    /// The server of `games` (the registry's: `evalearn::games::registry::GAMES.web()`).
    pub fn new(games: Games, config: Config, clock: Arc<dyn TimeSource>) -> App {
        App {
            inner: Arc::new(Inner {
                games,
                config,
                started: SystemTime::now()
                    .checked_sub(clock.now())
                    .unwrap_or(SystemTime::UNIX_EPOCH),
                clock,
                table: Mutex::new(table::Table::default()),
            }),
        }
    }

    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    fn games(&self) -> &Games {
        &self.inner.games
    }

    fn now(&self) -> Duration {
        self.inner.clock.now()
    }

    /// The date on the server's clock, which files' ages are measured from: the
    /// system's time with the real clock; with a simulated one (tests), the start moved
    /// on only as the clock is, so an age does not depend on how fast a test runs.
    fn wall_time(&self) -> SystemTime {
        self.inner.started + self.now()
    }

    /// The game table. Held briefly: never across a search or a file read.
    fn table(&self) -> MutexGuard<'_, table::Table> {
        // Nothing panics while holding it; a poisoned lock still holds sound data.
        self.inner
            .table
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Drops the games idle for longer than [`Config::idle_timeout`] (their searches are
    /// stopped); returns how many. The server does this every few seconds and before
    /// starting a game.
    pub fn drop_idle_games(&self) -> usize {
        let now = self.now();
        self.table().drop_idle(now, self.inner.config.idle_timeout)
    }

    /// Number of live games.
    pub fn live_games(&self) -> usize {
        self.table().len()
    }

    /// Stops every running search (the server is going down).
    fn stop_searches(&self) {
        self.table().stop_all();
    }
}

/// A running server: its own thread and tokio runtime; stopped when dropped.
pub struct Server {
    addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<io::Result<()>>>,
}

impl Server {
    /// Serves `app` on `listener` (already bound) in a new thread.
    pub fn start(app: App, listener: std::net::TcpListener) -> io::Result<Server> {
        let addr = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            // Searches run on blocking threads: one per live game at most, plus file reads.
            .max_blocking_threads(app.config().max_games + 16)
            .enable_all()
            .build()?;
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("evalearn-serve".to_string())
            .spawn(move || {
                let result = runtime.block_on(async {
                    let listener = tokio::net::TcpListener::from_std(listener)?;
                    let reaper = tokio::spawn(drop_idle_games_every(app.clone(), REAP_EVERY));
                    let served = tokio::select! {
                        served = axum::serve(listener, router(app.clone())) => served,
                        _ = stopped => Ok(()),
                    };
                    reaper.abort();
                    app.stop_searches();
                    served
                });
                // Open event streams and finishing searches are not waited for.
                runtime.shutdown_background();
                result
            })?;
        Ok(Server {
            addr,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Blocks until the server stops (it only stops by itself on an I/O error).
    pub fn wait(mut self) -> io::Result<()> {
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the server thread failed"))),
            None => Ok(()),
        }
    }

    /// Stops the server and waits for its thread.
    pub fn stop(mut self) -> io::Result<()> {
        self.stop_now()
    }

    fn stop_now(&mut self) -> io::Result<()> {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the server thread failed"))),
            None => Ok(()),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.stop_now();
    }
}

/// How often the server looks for abandoned games.
const REAP_EVERY: Duration = Duration::from_secs(5);

async fn drop_idle_games_every(app: App, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        app.drop_idle_games();
    }
}
