//! Squares and bitboards of the 8×8 draughts board.
//!
//! Layout: the 32 dark squares sit in a 64-bit word with a "ghost" bit after every
//! 8 squares. Square `n` (PDN number 1..32, 1 = b8 … 32 = g1) is bit `n-1 + (n-1)/8`;
//! bits 8, 17 and 26 are ghosts and bits 35.. are off the board. With the ghosts every
//! diagonal step is one shift by a constant (4 or 5) for every square, instead of the
//! thesis engine's row-parity-dependent 3/4/5 shifts with two masks; a step off the board lands on
//! a ghost or outside, and `& empty` / `& them` (subsets of [`BOARD`]) drop it.

/// Bits of the 32 playing squares.
pub const BOARD: u64 = 0x7_FBFD_FEFF;

/// Squares where White's men are crowned (rank 8: squares 1..4).
pub const WHITE_CROWN: u64 = 0xF;
/// Squares where Black's men are crowned (rank 1: squares 29..32).
pub const BLACK_CROWN: u64 = 0xF << 31;

/// `bits` with the board turned 180° (square `n` ↦ `33 − n`): bit `i` ↦ bit `34 − i`,
/// which maps ghosts to ghosts.
pub const fn rotate(bits: u64) -> u64 {
    bits.reverse_bits() >> 29
}

/// The four diagonal directions. North is towards rank 8 (Black's side).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dir {
    /// towards a8: file − 1, rank + 1
    NorthWest,
    /// towards h8: file + 1, rank + 1
    NorthEast,
    /// towards a1: file − 1, rank − 1
    SouthWest,
    /// towards h1: file + 1, rank − 1
    SouthEast,
}

impl Dir {
    pub const ALL: [Dir; 4] = [
        Dir::NorthWest,
        Dir::NorthEast,
        Dir::SouthWest,
        Dir::SouthEast,
    ];

    /// Shifts every bit of `bits` one step in this direction (may leave the board:
    /// mask the result).
    #[inline(always)]
    pub const fn shift(self, bits: u64) -> u64 {
        match self {
            Dir::NorthWest => bits >> 5,
            Dir::NorthEast => bits >> 4,
            Dir::SouthWest => bits << 4,
            Dir::SouthEast => bits << 5,
        }
    }

    /// One step in the opposite direction.
    #[inline(always)]
    pub const fn shift_back(self, bits: u64) -> u64 {
        match self {
            Dir::NorthWest => bits << 5,
            Dir::NorthEast => bits << 4,
            Dir::SouthWest => bits >> 4,
            Dir::SouthEast => bits >> 5,
        }
    }

    pub const fn opposite(self) -> Dir {
        match self {
            Dir::NorthWest => Dir::SouthEast,
            Dir::NorthEast => Dir::SouthWest,
            Dir::SouthWest => Dir::NorthEast,
            Dir::SouthEast => Dir::NorthWest,
        }
    }

    pub const fn file_step(self) -> i8 {
        match self {
            Dir::NorthWest | Dir::SouthWest => -1,
            Dir::NorthEast | Dir::SouthEast => 1,
        }
    }

    pub const fn rank_step(self) -> i8 {
        match self {
            Dir::NorthWest | Dir::NorthEast => 1,
            Dir::SouthWest | Dir::SouthEast => -1,
        }
    }

    /// Shifts `bits` `steps` steps in this direction at once (for whole-board fills).
    #[inline(always)]
    pub const fn shift_by(self, bits: u64, steps: u32) -> u64 {
        match self {
            Dir::NorthWest => bits >> (5 * steps),
            Dir::NorthEast => bits >> (4 * steps),
            Dir::SouthWest => bits << (4 * steps),
            Dir::SouthEast => bits << (5 * steps),
        }
    }

    /// True for the directions whose steps raise the bit index (south): along them the
    /// nearest square of a set is its lowest bit, otherwise its highest.
    #[inline(always)]
    const fn ascends(self) -> bool {
        matches!(self, Dir::SouthWest | Dir::SouthEast)
    }

    /// The square of `bits` (non-empty) nearest to the start of a ray in this direction.
    #[inline(always)]
    pub const fn nearest(self, bits: u64) -> u64 {
        if self.ascends() {
            bits & bits.wrapping_neg()
        } else {
            1 << (63 - bits.leading_zeros())
        }
    }

    /// The squares from bit index `index` (exclusive) to the board's edge in this
    /// direction, from a table built at compile time.
    #[inline(always)]
    pub const fn ray(self, index: u32) -> u64 {
        RAYS[self as usize][(index & 63) as usize]
    }
}

/// [`Dir::ray`]'s table, by direction (in [`Dir::ALL`] order) and bit index.
const RAYS: [[u64; 64]; 4] = {
    let mut rays = [[0; 64]; 4];
    let mut d = 0;
    while d < 4 {
        let dir = Dir::ALL[d];
        let mut index = 0;
        while index < 64 {
            let start = 1u64 << index;
            if start & BOARD != 0 {
                let mut at = dir.shift(start) & BOARD;
                while at != 0 {
                    rays[d][index] |= at;
                    at = dir.shift(at) & BOARD;
                }
            }
            index += 1;
        }
        d += 1;
    }
    rays
};

