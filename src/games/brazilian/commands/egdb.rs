//! `evalearn egdb`: build, probe, check and describe the Brazilian endgame database.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, Subcommand};

use crate::cli::args::typed_flag;
use crate::cli::{CliError, interrupt};
use crate::game::Game;
use crate::games::brazilian::Brazilian;
use crate::games::brazilian::egdb::{self, DEFAULT_DIR, Egdb, Material, SliceIndex, verify};
use crate::search::{EgdbGame, OpenedTablebase};
use crate::search::{Tablebase, tablebase_line};

#[derive(Args, Debug)]
pub struct EgdbArgs {
    #[command(subcommand)]
    command: EgdbCommand,
}

#[derive(Subcommand, Debug)]
enum EgdbCommand {
    /// Build the database of every position with up to N pieces by retrograde analysis
    /// (slices already built are kept: a stopped build resumes)
    Build {
        /// Most pieces, both sides together (2..=7)
        #[arg(long, value_parser = clap::value_parser!(u32).range(2..=egdb::index::MAX_PIECES as i64))]
        pieces: u32,
        /// Folder of the slice files
        #[arg(long, default_value = DEFAULT_DIR)]
        out: PathBuf,
        /// Worker threads (default: one per core)
        #[arg(long, default_value_t = 0)]
        threads: usize,
    },
    /// Print a position's value, distance to the end and best move
    Probe {
        /// Position (FEN)
        #[arg(long)]
        fen: String,
        /// Endgame database folder
        #[arg(long, visible_alias = "egdb", default_value = DEFAULT_DIR)]
        dir: PathBuf,
        /// Print moves in algebraic notation
        #[arg(long)]
        algebraic: bool,
    },
    /// Check every stored value against the values of its moves
    Verify {
        /// Endgame database folder
        #[arg(long, visible_alias = "egdb", default_value = DEFAULT_DIR)]
        dir: PathBuf,
        /// Check only the slices of up to this many pieces
        #[arg(long)]
        pieces: Option<u32>,
        #[arg(long, default_value_t = 0)]
        threads: usize,
    },
    /// List the slices of a database folder, with sizes and problems
    Info {
        /// Endgame database folder
        #[arg(long, visible_alias = "egdb", default_value = DEFAULT_DIR)]
        dir: PathBuf,
    },
}

pub fn run(args: EgdbArgs) -> Result<(), CliError> {
    match args.command {
        EgdbCommand::Build {
            pieces,
            out,
            threads,
        } => {
            crate::cli::args::check_output_folder("--out", &out)?;
            with_pool(threads, || build(pieces, &out))
        }
        EgdbCommand::Probe {
            fen,
            dir,
            algebraic,
        } => probe(&fen, &dir, algebraic),
        EgdbCommand::Verify {
            dir,
            pieces,
            threads,
        } => with_pool(threads, || check(&dir, pieces)),
        EgdbCommand::Info { dir } => info(&dir),
    }
}

fn with_pool(
    threads: usize,
    job: impl FnOnce() -> Result<(), CliError> + Send,
) -> Result<(), CliError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::failure(format!("cannot start worker threads: {e}")))?;
    pool.install(job)
}

/// Peak resident memory of this process in bytes (Linux), for build reports.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn build(pieces: u32, out: &Path) -> Result<(), CliError> {
    let stop = interrupt::flag();
    let started = Instant::now();
    let threads = rayon::current_num_threads();
    println!(
        "building slices of up to {pieces} pieces in {} on {threads} threads",
        out.display()
    );
    let mut entries = 0u64;
    let mut bytes = 0u64;
    let mut slices = 0u64;
    let built = egdb::build::build(out, pieces, &stop, |r| {
        entries += r.entries;
        bytes += r.file_bytes;
        slices += 1;
        println!(
            "{:<10} {:>10} entries  {:>6.2}% won {:>6.2}% drawn {:>6.2}% lost  longest {:>3}  {:>10} bytes  {}",
            r.material.name(),
            r.entries,
            percent(r.wins, r.entries),
            percent(r.draws, r.entries),
            percent(r.losses, r.entries),
            r.longest,
            r.file_bytes,
            if r.reused {
                "(already built)".to_string()
            } else {
                format!("{:.2} s", r.elapsed.as_secs_f64())
            }
        );
    })
    .map_err(CliError::failure)?;
    let Some(egdb) = built else {
        return Err(interrupt::stopped(format!(
            "{slices} slices finished and kept in {} ({entries} entries); the same command \
             builds the rest",
            out.display()
        )));
    };
    println!(
        "done: {} slices, {entries} entries, {bytes} bytes on disk, {:.1} s, peak memory {}",
        egdb.slice_count(),
        started.elapsed().as_secs_f64(),
        peak_memory().map_or("unknown".to_string(), |b| format!(
            "{:.0} MiB",
            b as f64 / (1 << 20) as f64
        ))
    );
    Ok(())
}

