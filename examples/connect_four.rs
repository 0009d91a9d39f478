//! A game evalearn does not ship — Connect Four — added from outside the crate through
//! its public traits, trained by TD(λ) with the library's own training loop, and
//! matched against a simple hand-made evaluator.
//!
//! What a game implements to be trained (docs/architecture.md, "Adding a game"):
//! - [`Game`]: the rules, texts and file form of a position;
//! - [`EvalGame`]: its hand-made evaluators (the first is the baseline the training
//!   loop's evaluation matches play) and the kinds of learned models it reads;
//! - the inputs of the learners it offers — here the TD network's ([`Inputs`]);
//! - [`TrainGame`]: those learners; and [`HeldOutGame`], kept at its default (no
//!   positions with exact values).
//!
//! Run it: `cargo run --release --example connect_four` (about a minute on 2 cores; on
//! 2026-11-26 the model scored 56.2%, Elo +44 [+7, +81], against `tactics` over 200 games
//! and 45.8% against `centre`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use evalearn::accuracy::heldout::HeldOutGame;
use evalearn::arena::matches::{MatchConfig, run_match};
use evalearn::arena::openings::random_openings;
use evalearn::arena::players::Engine;
use evalearn::arena::stats::MatchTally;
use evalearn::eval::spec::{AnyEvaluator, ModelKind, load_model_file};
use evalearn::eval::td::{self, InputSet, Inputs, phase_bucket};
use evalearn::eval::{EvalGame, Evaluator};
use evalearn::game::{Game, MoveList, Outcome, Side};
use evalearn::learn::config::TrainConfig;
use evalearn::learn::train::{Start, TrainOptions, train};
use evalearn::learn::{LearnerKind, TrainGame};
use evalearn::search::Limits;

const COLUMNS: usize = 7;
const ROWS: usize = 6;
/// Bits per column: six cells and a sentinel (the classic bitboard of Connect Four), so
/// shifts along a line never wrap from one column into the next.
const HEIGHT: usize = ROWS + 1;
const CELLS: usize = COLUMNS * ROWS;
const BOTTOM: u64 = bottom_row();
const FULL: u64 = BOTTOM * ((1 << ROWS) - 1);

const fn bottom_row() -> u64 {
    let mut bits = 0;
    let mut c = 0;
    while c < COLUMNS {
        bits |= 1 << (c * HEIGHT);
        c += 1;
    }
    bits
}

/// A position: the stones of the side to move and of both sides.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ConnectFour {
    mine: u64,
    all: u64,
}

/// A move: the column a stone is dropped in, 0-based.
pub type Column = u8;

impl ConnectFour {
    fn stones(&self) -> u32 {
        self.all.count_ones()
    }

    fn theirs(&self) -> u64 {
        self.mine ^ self.all
    }

    /// Four in a row in `stones`, in any direction.
    fn four(stones: u64) -> bool {
        [1, HEIGHT, HEIGHT - 1, HEIGHT + 1].iter().any(|&d| {
            let pairs = stones & (stones >> d);
            pairs & (pairs >> (2 * d)) != 0
        })
    }

    /// The game is over when the side that just moved made four, or the board is full.
    fn over(&self) -> bool {
        Self::four(self.theirs()) || self.all == FULL
    }

    /// The cell index (column-major, 0 at the bottom left) of `(column, row)`.
    fn bit(column: usize, row: usize) -> u64 {
        1 << (column * HEIGHT + row)
    }
}

/// Why a text is no position or no move.
#[derive(Debug)]
pub struct TextError(String);

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TextError {}

impl Game for ConnectFour {
    type Move = Column;
    type Moves = MoveList<Column, COLUMNS>;
    type Variant = ();
    type PositionError = TextError;
    type MoveError = TextError;
    type Packed = (u64, u64);
    type PackedMove = u8;

    const NAME: &'static str = "connect-four";
    const QUIET_DRAW_PLIES: Option<u32> = None;
    const SCORE_UNITS: &'static str = "points";
    const HISTORY_SIZE: usize = COLUMNS;

    fn start_of(_: ()) -> Self {
        ConnectFour { mine: 0, all: 0 }
    }

    fn variant(&self) {}

    fn variant_name(_: ()) -> String {
        Self::NAME.to_string()
    }

