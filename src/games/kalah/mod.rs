//! Kalah with six pits a side, as P. N. Dubner's description of a Kalah program gives it (rules
//! 1.1–1.4, 2 and 3; docs/rules.md), with the stones per pit and the
//! capture rule as options ([`KalahRules`]).
//!
//! A position is Dubner's `desk[14]` — 0..5 A's pits 1..6, 6 A's store, 7..12 B's pits
//! 1..6, 13 B's store — with the side to move and the rules. A move is a whole compound
//! move ([`KalahMove`]): every sowing of one turn, so after each move the other side is
//! to move.

pub mod accuracy;
pub mod bench;
pub mod commands;
pub mod egdb;
pub mod encoding;
pub mod evaluators;
pub mod features;
mod learning;
mod moves;
mod notation;
mod pack;
pub mod perfect;
pub mod record;
mod rules;
pub mod solve;
mod sowing;
mod terminal;
mod web;

use crate::arena::players::EngineProtocol;
use crate::search::{EgdbGame, OpenedTablebase};

pub use moves::{KalahMove, KalahMoves, MAX_KALAH_MOVES, MAX_SOWINGS};
pub use notation::{KalahMoveError, KalahPositionError, MAX_TEXT_LEN};
pub use pack::PackedKalah;
pub use rules::{KalahRules, MAX_STONES_PER_PIT, PITS};
pub use sowing::{Sowing, SowingEnd};

use crate::game::{Game, Outcome, Side};
use sowing::{BASE, Desk, STORE};

/// The game's name in files and on the command line.
pub const NAME: &str = "kalah";
/// A, who moves first.
pub const A: Side = Side::First;
/// B.
pub const B: Side = Side::Second;

/// A Kalah position: Dubner's `desk[14]`, the side to move and the rules.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Kalah {
    counts: [u8; 14],
    side: Side,
    rules: KalahRules,
}

impl Kalah {
    /// A position from Dubner's `desk[14]`, checked like any position from outside: the
    /// rules are played ones and the counts add up to the rules' total.
    pub fn from_counts(
        rules: KalahRules,
        counts: [u8; 14],
        side: Side,
    ) -> Result<Kalah, KalahPositionError> {
        notation::check_position(rules, counts.map(u32::from), side)
    }

    /// Dubner's `desk[14]`: A's pits 1..6, A's store, B's pits 1..6, B's store.
    #[inline(always)]
    pub const fn counts(&self) -> &[u8; 14] {
        &self.counts
    }

    /// Stones in `side`'s pit `n` (1..=6, counted from that side's left).
    ///
    /// # Panics
    /// If `n` is not in 1..=6.
    #[inline(always)]
    pub const fn pit(&self, side: Side, n: u8) -> u8 {
        assert!(n >= 1 && n as usize <= PITS, "pits are numbered 1..=6");
        self.counts[BASE[side.index()] + n as usize - 1]
    }

    /// `side`'s six pits, pit 1 first.
    #[inline(always)]
    pub fn pits(&self, side: Side) -> [u8; PITS] {
        let base = BASE[side.index()];
        let mut pits = [0; PITS];
        pits.copy_from_slice(&self.counts[base..base + PITS]);
        pits
    }

    /// Stones in `side`'s store.
    #[inline(always)]
    pub const fn store(&self, side: Side) -> u8 {
        self.counts[STORE[side.index()]]
    }

    #[inline(always)]
    pub const fn rules(&self) -> KalahRules {
        self.rules
    }

    /// Stones on the board, stores included (the rules' total for every checked position).
    pub fn stones_total(&self) -> u32 {
        self.counts.iter().map(|&c| u32::from(c)).sum()
    }

    /// Stones in `side`'s pits.
    pub fn stones_in_pits(&self, side: Side) -> u32 {
        self.pits(side).iter().map(|&c| u32::from(c)).sum()
    }

    /// A's store minus B's store.
    #[inline(always)]
    pub const fn score_margin(&self) -> i32 {
        self.store(A) as i32 - self.store(B) as i32
    }

    /// True if the game is over: a row is empty (rule 2: a player has nothing to sow).
    /// Positions reached by play then have all twelve pits empty; a position read from
    /// text may still have stones in the other row, which go to their owner's store.
    #[inline(always)]
    pub fn is_over(&self) -> bool {
        let desk = Desk::load(&self.counts);
        desk.row_empty(self.side) || desk.row_empty(self.side.opponent())
    }

