//! `evalearn perft` and `evalearn moves`.

use std::time::Instant;

use clap::Args;

use super::{CliError, position_arg};
use crate::game::checkers::Checkers;
use crate::game::{Game, MoveList, perft};

/// Deepest perft accepted (depth 13 from the start is 2.5e9 leaves).
const MAX_PERFT_DEPTH: u32 = 30;

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Position (FEN, numeric or algebraic squares); the start position if absent
    #[arg(long)]
    fen: Option<String>,
    /// Plies to count
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_PERFT_DEPTH as i64))]
    depth: u32,
    /// First print each root move with its count
    #[arg(long)]
    divide: bool,
    /// Print moves in algebraic notation (c3-d4) instead of numeric (22-18)
    #[arg(long)]
    algebraic: bool,
}

#[derive(Args, Debug)]
pub struct MovesArgs {
    /// Position (FEN, numeric or algebraic squares); the start position if absent
    #[arg(long)]
    fen: Option<String>,
    /// Print moves in algebraic notation (c3-d4) instead of numeric (22-18)
    #[arg(long)]
    algebraic: bool,
}

fn format(pos: &Checkers, mv: <Checkers as Game>::Move, algebraic: bool) -> String {
    if algebraic {
        pos.format_move_algebraic(mv)
    } else {
        pos.format_move(mv)
    }
}

pub fn perft(args: PerftArgs) -> Result<(), CliError> {
    let pos = position_arg(args.fen.as_deref())?;
    let started = Instant::now();
    let nodes = if args.divide {
        let mut total = 0;
        for (mv, count) in perft::divide(&pos, args.depth) {
            println!("{} {count}", format(&pos, mv, args.algebraic));
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

pub fn moves(args: MovesArgs) -> Result<(), CliError> {
    let pos = position_arg(args.fen.as_deref())?;
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    for &mv in moves.iter() {
        println!("{}", format(&pos, mv, args.algebraic));
    }
    Ok(())
}
