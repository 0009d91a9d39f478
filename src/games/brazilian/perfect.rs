//! Brazilian draughts played perfectly: the endgame database's moves.

use std::path::Path;
use std::sync::Arc;

use super::Brazilian;
use crate::arena::perfect::{Perfect, PerfectGame, from_tablebase};
use crate::search::Tablebase;

impl PerfectGame for Brazilian {
    fn perfect(
        _: (),
        tablebase: Option<Arc<dyn Tablebase<Brazilian>>>,
        _: Option<&Path>,
        _: u64,
        _: &mut dyn FnMut(String),
    ) -> Result<Perfect<Brazilian>, String> {
        let tablebase = tablebase
            .ok_or("perfect plays Brazilian draughts from the endgame database: give --egdb DIR")?;
        Ok(from_tablebase(tablebase))
    }
}
