//! `evalearn match`: two evaluators play game pairs; the report says how much stronger A
//! is than B, with an interval, and (with `--sprt`) stops as soon as that is decided.

mod report;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::{ArgGroup, Args};
use report::{PerfectPlay, pair_games, print_report, report_json};

use super::args::{
    GameArg, LimitArgs, OpeningArgs, advance, alone, check_new_output, eval_spec, load_evaluator,
    progress_bar, search_threads, typed_flag, write_output,
};
use super::book::read_book;
use super::egdb::EgdbOption;
use super::games::{Games, Job};
use super::interrupt;
use super::{CliError, CliGame};
use crate::arena::interrupt::Interruptible;
use crate::arena::margins::PerfectSide;
use crate::arena::matches::{
    DEFAULT_PLY_CAP, GAMES_TT_MIB, MatchConfig, MatchOutcome, TimeControl, run_match,
};
use crate::arena::perfect;
use crate::arena::players::{Contender, Engine, Player};
use crate::arena::stats::SprtParams;
use crate::book::player::BookContender;
use crate::eval::spec::{AnyEvaluator, EvalSpec};
use crate::search::{Limits, MAX_PLY, SearchConfig, Tablebase};

#[derive(Args, Debug)]
// One limit per move for both engines, and at most one more for each engine alone: two
// limits at once would leave the reader guessing which one stopped the search.
#[command(group(ArgGroup::new("limit").args(["depth", "nodes", "movetime"]).multiple(false)))]
#[command(group(ArgGroup::new("a_limit").args(["a_depth", "a_nodes", "a_movetime"]).multiple(false)))]
#[command(group(ArgGroup::new("b_limit").args(["b_depth", "b_nodes", "b_movetime"]).multiple(false)))]
pub struct MatchArgs {
    #[command(flatten)]
    game: GameArg,
    /// Engine A: a built-in evaluator (draughts `material`; Kalah `stores`, `activity`,
    /// `tseitin`), a model file path, or an external draughts engine `hub:"COMMAND ARGS"`
    /// spoken to over the Hub protocol
    #[arg(long)]
    a: String,
    /// Engine B: a built-in evaluator, a model file path or `hub:"COMMAND ARGS"`; either
    /// side may be `perfect[:NODES]`: exact play (Kalah: the solver, at most NODES a move;
    /// draughts: the endgame database), else the search with the baseline evaluator
    #[arg(long)]
    b: String,
    /// Games (an even number: each opening is played twice, colours swapped)
    #[arg(long, value_parser = clap::value_parser!(u64).range(2..=10_000_000))]
    games: u64,
    /// Depth per move, both engines
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    depth: Option<u32>,
    /// Nodes per move, both engines
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Milliseconds per move, both engines
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Depth per move for A (replaces the common limit for A)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    a_depth: Option<u32>,
    /// Nodes per move for A
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    a_nodes: Option<u64>,
    /// Milliseconds per move for A
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    a_movetime: Option<u64>,
    /// Depth per move for B (replaces the common limit for B)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    b_depth: Option<u32>,
    /// Nodes per move for B
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    b_nodes: Option<u64>,
    /// Milliseconds per move for B
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    b_movetime: Option<u64>,
    /// A game clock for each engine, BASE+INC in seconds (e.g. 10+0.1: 10 s for the
    /// game, 0.1 s added each move); a side that oversteps it loses. Time saved (by a
    /// book move, say) is there for later moves
    #[arg(long, value_parser = TimeControl::parse)]
    clock: Option<TimeControl>,
    #[command(flatten)]
    openings: OpeningArgs,
    #[command(flatten)]
    egdb: EgdbOption,
    /// Kalah: folder of the solver's endgame databases for a `perfect` side, built once
    /// and read back; default `$EVALEARN_KALAH_DB` (empty: keep nothing on disk), else
    /// `kalah-db`
    #[arg(long)]
    db_dir: Option<PathBuf>,
    /// Which engines use the endgame database (to measure what it brings)
    #[arg(long, value_enum, default_value_t = EgdbSides::Both)]
    egdb_for: EgdbSides,
    /// Openings from an opening book: the positions after --book-plies book moves from
    /// the start (each played twice, colours swapped)
    #[arg(long, group = alone::BOOK, conflicts_with_all = ["openings", "random_plies"])]
    book: Option<PathBuf>,
    /// Book moves from the start to each opening of --book
    #[arg(long, default_value_t = 4, requires = alone::BOOK, value_parser = clap::value_parser!(u32).range(0..=60))]
    book_plies: u32,
    /// Engine A plays from this opening book while the position is in it (moves drawn by
    /// the book's weights from each game's own random stream)
    #[arg(long)]
    a_book: Option<PathBuf>,
    /// Engine B plays from this opening book while the position is in it
    #[arg(long)]
    b_book: Option<PathBuf>,
    /// Engine A's search, by its `treestats --algos` name (default: full, the engine's
    /// own): compares searches with one evaluator
    #[arg(long, value_parser = parse_search, default_value = "full")]
    a_search: NamedSearch,
    /// Engine B's search (as --a-search)
    #[arg(long, value_parser = parse_search, default_value = "full")]
    b_search: NamedSearch,
    /// Games played at once (default: one per core, or per --search-threads cores); with
    /// depth or node limits the result does not depend on it
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Threads of each engine's search within one game (default 1; evalearn's engines
    /// only): with more than one, a depth or node limit no longer gives the same games
    #[arg(long, value_parser = search_threads)]
    search_threads: Option<usize>,
    /// Threads of A's search (replaces --search-threads for A)
    #[arg(long, value_parser = search_threads)]
    a_threads: Option<usize>,
    /// Threads of B's search (replaces --search-threads for B)
    #[arg(long, value_parser = search_threads)]
    b_threads: Option<usize>,
    /// Seed of the random openings
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Sequential test ELO0,ELO1,ALPHA,BETA (e.g. 0,10,0.05,0.05): stop once decided
    #[arg(long)]
    sprt: Option<String>,
    /// Plies after which a game stops, counted as a draw (the same default everywhere,
    /// training configs' ply_cap included)
    #[arg(long, default_value_t = DEFAULT_PLY_CAP, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    ply_cap: u32,
    /// Transposition table of each engine in each worker, in MiB (small, as in training's
    /// self-play: the workers' tables share the cache; play, analyse and hub search one
    /// position at a time and default to 64)
    #[arg(long = "tt-mb", default_value_t = GAMES_TT_MIB, value_parser = clap::value_parser!(u64).range(1..=4096))]
    tt_mb: u64,
    /// Also write the games to a game file (PDN for draughts, the .klh record
    /// for Kalah)
    #[arg(long, visible_alias = "pdn")]
    record: Option<PathBuf>,
    /// Also write the report as JSON
    #[arg(long)]
    json: Option<PathBuf>,
    /// Replace an existing --record or --json file
    #[arg(long)]
    force: bool,
}