fn percent(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

/// Opens the database folder given by `flag` (as the user typed it), requiring at least
/// one slice; each damaged slice is warned about.
pub(crate) fn open_or_fail(flag: &str, dir: &Path) -> Result<egdb::Opened, CliError> {
    let build = format!(
        "build one with `evalearn egdb build --pieces 5 --out {}`",
        dir.display()
    );
    // A missing folder is the one problem then: said once, as the error.
    if !dir.is_dir() {
        return Err(CliError::input(format!(
            "{flag} {}: no such folder ({build})",
            dir.display()
        )));
    }
    let opened = Egdb::open(dir);
    // Each problem names its slice file, which names the folder.
    for problem in &opened.problems {
        eprintln!("warning: {problem}");
    }
    if opened.egdb.slice_count() == 0 {
        return Err(CliError::input(format!(
            "{flag} {}: no endgame database slice found ({build})",
            dir.display()
        )));
    }
    Ok(opened)
}

/// [`open_or_fail`] for the `egdb` subcommands' folder flag.
fn open_folder(dir: &Path) -> Result<egdb::Opened, CliError> {
    open_or_fail(typed_flag("--dir", &["--egdb"]), dir)
}

fn probe(fen: &str, dir: &Path, algebraic: bool) -> Result<(), CliError> {
    let pos = Brazilian::parse_position(fen).map_err(|e| CliError::input(format!("--fen: {e}")))?;
    let egdb = open_folder(dir)?.egdb;
    let pieces = pos.pieces().count();
    let Some(value) = egdb.probe(&pos) else {
        return Err(CliError::input(format!(
            "the database in {} does not hold this position ({pieces} pieces; it holds up to {} pieces, slice {} {})",
            dir.display(),
            egdb.max_pieces(),
            Material::of(&pos),
            if egdb.has(Material::of(&pos)) {
                "loaded"
            } else {
                "missing"
            }
        )));
    };
    let notation = |at: &Brazilian, mv| {
        if algebraic {
            at.format_move_algebraic(mv)
        } else {
            at.format_move(mv)
        }
    };
    println!("value {value}");
    match egdb.best_move(&pos) {
        Some((_, Some(mv))) => {
            println!("bestmove {}", notation(&pos, mv));
            let line = tablebase_line(&egdb, &pos, 200);
            if !line.is_empty() {
                let mut at = pos;
                let words: Vec<String> = line
                    .iter()
                    .map(|&m| {
                        let w = notation(&at, m);
                        at = at.play(m);
                        w
                    })
                    .collect();
                println!("line {}", words.join(" "));
            }
        }
        Some((_, None)) => println!("bestmove none"),
        None => {
            return Err(CliError::failure(
                "the stored value disagrees with the values of its moves: the database is damaged (run `evalearn egdb verify`)",
            ));
        }
    }
    Ok(())
}

fn check(dir: &Path, pieces: Option<u32>) -> Result<(), CliError> {
    let opened = open_folder(dir)?;
    let (egdb, problems) = (opened.egdb, opened.problems.len());
    let started = Instant::now();
    let limit = pieces.unwrap_or(egdb.max_pieces());
    let mut entries = 0;
    let mut bad = 0;
    for material in Material::all_up_to(limit) {
        if !egdb.has(material) {
            continue;
        }
        let report = verify::check_slice(&egdb, material);
        entries += report.entries;
        bad += report.mismatches;
        println!(
            "{:<10} {:>10} entries  {}",
            material.name(),
            report.entries,
            if report.mismatches == 0 {
                "ok".to_string()
            } else {
                format!("{} MISMATCHES", report.mismatches)
            }
        );
        for m in &report.examples {
            println!(
                "  {}: stored {}, its moves give {}",
                m.fen,
                m.stored,
                m.from_moves
                    .map_or("a position outside the database".to_string(), |v| v
                        .to_string())
            );
        }
    }
    println!(
        "checked {entries} entries in {:.1} s: {}",
        started.elapsed().as_secs_f64(),
        if bad == 0 {
            "every value agrees with its moves".to_string()
        } else {
            format!("{bad} disagree")
        }
    );
    if bad > 0 {
        return Err(CliError::failure(format!(
            "{} holds {bad} values its moves contradict",
            dir.display()
        )));
    }
    if problems > 0 {
        return Err(CliError::failure(format!(
            "{}: {problems} slice files are missing or damaged (see above); rebuild them with `evalearn egdb build`",
            dir.display()
        )));
    }
    Ok(())
}

fn info(dir: &Path) -> Result<(), CliError> {
    let opened = Egdb::open(dir);
    for problem in &opened.problems {
        println!("problem: {problem}");
    }
    let egdb = opened.egdb;
    let mut by_pieces = [(0usize, 0u64, 0u64); egdb::index::MAX_PIECES as usize + 1];
    for material in Material::all_up_to(egdb::index::MAX_PIECES) {
        if egdb.has(material) {
            let row = &mut by_pieces[material.pieces() as usize];
            row.0 += 1;
            row.1 += SliceIndex::new(material).size();
            row.2 += std::fs::metadata(egdb::file::slice_path(dir, material))
                .map(|m| m.len())
                .unwrap_or(0);
        }
    }
    println!("pieces  slices     entries  bytes on disk");
    for (pieces, (slices, entries, bytes)) in by_pieces.iter().enumerate() {
        if *slices > 0 {
            println!("{pieces:>6}  {slices:>6}  {entries:>10}  {bytes:>13}");
        }
    }
    println!(
        "{}: {} slices, complete up to {} pieces",
        dir.display(),
        egdb.slice_count(),
        opened.complete_up_to
    );
    Ok(())
}

impl EgdbGame for Brazilian {
    const DEFAULT_DIR: Option<&'static str> = Some(DEFAULT_DIR);

    fn open_tablebase(dir: &Path) -> Result<OpenedTablebase<Self>, String> {
        let opened = Egdb::open(dir);
        let summary = format!(
            "{} slices, {} positions, up to {} pieces, from {}",
            opened.egdb.slice_count(),
            opened.egdb.entry_count(),
            opened.egdb.max_pieces(),
            dir.display()
        );
        let tablebase: Option<Arc<dyn Tablebase<Self>>> =
            (opened.egdb.slice_count() > 0).then(|| Arc::new(opened.egdb) as _);
        Ok(OpenedTablebase {
            tablebase,
            problems: opened.problems.iter().map(|p| p.to_string()).collect(),
            summary,
        })
    }
}
