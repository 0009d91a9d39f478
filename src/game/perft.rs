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
        (2, [list, scratch, ..]) => {
            pos.legal_moves(list);
            list.iter()
                .map(|&mv| pos.play(mv).count_legal_moves(scratch))
                .sum()
        }
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