/// A search configuration chosen by name on the command line.
#[derive(Clone, Copy, Debug)]
struct NamedSearch {
    name: &'static str,
    config: SearchConfig,
}

fn parse_search(name: &str) -> Result<NamedSearch, String> {
    SearchConfig::by_name(name).map(|(name, config)| NamedSearch { name, config })
}

/// Keep the two sides' book choices on streams apart from each other and from the games'.
const A_BOOK_STREAM: u64 = 0x626F_6F6B_2D61;
const B_BOOK_STREAM: u64 = 0x626F_6F6B_2D62;

/// One side's limits: its own flags if any, else the common ones; none is needed with
/// a game clock.
fn side_limits(
    side: &str,
    own: (Option<u32>, Option<u64>, Option<u64>),
    common: (Option<u32>, Option<u64>, Option<u64>),
    clock: bool,
) -> Result<Limits, CliError> {
    let (depth, nodes, movetime) = if own != (None, None, None) {
        own
    } else {
        common
    };
    if (depth, nodes, movetime) == (None, None, None) && !clock {
        return Err(CliError::input(format!(
            "engine {side} has no search limit: give --depth, --nodes, --movetime or \
             --clock (or --{side}-depth, --{side}-nodes, --{side}-movetime)"
        )));
    }
    Ok(Limits {
        depth,
        nodes,
        movetime: movetime.map(Duration::from_millis),
        ..Limits::default()
    })
}

