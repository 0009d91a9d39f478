//! GLEM's run-time half (Beling's master's thesis, ch. 5.3): the model-file payload ([`GlemModel`]: regions,
//! configurations, phases, weights), its checks, and the compiled evaluator ([`Glem`]).
//! Mining configurations and fitting weights are training and live with the learners.
//!
//! # Model
//!
//! - **Atomic features** ([`Atoms`], one small encoder per game): a fixed list of slots
//!   (draughts: the 32 squares seen from the side to move; Kalah: the pits and stores),
//!   each holding one of at most five values.
//! - **Regions** ([`Region`]): sets of at most 8 slots. Atoms combine only within a
//!   region, which keeps mining tractable and lets each region be compiled to one lookup
//!   table.
//! - **Configurations** ([`Configuration`]): a set of (slot, value) atoms of one region,
//!   active when every atom holds.
//! - **Phases** ([`Phases`]): weights per game phase, chosen by a measure of how far the
//!   game is (draughts: pieces on the board; Kalah: stones left in the pits).
//! - **Value**: `eval(S) = g(x)`, `x = Σ wᵢ·[cᵢ active in S]` with the weights of the
//!   position's phase and `g` the logistic function; `g(x)` predicts the result (1 win,
//!   ½ draw, 0 loss) for the side to move.
//! - **Search value**: search needs the logit, not the probability (`g` is monotone, so
//!   move choice is the same, and logits add up like material): [`Glem`] returns
//!   `round(x · scale)` centi-units clamped to ±[`EVAL_LIMIT`], `scale` =
//!   [`GlemModel::scale`] (default [`DEFAULT_SCALE`] = 150 centi-units per logit unit,
//!   which puts a draughts man at about 100: fitted models value a man at 0.6–0.75 logit
//!   units).
//!
//! # Compiled evaluator
//!
//! For each phase and region, [`GlemModel::compile`] builds a table indexed by the
//! region's contents holding the sum of the weights of all the region's configurations
//! active for those contents, so an evaluation is one table read per region plus the
//! index computation, whatever the number of configurations. Indices are mixed radix:
//! one digit per slot, in the slot's radix ([`Atoms::radix`]: values a slot never holds
//! in a legal position are left out, e.g. a draughts man on its own crowning row).
//! Entries are 16-bit integers in quarter centi-units. The index is computed from the
//! atoms that are not 0 ([`Atoms::for_each_atom`]), one row of per-region index
//! contributions added per atom.
//!
//! # Measurements (Brazilian draughts)
//!
//! - Tables: 3,648,125 entries a phase with the draughts default regions, 7.3 MB; 29.2 MB
//!   for the 4 default phases. Compiling takes under 0.1 s a phase.
//! - Evaluation: about 40 ns a call (release, cache-warm); inside alpha-beta 7.2M
//!   nodes/s against 8.9M with the material evaluator.
//! - Model file: 1.9 MB (75,517 configurations, 4 phases); decoding, validating and
//!   compiling it takes 0.3 s.

use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::spec::{LoadError, ModelKind};
use super::{EVAL_LIMIT, Evaluator};
use crate::game::Game;
use crate::io::model::{self, ModelHeader};

/// The evaluator kind written in model files.
pub const KIND: &str = "glem";

/// Most slots in one region (5⁸ = 390,625 table entries).
pub const MAX_REGION_SQUARES: usize = 8;
/// Most atomic-feature slots a game may have.
pub const MAX_SLOTS: usize = 32;
/// Most regions in a model.
pub const MAX_REGIONS: usize = 64;
/// Most phases in a model.
pub const MAX_PHASES: usize = 25;
/// Most configurations in a model.
pub const MAX_CONFIGURATIONS: usize = 4_000_000;
/// Most compiled table entries (all phases and regions together, 2 bytes each).
pub const MAX_TABLE_ENTRIES: usize = 1 << 26;
/// Largest phase measure a game may use ([`Atoms::PHASE_MAX`]).
pub const MAX_PHASE_MEASURE: u32 = 255;

/// Centi-units per logit unit of a new model's evaluator. In draughts self-play of the
/// material evaluator one extra man moves the result as much as 0.64 logit units, and
/// fitted models value a man at 0.6–0.75, so a man comes out at about 100 centi-units.
pub const DEFAULT_SCALE: f32 = 150.0;

