//! `evalearn solve`: the exact value of a Kalah position (the final store margin under
//! perfect play), with the work it took and optionally a principal variation.
//!
//! Output (stdout), one fact a line: the game and position, the endgame database and the
//! table, one `probe` line per null-window test as it finishes (so a long solve shows how
//! far it got), then `value`, `nodes`, `time`, `tt used` and, with `--pv`, `pv`.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use clap::Args;

use crate::cli::args::SolverDbArgs;
use crate::cli::{CliError, interrupt};
use crate::game::Game;
use crate::game::split_game_text;
use crate::games::kalah::solve::board::{pits_of, stones};
use crate::games::kalah::solve::db::{EndgameDb, MAX_DB_STONES, configurations};
use crate::games::kalah::solve::file::{DbSource, db_dir, db_stones_for, open_or_build_until};
use crate::games::kalah::solve::{DEFAULT_TT_MIB, Probe, Solver};
use crate::games::kalah::{Kalah, KalahRules, NAME};

/// Most stones in the pits that `solve` settles with a small database by default
/// ([`SMALL_SOLVE_DB_STONES`]) instead of the full one: Kalah(6,3) (36 stones) took 3.0 s
/// with a 12-stone database built in 0.24 s and 9 s with none, where the default 20-stone
/// database alone takes 48 s to build (2-core AMD EPYC, 2026-11-23 and -26).
const SMALL_SOLVE_STONES: u32 = 36;
/// The database `solve` builds by default for a small question.
const SMALL_SOLVE_DB_STONES: u32 = 12;

/// Most stones in the pits of a question `solve` is known to settle in minutes: the start
/// of Kalah(6,4), solved in 140 s (docs/kalah.md). Beyond it `solve` says, before it
/// starts, that the run may not end.
const QUICK_SOLVE_STONES: u32 = 48;

/// Largest table accepted, in MiB.
const MAX_TT_MIB: u64 = 1 << 18;

#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Game: kalah (6 stones a pit) or kalah:6:STONES[:empty-capture] with 1..=6 stones
    /// a pit (e.g. kalah:6:4)
    #[arg(long, default_value = NAME)]
    game: String,
    /// Position: `A:` or `B:` (side to move) and the 14 counts (A's pits 1..6, A's store,
    /// B's pits 1..6, B's store); the variant's start if absent
    #[arg(long)]
    position: Option<String>,
    #[command(flatten)]
    db: SolverDbArgs,
    /// Transposition table in MiB (16-byte entries; large, unlike the searches' 2 or
    /// 64: an exact solve visits far more positions)
    #[arg(long, default_value_t = DEFAULT_TT_MIB as u64,
          value_parser = clap::value_parser!(u64).range(1..=MAX_TT_MIB))]
    tt_mb: u64,
    /// Print a principal variation: best compound moves from the position to the end
    #[arg(long)]
    pv: bool,
}

pub fn run(args: SolveArgs) -> Result<(), CliError> {
    let stop = interrupt::flag();
    let rules = parse_game(&args.game)?;
    let pos = match &args.position {
        None => Kalah::start_of(rules),
        Some(text) => Kalah::parse_position_of(rules, text)
            .map_err(|e| CliError::input(format!("--position: {e}")))?,
    };
    println!("game {}", rules.name());
    println!("position {}", pos.format_position());

    let in_pits = stones(&pits_of(&pos));
    // Bad input is refused before the note on a long solve.
    args.db.check()?;
    if in_pits > QUICK_SOLVE_STONES {
        eprintln!(
            "note: {}",
            long_solve_note(rules, args.position.is_none(), in_pits)
        );
    }
    let mut db_args = args.db.clone();
    if in_pits <= SMALL_SOLVE_STONES {
        db_args.db_stones = db_args
            .db_stones
            .or(Some(in_pits.min(SMALL_SOLVE_DB_STONES)));
    }
    let db = db_args.open(rules, in_pits, &stop, |line| println!("{line}"))?;
    let mut solver = Solver::new(rules, args.tt_mb as usize, db)
        .map_err(CliError::failure)?
        .with_stop(Arc::clone(&stop));
    println!(
        "tt {}: {} entries",
        mib(solver.table().bytes()),
        solver.table().capacity()
    );

    let margin = |future: i32| pos.store_margin() + future;
    let solution = solver
        .solve_with(&pos, |probe| print_probe(probe, margin(0)))
        .map_err(CliError::failure)?;
    if solver.stopped() {
        let proven = match solution.probes.last() {
            Some(p) => format!(
                "the value lies in {:+}..{:+}",
                p.lower + margin(0),
                p.upper + margin(0)
            ),
            None => "no bound proven yet".to_string(),
        };
        return Err(interrupt::stopped(format!(
            "solve stopped after {} nodes in {}: {proven}",
            solution.nodes,
            seconds(solution.elapsed)
        )));
    }
    println!("value {}", describe_value(&pos, solution.value));
    println!("nodes {}", solution.nodes);
    println!("time {}", seconds(solution.elapsed));
    println!(
        "tt used {} of {} entries",
        solver.table().used(),
        solver.table().capacity()
    );
    if args.pv {
        let line = solver
            .principal_variation(&pos, &solution)
            .map_err(CliError::failure)?;
        let texts: Vec<String> = pv_texts(&pos, &line);
        println!("pv {}", texts.join(" "));
    }
    Ok(())
}

