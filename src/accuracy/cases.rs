//! What `evalearn accuracy` needs of a game ([`AccuracyGame`]): positions with exact
//! values, drawn as the command's options say (from an endgame database, or solved). The
//! command line reads the flags into [`AccuracyOptions`] and turns an [`AccuracyError`]
//! into its message and exit status.

use std::fmt;
use std::path::{Path, PathBuf};

use super::Case;
use crate::eval::EvalGame;
use crate::game::Game;
use crate::io::dataset::Dataset;

/// The options of `evalearn accuracy` a game draws its positions by, each the flag of
/// the same name (which the errors name as typed).
#[derive(Clone, Debug, Default)]
pub struct AccuracyOptions {
    /// `--egdb`: the endgame database folder the positions and their values come from.
    pub egdb: Option<PathBuf>,
    /// `--positions`: how many are measured.
    pub positions: u64,
    /// `--seed`: of the positions drawn.
    pub seed: u64,
    /// `--mix`: the piece counts drawn and their weights, as typed.
    pub mix: Option<String>,
    /// `--from`: a dataset the positions come from instead.
    pub from: Option<PathBuf>,
    /// `--max-pit-stones`: only positions with at most this many stones in the pits.
    pub max_pit_stones: Option<u32>,
    /// `--tt-mb`: each thread's transposition table, MiB.
    pub tt_mb: u64,
    /// `--db-dir`: the folder the solver's databases and solved values are kept in.
    pub db_dir: Option<PathBuf>,
    /// `--db-stones`: the size of the solver's endgame database.
    pub db_stones: Option<u32>,
}

/// Why a game gave no positions, in words for the user; the command line exits with
/// status 2, 1 or 130 (Ctrl-C) as the variant says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccuracyError {
    /// An option that does not apply to the game, or input that is not what it should be.
    Input(String),
    /// The work could not be done (I/O and the like).
    Failure(String),
    /// Ctrl-C stopped the work; the message says so and what was kept.
    Stopped(String),
}

impl fmt::Display for AccuracyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccuracyError::Input(m) | AccuracyError::Failure(m) | AccuracyError::Stopped(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for AccuracyError {}

/// What `accuracy` needs of a game: positions with exact values, drawn as the command's
/// options say (from an endgame database, or solved). A game without exact values keeps
/// the defaults.
pub trait AccuracyGame: EvalGame {
    /// Refuses options that do not apply to this game, before anything is loaded.
    fn check_accuracy_options(
        variant: Self::Variant,
        options: &AccuracyOptions,
    ) -> Result<(), AccuracyError> {
        let _ = (variant, options);
        Ok(())
    }

    /// The positions measured, with their exact values, and what the values count (in
    /// words: `stones`, `result steps`). Lines about where they come from go to stdout.
    fn accuracy_cases(
        variant: Self::Variant,
        options: &AccuracyOptions,
    ) -> Result<(Vec<Case<Self>>, &'static str), AccuracyError> {
        let _ = (variant, options);
        Err(AccuracyError::Input(format!(
            "--game {}: no positions with exact values (no endgame database, no solver)",
            Self::NAME
        )))
    }
}

/// Positions of a dataset of game `G` (its variant's exact name), for `--from`.
pub fn dataset_positions<G: Game>(path: &Path, variant: &str) -> Result<Vec<G>, AccuracyError> {
    let dataset = Dataset::<G>::read(path, Some(variant))
        .map_err(|e| AccuracyError::Input(format!("--from: {e}")))?;
    if let Some(warning) = &dataset.warning {
        eprintln!("warning: {warning}");
    }
    Ok(dataset
        .games
        .into_iter()
        .flat_map(|g| g.positions)
        .collect())
}