/// Table entries per centi-unit.
pub const TABLE_UNIT: f64 = 4.0;

/// A game's atomic features for GLEM: `SLOTS` slots numbered 1..=`SLOTS`, each holding a
/// *digit* 0..=4 (0 the commonest value, such as an empty square). Configurations name a
/// digit by the game's *value* for it ([`Atoms::atom_value`]: draughts writes −2..2 for
/// opponent's king … own king).
pub trait Atoms: Game {
    /// Identifies the atomic features in model files.
    const ATOM_SET_ID: &'static str;
    /// Number of slots (at most [`MAX_SLOTS`]).
    const SLOTS: u8;
    /// Largest value of [`Atoms::phase_measure`] (at most [`MAX_PHASE_MEASURE`]).
    const PHASE_MAX: u32;
    /// The digit of every slot (index `slot − 1`; entries past `SLOTS` are 0).
    fn atom_digits(&self) -> [u8; MAX_SLOTS];
    /// Calls `f(slot − 1, digit)` for every slot whose digit is not 0: the compiled
    /// evaluator's hot path, so it should cost a few instructions per atom.
    fn for_each_atom(&self, f: impl FnMut(usize, u8));
    /// The value configurations write for `digit`.
    fn atom_value(digit: u8) -> i8;
    /// The digit of a value written in a configuration; `None` if the game has no such value.
    fn atom_digit(value: i8) -> Option<u8>;
    /// How many digits slot `slot` (1-based) can hold in a legal position (at most 5).
    fn radix(slot: u8) -> u32;
    /// The digit's index (0..radix) in compiled tables at `slot`; `None` if the digit never
    /// occurs there in a legal position (a configuration needing it is never active).
    fn compact_digit(slot: u8, digit: u8) -> Option<u8>;
    /// How far the game is, for choosing the phase (draughts: pieces on the board).
    fn phase_measure(&self) -> u32;
    /// Material balance for the side to move in the game's natural unit (draughts: men,
    /// a king counting 3; Kalah: stones of store difference), for [`GlemModel`]'s scale.
    fn material(&self) -> f64;
    /// The regions a new model mines in.
    fn default_regions() -> Vec<Region>;
    /// The phases of a new model.
    fn default_phases() -> Phases;
}

/// The value of every slot of `pos` (index `slot − 1`) as configurations write it.
pub fn atom_values<G: Atoms>(pos: &G) -> [i8; MAX_SLOTS] {
    pos.atom_digits().map(G::atom_value)
}

// ---------------------------------------------------------------------------------------
// Atoms, regions, configurations, phases
// ---------------------------------------------------------------------------------------

/// One atomic feature with its required value: slot `square` (1-based; a square in
/// draughts, a pit in Kalah) holds `value` (the game's value, [`Atoms::atom_value`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Atom {
    pub square: u8,
    pub value: i8,
}

impl Atom {
    pub const fn new(square: u8, value: i8) -> Atom {
        Atom { square, value }
    }
}

/// A set of slots (draughts: PDN square numbers on the board turned for the side to move,
/// whose men start on 21–32 and crown on 1–4; Kalah: see its encoder). Atoms combine into
/// configurations only within a region. (The field is called `squares` in model files.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    pub name: String,
    pub squares: Vec<u8>,
}

impl Region {
    pub fn new(name: &str, squares: &[u8]) -> Region {
        Region {
            name: name.to_string(),
            squares: squares.to_vec(),
        }
    }

    /// Entries of the region's compiled table per phase (the product of the slots'
    /// radices, [`Atoms::radix`]).
    pub fn table_len<G: Atoms>(&self) -> usize {
        self.squares.iter().map(|&s| G::radix(s) as usize).product()
    }

