//! Perft: the number of move paths of a given length, the standard check of a move
//! generator. Moves at the last ply are counted, not played ("bulk counting").

use super::Game;

/// Leaf count of the move tree of `pos` to `depth` plies. A position without moves
/// before the last ply contributes 0.
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    let mut lists = move_stack::<G>(depth);
    count(pos, depth, &mut lists)
}

/// Perft of each legal move of `pos` (depth − 1 below it), in generation order.
pub fn divide<G: Game>(pos: &G, depth: u32) -> Vec<(G::Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut root = G::Moves::default();
    pos.legal_moves(&mut root);
    let mut lists = move_stack::<G>(depth);
    root.iter()
        .map(|&mv| (mv, count(&pos.play(mv), depth - 1, &mut lists)))
        .collect()
}

/// One move list per ply, allocated once so the tree walk allocates nothing.
fn move_stack<G: Game>(depth: u32) -> Vec<G::Moves> {
    (0..depth.max(1)).map(|_| G::Moves::default()).collect()
}

fn count<G: Game>(pos: &G, depth: u32, lists: &mut [G::Moves]) -> u64 {
    match (depth, lists) {
        (0, _) | (_, []) => 1,
        (1, [scratch, ..]) => pos.count_legal_moves(scratch),
        // The last two plies in one frame: a call per leaf's parent costs more than its
        // count when its moves are quiet.
        (2, [list, scratch, ..]) => pos.count_replies(list, scratch),
        (_, [list, deeper @ ..]) => {
            pos.legal_moves(list);
            let mut nodes = 0;
            for &mv in list.iter() {
                nodes += count(&pos.play(mv), depth - 1, deeper);
            }
            nodes
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::MoveList;
    use crate::games::brazilian::Brazilian;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    /// Perft by listing and playing every move, the last ply included.
    fn plain<G: Game>(pos: &G, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut moves = G::Moves::default();
        pos.legal_moves(&mut moves);
        moves
            .iter()
            .map(|&mv| plain(&pos.play(mv), depth - 1))
            .sum()
    }

    fn agrees_with_the_plain_walk(pos: &Brazilian, max_depth: u32) {
        for depth in 1..=max_depth {
            assert_eq!(
                perft(pos, depth),
                plain(pos, depth),
                "{pos:?} depth {depth}"
            );
        }
    }

    /// Draughts' shortcuts (counting the last ply, the two-ply frame) against the plain
    /// walk, on every position of seeded random games: men, kings, captures of all kinds.
    #[test]
    fn draughts_perft_matches_the_plain_walk() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9E37_79B9);
        let mut moves = MoveList::new();
        let mut positions = 0;
        while positions < 4000 {
            let mut pos = Brazilian::start();
            for _ in 0..150 {
                positions += 1;
                agrees_with_the_plain_walk(&pos, 3);
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                pos = pos.play(moves[rng.random_range(0..moves.len())]);
            }
        }
    }

    /// The same on random placements, crowded so that men capture three, four and more
    /// pieces, round squares too.
    #[test]
    fn draughts_perft_matches_the_plain_walk_on_crowded_boards() {
        use crate::game::Side;
        use crate::games::brazilian::{Piece, Square};
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5EED_CAFE);
        let mut long_captures = 0;
        for _ in 0..20_000 {
            let mut squares: Vec<u8> = (1..=32).collect();
            let mut pieces = Vec::new();
            for side in [Side::First, Side::Second] {
                for _ in 0..rng.random_range(1..=12) {
                    let sq = squares.swap_remove(rng.random_range(0..squares.len()));
                    let piece = if rng.random_range(0..8) == 0 {
                        Piece::King(side)
                    } else {
                        Piece::Man(side)
                    };
                    pieces.push((Square::from_number(sq).unwrap(), piece));
                }
            }
            let side = if rng.random_range(0..2) == 0 {
                Side::First
            } else {
                Side::Second
            };
            let Ok(pos) = Brazilian::from_pieces(pieces, side) else {
                continue;
            };
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            if moves.first().is_some_and(|mv| mv.capture_count() >= 3) {
                long_captures += 1;
            }
            agrees_with_the_plain_walk(&pos, 2);
        }
        assert!(long_captures > 100, "only {long_captures} long captures");
    }
}
