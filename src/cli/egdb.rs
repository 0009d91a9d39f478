//! `--egdb DIR` / `--no-egdb`, the endgame database option of the playing commands; what
//! a game with endgame databases provides for it is its [`EgdbGame`].

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::search::{EgdbGame, SharedTablebase};

/// The folder used without `--egdb`: `$EVALEARN_EGDB` if set (empty: none), else
/// [`DEFAULT_DIR`] in the current folder.
fn default_dir(default: &str) -> PathBuf {
    std::env::var_os(DIR_VARIABLE).map_or_else(|| PathBuf::from(default), PathBuf::from)
}

/// Names the default database folder (tests set it empty to run without one).
pub const DIR_VARIABLE: &str = "EVALEARN_EGDB";

/// `--egdb DIR` / `--no-egdb`: the endgame database of the playing commands.
#[derive(Args, Debug, Clone, Default)]
pub struct EgdbOption {
    /// Endgame database folder: Brazilian draughts' (default: `$EVALEARN_EGDB`, else `egdb`
    /// when that folder exists), or Kalah's, the solver's `--db-dir` (only when given)
    #[arg(long, conflicts_with = "no_egdb")]
    pub egdb: Option<PathBuf>,
    /// Play without the endgame database even when the default folder exists
    #[arg(long)]
    pub no_egdb: bool,
}

impl EgdbOption {
    /// The database the command plays with: `--egdb DIR` (which must be a folder), else
    /// the default folder if it exists (and the game has databases), else none. Problems
    /// with its slices are reported on stderr and the command plays on without the
    /// damaged slices (or without any).
    pub fn load<G: EgdbGame>(&self) -> Result<Option<SharedTablebase<G>>, CliError> {
        let (tablebase, notes) = self.open::<G>()?;
        for note in notes {
            eprintln!("{note}");
        }
        Ok(tablebase)
    }

    /// The folder a command of game `G` reads its database from, without reading it:
    /// `--egdb DIR`, else the default folder when it exists; none with `--no-egdb` or for
    /// a game without databases (where an explicit `--egdb` is an error when loading).
    pub fn folder<G: EgdbGame>(&self) -> Option<PathBuf> {
        if self.no_egdb {
            return None;
        }
        match &self.egdb {
            Some(dir) => Some(dir.clone()),
            None => {
                let dir = default_dir(G::DEFAULT_DIR?);
                (!dir.as_os_str().is_empty() && dir.is_dir()).then_some(dir)
            }
        }
    }

    /// [`EgdbOption::load`] without printing: the lines it would print.
    pub fn open<G: EgdbGame>(&self) -> Result<(Option<SharedTablebase<G>>, Vec<String>), CliError> {
        let Some(dir) = self.folder::<G>() else {
            return Ok((None, Vec::new()));
        };
        // A folder typed by the user must be there (the default one only when it is).
        if G::DEFAULT_DIR.is_some() && self.egdb.is_some() && !dir.is_dir() {
            return Err(CliError::input(format!(
                "--egdb {}: no such folder",
                dir.display()
            )));
        }
        let opened = G::open_tablebase(&dir).map_err(CliError::input)?;
        let mut notes: Vec<String> = opened
            .problems
            .iter()
            .map(|p| format!("warning: egdb: {p}"))
            .collect();
        notes.push(match &opened.tablebase {
            Some(_) => format!("egdb: {}", opened.summary),
            None => format!(
                "warning: egdb: {}; playing without an endgame database",
                opened.summary
            ),
        });
        Ok((opened.tablebase, notes))
    }
}