    /// Checks 1..=8 distinct slots in 1..=`G::SLOTS` and a non-empty name.
    pub fn validate<G: Atoms>(&self) -> Result<(), String> {
        if self.name.is_empty() || self.name.len() > 64 {
            return Err(format!("region name '{}' is empty or too long", self.name));
        }
        if self.squares.is_empty() || self.squares.len() > MAX_REGION_SQUARES {
            return Err(format!(
                "region '{}' has {} squares (1..={MAX_REGION_SQUARES} allowed)",
                self.name,
                self.squares.len()
            ));
        }
        let mut seen = 0u32;
        for &s in &self.squares {
            if !(1..=G::SLOTS).contains(&s) {
                return Err(format!(
                    "region '{}': slot {s} is not 1..{}",
                    self.name,
                    G::SLOTS
                ));
            }
            if seen & (1 << (s - 1)) != 0 {
                return Err(format!("region '{}': square {s} twice", self.name));
            }
            seen |= 1 << (s - 1);
        }
        Ok(())
    }
}

/// A configuration: atoms of one region (index into the model's regions), sorted by
/// slot, each slot at most once. Active in a position when every atom holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Configuration {
    pub region: u16,
    pub atoms: Vec<Atom>,
}

impl Configuration {
    /// True if every atom holds in `values` (from [`atom_values`]).
    pub fn is_active(&self, values: &[i8; MAX_SLOTS]) -> bool {
        self.atoms.iter().all(|a| {
            (1..=MAX_SLOTS as u8).contains(&a.square) && values[a.square as usize - 1] == a.value
        })
    }

    /// The configuration in words, e.g. `rows 1-2: 29=1 30=0`.
    pub fn describe(&self, regions: &[Region]) -> String {
        let name = regions
            .get(self.region as usize)
            .map_or("?", |r| r.name.as_str());
        let atoms: Vec<String> = self
            .atoms
            .iter()
            .map(|a| format!("{}={}", a.square, a.value))
            .collect();
        format!("{name}: {}", atoms.join(" "))
    }
}

/// Game phases by [`Atoms::phase_measure`] (draughts: the pieces on the board): phase `i`
/// covers the measures from `starts[i]` up to `starts[i + 1] − 1` (the last up to the
/// game's [`Atoms::PHASE_MAX`]). `starts[0]` is 0 and the starts increase strictly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phases {
    pub starts: Vec<u8>,
}

impl Phases {
    /// A single phase: the same weights for the whole game.
    pub fn single() -> Phases {
        Phases { starts: vec![0] }
    }

    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// The phase of a position whose phase measure is `measure`.
    pub fn phase_of(&self, measure: u32) -> usize {
        self.starts
            .iter()
            .rposition(|&s| measure >= s as u32)
            .unwrap_or(0)
    }

    /// The phase of a position.
    pub fn phase_of_position<G: Atoms>(&self, pos: &G) -> usize {
        self.phase_of(pos.phase_measure())
    }

    pub fn validate<G: Atoms>(&self) -> Result<(), String> {
        if self.starts.is_empty() || self.starts.len() > MAX_PHASES {
            return Err(format!(
                "{} phases (1..={MAX_PHASES} allowed)",
                self.starts.len()
            ));
        }
        if self.starts[0] != 0 {
            return Err("the first phase must start at 0".to_string());
        }
        if self.starts.windows(2).any(|w| w[0] >= w[1])
            || self.starts.iter().any(|&s| s as u32 > G::PHASE_MAX)
        {
            return Err(format!(
                "phase starts {:?} must increase strictly and be at most {}",
                self.starts,
                G::PHASE_MAX
            ));
        }
        Ok(())
    }

    /// Phase of each measure 0..=[`MAX_PHASE_MEASURE`].
    fn table(&self) -> [u8; MAX_PHASE_MEASURE as usize + 1] {
        let mut t = [0u8; MAX_PHASE_MEASURE as usize + 1];
        for (measure, p) in t.iter_mut().enumerate() {
            *p = self.phase_of(measure as u32) as u8;
        }
        t
    }
}

// ---------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------

/// The model-file payload of a GLEM evaluator: regions, configurations, phases, and one
/// weight per phase and configuration.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct GlemModel {
    /// Atomic-feature set identifier ([`Atoms::ATOM_SET_ID`]).
    pub features: String,
    pub regions: Vec<Region>,
    pub configurations: Vec<Configuration>,
    pub phases: Phases,
    /// Centi-units per logit unit in the compiled evaluator ([`DEFAULT_SCALE`]).
    pub scale: f32,
    /// `weights[phase][configuration]`, in logit units.
    pub weights: Vec<Vec<f32>>,
}

