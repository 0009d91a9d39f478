//! The foundation of every game: the [`Game`] trait that search, self-play, learners
//! and matches are generic over, and what every game shares (sides, outcomes, move
//! lists, game records, perft). The games themselves are in [`crate::games`].
//!
//! A `Game` value *is* a position (as in shakmaty's `Position`): small, `Copy`, and
//! advanced by copy-make. A move is one whole turn of one player — for Kalah that is a
//! compound move (every sowing of the turn, including the extra sowings earned by ending
//! in one's own store) — so after every move the other side is to move and negamax needs
//! no special case.

mod movelist;
pub mod perft;
mod record;
mod spec;
pub mod view;

pub use movelist::{MAX_MOVES, MoveBuffer, MoveList};
pub use record::{EndReason, GameRecord, GameStatus};
pub use spec::{
    GameEntry, GameSpec, game_names, handle_of, owner_of_builtin, parse_game, split_game_text,
};

use std::fmt::{Debug, Display};
use std::hash::Hash;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The two players. `First` moves first: White in draughts, A in Kalah.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Side {
    First,
    Second,
}

impl Side {
    pub const fn opponent(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }

    /// 0 for `First`, 1 for `Second`: an index into per-side tables.
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// How a finished game ended, independent of why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    Win(Side),
    Draw,
}

impl Outcome {
    /// The result as a score for `side`: 1 win, ½ draw, 0 loss.
    pub fn score_for(self, side: Side) -> f64 {
        match self {
            Outcome::Win(winner) if winner == side => 1.0,
            Outcome::Win(_) => 0.0,
            Outcome::Draw => 0.5,
        }
    }
}

/// The exact game-theoretic value of a position for the side to move, as an endgame
/// database knows it: the number is the plies to the end of the game under best play
/// (the winner hurrying, the loser holding out), move-count draw rules ignored.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ExactValue {
    Win(u32),
    Loss(u32),
    Draw,
}

impl ExactValue {
    /// The value of the position before the move that led to a position of value `self`.
    pub const fn parent(self) -> ExactValue {
        match self {
            ExactValue::Win(d) => ExactValue::Loss(d + 1),
            ExactValue::Loss(d) => ExactValue::Win(d + 1),
            ExactValue::Draw => ExactValue::Draw,
        }
    }

    /// Total order from the side to move's point of view: faster wins first, then draws,
    /// then slower losses.
    pub const fn preference(self) -> i64 {
        match self {
            ExactValue::Win(d) => i64::MAX / 2 - d as i64,
            ExactValue::Draw => 0,
            ExactValue::Loss(d) => -(i64::MAX / 2) + d as i64,
        }
    }
}

impl Display for ExactValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExactValue::Win(d) => write!(f, "win in {d} plies"),
            ExactValue::Loss(d) => write!(f, "loss in {d} plies"),
            ExactValue::Draw => write!(f, "draw"),
        }
    }
}

