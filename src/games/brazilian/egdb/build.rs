//! Retrograde analysis, one slice pair at a time.
//!
//! Slices are built in [`Material::all_up_to`] order, so every move leaving a slice (a
//! capture, a man crowned) leads to a slice already built. A slice is built together
//! with its colour-swapped partner (a quiet move by White in one is a position with Black
//! to move, i.e. an entry of the other).
//!
//! 1. Every position: its moves leaving the pair are looked up, its moves staying in it
//!    counted. No move: lost in 0. A move to a lost position: a win candidate. All moves
//!    leaving, all to won positions: a loss.
//! 2. Positions are settled in order of distance, level by level: a position settled as
//!    lost in `d` makes each of its predecessors (quiet un-moves, from positions without
//!    a capture) won in `d + 1` at most; one settled as won in `d` takes one from each
//!    predecessor's count of unsettled moves, and a predecessor whose count reaches zero
//!    with every move losing is lost in one more than its longest move.
//! 3. What is never settled is a draw: neither side can force the end.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::index::{Material, SliceIndex};
use super::{Egdb, decode_entry, encode_entry, file};
use crate::game::{ExactValue, Game, MoveList, Side};
use crate::games::brazilian::Brazilian;
use crate::games::brazilian::board::{BOARD, Dir};

/// Marks a position that cannot lose (a move to a draw or a lost position leaves the
/// pair) in its count of unsettled moves.
const CANNOT_LOSE: u8 = 0x80;

/// One slice pair done.
#[derive(Clone, Debug)]
pub struct SliceReport {
    pub material: Material,
    pub entries: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Longest distance to the end, in plies.
    pub longest: u32,
    /// Bytes of the slice file.
    pub file_bytes: u64,
    /// Time to build (with its partner), zero if the file was already there.
    pub elapsed: Duration,
    /// The file was already there and valid.
    pub reused: bool,
}

/// Builds (or completes) the database of every slice of up to `pieces` pieces in `dir`,
/// on the current rayon pool. Slices whose files are already there and valid are loaded,
/// not rebuilt, so a killed build resumes where it stopped. `on_slice` hears of each.
/// `None` if `stop` was raised first: the slices finished until then are on disk.
pub fn build(
    dir: &Path,
    pieces: u32,
    stop: &AtomicBool,
    mut on_slice: impl FnMut(&SliceReport),
) -> Result<Option<Egdb>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    let mut egdb = Egdb::empty();
    egdb.dir = Some(dir.to_path_buf());
    for material in Material::all_up_to(pieces) {
        if material > material.swapped() {
            continue;
        }
        let pair: Vec<Material> = if material == material.swapped() {
            vec![material]
        } else {
            vec![material, material.swapped()]
        };
        let started = Instant::now();
        let indexes: Vec<SliceIndex> = pair.iter().map(|&m| SliceIndex::new(m)).collect();
        let existing: Option<Vec<Vec<u8>>> = indexes
            .iter()
            .map(|index| file::read(dir, index).ok())
            .collect();
        let (tables, reused) = match existing {
            Some(tables) => (tables, true),
            None => match solve(&egdb, &indexes, stop)? {
                Some(tables) => (tables, false),
                None => return Ok(None),
            },
        };
        for (index, entries) in indexes.into_iter().zip(tables) {
            let material = index.material();
            let path = file::slice_path(dir, material);
            let file_bytes = if reused {
                std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0)
            } else {
                let bytes = file::encode(material, &entries);
                crate::io::write_atomic(&path, &bytes)
                    .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
                bytes.len() as u64
            };
            let mut report = SliceReport {
                material,
                entries: entries.len() as u64,
                wins: 0,
                draws: 0,
                losses: 0,
                longest: 0,
                file_bytes,
                elapsed: if reused {
                    Duration::ZERO
                } else {
                    started.elapsed()
                },
                reused,
            };
            for &entry in &entries {
                match decode_entry(entry) {
                    ExactValue::Win(d) => {
                        report.wins += 1;
                        report.longest = report.longest.max(d);
                    }
                    ExactValue::Loss(d) => {
                        report.losses += 1;
                        report.longest = report.longest.max(d);
                    }
                    ExactValue::Draw => report.draws += 1,
                }
            }
            egdb.insert(index, entries);
            on_slice(&report);
        }
    }
    Ok(Some(egdb))
}