    /// The stores once the stones left in each row have gone to their owner's store, A's
    /// first: the final score of a finished game.
    pub fn final_score(&self) -> (u32, u32) {
        (
            u32::from(self.store(A)) + self.stones_in_pits(A),
            u32::from(self.store(B)) + self.stones_in_pits(B),
        )
    }

    /// The side to move's store minus the opponent's.
    #[inline]
    pub fn store_margin(&self) -> i32 {
        let own = self.side_to_move();
        i32::from(self.store(own)) - i32::from(self.store(own.opponent()))
    }

    /// The same position with `side` to move (for tests and analysis tools).
    pub const fn with_side_to_move(self, side: Side) -> Kalah {
        Kalah { side, ..self }
    }
}

/// Folded 128-bit product (as in wyhash): every bit of either factor reaches every bit
/// of the result.
#[inline(always)]
const fn fold_multiply(a: u64, b: u64) -> u64 {
    let product = (a as u128) * (b as u128);
    (product as u64) ^ ((product >> 64) as u64)
}

impl Game for Kalah {
    type Move = KalahMove;
    type Moves = KalahMoves;
    type Variant = KalahRules;
    type PositionError = KalahPositionError;
    type MoveError = KalahMoveError;
    type Packed = PackedKalah;
    type PackedMove = u128;

    const NAME: &'static str = NAME;
    /// Kalah has no draw rule: every game ends (see [`Game::is_irreversible`]).
    const QUIET_DRAW_PLIES: Option<u32> = None;

    fn start_of(rules: KalahRules) -> Kalah {
        debug_assert!(rules.is_valid(), "{rules:?}");
        let s = rules.stones;
        Kalah {
            counts: [s, s, s, s, s, s, 0, s, s, s, s, s, s, 0],
            side: A,
            rules,
        }
    }

    #[inline(always)]
    fn variant(&self) -> KalahRules {
        self.rules
    }

    fn variant_name(rules: KalahRules) -> String {
        rules.name()
    }

    fn parse_variant(options: &str) -> Result<KalahRules, String> {
        KalahRules::parse(options)
    }

    #[inline(always)]
    fn side_to_move(&self) -> Side {
        self.side
    }

    fn side_name(side: Side) -> &'static str {
        match side {
            Side::First => "A",
            Side::Second => "B",
        }
    }

    #[inline]
    fn legal_moves(&self, moves: &mut KalahMoves) {
        moves.clear();
        self.for_each_move(|mv| moves.push(mv));
    }

    #[inline]
    fn count_legal_moves(&self, _scratch: &mut KalahMoves) -> u64 {
        let mut n = 0;
        self.for_each_move(|_| n += 1);
        n
    }

    /// Every non-empty pit starts at least one move (a chain of store-ending sowings
    /// always ends: each adds a stone to the store).
    #[inline]
    fn has_legal_move(&self) -> bool {
        !self.is_over()
    }

    /// Nothing is ever pending between moves: a compound move already holds every sowing
    /// of the turn.
    #[inline(always)]
    fn is_quiet(&self) -> bool {
        true
    }

    #[inline]
    fn play(&self, mv: KalahMove) -> Kalah {
        let mut desk = Desk::load(&self.counts);
        for pit in mv.sowings() {
            let (end, _) = sowing::sow(&mut desk, self.side, self.rules, pit as usize - 1);
            if end != SowingEnd::SowsAgain {
                break;
            }
        }
        Kalah {
            counts: desk.counts(),
            side: self.side.opponent(),
            rules: self.rules,
        }
    }

    /// Most stones in the store wins (rule 3); the stones left in a row count for their
    /// owner, as the sweep at the end of the game puts them in its store.
    /// Every stone of the twelve pits in one store.
    const MAX_MARGIN: u32 = 2 * PITS as u32 * MAX_STONES_PER_PIT as u32;
    const SCORE_UNITS: &'static str = "stones";

    /// The final store difference for the side to move.
    #[inline]
    fn final_margin(&self) -> i32 {
        let (a, b) = self.final_score();
        let margin = a as i32 - b as i32;
        if self.side == A { margin } else { -margin }
    }

    fn outcome_without_moves(&self) -> Outcome {
        let (a, b) = self.final_score();
        match a.cmp(&b) {
            std::cmp::Ordering::Greater => Outcome::Win(A),
            std::cmp::Ordering::Less => Outcome::Win(B),
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }

    /// Always true: no Kalah position can recur. Stores never decrease, so a move that
    /// adds to a store leaves every earlier position behind. A move that adds nothing to
    /// a store is one sowing that neither reached the store nor captured, so every stone
    /// it moved went forward within the mover's own row: the sum over all pit stones of
    /// their pit numbers (1..6, each counted in its own row) grows while the stores stay
    /// the same. (store total, that sum) thus rises strictly with every move.
    #[inline(always)]
    fn is_irreversible(&self, _mv: KalahMove) -> bool {
        true
    }

    /// First pit × 6 + last pit.
    const HISTORY_SIZE: usize = PITS * PITS;

    #[inline(always)]
    fn history_index(&self, mv: KalahMove) -> usize {
        let index = |pit: u8| (pit as usize).saturating_sub(1).min(PITS - 1);
        index(mv.first()) * PITS + index(mv.last())
    }

    /// The 14 counts as two words, the side to move and the rules in the spare bytes of
    /// the second, mixed by folded multiplies: a few cycles.
    #[inline(always)]
    fn hash_key(&self) -> u64 {
        const K: [u64; 4] = [
            0xA076_1D64_78BD_642F,
            0xE703_7ED1_A0B4_28DB,
            0x8EBC_6AF0_9C88_C6E3,
            0x5899_65CC_7537_4CC3,
        ];
        let c = &self.counts;
        let low = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let high = u64::from_le_bytes([
            c[8],
            c[9],
            c[10],
            c[11],
            c[12],
            c[13],
            self.rules.stones | (self.rules.empty_capture as u8) << 7,
            self.side as u8,
        ]);
        let a = fold_multiply(low ^ K[0], high ^ K[1]);
        fold_multiply(a ^ K[2], high ^ K[3])
    }

    fn parse_position_of(rules: KalahRules, text: &str) -> Result<Kalah, KalahPositionError> {
        notation::parse_position(rules, text)
    }

    fn format_position(&self) -> String {
        notation::format_position(self)
    }

    fn parse_move(&self, text: &str) -> Result<KalahMove, KalahMoveError> {
        notation::parse_move(self, text)
    }

    fn format_move(&self, mv: KalahMove) -> String {
        notation::format_move(mv, ",")
    }

    fn pack(&self) -> PackedKalah {
        PackedKalah::pack(self)
    }

    fn unpack(packed: &PackedKalah) -> Result<Kalah, String> {
        packed.unpack()
    }

    fn pack_move(&self, mv: KalahMove) -> u128 {
        mv.0
    }
}