impl GlemModel {
    /// A model of game `G` with all weights zero (evaluates every position as 0).
    pub fn new<G: Atoms>(
        regions: Vec<Region>,
        configurations: Vec<Configuration>,
        phases: Phases,
    ) -> Self {
        let weights = vec![vec![0.0; configurations.len()]; phases.count()];
        GlemModel {
            features: G::ATOM_SET_ID.to_string(),
            regions,
            configurations,
            phases,
            scale: DEFAULT_SCALE,
            weights,
        }
    }

    /// A model of `G` over its default regions and phases, with no configuration yet.
    pub fn empty<G: Atoms>() -> Self {
        GlemModel::new::<G>(G::default_regions(), Vec::new(), G::default_phases())
    }

    /// Checks everything a loaded payload must satisfy before use with game `G`: the
    /// atom set, regions, phases, configurations (region index, 1..=8 atoms in the
    /// region, sorted, each slot once, values the game has, no duplicates), the weight
    /// matrix's shape, finite weights and scale, and the compiled tables' size.
    pub fn validate<G: Atoms>(&self) -> Result<(), String> {
        const { assert!(G::SLOTS as usize <= MAX_SLOTS && G::PHASE_MAX <= MAX_PHASE_MEASURE) };
        if self.features != G::ATOM_SET_ID {
            return Err(format!(
                "model for atomic features '{}', this build computes '{}' for {}",
                self.features,
                G::ATOM_SET_ID,
                G::NAME
            ));
        }
        if self.regions.is_empty() || self.regions.len() > MAX_REGIONS {
            return Err(format!(
                "{} regions (1..={MAX_REGIONS} allowed)",
                self.regions.len()
            ));
        }
        for region in &self.regions {
            region.validate::<G>()?;
        }
        self.phases.validate::<G>()?;
        let entries = self.table_entries::<G>();
        if entries > MAX_TABLE_ENTRIES {
            return Err(format!(
                "compiled tables would have {entries} entries (at most {MAX_TABLE_ENTRIES})"
            ));
        }
        if self.configurations.len() > MAX_CONFIGURATIONS {
            return Err(format!(
                "{} configurations (at most {MAX_CONFIGURATIONS})",
                self.configurations.len()
            ));
        }
        let mut seen = HashSet::with_capacity(self.configurations.len());
        for (i, c) in self.configurations.iter().enumerate() {
            let Some(region) = self.regions.get(c.region as usize) else {
                return Err(format!("configuration {i}: no region {}", c.region));
            };
            if c.atoms.is_empty() || c.atoms.len() > MAX_REGION_SQUARES {
                return Err(format!("configuration {i}: {} atoms", c.atoms.len()));
            }
            for a in &c.atoms {
                if !region.squares.contains(&a.square) {
                    return Err(format!(
                        "configuration {i}: slot {} is not in region '{}'",
                        a.square, region.name
                    ));
                }
                if G::atom_digit(a.value).is_none() {
                    return Err(format!(
                        "configuration {i}: value {} is not one {} has",
                        a.value,
                        G::NAME
                    ));
                }
            }
            if c.atoms.windows(2).any(|w| w[0].square >= w[1].square) {
                return Err(format!(
                    "configuration {i}: atoms not sorted by slot or a slot twice"
                ));
            }
            if !seen.insert(c) {
                return Err(format!("configuration {i} appears twice"));
            }
        }
        if self.weights.len() != self.phases.count() {
            return Err(format!(
                "{} weight rows for {} phases",
                self.weights.len(),
                self.phases.count()
            ));
        }
        for (p, row) in self.weights.iter().enumerate() {
            if row.len() != self.configurations.len() {
                return Err(format!(
                    "phase {p}: {} weights for {} configurations",
                    row.len(),
                    self.configurations.len()
                ));
            }
            if let Some(i) = row.iter().position(|w| !w.is_finite()) {
                return Err(format!("phase {p}: weight {i} ({}) is not finite", row[i]));
            }
        }
        if !self.scale.is_finite() || self.scale <= 0.0 || self.scale > 1e6 {
            return Err(format!("scale {} is not a positive number", self.scale));
        }
        Ok(())
    }

