//! The solver's view of a position: the twelve pits seen from the side to move, and the
//! moves out of it with what each one banks.
//!
//! The future of a Kalah game depends only on the pits and on who moves, never on the
//! stores: the stores only keep what was banked. So the solver works on [`Pits`] turned
//! so that the side to move's row comes first (a position with B to move is the mirror of
//! one with A to move), and the value it computes is the margin still to be banked,
//! `V(pits)`: the side to move's future store gains minus the opponent's.

use super::super::sowing::{Desk, SowingEnd, sow};
use super::super::{A, Kalah, KalahMove, KalahRules, PITS};
use crate::game::Game;

/// The twelve pits from the side to move: its pits 1..6, then the opponent's pits 1..6.
pub type Pits = [u8; 2 * PITS];

/// A position's pits turned to its side to move.
pub fn pits_of(pos: &Kalah) -> Pits {
    let side = pos.side_to_move();
    let mut pits = [0; 2 * PITS];
    pits[..PITS].copy_from_slice(&pos.pits(side));
    pits[PITS..].copy_from_slice(&pos.pits(side.opponent()));
    pits
}

/// Stones in the pits (the stores excluded): the stones whose owner is still open.
#[inline(always)]
pub fn stones(pits: &Pits) -> u32 {
    pits.iter().map(|&c| u32::from(c)).sum()
}

/// The value of a finished game's pits: a row is empty, so each side's stones go to its
/// own store (rules 1.4 and 2). `None` while both rows hold stones.
#[inline(always)]
pub fn final_value(pits: &Pits) -> Option<i32> {
    let own: u32 = pits[..PITS].iter().map(|&c| u32::from(c)).sum();
    let theirs: u32 = pits[PITS..].iter().map(|&c| u32::from(c)).sum();
    (own == 0 || theirs == 0).then_some(own as i32 - theirs as i32)
}

/// The same pits seen from the other side.
#[inline(always)]
pub fn mirrored(pits: &Pits) -> Pits {
    let mut out = [0; 2 * PITS];
    out[..PITS].copy_from_slice(&pits[PITS..]);
    out[PITS..].copy_from_slice(&pits[..PITS]);
    out
}

/// The pits as a desk with A to move and empty stores, so a sowing's bank is the stores.
#[inline(always)]
fn desk_of(pits: &Pits) -> Desk {
    let mut counts = [0; 14];
    counts[..PITS].copy_from_slice(&pits[..PITS]);
    counts[PITS + 1..2 * PITS + 1].copy_from_slice(&pits[PITS..]);
    Desk::load(&counts)
}

/// A's store minus B's store of a desk that started with both empty: what A banked.
#[inline(always)]
fn banked(desk: Desk) -> i32 {
    i32::from(desk.at(PITS)) - i32::from(desk.at(2 * PITS + 1))
}

/// The pits of a desk seen from A (`turned == false`) or from B.
#[inline(always)]
fn pits_from_desk(desk: Desk, turned: bool) -> Pits {
    let counts = desk.counts();
    let (first, second) = if turned { (PITS + 1, 0) } else { (0, PITS + 1) };
    let mut pits = [0; 2 * PITS];
    pits[..PITS].copy_from_slice(&counts[first..first + PITS]);
    pits[PITS..].copy_from_slice(&counts[second..second + PITS]);
    pits
}

/// Where one sowing leaves the game, for the endgame database.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AfterSowing {
    /// The mover sows again in these pits (still turned to the mover).
    SowsAgain(Pits),
    /// The opponent moves in these pits (turned to the opponent).
    TurnPasses(Pits),
    /// The game is over; every stone has been banked.
    GameOver,
}

/// Sows the mover's pit `pit` (0..6, non-empty): the margin it banks for the mover and
/// where the game goes on.
#[inline(always)]
pub fn sow_once(pits: &Pits, rules: KalahRules, pit: usize) -> (i32, AfterSowing) {
    let mut desk = desk_of(pits);
    let (end, _) = sow(&mut desk, A, rules, pit);
    let after = match end {
        SowingEnd::SowsAgain => AfterSowing::SowsAgain(pits_from_desk(desk, false)),
        SowingEnd::TurnPasses => AfterSowing::TurnPasses(pits_from_desk(desk, true)),
        SowingEnd::GameOver => AfterSowing::GameOver,
    };
    (banked(desk), after)
}