    fn parse_variant(options: &str) -> Result<(), String> {
        match options {
            "" => Ok(()),
            other => Err(format!("connect-four has no options (got '{other}')")),
        }
    }

    fn side_to_move(&self) -> Side {
        if self.stones().is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        }
    }

    fn side_name(side: Side) -> &'static str {
        match side {
            Side::First => "x",
            Side::Second => "o",
        }
    }

    fn legal_moves(&self, moves: &mut Self::Moves) {
        moves.clear();
        if self.over() {
            return;
        }
        // Centre columns first: alpha-beta cuts sooner.
        for column in [3, 2, 4, 1, 5, 0, 6] {
            if self.all & Self::bit(column, ROWS - 1) == 0 {
                moves.push(column as Column);
            }
        }
    }

    fn is_quiet(&self) -> bool {
        true
    }

    fn play(&self, column: Column) -> Self {
        let lowest_empty = (self.all + (BOTTOM & (0x3f << (column as usize * HEIGHT)))) & !self.all;
        let all = self.all | lowest_empty;
        // The side to move changes: its stones are the others' now.
        ConnectFour {
            mine: self.mine ^ self.all,
            all,
        }
    }

    fn outcome_without_moves(&self) -> Outcome {
        if Self::four(self.theirs()) {
            Outcome::Win(self.side_to_move().opponent())
        } else {
            Outcome::Draw
        }
    }

    fn is_irreversible(&self, _: Column) -> bool {
        true
    }

    fn history_index(&self, column: Column) -> usize {
        column as usize
    }

    fn hash_key(&self) -> u64 {
        // SplitMix64 of both boards.
        let mut x = self.mine.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.all;
        x ^= x >> 30;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x ^= x >> 27;
        x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }

    /// Rows from the top, `x` the first player's stones, `o` the second's, `.` empty,
    /// separated by `/`: `......./......./......./......./......./...x...`.
    fn parse_position_of(_: (), text: &str) -> Result<Self, TextError> {
        let rows: Vec<&str> = text.trim().split('/').collect();
        if rows.len() != ROWS || rows.iter().any(|r| r.chars().count() != COLUMNS) {
            return Err(TextError(format!(
                "'{text}': six rows of seven cells, joined by /"
            )));
        }
        let (mut first, mut second) = (0u64, 0u64);
        for (r, row) in rows.iter().enumerate() {
            for (column, cell) in row.chars().enumerate() {
                let bit = Self::bit(column, ROWS - 1 - r);
                match cell {
                    'x' => first |= bit,
                    'o' => second |= bit,
                    '.' => {}
                    other => return Err(TextError(format!("'{other}' is no cell (x, o, .)"))),
                }
            }
        }
        let all = first | second;
        // Stones rest on stones: every column is filled from the bottom.
        if (all + BOTTOM) & all != 0 {
            return Err(TextError(format!(
                "'{text}': a stone floats above an empty cell"
            )));
        }
        let to_move_first = first.count_ones() == second.count_ones();
        if !to_move_first && first.count_ones() != second.count_ones() + 1 {
            return Err(TextError(format!(
                "'{text}': x has one stone more than o, or as many"
            )));
        }
        let mine = if to_move_first { first } else { second };
        Ok(ConnectFour { mine, all })
    }

    fn format_position(&self) -> String {
        let first = if self.side_to_move() == Side::First {
            self.mine
        } else {
            self.theirs()
        };
        let rows: Vec<String> = (0..ROWS)
            .rev()
            .map(|row| {
                (0..COLUMNS)
                    .map(|column| {
                        let bit = Self::bit(column, row);
                        match (self.all & bit != 0, first & bit != 0) {
                            (false, _) => '.',
                            (true, true) => 'x',
                            (true, false) => 'o',
                        }
                    })
                    .collect()
            })
            .collect();
        rows.join("/")
    }

    /// The column, 1 to 7.
    fn parse_move(&self, text: &str) -> Result<Column, TextError> {
        let mut moves = Self::Moves::default();
        self.legal_moves(&mut moves);
        text.trim()
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .map(|c| c as Column)
            .filter(|c| moves.contains(c))
            .ok_or_else(|| TextError(format!("'{text}' is no legal column (1..7, not full)")))
    }

    fn format_move(&self, column: Column) -> String {
        (column + 1).to_string()
    }

    fn pack(&self) -> (u64, u64) {
        (self.mine, self.all)
    }

    fn unpack(&(mine, all): &(u64, u64)) -> Result<Self, String> {
        let pos = ConnectFour { mine, all };
        match Self::parse_position_of((), &pos.format_position()) {
            Ok(checked) if checked == pos => Ok(pos),
            _ => Err(format!("({mine:#x}, {all:#x}) is no position")),
        }
    }

    fn pack_move(&self, column: Column) -> u8 {
        column
    }
}

