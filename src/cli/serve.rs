//! `evalearn serve`: the browser front end on a local address (see `crate::web` and
//! docs/web.md).

use std::io::ErrorKind;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::CliError;
use super::args::search_threads;
use super::egdb::EgdbOption;
use super::games::Games;
use crate::search::MAX_PLY;
use crate::search::time::RealClock;
use crate::web::{App, Config, Server};

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on; anything but 127.0.0.1 (or ::1) lets other machines in
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// Port to listen on (0: any free port, printed on start)
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Folder of model files (*.bin) to play against
    #[arg(long)]
    models: Option<PathBuf>,
    /// Folder of training runs (NAME.metrics.jsonl beside NAME.bin) and game files to
    /// replay
    #[arg(long)]
    runs: Option<PathBuf>,
    /// Most live games at once
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=256))]
    max_games: u64,
    /// Deepest search a page may ask for
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    max_depth: u32,
    /// Longest search in seconds, whatever the page asks
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    max_seconds: u64,
    /// Minutes after which a game nobody looks at is dropped
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=10_080))]
    idle_minutes: u64,
    /// Transposition table of each live game's engine, in MiB (less than play's 64:
    /// up to --max-games tables are held at once)
    #[arg(long = "tt-mb", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=1024))]
    tt_mb: u64,
    /// Threads of each live game's search (1 to the threads the machine runs at once;
    /// games thinking at the same time share the cores)
    #[arg(long, default_value = "1", value_parser = search_threads)]
    threads: usize,
    #[command(flatten)]
    egdb: EgdbOption,
}

pub fn serve(games: &Games, args: ServeArgs) -> Result<(), CliError> {
    for (flag, dir) in [("--models", &args.models), ("--runs", &args.runs)] {
        if let Some(dir) = dir
            && !dir.is_dir()
        {
            return Err(CliError::input(format!(
                "{flag} {}: not a folder",
                dir.display()
            )));
        }
    }
    let config = Config {
        models: args.models,
        runs: args.runs,
        max_games: args.max_games as usize,
        max_depth: args.max_depth,
        max_movetime: Duration::from_secs(args.max_seconds),
        idle_timeout: Duration::from_secs(args.idle_minutes * 60),
        tt_mib: args.tt_mb as usize,
        threads: args.threads,
        tablebases: games.tablebases(&args.egdb)?,
        ..Config::default()
    };
    let address = SocketAddr::new(args.host, args.port);
    let listener = std::net::TcpListener::bind(address).map_err(|e| {
        let message = format!("cannot listen on {address}: {e}");
        // A port in use or not ours to take is the user's to change, like other bad input.
        match e.kind() {
            ErrorKind::AddrInUse | ErrorKind::AddrNotAvailable | ErrorKind::PermissionDenied => {
                CliError::input(format!(
                    "{message}; pick another with --port N (or --host ADDRESS)"
                ))
            }
            _ => CliError::failure(message),
        }
    })?;
    let app = App::new(games.web(), config, Arc::new(RealClock::new()));
    let server = Server::start(app, listener)
        .map_err(|e| CliError::failure(format!("cannot start the server: {e}")))?;
    let bound = server.addr();
    if !args.host.is_loopback() {
        println!(
            "warning: listening on {bound}, not only on this machine: anyone who can reach \
             it can play and read the files of --models and --runs"
        );
    }
    let shown = match bound.ip() {
        ip if ip.is_unspecified() => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), bound.port()),
        _ => bound,
    };
    println!("evalearn serve: open http://{shown}/ (Ctrl-C stops)");
    server
        .wait()
        .map_err(|e| CliError::failure(format!("the server stopped: {e}")))
}
