//! Legal move generation for Brazilian draughts.
//!
//! Captures are compulsory and only the captures taking the most pieces are legal; a
//! capture is searched square by square (depth-first) with the captured pieces left on
//! the board until the move ends, so they block and cannot be jumped twice. Quiet moves
//! and the "can anything capture?" test are whole-board shifts.

use super::board::{BOARD, Dir};
use super::{Checkers, Move};
use crate::game::{MoveList, Side};

/// The side to move's view of a position.
#[derive(Clone, Copy)]
struct View {
    men: u64,
    kings: u64,
    them: u64,
    empty: u64,
}

impl View {
    #[inline(always)]
    fn of(pos: &Checkers) -> View {
        let (us, them) = match pos.side {
            Side::First => (pos.white, pos.black),
            Side::Second => (pos.black, pos.white),
        };
        View {
            men: us & !pos.kings,
            kings: us & pos.kings,
            them,
            empty: BOARD & !(pos.white | pos.black),
        }
    }

    /// The men and the kings of the side to move that have a capture.
    #[inline(always)]
    fn capturers(&self) -> Capturers {
        Capturers {
            men: self.men_capturers(),
            kings: self.king_capturers(),
        }
    }

    /// True if the side to move has a capture; the kings are looked at only when no man
    /// has one.
    #[inline(always)]
    fn any_capture(&self) -> bool {
        self.men_capturers() != 0 || self.king_capturers() != 0
    }

    #[inline(always)]
    fn men_capturers(&self) -> u64 {
        let mut men = 0;
        for dir in Dir::ALL {
            // Opponent pieces with an empty square behind them in `dir`.
            let targets = self.them & dir.shift_back(self.empty);
            men |= self.men & dir.shift_back(targets);
        }
        men
    }

    #[inline(always)]
    fn king_capturers(&self) -> u64 {
        if self.kings == 0 {
            return 0;
        }
        let mut kings = 0;
        for dir in Dir::ALL {
            let targets = self.them & dir.shift_back(self.empty);
            // Walk back from the targets over empty squares: a king met there sees a
            // target along `dir` with nothing in between.
            let mut ray = dir.shift_back(targets);
            let mut seen = ray;
            ray &= self.empty;
            while ray != 0 {
                ray = dir.shift_back(ray);
                seen |= ray;
                ray &= self.empty;
            }
            kings |= self.kings & seen;
        }
        kings
    }
}

/// Pieces of the side to move that can capture.
#[derive(Clone, Copy)]
struct Capturers {
    men: u64,
    kings: u64,
}

impl Capturers {
    #[inline(always)]
    fn any(&self) -> bool {
        self.men | self.kings != 0
    }
}

/// The men's captures when only men can capture, by direction (in [`Dir::ALL`] order).
#[derive(Clone, Copy)]
enum MenCaptures {
    /// No capture continues past its first jump: these men jump once.
    Single([u64; 4]),
    /// Some capture continues, so only captures of two or more pieces are legal, and
    /// only these men's first jumps (the ones that can go on) start one.
    Multiple([u64; 4]),
}

/// How the men capture when only men can capture; `None` when a king can capture. Most
/// captures are single jumps, and this finds them with whole-board shifts instead of a
/// square-by-square search; when some capture continues, it picks the first jumps the
/// square-by-square search must start from.
#[inline(always)]
fn men_captures(view: &View, capturers: Capturers) -> Option<MenCaptures> {
    if capturers.kings != 0 {
        return None;
    }
    // Squares from which a jump in each direction would be possible.
    let mut jump_from = [0; 4];
    let mut jumpers = [0; 4];
    for (i, dir) in Dir::ALL.into_iter().enumerate() {
        jump_from[i] = dir.shift_back(view.them & dir.shift_back(view.empty));
        jumpers[i] = view.men & jump_from[i];
    }
    // A second jump from the landing square cannot go back over the first victim, and
    // any other direction meets neither the victim nor the start square; so the board
    // as it is decides whether the capture continues.
    let mut continuing = [0; 4];
    let mut any = false;
    for (i, dir) in Dir::ALL.into_iter().enumerate() {
        let landings = dir.shift(dir.shift(jumpers[i]));
        let mut onward = 0;
        for (j, next) in Dir::ALL.into_iter().enumerate() {
            if next != dir.opposite() {
                onward |= landings & jump_from[j];
            }
        }
        continuing[i] = dir.shift_back(dir.shift_back(onward));
        any |= onward != 0;
    }
    Some(if any {
        MenCaptures::Multiple(continuing)
    } else {
        MenCaptures::Single(jumpers)
    })
}