/// How many lines of four pass through each cell (row 0 at the bottom): 3 in a corner,
/// 13 in the centre.
const LINES_THROUGH: [[i32; COLUMNS]; ROWS] = [
    [3, 4, 5, 7, 5, 4, 3],
    [4, 6, 8, 10, 8, 6, 4],
    [5, 8, 11, 13, 11, 8, 5],
    [5, 8, 11, 13, 11, 8, 5],
    [4, 6, 8, 10, 8, 6, 4],
    [3, 4, 5, 7, 5, 4, 3],
];

/// The hand-made evaluators: `tactics`, the baseline, values every position 0 (the
/// search sees only the wins and losses within its horizon); `centre` counts for each
/// stone the lines of four through its cell (ten centi-points a line), the side to
/// move's minus the other's.
#[derive(Clone, Copy, Debug)]
pub enum Builtin {
    Tactics,
    Centre,
}

impl Evaluator<ConnectFour> for Builtin {
    fn evaluate(&self, pos: &ConnectFour) -> i32 {
        if let Builtin::Tactics = self {
            return 0;
        }
        let mut value = 0;
        for (row, lines) in LINES_THROUGH.iter().enumerate() {
            for (column, &through) in lines.iter().enumerate() {
                let bit = ConnectFour::bit(column, row);
                if pos.mine & bit != 0 {
                    value += 10 * through;
                } else if pos.all & bit != 0 {
                    value -= 10 * through;
                }
            }
        }
        value
    }

    fn name(&self) -> String {
        match self {
            Builtin::Tactics => "tactics",
            Builtin::Centre => "centre",
        }
        .to_string()
    }
}

impl EvalGame for ConnectFour {
    type Builtin = Builtin;
    const BUILTINS: &'static [&'static str] = &["tactics", "centre"];
    const MODEL_KINDS: &'static [ModelKind<Self>] = &[td::kind()];

    fn builtin(name: &str) -> Option<Builtin> {
        match name {
            "tactics" => Some(Builtin::Tactics),
            "centre" => Some(Builtin::Centre),
            _ => None,
        }
    }
}

/// The TD network's inputs: a cell's own stone (0..42) or the other side's (42..84),
/// seen by the side to move.
impl Inputs for ConnectFour {
    const INPUT_SETS: &'static [InputSet] =
        &[InputSet::new("cells", "connect-four-v1", 2 * CELLS, CELLS)];

    fn for_each_input_as(&self, _set: usize, side: Side, mut f: impl FnMut(usize)) {
        let (own, other) = if side == self.side_to_move() {
            (self.mine, self.theirs())
        } else {
            (self.theirs(), self.mine)
        };
        for (offset, stones) in [(0, own), (CELLS, other)] {
            for column in 0..COLUMNS {
                for row in 0..ROWS {
                    if stones & Self::bit(column, row) != 0 {
                        f(offset + column * ROWS + row);
                    }
                }
            }
        }
    }

    fn phase(&self, phases: usize) -> usize {
        phase_bucket(CELLS as u32 - self.stones(), CELLS as u32, phases)
    }
}

/// No positions with exact values: the training loop measures no held-out sample.
impl HeldOutGame for ConnectFour {}

impl TrainGame for ConnectFour {
    fn learners() -> Vec<&'static dyn LearnerKind<Self>> {
        vec![&evalearn::learn::td::Td]
    }
}

/// The training run: 40,000 self-play games at depth 4, a 32-unit network, the step
/// size falling from 0.2 to 0.02.
fn config(model: &Path) -> String {
    format!(
        r#"
learner = "td"
game = "connect-four"
seed = 7
model = "{}"

[budget]
iterations = 80

[selfplay]
depth = 4
games_per_iteration = 500
random_plies = 4
temperature = 0.5
temperature_plies = 12

[evaluation]
every = 0
games = 100
depth = 4
random_plies = 3
held_out = 0

[td]
hidden = 32
alpha = 0.2

[training]
lr_schedule = "linear"
lr_final = 0.1
"#,
        model.display()
    )
}

