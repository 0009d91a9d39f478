//! `evalearn tournament`: a round robin of evaluators (every pair plays one paired match
//! on the same openings), optionally training the models first, so the round robin's table,
//! ratings and learning curves come from one command.

use std::path::PathBuf;

use clap::Args;

use super::args::{
    GameArg, LimitArgs, OpeningArgs, advance, check_new_output, counted, eval_spec, load_evaluator,
    progress_bar, write_output,
};
use super::egdb::EgdbOption;
use super::games::{Games, Job};
use super::{CliError, CliGame};
use crate::arena::matches::{DEFAULT_PLY_CAP, GAMES_TT_MIB, MatchConfig, run_match};
use crate::arena::players::Engine;
use crate::arena::tournament::{PairingResult, markdown, pairings, ratings};
use crate::eval::spec::{AnyEvaluator, EvalSpec};

/// Most players in one round robin.
const MAX_PLAYERS: usize = 16;

#[derive(Args, Debug)]
pub struct TournamentArgs {
    #[command(flatten)]
    game: GameArg,
    /// Players, comma-separated: built-in evaluators (draughts `material`; Kalah
    /// `stores`, `activity`, `tseitin`) or model file paths
    #[arg(long, value_delimiter = ',')]
    players: Vec<String>,
    /// Training configs, comma-separated: each is trained from scratch first (model,
    /// metrics and learning curve rewritten) and its model joins the players, ahead of
    /// --players
    #[arg(long, value_delimiter = ',')]
    train: Vec<PathBuf>,
    /// Games per pair (an even number: each opening is played twice, colours swapped)
    #[arg(long, value_parser = clap::value_parser!(u64).range(2..=10_000_000))]
    games: u64,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    openings: OpeningArgs,
    #[command(flatten)]
    egdb: EgdbOption,
    /// Worker threads (default: one per core); with depth or node limits the result does
    /// not depend on it
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Seed of the random openings (the same for every pair)
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Plies after which a game stops, counted as a draw (the same default everywhere,
    /// training configs' ply_cap included)
    #[arg(long, default_value_t = DEFAULT_PLY_CAP, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    ply_cap: u32,
    /// Transposition table of each engine in each worker, in MiB (small, as in training's
    /// self-play: the workers' tables share the cache; play, analyse and hub search one
    /// position at a time and default to 64)
    #[arg(long = "tt-mb", default_value_t = GAMES_TT_MIB, value_parser = clap::value_parser!(u64).range(1..=4096))]
    tt_mb: u64,
    /// Also write the table and ratings as Markdown
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Also write the results as JSON
    #[arg(long)]
    json: Option<PathBuf>,
    /// Replace an existing --markdown or --json file
    #[arg(long)]
    force: bool,
}

pub fn tournament(games: &Games, args: TournamentArgs) -> Result<(), CliError> {
    for (flag, path) in [("--markdown", &args.markdown), ("--json", &args.json)] {
        if let Some(path) = path {
            check_new_output(flag, path, args.force)?;
        }
    }
    if !args.games.is_multiple_of(2) {
        return Err(CliError::input(format!(
            "--games {}: must be even (each opening is played twice, colours swapped)",
            args.games
        )));
    }
    let players = args.train.len() + args.players.len();
    if !(2..=MAX_PLAYERS).contains(&players) {
        return Err(CliError::input(format!(
            "a round robin needs 2 to {MAX_PLAYERS} players (--train configs and --players \
             together), got {players}"
        )));
    }
    let mut specs = Vec::with_capacity(players);
    for config in &args.train {
        let model = super::train::train_from_scratch(games, config, &args.egdb)?;
        specs.push(EvalSpec::Model(model));
    }
    for text in &args.players {
        specs.push(eval_spec(games, "--players", text)?);
    }
    let names = player_names(&specs);
    if let Some(twice) = (1..names.len()).find(|&i| names[..i].contains(&names[i])) {
        return Err(CliError::input(format!(
            "player {} is named twice: each plays once",
            names[twice]
        )));
    }
    let game = args
        .game
        .resolve(games, &specs.iter().collect::<Vec<_>>())?;
    games.run(&game, Job::Tournament(Box::new(args), specs, names))
}

/// Short names for the table: a model's file stem (`models/td.bin` → `td`), unless two
/// players would share one, then the specs as given.
fn player_names(specs: &[EvalSpec]) -> Vec<String> {
    let short: Vec<String> = specs
        .iter()
        .map(|spec| match spec {
            EvalSpec::Model(path) => path
                .file_stem()
                .map_or_else(|| spec.to_string(), |s| s.to_string_lossy().into_owned()),
            EvalSpec::Builtin(name) => name.clone(),
        })
        .collect();
    let distinct = (1..short.len()).all(|i| !short[..i].contains(&short[i]));
    if distinct {
        short
    } else {
        specs.iter().map(ToString::to_string).collect()
    }
}

pub(super) fn tournament_of<G: CliGame>(
    variant: G::Variant,
    args: TournamentArgs,
    specs: Vec<EvalSpec>,
    names: Vec<String>,
) -> Result<(), CliError> {
    let tablebase = args.egdb.load::<G>()?;
    let mut engines = Vec::with_capacity(specs.len());
    for spec in &specs {
        let (evaluator, _) = load_evaluator::<G>(variant, spec)?;
        engines.push(Engine::new(evaluator, tablebase.clone()));
    }
    let pairs = args.games / 2;
    let openings = args.openings.openings(variant, pairs as usize, args.seed)?;
    let limits = args.limits.limits();
    let config = MatchConfig {
        pairs,
        limits_a: limits.clone(),
        limits_b: limits.clone(),
        ply_cap: args.ply_cap,
        threads: args.threads,
        tt_mib: args.tt_mb as usize,
        seed: args.seed,
        sprt: None,
        clock: None,
    };
    let schedule = pairings(specs.len());
    println!(
        "round robin of {} players ({}), {} of {} games, {}, ply cap {}, {}",
        names.len(),
        names.join(", "),
        counted(schedule.len() as u64, "pairing", "pairings"),
        args.games,
        LimitArgs::describe(&limits),
        args.ply_cap,
        G::variant_name(variant)
    );
    let mut results = Vec::with_capacity(schedule.len());
    for (a, b) in schedule {
        let bar = progress_bar(
            pairs,
            &format!(
                "{} vs {}: [{{bar:30}}] {{pos}}/{{len}} pairs, eta {{eta}}",
                names[a], names[b]
            ),
        );
        let outcome = run_match::<G, Engine<G, AnyEvaluator<G>>, _>(
            &engines[a],
            &engines[b],
            &openings,
            &config,
            |_, _| advance(&bar, "pairs"),
        )
        .map_err(CliError::failure)?;
        bar.finish_and_clear();
        let result = PairingResult {
            a,
            b,
            games: outcome.tally.trinomial,
            estimate: outcome.tally.estimate(),
        };
        let (g, e) = (&result.games, &result.estimate);
        println!(
            "{} vs {}: {}–{}–{}, {:.1}%, Elo {}",
            names[a],
            names[b],
            g.wins,
            g.draws,
            g.losses,
            100.0 * e.score,
            e.elo_text(1)
        );
        results.push(result);
    }
    // Ratings relative to the game's baseline evaluator when it plays, else the first.
    let anchor = specs
        .iter()
        .position(|s| matches!(s, EvalSpec::Builtin(name) if name == G::BUILTINS[0]))
        .unwrap_or(0);
    let elo = ratings(specs.len(), &results, anchor);
    let table = markdown(&names, &results, &elo, anchor);
    println!("\n{table}");
    if let Some(path) = &args.markdown {
        write_output("--markdown", path, table.as_bytes())?;
    }
    if let Some(path) = &args.json {
        let json = serde_json::json!({
            "game": G::variant_name(variant),
            "players": names,
            "specs": specs.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "games_per_pair": args.games,
            "limit": LimitArgs::describe(&limits),
            "seed": args.seed,
            "anchor": names[anchor],
            "ratings": elo,
            "pairings": results,
        });
        let text = serde_json::to_string_pretty(&json).expect("plain values serialise");
        write_output("--json", path, text.as_bytes())?;
    }
    Ok(())
}