/// The Kalah side of [`SolverDbArgs`]: the folder and the database of a question.
pub(crate) trait KalahDb {
    fn folder(&self) -> Option<PathBuf>;
    fn check(&self) -> Result<(), CliError>;
    fn open(
        &self,
        rules: KalahRules,
        stones: u32,
        stop: &AtomicBool,
        report: impl FnMut(&str),
    ) -> Result<Option<Arc<EndgameDb>>, CliError>;
}

impl KalahDb for SolverDbArgs {
    /// The folder, if databases are kept on disk.
    fn folder(&self) -> Option<PathBuf> {
        db_dir(self.db_dir.as_deref())
    }

    /// Refuses a `--db-stones` larger than any database built.
    fn check(&self) -> Result<(), CliError> {
        match self.db_stones.filter(|&s| s > MAX_DB_STONES) {
            Some(size) => Err(CliError::input(format!(
                "--db-stones {size}: at most {MAX_DB_STONES}"
            ))),
            None => Ok(()),
        }
    }

    /// The database for questions with `stones` stones in the pits (or `--db-stones`),
    /// read or built; `report` hears one line on it and any warnings. `None` for 0.
    /// Ctrl-C (`stop`) ends a build early: nothing of it is written.
    fn open(
        &self,
        rules: KalahRules,
        stones: u32,
        stop: &AtomicBool,
        mut report: impl FnMut(&str),
    ) -> Result<Option<Arc<EndgameDb>>, CliError> {
        self.check()?;
        let size = self.db_stones.unwrap_or_else(|| db_stones_for(stones));
        if size == 0 {
            return Ok(None);
        }
        let (db, source, took, warnings) =
            open_or_build_until(self.folder().as_deref(), rules, size, stop).map_err(|s| {
                interrupt::stopped(format!(
                    "database of {size} stones stopped with {} of its {} stone counts built \
                     (nothing written: a build is kept only when complete)",
                    s.levels_done, s.levels
                ))
            })?;
        for warning in warnings {
            eprintln!("warning: {warning}");
        }
        let how = match source {
            DbSource::Read(path) => format!("read from {}", path.display()),
            DbSource::Built(path) => format!("built, kept in {}", path.display()),
            DbSource::BuiltOnly(_) => "built".to_string(),
        };
        report(&format!(
            "db {} stones: {} positions, {} {how} in {}",
            db.stones(),
            configurations(db.stones()),
            mib(db.len()),
            seconds(took)
        ));
        Ok(Some(db))
    }
}

/// What a user starting a solve that may not end should know first: what has been
/// solved here (docs/kalah.md), what this asks, and that Ctrl-C keeps what is proven.
fn long_solve_note(rules: KalahRules, from_start: bool, in_pits: u32) -> String {
    const LARGEST: &str = "Kalah(6,5) with empty capture (60 stones), the largest game \
                           solved here, took 37 minutes and 9 GB (--db-stones 22 --tt-mb 8192)";
    let question = match (from_start, rules.stones, rules.empty_capture) {
        (true, 5, true) => format!("{LARGEST}; with other options it may take far longer"),
        (true, stones, empty_capture) => format!(
            "Kalah(6,{stones}){} from the start ({in_pits} stones in the pits) has not been \
             solved by this program: {LARGEST}, and every stone more multiplies the work, \
             so this may run for days",
            if empty_capture {
                " with empty capture"
            } else {
                ""
            }
        ),
        (false, ..) => format!(
            "this position has {in_pits} stones in the pits, more than the \
             {QUICK_SOLVE_STONES} of Kalah(6,4), the largest start solved here in minutes; \
             {LARGEST}, so this may run for hours or days"
        ),
    };
    format!(
        "{question}. Ctrl-C stops it and prints the bounds proven so far (a database is \
         kept in --db-dir once built). `solve --game kalah:6:4` takes about 3 minutes."
    )
}

/// Reads `--game`: Kalah only, with its rule options.
fn parse_game(text: &str) -> Result<KalahRules, CliError> {
    match split_game_text(text) {
        (NAME, options) => {
            Kalah::parse_variant(options).map_err(|e| CliError::input(format!("--game: {e}")))
        }
        (other, _) => Err(CliError::input(format!(
            "--game {other}: solve works on Kalah only (kalah or kalah:6:STONES[:empty-capture])"
        ))),
    }
}

/// One null-window test, as margins of the whole game (the stores included).
fn print_probe(probe: &Probe, store_margin: i32) {
    println!(
        "probe value >= {:+}: {} (proven {:+}..{:+}) nodes {} time {}",
        probe.beta + store_margin,
        if probe.held { "yes" } else { "no" },
        probe.lower + store_margin,
        probe.upper + store_margin,
        probe.nodes,
        seconds(probe.elapsed)
    );
}

/// `+10 (A wins by 10)`: the side to move's margin and who wins.
fn describe_value(pos: &Kalah, value: i32) -> String {
    let mover = Kalah::side_name(pos.side_to_move());
    let other = Kalah::side_name(pos.side_to_move().opponent());
    let verdict = match value {
        0 => "draw".to_string(),
        v if v > 0 => format!("{mover} wins by {v}"),
        v => format!("{other} wins by {}", -v),
    };
    format!("{value:+} ({verdict}, for {mover} to move)")
}

/// The moves of a line as texts, played out from `pos`.
fn pv_texts(pos: &Kalah, line: &[crate::games::kalah::KalahMove]) -> Vec<String> {
    let mut at = *pos;
    line.iter()
        .map(|&mv| {
            let text = at.format_move(mv);
            at = at.play(mv);
            text
        })
        .collect()
}

pub(crate) fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
}

pub(crate) fn seconds(took: Duration) -> String {
    format!("{:.3} s", took.as_secs_f64())
}