/// Work arrays of one slice during its build.
struct Table {
    index: SliceIndex,
    /// Entry bytes (see [`decode_entry`]); a win may still be shortened until `done`.
    value: Vec<u8>,
    /// Moves staying in the pair not yet settled, with [`CANNOT_LOSE`].
    pending: Vec<u8>,
    /// Longest distance among the moves settled as the opponent's wins.
    longest: Vec<u8>,
    done: Vec<bool>,
}

/// What step 1 finds for one position: entry, pending count, longest.
fn first_look(egdb: &Egdb, index: &SliceIndex, i: u64) -> Result<(u8, u8, u8), String> {
    let pos = index.position(i);
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let kings = pos.kings.count_ones();
    let mut best_win: Option<u32> = None;
    let mut cannot_lose = false;
    let mut pending = 0u8;
    let mut longest = 0u32;
    for &mv in moves.iter() {
        let after = pos.play(mv);
        if !mv.is_capture() && after.kings.count_ones() == kings {
            pending += 1;
            continue;
        }
        let value = egdb.probe(&after).ok_or_else(|| {
            format!(
                "slice {} is needed before {} but is not built",
                Material::of(&after),
                index.material()
            )
        })?;
        match value {
            ExactValue::Loss(d) => best_win = Some(best_win.map_or(d + 1, |w| w.min(d + 1))),
            ExactValue::Win(d) => longest = longest.max(d),
            ExactValue::Draw => cannot_lose = true,
        }
    }
    let entry = if moves.is_empty() {
        ExactValue::Loss(0)
    } else if let Some(w) = best_win {
        ExactValue::Win(w)
    } else if pending == 0 && !cannot_lose {
        ExactValue::Loss(longest + 1)
    } else {
        ExactValue::Draw
    };
    let entry = encode_entry(entry).ok_or_else(|| too_long(index.material()))?;
    let flag = if cannot_lose || best_win.is_some() {
        CANNOT_LOSE
    } else {
        0
    };
    Ok((entry, pending | flag, longest.min(254) as u8))
}

fn too_long(material: Material) -> String {
    format!("slice {material} has a distance beyond 254 plies, more than an entry holds")
}

/// Solves a slice (and its partner): the entries of each, in order.
/// `None` if `stop` was raised first.
fn solve(
    egdb: &Egdb,
    indexes: &[SliceIndex],
    stop: &AtomicBool,
) -> Result<Option<Vec<Vec<u8>>>, String> {
    let stopped = || stop.load(Ordering::Relaxed);
    let mut tables = Vec::with_capacity(indexes.len());
    for index in indexes {
        // Once stopped, the remaining looks are skipped (and the table dropped).
        let looks: Vec<(u8, u8, u8)> = (0..index.size())
            .into_par_iter()
            .map(|i| match stopped() {
                true => Ok((0, 0, 0)),
                false => first_look(egdb, index, i),
            })
            .collect::<Result<_, _>>()?;
        if stopped() {
            return Ok(None);
        }
        let size = looks.len();
        let mut table = Table {
            index: index.clone(),
            value: Vec::with_capacity(size),
            pending: Vec::with_capacity(size),
            longest: Vec::with_capacity(size),
            done: vec![false; size],
        };
        for (v, p, l) in looks {
            table.value.push(v);
            table.pending.push(p);
            table.longest.push(l);
        }
        tables.push(table);
    }
    let pair = indexes.len() == 2;
    let partner = |t: usize| if pair { 1 - t } else { 0 };
    // buckets[d]: positions settled (or, for wins, proposed) at distance d.
    let mut buckets: Vec<Vec<(u8, u32)>> = vec![Vec::new(); 256];
    for (t, table) in tables.iter().enumerate() {
        for (i, &v) in table.value.iter().enumerate() {
            if v != 0 {
                buckets[v as usize - 1].push((t as u8, i as u32));
            }
        }
    }
    let mut before = Vec::with_capacity(64);
    for level in 0..buckets.len() {
        let list = std::mem::take(&mut buckets[level]);
        let byte = level as u8 + 1;
        for (n, (t, i)) in list.into_iter().enumerate() {
            if n.is_multiple_of(STOP_CHECK) && stopped() {
                return Ok(None);
            }
            let (t, i) = (t as usize, i as usize);
            if tables[t].done[i] || tables[t].value[i] != byte {
                continue;
            }
            tables[t].done[i] = true;
            let pos = tables[t].index.position(i as u64);
            unmoves(&pos, &mut before);
            let p = partner(t);
            for prev in &before {
                let j = tables[p].index.index(prev.relative_masks()) as usize;
                let table = &mut tables[p];
                if table.done[j] {
                    continue;
                }
                if level % 2 == 0 {
                    // `pos` is lost: `prev` wins in one more.
                    let win = byte + 1;
                    if level + 1 >= 255 {
                        return Err(too_long(table.index.material()));
                    }
                    if table.value[j] == 0 || table.value[j] > win {
                        table.value[j] = win;
                        buckets[level + 1].push((p as u8, j as u32));
                    }
                } else {
                    // `pos` is won: one fewer unsettled move for `prev`.
                    table.pending[j] -= 1;
                    table.longest[j] = table.longest[j].max(level as u8);
                    if table.pending[j] == 0 && table.value[j] == 0 {
                        let loss = table.longest[j] as usize + 1;
                        if loss >= 255 {
                            return Err(too_long(table.index.material()));
                        }
                        table.value[j] = loss as u8 + 1;
                        buckets[loss].push((p as u8, j as u32));
                    }
                }
            }
        }
    }
    Ok(Some(tables.into_iter().map(|t| t.value).collect()))
}