/// `--egdb-for`: the engines that probe the endgame database.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
enum EgdbSides {
    Both,
    A,
    B,
}

/// What `--a` or `--b` names.
pub(crate) enum SideSpec {
    Eval(EvalSpec),
    /// `hub:COMMAND`: an external engine.
    Hub(String),
    /// `perfect[:NODES]`: exact play where evalearn knows the values.
    Perfect(u64),
}

impl SideSpec {
    fn parse(games: &Games, flag: &str, text: &str) -> Result<SideSpec, CliError> {
        if let Some(cap) = perfect::parse_spec(text) {
            return cap
                .map(SideSpec::Perfect)
                .map_err(|e| CliError::input(format!("{flag} {text}: {e}")));
        }
        match text.trim().strip_prefix("hub:").map(unquoted) {
            Some("") => Err(CliError::input(format!(
                "{flag} {text}: give the engine's command after hub:, e.g. hub:\"scan hub\""
            ))),
            Some(command) => Ok(SideSpec::Hub(command.to_string())),
            None => Ok(SideSpec::Eval(eval_spec(games, flag, text)?)),
        }
    }

    fn eval(&self) -> Option<&EvalSpec> {
        match self {
            SideSpec::Eval(spec) => Some(spec),
            SideSpec::Hub(_) | SideSpec::Perfect(_) => None,
        }
    }
}

impl std::fmt::Display for SideSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SideSpec::Eval(spec) => write!(f, "{spec}"),
            SideSpec::Hub(command) => write!(f, "hub:{command}"),
            SideSpec::Perfect(cap) => write!(f, "perfect:{cap}"),
        }
    }
}

/// The engine's command of `hub:"COMMAND ARGS"`, as the docs write it: one pair of
/// double quotes around the whole command is dropped when no other quote is inside
/// (then it cannot be the shell's quoting of a word), so the notation works taken
/// literally inside the shell's single quotes.
fn unquoted(command: &str) -> &str {
    let command = command.trim();
    match command
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    {
        Some(inner) if !inner.contains('"') => inner.trim(),
        _ => command,
    }
}

/// A side of the match once loaded: an evaluator searched by evalearn, or an engine.
enum MatchSide<G: CliGame> {
    Search(Box<Engine<G, AnyEvaluator<G>>>),
    Hub(String),
    Perfect(Box<perfect::Perfect<G>>),
}

impl<G: CliGame> Contender<G> for MatchSide<G> {
    type Player = Box<dyn Player<G>>;

    fn player(&self, tt_mib: usize) -> Result<Box<dyn Player<G>>, String> {
        match self {
            MatchSide::Search(evaluator) => Ok(Box::new((**evaluator).player(tt_mib)?)),
            MatchSide::Hub(command) => G::external_player(command),
            MatchSide::Perfect(side) => Ok(Box::new(side.player(tt_mib)?)),
        }
    }
}

pub fn run(games: &Games, args: MatchArgs) -> Result<(), CliError> {
    if let Some(path) = &args.record {
        check_new_output(typed_flag("--record", &["--pdn"]), path, args.force)?;
    }
    if let Some(path) = &args.json {
        check_new_output("--json", path, args.force)?;
    }
    let spec_a = SideSpec::parse(games, "--a", &args.a)?;
    let spec_b = SideSpec::parse(games, "--b", &args.b)?;
    let evals: Vec<&EvalSpec> = [&spec_a, &spec_b].iter().filter_map(|s| s.eval()).collect();
    let game = args.game.resolve(games, &evals)?;
    games.run(&game, Job::Match(Box::new(args), spec_a, spec_b))
}

