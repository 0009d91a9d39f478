//! `evalearn hub`: Brazilian draughts over Scan's Hub protocol on stdin/stdout, for
//! GUIs, pydraughts and the lidraughts bot bridge.

use std::path::PathBuf;

use clap::Args;

use crate::cli::CliError;
use crate::cli::args::search_threads;
use crate::cli::egdb::EgdbOption;
use crate::games::brazilian::Brazilian;
use crate::games::brazilian::hub::engine::{self, Engine, MAX_HASH_MIB, MAX_OVERHEAD_MS};

#[derive(Args, Debug)]
pub struct HubArgs {
    /// Model file to play with (reloaded between moves when training rewrites it)
    #[arg(long, conflicts_with = "eval")]
    model: Option<PathBuf>,
    /// Evaluator: `material` or a model file path (default: material)
    #[arg(long)]
    eval: Option<String>,
    /// Transposition table in MiB (Hub parameter `hash`; 64, as play and analyse)
    #[arg(long = "tt-mb", default_value_t = 64,
          value_parser = clap::value_parser!(u64).range(1..=MAX_HASH_MIB as u64))]
    tt_mb: u64,
    /// Threads of each search (Hub parameter `threads`; 1 to the threads the machine
    /// runs at once)
    #[arg(long, default_value = "1", value_parser = search_threads)]
    threads: usize,
    /// Milliseconds kept back on every clock move for pipe and client latency (Hub
    /// parameter `move-overhead`)
    #[arg(long, default_value_t = 100,
          value_parser = clap::value_parser!(u64).range(0..=MAX_OVERHEAD_MS))]
    move_overhead: u64,
    #[command(flatten)]
    egdb: EgdbOption,
}

pub fn run(args: HubArgs) -> Result<(), CliError> {
    let mut options = engine::options_from_args(
        args.model,
        args.eval.as_deref(),
        args.tt_mb as usize,
        args.threads,
        args.move_overhead,
    )
    .map_err(CliError::input)?;
    (options.tablebase, options.notes) = args.egdb.open::<Brazilian>()?;
    let engine = Engine::new(options).map_err(CliError::input)?;
    let input = std::io::BufReader::new(std::io::stdin());
    // A client that went away ends the session; there is no one left to tell.
    let _ = engine.run(input, std::io::stdout());
    Ok(())
}
