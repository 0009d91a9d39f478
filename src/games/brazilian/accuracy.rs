//! Draughts cases from the endgame database: positions drawn from its slices with a
//! stated mix of piece counts, or a dataset's positions that fall inside it.

use rand::RngExt;

use std::path::Path;
use std::sync::Arc;

use crate::accuracy::Case;
use crate::accuracy::cases::{AccuracyError, AccuracyGame, AccuracyOptions, dataset_positions};
use crate::accuracy::heldout::HeldOutGame;
use crate::game::{ExactValue, Game, MoveList};
use crate::games::brazilian::Brazilian;
use crate::games::brazilian::commands::open_or_fail;
use crate::games::brazilian::egdb::{Egdb, Material, SliceIndex};
use crate::search::Tablebase;

/// A result as a value: 1 win, 0 draw, −1 loss.
pub fn value_of(exact: ExactValue) -> i32 {
    match exact {
        ExactValue::Win(_) => 1,
        ExactValue::Draw => 0,
        ExactValue::Loss(_) => -1,
    }
}

/// The case of `pos` if it and every position after its moves are in the database and
/// it has at least two moves (a forced move tells nothing about the evaluator).
pub fn case_of(egdb: &dyn Tablebase<Brazilian>, pos: &Brazilian) -> Option<Case<Brazilian>> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if moves.len() < 2 {
        return None;
    }
    egdb.probe(pos)?;
    let children: Option<Vec<_>> = moves
        .iter()
        .map(|&mv| egdb.probe(&pos.play(mv)).map(|v| (mv, value_of(v))))
        .collect();
    let case = Case::from_children(*pos, children?)?;
    // The stored value must be what the moves give (else the database is damaged).
    (egdb.probe(pos).map(value_of) == Some(case.value)).then_some(case)
}

/// A mix of piece counts: `(pieces, weight)`, parsed from `3:1,4:1,5:2`.
pub fn parse_mix(text: &str) -> Result<Vec<(u32, f64)>, String> {
    let mut mix = Vec::new();
    for part in text.split(',') {
        let (pieces, weight) = part
            .split_once(':')
            .ok_or_else(|| format!("'{part}': give PIECES:WEIGHT, e.g. 4:1"))?;
        let pieces: u32 = pieces
            .trim()
            .parse()
            .map_err(|_| format!("'{pieces}' is not a piece count"))?;
        let weight: f64 = weight
            .trim()
            .parse()
            .ok()
            .filter(|w: &f64| w.is_finite() && *w >= 0.0)
            .ok_or_else(|| format!("'{weight}' is not a weight (a number ≥ 0)"))?;
        if !(2..=7).contains(&pieces) {
            return Err(format!("{pieces} pieces: a slice has 2 to 7"));
        }
        if mix.iter().any(|&(p, _)| p == pieces) {
            return Err(format!("{pieces} pieces given twice"));
        }
        mix.push((pieces, weight));
    }
    if mix.iter().all(|&(_, w)| w == 0.0) {
        return Err("every weight is 0".to_string());
    }
    Ok(mix)
}

/// `count` cases drawn from the database: each draw picks a piece count by the mix's
/// weights, then a position uniformly among that count's positions (slices weighted by
/// size), with White to move; positions without two moves are drawn again. Draw `i`
/// comes from random stream `i` of `seed`, so the sample is the same on any machine.
/// Fails if a piece count of the mix is not (completely) in the database.
pub fn sample(
    egdb: &Egdb,
    mix: &[(u32, f64)],
    count: usize,
    seed: u64,
) -> Result<Vec<Case<Brazilian>>, String> {
    sample_from(egdb, |m| egdb.has(m), mix, count, seed)
}

/// [`sample`] from any table of exact values; `has` tells which slices it holds whole.
pub fn sample_from(
    egdb: &dyn Tablebase<Brazilian>,
    has: impl Fn(Material) -> bool,
    mix: &[(u32, f64)],
    count: usize,
    seed: u64,
) -> Result<Vec<Case<Brazilian>>, String> {
    // (weight, the piece count's slices with their sizes)
    let mut slices: Vec<(f64, Vec<(SliceIndex, u64)>)> = Vec::new();
    for &(pieces, weight) in mix.iter().filter(|&&(_, w)| w > 0.0) {
        let of_count: Vec<(SliceIndex, u64)> = Material::all_up_to(pieces)
            .into_iter()
            .filter(|m| m.pieces() == pieces)
            .map(|m| {
                let index = SliceIndex::new(m);
                let size = index.size();
                (index, size)
            })
            .collect();
        if let Some((missing, _)) = of_count.iter().find(|(i, _)| !has(i.material())) {
            return Err(format!(
                "the database has no slice {} ({pieces} pieces): build it with \
                 `evalearn egdb build --pieces {pieces}`",
                missing.material()
            ));
        }
        slices.push((weight, of_count));
    }
    let total_weight: f64 = slices.iter().map(|s| s.0).sum();
    let mut cases = Vec::with_capacity(count);
    let mut stream = 0u64;
    // Generous: almost every position of 3+ pieces has two moves.
    let max_draws = 1000 + 100 * count as u64;
    while cases.len() < count {
        if stream >= max_draws {
            return Err(format!(
                "only {} of {count} positions with two moves or more in {max_draws} draws",
                cases.len()
            ));
        }
        let mut rng = crate::rng::stream(seed, stream);
        stream += 1;
        let mut pick = rng.random::<f64>() * total_weight;
        let (_, of_count) = slices
            .iter()
            .find(|s| {
                pick -= s.0;
                pick < 0.0
            })
            .unwrap_or_else(|| slices.last().expect("a weight is positive"));
        let positions: u64 = of_count.iter().map(|s| s.1).sum();
        let mut at = rng.random_range(0..positions);
        let (index, _) = of_count
            .iter()
            .find(|s| {
                let inside = at < s.1;
                if !inside {
                    at -= s.1;
                }
                inside
            })
            .expect("the draw is below the total");
        if let Some(case) = case_of(egdb, &index.position(at)) {
            cases.push(case);
        }
    }
    Ok(cases)
}

