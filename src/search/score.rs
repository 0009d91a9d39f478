//! Search scores: static values in centi-units, and finished games above them.
//!
//! A static value lies within ±[`EVAL_LIMIT`] (a draughts man, a Kalah stone is 100).
//! A finished game scores in the band from [`WIN_THRESHOLD`] to [`WIN`]: nearer `WIN` for
//! a better ending. Where a game's result has a margin (Kalah: the final store
//! difference), the margin ranks first and the distance second: a win by more above a
//! win by less, then a faster win above a slower one; losses mirror it (a loss by less,
//! then a slower one, above the rest). So the search fights for stones as the exact
//! solver does, and in draughts (margin always 1) it wins fastest and loses slowest.
//!
//! Encoding of a win by margin `m` (1..=[`Game::MAX_MARGIN`]) `d` plies from the root:
//! `WIN − (MAX_MARGIN − m)·slots − d`, `d < slots`, where `slots` is
//! [`MAX_MATE_DISTANCE`] for games without margins and [`MARGIN_DISTANCES`] otherwise;
//! a loss is its negation, a drawn ending 0.

use crate::eval::EVAL_LIMIT;
use crate::game::{ExactValue, Game};

/// Larger than any score.
pub const INFINITY: i32 = 32_000;
/// The score of a win at the root by the largest margin.
pub const WIN: i32 = 31_000;
/// Longest distance to the end a score can carry in a game without margins: the search's
/// plies plus an endgame database's distance from where it was probed.
pub const MAX_MATE_DISTANCE: i32 = 1000;
/// Distances a score can tell apart in a game with margins (at least the search's plies,
/// [`super::MAX_PLY`]); farther ends count as this far.
pub const MARGIN_DISTANCES: i32 = 128;
/// Scores at least this large in absolute value are finished games.
pub const WIN_THRESHOLD: i32 = WIN - 10_000;
const _: () = assert!(EVAL_LIMIT < WIN_THRESHOLD);
const _: () = assert!(MARGIN_DISTANCES >= super::MAX_PLY as i32);
// Kalah's largest margin: every stone of 12 pits of 6 in one store.
const _: () = assert!(72 * MARGIN_DISTANCES <= WIN - WIN_THRESHOLD);
const _: () = assert!(MAX_MATE_DISTANCE <= WIN - WIN_THRESHOLD);

/// Distances one margin of `G` can tell apart.
#[inline(always)]
const fn slots<G: Game>() -> i32 {
    if G::MAX_MARGIN <= 1 {
        MAX_MATE_DISTANCE
    } else {
        MARGIN_DISTANCES
    }
}

/// The score of a finished game `plies` plies from the root, `margin` its result for the
/// side to move there (positive won, 0 drawn, negative lost; see [`Game::final_margin`]).
#[inline(always)]
pub fn end_score<G: Game>(margin: i32, plies: i32) -> i32 {
    if margin == 0 {
        return 0;
    }
    let rank = G::MAX_MARGIN as i32 - margin.abs().min(G::MAX_MARGIN as i32);
    let slots = slots::<G>();
    margin.signum() * (WIN - rank * slots - plies.clamp(0, slots - 1))
}

/// The score of `pos`, a position without legal moves (the game is over), `ply` plies
/// from the root.
#[inline(always)]
pub fn game_over_score<G: Game>(pos: &G, ply: usize) -> i32 {
    end_score::<G>(pos.final_margin(), ply as i32)
}

/// What a finished game's score says.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Ending {
    /// The result for the side to move: positive won by that much, negative lost.
    pub margin: i32,
    /// Plies from the root to the end.
    pub plies: u32,
}

/// The ending a score stands for; `None` for a static value (or a drawn ending, 0).
pub fn ending<G: Game>(score: i32) -> Option<Ending> {
    if score.abs() < WIN_THRESHOLD {
        return None;
    }
    let short = WIN - score.abs().min(WIN);
    let slots = slots::<G>();
    Some(Ending {
        margin: score.signum() * (G::MAX_MARGIN as i32 - short / slots),
        plies: (short % slots) as u32,
    })
}