// What Kalah does not have: a protocol for external engines.
impl EngineProtocol for Kalah {}

/// `--egdb DIR`: the solver's databases in DIR (its `--db-dir`), given explicitly (no
/// default folder: a command plays without them unless told).
impl EgdbGame for Kalah {
    fn open_tablebase(dir: &std::path::Path) -> Result<OpenedTablebase<Self>, String> {
        egdb::SearchDatabases::open(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::perft::perft;

    #[test]
    fn start_moves_in_the_seeds_order() {
        let mut moves = KalahMoves::new();
        Kalah::start().legal_moves(&mut moves);
        let texts: Vec<String> = moves
            .iter()
            .map(|&m| Kalah::start().format_move(m))
            .collect();
        assert_eq!(
            texts,
            ["1,2", "1,3", "1,4", "1,5", "1,6", "2", "3", "4", "5", "6"]
        );
    }

    #[test]
    fn perft_from_the_start() {
        let start = Kalah::start();
        let expected = [10, 60, 329, 1907, 12441, 80209];
        for (depth, &nodes) in (1..).zip(&expected) {
            assert_eq!(perft(&start, depth), nodes, "depth {depth}");
        }
    }

    #[test]
    fn count_agrees_with_the_list() {
        let start = Kalah::start();
        let mut moves = KalahMoves::new();
        start.legal_moves(&mut moves);
        for &mv in moves.iter() {
            let next = start.play(mv);
            let mut list = KalahMoves::new();
            next.legal_moves(&mut list);
            assert_eq!(
                next.count_legal_moves(&mut KalahMoves::new()),
                list.len() as u64
            );
            assert!(next.has_legal_move());
        }
    }

    #[test]
    fn hash_depends_on_side_and_rules() {
        let start = Kalah::start();
        assert_ne!(start.hash_key(), start.with_side_to_move(B).hash_key());
        let four = Kalah::start_of(KalahRules {
            stones: 4,
            empty_capture: false,
        });
        let four_empty = Kalah::start_of(KalahRules {
            stones: 4,
            empty_capture: true,
        });
        assert_ne!(four.hash_key(), four_empty.hash_key());
    }
}
