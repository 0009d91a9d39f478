//! `evalearn perft` and `evalearn moves`.

use std::time::Instant;

use clap::Args;

use super::args::GameArg;
use super::games::{Games, Job};
use super::{CliError, CliGame, position_arg};
use crate::game::perft;

/// Deepest perft accepted (depth 13 of draughts from the start is 2.5e9 leaves).
const MAX_PERFT_DEPTH: u32 = 30;

#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    game: GameArg,
    /// Position (draughts: FEN with numeric or algebraic squares; Kalah: `A:` or `B:` and
    /// the 14 counts); the start position if absent
    #[arg(long, visible_alias = "fen")]
    position: Option<String>,
    /// Plies to count (Kalah: whole turns, every sowing of a player's turn)
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_PERFT_DEPTH as i64))]
    depth: u32,
    /// First print each root move with its count
    #[arg(long)]
    divide: bool,
    /// Print draughts moves in algebraic notation (c3-d4) instead of numeric (22-18)
    #[arg(long)]
    algebraic: bool,
}

#[derive(Args, Debug)]
pub struct MovesArgs {
    #[command(flatten)]
    game: GameArg,
    /// Position (see `perft`); the start position if absent
    #[arg(long, visible_alias = "fen")]
    position: Option<String>,
    /// Print draughts moves in algebraic notation (c3-d4) instead of numeric (22-18)
    #[arg(long)]
    algebraic: bool,
}

pub fn perft(games: &Games, args: PerftArgs) -> Result<(), CliError> {
    let spec = args.game.resolve(games, &[])?;
    games.run(&spec, Job::Perft(args))
}

pub(super) fn perft_of<G: CliGame>(variant: G::Variant, args: PerftArgs) -> Result<(), CliError> {
    let pos: G = position_arg(variant, args.position.as_deref())?;
    let started = Instant::now();
    let nodes = if args.divide {
        let mut total = 0;
        for (mv, count) in perft::divide(&pos, args.depth) {
            println!("{} {count}", pos.notation(mv, args.algebraic));
            total += count;
        }
        total
    } else {
        perft::perft(&pos, args.depth)
    };
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "perft({}) = {nodes} in {seconds:.3} s, {:.1} Mnps",
        args.depth,
        nodes as f64 / seconds.max(1e-9) / 1e6
    );
    println!("{nodes}");
    Ok(())
}

pub fn moves(games: &Games, args: MovesArgs) -> Result<(), CliError> {
    let spec = args.game.resolve(games, &[])?;
    games.run(&spec, Job::Moves(args))
}

pub(super) fn moves_of<G: CliGame>(variant: G::Variant, args: MovesArgs) -> Result<(), CliError> {
    let pos: G = position_arg(variant, args.position.as_deref())?;
    let mut moves = G::Moves::default();
    pos.legal_moves(&mut moves);
    for &mv in moves.iter() {
        println!("{}", pos.notation(mv, args.algebraic));
    }
    Ok(())
}