/// The cases of `positions` that fall inside the database (with two moves or more),
/// duplicates left out, in order; then at most `count` of them, drawn by `seed` when
/// there are more.
pub fn from_positions(
    egdb: &Egdb,
    positions: impl IntoIterator<Item = Brazilian>,
    count: usize,
    seed: u64,
) -> Vec<Case<Brazilian>> {
    let mut seen = std::collections::HashSet::new();
    let cases: Vec<Case<Brazilian>> = positions
        .into_iter()
        .filter(|p| Material::of(p).pieces() <= egdb.max_pieces() && seen.insert(*p))
        .filter_map(|p| case_of(egdb, &p))
        .collect();
    crate::accuracy::choose_positions(cases, count, seed)
}

impl AccuracyGame for Brazilian {
    fn check_accuracy_options(_: (), options: &AccuracyOptions) -> Result<(), AccuracyError> {
        if options.db_dir.is_some()
            || options.db_stones.is_some()
            || options.max_pit_stones.is_some()
        {
            return Err(AccuracyError::Input(
                "--db-dir, --db-stones and --max-pit-stones are for Kalah; draughts reads --egdb"
                    .to_string(),
            ));
        }
        if options.egdb.is_none() {
            return Err(AccuracyError::Input(
                "give --egdb DIR: the endgame database the positions and their values come from"
                    .to_string(),
            ));
        }
        Ok(())
    }

    fn accuracy_cases(
        _: (),
        options: &AccuracyOptions,
    ) -> Result<(Vec<Case<Brazilian>>, &'static str), AccuracyError> {
        let dir = options.egdb.as_deref().expect("checked: --egdb is given");
        Ok((accuracy_cases(options, dir)?, "result steps"))
    }
}

/// The `accuracy` command's positions: drawn from the database's slices (`--mix`), or a
/// dataset's positions inside it (`--from`).
fn accuracy_cases(
    options: &AccuracyOptions,
    dir: &Path,
) -> Result<Vec<Case<Brazilian>>, AccuracyError> {
    let opened = open_or_fail("--egdb", dir)?;
    let egdb = opened.egdb;
    println!(
        "egdb {}: {} slices, complete up to {} pieces",
        dir.display(),
        egdb.slice_count(),
        opened.complete_up_to
    );
    let count = options.positions as usize;
    let cases = match &options.from {
        Some(path) => {
            let positions = dataset_positions::<Brazilian>(path, Brazilian::NAME)?;
            let cases = from_positions(&egdb, positions, count, options.seed);
            println!(
                "positions from {}: {} inside the database",
                path.display(),
                cases.len()
            );
            cases
        }
        None => {
            let mix = match &options.mix {
                Some(text) => parse_mix(text)
                    .map_err(|e| AccuracyError::Input(format!("--mix {text}: {e}")))?,
                None if opened.complete_up_to >= 3 => {
                    (3..=opened.complete_up_to).map(|p| (p, 1.0)).collect()
                }
                None => {
                    return Err(AccuracyError::Input(format!(
                        "--egdb {}: not complete for 3 pieces; give --mix",
                        dir.display()
                    )));
                }
            };
            let text: Vec<String> = mix.iter().map(|(p, w)| format!("{p}:{w}")).collect();
            println!("mix {} (pieces:weight)", text.join(","));
            sample(&egdb, &mix, count, options.seed)
                .map_err(|e| AccuracyError::Input(format!("--mix: {e}")))?
        }
    };
    Ok(cases)
}

/// Most pieces of the held-out positions.
pub const HELD_OUT_MAX_PIECES: u32 = 5;

impl HeldOutGame for Brazilian {
    fn held_out_cases(
        _variant: (),
        tablebase: Option<&Arc<dyn Tablebase<Brazilian>>>,
        count: usize,
        seed: u64,
    ) -> Result<(Vec<Case<Brazilian>>, String), String> {
        let tablebase = tablebase.ok_or("no endgame database (give --egdb DIR)")?;
        let most = tablebase.max_pieces().min(HELD_OUT_MAX_PIECES);
        if most < 3 {
            return Err(format!("the endgame database holds only {most} pieces"));
        }
        let mix: Vec<(u32, f64)> = (3..=most).map(|pieces| (pieces, 1.0)).collect();
        // Slices the database lacks give no case: their draws are simply drawn again.
        let cases = sample_from(tablebase.as_ref(), |_| true, &mix, count, seed)?;
        Ok((
            cases,
            format!("positions of 3 to {most} pieces from the endgame database"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accuracy::{Settings, Verdict, report};

    #[test]
    fn draughts_results_have_no_margin_error() {
        let settings = Settings {
            depths: vec![0],
            draw_band: 50,
            probability: None,
            tt_mib: 1,
        };
        let pos = Brazilian::start();
        let mut moves = <Brazilian as Game>::Moves::default();
        pos.legal_moves(&mut moves);
        let case = Case::from_children(pos, moves.iter().map(|&m| (m, 0))).unwrap();
        let verdict = Verdict {
            chosen: vec![moves[0]],
            static_value: 0,
        };
        let draughts = report(&[case], &[verdict], &settings);
        assert!(draughts.static_figures.margin_error.is_none());
        assert!(!draughts.text("men").contains("margin"));
    }
}
