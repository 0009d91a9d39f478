//! Positions of one material signature numbered without gaps.
//!
//! A position is indexed from the side to move's point of view (the board turned for
//! Black, as [`Brazilian::relative_masks`] gives it), so a Black-to-move position shares
//! its slot with the colour-swapped White-to-move one. Inside a slice the side to move's
//! men are numbered among the 28 squares they may stand on (never their crowning row),
//! the opponent's men among the 28 squares open to them less those taken, then the
//! kings among the squares still empty; each set is ranked by the combinatorial number
//! system, so every index is one position and every position one index.

use super::super::{Brazilian, Side};

/// How many of each piece both sides have, from the side to move's point of view.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Material {
    pub own_men: u8,
    pub own_kings: u8,
    pub their_men: u8,
    pub their_kings: u8,
}

/// Most pieces any slice holds (the index tables are sized for it).
pub const MAX_PIECES: u32 = 7;

/// Squares (PDN order, bit `n − 1` for square `n`) where the side to move may have men:
/// all but its crowning row 1..4.
const OWN_MEN_SQUARES: u32 = 0xFFFF_FFF0;
/// Squares where the opponent may have men: all but its crowning row 29..32.
const THEIR_MEN_SQUARES: u32 = 0x0FFF_FFFF;

/// `BINOMIAL[n][k]` = C(n, k) for n ≤ 32, k ≤ MAX_PIECES.
const BINOMIAL: [[u64; MAX_PIECES as usize + 1]; 33] = {
    let mut table = [[0u64; MAX_PIECES as usize + 1]; 33];
    let mut n = 0;
    while n <= 32 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= MAX_PIECES as usize {
            table[n][k] = if n == 0 {
                0
            } else {
                table[n - 1][k - 1] + table[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    table
};

#[inline(always)]
const fn binomial(n: u32, k: u32) -> u64 {
    BINOMIAL[n as usize][k as usize]
}

impl Material {
    pub const fn new(own_men: u8, own_kings: u8, their_men: u8, their_kings: u8) -> Material {
        Material {
            own_men,
            own_kings,
            their_men,
            their_kings,
        }
    }

    /// The material of `pos` for its side to move.
    pub fn of(pos: &Brazilian) -> Material {
        let (own_men, own_kings) = pos.count(pos.side);
        let (their_men, their_kings) = pos.count(pos.side.opponent());
        Material::new(
            own_men as u8,
            own_kings as u8,
            their_men as u8,
            their_kings as u8,
        )
    }

    pub const fn pieces(self) -> u32 {
        (self.own_men + self.own_kings + self.their_men + self.their_kings) as u32
    }

    pub const fn men(self) -> u32 {
        (self.own_men + self.their_men) as u32
    }

    /// The same material with the other side to move.
    pub const fn swapped(self) -> Material {
        Material::new(
            self.their_men,
            self.their_kings,
            self.own_men,
            self.own_kings,
        )
    }

    /// A slice of the database: both sides have a piece, and it fits the tables.
    pub const fn is_slice(self) -> bool {
        self.own_men + self.own_kings > 0
            && self.their_men + self.their_kings > 0
            && self.pieces() <= MAX_PIECES
            && self.own_men <= 12
            && self.their_men <= 12
    }

    /// Every slice with at most `pieces` pieces, in build order: fewer pieces first, then
    /// fewer men (a promotion turns a man into a king, a capture removes a piece, so
    /// every move leaving a slice leads to one earlier in this order).
    pub fn all_up_to(pieces: u32) -> Vec<Material> {
        let max = pieces.min(MAX_PIECES) as u8;
        let mut all = Vec::new();
        for om in 0..=max {
            for ok in 0..=max - om {
                for tm in 0..=max - om - ok {
                    for tk in 0..=max - om - ok - tm {
                        let m = Material::new(om, ok, tm, tk);
                        if m.is_slice() {
                            all.push(m);
                        }
                    }
                }
            }
        }
        all.sort_by_key(|m| (m.pieces(), m.men(), *m));
        all
    }

    /// Short name, as in file names: `k2m1-k1m0` for two kings and a man against a king.
    pub fn name(self) -> String {
        format!(
            "k{}m{}-k{}m{}",
            self.own_kings, self.own_men, self.their_kings, self.their_men
        )
    }
}

impl std::fmt::Display for Material {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// Numbering of the positions of one [`Material`].
#[derive(Clone, Debug)]
pub struct SliceIndex {
    material: Material,
    /// `men_offsets[j]`: first men index of the `j`-th placement of the side to move's
    /// men (the opponent's men have fewer squares when those men stand on them).
    men_offsets: Vec<u64>,
    own_king_count: u64,
    their_king_count: u64,
    size: u64,
}

/// Rank of `squares` (a set of `k` slots) in the combinatorial number system.
#[inline(always)]
fn rank_set(mut slots: u32) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while slots != 0 {
        rank += binomial(slots.trailing_zeros(), i);
        slots &= slots - 1;
        i += 1;
    }
    rank
}

/// The set of `k` slots with rank `rank` (inverse of [`rank_set`]); slots below `n`.
fn unrank_set(mut rank: u64, k: u32, n: u32) -> u32 {
    let mut slots = 0;
    let mut top = n;
    for i in (1..=k).rev() {
        let mut c = top - 1;
        while binomial(c, i) > rank {
            c -= 1;
        }
        rank -= binomial(c, i);
        slots |= 1 << c;
        top = c;
    }
    slots
}

/// `squares` renumbered as slots among the squares not in `taken`: each square moves
/// down by the taken squares below it.
#[inline(always)]
fn squeeze(squares: u32, taken: u32) -> u32 {
    let mut slots = 0;
    let mut rest = squares;
    while rest != 0 {
        let s = rest.trailing_zeros();
        let below = taken & ((1u32 << s) - 1);
        slots |= 1 << (s - below.count_ones());
        rest &= rest - 1;
    }
    slots
}

/// Inverse of [`squeeze`]: slots among the squares not in `taken` back to squares.
fn spread(slots: u32, taken: u32) -> u32 {
    let mut squares = 0;
    let mut free = !taken;
    let mut slot = 0;
    let mut rest = slots;
    while rest != 0 {
        let s = free.trailing_zeros();
        if rest & (1 << slot) != 0 {
            squares |= 1 << s;
            rest &= !(1 << slot);
        }
        free &= free - 1;
        slot += 1;
    }
    squares
}

impl SliceIndex {
    pub fn new(material: Material) -> SliceIndex {
        assert!(material.is_slice(), "{material:?} is not a database slice");
        let om = material.own_men as u32;
        let tm = material.their_men as u32;
        let placements = binomial(28, om);
        let mut men_offsets = Vec::with_capacity(placements as usize + 1);
        let mut total = 0;
        for j in 0..placements {
            men_offsets.push(total);
            let own = unrank_set(j, om, 28) << 4;
            let blocked = (own & THEIR_MEN_SQUARES).count_ones();
            total += binomial(28 - blocked, tm);
        }
        men_offsets.push(total);
        let free = 32 - om - tm;
        let own_king_count = binomial(free, material.own_kings as u32);
        let their_king_count = binomial(
            free - material.own_kings as u32,
            material.their_kings as u32,
        );
        SliceIndex {
            material,
            men_offsets,
            own_king_count,
            their_king_count,
            size: total * own_king_count * their_king_count,
        }
    }

    pub fn material(&self) -> Material {
        self.material
    }

    /// Positions in the slice.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The index of a position given as [`Brazilian::relative_masks`] (own men, own kings,
    /// their men, their kings), which must have this slice's material.
    #[inline]
    pub fn index(&self, [own_men, own_kings, their_men, their_kings]: [u32; 4]) -> u64 {
        let own_rank = rank_set(own_men >> 4);
        let their_rank = rank_set(squeeze(their_men, own_men));
        let men = own_men | their_men;
        let men_index = self.men_offsets[own_rank as usize] + their_rank;
        let own_king_rank = rank_set(squeeze(own_kings, men));
        let their_king_rank = rank_set(squeeze(their_kings, men | own_kings));
        (men_index * self.own_king_count + own_king_rank) * self.their_king_count + their_king_rank
    }

    /// The masks (as [`SliceIndex::index`] takes them) of position `index` < `size()`.
    pub fn masks(&self, index: u64) -> [u32; 4] {
        let m = self.material;
        let their_king_rank = index % self.their_king_count;
        let rest = index / self.their_king_count;
        let own_king_rank = rest % self.own_king_count;
        let men_index = rest / self.own_king_count;
        let j = self.men_offsets.partition_point(|&o| o <= men_index) - 1;
        let own_men = unrank_set(j as u64, m.own_men as u32, 28) << 4;
        let blocked = (own_men & THEIR_MEN_SQUARES).count_ones();
        let their_slots = unrank_set(
            men_index - self.men_offsets[j],
            m.their_men as u32,
            28 - blocked,
        );
        let their_men = spread(their_slots, own_men | !THEIR_MEN_SQUARES);
        let men = own_men | their_men;
        let free = 32 - m.own_men as u32 - m.their_men as u32;
        let own_kings = spread(unrank_set(own_king_rank, m.own_kings as u32, free), men);
        let their_kings = spread(
            unrank_set(
                their_king_rank,
                m.their_kings as u32,
                free - m.own_kings as u32,
            ),
            men | own_kings,
        );
        [own_men, own_kings, their_men, their_kings]
    }

    /// Position `index` with White to move.
    pub fn position(&self, index: u64) -> Brazilian {
        Brazilian::from_relative_masks(self.masks(index), Side::First)
    }
}

const _: () = assert!(OWN_MEN_SQUARES == !0xF);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    #[test]
    fn sets_rank_and_unrank() {
        for k in 0..=4 {
            for rank in 0..binomial(10, k) {
                let set = unrank_set(rank, k, 10);
                assert_eq!(set.count_ones(), k);
                assert!(set < 1 << 10);
                assert_eq!(rank_set(set), rank);
            }
        }
        let taken = 0b1011_0010;
        for slots in 0..64u32 {
            assert_eq!(squeeze(spread(slots, taken), taken), slots);
            assert_eq!(spread(slots, taken) & taken, 0);
        }
    }

    #[test]
    fn every_index_is_one_position_of_the_slice() {
        for material in Material::all_up_to(3) {
            let slice = SliceIndex::new(material);
            let mut seen = std::collections::HashSet::new();
            for index in 0..slice.size() {
                let pos = slice.position(index);
                assert_eq!(Material::of(&pos), material);
                assert_eq!(slice.index(pos.relative_masks()), index);
                assert!(seen.insert(pos));
                // A legal position: parse its FEN back.
                assert_eq!(
                    Brazilian::parse_position(&pos.format_position()).unwrap(),
                    pos
                );
            }
        }
    }

    #[test]
    fn black_to_move_shares_the_mirrored_slot() {
        let pos = Brazilian::parse_position("B:W21,K30:B5,K12,14").unwrap();
        let material = Material::of(&pos);
        assert_eq!(material, Material::new(2, 1, 1, 1));
        let slice = SliceIndex::new(material);
        let mirrored = pos.mirrored();
        assert_eq!(
            slice.index(pos.relative_masks()),
            slice.index(mirrored.relative_masks())
        );
    }

    #[test]
    fn slices_follow_the_build_order() {
        let all = Material::all_up_to(5);
        for (i, m) in all.iter().enumerate() {
            let promoted = Material::new(
                m.own_men.wrapping_sub(1),
                m.own_kings + 1,
                m.their_men,
                m.their_kings,
            );
            if m.own_men > 0 && promoted.is_slice() {
                let at = all.iter().position(|x| *x == promoted).unwrap();
                assert!(at < i, "{m} after {promoted}");
            }
        }
    }
}
