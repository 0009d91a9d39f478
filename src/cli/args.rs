//! Argument groups several commands share: search limits, openings, evaluator specs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use super::games::Games;
use super::{CliError, CliGame};
use crate::arena::openings::{random_openings, read_openings};
use crate::eval::EvalGame;
use crate::eval::spec::{AnyEvaluator, EvalSpec};
use crate::game::GameSpec;
use crate::io::model::ModelHeader;
use crate::search::{Limits, MAX_PLY};

/// Groups of one argument: an argument that others `require` and that conflicts with
/// some argument sits in a group alone, and the others require the group. clap 4.6 lets
/// a missing required *argument* pass when it conflicts with one that is given
/// (clap-rs/clap#4520: `bench --depth 2 --iterations 5` ran and ignored `--iterations`),
/// never a missing required group.
pub mod alone {
    /// `selfplay --config`, required by `--worker`.
    pub const CONFIG: &str = "config-alone";
    /// `selfplay --worker`, required by `--worker-id` and `--max-shards`.
    pub const WORKER: &str = "worker-alone";
    /// `train --workers`, required by `--shards`.
    pub const WORKERS: &str = "workers-alone";
    /// `bench --train`, required by `--iterations`.
    pub const TRAIN: &str = "train-alone";
    /// `match --book`, required by `--book-plies`.
    pub const BOOK: &str = "book-alone";
}

/// `--game`: which game (and variant) a command plays.
#[derive(Args, Debug, Clone, Default)]
pub struct GameArg {
    /// Game: brazilian, kalah (6 pits a side, 6 stones a pit), or
    /// kalah:6:STONES[:empty-capture] with 1..=6 stones a pit (e.g. kalah:6:4); learnt
    /// from the model files given when absent, else brazilian
    #[arg(long)]
    pub game: Option<String>,
}

impl GameArg {
    /// The game of a command: `--game` if given, else the game the evaluator specs
    /// (model files, built-in evaluator names) belong to, else Brazilian draughts. A
    /// model or evaluator of another game than `--game` says is an error.
    pub fn resolve(&self, games: &Games, specs: &[&EvalSpec]) -> Result<GameSpec, CliError> {
        let chosen = match &self.game {
            Some(text) => Some(
                games
                    .parse(text)
                    .map_err(|e| CliError::input(format!("--game: {e}")))?,
            ),
            None => None,
        };
        let mut implied: Option<(GameSpec, &EvalSpec)> = None;
        for spec in specs {
            let Some(game) = games.game_of(spec).map_err(CliError::input)? else {
                continue;
            };
            if let Some(chosen) = &chosen
                && chosen.family() != game.family()
            {
                return Err(CliError::input(format!(
                    "{spec} is for {}, but --game is {chosen}",
                    game.family()
                )));
            }
            if let Some((first, first_spec)) = &implied
                && first.family() != game.family()
            {
                return Err(CliError::input(format!(
                    "{first_spec} is for {} but {spec} is for {}: both must be of one game",
                    first.family(),
                    game.family()
                )));
            }
            // A model records its variant; a built-in name only its game.
            if implied.is_none() || matches!(spec, EvalSpec::Model(_)) {
                implied = Some((game, spec));
            }
        }
        Ok(chosen
            .or(implied.map(|(game, _)| game))
            .unwrap_or_else(|| games.default_game()))
    }
}

/// `--db-dir` and `--db-stones`: the databases of the commands that solve positions
/// exactly (Kalah's solver).
#[derive(Args, Debug, Clone, Default)]
pub struct SolverDbArgs {
    /// Folder the Kalah endgame databases and solved values are kept in, built once and
    /// read back (checksummed) by later runs; default `$EVALEARN_KALAH_DB` (empty: keep
    /// nothing on disk), else `kalah-db`
    #[arg(long)]
    pub db_dir: Option<PathBuf>,
    /// Endgame database: every configuration with at most this many stones in the pits
    /// (C(N+12, 12) bytes; 0 for none, up to 26); default: the stones in the pits, at
    /// most 20 (`solve`: at most 12 for 36 stones or fewer, which it settles sooner so)
    // "up to 26" is `MAX_DB_STONES` (a doc comment cannot name it; a test compares them).
    #[arg(long)]
    pub db_stones: Option<u32>,
}