/// One compound move out of a position and where it leads.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Child {
    pub mv: KalahMove,
    /// The pits after the move, turned to the opponent (all empty if the game ended).
    pub pits: Pits,
    /// Store margin the move banks for the mover (captures, stones sown into its store,
    /// and the opponent's sweep if the move ends the game, which counts against it).
    pub banked: i8,
    /// Index of the move in generation order (the order of [`Game::legal_moves`]).
    pub index: u16,
}

/// Calls `emit` with every compound move of `pits` (mover first), in the order of
/// [`Game::legal_moves`]. Each move is sown once: the walk keeps the desk after each
/// sowing that earns another, so a child costs no replay (unlike `legal_moves` + `play`).
#[inline]
pub fn for_each_child(pits: &Pits, rules: KalahRules, mut emit: impl FnMut(Child)) {
    if final_value(pits).is_some() {
        return;
    }
    let mut index = 0;
    walk(desk_of(pits), rules, KalahMove(0), &mut index, &mut emit);
}

/// One level of the walk: the sowings after `prefix` in `desk`. At most 29 levels deep
/// (the longest chain of store-ending sowings, see `moves.rs`); allocates nothing.
fn walk(
    desk: Desk,
    rules: KalahRules,
    prefix: KalahMove,
    index: &mut u16,
    emit: &mut impl FnMut(Child),
) {
    for pit in 0..PITS {
        if desk.pit(A, pit) == 0 {
            continue;
        }
        let Some(mv) = prefix.then(pit as u8 + 1) else {
            continue;
        };
        let mut next = desk;
        let (end, _) = sow(&mut next, A, rules, pit);
        if end == SowingEnd::SowsAgain {
            walk(next, rules, mv, index, emit);
            continue;
        }
        emit(Child {
            mv,
            pits: pits_from_desk(next, true),
            banked: banked(next) as i8,
            index: *index,
        });
        *index = index.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kalah::{B, KalahMoves};

    fn position(text: &str, rules: KalahRules) -> Kalah {
        Kalah::parse_position_of(rules, text).unwrap()
    }

    /// The walk yields the moves of `legal_moves`, in order, each leading to the pits
    /// `play` reaches and banking what the stores gained.
    #[test]
    fn children_agree_with_legal_moves_and_play() {
        let rules = KalahRules::default();
        let texts = [
            "A:6,6,6,6,6,6,0,6,6,6,6,6,6,0",
            "B:1,7,0,7,7,8,0,0,0,8,8,8,8,10",
            "A:0,0,0,0,2,1,30,1,0,3,0,0,0,35",
            "B:13,1,0,0,0,0,20,1,1,1,1,1,4,29",
            "A:0,0,0,0,0,1,35,0,0,0,0,0,1,35",
        ];
        for text in texts {
            for empty_capture in [false, true] {
                let rules = KalahRules {
                    empty_capture,
                    ..rules
                };
                let pos = position(text, rules);
                let mut moves = KalahMoves::new();
                pos.legal_moves(&mut moves);
                let mut children = Vec::new();
                for_each_child(&pits_of(&pos), rules, |c| children.push(c));
                assert_eq!(children.len(), moves.len(), "{text}");
                for (i, (child, &mv)) in children.iter().zip(moves.iter()).enumerate() {
                    let next = pos.play(mv);
                    assert_eq!(child.mv, mv, "{text}");
                    assert_eq!(child.index as usize, i);
                    assert_eq!(child.pits, pits_of(&next), "{text} {mv:?}");
                    let mover = pos.side_to_move();
                    let gained =
                        |p: &Kalah| p.store(mover) as i32 - p.store(mover.opponent()) as i32;
                    assert_eq!(
                        child.banked as i32,
                        gained(&next) - gained(&pos),
                        "{text} {mv:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn pits_turn_with_the_side_to_move() {
        let pos = position("B:1,2,3,4,5,6,0,7,8,9,10,0,0,17", KalahRules::default());
        assert_eq!(pits_of(&pos), [7, 8, 9, 10, 0, 0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(
            pits_of(&pos.with_side_to_move(A)),
            mirrored(&pits_of(&pos.with_side_to_move(B)))
        );
        assert_eq!(stones(&pits_of(&pos)), 55);
        assert_eq!(final_value(&pits_of(&pos)), None);
        assert_eq!(final_value(&[0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0]), Some(-3));
        assert_eq!(final_value(&[0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Some(4));
    }
}
