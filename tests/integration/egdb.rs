//! The endgame database: its command line, damaged files, an independent solver, and
//! the search and games that use it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use evalearn::arena::engine_game::{GameRules, play_engine_game};
use evalearn::game::{ExactValue, Game, MoveList, Outcome, Side};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::Material as MaterialEval;
use evalearn::games::brazilian::egdb::{Egdb, Material, SliceIndex, build};
use evalearn::rng;
use evalearn::search::{Limits, SearchConfig, Searcher, Tablebase, WIN_THRESHOLD};
use rand::RngExt;

use crate::common::{assert_input_error, evalearn, evalearn_ok, temp_dir};

/// The database of up to `pieces` pieces, built once per test run.
pub(crate) fn database(pieces: u32) -> &'static (PathBuf, Arc<Egdb>) {
    static THREE: OnceLock<(PathBuf, Arc<Egdb>)> = OnceLock::new();
    static FOUR: OnceLock<(PathBuf, Arc<Egdb>)> = OnceLock::new();
    let cell = if pieces == 3 { &THREE } else { &FOUR };
    cell.get_or_init(|| {
        let dir = temp_dir(&format!("egdb-shared-{pieces}"));
        let never = std::sync::atomic::AtomicBool::new(false);
        let egdb = build::build(&dir, pieces, &never, |_| {}).unwrap().unwrap();
        (dir, Arc::new(egdb))
    })
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn command_line_builds_verifies_probes_and_lists() {
    let dir = temp_dir("egdb-cli");
    let d = dir.to_str().unwrap();
    let out = text(
        &evalearn_ok(&[
            "egdb",
            "build",
            "--pieces",
            "3",
            "--out",
            d,
            "--threads",
            "2",
        ])
        .stdout,
    );
    assert!(out.contains("done: 16 slices, 199520 entries"), "{out}");
    // A second build finds every slice there and rebuilds nothing.
    let again = text(&evalearn_ok(&["egdb", "build", "--pieces", "3", "--out", d]).stdout);
    assert_eq!(again.matches("(already built)").count(), 16, "{again}");
    let out = text(&evalearn_ok(&["egdb", "verify", "--dir", d]).stdout);
    assert!(out.contains("checked 199520 entries"), "{out}");
    assert!(out.contains("every value agrees with its moves"), "{out}");
    // Two kings against one on the long diagonal's end: 30-25 forces 4-8, then 25x4.
    let out = text(&evalearn_ok(&["egdb", "probe", "--dir", d, "--fen", "W:WK29,K30:BK4"]).stdout);
    assert!(out.contains("value win in 3 plies"), "{out}");
    assert!(out.contains("line 30-25 4-8 25x4"), "{out}");
    // `--egdb`, as every other command names the folder, is `--dir` here too.
    let out = text(&evalearn_ok(&["egdb", "probe", "--egdb", d, "--fen", "B:WK29,K30:BK4"]).stdout);
    assert!(out.contains("value"), "{out}");
    for command in ["probe", "verify", "info"] {
        let help = text(&evalearn_ok(&["egdb", command, "--help"]).stdout);
        assert!(help.contains("[alias: --egdb]"), "{command}: {help}");
    }
    let out = text(&evalearn_ok(&["egdb", "info", "--dir", d]).stdout);
    assert!(out.contains("complete up to 3 pieces"), "{out}");
    // Outside the database, a bad FEN: input errors.
    assert_input_error(&[
        "egdb",
        "probe",
        "--dir",
        d,
        "--fen",
        "W:WK29,K30,K31:BK4,K5",
    ]);
    assert_input_error(&["egdb", "probe", "--dir", d, "--fen", "W:WK99:BK4"]);
    assert_input_error(&["egdb", "build", "--pieces", "9"]);
    // The analysis of a database position says so.
    let out = text(
        &evalearn_ok(&[
            "analyse",
            "--egdb",
            d,
            "--fen",
            "W:WK29,K30:BK4",
            "--depth",
            "6",
        ])
        .stdout,
    );
    assert!(out.contains("egdb win in 3 plies"), "{out}");
    assert!(out.contains("bestmove 30-25"), "{out}");
    // A draughts database's folder holds no Kalah database: Kalah warns and plays on.
    let out = evalearn_ok(&["analyse", "--game", "kalah", "--egdb", d, "--depth", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no Kalah endgame database in"), "{err}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn damaged_files_are_named_and_the_engine_plays_on() {
    let (good, _) = database(3);
    let dir = temp_dir("egdb-damaged");
    copy_dir(good, &dir);
    let d = dir.to_str().unwrap();
    // One byte flipped, one file cut short, one file holding another slice.
    let flipped = dir.join("k1m0-k2m0.egdb");
    let mut bytes = std::fs::read(&flipped).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&flipped, bytes).unwrap();
    let cut = dir.join("k2m0-k1m0.egdb");
    let bytes = std::fs::read(&cut).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() - 9]).unwrap();
    std::fs::copy(dir.join("k1m0-k1m0.egdb"), dir.join("k0m1-k1m0.egdb")).unwrap();

    let out = evalearn(&["egdb", "verify", "--dir", d]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("k1m0-k2m0.egdb: checksum mismatch"), "{err}");
    assert!(err.contains("k2m0-k1m0.egdb: truncated"), "{err}");
    assert!(
        err.contains("k0m1-k1m0.egdb: holds slice k1m0-k1m0"),
        "{err}"
    );
    // The engine names the problems and plays on, with the slices that loaded.
    let out = evalearn_ok(&[
        "analyse",
        "--egdb",
        d,
        "--fen",
        "W:WK29,K30:BK4",
        "--depth",
        "4",
    ]);
    let err = text(&out.stderr);
    assert!(err.contains("checksum mismatch"), "{err}");
    assert!(text(&out.stdout).contains("bestmove"));
    // A position of a damaged slice is not in the database: never a wrong value.
    assert_input_error(&["egdb", "probe", "--dir", d, "--fen", "W:WK29,K30:BK4"]);
    // A folder given that is not there: refused, with the flag.
    let missing = dir.join("nothing-here");
    let out = evalearn(&[
        "analyse",
        "--egdb",
        missing.to_str().unwrap(),
        "--depth",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--egdb") && text(&out.stderr).contains("no such folder"),
        "{}",
        text(&out.stderr)
    );
    // Said once, as the error, with the flag as typed and how to build one.
    let m = missing.to_str().unwrap();
    for flag in ["--dir", "--egdb"] {
        let out = evalearn(&["egdb", "probe", flag, m, "--fen", "W:WK29:BK4"]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr),
            format!(
                "error: {flag} {m}: no such folder (build one with `evalearn egdb build \
                 --pieces 5 --out {m}`)\n"
            )
        );
    }
    // The default folder, `egdb`, missing: no `egdb: egdb:`.
    let out = crate::common::evalearn_command()
        .current_dir(&dir)
        .args(["egdb", "verify"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("error: --dir egdb: no such folder"),
        "{}",
        text(&out.stderr)
    );
    let opened = Egdb::open(&dir);
    assert_eq!(opened.complete_up_to, 0, "a two-piece slice is damaged");
    assert_eq!(opened.problems.len(), 3);
}

/// An independent solver: the positions reachable from `roots` found with the move
/// generator alone, then valued level by level (lost in 0 without moves; won in `d` if a
/// move reaches a position lost in `d − 1`; lost in `d` if every move reaches a won
/// position and the longest is won in `d − 1`); what is never valued is a draw.
fn solve_naively(roots: &[Brazilian]) -> HashMap<Brazilian, ExactValue> {
    let mut ids: HashMap<Brazilian, u32> = HashMap::new();
    let mut states: Vec<Brazilian> = Vec::new();
    let mut children: Vec<Vec<u32>> = Vec::new();
    for &root in roots {
        if let std::collections::hash_map::Entry::Vacant(slot) = ids.entry(root) {
            slot.insert(states.len() as u32);
            states.push(root);
        }
    }
    let mut moves = MoveList::new();
    let mut next = 0;
    while next < states.len() {
        let pos = states[next];
        pos.legal_moves(&mut moves);
        let mut list = Vec::with_capacity(moves.len());
        for &mv in moves.iter() {
            let after = pos.play(mv);
            let id = *ids.entry(after).or_insert_with(|| {
                states.push(after);
                (states.len() - 1) as u32
            });
            list.push(id);
        }
        children.push(list);
        next += 1;
    }
    let mut value: Vec<Option<ExactValue>> = vec![None; states.len()];
    let mut level = 0u32;
    let mut last_change = 0u32;
    while level <= last_change + 2 {
        let mut found = Vec::new();
        for (s, list) in children.iter().enumerate() {
            if value[s].is_some() {
                continue;
            }
            let known = if list.is_empty() {
                (level == 0).then_some(ExactValue::Loss(0))
            } else if level % 2 == 1 {
                list.iter()
                    .any(|&c| value[c as usize] == Some(ExactValue::Loss(level - 1)))
                    .then_some(ExactValue::Win(level))
            } else {
                let mut longest = None;
                let all_won = list.iter().all(|&c| match value[c as usize] {
                    Some(ExactValue::Win(d)) => {
                        longest = longest.max(Some(d));
                        true
                    }
                    _ => false,
                });
                (all_won && longest == Some(level.wrapping_sub(1)))
                    .then_some(ExactValue::Loss(level))
            };
            if let Some(v) = known {
                found.push((s, v));
            }
        }
        if !found.is_empty() {
            last_change = level;
        }
        for (s, v) in found {
            value[s] = Some(v);
        }
        level += 1;
    }
    states
        .into_iter()
        .zip(value)
        .map(|(pos, v)| (pos, v.unwrap_or(ExactValue::Draw)))
        .collect()
}

#[test]
fn an_independent_solver_agrees_on_every_small_position_and_thousands_of_four_piece_ones() {
    let (_, egdb) = database(4);
    let mut rng = rng::stream(2026, 11);
    let mut roots = Vec::new();
    // Every position of up to three pieces, either side to move.
    for material in Material::all_up_to(3) {
        let index = SliceIndex::new(material);
        for i in 0..index.size() {
            let pos = index.position(i);
            roots.push(pos);
            roots.push(pos.mirrored());
        }
    }
    let small = roots.len();
    // Random four-piece positions of slices whose positions stay among a few: kings
    // only, and two kings and a man against a king (its man can only become a king).
    for material in [
        Material::new(0, 3, 0, 1),
        Material::new(0, 1, 0, 3),
        Material::new(0, 2, 0, 2),
        Material::new(1, 2, 0, 1),
        Material::new(0, 1, 1, 2),
    ] {
        let index = SliceIndex::new(material);
        for _ in 0..1000 {
            let pos = index.position(rng.random_range(0..index.size()));
            roots.push(if rng.random::<bool>() {
                pos
            } else {
                pos.mirrored()
            });
        }
    }
    let solved = solve_naively(&roots);
    let mut wins = 0;
    for (n, pos) in roots.iter().enumerate() {
        let expected = solved[pos];
        assert_eq!(egdb.probe(pos), Some(expected), "{}", pos.format_position());
        if matches!(expected, ExactValue::Win(_)) && n >= small {
            wins += 1;
        }
    }
    assert!(roots.len() - small == 5000 && wins > 1000, "{wins} wins");
}

/// Plays `start` to its end with the engine and the database on both sides.
fn play_out(start: Brazilian, egdb: &Arc<Egdb>) -> (Outcome, usize) {
    let tablebase: Arc<dyn Tablebase<Brazilian>> = egdb.clone();
    let mut searcher =
        Searcher::new(MaterialEval, SearchConfig::FULL, 1).with_tablebase(Some(tablebase));
    let mut rng = rng::stream(1, 0);
    let rules = GameRules {
        ply_cap: 300,
        exploration: None,
        adjudicator: None,
    };
    let game = play_engine_game(0, start, rules, &mut rng, |record, _| {
        searcher.search(record, &Limits::depth(4), |_| {})
    });
    (game.outcome, game.moves.len())
}

#[test]
fn search_plays_the_fastest_win_and_scores_database_nodes_exactly() {
    let (_, egdb) = database(4);
    let tablebase: Arc<dyn Tablebase<Brazilian>> = egdb.clone();
    let mut rng = rng::stream(5, 5);
    let index = SliceIndex::new(Material::new(0, 3, 0, 1));
    let mut checked = 0;
    while checked < 20 {
        let pos = index.position(rng.random_range(0..index.size()));
        let Some(ExactValue::Win(d)) = egdb.probe(&pos) else {
            continue;
        };
        let mut searcher = Searcher::new(MaterialEval, SearchConfig::FULL, 1)
            .with_tablebase(Some(tablebase.clone()));
        let result = searcher.search_position(&pos, &Limits::depth(6));
        assert_eq!(result.exact, Some(ExactValue::Win(d)));
        assert_eq!(result.score, evalearn::search::WIN - d as i32);
        let (outcome, plies) = play_out(pos, egdb);
        assert_eq!(
            outcome,
            Outcome::Win(Side::First),
            "{}",
            pos.format_position()
        );
        assert_eq!(plies, d as usize, "{}", pos.format_position());
        checked += 1;
    }
    // Six pieces, not in the database, where every capture leads into it: the search
    // sees the exact result below the root.
    let pos = Brazilian::parse_position("W:WK29,K30,22:BK4,18,K12").unwrap();
    let mut searcher =
        Searcher::new(MaterialEval, SearchConfig::FULL, 1).with_tablebase(Some(tablebase));
    let result = searcher.search_position(&pos, &Limits::depth(2));
    assert_eq!(result.exact, None);
    assert!(
        result.score.abs() >= WIN_THRESHOLD || result.score == 0,
        "{}",
        result.score
    );
}

/// Classic endings with their result in theory, each played from both sides (as given,
/// and with the colours swapped and the board turned).
#[test]
fn classic_endings_are_played_to_their_theoretical_result() {
    let (_, egdb) = database(4);
    // (position, the result for the side to move: 1 win, 0 draw)
    let endings = [
        // Three kings against a king holding the long diagonal a1–h8: a draw (Petrov).
        ("W:WK6,K7,K28:BK29", 0),
        ("W:WK5,K13,K21:BK8", 0),
        // Three kings, one holding the long diagonal, against a king off it: a win
        // (Petrov's triangle).
        ("W:WK29,K30,K31:BK5", 1),
        ("W:WK22,K26,K27:BK1", 1),
        // Two kings against one: a draw.
        ("W:WK1,K2:BK20", 0),
        ("W:WK14,K23:BK29", 0),
        // A king against a king: a draw.
        ("W:WK32:BK1", 0),
        // A king against a man still far from crowning: the king catches it.
        ("W:WK29:B2", 1),
        // A king and a man against a king that holds the long diagonal: a draw.
        ("W:W27,K30:BK4", 0),
        // Two kings and a man against a king off the diagonal: the man crowns, a win.
        ("W:WK29,K30,27:BK5", 1),
    ];
    for (fen, expected) in endings {
        let pos = Brazilian::parse_position(fen).unwrap();
        for start in [pos, pos.mirrored()] {
            let value = egdb.probe(&start).unwrap();
            let mover = start.side_to_move();
            let (outcome, _) = play_out(start, egdb);
            match expected {
                1 => {
                    assert!(matches!(value, ExactValue::Win(_)), "{fen}: {value}");
                    assert_eq!(outcome, Outcome::Win(mover), "{fen}");
                }
                _ => {
                    assert_eq!(value, ExactValue::Draw, "{fen}");
                    assert_eq!(outcome, Outcome::Draw, "{fen}");
                }
            }
        }
    }
}

#[test]
fn self_play_ends_games_on_entering_the_database() {
    let (dir, _) = database(3);
    let tmp = temp_dir("egdb-selfplay");
    let openings = tmp.join("openings.fen");
    std::fs::write(&openings, "W:W22,K30:B9,K5\nB:WK29,21:BK4,K3\n").unwrap();
    let data = tmp.join("games.bin");
    let args = [
        "selfplay",
        "--eval",
        "material",
        "--games",
        "4",
        "--depth",
        "3",
        "--openings",
        openings.to_str().unwrap(),
        "--egdb",
        dir.to_str().unwrap(),
        "--out",
        data.to_str().unwrap(),
    ];
    evalearn_ok(&args);
    let info = text(&evalearn_ok(&["dataset", "info", data.to_str().unwrap()]).stdout);
    assert!(info.contains("adjudicated 4"), "{info}");
    // The games played on go to a file of their own: an existing result is not replaced.
    let played_on_data = tmp.join("played-on.bin");
    let mut played_on = args.to_vec();
    *played_on.last_mut().unwrap() = played_on_data.to_str().unwrap();
    played_on.push("--no-adjudicate");
    evalearn_ok(&played_on);
    let info = text(&evalearn_ok(&["dataset", "info", played_on_data.to_str().unwrap()]).stdout);
    assert!(info.contains("adjudicated 0"), "{info}");
}

#[test]
fn treestats_measures_endings_with_and_without_the_database() {
    let (dir, _) = database(4);
    let dir_text = dir.to_str().unwrap();
    let args = [
        "treestats",
        "--positions",
        "30",
        "--depths",
        "6",
        "--seed",
        "3",
        "--algos",
        "full",
        "--pieces",
        "5-6",
        "--egdb",
        dir_text,
    ];
    let out = evalearn_ok(&args);
    let table = text(&out.stdout);
    assert!(table.contains("with 5..6 pieces"), "{table}");
    let mean = |row: &str| -> f64 {
        let line = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(row))
            .unwrap_or_else(|| panic!("no row {row}: {table}"));
        line.split_whitespace()
            .nth(1)
            .unwrap()
            .replace(',', "")
            .parse()
            .unwrap()
    };
    // Endings of 5 and 6 pieces: the 4-piece database cuts off every capture into it.
    assert!(mean("full+egdb") < mean("full"), "{table}");
    let small = |option: &str, value: &str| {
        assert_input_error(&[
            "treestats",
            "--positions",
            "3",
            "--depths",
            "2",
            "--seed",
            "1",
            option,
            value,
        ])
    };
    for bad in ["1-3", "6-5", "7-30", "x", "6-"] {
        small("--pieces", bad);
    }
    small("--egdb", "/nonexistent/egdb");
}