/// The forward directions of the side to move's men.
#[inline(always)]
const fn forward(side: Side) -> [Dir; 2] {
    match side {
        Side::First => [Dir::NorthWest, Dir::NorthEast],
        Side::Second => [Dir::SouthWest, Dir::SouthEast],
    }
}

pub(super) fn has_capture(pos: &Checkers) -> bool {
    View::of(pos).any_capture()
}

/// True if the side to move can move at all (a capture, or a step into an empty square).
pub(super) fn has_legal_move(pos: &Checkers) -> bool {
    let view = View::of(pos);
    let mut steps = 0;
    for dir in forward(pos.side) {
        steps |= dir.shift(view.men);
    }
    for dir in Dir::ALL {
        steps |= dir.shift(view.kings);
    }
    steps & view.empty != 0 || view.any_capture()
}

pub(super) fn generate(pos: &Checkers, moves: &mut MoveList<Move>) {
    moves.clear();
    let view = View::of(pos);
    let capturers = view.capturers();
    if capturers.any() {
        match men_captures(&view, capturers) {
            Some(MenCaptures::Single(jumpers)) => {
                for (i, dir) in Dir::ALL.into_iter().enumerate() {
                    let mut from_set = jumpers[i];
                    while from_set != 0 {
                        let from = from_set & from_set.wrapping_neg();
                        from_set ^= from;
                        let victim = dir.shift(from);
                        moves.push(Move::from_bits(from, dir.shift(victim), victim));
                    }
                }
            }
            Some(MenCaptures::Multiple(starts)) => generate_men_captures(&view, starts, moves),
            None => generate_captures(&view, capturers, moves),
        }
    } else {
        generate_quiet(pos.side, &view, moves);
    }
}

/// Counts legal moves; quiet moves are counted by popcount without being listed.
#[inline(always)]
pub(super) fn count(pos: &Checkers, scratch: &mut MoveList<Move>) -> u64 {
    count_view(&View::of(pos), pos.side, scratch)
}

/// [`count`] of the position `view` shows, `side` to move.
#[inline(always)]
fn count_view(view: &View, side: Side, scratch: &mut MoveList<Move>) -> u64 {
    let mut jump_from = [0; 4];
    let mut jumpers = [0; 4];
    for (i, dir) in Dir::ALL.into_iter().enumerate() {
        jump_from[i] = dir.shift_back(view.them & dir.shift_back(view.empty));
        jumpers[i] = view.men & jump_from[i];
    }
    let men = jumpers[0] | jumpers[1] | jumpers[2] | jumpers[3];
    let kings = view.king_capturers();
    if kings != 0 {
        generate_captures(view, Capturers { men, kings }, scratch);
        return scratch.len() as u64;
    }
    if men != 0 {
        return count_men_captures(view, jump_from, jumpers, scratch);
    }
    let mut n = 0;
    for dir in forward(side) {
        n += (dir.shift(view.men) & view.empty).count_ones();
    }
    if view.kings != 0 {
        for dir in Dir::ALL {
            let mut ray = dir.shift(view.kings) & view.empty;
            while ray != 0 {
                n += ray.count_ones();
                ray = dir.shift(ray) & view.empty;
            }
        }
    }
    n as u64
}

/// Perft's last two plies: the legal replies to each legal move of `pos`, summed. A quiet
/// move is neither listed nor played: the reply position differs from `pos` only by the
/// move's two squares, so its view is `pos`'s with those bits flipped.
pub(super) fn count_replies(
    pos: &Checkers,
    list: &mut MoveList<Move>,
    scratch: &mut MoveList<Move>,
) -> u64 {
    // One copy per side, so that the men's directions are constants.
    match pos.side {
        Side::First => count_replies_of(pos, Side::First, list, scratch),
        Side::Second => count_replies_of(pos, Side::Second, list, scratch),
    }
}

