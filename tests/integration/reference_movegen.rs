//! An independent check of the fast bitboard move generator.
//!
//! The reference generator below is written from the rules in
//! the rules of docs/rules.md alone: an 8×8 array indexed by file and rank,
//! plain recursion over capture sequences, a set for de-duplication. It is slow and
//! meant to be obviously right. It first proves itself on perft from the start position,
//! then it is compared with `Brazilian::legal_moves` on tens of thousands of positions
//! (random games, random placements, placements built to provoke long multi-captures).
//!
//! The two sides meet only at FEN text and at move sets written as
//! (from, to, sorted captured squares) in PDN numbers, so a shared misunderstanding of
//! the engine's internal board layout cannot hide a bug.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use evalearn::game::{Game, MoveList};
use evalearn::games::brazilian::{Brazilian, Move};
use rand::{RngExt, SeedableRng, rngs::Xoshiro256PlusPlus};

// ---------------------------------------------------------------------------------------
// The reference board
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Colour {
    White,
    Black,
}

impl Colour {
    fn opponent(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }

    /// Rank step of a man's forward move: White moves up the board, Black down.
    fn forward(self) -> i32 {
        match self {
            Colour::White => 1,
            Colour::Black => -1,
        }
    }

    /// The rank (0 = rank 1) on which this colour's men are crowned.
    fn crowning_rank(self) -> i32 {
        match self {
            Colour::White => 7,
            Colour::Black => 0,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct RefPiece {
    colour: Colour,
    king: bool,
}

/// A move as both generators are compared on: start square, end square and the sorted
/// set of captured squares, all as PDN numbers (1..=32). Two capture orders with the
/// same triple are the same move, which a `BTreeSet` of these gives for free.
type MoveKey = (u8, u8, Vec<u8>);

/// Diagonal steps as (file step, rank step).
const DIRECTIONS: [(i32, i32); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

/// PDN number of the dark square at (file, rank), both 0-based from a1.
/// Rows are numbered from the top (rank 8 first), four dark squares per row, left to right.
fn square_number(file: i32, rank: i32) -> u8 {
    assert!((0..8).contains(&file) && (0..8).contains(&rank));
    assert!((file + rank) % 2 == 0, "light square {file},{rank}");
    ((7 - rank) * 4 + file / 2 + 1) as u8
}

/// (file, rank) of PDN square `number`. On ranks 8, 6, 4, 2 (odd 0-based rank) the dark
/// squares are files b, d, f, h; on ranks 7, 5, 3, 1 they are a, c, e, g.
fn square_coords(number: u8) -> (i32, i32) {
    assert!((1..=32).contains(&number), "square {number} out of range");
    let index = i32::from(number) - 1;
    let rank = 7 - index / 4;
    let file = 2 * (index % 4) + if rank % 2 == 1 { 1 } else { 0 };
    (file, rank)
}

#[derive(Clone, PartialEq, Eq, Debug)]
struct Board {
    /// `cells[file][rank]`; only dark squares are ever occupied.
    cells: [[Option<RefPiece>; 8]; 8],
    to_move: Colour,
}

impl Board {
    fn on_board(file: i32, rank: i32) -> bool {
        (0..8).contains(&file) && (0..8).contains(&rank)
    }

    fn get(&self, file: i32, rank: i32) -> Option<RefPiece> {
        self.cells[file as usize][rank as usize]
    }

    fn set(&mut self, file: i32, rank: i32, piece: Option<RefPiece>) {
        self.cells[file as usize][rank as usize] = piece;
    }

    fn is_empty_square(&self, file: i32, rank: i32) -> bool {
        Board::on_board(file, rank) && self.get(file, rank).is_none()
    }

    fn has_king(&self) -> bool {
        self.cells.iter().flatten().flatten().any(|p| p.king)
    }

    /// Reads `W:W21,22,K30:B1,2,K12` (also accepts `a-b` ranges and a trailing `.`).
    fn from_fen(fen: &str) -> Board {
        let mut parts = fen.trim().trim_end_matches('.').split(':');
        let to_move = match parts.next() {
            Some("W") => Colour::White,
            Some("B") => Colour::Black,
            other => panic!("bad side to move {other:?} in FEN {fen:?}"),
        };
        let mut board = Board {
            cells: [[None; 8]; 8],
            to_move,
        };
        for part in parts {
            let colour = match part.chars().next() {
                Some('W') => Colour::White,
                Some('B') => Colour::Black,
                _ => panic!("bad colour field {part:?} in FEN {fen:?}"),
            };
            for item in part[1..].split(',').filter(|s| !s.is_empty()) {
                let (king, numbers) = match item.strip_prefix('K') {
                    Some(rest) => (true, rest),
                    None => (false, item),
                };
                let parse = |s: &str| -> u8 {
                    s.parse()
                        .unwrap_or_else(|_| panic!("bad square {s:?} in FEN {fen:?}"))
                };
                let (first, last) = match numbers.split_once('-') {
                    Some((a, b)) => (parse(a), parse(b)),
                    None => (parse(numbers), parse(numbers)),
                };
                for number in first..=last {
                    let (file, rank) = square_coords(number);
                    assert!(
                        board.get(file, rank).is_none(),
                        "square {number} twice in FEN {fen:?}"
                    );
                    board.set(file, rank, Some(RefPiece { colour, king }));
                }
            }
        }
        board
    }

    fn to_fen(&self) -> String {
        let mut fen = String::from(match self.to_move {
            Colour::White => "W",
            Colour::Black => "B",
        });
        for (colour, letter) in [(Colour::White, 'W'), (Colour::Black, 'B')] {
            fen.push(':');
            fen.push(letter);
            let mut items = Vec::new();
            for number in 1..=32u8 {
                let (file, rank) = square_coords(number);
                if let Some(piece) = self.get(file, rank)
                    && piece.colour == colour
                {
                    items.push(format!("{}{number}", if piece.king { "K" } else { "" }));
                }
            }
            fen.push_str(&items.join(","));
        }
        fen
    }

    /// Every legal move of the side to move: the maximum captures if any capture
    /// exists, otherwise every quiet move.
    fn legal_moves(&self) -> BTreeSet<MoveKey> {
        let mut captures = BTreeSet::new();
        for file in 0..8 {
            for rank in 0..8 {
                let Some(piece) = self.get(file, rank) else {
                    continue;
                };
                if piece.colour != self.to_move {
                    continue;
                }
                // The mover's start square is empty as soon as it has left: lift it off.
                let mut lifted = self.clone();
                lifted.set(file, rank, None);
                let mut jumped = Vec::new();
                lifted.collect_captures(
                    piece,
                    square_number(file, rank),
                    (file, rank),
                    &mut jumped,
                    &mut captures,
                );
            }
        }
        if let Some(most) = captures.iter().map(|m| m.2.len()).max() {
            return captures.into_iter().filter(|m| m.2.len() == most).collect();
        }
        self.quiet_moves()
    }

    /// Explores every continuation of a capture sequence of `mover` (lifted off the
    /// board) standing at `at` after having jumped `jumped`, and records each sequence
    /// that cannot be continued. Jumped pieces stay on the board until the move ends, so
    /// they keep blocking; `jumped` only marks them as not jumpable again.
    /// A man stays a man for the whole sequence, even on the crowning row.
    fn collect_captures(
        &self,
        mover: RefPiece,
        from: u8,
        at: (i32, i32),
        jumped: &mut Vec<(i32, i32)>,
        out: &mut BTreeSet<MoveKey>,
    ) {
        let (file, rank) = at;
        let mut continued = false;
        for (df, dr) in DIRECTIONS {
            // The piece to jump: a man looks only at the adjacent square, a king at the
            // first occupied square along the diagonal.
            let mut distance = 1;
            if mover.king {
                while self.is_empty_square(file + distance * df, rank + distance * dr) {
                    distance += 1;
                }
            }
            let victim = (file + distance * df, rank + distance * dr);
            if !Board::on_board(victim.0, victim.1) {
                continue;
            }
            let Some(victim_piece) = self.get(victim.0, victim.1) else {
                continue;
            };
            if victim_piece.colour == mover.colour || jumped.contains(&victim) {
                continue;
            }
            // Landing squares: the empty squares beyond the victim up to the next
            // occupied one (a man: only the one just beyond).
            let mut beyond = 1;
            while self.is_empty_square(victim.0 + beyond * df, victim.1 + beyond * dr) {
                let landing = (victim.0 + beyond * df, victim.1 + beyond * dr);
                continued = true;
                jumped.push(victim);
                self.collect_captures(mover, from, landing, jumped, out);
                jumped.pop();
                if !mover.king {
                    break;
                }
                beyond += 1;
            }
        }
        if !continued && !jumped.is_empty() {
            let mut captured: Vec<u8> = jumped.iter().map(|&(f, r)| square_number(f, r)).collect();
            captured.sort_unstable();
            out.insert((from, square_number(file, rank), captured));
        }
    }

    fn quiet_moves(&self) -> BTreeSet<MoveKey> {
        let mut moves = BTreeSet::new();
        for file in 0..8 {
            for rank in 0..8 {
                let Some(piece) = self.get(file, rank) else {
                    continue;
                };
                if piece.colour != self.to_move {
                    continue;
                }
                let from = square_number(file, rank);
                for (df, dr) in DIRECTIONS {
                    if !piece.king && dr != piece.colour.forward() {
                        continue;
                    }
                    let mut distance = 1;
                    while self.is_empty_square(file + distance * df, rank + distance * dr) {
                        let to = square_number(file + distance * df, rank + distance * dr);
                        moves.insert((from, to, Vec::new()));
                        if !piece.king {
                            break;
                        }
                        distance += 1;
                    }
                }
            }
        }
        moves
    }

    /// The position after `mv` (one of this position's legal moves): captured pieces
    /// removed, a man ending on its crowning row crowned, the other side to move.
    fn play(&self, mv: &MoveKey) -> Board {
        let (from, to, captured) = mv;
        let (from_file, from_rank) = square_coords(*from);
        let (to_file, to_rank) = square_coords(*to);
        let mut next = self.clone();
        let mut piece = next
            .get(from_file, from_rank)
            .expect("no piece on from square");
        for &number in captured {
            let (file, rank) = square_coords(number);
            next.set(file, rank, None);
        }
        next.set(from_file, from_rank, None);
        if to_rank == piece.colour.crowning_rank() {
            piece.king = true;
        }
        next.set(to_file, to_rank, Some(piece));
        next.to_move = self.to_move.opponent();
        next
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|mv| self.play(mv).perft(depth - 1)).sum()
    }
}

// ---------------------------------------------------------------------------------------
// Comparison with the fast generator
// ---------------------------------------------------------------------------------------

fn key_of(mv: Move) -> MoveKey {
    let mut captured: Vec<u8> = mv.captured().map(|sq| sq.number()).collect();
    captured.sort_unstable();
    (mv.from().number(), mv.to().number(), captured)
}

fn format_key((from, to, captured): &MoveKey) -> String {
    if captured.is_empty() {
        format!("{from}-{to}")
    } else {
        let list: Vec<String> = captured.iter().map(u8::to_string).collect();
        format!("{from}x{to} {{{}}}", list.join(","))
    }
}

fn format_keys<'a>(keys: impl Iterator<Item = &'a MoveKey>) -> String {
    let list: Vec<String> = keys.map(format_key).collect();
    format!("[{}]", list.join(", "))
}

/// What the mix of compared positions contains, so the test can assert it is meaningful.
#[derive(Default, Debug)]
struct Tallies {
    positions: u64,
    with_kings: u64,
    capture_compulsory: u64,
    max_capture_at_least_3: u64,
    /// Positions where one king capture (same start, same captured set) has several
    /// legal end squares.
    king_capture_several_landings: u64,
    largest_move_list: usize,
    /// `max_capture_histogram[n]`: positions whose legal captures take n pieces.
    max_capture_histogram: [u64; 13],
}

#[derive(Default)]
struct Comparison {
    tallies: Tallies,
    mismatch_count: u64,
    /// Reports of the first few mismatches (FEN and both move sets).
    reports: Vec<String>,
}

impl Comparison {
    fn report(&mut self, text: String) {
        self.mismatch_count += 1;
        if self.reports.len() < 20 {
            eprintln!("{text}");
            self.reports.push(text);
        }
    }

    /// Compares both generators on `pos`, tallies it, and returns the reference board
    /// and move set (for the random games, which play on).
    fn compare(
        &mut self,
        pos: &Brazilian,
        list: &mut MoveList<Move>,
    ) -> (Board, BTreeSet<MoveKey>) {
        let fen = pos.format_position();
        let board = Board::from_fen(&fen);
        let reference = board.legal_moves();

        pos.legal_moves(list);
        let fast_keys: Vec<MoveKey> = list.iter().map(|&mv| key_of(mv)).collect();
        let fast: BTreeSet<MoveKey> = fast_keys.iter().cloned().collect();

        if fast != reference || fast_keys.len() != fast.len() {
            let mut text = format!("MISMATCH in {fen}\n");
            let only_fast: Vec<&MoveKey> = fast.difference(&reference).collect();
            let only_reference: Vec<&MoveKey> = reference.difference(&fast).collect();
            let _ = writeln!(
                text,
                "  only in fast list:      {}",
                format_keys(only_fast.into_iter())
            );
            let _ = writeln!(
                text,
                "  only in reference list: {}",
                format_keys(only_reference.into_iter())
            );
            if fast_keys.len() != fast.len() {
                let _ = writeln!(
                    text,
                    "  fast list has duplicates: {}",
                    format_keys(fast_keys.iter())
                );
            }
            self.report(text);
        }
        self.tally(&board, &reference);
        (board, reference)
    }

    fn tally(&mut self, board: &Board, moves: &BTreeSet<MoveKey>) {
        let t = &mut self.tallies;
        t.positions += 1;
        t.largest_move_list = t.largest_move_list.max(moves.len());
        if board.has_king() {
            t.with_kings += 1;
        }
        let captured = moves.iter().next().map_or(0, |m| m.2.len());
        t.max_capture_histogram[captured] += 1;
        if captured > 0 {
            t.capture_compulsory += 1;
        }
        if captured >= 3 {
            t.max_capture_at_least_3 += 1;
        }
        let several_landings = moves.iter().any(|(from, to, set)| {
            let (file, rank) = square_coords(*from);
            !set.is_empty()
                && board.get(file, rank).is_some_and(|p| p.king)
                && moves
                    .iter()
                    .any(|(f2, t2, s2)| f2 == from && s2 == set && t2 != to)
        });
        if several_landings {
            t.king_capture_several_landings += 1;
        }
    }

    /// Feeds a FEN to the engine and compares; the engine's own FEN must round-trip.
    fn compare_fen(&mut self, fen: &str, list: &mut MoveList<Move>) {
        let pos = Brazilian::parse_position(fen)
            .unwrap_or_else(|e| panic!("engine rejected valid FEN {fen}: {e}"));
        let written = pos.format_position();
        if Board::from_fen(&written) != Board::from_fen(fen) {
            self.report(format!(
                "FEN ROUND TRIP changed the position: {fen} -> {written}\n"
            ));
        }
        self.compare(&pos, list);
    }
}

// ---------------------------------------------------------------------------------------
// Position sources
// ---------------------------------------------------------------------------------------

/// Plays uniformly random legal moves (chosen from the fast list) from the start,
/// comparing at every ply, and checks that the engine's `play` gives the position the
/// reference rules give.
fn random_games(cmp: &mut Comparison, rng: &mut Xoshiro256PlusPlus, games: u32) {
    let mut list = MoveList::new();
    for _ in 0..games {
        let mut pos = Brazilian::start();
        for _ply in 0..200 {
            let (board, reference) = cmp.compare(&pos, &mut list);
            if list.is_empty() {
                break;
            }
            let mv = list[rng.random_range(0..list.len())];
            let key = key_of(mv);
            let next = pos.play(mv);
            // Only check `play` for moves the reference knows, or it could not apply them.
            if reference.contains(&key) {
                let expected = board.play(&key);
                let actual = Board::from_fen(&next.format_position());
                if expected != actual {
                    cmp.report(format!(
                        "PLAY MISMATCH: {} after {}\n  engine:    {}\n  reference: {}\n",
                        pos.format_position(),
                        format_key(&key),
                        actual.to_fen(),
                        expected.to_fen()
                    ));
                }
            }
            pos = next;
        }
    }
}

/// Writes a FEN from piece lists: (PDN number, is king).
fn fen_from(white_to_move: bool, white: &[(u8, bool)], black: &[(u8, bool)]) -> String {
    let list = |pieces: &[(u8, bool)]| -> String {
        let items: Vec<String> = pieces
            .iter()
            .map(|&(n, king)| format!("{}{n}", if king { "K" } else { "" }))
            .collect();
        items.join(",")
    };
    format!(
        "{}:W{}:B{}",
        if white_to_move { "W" } else { "B" },
        list(white),
        list(black)
    )
}

/// Picks a random free square for a piece; men never go on their own crowning row
/// (White men: 1..=4, Black men: 29..=32), as a real game cannot reach that.
fn free_square(
    rng: &mut Xoshiro256PlusPlus,
    taken: &mut [bool; 33],
    allowed: impl Fn(u8) -> bool,
) -> Option<u8> {
    let candidates: Vec<u8> = (1..=32u8)
        .filter(|&n| !taken[n as usize] && allowed(n))
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let n = candidates[rng.random_range(0..candidates.len())];
    taken[n as usize] = true;
    Some(n)
}

fn man_allowed(colour: Colour, n: u8) -> bool {
    match colour {
        Colour::White => n > 4,
        Colour::Black => n < 29,
    }
}

/// Places `count` pieces of `colour`, `kings` of them kings, on squares passing `allowed`.
fn place(
    rng: &mut Xoshiro256PlusPlus,
    taken: &mut [bool; 33],
    colour: Colour,
    count: usize,
    kings: usize,
    allowed: impl Fn(u8) -> bool,
) -> Vec<(u8, bool)> {
    let mut pieces = Vec::new();
    for i in 0..count {
        let king = i < kings;
        let square = free_square(rng, taken, |n| {
            allowed(n) && (king || man_allowed(colour, n))
        });
        if let Some(n) = square {
            pieces.push((n, king));
        }
    }
    pieces
}

/// Uniform random legal placements with 1–6 kings a side and 2–12 pieces a side.
fn random_placements(cmp: &mut Comparison, rng: &mut Xoshiro256PlusPlus, count: u32) {
    let mut list = MoveList::new();
    for _ in 0..count {
        let mut taken = [false; 33];
        let mut sides = Vec::new();
        for colour in [Colour::White, Colour::Black] {
            let pieces = rng.random_range(2..=12usize);
            let kings = rng.random_range(1..=pieces.min(6));
            sides.push(place(rng, &mut taken, colour, pieces, kings, |_| true));
        }
        let fen = fen_from(rng.random_bool(0.5), &sides[0], &sides[1]);
        cmp.compare_fen(&fen, &mut list);
    }
}

/// Placements built for long captures: a few attackers (mostly kings) against many
/// enemy men scattered over the inner squares, where they can be jumped, with gaps
/// left between them to land on. The attacker is to move.
fn capture_placements(cmp: &mut Comparison, rng: &mut Xoshiro256PlusPlus, count: u32) {
    // Inner squares: not on the board's edge, so a piece there can be jumped.
    let inner = |n: u8| {
        let (file, rank) = square_coords(n);
        (1..7).contains(&file) && (1..7).contains(&rank)
    };
    let mut list = MoveList::new();
    for _ in 0..count {
        let attacker = if rng.random_bool(0.5) {
            Colour::White
        } else {
            Colour::Black
        };
        let mut taken = [false; 33];
        let attackers = rng.random_range(1..=3usize);
        let attacking_kings = (0..attackers).filter(|_| rng.random_bool(0.6)).count();
        let attack = place(
            rng,
            &mut taken,
            attacker,
            attackers,
            attacking_kings,
            |_| true,
        );
        // 4–10 defending men on inner squares (18 of them), plus a few anywhere.
        let inner_men = rng.random_range(4..=10usize);
        let mut defence = place(rng, &mut taken, attacker.opponent(), inner_men, 0, inner);
        let extra = rng.random_range(0..=2usize);
        let extra_kings = usize::from(rng.random_bool(0.2));
        defence.extend(place(
            rng,
            &mut taken,
            attacker.opponent(),
            extra,
            extra_kings.min(extra),
            |_| true,
        ));
        let fen = match attacker {
            Colour::White => fen_from(true, &attack, &defence),
            Colour::Black => fen_from(false, &defence, &attack),
        };
        cmp.compare_fen(&fen, &mut list);
    }
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

const START_FEN: &str = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";

/// The reference generator's own credentials: the published perft counts.
#[test]
fn reference_generator_reproduces_start_perft() {
    let expected = [7, 49, 302, 1469, 7473, 37628, 187302];
    let start = Board::from_fen(START_FEN);
    for (depth, &count) in (1..).zip(expected.iter()) {
        assert_eq!(
            start.perft(depth),
            count,
            "reference perft({depth}) from start"
        );
    }
}

#[test]
fn numbering_matches_the_rules() {
    assert_eq!(square_coords(1), (1, 7)); // b8
    assert_eq!(square_coords(4), (7, 7)); // h8
    assert_eq!(square_coords(5), (0, 6)); // a7
    assert_eq!(square_coords(29), (0, 0)); // a1
    assert_eq!(square_coords(32), (6, 0)); // g1
    for n in 1..=32 {
        let (file, rank) = square_coords(n);
        assert_eq!(square_number(file, rank), n);
    }
}

/// Hand-written positions whose legal moves are worked out by hand; both generators
/// must give exactly these.
#[test]
fn hand_written_positions() {
    /// (from, to, captured squares), written out by hand.
    type ExpectedMove = (u8, u8, &'static [u8]);
    let cases: &[(&str, &[ExpectedMove])] = &[
        // A ring of four captures ending on its own start square.
        ("W:W23:B10,11,18,19", &[(23, 23, &[10, 11, 18, 19])]),
        // Flying king: two landing squares for each of two capture sets of three.
        (
            "W:WK30:B5,8,14,15,26",
            &[
                (30, 17, &[14, 15, 26]),
                (30, 21, &[14, 15, 26]),
                (30, 17, &[8, 14, 26]),
                (30, 21, &[8, 14, 26]),
            ],
        ),
        // The man b6 (9) jumps c7 (6) onto d8 and must go on as a man: e7 (7) to f6
        // (11). As a king it could fly on to h4 and take f2 (27) too; it may not.
        ("W:W9:B6,7,27", &[(9, 11, &[6, 7])]),
        // Start position: seven quiet moves.
        (
            START_FEN,
            &[
                (21, 17, &[]),
                (22, 17, &[]),
                (22, 18, &[]),
                (23, 18, &[]),
                (23, 19, &[]),
                (24, 19, &[]),
                (24, 20, &[]),
            ],
        ),
    ];
    let mut list = MoveList::new();
    for &(fen, moves) in cases {
        let expected: BTreeSet<MoveKey> = moves
            .iter()
            .map(|&(from, to, captured)| (from, to, captured.to_vec()))
            .collect();
        let reference = Board::from_fen(fen).legal_moves();
        assert_eq!(
            reference,
            expected,
            "reference generator in {fen}: got {}",
            format_keys(reference.iter())
        );
        let mut cmp = Comparison::default();
        cmp.compare_fen(fen, &mut list);
        assert!(cmp.reports.is_empty(), "{}", cmp.reports.join("\n"));
    }
}

#[test]
fn fast_generator_matches_reference() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut cmp = Comparison::default();

    random_games(&mut cmp, &mut rng, 1_000);
    let from_games = cmp.tallies.positions;
    random_placements(&mut cmp, &mut rng, 20_000);
    capture_placements(&mut cmp, &mut rng, 20_000);

    let t = &cmp.tallies;
    eprintln!("positions compared:            {}", t.positions);
    eprintln!("  from random games:           {from_games}");
    eprintln!("  with kings:                  {}", t.with_kings);
    eprintln!("  capture compulsory:          {}", t.capture_compulsory);
    eprintln!(
        "  maximum capture >= 3:        {}",
        t.max_capture_at_least_3
    );
    eprintln!(
        "  king capture, several ends:  {}",
        t.king_capture_several_landings
    );
    eprintln!("  largest move list:           {}", t.largest_move_list);
    eprintln!(
        "  maximum capture histogram:   {:?}",
        t.max_capture_histogram
    );

    assert!(
        cmp.mismatch_count == 0,
        "{} mismatches between fast and reference generators; first ones:\n{}",
        cmp.mismatch_count,
        cmp.reports.join("\n")
    );
    // The comparison only means something if the mix really exercises the hard rules.
    assert!(t.positions >= 20_000, "too few positions: {t:?}");
    assert!(t.with_kings >= 3_000, "too few positions with kings: {t:?}");
    assert!(
        t.capture_compulsory >= 2_000,
        "too few capture positions: {t:?}"
    );
    assert!(
        t.max_capture_at_least_3 >= 200,
        "too few long captures: {t:?}"
    );
    assert!(
        t.king_capture_several_landings >= 100,
        "too few king captures with several landings: {t:?}"
    );
}