/// How long each move is searched: exactly one of depth, nodes or time.
#[derive(Args, Debug, Clone)]
#[group(required = true, multiple = false)]
pub struct LimitArgs {
    /// Depth per move
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    pub depth: Option<u32>,
    /// Nodes per move (quiescence included; deterministic)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Milliseconds per move
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
}

impl LimitArgs {
    pub fn limits(&self) -> Limits {
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime.map(Duration::from_millis),
            ..Limits::default()
        }
    }

    /// The limits in words, for reports.
    pub fn describe(limits: &Limits) -> String {
        match (limits.depth, limits.nodes, limits.movetime) {
            (Some(d), _, _) => format!("depth {d}"),
            (_, Some(n), _) => format!("{n} nodes"),
            (_, _, Some(t)) => format!("{} ms", t.as_millis()),
            _ => "no limit".to_string(),
        }
    }
}

/// Where games start: an openings file, or random plies from the start.
#[derive(Args, Debug, Clone)]
pub struct OpeningArgs {
    /// Openings: a position per line (FEN for draughts), or a game file (.pdn, .klh: the
    /// final position of each game)
    #[arg(long, conflicts_with = "random_plies")]
    pub openings: Option<PathBuf>,
    /// Random plies (whole turns) from the start position for each opening, all
    /// different (default: 6 in draughts, 4 in Kalah)
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=40))]
    pub random_plies: Option<u32>,
}

impl OpeningArgs {
    /// `count` openings (a file's list is used round-robin by the caller).
    pub(crate) fn openings<G: CliGame>(
        &self,
        variant: G::Variant,
        count: usize,
        seed: u64,
    ) -> Result<Vec<G>, CliError> {
        match &self.openings {
            Some(path) => read_openings(variant, path).map_err(CliError::input),
            None => {
                let plies = self.random_plies.unwrap_or(G::OPENING_PLIES);
                random_openings(G::start_of(variant), count, plies, seed).map_err(CliError::input)
            }
        }
    }
}

/// Reads an evaluator argument (not loading it yet: the game may depend on it).
pub fn eval_spec(games: &Games, flag: &str, text: &str) -> Result<EvalSpec, CliError> {
    games
        .eval_spec(text)
        .map_err(|e| CliError::input(format!("{flag}: {e}")))
}

/// Reads an optional `--eval` argument and the game of the command (see
/// [`GameArg::resolve`]).
pub fn optional_eval(
    games: &Games,
    game: &GameArg,
    eval: Option<&str>,
) -> Result<(GameSpec, Option<EvalSpec>), CliError> {
    let spec = eval
        .map(|text| eval_spec(games, "--eval", text))
        .transpose()?;
    let game = game.resolve(games, &spec.iter().collect::<Vec<_>>())?;
    Ok((game, spec))
}

/// Loads the evaluator of game `G` that `spec` names. A model trained on another
/// variant of the game (e.g. Kalah with 6 stones a pit, used on Kalah(6,4)) is allowed,
/// with a warning on stderr.
pub fn load_evaluator<G: EvalGame>(
    variant: G::Variant,
    spec: &EvalSpec,
) -> Result<(AnyEvaluator<G>, Option<ModelHeader>), CliError> {
    let (evaluator, header) = spec
        .load::<G>()
        .map_err(|e| CliError::input(e.to_string()))?;
    let name = G::variant_name(variant);
    if let Some(header) = &header
        && header.game != name
    {
        eprintln!(
            "warning: {spec} was trained on {}, used here on {name}",
            header.game
        );
    }
    Ok((evaluator, header))
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn progress_bar(len: u64, template: &str) -> indicatif::ProgressBar {
    let style = indicatif::ProgressStyle::with_template(template)
        .expect("valid template")
        .progress_chars("=> ");
    indicatif::ProgressBar::new(len).with_style(style)
}

/// Advances `bar` by one unit of `what`. A bar on a terminal redraws itself; a hidden one
/// (stderr redirected to a log) prints a plain line at every tenth of the work instead,
/// so long runs in the background still report how far they are.
pub fn advance(bar: &indicatif::ProgressBar, what: &str) {
    bar.inc(1);
    if bar.is_hidden() {
        let (done, total) = (bar.position(), bar.length().unwrap_or(0));
        if total > 0 && done * 10 / total != (done - 1) * 10 / total {
            eprintln!(
                "{done}/{total} {what}, {:.0} s  {}",
                bar.elapsed().as_secs_f64(),
                bar.message()
            );
        }
    }
}

/// The spelling of a flag the user typed: `flag` or one of its `aliases` (`--position`
/// or `--fen`), whichever came last on the command line (clap keeps the last), else
/// `flag`. Messages name the flag as typed.
pub fn typed_flag(flag: &'static str, aliases: &[&'static str]) -> &'static str {
    let mut typed = flag;
    for arg in std::env::args_os().skip(1) {
        let arg = arg.to_string_lossy();
        if arg == "--" {
            break;
        }
        let given = |name: &str| {
            arg.strip_prefix(name)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
        };
        if let Some(name) = std::iter::once(&flag).chain(aliases).find(|n| given(n)) {
            typed = name;
        }
    }
    typed
}