/// A two-player, zero-sum, perfect-information game, seen through one position.
pub trait Game: Copy + Eq + Hash + Debug + Send + Sync + 'static {
    /// One whole turn of one player, compact and `Copy`.
    type Move: Copy + Eq + Hash + Debug + Default + Send + Sync + 'static;
    /// A buffer with room for every legal move of any position (see [`MoveBuffer`]).
    type Moves: MoveBuffer<Self::Move>;
    /// Rule options that are data, not code (Kalah's stones per pit and capture rule);
    /// every position knows its variant. `Default` is the game's standard form.
    type Variant: Copy + Eq + Hash + Debug + Default + Send + Sync + 'static;
    /// Why a position text was rejected.
    type PositionError: std::error::Error + Display + Send + Sync + 'static;
    /// Why a move text was rejected.
    type MoveError: std::error::Error + Display + Send + Sync + 'static;
    /// A position in file form (datasets); see [`Game::pack`].
    type Packed: Serialize + DeserializeOwned + Clone + PartialEq + Debug + Send + Sync;
    /// A move in file form (datasets); see [`Game::pack_move`].
    type PackedMove: Serialize + DeserializeOwned + Clone + PartialEq + Debug + Send + Sync;

    /// Short name of the game in files and on the command line (`brazilian`, `kalah`).
    const NAME: &'static str;
    /// Consecutive plies without an irreversible move after which the game is drawn
    /// (Brazilian draughts: 20 king moves by each side = 40 plies); `None` if the game
    /// has no such rule.
    const QUIET_DRAW_PLIES: Option<u32>;

    /// The starting position of `variant`.
    fn start_of(variant: Self::Variant) -> Self;
    /// The standard starting position.
    fn start() -> Self {
        Self::start_of(Self::Variant::default())
    }
    fn variant(&self) -> Self::Variant;
    /// The game and variant as `--game` names them and model files record them:
    /// [`Game::NAME`] for the standard variant, else `NAME:options` (`kalah:6:4:empty-capture`).
    fn variant_name(variant: Self::Variant) -> String;
    /// Reads the options after `NAME:` in a `--game` text (`6:4:empty-capture`); the empty
    /// text is the standard variant.
    fn parse_variant(options: &str) -> Result<Self::Variant, String>;

    fn side_to_move(&self) -> Side;
    /// How the game names a side in text (`white`, `black`; `A`, `B`).
    fn side_name(side: Side) -> &'static str;

    /// Writes every legal move into `moves` (cleared first). Allocates nothing.
    fn legal_moves(&self, moves: &mut Self::Moves);
    /// The number of legal moves, using `scratch` as working space; games override it
    /// with something cheaper than listing them (perft's last ply).
    fn count_legal_moves(&self, scratch: &mut Self::Moves) -> u64 {
        self.legal_moves(scratch);
        scratch.len() as u64
    }
    /// The number of legal replies to each legal move, summed (perft's last two plies),
    /// using `list` and `scratch` as working space; games override it with something
    /// cheaper than playing every move.
    fn count_replies(&self, list: &mut Self::Moves, scratch: &mut Self::Moves) -> u64 {
        self.legal_moves(list);
        list.iter()
            .map(|&mv| self.play(mv).count_legal_moves(scratch))
            .sum()
    }
    /// True if the side to move has at least one legal move.
    fn has_legal_move(&self) -> bool {
        let mut moves = Self::Moves::default();
        self.legal_moves(&mut moves);
        !moves.is_empty()
    }
    /// True if the position may be evaluated statically: nothing forced is pending
    /// (draughts: no capture to make). Quiescence search continues until it is.
    fn is_quiet(&self) -> bool;
    /// The position after `mv`, which must be one of this position's legal moves.
    fn play(&self, mv: Self::Move) -> Self;
    /// The result when the side to move has no legal move (the game is over).
    fn outcome_without_moves(&self) -> Outcome;
    /// Largest margin a game can be won by, in the game's units; 1 for a game whose
    /// results are only won, drawn or lost (draughts).
    const MAX_MARGIN: u32 = 1;
    /// What the game's static values count, plural (`men`, `stones`): 100 centi-units
    /// are one.
    const SCORE_UNITS: &'static str;
    /// The result of the finished game (the side to move has no legal move) for the side
    /// to move, with its margin: positive won, 0 drawn, negative lost, at most
    /// [`Game::MAX_MARGIN`] either way. The search scores game ends by it.
    #[inline(always)]
    fn final_margin(&self) -> i32 {
        match self.outcome_without_moves() {
            Outcome::Draw => 0,
            Outcome::Win(side) if side == self.side_to_move() => 1,
            Outcome::Win(_) => -1,
        }
    }
    /// True if no earlier position can recur after `mv` (draughts: a capture or a man
    /// move). Such a move also restarts the [`Game::QUIET_DRAW_PLIES`] count.
    fn is_irreversible(&self, mv: Self::Move) -> bool;
    /// Size of the history-heuristic table: [`Game::history_index`] is below it.
    const HISTORY_SIZE: usize;
    /// The history-heuristic slot of a move (draughts: from the start and end squares).
    fn history_index(&self, mv: Self::Move) -> usize;
    /// 64-bit hash of the position, the same whatever move order reached it.
    fn hash_key(&self) -> u64;

    /// Reads a position of `variant` in the game's standard text form.
    fn parse_position_of(variant: Self::Variant, text: &str) -> Result<Self, Self::PositionError>;
    /// Reads a position of the standard variant.
    fn parse_position(text: &str) -> Result<Self, Self::PositionError> {
        Self::parse_position_of(Self::Variant::default(), text)
    }
    /// The position in the game's standard text form (FEN for draughts).
    fn format_position(&self) -> String;
    /// Reads a move played from this position; only legal moves are accepted.
    fn parse_move(&self, text: &str) -> Result<Self::Move, Self::MoveError>;
    /// Writes a legal move of this position in the game's standard notation.
    fn format_move(&self, mv: Self::Move) -> String;

    /// The position in file form.
    fn pack(&self) -> Self::Packed;
    /// A position from its file form, checked like any position from outside.
    fn unpack(packed: &Self::Packed) -> Result<Self, String>;
    /// A legal move of this position in file form.
    fn pack_move(&self, mv: Self::Move) -> Self::PackedMove;
    /// The legal move of this position that `packed` describes.
    fn unpack_move(&self, packed: &Self::PackedMove) -> Result<Self::Move, String> {
        let mut moves = Self::Moves::default();
        self.legal_moves(&mut moves);
        moves
            .iter()
            .copied()
            .find(|&mv| self.pack_move(mv) == *packed)
            .ok_or_else(|| format!("move {packed:?} is not legal in {}", self.format_position()))
    }
}

