//! Positional features of Brazilian draughts positions (Samuel-style), for the linear
//! evaluator of the Samuel learner (Beling's master's thesis, ch. 5.2): `eval = material + Σ w_i·f_i`
//! ([`crate::eval::linear::Features`]).
//!
//! Every feature is computed per side, each side seen from its own end of the board (its
//! men move "forward", its back rank is where it started), and the feature value is
//! (side to move) − (opponent). The per-side geometry of Black is White's rotated by 180°
//! (square n ↦ 33 − n, which in the ghost-bit layout is the bit reversal of the 35-bit
//! word) and Black's directions are White's reversed, so a position and its colour-swapped
//! rotation get the same feature vector. Material itself is not a feature: it has its own
//! fixed weight.
//!
//! Everything is whole-board shifts and popcounts; no move list is built, nothing is
//! allocated. Capture-related features look at single jumps only (no multi-capture or
//! majority rule): they are cheap hints for the learner, not a tactical search.

use crate::eval::Evaluator;
use crate::eval::linear::Features;
use crate::game::Game;
use crate::games::brazilian::Material;
use crate::games::brazilian::board::{BLACK_CROWN, BOARD, Dir, WHITE_CROWN, rotate};
use crate::games::brazilian::{Brazilian, Square, WHITE};

/// Identifies this feature set (and its order) in saved weight files.
pub const FEATURE_SET_ID: &str = "samuel-v2";

/// Number of candidate features [`extract`] writes (the pool of term replacement).
pub const FEATURE_COUNT: usize = 34;

/// Features active at a time; a fresh model activates the first 16 of the pool.
pub const ACTIVE: usize = 16;

/// Short names, in [`extract`] order: the 16 initially active, then the reserve queue
/// (old and new features interleaved, so new ones are tried early).
pub const FEATURE_NAMES: [&str; FEATURE_COUNT] = [
    "mobility_men",
    "safe_men_moves",
    "supported_men",
    "blocked_men",
    "centre_men",
    "back_rank",
    "hanging",
    "lone_kings",
    "centre_kings",
    "edge_men",
    "holes",
    "threats",
    "runaway_men",
    "mobility_kings",
    "double_corner_men",
    "main_road_kings",
    // Reserve queue.
    "tempo",
    "gaps",
    "nodes",
    "bridge",
    "centre_steps",
    "poles",
    "advancement",
    "oreo",
    "corner_kings",
    "forks",
    "main_road_men",
    "double_diagonal_men",
    "dyke",
    "immobile_kings",
    "hanging_kings",
    "double_diagonal_kings",
    "home_men",
    "cramp",
];

/// One line per feature, in [`extract`] order. "Own" is the side the count is for; the
/// feature is that count for the side to move minus the count for the opponent. Capitals
/// name Samuel's (1959) term it follows.
pub const FEATURE_DESCRIPTIONS: [&str; FEATURE_COUNT] = [
    "MOB (men): quiet moves of own men (forward steps to empty squares)",
    "MOBIL (men): own men's quiet moves after which the man cannot be jumped at once",
    "own men that cannot be jumped from the front: each square behind is off board or own",
    "own men with no quiet move (both forward squares blocked or off board)",
    "CENT: own men on the 8 central squares (c3 e3 d4 f4 c5 e5 d6 f6)",
    "own men on the own back rank (they stop enemy men from crowning)",
    "EXPOS: own pieces the opponent could jump now (men adjacent, kings along the diagonal)",
    "own kings, counted only while the opponent has no king",
    "KCENT: own kings on the 8 central squares",
    "own men on the side edges (files a and h), which control only one diagonal",
    "HOLE: empty squares with at least 3 own pieces among their 4 diagonal neighbours",
    "THRET: empty squares an own man can step to and from there jump an enemy piece",
    "own men one or two rows before crowning with an empty path to the crowning row",
    "MOB (kings): quiet moves of own kings (every empty square along each diagonal)",
    "own men on the own double corner (h2, g1; Black: a7, b8)",
    "own kings on the main road, the long diagonal a1-h8",
    "TEMP: sum over own men of the rows advanced from the own back rank (0..6)",
    "GAP: empty squares with own pieces on both sides along a diagonal",
    "NODE: own pieces with at least 3 of their 4 diagonal neighbours empty (edges count full)",
    "BACK (bridge): 1 if own men hold both bridge squares c1 and g1 (Black: f8 and b8)",
    "CNTR: central squares (of the 8) an own man can step to now",
    "POLE: own men with all 4 diagonal neighbours empty (a man far from any support)",
    "ADV: own men on rows 5-6 minus own men on rows 3-4 (rows counted from the own side)",
    "OREO: 1 if own men hold the back triangle c1, e1, d2 (Black: f8, d8, e7)",
    "CORN: own kings on the double-corner squares (g1, h2, a7, b8), where a king is safest",
    "FORK: empty squares an own man can step to and from there jump in two directions",
    "DIA (men): own men on the main road a1-h8",
    "DIAV (men): own men on the double diagonals a7-g1 and b8-h2",
    "DYKE: own men in the middle of three own men in a row on a diagonal (per diagonal)",
    "own kings with no empty neighbouring square (they cannot move)",
    "EXPOS (kings): own kings the opponent could jump now",
    "own kings on the double diagonals a7-g1 and b8-h2",
    "own men on the own first two rows (the defence)",
    "CRAMP: own men on rows 5-7 that cannot move and have an enemy piece just ahead",
];

