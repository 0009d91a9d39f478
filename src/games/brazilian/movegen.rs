//! Legal move generation for Brazilian draughts.
//!
//! Captures are compulsory and only the captures taking the most pieces are legal; a
//! capture is searched square by square (depth-first) with the captured pieces left on
//! the board until the move ends, so they block and cannot be jumped twice. Quiet moves
//! and the "can anything capture?" test are whole-board shifts.

use super::board::{BOARD, Dir};
use super::{Brazilian, Move};
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
    fn of(pos: &Brazilian) -> View {
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
        // `back`: from a target back towards a king that could take it.
        for back in Dir::ALL {
            let targets = self.them & back.shift(self.empty);
            // Fill back from the targets over empty squares (in three doubling steps,
            // as a ray is at most seven squares long): a king next to that run, or next
            // to a target, sees the target with nothing in between.
            let mut run = back.shift(targets) & self.empty;
            let mut open = self.empty;
            run |= open & back.shift(run);
            open &= back.shift(open);
            run |= open & back.shift_by(run, 2);
            open &= back.shift_by(open, 2);
            run |= open & back.shift_by(run, 4);
            kings |= self.kings & back.shift(targets | run);
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
    let jumps = Jumps::of(view);
    let continuing = jumps.continuing();
    Some(if continuing != [0; 4] {
        MenCaptures::Multiple(continuing)
    } else {
        MenCaptures::Single(jumps.men)
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

pub(super) fn has_capture(pos: &Brazilian) -> bool {
    View::of(pos).any_capture()
}

/// True if the side to move can move at all (a capture, or a step into an empty square).
pub(super) fn has_legal_move(pos: &Brazilian) -> bool {
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

pub(super) fn generate(pos: &Brazilian, moves: &mut MoveList<Move>) {
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
pub(super) fn count(pos: &Brazilian, scratch: &mut MoveList<Move>) -> u64 {
    count_view(&View::of(pos), pos.side, scratch)
}

/// [`count`] of the position `view` shows, `side` to move.
#[inline(always)]
fn count_view(view: &View, side: Side, scratch: &mut MoveList<Move>) -> u64 {
    let jumps = Jumps::of(view);
    let kings = view.king_capturers();
    if kings != 0 {
        let men = jumps.capturers();
        generate_captures(view, Capturers { men, kings }, scratch);
        return scratch.len() as u64;
    }
    if jumps.capturers() != 0 {
        return match jumps.longest() {
            1 => jumps.men.iter().map(|j| j.count_ones() as u64).sum(),
            // Each path of two jumps is a bit of `landings[i] & from[j]` (its first
            // landing square), and distinct paths are distinct moves.
            2 => {
                let mut twos = 0;
                for landing in jumps.landings {
                    for from in jumps.from {
                        twos += (landing & from).count_ones() as u64;
                    }
                }
                twos
            }
            _ => count_longer_men_captures(view, scratch),
        };
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

/// [`count_view`] as a call, for the rarer moves of [`count_replies`], so that the copy
/// inlined in its loop over the men's steps has the registers to itself.
#[inline(never)]
fn count_view_apart(view: &View, side: Side, scratch: &mut MoveList<Move>) -> u64 {
    count_view(view, side, scratch)
}

/// The men's captures of three pieces or more, when no king can capture: searched. The
/// first jumps are found again here rather than passed in, which would keep them in
/// memory in the callers' hot loops.
#[inline(never)]
fn count_longer_men_captures(view: &View, scratch: &mut MoveList<Move>) -> u64 {
    generate_men_captures(view, Jumps::of(view).continuing(), scratch);
    scratch.len() as u64
}

/// The first jumps of the men of the side to move, by direction (in [`Dir::ALL`] order),
/// for counting their captures with whole-board shifts.
///
/// Up to the third jump the board as it is says where a man can jump next, except for
/// the jump straight back, which the rules forbid: any other jump can neither take a
/// piece already taken nor land on the start square (that takes four jumps round a
/// square). So each sequence of directions is one bitboard of paths, and distinct paths
/// are distinct moves.
#[derive(Clone, Copy)]
struct Jumps {
    /// Squares from which a man could jump: an opponent piece next, an empty square behind.
    from: [u64; 4],
    /// The men that can.
    men: [u64; 4],
    /// Where those men land.
    landings: [u64; 4],
}

impl Jumps {
    #[inline(always)]
    fn of(view: &View) -> Jumps {
        let mut jumps = Jumps {
            from: [0; 4],
            men: [0; 4],
            landings: [0; 4],
        };
        for (i, dir) in Dir::ALL.into_iter().enumerate() {
            jumps.from[i] = dir.shift_back(view.them & dir.shift_back(view.empty));
            jumps.men[i] = view.men & jumps.from[i];
            jumps.landings[i] = dir.shift(dir.shift(jumps.men[i]));
        }
        jumps
    }

    /// The men that can capture.
    #[inline(always)]
    fn capturers(&self) -> u64 {
        self.men[0] | self.men[1] | self.men[2] | self.men[3]
    }

    /// By direction, the men whose first jump a second one can follow. A second jump
    /// cannot go back over the first victim, and any other direction meets neither the
    /// victim nor the start square; so the board as it is decides.
    #[inline(always)]
    fn continuing(&self) -> [u64; 4] {
        let mut continuing = [0; 4];
        for (i, dir) in Dir::ALL.into_iter().enumerate() {
            let mut onward = 0;
            for (j, next) in Dir::ALL.into_iter().enumerate() {
                if next != dir.opposite() {
                    onward |= self.landings[i] & self.from[j];
                }
            }
            continuing[i] = dir.shift_back(dir.shift_back(onward));
        }
        continuing
    }

    /// The most jumps a man's capture can make, when there is one: 1, 2, or 3 for three
    /// or more.
    #[inline(always)]
    fn longest(&self) -> u32 {
        // From a landing square the board as it is never allows the jump straight back:
        // the start square is occupied on it.
        let any = self.from[0] | self.from[1] | self.from[2] | self.from[3];
        let landed = self.landings[0] | self.landings[1] | self.landings[2] | self.landings[3];
        if landed & any == 0 {
            return 1;
        }
        // After the second jump it would (the first landing square is empty): leave it out.
        let mut third = 0;
        for (j, dir) in Dir::ALL.into_iter().enumerate() {
            let mut onward = 0;
            for (k, next) in Dir::ALL.into_iter().enumerate() {
                if next != dir.opposite() {
                    onward |= self.from[k];
                }
            }
            third |= dir.shift(dir.shift(landed & self.from[j])) & onward;
        }
        if third == 0 { 2 } else { 3 }
    }
}

/// Perft's last two plies: the legal replies to each legal move of `pos`, summed. A move
/// is neither listed nor played when it is quiet or a man's capture of one or two pieces:
/// the reply position differs from `pos` only by the move's start, end and captured
/// squares, so its view is `pos`'s with those bits changed.
pub(super) fn count_replies(
    pos: &Brazilian,
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
    pos: &Brazilian,
    side: Side,
    list: &mut MoveList<Move>,
    scratch: &mut MoveList<Move>,
) -> u64 {
    let view = View::of(pos);
    // The replying side's view before the move; `reply` changes it by the move. Crowning
    // does not matter: the replying side's moves do not depend on which of ours are kings.
    let before = View {
        men: view.them & !pos.kings,
        kings: view.them & pos.kings,
        them: view.men | view.kings,
        empty: view.empty,
    };
    let reply = |moved: u64, captured: u64| before.after(moved, captured);
    let reply_side = side.opponent();
    let jumps = Jumps::of(&view);
    let kings = view.king_capturers();
    let mut n = 0;
    if kings == 0 && jumps.capturers() != 0 {
        match jumps.longest() {
            1 => {
                for (i, dir) in Dir::ALL.into_iter().enumerate() {
                    let mut landings = jumps.landings[i];
                    while landings != 0 {
                        let to = landings & landings.wrapping_neg();
                        landings ^= to;
                        let victim = dir.shift_back(to);
                        let from = dir.shift_back(victim);
                        n += count_view_apart(&reply(from | to, victim), reply_side, scratch);
                    }
                }
                return n;
            }
            2 => {
                for (i, first) in Dir::ALL.into_iter().enumerate() {
                    for (j, second) in Dir::ALL.into_iter().enumerate() {
                        // Never set for the jump straight back (see `Jumps::longest`).
                        let mut middles = jumps.landings[i] & jumps.from[j];
                        while middles != 0 {
                            let middle = middles & middles.wrapping_neg();
                            middles ^= middle;
                            let from = first.shift_back(first.shift_back(middle));
                            let to = second.shift(second.shift(middle));
                            let captured = first.shift_back(middle) | second.shift(middle);
                            n += count_view_apart(&reply(from | to, captured), reply_side, scratch);
                        }
                    }
                }
                return n;
            }
            _ => {}
        }
    }
    if kings != 0 || jumps.capturers() != 0 {
        generate(pos, list);
        return list
            .iter()
            .map(|&mv| {
                let moved = (1u64 << mv.start_bit_index()) ^ (1u64 << mv.end_bit_index());
                count_view_apart(&reply(moved, mv.captured_bits()), reply_side, scratch)
            })
            .sum();
    }
    // Each direction's loop written out, so that its shifts are constants.
    let [left, right] = forward(side);
    n += count_step_replies(left, view.men, &before, reply_side, scratch);
    n += count_step_replies(right, view.men, &before, reply_side, scratch);
    for_each_king_step(&view, |from, to| {
        n += count_view_apart(&reply(from | to, 0), reply_side, scratch);
    });
    n
}

impl View {
    /// The replying side's view after a move, from its view before (`self`): the move
    /// flips the squares `moved` of the mover (start and end, or nothing for a king capture
    /// back to its start) and takes `captured`.
    #[inline(always)]
    fn after(&self, moved: u64, captured: u64) -> View {
        View {
            men: self.men & !captured,
            kings: self.kings & !captured,
            them: self.them ^ moved,
            empty: (self.empty ^ moved) | captured,
        }
    }
}

/// The replies to the steps in direction `dir` of the mover's men `men`; `before` is the
/// replying side's view before the move.
#[inline(always)]
fn count_step_replies(
    dir: Dir,
    men: u64,
    before: &View,
    reply_side: Side,
    scratch: &mut MoveList<Move>,
) -> u64 {
    let mut n = 0;
    let mut targets = dir.shift(men) & before.empty;
    while targets != 0 {
        let to = targets & targets.wrapping_neg();
        targets ^= to;
        n += count_view(
            &before.after(to | dir.shift_back(to), 0),
            reply_side,
            scratch,
        );
    }
    n
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
    for_each_king_step(view, |from, to| moves.push(Move::from_bits(from, to, 0)));
}

/// Calls `f(from, to)` for every quiet move of the side to move's kings (single-bit
/// boards), king by king in square order, each one's directions in turn.
#[inline(always)]
fn for_each_king_step(view: &View, mut f: impl FnMut(u64, u64)) {
    let mut kings = view.kings;
    while kings != 0 {
        let from = kings & kings.wrapping_neg();
        kings ^= from;
        for dir in Dir::ALL {
            let mut to = dir.shift(from) & view.empty;
            while to != 0 {
                f(from, to);
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
        // Each direction written out, so that which end of a ray is nearest is a constant.
        let at_index = at.trailing_zeros();
        let mut extended = false;
        extended |= self.king_jumps(Dir::NorthWest, from, at_index, captured, empty);
        extended |= self.king_jumps(Dir::NorthEast, from, at_index, captured, empty);
        extended |= self.king_jumps(Dir::SouthWest, from, at_index, captured, empty);
        extended |= self.king_jumps(Dir::SouthEast, from, at_index, captured, empty);
        if !extended && captured != 0 {
            self.record(from, at, captured);
        }
    }

    /// The king's capture from bit index `at_index` going on in direction `dir`: the
    /// first piece met and the empty squares behind it come from the ray tables, and the
    /// landing squares are tried nearest first. True if there was a piece to take.
    #[inline(always)]
    fn king_jumps(
        &mut self,
        dir: Dir,
        from: u64,
        at_index: u32,
        captured: u64,
        empty: u64,
    ) -> bool {
        let occupied = BOARD & !empty;
        let blockers = dir.ray(at_index) & occupied;
        if blockers == 0 {
            return false;
        }
        let victim = dir.nearest(blockers);
        if victim & self.them & !captured == 0 {
            return false;
        }
        let beyond = dir.ray(victim.trailing_zeros());
        let stops = beyond & occupied;
        let mut landings = if stops == 0 {
            beyond
        } else {
            let stop = dir.nearest(stops);
            beyond & !(stop | dir.ray(stop.trailing_zeros()))
        };
        let jumps = landings != 0;
        while landings != 0 {
            let landing = dir.nearest(landings);
            landings ^= landing;
            self.king(from, landing, captured | victim, empty);
        }
        jumps
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