/// A finished game's score seen `plies` plies farther from its end (negative: nearer),
/// its margin kept; static values unchanged. The transposition table stores end scores
/// counted from their node and gives them back counted from the root.
#[inline(always)]
pub fn shift_distance<G: Game>(score: i32, plies: i32) -> i32 {
    if score.abs() < WIN_THRESHOLD {
        return score;
    }
    if G::MAX_MARGIN <= 1 {
        return score - score.signum() * plies;
    }
    let slots = slots::<G>();
    let short = WIN - score.abs();
    let (rank, distance) = (short / slots, short % slots);
    score.signum() * (WIN - rank * slots - (distance + plies).clamp(0, slots - 1))
}

/// The search score of an exact value met `ply` plies from the root: wins nearer the
/// root score higher, losses lower, as the search's own endings do. The value carries no
/// margin: a win counts as one by the least margin.
pub fn exact_score<G: Game>(value: ExactValue, ply: usize) -> i32 {
    let plies = |d: u32| ply as i32 + d as i32;
    match value {
        ExactValue::Win(d) => end_score::<G>(1, plies(d)),
        ExactValue::Loss(d) => end_score::<G>(-1, plies(d)),
        ExactValue::Draw => 0,
    }
}

/// A score as text, in the game's units: `+1.25 men`, `-3.00 stones`; a finished game
/// `win in 7` / `loss in 8` (plies to the end), with its margin where the game has one:
/// `win by 12 in 7`.
pub fn format_score<G: Game>(score: i32) -> String {
    match ending::<G>(score) {
        Some(Ending { margin, plies }) => {
            let word = if margin > 0 { "win" } else { "loss" };
            if G::MAX_MARGIN > 1 {
                format!("{word} by {} in {plies}", margin.abs())
            } else {
                format!("{word} in {plies}")
            }
        }
        None => format!("{:+.2} {}", f64::from(score) / 100.0, G::SCORE_UNITS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::brazilian::Brazilian;
    use crate::games::kalah::Kalah;

    #[test]
    fn draughts_endings_count_plies_as_before() {
        assert_eq!(end_score::<Brazilian>(1, 7), WIN - 7);
        assert_eq!(end_score::<Brazilian>(-1, 8), -(WIN - 8));
        assert_eq!(
            ending::<Brazilian>(WIN - 7),
            Some(Ending {
                margin: 1,
                plies: 7
            })
        );
        assert_eq!(shift_distance::<Brazilian>(WIN - 7, 3), WIN - 10);
        assert_eq!(shift_distance::<Brazilian>(-(WIN - 7), -3), -(WIN - 4));
        assert_eq!(shift_distance::<Brazilian>(150, 3), 150);
        assert_eq!(format_score::<Brazilian>(WIN - 7), "win in 7");
        assert_eq!(format_score::<Brazilian>(-125), "-1.25 men");
    }

    #[test]
    fn kalah_endings_rank_margin_then_speed() {
        let score = |margin, plies| end_score::<Kalah>(margin, plies);
        // More stones first, then faster; losses mirror.
        assert!(score(5, 40) > score(4, 1));
        assert!(score(5, 3) > score(5, 4));
        assert!(score(1, 100) > 0 && score(1, 100) >= WIN_THRESHOLD);
        assert!(score(-1, 1) > score(-2, 50));
        assert!(score(-2, 50) > score(-2, 49));
        assert!(score(-72, 0) <= -WIN_THRESHOLD && score(-72, 0) > -INFINITY);
        assert_eq!(score(0, 9), 0);
        for margin in [-72, -30, -1, 1, 12, 72] {
            for plies in [0, 1, 17, 127] {
                let s = score(margin, plies);
                assert_eq!(
                    ending::<Kalah>(s),
                    Some(Ending {
                        margin,
                        plies: plies as u32
                    })
                );
                // Into the table at ply 5 and back at ply 5 gives the same score.
                if plies >= 5 {
                    assert_eq!(
                        shift_distance::<Kalah>(shift_distance::<Kalah>(s, -5), 5),
                        s
                    );
                }
            }
        }
        // Farther than the distances told apart: the margin stays.
        let far = shift_distance::<Kalah>(score(3, 120), 30);
        assert_eq!(ending::<Kalah>(far).map(|e| e.margin), Some(3));
        assert_eq!(format_score::<Kalah>(score(-30, 1)), "loss by 30 in 1");
        assert_eq!(format_score::<Kalah>(350), "+3.50 stones");
    }
}