/// Bitboard of the squares with the given PDN numbers.
const fn squares(numbers: &[u8]) -> u64 {
    let mut bits = 0;
    let mut i = 0;
    while i < numbers.len() {
        bits |= match Square::from_number(numbers[i]) {
            Some(square) => square.bit(),
            None => panic!("not a square number"),
        };
        i += 1;
    }
    bits
}

/// The squares of rank `rank` (0 = rank 1): PDN numbers 4·(7 − rank) + 1 ..= + 4.
const fn rank_mask(rank: u8) -> u64 {
    let first = 4 * (7 - rank) + 1;
    squares(&[first, first + 1, first + 2, first + 3])
}

/// The 8 central squares c3 e3 d4 f4 c5 e5 d6 f6 (the centre 4×4 block).
const CENTRE: u64 = squares(&[10, 11, 14, 15, 18, 19, 22, 23]);
/// Files a and h.
const EDGES: u64 = squares(&[5, 13, 21, 29, 4, 12, 20, 28]);
/// The long diagonal a1–h8.
const MAIN_ROAD: u64 = squares(&[29, 25, 22, 18, 15, 11, 8, 4]);
/// The double diagonals a7–g1 and b8–h2.
const DOUBLE_DIAGONALS: u64 = squares(&[5, 9, 14, 18, 23, 27, 32, 1, 6, 10, 15, 19, 24, 28]);
/// The four double-corner squares g1, h2, a7, b8.
const DOUBLE_CORNERS: u64 = squares(&[32, 28, 5, 1]);

/// Where one side's men come from and go to, seen from that side.
struct Geometry {
    /// The two directions its men move in.
    forward: [Dir; 2],
    /// Where its men are crowned.
    crown: u64,
    /// Its own back rank.
    back_rank: u64,
    /// Samuel's bridge squares (White: c1, g1).
    bridge: u64,
    /// Its own double corner (White: h2, g1).
    double_corner: u64,
    /// `rank_bits[k]`: squares whose row number from the own side (0..7) has bit k set.
    rank_bits: [u64; 3],
    /// Rows 5–6 and rows 3–4 from the own side, for Samuel's ADV.
    advanced: u64,
    backward: u64,
    /// Rows 1–2 from the own side.
    home: u64,
    /// Rows 5–7 from the own side (the opponent's half short of the crowning row).
    enemy_half: u64,
    /// Samuel's OREO triangle (White: c1, e1, d2).
    oreo: u64,
}

const WHITE_GEOMETRY: Geometry = {
    let mut rank_bits = [0; 3];
    let mut rank = 0;
    while rank < 8 {
        let mut k = 0;
        while k < 3 {
            if rank & (1 << k) != 0 {
                rank_bits[k] |= rank_mask(rank);
            }
            k += 1;
        }
        rank += 1;
    }
    Geometry {
        forward: [Dir::NorthWest, Dir::NorthEast],
        crown: WHITE_CROWN,
        back_rank: BLACK_CROWN,
        bridge: squares(&[30, 32]),
        double_corner: squares(&[28, 32]),
        rank_bits,
        advanced: rank_mask(4) | rank_mask(5),
        backward: rank_mask(2) | rank_mask(3),
        home: rank_mask(0) | rank_mask(1),
        enemy_half: rank_mask(4) | rank_mask(5) | rank_mask(6),
        oreo: squares(&[30, 31, 26]),
    }
};

const BLACK_GEOMETRY: Geometry = {
    let w = &WHITE_GEOMETRY;
    Geometry {
        forward: [w.forward[0].opposite(), w.forward[1].opposite()],
        crown: rotate(w.crown),
        back_rank: rotate(w.back_rank),
        bridge: rotate(w.bridge),
        double_corner: rotate(w.double_corner),
        rank_bits: [
            rotate(w.rank_bits[0]),
            rotate(w.rank_bits[1]),
            rotate(w.rank_bits[2]),
        ],
        advanced: rotate(w.advanced),
        backward: rotate(w.backward),
        home: rotate(w.home),
        enemy_half: rotate(w.enemy_half),
        oreo: rotate(w.oreo),
    }
};

/// Position of `dir` in [`Dir::ALL`], for the per-direction arrays.
#[inline(always)]
const fn index(dir: Dir) -> usize {
    match dir {
        Dir::NorthWest => 0,
        Dir::NorthEast => 1,
        Dir::SouthWest => 2,
        Dir::SouthEast => 3,
    }
}

#[inline(always)]
fn count(bits: u64) -> i32 {
    bits.count_ones() as i32
}

/// `from` plus every empty square reachable from it by sliding along `dir` (occluded
/// Kogge–Stone fill: three doubling steps cover the 7 steps of the longest diagonal). An
/// empty-square chain never crosses a ghost bit, so nothing wraps around the board.
#[inline(always)]
fn slide(dir: Dir, from: u64, empty: u64) -> u64 {
    let mut reached = from;
    let mut open = empty;
    reached |= open & dir.shift(reached);
    open &= dir.shift(open);
    reached |= open & dir.shift(dir.shift(reached));
    open &= dir.shift(dir.shift(open));
    reached | (open & dir.shift(dir.shift(dir.shift(dir.shift(reached)))))
}