fn load_side<G: CliGame>(
    variant: G::Variant,
    spec: &SideSpec,
    tablebase: Option<Arc<dyn Tablebase<G>>>,
    (search, threads): (SearchConfig, usize),
    kalah_db_dir: Option<&Path>,
) -> Result<MatchSide<G>, CliError> {
    match spec {
        SideSpec::Eval(spec) => Ok(MatchSide::Search(Box::new(
            Engine::new(load_evaluator::<G>(variant, spec)?.0, tablebase)
                .with_search(search)
                .with_threads(threads),
        ))),
        SideSpec::Hub(command) => Ok(MatchSide::Hub(command.clone())),
        &SideSpec::Perfect(cap) => perfect::load(variant, tablebase, kalah_db_dir, cap)
            .map(MatchSide::Perfect)
            .map_err(CliError::input),
    }
}

pub(super) fn run_match_of<G: CliGame>(
    variant: G::Variant,
    args: MatchArgs,
    spec_a: SideSpec,
    spec_b: SideSpec,
) -> Result<(), CliError> {
    if G::PROTOCOL.is_none()
        && let Some(engine) = [&spec_a, &spec_b]
            .into_iter()
            .find(|s| matches!(s, SideSpec::Hub(_)))
    {
        return Err(CliError::input(format!(
            "{engine}: {} has no external-engine protocol",
            G::variant_name(variant)
        )));
    }
    if !args.games.is_multiple_of(2) {
        return Err(CliError::input(format!(
            "--games {}: must be even (each opening is played twice, colours swapped)",
            args.games
        )));
    }
    let config = match_config(&args)?;
    let (side_a, side_b) = match_sides::<G>(variant, &args, &spec_a, &spec_b)?;
    // With one side perfect, what the other loses to it and how perfect it was.
    let perfect_side = match (&side_a.inner, &side_b.inner) {
        (MatchSide::Perfect(_), MatchSide::Perfect(_)) => None,
        (MatchSide::Perfect(p), _) => Some((PerfectSide::A, p.moves())),
        (_, MatchSide::Perfect(p)) => Some((PerfectSide::B, p.moves())),
        _ => None,
    };
    let openings = match_openings::<G>(variant, &args, config.pairs)?;
    // Ctrl-C ends the games in progress; the pairs counted so far make the report.
    let stop = interrupt::flag();
    let interruptible = |inner| Interruptible {
        inner,
        stop: Arc::clone(&stop),
    };
    let outcome = play_match(
        &interruptible(side_a),
        &interruptible(side_b),
        &openings,
        &config,
        &stop,
    )?;
    let interrupted = interrupt::raised(&stop);
    let names = side_names(&args, &config, &spec_a, &spec_b);
    println!("game         {}", G::variant_name(variant));
    if interrupted {
        println!(
            "interrupted  after {} of {} pairs (the games in progress are not counted)",
            outcome.pairs.len(),
            config.pairs
        );
    }
    let perfect = perfect_side.map(|(side, moves)| {
        let (exact, moves) = moves.counts();
        PerfectPlay { side, exact, moves }
    });
    print_report(&outcome, &names, &config, perfect);
    if let Some(path) = &args.record {
        let text = outcome
            .pairs
            .iter()
            .flat_map(|pair| pair_games(pair, &names))
            .map(|game| G::write_game(&game))
            .collect::<Vec<_>>()
            .join("\n");
        write_output(typed_flag("--record", &["--pdn"]), path, text.as_bytes())?;
    }
    if let Some(path) = &args.json {
        let text = report_json(&outcome, &names, &config, perfect);
        write_output("--json", path, text.as_bytes())?;
    }
    if interrupted {
        return Err(interrupt::stopped(format!(
            "the report covers the {} finished pairs",
            outcome.pairs.len()
        )));
    }
    Ok(())
}