/// Checks, before any work is done, that the file `path` given by `flag` can be
/// written: not a folder, in a folder that exists and takes a new file. A path that
/// cannot be used is bad input (exit status 2), said with the flag.
pub fn check_output(flag: &str, path: &Path) -> Result<(), CliError> {
    let bad = |why: String| CliError::input(format!("{flag} {}: {why}", path.display()));
    if path.is_dir() {
        return Err(bad("is a folder; give a file name".to_string()));
    }
    let Some(name) = path.file_name() else {
        return Err(bad("names no file".to_string()));
    };
    // Files are written beside their final name and renamed (atomically), so a new file
    // in the folder is what writing needs.
    writable_folder(parent_folder(path), &name.to_string_lossy()).map_err(bad)
}

/// [`check_output`] for a result file: an existing file at `path` is also refused unless
/// `force` (the command's `--force`), so no command replaces a user's results unasked.
pub fn check_new_output(flag: &str, path: &Path, force: bool) -> Result<(), CliError> {
    check_output(flag, path)?;
    if path.exists() && !force {
        return Err(CliError::input(format!(
            "{flag} {}: the file exists; give --force to replace it",
            path.display()
        )));
    }
    Ok(())
}

/// Checks, before any work is done, that the folder `path` given by `flag` can hold the
/// files a command writes: an existing folder that takes a new file, or a new folder
/// in an existing one. Exit status 2, with the flag, when not.
pub fn check_output_folder(flag: &str, path: &Path) -> Result<(), CliError> {
    let bad = |why: String| CliError::input(format!("{flag} {}: {why}", path.display()));
    if path.is_dir() {
        writable_folder(path, "folder").map_err(bad)
    } else if path.exists() {
        Err(bad("is a file, not a folder".to_string()))
    } else {
        writable_folder(parent_folder(path), "folder").map_err(bad)
    }
}

/// The folder a path is in (`.` for a bare name).
fn parent_folder(path: &Path) -> &Path {
    match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    }
}

/// Whether `folder` exists and takes a new file: tried with a probe file named after
/// `name`, removed at once.
fn writable_folder(folder: &Path, name: &str) -> Result<(), String> {
    if !folder.is_dir() {
        return Err(format!("the folder {} does not exist", folder.display()));
    }
    let probe = folder.join(format!(".{name}.evalearn-check-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(format!("cannot write in {}: {e}", folder.display())),
    }
}

/// Writes `bytes` to the output file of `flag` atomically; a failure (checked for
/// with [`check_output`] before the work, so a full disk, say) names the flag.
pub fn write_output(flag: &str, path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    crate::io::write_atomic(path, bytes)
        .map_err(|e| CliError::failure(format!("{flag} {}: cannot write: {e}", path.display())))
}

/// Reads the threads of one search (`--threads` of analyse, play, hub, serve; match's
/// `--search-threads`): 1 to the threads this machine runs at once.
pub fn search_threads(text: &str) -> Result<usize, String> {
    let threads = text
        .trim()
        .parse::<usize>()
        .map_err(|_| format!("'{text}': expected a whole number of threads"))?;
    crate::search::check_threads(threads)
}

/// `n` and the word for it, singular or plural as `n` asks (`1 pair`, `2 pairs`).
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// This machine in words, for figures: the processor's name (Linux's
/// `/proc/cpuinfo`) and the threads it runs at once.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, name)| name.trim().to_string())
        })
        .unwrap_or_else(|| "an unknown processor".to_string());
    let threads = crate::search::max_threads();
    format!("{cpu}, {threads} threads")
}
