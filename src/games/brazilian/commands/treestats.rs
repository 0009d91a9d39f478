//! `evalearn treestats`: the experiment of table 6.2 of Beling's master's thesis.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::CliError;
use crate::games::brazilian::Brazilian;
use crate::games::brazilian::treestats::{self, Cell, thesis_figure};
use crate::search::SearchConfig;
use crate::search::SharedTablebase;

/// Deepest depth accepted (plain alpha-beta at 14 already takes ~1 s a position).
const MAX_DEPTH: u32 = 20;

#[derive(Args, Debug)]
pub struct TreeStatsArgs {
    /// Number of random positions (Beling's master's thesis used 8750 = 250 for each of 6..40 plies)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    positions: u64,
    /// Search depths, comma-separated (Beling's thesis: 6,10,14)
    #[arg(long, value_delimiter = ',', required = true, value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    depths: Vec<u32>,
    /// Seed of the random positions
    #[arg(long)]
    seed: u64,
    /// Algorithms, comma-separated: ab, ab+id, ab+tt, ab+id+tt, pvs, pvs+id+tt,
    /// pvs+asp+tt, mtdf, full (default: all)
    #[arg(long, value_delimiter = ',')]
    algos: Vec<String>,
    /// Use only this many positions (the first ones, still spread over all ply counts)
    /// for the algorithms without a transposition table at depth 12 and more
    #[arg(long)]
    slow_positions: Option<u64>,
    /// Transposition table per search, in MiB (32 MiB = 2^21 entries, the count of Beling's thesis, so its figures are comparable)
    #[arg(long = "tt-mb", default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..=4096))]
    tt_mb: u64,
    /// Worker threads (default: all cores); the results do not depend on it
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
    /// Endgame positions instead of those of Beling's thesis: random games stopped at their first
    /// position with MIN..MAX pieces, at most one piece apart (e.g. 6-8)
    #[arg(long, value_parser = parse_piece_range)]
    pieces: Option<RangeInclusive<u32>>,
    /// Also measure each algorithm probing this endgame database (rows `ALGO+egdb`)
    #[arg(long)]
    egdb: Option<PathBuf>,
    /// Also write the table as JSON {algo: {depth: mean main-search nodes}}
    #[arg(long)]
    json: Option<PathBuf>,
    /// Replace an existing --json file
    #[arg(long)]
    force: bool,
}

/// Most pieces of a `--pieces` range (the start position has 24).
const MAX_RANGE_PIECES: u32 = 24;

fn parse_piece_range(text: &str) -> Result<RangeInclusive<u32>, String> {
    let bad =
        || format!("expected MIN-MAX pieces with 2 <= MIN <= MAX <= {MAX_RANGE_PIECES}, e.g. 6-8");
    let (low, high) = text.split_once('-').unwrap_or((text, text));
    let low: u32 = low.trim().parse().map_err(|_| bad())?;
    let high: u32 = high.trim().parse().map_err(|_| bad())?;
    if !(2 <= low && low <= high && high <= MAX_RANGE_PIECES) {
        return Err(bad());
    }
    Ok(low..=high)
}

fn with_commas(x: f64) -> String {
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One row of the table: an algorithm, alone or probing the endgame database.
type Row<'a> = (String, SearchConfig, Option<&'a SharedTablebase<Brazilian>>);

pub fn run(args: TreeStatsArgs) -> Result<(), CliError> {
    if let Some(path) = &args.json {
        crate::cli::args::check_new_output("--json", path, args.force)?;
    }
    let algos = algorithms(&args)?;
    let tablebase = database(&args)?;
    // Each algorithm, then (with --egdb) the same probing the database.
    let rows: Vec<Row> = algos
        .iter()
        .flat_map(|(name, config)| {
            let with = tablebase
                .as_ref()
                .map(|tb| (format!("{name}+egdb"), *config, Some(tb)));
            std::iter::once((name.clone(), *config, None)).chain(with)
        })
        .collect();
    let mut depths = args.depths.clone();
    depths.sort_unstable();
    depths.dedup();
    let positions = match &args.pieces {
        Some(range) => {
            treestats::random_endgame_positions(args.positions as usize, args.seed, range.clone())
        }
        None => treestats::random_positions(args.positions as usize, args.seed),
    };
    let table = measure_all(&args, &rows, &depths, &positions)?;
    print_tables(&args, &rows, &depths, positions.len(), &table);
    if let Some(path) = &args.json {
        let mut json = serde_json::Map::new();
        for (a, (name, _, _)) in rows.iter().enumerate() {
            let mut row = serde_json::Map::new();
            for &d in &depths {
                row.insert(d.to_string(), serde_json::json!(table[&(a, d)].main));
            }
            json.insert(name.clone(), serde_json::Value::Object(row));
        }
        let text = serde_json::to_string_pretty(&json).expect("a map of numbers serialises");
        crate::cli::args::write_output("--json", path, text.as_bytes())?;
    }
    Ok(())
}