/// One side's pieces and what they reach, shared by its own features and the opponent's.
struct Army {
    men: u64,
    kings: u64,
    all: u64,
    /// Per direction of [`Dir::ALL`]: the kings plus the empty squares they slide to.
    king_rays: [u64; 4],
    /// Per direction: squares where an enemy piece would be jumped by a piece of this
    /// army moving in that direction (if the square beyond it is empty).
    attacks: [u64; 4],
}

impl Army {
    #[inline(always)]
    fn new(all: u64, all_kings: u64, empty: u64) -> Army {
        let kings = all & all_kings;
        let men = all & !kings;
        let mut king_rays = [0; 4];
        if kings != 0 {
            for dir in Dir::ALL {
                king_rays[index(dir)] = slide(dir, kings, empty);
            }
        }
        let attacks = Dir::ALL.map(|dir| dir.shift(men | king_rays[index(dir)]) & BOARD);
        Army {
            men,
            kings,
            all,
            king_rays,
            attacks,
        }
    }
}

/// A step to `to` in direction `ahead` (with `side` the other axis) is unsafe if an
/// enemy can jump the man there: from the front it lands on the square just vacated;
/// sideways it needs the square beyond empty; from behind only a king can, sliding in
/// through the vacated square.
#[inline(always)]
fn unsafe_steps(enemy: &Army, men: u64, empty: u64, to: u64, ahead: Dir, side: Dir) -> u64 {
    let behind = ahead.opposite();
    let from_front = enemy.attacks[index(behind)];
    let from_side = (enemy.attacks[index(side)] & side.shift_back(empty))
        | (enemy.attacks[index(side.opposite())] & side.opposite().shift_back(empty));
    let from_behind =
        ahead.shift(ahead.shift(enemy.king_rays[index(ahead)]) & men) & ahead.shift_back(empty);
    to & (from_front | from_side | from_behind)
}

/// Own pieces `enemy` can jump (hanging), and the squares from which a man jumps an enemy
/// piece in one direction / in two or more.
#[inline(always)]
fn jumps(enemy: &Army, empty: u64) -> (u64, u64, u64) {
    let mut hanging = 0;
    let mut jump_from = 0;
    let mut jump_from_twice = 0;
    for dir in Dir::ALL {
        let beyond_empty = dir.shift_back(empty);
        hanging |= enemy.attacks[index(dir)] & beyond_empty;
        let jumps = dir.shift_back(enemy.all & beyond_empty);
        jump_from_twice |= jump_from & jumps;
        jump_from |= jumps;
    }
    (hanging, jump_from, jump_from_twice)
}

/// The king features of `own`: mobility, centre, main road, double diagonals, lone kings,
/// double corners, immobile (no empty neighbour: `open` are the squares with one) and
/// hanging. Kings are absent from most positions of a game: their popcounts are skipped.
#[inline(always)]
fn king_features(own: &Army, enemy: &Army, empty: u64, open: u64, hanging: u64) -> [i32; 8] {
    if own.kings == 0 {
        return [0; 8];
    }
    let rays = &own.king_rays;
    [
        count(rays[0] & empty)
            + count(rays[1] & empty)
            + count(rays[2] & empty)
            + count(rays[3] & empty),
        count(own.kings & CENTRE),
        count(own.kings & MAIN_ROAD),
        count(own.kings & DOUBLE_DIAGONALS),
        if enemy.kings == 0 {
            count(own.kings)
        } else {
            0
        },
        count(own.kings & DOUBLE_CORNERS),
        count(own.kings & !open),
        count(own.kings & hanging),
    ]
}