    /// The pre-logistic sum `x` for `pos`, straight from the definition (every
    /// configuration checked): slow, for tests and analysis.
    pub fn logit<G: Atoms>(&self, pos: &G) -> f64 {
        let values = atom_values(pos);
        let row = &self.weights[self.phases.phase_of_position(pos)];
        self.configurations
            .iter()
            .zip(row)
            .filter(|(c, _)| c.is_active(&values))
            .map(|(_, &w)| w as f64)
            .sum()
    }

    /// The model's prediction `g(x)` of the result for the side to move.
    pub fn predict<G: Atoms>(&self, pos: &G) -> f64 {
        logistic(self.logit(pos))
    }

    /// The compiled evaluator.
    ///
    /// # Panics
    ///
    /// If the model is not valid ([`GlemModel::validate`]); use [`Glem::new`] for a
    /// model from outside (a file).
    pub fn compile<G: Atoms>(&self) -> Glem<G> {
        if let Err(e) = self.validate::<G>() {
            panic!("compile: invalid model: {e}");
        }
        Glem::build(self)
    }

    /// Compiled table entries (all phases and regions).
    pub fn table_entries<G: Atoms>(&self) -> usize {
        self.regions
            .iter()
            .map(Region::table_len::<G>)
            .sum::<usize>()
            * self.phases.count()
    }
}

/// The logistic function `1 / (1 + e^−x)`.
#[inline]
pub fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

// ---------------------------------------------------------------------------------------
// The compiled evaluator
// ---------------------------------------------------------------------------------------

/// Regions per group of index lanes (one cache line of `u32`).
const LANES: usize = 16;

/// Index arithmetic of up to [`LANES`] regions: `rows[d − 1][s]` holds, for each region
/// of the group, what digit `d` (1..=4) on slot index `s` adds to the region's table
/// index (its compact digit times the slot's multiplier; 0 if the slot is not in the
/// region or never holds that digit).
#[derive(Clone, Debug)]
struct LaneGroup {
    rows: Box<[[[u32; LANES]; MAX_SLOTS]; 4]>,
    /// Offset of each region's table within a phase block (unused lanes: 0).
    offsets: [u32; LANES],
    /// Regions in use.
    len: usize,
}

/// The compiled GLEM evaluator: per phase and region a table indexed by the region's
/// contents holding the sum of the weights of the region's configurations active for
/// those contents. Cloning is cheap (the tables are shared).
pub struct Glem<G> {
    inner: Arc<Compiled>,
    game: PhantomData<fn() -> G>,
}

impl<G> Clone for Glem<G> {
    fn clone(&self) -> Self {
        Glem {
            inner: Arc::clone(&self.inner),
            game: PhantomData,
        }
    }
}

/// A configuration of one region as (region position, compact digit) pairs.
type Pattern = Vec<(usize, u8)>;

struct Compiled {
    groups: Vec<LaneGroup>,
    regions: usize,
    phase_of: [u8; MAX_PHASE_MEASURE as usize + 1],
    phase_len: usize,
    /// Quarter centi-units, `[phase][region block]`.
    tables: Vec<i16>,
    /// Centi-units per logit ([`GlemModel::scale`]).
    scale: f32,
}

impl<G> fmt::Debug for Glem<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Glem")
            .field("regions", &self.inner.regions)
            .field("table_entries", &self.inner.tables.len())
            .finish()
    }
}

impl<G: Atoms> Glem<G> {
    /// The compiled evaluator of a model that may come from outside: checked first
    /// ([`GlemModel::validate`]), never panics.
    pub fn new(model: &GlemModel) -> Result<Glem<G>, String> {
        model.validate::<G>()?;
        Ok(Glem::build(model))
    }