/// A game as game files hold it: tags in file order (players, event), the start
/// position, the moves, and the result the file states (`None`: unfinished or unknown).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SavedGame<G: Game> {
    pub tags: Vec<(String, String)>,
    pub start: G,
    pub moves: Vec<G::Move>,
    pub result: Option<Outcome>,
}

impl<G: Game> SavedGame<G> {
    /// The game of a record, with `tags` and the stated `result`.
    pub fn from_record(
        record: &GameRecord<G>,
        tags: Vec<(String, String)>,
        result: Option<Outcome>,
    ) -> Self {
        SavedGame {
            tags,
            start: *record.start(),
            moves: record.moves().to_vec(),
            result,
        }
    }

    /// The value of tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Replays the moves into a record (game files check them when read).
    pub fn record(&self) -> GameRecord<G> {
        let mut record = GameRecord::new(self.start);
        for &mv in &self.moves {
            record.play(mv);
        }
        record
    }
}

/// The tag naming the player of `side` in game files: `White`/`Black` in PDN, `A`/`B` in
/// Kalah records (the side's name, capitalised).
pub fn player_tag<G: Game>(side: Side) -> String {
    let name = G::side_name(side);
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Reading and writing a game's own file format: PDN for draughts, Dubner's game record
/// for Kalah. Player names are the [`player_tag`] tags.
pub trait GameFile: Game {
    /// The usual file extension, without the dot.
    const FILE_EXTENSION: &'static str;
    /// Longest game file read, in bytes (checked before reading it whole).
    const MAX_FILE_BYTES: usize;
    /// One game as text (games are written one after another, separated by a blank line).
    fn write_game(game: &SavedGame<Self>) -> String;
    /// Every game of a file's text, checked move by move; the error names the game and
    /// line.
    fn read_games(variant: Self::Variant, text: &str) -> Result<Vec<SavedGame<Self>>, String>;
}

/// The position after `plies` uniformly random legal moves from `start`, drawn from `rng`;
/// `None` if the game ends before. `moves` is scratch space for the move lists.
pub fn random_plies<G: Game>(
    start: G,
    plies: u32,
    rng: &mut impl rand::RngExt,
    moves: &mut G::Moves,
) -> Option<G> {
    let mut pos = start;
    for _ in 0..plies {
        pos.legal_moves(moves);
        if moves.is_empty() {
            return None;
        }
        pos = pos.play(moves[rng.random_range(0..moves.len())]);
    }
    Some(pos)
}