/// The match's pairs, limits, clock and SPRT as the arguments give them.
fn match_config(args: &MatchArgs) -> Result<MatchConfig, CliError> {
    let sprt = match &args.sprt {
        Some(text) => Some(SprtParams::parse(text).map_err(|e| CliError::input(e.to_string()))?),
        None => None,
    };
    let common = (args.depth, args.nodes, args.movetime);
    let clock = args.clock.is_some();
    let limits_a = side_limits(
        "a",
        (args.a_depth, args.a_nodes, args.a_movetime),
        common,
        clock,
    )?;
    let limits_b = side_limits(
        "b",
        (args.b_depth, args.b_nodes, args.b_movetime),
        common,
        clock,
    )?;
    Ok(MatchConfig {
        pairs: args.games / 2,
        limits_a,
        limits_b,
        ply_cap: args.ply_cap,
        threads: games_at_once(args),
        tt_mib: args.tt_mb as usize,
        seed: args.seed,
        sprt,
        clock: args.clock,
    })
}

/// A side of the match with its book.
type Contestant<G> = BookContender<G, MatchSide<G>>;

/// Both sides, each with its book and its share of the endgame database.
fn match_sides<G: CliGame>(
    variant: G::Variant,
    args: &MatchArgs,
    spec_a: &SideSpec,
    spec_b: &SideSpec,
) -> Result<(Contestant<G>, Contestant<G>), CliError> {
    let tablebase = args.egdb.load::<G>()?;
    let for_side = |side: EgdbSides| {
        (args.egdb_for == EgdbSides::Both || args.egdb_for == side)
            .then(|| tablebase.clone())
            .flatten()
    };
    let book_of = |path: &Option<PathBuf>| path.as_ref().map(|p| read_book::<G>(variant, p));
    let side_a = BookContender {
        inner: load_side::<G>(
            variant,
            spec_a,
            for_side(EgdbSides::A),
            (args.a_search.config, side_threads(args, "a", spec_a)?),
            args.db_dir.as_deref(),
        )?,
        book: book_of(&args.a_book).transpose()?,
        seed: args.seed ^ A_BOOK_STREAM,
    };
    let side_b = BookContender {
        inner: load_side::<G>(
            variant,
            spec_b,
            for_side(EgdbSides::B),
            (args.b_search.config, side_threads(args, "b", spec_b)?),
            args.db_dir.as_deref(),
        )?,
        book: book_of(&args.b_book).transpose()?,
        seed: args.seed ^ B_BOOK_STREAM,
    };
    Ok((side_a, side_b))
}

/// The threads of side `side`'s search: its own `--a-threads`/`--b-threads` (refused for
/// an engine that is not evalearn's search), else `--search-threads`, else 1.
fn side_threads(args: &MatchArgs, side: &str, spec: &SideSpec) -> Result<usize, CliError> {
    let own = if side == "a" {
        args.a_threads
    } else {
        args.b_threads
    };
    match (own, spec) {
        (Some(_), SideSpec::Hub(_) | SideSpec::Perfect(_)) => Err(CliError::input(format!(
            "--{side}-threads: engine {} is {spec}, not evalearn's search: its threads are \
             not evalearn's to set",
            side.to_uppercase()
        ))),
        (None, SideSpec::Hub(_) | SideSpec::Perfect(_)) => Ok(1),
        (_, SideSpec::Eval(_)) => Ok(own.or(args.search_threads).unwrap_or(1)),
    }
}

/// Games played at once: `--threads`, else one per core (0), or with searches on
/// several threads as many as leave each game's threads a core.
fn games_at_once(args: &MatchArgs) -> usize {
    let per_game = [args.a_threads, args.b_threads, args.search_threads]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(1);
    match (args.threads, per_game) {
        (0, 2..) => (crate::search::max_threads() / per_game).max(1),
        (threads, _) => threads,
    }
}