/// The features of `own` (moving as `geo` says) against `enemy`, not yet differenced.
#[inline(always)]
fn side_features(geo: &Geometry, own: &Army, enemy: &Army, empty: u64) -> [i32; FEATURE_COUNT] {
    let men = own.men;
    let [ahead_a, ahead_b] = geo.forward;
    let step_a = ahead_a.shift(men) & empty;
    let step_b = ahead_b.shift(men) & empty;
    let steps = step_a | step_b;

    let tempo = count(men & geo.rank_bits[0])
        + 2 * count(men & geo.rank_bits[1])
        + 4 * count(men & geo.rank_bits[2]);

    // A man jumped from the front (enemy ahead in direction d, jumping back against d)
    // lands on the square behind it; an own piece there or the board's end prevents it.
    let covered = |d: Dir| d.shift(own.all) | !d.shift(BOARD);
    let supported = men & covered(ahead_a) & covered(ahead_b);

    let dyke = count(men & ahead_a.shift(men) & ahead_a.shift_back(men))
        + count(men & ahead_b.shift(men) & ahead_b.shift_back(men));

    // At least 3 of the 4 neighbours own: both of one diagonal and one of the other.
    let [nw, ne, sw, se] = Dir::ALL.map(|d| d.shift(own.all));
    let holes = empty & ((nw & se & (ne | sw)) | (ne & sw & (nw | se)));

    // Men on the row before crowning with an empty crowning square ahead, and men one row
    // further back with an empty such square ahead.
    let crown_open = empty & geo.crown;
    let last_row = ahead_a.shift_back(crown_open) | ahead_b.shift_back(crown_open);
    let last_row_open = empty & last_row;
    let runaway =
        men & (last_row | ahead_a.shift_back(last_row_open) | ahead_b.shift_back(last_row_open));

    let safe_steps = count(step_a & !unsafe_steps(enemy, men, empty, step_a, ahead_a, ahead_b))
        + count(step_b & !unsafe_steps(enemy, men, empty, step_b, ahead_b, ahead_a));

    let blocked = men & !(ahead_a.shift_back(empty) | ahead_b.shift_back(empty));

    let (hanging, jump_from, jump_from_twice) = jumps(enemy, empty);

    // Per direction: squares whose neighbour that way is empty.
    let [open_nw, open_ne, open_sw, open_se] = Dir::ALL.map(|d| d.shift_back(empty));
    let open_3_of_4 =
        (open_nw & open_se & (open_ne | open_sw)) | (open_ne & open_sw & (open_nw | open_se));
    let open_all = open_nw & open_ne & open_sw & open_se;
    let gaps = empty & ((nw & se) | (ne & sw));
    let enemy_ahead = ahead_a.shift_back(enemy.all) | ahead_b.shift_back(enemy.all);

    let open = open_nw | open_ne | open_sw | open_se;
    let [
        mobility_kings,
        centre_kings,
        main_road_kings,
        double_diagonal_kings,
        lone_kings,
        corner_kings,
        immobile_kings,
        hanging_kings,
    ] = king_features(own, enemy, empty, open, hanging);

    [
        count(step_a) + count(step_b),
        safe_steps,
        count(supported),
        count(blocked),
        count(men & CENTRE),
        count(men & geo.back_rank),
        count(own.all & hanging),
        lone_kings,
        centre_kings,
        count(men & EDGES),
        count(holes),
        count(steps & jump_from),
        count(runaway),
        mobility_kings,
        count(men & geo.double_corner),
        main_road_kings,
        // Reserve queue.
        tempo,
        count(gaps),
        count(own.all & open_3_of_4),
        ((men & geo.bridge) == geo.bridge) as i32,
        count(steps & CENTRE),
        count(men & open_all),
        count(men & geo.advanced) - count(men & geo.backward),
        ((men & geo.oreo) == geo.oreo) as i32,
        corner_kings,
        count(steps & jump_from_twice),
        count(men & MAIN_ROAD),
        count(men & DOUBLE_DIAGONALS),
        dyke,
        immobile_kings,
        hanging_kings,
        double_diagonal_kings,
        count(men & geo.home),
        count(blocked & geo.enemy_half & enemy_ahead),
    ]
}

/// Features of `pos` from the side to move's point of view: each is (value for the side to
/// move) − (value for the opponent), an integer; 0 in symmetric positions.
#[inline]
pub fn extract(pos: &Brazilian, out: &mut [i32; FEATURE_COUNT]) {
    let white_bits = pos.side_bits(WHITE);
    let black_bits = pos.side_bits(WHITE.opponent());
    let kings = pos.king_bits();
    let empty = BOARD & !(white_bits | black_bits);
    let white = Army::new(white_bits, kings, empty);
    let black = Army::new(black_bits, kings, empty);
    let white_values = side_features(&WHITE_GEOMETRY, &white, &black, empty);
    let black_values = side_features(&BLACK_GEOMETRY, &black, &white, empty);
    let (us, them) = if pos.side_to_move() == WHITE {
        (&white_values, &black_values)
    } else {
        (&black_values, &white_values)
    };
    for ((slot, mine), theirs) in out.iter_mut().zip(us).zip(them) {
        *slot = mine - theirs;
    }
}