#[inline(always)]
fn count_replies_of(
    pos: &Checkers,
    side: Side,
    list: &mut MoveList<Move>,
    scratch: &mut MoveList<Move>,
) -> u64 {
    let view = View::of(pos);
    let us = view.men | view.kings;
    // The reply's view after a move that flips the squares `moved` (start and end, or
    // nothing for a king capture back to its start) and takes `captured`. Crowning does
    // not matter: the replying side's moves do not depend on which of ours are kings.
    let reply = |moved: u64, captured: u64| View {
        men: view.them & !pos.kings & !captured,
        kings: view.them & pos.kings & !captured,
        them: us ^ moved,
        empty: (view.empty ^ moved) | captured,
    };
    let reply_side = side.opponent();
    if view.any_capture() {
        generate(pos, list);
        return list
            .iter()
            .map(|&mv| {
                let moved = (1u64 << mv.start_bit_index()) ^ (1u64 << mv.end_bit_index());
                count_view(&reply(moved, mv.captured_bits()), reply_side, scratch)
            })
            .sum();
    }
    let mut n = 0;
    for dir in forward(side) {
        let mut targets = dir.shift(view.men) & view.empty;
        while targets != 0 {
            let to = targets & targets.wrapping_neg();
            targets ^= to;
            n += count_view(&reply(to | dir.shift_back(to), 0), reply_side, scratch);
        }
    }
    let mut kings = view.kings;
    while kings != 0 {
        let from = kings & kings.wrapping_neg();
        kings ^= from;
        for dir in Dir::ALL {
            let mut to = dir.shift(from) & view.empty;
            while to != 0 {
                n += count_view(&reply(from | to, 0), reply_side, scratch);
                to = dir.shift(to) & view.empty;
            }
        }
    }
    n
}

/// Counts the men's captures when no king can capture; `jump_from` and `jumpers` by
/// direction as in [`men_captures`]. Captures of one or two pieces are counted by
/// whole-board shifts, longer ones searched.
#[inline(always)]
fn count_men_captures(
    view: &View,
    jump_from: [u64; 4],
    jumpers: [u64; 4],
    scratch: &mut MoveList<Move>,
) -> u64 {
    let mut landings = [0; 4];
    for (i, dir) in Dir::ALL.into_iter().enumerate() {
        landings[i] = dir.shift(dir.shift(jumpers[i]));
    }
    // A second jump can go any way but straight back, and the board as it is says where:
    // it cannot take the first victim again or land on the start square. And the board as
    // it is never allows the jump straight back: the start square is occupied on it.
    let any_jump = jump_from[0] | jump_from[1] | jump_from[2] | jump_from[3];
    let landed = landings[0] | landings[1] | landings[2] | landings[3];
    if landed & any_jump == 0 {
        return jumpers.iter().map(|j| j.count_ones() as u64).sum();
    }
    // Each path of two jumps is a bit of `landings[i] & jump_from[j]` (its first landing
    // square): distinct paths are distinct moves.
    let mut twos = 0;
    for landing in landings {
        for from in jump_from {
            twos += (landing & from).count_ones() as u64;
        }
    }
    // Is there a third jump? Again not straight back, which the board as it is would allow
    // (the first landing square is empty).
    let mut third = 0;
    for (j, dir) in Dir::ALL.into_iter().enumerate() {
        let mut onward = 0;
        for (k, next) in Dir::ALL.into_iter().enumerate() {
            if next != dir.opposite() {
                onward |= jump_from[k];
            }
        }
        third |= dir.shift(dir.shift(landed & jump_from[j])) & onward;
    }
    if third == 0 {
        return twos;
    }
    let capturers = Capturers {
        men: view.men_capturers(),
        kings: 0,
    };
    match men_captures(view, capturers) {
        Some(MenCaptures::Multiple(starts)) => generate_men_captures(view, starts, scratch),
        _ => unreachable!("a capture of three pieces continues past its first jump"),
    }
    scratch.len() as u64
}