/// The openings of `pairs` pairs: from `--book`, a file, or random plies.
fn match_openings<G: CliGame>(
    variant: G::Variant,
    args: &MatchArgs,
    pairs: u64,
) -> Result<Vec<G>, CliError> {
    let Some(path) = &args.book else {
        return args.openings.openings(variant, pairs as usize, args.seed);
    };
    let openings =
        read_book::<G>(variant, path)?.openings(pairs as usize, args.book_plies, args.seed);
    if (openings.len() as u64) < pairs {
        eprintln!(
            "note: {} gives {} different openings of {} plies for {pairs} pairs; they are \
             played in turn",
            path.display(),
            openings.len(),
            args.book_plies
        );
    }
    Ok(openings)
}

/// Plays the match with a progress bar; stopped by `stop`, the pairs finished so far.
fn play_match<G: CliGame, A: Contender<G>, B: Contender<G>>(
    side_a: &A,
    side_b: &B,
    openings: &[G],
    config: &MatchConfig,
    stop: &Arc<std::sync::atomic::AtomicBool>,
) -> Result<MatchOutcome<G>, CliError> {
    let bar = progress_bar(
        config.pairs,
        "[{bar:30}] {pos}/{len} pairs, eta {eta}  {msg}",
    );
    let mut counted = MatchOutcome {
        tally: Default::default(),
        pairs: Vec::new(),
        sprt: None,
        stopped_early: false,
    };
    let outcome = run_match(side_a, side_b, openings, config, |pair, tally| {
        counted.tally = *tally;
        counted.pairs.push(pair.clone());
        let e = tally.estimate();
        bar.set_message(format!(
            "A scores {:.1}%, Elo {}",
            100.0 * e.score,
            e.elo_text(1)
        ));
        advance(&bar, "pairs");
    });
    bar.finish_and_clear();
    if interrupt::raised(stop) {
        counted.sprt = config.sprt.as_ref().map(|p| counted.tally.sprt(p));
        return Ok(counted);
    }
    outcome.map_err(CliError::failure)
}

/// The sides as the report names them: the spec, the limits, the book and the search.
fn side_names(
    args: &MatchArgs,
    config: &MatchConfig,
    spec_a: &SideSpec,
    spec_b: &SideSpec,
) -> (String, String) {
    let extras = |path: &Option<PathBuf>, search: &NamedSearch, threads: usize| {
        let book = path
            .as_ref()
            .map_or(String::new(), |p| format!(", book {}", p.display()));
        let threads = match threads {
            1 => String::new(),
            n => format!(", {n} threads"),
        };
        match search.name {
            "full" => format!("{book}{threads}"),
            name => format!("{book}, search {name}{threads}"),
        }
    };
    // Checked as the sides were loaded.
    let threads = |side, spec| side_threads(args, side, spec).unwrap_or(1);
    let limit = |limits: &Limits| match (config.clock, limits) {
        (Some(c), l) if (l.depth, l.nodes, l.movetime) == (None, None, None) => describe_clock(c),
        (Some(c), l) => format!("{}, {}", describe_clock(c), LimitArgs::describe(l)),
        (None, l) => LimitArgs::describe(l),
    };
    (
        format!(
            "A: {spec_a} ({}{})",
            limit(&config.limits_a),
            extras(&args.a_book, &args.a_search, threads("a", spec_a))
        ),
        format!(
            "B: {spec_b} ({}{})",
            limit(&config.limits_b),
            extras(&args.b_book, &args.b_search, threads("b", spec_b))
        ),
    )
}

fn describe_clock(control: TimeControl) -> String {
    format!(
        "clock {}+{} s",
        control.base.as_secs_f64(),
        control.increment.as_secs_f64()
    )
}
