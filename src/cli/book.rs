//! `evalearn book build | info | probe`: making opening books and looking into them; and
//! [`read_book`], how `play`, `match` and `selfplay` load their `--book` files.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, Subcommand};

use super::args::{GameArg, advance, eval_spec, load_evaluator, progress_bar};
use super::games::{Games, Job};
use super::interrupt;
use super::{CliError, CliGame, position_arg};
use crate::book::Book;
use crate::book::build::{BuildConfig, DatasetLines, build};
use crate::eval::spec::EvalSpec;
use crate::game::{Game, GameSpec};
use crate::io::book::{self as book_file, MAX_ENTRIES};
use crate::io::dataset::Dataset;
use crate::search::{MAX_PLY, format_score};

#[derive(Args, Debug)]
pub struct BookArgs {
    #[command(subcommand)]
    command: BookCommand,
}

#[derive(Subcommand, Debug)]
enum BookCommand {
    /// Build an opening book: search each position from the start (and the most-played
    /// lines of a dataset) with exact values for every move, keep the sound moves, expand
    /// them
    Build(BuildArgs),
    /// How a book was built, its size, and the start position's book moves
    Info {
        /// The book file
        path: PathBuf,
    },
    /// The book moves of a position, with their values and weights
    Probe {
        /// The book file
        path: PathBuf,
        /// Position (draughts FEN; Kalah `A:` or `B:` and the 14 counts); the start if
        /// absent
        #[arg(long, visible_alias = "fen")]
        position: Option<String>,
    },
}

#[derive(Args, Debug)]
pub struct BuildArgs {
    #[command(flatten)]
    game: GameArg,
    /// Evaluator of the searches: a built-in one (draughts `material`; Kalah `stores`,
    /// `activity`, `tseitin`) or a model file path
    #[arg(long, visible_alias = "model")]
    eval: String,
    /// Search depth of each book position
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    depth: u32,
    /// Plies from the start the book covers (positions after up to PLIES − 1 moves get
    /// book moves)
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=60))]
    plies: u32,
    /// Moves valued within this many centi-units of the best are sound (kept)
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(i32).range(0..=10_000))]
    margin: i32,
    /// Most positions in the book (the likeliest under the book's own choices first)
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=MAX_ENTRIES))]
    max_positions: u64,
    /// A self-play dataset whose games (those starting at the start position) add their
    /// most-played positions to the book and weigh its moves by how often they were played
    #[arg(long)]
    dataset: Option<PathBuf>,
    /// Dataset positions met in fewer games are not added on their own
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..), requires = "dataset")]
    min_games: u32,
    /// Worker threads (default: one per core); the book does not depend on it
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Transposition table of each worker, in MiB (more than match's 2: every book
    /// position is searched to --depth, deeper than a game's moves usually are)
    #[arg(long = "tt-mb", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=4096))]
    tt_mb: u64,
    /// The book file to write
    #[arg(long)]
    out: PathBuf,
    /// Replace an existing --out file
    #[arg(long)]
    force: bool,
}

/// Reads the `--book` file of a command playing `variant`: any problem with it (missing,
/// truncated, corrupt, of another game) is bad input, exit status 2.
pub fn read_book<G: Game>(variant: G::Variant, path: &Path) -> Result<Arc<Book<G>>, CliError> {
    Book::read(path, variant)
        .map(Arc::new)
        .map_err(|e| CliError::input(e.to_string()))
}

pub fn book(games: &Games, args: BookArgs) -> Result<(), CliError> {
    match args.command {
        BookCommand::Build(args) => {
            super::args::check_new_output("--out", &args.out, args.force)?;
            let spec = eval_spec(games, "--eval", &args.eval)?;
            let game = args.game.resolve(games, &[&spec])?;
            games.run(&game, Job::BookBuild(args, spec))
        }
        BookCommand::Info { path } => {
            let game = recorded_game(games, &path)?;
            games.run(&game, Job::BookInfo(path))
        }
        BookCommand::Probe { path, position } => {
            let game = recorded_game(games, &path)?;
            games.run(&game, Job::BookProbe(path, position))
        }
    }
}

/// The game a book file is of, from its (checked) header.
fn recorded_game(games: &Games, path: &Path) -> Result<GameSpec, CliError> {
    let header = book_file::read_header(path).map_err(|e| CliError::input(e.to_string()))?;
    games
        .parse(&header.game)
        .map_err(|e| CliError::input(format!("book file {}: recorded game: {e}", path.display())))
}