fn generate_quiet(side: Side, view: &View, moves: &mut MoveList<Move>) {
    for dir in forward(side) {
        let mut targets = dir.shift(view.men) & view.empty;
        while targets != 0 {
            let to = targets & targets.wrapping_neg();
            targets ^= to;
            moves.push(Move::from_bits(dir.shift_back(to), to, 0));
        }
    }
    let mut kings = view.kings;
    while kings != 0 {
        let from = kings & kings.wrapping_neg();
        kings ^= from;
        for dir in Dir::ALL {
            let mut to = dir.shift(from) & view.empty;
            while to != 0 {
                moves.push(Move::from_bits(from, to, 0));
                to = dir.shift(to) & view.empty;
            }
        }
    }
}

/// State of one capture search: the best capture length found so far and where this
/// search's moves start in the list.
struct CaptureSearch<'a> {
    them: u64,
    moves: &'a mut MoveList<Move>,
    best: u32,
}

impl CaptureSearch<'_> {
    /// Records a finished capture sequence if it is (one of) the longest so far and is
    /// not a second path for a move already listed (same from, to and captured set).
    #[inline]
    fn record(&mut self, from: u64, to: u64, captured: u64) {
        let n = captured.count_ones();
        if n < self.best {
            return;
        }
        if n > self.best {
            self.best = n;
            self.moves.clear();
        }
        let mv = Move::from_bits(from, to, captured);
        if !self.moves.contains(&mv) {
            self.moves.push(mv);
        }
    }

    /// Continues a man's capture from `at`; `empty` counts the start square as empty.
    fn man(&mut self, from: u64, at: u64, captured: u64, empty: u64) {
        let mut extended = false;
        for dir in Dir::ALL {
            let victim = dir.shift(at) & self.them & !captured;
            if victim != 0 {
                let landing = dir.shift(victim) & empty;
                if landing != 0 {
                    extended = true;
                    self.man(from, landing, captured | victim, empty);
                }
            }
        }
        if !extended && captured != 0 {
            self.record(from, at, captured);
        }
    }

    /// Continues a flying king's capture from `at`.
    fn king(&mut self, from: u64, at: u64, captured: u64, empty: u64) {
        let mut extended = false;
        for dir in Dir::ALL {
            let mut victim = dir.shift(at);
            while victim & empty != 0 {
                victim = dir.shift(victim);
            }
            if victim & self.them & !captured == 0 {
                continue;
            }
            let mut landing = dir.shift(victim) & empty;
            while landing != 0 {
                extended = true;
                self.king(from, landing, captured | victim, empty);
                landing = dir.shift(landing) & empty;
            }
        }
        if !extended && captured != 0 {
            self.record(from, at, captured);
        }
    }
}

/// The captures of two or more pieces that start with the first jumps of `starts` (by
/// direction, as [`men_captures`] gives them).
fn generate_men_captures(view: &View, starts: [u64; 4], moves: &mut MoveList<Move>) {
    moves.clear();
    let mut search = CaptureSearch {
        them: view.them,
        moves,
        best: 2,
    };
    // Men in square order, each one's directions in turn: the order of the full search.
    let mut men = starts[0] | starts[1] | starts[2] | starts[3];
    while men != 0 {
        let from = men & men.wrapping_neg();
        men ^= from;
        for (i, dir) in Dir::ALL.into_iter().enumerate() {
            if starts[i] & from != 0 {
                let victim = dir.shift(from);
                search.man(from, dir.shift(victim), victim, view.empty | from);
            }
        }
    }
}

fn generate_captures(view: &View, capturers: Capturers, moves: &mut MoveList<Move>) {
    moves.clear();
    let mut search = CaptureSearch {
        them: view.them,
        moves,
        best: 1,
    };
    let mut men = capturers.men;
    while men != 0 {
        let from = men & men.wrapping_neg();
        men ^= from;
        search.man(from, from, 0, view.empty | from);
    }
    let mut kings = capturers.kings;
    while kings != 0 {
        let from = kings & kings.wrapping_neg();
        kings ^= from;
        search.king(from, from, 0, view.empty | from);
    }
}