/// Trains a model in `dir`, then plays it against each hand-made evaluator: `pairs`
/// pairs of games at depth 4 from random three-ply openings. Returns the tallies, in the
/// order of [`EvalGame::BUILTINS`].
pub fn train_and_match(dir: &Path, pairs: u64) -> Result<Vec<(&'static str, MatchTally)>, String> {
    let model = dir.join("connect-four.bin");
    let text = config(&model);
    let config = TrainConfig::parse(&text).map_err(|e| e.to_string())?;
    let stop = Arc::new(AtomicBool::new(false));
    let summary = train::<ConnectFour>(
        (),
        &config,
        &text,
        TrainOptions {
            start: Start::New,
            supply: None,
            stop: &stop,
            log: &mut |line| println!("{line}"),
            progress: &mut |_, _, _| {},
            on_iteration: &mut |_, _| {},
            tablebase: None,
            learner: None,
        },
    )?;
    println!(
        "trained {} games in {:.1} s",
        summary.games, summary.seconds
    );
    let (learned, _) = load_model_file::<ConnectFour>(&model).map_err(|e| e.to_string())?;
    let openings = random_openings(ConnectFour::start(), pairs as usize, 3, 2026)?;
    let match_config = MatchConfig {
        pairs,
        limits_a: Limits::depth(4),
        limits_b: Limits::depth(4),
        ply_cap: 42,
        threads: 0,
        tt_mib: 2,
        seed: 2026,
        sprt: None,
        clock: None,
    };
    let mut tallies = Vec::new();
    for &name in ConnectFour::BUILTINS {
        let builtin = AnyEvaluator::Builtin(ConnectFour::builtin(name).expect("listed"));
        let outcome = run_match(
            &Engine::new(learned.clone(), None),
            &Engine::new(builtin, None),
            &openings,
            &match_config,
            |_, _| {},
        )?;
        tallies.push((name, outcome.tally));
    }
    Ok(tallies)
}

/// A fresh folder for the run's files.
fn work_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("evalearn-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

fn main() {
    let dir = work_dir("connect-four");
    let result = train_and_match(&dir, 100);
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(tallies) => {
            for (name, tally) in tallies {
                let (t, e) = (tally.trinomial, tally.estimate());
                println!(
                    "TD model vs {name}, depth 4, {} games: {}-{}-{} (W-D-L), score {:.1}%, \
                     Elo {}",
                    t.games(),
                    t.wins,
                    t.draws,
                    t.losses,
                    100.0 * e.score,
                    e.elo_text(0)
                );
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_and_texts() {
        let start = ConnectFour::start();
        let mut moves = <ConnectFour as Game>::Moves::default();
        start.legal_moves(&mut moves);
        assert_eq!(moves.len(), 7);
        // x drops four in column 1, o in column 2: x wins after its fourth stone.
        let mut pos = start;
        for column in [0, 1, 0, 1, 0, 1, 0] {
            pos = pos.play(column);
        }
        pos.legal_moves(&mut moves);
        assert!(moves.is_empty());
        assert_eq!(pos.outcome_without_moves(), Outcome::Win(Side::First));
        let text = pos.format_position();
        assert_eq!(text, "......./......./x....../xo...../xo...../xo.....");
        assert_eq!(ConnectFour::parse_position(&text).unwrap(), pos);
        assert!(
            ConnectFour::parse_position("......./......./......./......./x....../.......").is_err()
        );
        assert_eq!(ConnectFour::unpack(&pos.pack()).unwrap(), pos);
    }

    /// The example's whole run: the trained model must beat the baseline it was
    /// evaluated against, the low end of the Elo interval above 0 (the result is fixed
    /// by the seeds).
    #[test]
    fn trains_and_beats_the_baseline() {
        let dir = work_dir("connect-four-test");
        let tallies = train_and_match(&dir, 100);
        let _ = std::fs::remove_dir_all(&dir);
        let (name, tally) = tallies.unwrap()[0];
        let estimate = tally.estimate();
        assert!(
            estimate.elo_low > 0.0,
            "the TD model scored {} against {name}, Elo {}",
            estimate.score,
            estimate.elo_text(1)
        );
    }
}