    fn build(model: &GlemModel) -> Glem<G> {
        let mut groups: Vec<LaneGroup> = Vec::new();
        let mut offset = 0usize;
        for (r, region) in model.regions.iter().enumerate() {
            if r % LANES == 0 {
                groups.push(LaneGroup {
                    rows: Box::new([[[0; LANES]; MAX_SLOTS]; 4]),
                    offsets: [0; LANES],
                    len: 0,
                });
            }
            let group = groups.last_mut().expect("pushed");
            let lane = r % LANES;
            let mut m = 1u32;
            for &s in &region.squares {
                for digit in 1..=4u8 {
                    let compact = G::compact_digit(s, digit).map_or(0, u32::from);
                    group.rows[digit as usize - 1][s as usize - 1][lane] = compact * m;
                }
                m *= G::radix(s);
            }
            group.offsets[lane] = offset as u32;
            group.len += 1;
            offset += m as usize;
        }
        let phase_len = offset;
        let phases = model.phases.count();
        // Configurations of each region, with digits in compact form; a configuration
        // with an impossible atom is never active and is left out.
        let mut by_region: Vec<Vec<(Pattern, usize)>> = vec![Vec::new(); model.regions.len()];
        for (i, c) in model.configurations.iter().enumerate() {
            let region = &model.regions[c.region as usize];
            let mut pattern = Vec::with_capacity(c.atoms.len());
            let mut possible = true;
            for a in &c.atoms {
                let compact = G::atom_digit(a.value).and_then(|d| G::compact_digit(a.square, d));
                let j = region
                    .squares
                    .iter()
                    .position(|&s| s == a.square)
                    .expect("validated: atom in region");
                match compact {
                    Some(d) => pattern.push((j, d)),
                    None => possible = false,
                }
            }
            if possible {
                by_region[c.region as usize].push((pattern, i));
            }
        }
        let blocks: Vec<Vec<i16>> = (0..phases * model.regions.len())
            .into_par_iter()
            .map(|task| {
                let (p, r) = (task / model.regions.len(), task % model.regions.len());
                let region = &model.regions[r];
                let sums = region_table::<G>(region, &by_region[r], &model.weights[p]);
                let factor = model.scale as f64 * TABLE_UNIT;
                sums.iter()
                    .map(|&x| (x * factor).round().clamp(i16::MIN as f64, i16::MAX as f64) as i16)
                    .collect()
            })
            .collect();
        let mut tables = Vec::with_capacity(phase_len * phases);
        for block in blocks {
            tables.extend(block);
        }
        Glem {
            inner: Arc::new(Compiled {
                groups,
                regions: model.regions.len(),
                phase_of: model.phases.table(),
                phase_len,
                tables,
                scale: model.scale,
            }),
            game: PhantomData,
        }
    }

    /// Memory of the tables, in bytes.
    pub fn table_bytes(&self) -> usize {
        self.inner.tables.len() * std::mem::size_of::<i16>()
    }

    /// Each region's table index (within a phase block) for the atoms of `pos`.
    #[inline(always)]
    fn indices(group: &LaneGroup, pos: &G) -> [u32; LANES] {
        let mut index = group.offsets;
        pos.for_each_atom(|slot, digit| {
            let row = &group.rows[digit as usize - 1][slot];
            for (i, r) in index.iter_mut().zip(row) {
                *i += r;
            }
        });
        index
    }

    /// The phase block of the tables for `pos`.
    #[inline(always)]
    fn block(&self, pos: &G) -> &[i16] {
        let c = &*self.inner;
        let measure = pos.phase_measure().min(MAX_PHASE_MEASURE);
        let phase = c.phase_of[measure as usize] as usize;
        &c.tables[phase * c.phase_len..(phase + 1) * c.phase_len]
    }

    /// The sum of the table entries for `pos`, in quarter centi-units (unclamped).
    #[inline(always)]
    fn raw(&self, pos: &G) -> i32 {
        let block = self.block(pos);
        let mut sum = 0i32;
        for group in &self.inner.groups {
            let index = Self::indices(group, pos);
            for &i in &index[..group.len] {
                sum += block[i as usize] as i32;
            }
        }
        sum
    }

    /// Each region's table entry for `pos` (quarter centi-units), for tests.
    pub fn entries(&self, pos: &G) -> Vec<i16> {
        let block = self.block(pos);
        let mut out = Vec::new();
        for group in &self.inner.groups {
            let index = Self::indices(group, pos);
            out.extend(index[..group.len].iter().map(|&i| block[i as usize]));
        }
        out
    }
}