/// One of the 32 dark squares, stored as its PDN number minus one (0 = b8 … 31 = g1).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

impl Square {
    /// The square with PDN number `number` (1..=32).
    pub const fn from_number(number: u8) -> Option<Square> {
        if number >= 1 && number <= 32 {
            Some(Square(number - 1))
        } else {
            None
        }
    }

    /// The dark square on `file` (0 = a) and `rank` (0 = rank 1); `None` for a light
    /// square or outside the board.
    pub const fn from_file_rank(file: u8, rank: u8) -> Option<Square> {
        if file >= 8 || rank >= 8 || !(file + rank).is_multiple_of(2) {
            return None;
        }
        let row_from_top = 7 - rank;
        Some(Square(row_from_top * 4 + file / 2))
    }

    /// The square whose bit index in the board layout is `index`; `None` for ghosts and
    /// indices off the board.
    pub const fn from_bit_index(index: u32) -> Option<Square> {
        if index >= 35 || index % 9 == 8 {
            return None;
        }
        Some(Square((index - index / 9) as u8))
    }

    /// PDN number, 1..=32.
    pub const fn number(self) -> u8 {
        self.0 + 1
    }

    /// 0..=31, for indexing per-square tables.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn bit_index(self) -> u32 {
        self.0 as u32 + self.0 as u32 / 8
    }

    pub const fn bit(self) -> u64 {
        1u64 << self.bit_index()
    }

    /// 0 = rank 1 (White's back rank) … 7 = rank 8.
    pub const fn rank(self) -> u8 {
        7 - self.0 / 4
    }

    /// 0 = file a … 7 = file h.
    pub const fn file(self) -> u8 {
        let row_from_top = self.0 / 4;
        2 * (self.0 % 4) + if row_from_top.is_multiple_of(2) { 1 } else { 0 }
    }

    /// Algebraic name, e.g. `c3`.
    pub fn algebraic(self) -> String {
        let mut s = String::with_capacity(2);
        s.push((b'a' + self.file()) as char);
        s.push((b'1' + self.rank()) as char);
        s
    }

    /// All 32 squares in PDN order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..32).map(Square)
    }
}

/// Iterates over the squares of a bitboard in PDN order.
#[derive(Clone, Copy)]
pub struct Squares(pub u64);

impl Iterator for Squares {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Square::from_bit_index(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_matches_pdn() {
        let name = |n: u8| Square::from_number(n).unwrap().algebraic();
        assert_eq!(name(1), "b8");
        assert_eq!(name(4), "h8");
        assert_eq!(name(5), "a7");
        assert_eq!(name(12), "h6");
        assert_eq!(name(29), "a1");
        assert_eq!(name(32), "g1");
        for sq in Square::all() {
            assert_eq!(Square::from_file_rank(sq.file(), sq.rank()), Some(sq));
            assert_eq!(Square::from_bit_index(sq.bit_index()), Some(sq));
            assert_ne!(sq.bit() & BOARD, 0);
        }
        assert_eq!(BOARD.count_ones(), 32);
        assert_eq!(Square::from_file_rank(1, 0), None);
        for sq in Square::all() {
            let turned = Square::from_number(33 - sq.number()).unwrap();
            assert_eq!(rotate(sq.bit()), turned.bit());
        }
        assert_eq!(rotate(BOARD), BOARD);
    }

    #[test]
    fn rays_and_long_shifts_follow_the_diagonals() {
        for sq in Square::all() {
            for dir in Dir::ALL {
                let mut walked = 0;
                let mut at = dir.shift(sq.bit()) & BOARD;
                let mut steps = 1;
                while at != 0 {
                    walked |= at;
                    assert_eq!(dir.shift_by(sq.bit(), steps) & BOARD, at, "{sq:?} {dir:?}");
                    assert_eq!(dir.nearest(walked), dir.shift(sq.bit()));
                    at = dir.shift(at) & BOARD;
                    steps += 1;
                }
                assert_eq!(dir.ray(sq.bit_index()), walked, "{sq:?} {dir:?}");
            }
        }
    }

    #[test]
    fn shifts_follow_the_diagonals() {
        for sq in Square::all() {
            for dir in Dir::ALL {
                let file = sq.file() as i8 + dir.file_step();
                let rank = sq.rank() as i8 + dir.rank_step();
                let expected = if (0..8).contains(&file) && (0..8).contains(&rank) {
                    Square::from_file_rank(file as u8, rank as u8)
                        .unwrap()
                        .bit()
                } else {
                    0
                };
                assert_eq!(dir.shift(sq.bit()) & BOARD, expected, "{sq:?} {dir:?}");
                if expected != 0 {
                    assert_eq!(dir.shift_back(expected), sq.bit());
                }
            }
        }
    }
}