pub(super) fn build_of<G: CliGame>(
    variant: G::Variant,
    args: BuildArgs,
    spec: EvalSpec,
) -> Result<(), CliError> {
    let (evaluator, _) = load_evaluator::<G>(variant, &spec)?;
    let name = G::variant_name(variant);
    let mut info = format!(
        "evaluator {spec}, depth {}, margin {}, {} plies, at most {} positions",
        args.depth, args.margin, args.plies, args.max_positions
    );
    let lines = match &args.dataset {
        Some(path) => {
            let data = Dataset::<G>::read(path, Some(&name))
                .map_err(|e| CliError::input(e.to_string()))?;
            if let Some(warning) = &data.warning {
                eprintln!("warning: {warning}");
            }
            let lines = DatasetLines::new(G::start_of(variant), &data.games, args.plies);
            if lines.games_skipped > 0 {
                eprintln!(
                    "note: {} of the {} games of {} do not start at the start position and \
                     are not used",
                    lines.games_skipped,
                    data.games.len(),
                    path.display()
                );
            }
            info.push_str(&format!(
                ", dataset {} ({} games used, positions of at least {} games added)",
                path.display(),
                lines.games_used,
                args.min_games
            ));
            Some(lines)
        }
        None => None,
    };
    let config = BuildConfig {
        depth: args.depth,
        plies: args.plies,
        margin: args.margin,
        max_positions: args.max_positions as usize,
        min_games: args.min_games,
        threads: args.threads,
        tt_mib: args.tt_mb as usize,
    };
    let bar = progress_bar(
        args.max_positions,
        "[{bar:30}] {pos}/{len} positions at most, {per_sec:1}  {msg}",
    );
    let started = Instant::now();
    let stop = interrupt::flag();
    let (book, report) = build(
        variant,
        &evaluator,
        &config,
        lines.as_ref(),
        info,
        &stop,
        || advance(&bar, "positions"),
    )
    .map_err(CliError::failure)?;
    bar.finish_and_clear();
    book.write(&args.out)
        .map_err(|e| CliError::failure(format!("--out: {e}")))?;
    let bytes = std::fs::metadata(&args.out).map_or(0, |m| m.len());
    let moves: usize = book.positions().map(|(_, m)| m.len()).sum();
    let per_ply: Vec<String> = report.per_ply.iter().map(usize::to_string).collect();
    println!(
        "book{}: {} positions (by ply: {}), {moves} book moves, {} nodes in {:.1} s; \
         written to {} ({bytes} bytes)",
        if report.interrupted {
            " (stopped early)"
        } else {
            ""
        },
        book.len(),
        per_ply.join(" "),
        report.nodes,
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    if report.interrupted {
        return Err(interrupt::stopped(format!(
            "the {} positions searched are in {}",
            book.len(),
            args.out.display()
        )));
    }
    Ok(())
}

pub(super) fn info_of<G: CliGame>(variant: G::Variant, path: &Path) -> Result<(), CliError> {
    let book = read_book::<G>(variant, path)?;
    let moves: usize = book.positions().map(|(_, m)| m.len()).sum();
    let by_ply: Vec<String> = book
        .reachable_by_ply()
        .iter()
        .map(usize::to_string)
        .collect();
    println!("book         {}", path.display());
    println!("game         {}", G::variant_name(variant));
    println!("built with   {}", book.info());
    println!(
        "positions    {} ({} book moves, {:.2} a position)",
        book.len(),
        moves,
        moves as f64 / book.len().max(1) as f64
    );
    println!(
        "from start   {} (book positions first reached after 0, 1, 2, … book moves)",
        by_ply.join(" ")
    );
    let start = G::start_of(variant);
    match book.probe(&start) {
        Some(moves) => println!("start moves  {}", describe_moves(&start, moves)),
        None => println!("start moves  (the start position is not in the book)"),
    }
    Ok(())
}

pub(super) fn probe_of<G: CliGame>(
    variant: G::Variant,
    path: &Path,
    position: Option<&str>,
) -> Result<(), CliError> {
    let book = read_book::<G>(variant, path)?;
    let pos = position_arg::<G>(variant, position)?;
    match book.probe(&pos) {
        Some(moves) => {
            let total: u64 = moves.iter().map(|m| u64::from(m.weight)).sum();
            for m in moves {
                println!(
                    "{:<24} {:<10} weight {:<6} {:5.1}%",
                    pos.describe_move(m.mv),
                    format_score::<G>(m.score),
                    m.weight,
                    100.0 * f64::from(m.weight) / total as f64
                );
            }
        }
        None => println!("not in the book: {}", pos.format_position()),
    }
    Ok(())
}

/// `22-17 +0.05 men, 21-17 +0.01 men`.
fn describe_moves<G: CliGame>(pos: &G, moves: &[crate::book::BookMove<G>]) -> String {
    moves
        .iter()
        .map(|m| format!("{} {}", pos.format_move(m.mv), format_score::<G>(m.score)))
        .collect::<Vec<_>>()
        .join(", ")
}