/// The table of one region and phase: for every contents (mixed-radix index), the sum of
/// the weights of the region's configurations active for them. A zeta transform: the
/// weights are placed on patterns over {digits, *} (radix + 1 values a slot), then for
/// each slot every digit adds the entry with `*` there; entries without `*` remain.
fn region_table<G: Atoms>(
    region: &Region,
    configs: &[(Pattern, usize)],
    weights: &[f32],
) -> Vec<f64> {
    let radices: Vec<usize> = region
        .squares
        .iter()
        .map(|&s| G::radix(s) as usize)
        .collect();
    let k = radices.len();
    // Pattern index: Σ digit_j · Π_{i<j} (radix_i + 1), digit radix_j meaning `*`.
    let mut stride = vec![1usize; k + 1];
    for j in 0..k {
        stride[j + 1] = stride[j] * (radices[j] + 1);
    }
    let mut a = vec![0.0f64; stride[k]];
    for (pattern, i) in configs {
        let mut index = 0;
        let mut used = 0u32;
        for &(j, d) in pattern {
            index += d as usize * stride[j];
            used |= 1 << j;
        }
        for (j, &r) in radices.iter().enumerate() {
            if used & (1 << j) == 0 {
                index += r * stride[j];
            }
        }
        a[index] += weights[*i] as f64;
    }
    // Outermost slot first: each pass adds the `*` entry to every digit and drops
    // the `*`, so the array shrinks and ends in mixed-radix order.
    for j in (0..k).rev() {
        let (s, r) = (stride[j], radices[j]);
        let block = s * (r + 1);
        let mut next = Vec::with_capacity(a.len() / (r + 1) * r);
        for blk in a.chunks_exact(block) {
            let star = &blk[r * s..];
            for d in 0..r {
                next.extend(blk[d * s..(d + 1) * s].iter().zip(star).map(|(x, y)| x + y));
            }
        }
        a = next;
    }
    debug_assert_eq!(a.len(), radices.iter().product::<usize>());
    a
}

impl<G: Atoms> Evaluator<G> for Glem<G> {
    /// `round(x · scale)` clamped to ±[`EVAL_LIMIT`], `x` the logit of the position's
    /// phase (tables hold quarter centi-units).
    #[inline]
    fn evaluate(&self, pos: &G) -> i32 {
        let raw = self.raw(pos);
        ((raw + 2).div_euclid(4)).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    fn name(&self) -> String {
        KIND.to_string()
    }

    fn logit_scale(&self) -> Option<f64> {
        Some(f64::from(self.inner.scale))
    }
}

/// The model kind of GLEM evaluators, for a game with atoms.
pub const fn kind<G: Atoms>() -> ModelKind<G> {
    ModelKind {
        kind: KIND,
        load: load::<G>,
        describe: describe::<G>,
    }
}

fn read<G: Atoms>(path: &Path, game: &str) -> Result<(ModelHeader, GlemModel), LoadError> {
    let (header, model) = model::load_model::<GlemModel>(path, Some(game), Some(KIND))?;
    model.validate::<G>().map_err(|reason| LoadError::Invalid {
        path: path.to_path_buf(),
        reason,
    })?;
    Ok((header, model))
}

fn load<G: Atoms>(
    path: &Path,
    game: &str,
) -> Result<(Arc<dyn Evaluator<G>>, ModelHeader), LoadError> {
    let (header, model) = read::<G>(path, game)?;
    let evaluator = Glem::<G>::new(&model).map_err(|reason| LoadError::Invalid {
        path: path.to_path_buf(),
        reason,
    })?;
    Ok((Arc::new(evaluator), header))
}

fn describe<G: Atoms>(path: &Path, game: &str) -> Result<String, LoadError> {
    let (_, glem) = read::<G>(path, game)?;
    Ok(format!(
        "{} configurations in {} regions, {} phases (starting at {:?}), scale {}; \
         compiled tables {} entries\n",
        glem.configurations.len(),
        glem.regions.len(),
        glem.phases.count(),
        glem.phases.starts,
        glem.scale,
        glem.table_entries::<G>()
    ))
}