/// Positions settled between two looks at the stop flag.
const STOP_CHECK: usize = 1 << 12;

/// The positions from which the side that just moved reached `pos` by a quiet move that
/// crowned nothing, and which had no capture (captures being compulsory). The side to
/// move in them is `pos`'s opponent.
fn unmoves(pos: &Brazilian, out: &mut Vec<Brazilian>) {
    out.clear();
    let mover = pos.side.opponent();
    let mine = pos.side_bits(mover);
    let empty = BOARD & !(pos.white | pos.black);
    // A man came from behind: the directions opposite to its forward steps.
    let back = match mover {
        Side::First => [Dir::SouthWest, Dir::SouthEast],
        Side::Second => [Dir::NorthWest, Dir::NorthEast],
    };
    let mut push = |from: u64, to: u64, king: bool| {
        let moved = mine ^ from ^ to;
        let kings = if king {
            pos.kings ^ from ^ to
        } else {
            pos.kings
        };
        let prev = match mover {
            Side::First => Brazilian::from_boards(moved, pos.black, kings, mover),
            Side::Second => Brazilian::from_boards(pos.white, moved, kings, mover),
        };
        if !prev.has_capture() {
            out.push(prev);
        }
    };
    let mut men = mine & !pos.kings;
    while men != 0 {
        let to = men & men.wrapping_neg();
        men ^= to;
        for dir in back {
            let from = dir.shift(to) & empty;
            if from != 0 {
                push(from, to, false);
            }
        }
    }
    let mut kings = mine & pos.kings;
    while kings != 0 {
        let to = kings & kings.wrapping_neg();
        kings ^= to;
        for dir in Dir::ALL {
            let mut from = dir.shift(to) & empty;
            while from != 0 {
                push(from, to, true);
                from = dir.shift(from) & empty;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every quiet, non-crowning move of every position is found back by `unmoves`, and
    /// nothing else is.
    #[test]
    fn unmoves_invert_the_quiet_moves() {
        let mut rng = crate::rng::stream(11, 0);
        let mut moves = MoveList::new();
        let mut before = Vec::new();
        for material in Material::all_up_to(4) {
            let index = SliceIndex::new(material);
            for _ in 0..40 {
                let i = rand::RngExt::random_range(&mut rng, 0..index.size());
                let pos = index.position(i);
                if pos.has_capture() {
                    continue;
                }
                pos.legal_moves(&mut moves);
                for &mv in moves.iter() {
                    let after = pos.play(mv);
                    let crowned = after.kings.count_ones() != pos.kings.count_ones();
                    unmoves(&after, &mut before);
                    assert_eq!(before.contains(&pos), !crowned, "{pos:?} {mv:?}");
                    for prev in &before {
                        let mut list = MoveList::new();
                        prev.legal_moves(&mut list);
                        assert!(list.iter().any(|&m| prev.play(m) == after));
                    }
                }
            }
        }
    }
}