impl Features for Brazilian {
    const FEATURE_SET_ID: &'static str = FEATURE_SET_ID;
    const RETIRED_SETS: &'static [(&'static str, &'static str)] =
        &[("samuel-v1", "configs/samuel.toml")];
    const FEATURE_NAMES: &'static [&'static str] = &FEATURE_NAMES;
    const ACTIVE: usize = ACTIVE;
    const FEATURE_DESCRIPTIONS: &'static [&'static str] = &FEATURE_DESCRIPTIONS;

    #[inline(always)]
    fn anchor(&self) -> i32 {
        Material.evaluate(self)
    }

    #[inline]
    fn features(&self, out: &mut [i32]) {
        let mut values = [0; FEATURE_COUNT];
        extract(self, &mut values);
        out[..FEATURE_COUNT].copy_from_slice(&values);
    }

    /// A man's and a king's term per square: term `n − 1` is a man on PDN square `n`,
    /// `32 + n − 1` a king there, as White sees the board. The side to move's pieces count
    /// +1 on their squares and the opponent's −1 on theirs turned 180°, so each side is
    /// seen from its own end ([`Brazilian::relative_masks`]).
    const PIECE_SQUARES: usize = 64;

    #[inline]
    fn piece_squares(&self, mut add: impl FnMut(usize, i32)) {
        let [own_men, own_kings, their_men, their_kings] = self.relative_masks();
        for (mask, offset, value) in [
            (own_men, 0, 1),
            (own_kings, 32, 1),
            (their_men.reverse_bits(), 0, -1),
            (their_kings.reverse_bits(), 32, -1),
        ] {
            let mut bits = mask;
            while bits != 0 {
                add(offset + bits.trailing_zeros() as usize, value);
                bits &= bits - 1;
            }
        }
    }

    fn describe_piece_squares(weights: &[f32]) -> String {
        let mut out = String::from(
            "piece-square terms (centi-units; the side to move's pieces as White sees the \
             board, the opponent's turned 180° and counted negatively), rank 8 first:\n",
        );
        for (kind, offset) in [("men", 0), ("kings", 32)] {
            out += &format!("    {kind}:\n");
            for rank in (1..=8).rev() {
                let row: Vec<String> = (1..=8)
                    .map(|file| match Square::from_file_rank(file - 1, rank - 1) {
                        Some(sq) => format!("{:>7.1}", weights[offset + sq.index()]),
                        None => format!("{:>7}", "·"),
                    })
                    .collect();
                out += &format!("      {rank} {}\n", row.join(""));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::MoveList;
    use crate::games::brazilian::{BLACK, Piece};
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    fn features(fen: &str) -> [i32; FEATURE_COUNT] {
        let pos = Brazilian::parse_position(fen).unwrap();
        let mut out = [0; FEATURE_COUNT];
        extract(&pos, &mut out);
        out
    }

    /// The feature vector as `name=value` pairs of the non-zero entries, so a failing
    /// comparison says which feature differs.
    fn named(values: &[i32; FEATURE_COUNT]) -> Vec<(&'static str, i32)> {
        FEATURE_NAMES
            .iter()
            .zip(values)
            .filter(|(_, v)| **v != 0)
            .map(|(n, v)| (*n, *v))
            .collect()
    }

    /// Checks the whole vector: `expected` lists every non-zero feature (in any order).
    fn assert_features(fen: &str, expected: &[(&str, i32)]) {
        for (name, _) in expected {
            assert!(FEATURE_NAMES.contains(name), "unknown feature {name}");
        }
        let mut expected = expected.to_vec();
        expected.sort();
        let mut got = named(&features(fen));
        got.sort();
        assert_eq!(got, expected, "{fen}");
    }

    fn feature(values: &[i32; FEATURE_COUNT], name: &str) -> i32 {
        values[FEATURE_NAMES.iter().position(|n| *n == name).unwrap()]
    }

    /// Every position of seeded random games from the start (at least `count`).
    fn random_positions(count: usize) -> Vec<Brazilian> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5A4D_0E1F);
        let mut moves = MoveList::new();
        let mut positions = Vec::with_capacity(count + 200);
        while positions.len() < count {
            let mut pos = Brazilian::start();
            for _ in 0..200 {
                positions.push(pos);
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                pos = pos.play(moves[rng.random_range(0..moves.len())]);
            }
        }
        positions
    }

    #[test]
    fn names_and_descriptions() {
        const { assert!(FEATURE_COUNT >= 16) };
        for (i, name) in FEATURE_NAMES.iter().enumerate() {
            assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
            assert!(
                !FEATURE_NAMES[..i].contains(name),
                "duplicate feature name {name}"
            );
            assert!(!FEATURE_DESCRIPTIONS[i].is_empty());
        }
    }

    #[test]
    fn start_position_is_all_zero() {
        let mut out = [1; FEATURE_COUNT];
        extract(&Brazilian::start(), &mut out);
        assert_eq!(out, [0; FEATURE_COUNT]);
    }

    #[test]
    fn geometry_is_rotation_symmetric() {
        for mask in [CENTRE, EDGES, MAIN_ROAD, DOUBLE_DIAGONALS, BOARD] {
            assert_eq!(rotate(mask), mask);
        }
        assert_eq!(rotate(WHITE_CROWN), BLACK_CROWN);
        assert_eq!(rotate(squares(&[1])), squares(&[32]));
        assert_eq!(rotate(squares(&[9])), squares(&[24]));
        assert_eq!(BLACK_GEOMETRY.crown, BLACK_CROWN);
        assert_eq!(BLACK_GEOMETRY.bridge, squares(&[1, 3]));
        assert_eq!(BLACK_GEOMETRY.double_corner, squares(&[1, 5]));
        assert_eq!(CENTRE.count_ones(), 8);
        assert_eq!(DOUBLE_DIAGONALS.count_ones(), 14);
    }

    #[test]
    fn lone_men_with_free_steps() {
        // White men c3 (22), a1 (29); Black man f6 (11); White to move.
        // White: tempo 2 (c3 on row 3 = 2 rows up), advancement −1 (c3 on rows 3–4),
        // back rank 1 (a1), edge 1 (a1), centre 1 (c3), supported 1 (a1: nothing can land
        // behind it; c3 has d2 empty behind), mobility 3 (b4, d4, b2), all safe.
        // Black: tempo 2 (f6 two rows down), advancement −1, centre 1 (f6), mobility 2
        // (e5, g5), both safe.
        assert_features(
            "W:W22,29:B11",
            &[
                ("gaps", 1),
                ("main_road_men", 1),
                ("home_men", 1),
                ("back_rank", 1),
                ("edge_men", 1),
                ("supported_men", 1),
                ("mobility_men", 1),
                ("safe_men_moves", 1),
            ],
        );
    }

    #[test]
    fn kings_on_the_main_road() {
        // White king a1 (29); Black king e5 (15), man c7 (6); Black to move.
        // White: king a1 slides b2 c3 d4 up to e5 (3 moves), on the main road.
        // Black: c7 has tempo 1 and two safe steps (b6, d6: the a1 king sees only the
        // main road). King e5 slides 1 (d6) + 3 (f6 g7 h8) + 3 (d4 c3 b2) + 3 (f4 g3 h2)
        // = 10, is central, on the main road and on the b8–h2 double diagonal, and hangs:
        // the a1 king jumps it to f6.
        assert_features(
            "B:WK29:BK15,6",
            &[
                ("gaps", 1),
                ("nodes", 2),
                ("centre_steps", 1),
                ("poles", 1),
                ("double_diagonal_men", 1),
                ("hanging_kings", 1),
                ("home_men", 1),
                ("tempo", 1),
                ("mobility_men", 2),
                ("safe_men_moves", 2),
                ("hanging", 1),
                ("mobility_kings", 7),
                ("centre_kings", 1),
                ("double_diagonal_kings", 1),
            ],
        );
    }

    #[test]
    fn threats_forks_and_unsafe_steps() {
        // White man e3 (23); Black men c5 (14), e5 (15); White to move, nobody can jump.
        // White: tempo 2, advancement −1, centre 1. Steps d4 and f4 (2) are both unsafe:
        // at d4 c5 jumps it back onto the vacated e3 (and e5 jumps it to c3); at f4 e5
        // jumps it to g3. Both squares threaten a jump (d4 over c5 and over e5: a fork;
        // f4 over e5 to d6): threats 2, forks 1.
        // Black: tempo 3 + 3, advancement −2, centre 2. Moves c5-b4, c5-d4, e5-d4, e5-f4
        // (4); safe are c5-b4 and e5-d4 (e3 cannot jump d4 onto the still occupied c5),
        // c5-d4 is jumped by e3 onto the vacated c5, e5-f4 by e3 onto g5. Threats: d4 (over
        // e3 to f2) and f4 (over e3 to d2), no fork.
        assert_features(
            "W:W23:B14,15",
            &[
                ("nodes", -1),
                ("poles", -1),
                ("main_road_men", -1),
                ("double_diagonal_men", -1),
                ("tempo", -4),
                ("advancement", 1),
                ("centre_men", -1),
                ("mobility_men", -2),
                ("safe_men_moves", -2),
                ("forks", 1),
            ],
        );
    }

    #[test]
    fn back_rank_structure_against_a_runaway() {
        // White men c1 (30), g1 (32), d2 (26), e3 (23), g3 (24), king h8 (4); Black men b2
        // (25), h6 (12); Black to move (no capture: b2 cannot jump c1 off the board).
        // White: tempo 0+0+1+2+2 = 5, advancement −2 (e3, g3), back rank 2 and the bridge
        // (c1, g1), double corner 1 (g1), centre 1 (e3), supported 2 (c1, g1), dyke 1 (d2
        // between c1 and e3), hole 1 (f2: e3, g3, g1 around it), mobility 7 (g1-f2, g1-h2,
        // d2-c3, e3-d4, e3-f4, g3-f4, g3-h4) of which d2-c3 is unsafe (b2 jumps it to d4),
        // blocked 1 (c1), threats 1 (from c3 over b2 to a1), king h8 slides g7..c3 (5) on
        // the main road, and is a lone king (Black has none).
        // Black: tempo 6 (b2) + 2 (h6) = 8, advancement −1 (h6), edge 1 (h6), runaway 1
        // (b2-a1 is open), mobility 2 (b2-a1, h6-g5), both safe, hanging 1 (b2: c1 jumps it
        // to a3, the king to a1).
        assert_features(
            "B:W30,32,26,23,24,K4:B25,12",
            &[
                ("gaps", -1),
                ("nodes", -1),
                ("centre_steps", -3),
                ("poles", -1),
                ("main_road_men", 1),
                ("double_diagonal_men", -3),
                ("home_men", -3),
                ("tempo", 3),
                ("advancement", 1),
                ("back_rank", -2),
                ("bridge", -1),
                ("double_corner_men", -1),
                ("edge_men", 1),
                ("centre_men", -1),
                ("supported_men", -2),
                ("dyke", -1),
                ("holes", -1),
                ("runaway_men", 1),
                ("mobility_men", -5),
                ("safe_men_moves", -4),
                ("blocked_men", -1),
                ("hanging", 1),
                ("threats", -1),
                ("mobility_kings", -5),
                ("main_road_kings", -1),
                ("lone_kings", -1),
            ],
        );
    }

    #[test]
    fn flying_king_attacks_at_a_distance() {
        // White man e1 (31), king c3 (22); Black king h8 (4), man d6 (10); White to move.
        // White: e1 is on the back rank and supported, steps d2 and f2 (both safe); the c3
        // king slides 4 (d4..g7) + 2 (b4 a5) + 2 (b2 a1) + 1 (d2) = 9, central, on the
        // main road, and hangs: h8 sees it across four empty squares, b2 behind is empty.
        // Black: d6 has tempo 2, advancement −1, centre 1, steps c5 (safe) and e5 (the c3
        // king sees e5 along the main road with f6 empty: unsafe); king h8 slides 4 on the
        // main road.
        assert_features(
            "W:W31,K22:BK4,10",
            &[
                ("gaps", 1),
                ("centre_steps", -2),
                ("poles", -1),
                ("double_diagonal_men", -1),
                ("hanging_kings", 1),
                ("home_men", 1),
                ("tempo", -2),
                ("advancement", 1),
                ("back_rank", 1),
                ("centre_men", -1),
                ("supported_men", 1),
                ("safe_men_moves", 1),
                ("hanging", 1),
                ("mobility_kings", 5),
                ("centre_kings", 1),
            ],
        );
    }

    #[test]
    fn back_triangle_cornered_king_and_cramp() {
        // White men c1 (30), e1 (31), d2 (26), f2 (27), h2 (28), king g1 (32); Black man
        // e3 (23), king d8 (2); White to move. White holds the OREO triangle c1-e1-d2;
        // its king is on the double corner g1 and cannot move (f2, h2 are its own men).
        // Black's man e3 is on its 6th row with both squares ahead (d2, f2) held by
        // White: cramped. The d8 king is neither cornered nor stuck.
        let values = features("W:W30,31,26,27,28,K32:B23,K2");
        for (name, expected) in [
            ("oreo", 1),
            ("corner_kings", 1),
            ("immobile_kings", 1),
            ("cramp", -1),
            ("home_men", 5),
        ] {
            assert_eq!(feature(&values, name), expected, "{name}");
        }
        // Without e1 the triangle is broken; with the f2 man gone the king can move.
        let values = features("W:W30,26,28,K32:B23,K2");
        assert_eq!(feature(&values, "oreo"), 0);
        assert_eq!(feature(&values, "immobile_kings"), 0);
        assert_eq!(feature(&values, "cramp"), 0);
    }

    #[test]
    fn mirrored_positions_give_the_same_features() {
        let positions = random_positions(3000);
        let mut seen = [false; FEATURE_COUNT];
        let (mut a, mut b) = ([0; FEATURE_COUNT], [0; FEATURE_COUNT]);
        for pos in &positions {
            extract(pos, &mut a);
            extract(&pos.mirrored(), &mut b);
            assert_eq!(a, b, "{}", pos.format_position());
            for (seen, value) in seen.iter_mut().zip(a) {
                *seen |= value != 0;
            }
        }
        for (name, seen) in FEATURE_NAMES.iter().zip(seen) {
            assert!(seen, "feature {name} is zero on every random position");
        }
    }

    /// The piece-square terms of `pos`, as a dense vector.
    fn piece_square_terms(pos: &Brazilian) -> [i32; 64] {
        let mut terms = [0; 64];
        pos.piece_squares(|term, value| terms[term] += value);
        terms
    }

    #[test]
    fn piece_square_terms_count_each_piece_from_its_own_end() {
        // White to move: its man on c3 (square 22) and king on h8 (square 4) count +1;
        // Black's man on f6 (square 11) is c3 from Black's end, −1; Black's king on a1
        // (square 29) is h8 from Black's end, −1: every term cancels but none is skipped.
        let pos = Brazilian::parse_position("W:W22,K4:B11,K29").unwrap();
        let terms = piece_square_terms(&pos);
        assert!(terms.iter().all(|&t| t == 0), "{terms:?}");
        let pos = Brazilian::parse_position("W:W22,K4:B12,K29").unwrap();
        let terms = piece_square_terms(&pos);
        let mut expected = [0; 64];
        expected[21] = 1; // White's man on 22
        expected[33 - 12 - 1] = -1; // Black's man on 12 is square 21 from Black's end
        assert_eq!(terms, expected);
        // Each position's terms are its mirrored position's, and they sum to the men and
        // kings differences.
        for pos in random_positions(3000) {
            let terms = piece_square_terms(&pos);
            assert_eq!(terms, piece_square_terms(&pos.mirrored()));
            let [own_men, own_kings, their_men, their_kings] =
                pos.relative_masks().map(|m| m.count_ones() as i32);
            assert_eq!(terms[..32].iter().sum::<i32>(), own_men - their_men);
            assert_eq!(terms[32..].iter().sum::<i32>(), own_kings - their_kings);
        }
    }

    /// A square-by-square reference for the move- and capture-based features.
    mod reference {
        use super::*;

        #[derive(Clone, Copy, PartialEq)]
        pub enum Cell {
            Off,
            Empty,
            Piece { white: bool, king: bool },
        }

        #[derive(Clone, Copy)]
        pub struct Grid([[Cell; 8]; 8]);

        pub const DIRS: [(i32, i32); 4] = [(-1, 1), (1, 1), (-1, -1), (1, -1)];

        impl Grid {
            pub fn of(pos: &Brazilian) -> Grid {
                let mut grid = Grid([[Cell::Empty; 8]; 8]);
                for (sq, piece) in pos.pieces() {
                    let (white, king) = match piece {
                        Piece::Man(side) => (side == WHITE, false),
                        Piece::King(side) => (side == WHITE, true),
                    };
                    grid.0[sq.file() as usize][sq.rank() as usize] = Cell::Piece { white, king };
                }
                grid
            }

            pub fn at(&self, f: i32, r: i32) -> Cell {
                if (0..8).contains(&f) && (0..8).contains(&r) {
                    self.0[f as usize][r as usize]
                } else {
                    Cell::Off
                }
            }

            fn set(&mut self, f: i32, r: i32, cell: Cell) {
                self.0[f as usize][r as usize] = cell;
            }

            /// Can a piece of the other colour jump the piece on (f, r) at once?
            pub fn jumpable(&self, f: i32, r: i32) -> bool {
                let Cell::Piece { white, .. } = self.at(f, r) else {
                    panic!("no piece")
                };
                DIRS.iter().any(|&(df, dr)| {
                    if self.at(f + df, r + dr) != Cell::Empty {
                        return false;
                    }
                    // Walk back against the jump direction to the attacker.
                    let mut distance = 1;
                    loop {
                        match self.at(f - distance * df, r - distance * dr) {
                            Cell::Empty => distance += 1,
                            Cell::Piece { white: w, king } => {
                                return w != white && (king || distance == 1);
                            }
                            Cell::Off => return false,
                        }
                    }
                })
            }

            /// Per side (White, Black): mobility_men, safe_men_moves, hanging, threats,
            /// forks, mobility_kings.
            pub fn counts(&self, white: bool) -> [i32; 6] {
                let forward = if white { 1 } else { -1 };
                let (mut men_moves, mut safe, mut hanging, mut king_moves) = (0, 0, 0, 0);
                let mut threat_squares = Vec::new();
                let mut fork_squares = Vec::new();
                for f in 0..8 {
                    for r in 0..8 {
                        let Cell::Piece { white: w, king } = self.at(f, r) else {
                            continue;
                        };
                        if w != white {
                            continue;
                        }
                        if self.jumpable(f, r) {
                            hanging += 1;
                        }
                        if king {
                            for (df, dr) in DIRS {
                                let mut d = 1;
                                while self.at(f + d * df, r + d * dr) == Cell::Empty {
                                    king_moves += 1;
                                    d += 1;
                                }
                            }
                            continue;
                        }
                        for df in [-1, 1] {
                            let (tf, tr) = (f + df, r + forward);
                            if self.at(tf, tr) != Cell::Empty {
                                continue;
                            }
                            men_moves += 1;
                            let mut after = *self;
                            after.set(f, r, Cell::Empty);
                            after.set(tf, tr, Cell::Piece { white, king: false });
                            if !after.jumpable(tf, tr) {
                                safe += 1;
                            }
                            let jumps = DIRS
                                .iter()
                                .filter(|&&(jf, jr)| {
                                    matches!(after.at(tf + jf, tr + jr),
                                        Cell::Piece { white: w, .. } if w != white)
                                        && after.at(tf + 2 * jf, tr + 2 * jr) == Cell::Empty
                                })
                                .count();
                            if jumps >= 1 && !threat_squares.contains(&(tf, tr)) {
                                threat_squares.push((tf, tr));
                            }
                            if jumps >= 2 && !fork_squares.contains(&(tf, tr)) {
                                fork_squares.push((tf, tr));
                            }
                        }
                    }
                }
                [
                    men_moves,
                    safe,
                    hanging,
                    threat_squares.len() as i32,
                    fork_squares.len() as i32,
                    king_moves,
                ]
            }
        }
    }

    #[test]
    fn move_and_capture_features_match_a_square_by_square_reference() {
        let indices = [
            "mobility_men",
            "safe_men_moves",
            "hanging",
            "threats",
            "forks",
            "mobility_kings",
        ]
        .map(|name| FEATURE_NAMES.iter().position(|n| *n == name).unwrap());
        for pos in random_positions(3000) {
            let white_bits = pos.side_bits(WHITE);
            let black_bits = pos.side_bits(BLACK);
            let empty = BOARD & !(white_bits | black_bits);
            let white = Army::new(white_bits, pos.king_bits(), empty);
            let black = Army::new(black_bits, pos.king_bits(), empty);
            let grid = reference::Grid::of(&pos);
            for (geo, own, enemy, is_white) in [
                (&WHITE_GEOMETRY, &white, &black, true),
                (&BLACK_GEOMETRY, &black, &white, false),
            ] {
                let values = side_features(geo, own, enemy, empty);
                let fast = indices.map(|i| values[i]);
                assert_eq!(
                    fast,
                    grid.counts(is_white),
                    "{} white={is_white}",
                    pos.format_position()
                );
            }
        }
    }

    #[test]
    fn own_mobility_is_the_number_of_legal_moves_when_quiet() {
        let mut moves = MoveList::new();
        for pos in random_positions(2000) {
            if pos.has_capture() {
                continue;
            }
            pos.legal_moves(&mut moves);
            let white_bits = pos.side_bits(WHITE);
            let black_bits = pos.side_bits(BLACK);
            let empty = BOARD & !(white_bits | black_bits);
            let white = Army::new(white_bits, pos.king_bits(), empty);
            let black = Army::new(black_bits, pos.king_bits(), empty);
            let values = if pos.side_to_move() == WHITE {
                side_features(&WHITE_GEOMETRY, &white, &black, empty)
            } else {
                side_features(&BLACK_GEOMETRY, &black, &white, empty)
            };
            let index = |name| FEATURE_NAMES.iter().position(|n| *n == name).unwrap();
            let mobility = values[index("mobility_men")] + values[index("mobility_kings")];
            assert_eq!(mobility as usize, moves.len(), "{}", pos.format_position());
        }
    }
}