/// The algorithms of `--algos` (all by default), with their configurations.
fn algorithms(args: &TreeStatsArgs) -> Result<Vec<(String, SearchConfig)>, CliError> {
    if args.algos.is_empty() {
        return Ok(SearchConfig::NAMED
            .iter()
            .map(|(n, c)| (n.to_string(), *c))
            .collect());
    }
    let mut list = Vec::new();
    for name in &args.algos {
        let (_, config) =
            SearchConfig::by_name(name).map_err(|e| CliError::input(format!("--algos: {e}")))?;
        list.push((name.clone(), config));
    }
    Ok(list)
}

/// The endgame database of `--egdb`, which must hold a usable slice.
fn database(args: &TreeStatsArgs) -> Result<Option<SharedTablebase<Brazilian>>, CliError> {
    let Some(dir) = &args.egdb else {
        return Ok(None);
    };
    let option = crate::cli::egdb::EgdbOption {
        egdb: Some(dir.clone()),
        no_egdb: false,
    };
    let tablebase = option.load::<Brazilian>()?.ok_or_else(|| {
        CliError::input(format!(
            "--egdb {}: no usable database slice",
            dir.display()
        ))
    })?;
    Ok(Some(tablebase))
}

/// Every row at every depth, on the worker pool, with a progress bar.
fn measure_all(
    args: &TreeStatsArgs,
    rows: &[Row],
    depths: &[u32],
    positions: &[Brazilian],
) -> Result<BTreeMap<(usize, u32), Cell>, CliError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0) as usize)
        .build()
        .map_err(|e| CliError::failure(format!("cannot start worker threads: {e}")))?;
    let slow = |config: &SearchConfig, depth: u32| !config.transposition_table && depth >= 12;
    let used = |config: &SearchConfig, depth: u32| match args.slow_positions {
        Some(n) if slow(config, depth) => (n as usize).min(positions.len()),
        _ => positions.len(),
    };
    let work: u64 = rows
        .iter()
        .flat_map(|(_, c, _)| depths.iter().map(move |&d| (c, d)))
        .map(|(c, d)| used(c, d) as u64)
        .sum();
    let bar = ProgressBar::new(work).with_style(
        ProgressStyle::with_template(
            "{msg:>18} [{bar:40}] {pos}/{len} searches, {elapsed} elapsed, eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let mut table: BTreeMap<(usize, u32), Cell> = BTreeMap::new();
    for (a, (name, config, tablebase)) in rows.iter().enumerate() {
        for &depth in depths {
            bar.set_message(format!("{name} depth {depth}"));
            let subset = &positions[..used(config, depth)];
            let cell = pool.install(|| {
                treestats::measure(
                    subset,
                    *config,
                    depth,
                    args.tt_mb as usize,
                    *tablebase,
                    &|| bar.inc(1),
                )
            });
            table.insert((a, depth), cell);
        }
    }
    bar.finish_and_clear();
    Ok(table)
}

/// The two tables (main-search nodes beside the thesis's, and with quiescence) and the
/// full search's target.
fn print_tables(
    args: &TreeStatsArgs,
    rows: &[Row],
    depths: &[u32],
    positions: usize,
    table: &BTreeMap<(usize, u32), Cell>,
) {
    let source = match &args.pieces {
        Some(range) => format!(
            "first positions of random games with {}..{} pieces, at most one apart",
            range.start(),
            range.end()
        ),
        None => "6..40 random plies".to_string(),
    };
    println!(
        "treestats: {positions} random positions ({source}, seed {}), material evaluation, \
         quiescence on, {} MiB table",
        args.seed, args.tt_mb
    );
    for (title, main) in [
        (
            "mean nodes per position, main search (the count of Beling's master's thesis) [its table 6.2]",
            true,
        ),
        ("mean nodes per position, main search + quiescence", false),
    ] {
        println!("\n{title}");
        let mut header = format!("{:<16}", "algorithm");
        for d in depths {
            header.push_str(&format!(" {:>30}", format!("depth {d}")));
        }
        println!("{header}");
        for (a, (name, _, _)) in rows.iter().enumerate() {
            let mut line = format!("{name:<16}");
            for &d in depths {
                let cell = table[&(a, d)];
                let value = if main { cell.main } else { cell.total };
                let mut text = with_commas(value);
                if main
                    && args.pieces.is_none()
                    && let Some(thesis) = thesis_figure(name, d)
                {
                    text.push_str(&format!(" [{}]", with_commas(thesis as f64)));
                }
                if cell.positions != positions {
                    text.push_str(&format!(" n={}", cell.positions));
                }
                line.push_str(&format!(" {text:>30}"));
            }
            println!("{line}");
        }
    }
    let target: Vec<String> = depths
        .iter()
        .filter_map(|&d| {
            thesis_figure("pvs+asp+tt", d)
                .map(|t| format!("depth {d}: {}", with_commas(t as f64 * 0.75)))
        })
        .collect();
    if !target.is_empty() && args.pieces.is_none() {
        println!(
            "\n75% of Beling's thesis's PVS + AspWin + TT (the full search's target): {}",
            target.join(", ")
        );
    }
}
