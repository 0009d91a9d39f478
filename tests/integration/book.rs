//! Opening books from the command line: `book build` the same whatever the thread count,
//! `book info` and `book probe`, `--book` in play, match and selfplay, damaged book files
//! refused with exit status 2 and a message naming the file and the problem, and the
//! shipped book.

use crate::common;
use common::{evalearn, evalearn_ok, temp_dir};

use std::path::{Path, PathBuf};

use evalearn::book::Book;
use evalearn::game::{Game, MoveList};
use evalearn::games::brazilian::{Brazilian, pdn};
use evalearn::games::kalah::Kalah;
use evalearn::io::dataset::Dataset;

/// A small draughts book of the material evaluator: depth 3, 4 plies, at most 60
/// positions, every move within 30 centi-units.
fn build_book(out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "book",
        "build",
        "--eval",
        "material",
        "--depth",
        "3",
        "--plies",
        "4",
        "--margin",
        "30",
        "--max-positions",
        "60",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    String::from_utf8(evalearn_ok(&args).stdout).unwrap()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn build_is_the_same_on_one_and_two_threads_and_reads_back() {
    let dir = temp_dir("book-build");
    let one = dir.join("one.book");
    let two = dir.join("two.book");
    let report = build_book(&one, &["--threads", "1"]);
    build_book(&two, &["--threads", "2"]);
    assert!(report.contains("book: 60 positions"), "{report}");
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    // An existing book is replaced only when told.
    let again = evalearn(&[
        "book",
        "build",
        "--eval",
        "material",
        "--depth",
        "2",
        "--out",
        s(&one),
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    build_book(&one, &["--threads", "1", "--force"]);
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());

    let book = Book::<Brazilian>::read(&one, ()).unwrap();
    assert_eq!(book.len(), 60);
    assert!(
        book.info().contains("depth 3, margin 30"),
        "{}",
        book.info()
    );
    // The file is what the book writes: a round trip gives the same bytes.
    let again = dir.join("again.book");
    book.write(&again).unwrap();
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&one).unwrap());

    let info = String::from_utf8(evalearn_ok(&["book", "info", s(&one)]).stdout).unwrap();
    assert!(info.contains("positions    60"), "{info}");
    assert!(info.contains("game         brazilian"), "{info}");
    let start_moves = book.probe(&Brazilian::start()).unwrap();
    let probe = String::from_utf8(evalearn_ok(&["book", "probe", s(&one)]).stdout).unwrap();
    assert_eq!(probe.lines().count(), start_moves.len(), "{probe}");
    let start = Brazilian::start();
    assert!(probe.contains(&start.format_move(start_moves[0].mv)));
    let elsewhere = "W:W31,32:B1,2";
    let out = evalearn_ok(&["book", "probe", s(&one), "--fen", elsewhere]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("not in the book"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_kalah_book_builds_and_is_refused_by_draughts() {
    let dir = temp_dir("book-kalah");
    let path = dir.join("kalah.book");
    evalearn_ok(&[
        "book",
        "build",
        "--game",
        "kalah:6:4",
        "--eval",
        "stores",
        "--depth",
        "2",
        "--plies",
        "3",
        "--max-positions",
        "10",
        "--out",
        s(&path),
    ]);
    let book = Book::<Kalah>::read(&path, Kalah::parse_variant("6:4").unwrap()).unwrap();
    assert!(book.probe(&Kalah::start_of(book.variant())).is_some());
    let info = String::from_utf8(evalearn_ok(&["book", "info", s(&path)]).stdout).unwrap();
    assert!(info.contains("kalah:6:4"), "{info}");
    // The same book for standard Kalah or for draughts: the wrong game, named.
    for args in [
        &["match", "--a", "stores", "--b", "stores", "--a-book"][..],
        &["match", "--a", "material", "--b", "material", "--a-book"][..],
    ] {
        let mut args = args.to_vec();
        args.extend_from_slice(&[s(&path), "--games", "2", "--depth", "1"]);
        let out = evalearn(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("kalah.book") && err.contains("a book of 'kalah:6:4'"),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `args` (with the book's path at `{}`), which must fail with status 2 and a
/// message naming the file and containing `problem`.
fn assert_refused(book: &Path, problem: &str) {
    let dir = book.parent().unwrap();
    let out_ds = dir.join("refused.ds");
    let name = book.file_name().unwrap().to_str().unwrap().to_string();
    let commands: [Vec<&str>; 5] = [
        vec!["book", "info", s(book)],
        vec!["book", "probe", s(book)],
        vec![
            "match",
            "--a",
            "material",
            "--b",
            "material",
            "--games",
            "2",
            "--depth",
            "1",
            "--book",
            s(book),
        ],
        vec![
            "selfplay",
            "--eval",
            "material",
            "--games",
            "1",
            "--depth",
            "1",
            "--out",
            s(&out_ds),
            "--book",
            s(book),
        ],
        vec!["play", "--side", "none", "--depth", "1", "--book", s(book)],
    ];
    for args in commands {
        let out = evalearn(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&name) && err.contains(problem),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn damaged_book_files_are_refused_with_status_2() {
    let dir = temp_dir("book-damage");
    let good = dir.join("good.book");
    build_book(&good, &[]);
    let bytes = std::fs::read(&good).unwrap();

    let missing = dir.join("missing.book");
    assert_refused(&missing, "No such file");
    let empty = dir.join("empty.book");
    std::fs::write(&empty, b"").unwrap();
    assert_refused(&empty, "not an opening book");
    let magic = dir.join("magic.book");
    let mut bad = bytes.clone();
    bad[..8].copy_from_slice(b"EVALDATA");
    std::fs::write(&magic, &bad).unwrap();
    assert_refused(&magic, "not an opening book");
    let version = dir.join("version.book");
    let mut bad = bytes.clone();
    bad[8] = 7;
    std::fs::write(&version, &bad).unwrap();
    assert_refused(&version, "unknown format version: found 7");
    let corrupt = dir.join("corrupt.book");
    let mut bad = bytes.clone();
    let middle = bytes.len() - 20;
    bad[middle] ^= 0x55;
    std::fs::write(&corrupt, &bad).unwrap();
    assert_refused(&corrupt, "checksum mismatch");
    let truncated = dir.join("truncated.book");
    std::fs::write(&truncated, &bytes[..bytes.len() - 9]).unwrap();
    assert_refused(&truncated, "truncated");
    let trailing = dir.join("trailing.book");
    std::fs::write(&trailing, [&bytes[..], b"x"].concat()).unwrap();
    assert_refused(&trailing, "after the checksum");

    // Every cut of the file is refused, by the library as by the commands above.
    for cut in 0..bytes.len() {
        std::fs::write(&truncated, &bytes[..cut]).unwrap();
        let err = Book::<Brazilian>::read(&truncated, ())
            .unwrap_err()
            .to_string();
        assert!(err.contains("truncated.book"), "cut {cut}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The move numbers of the first game of a PDN text.
fn first_game_moves(path: &Path) -> Vec<<Brazilian as Game>::Move> {
    let games = pdn::read_games(&std::fs::read_to_string(path).unwrap()).unwrap();
    games[0].moves.clone()
}

/// The number of plies from the start that follow `book`.
fn plies_in_book(
    book: &Book<Brazilian>,
    start: Brazilian,
    moves: &[<Brazilian as Game>::Move],
) -> usize {
    let mut pos = start;
    let mut plies = 0;
    for &mv in moves {
        match book.probe(&pos) {
            Some(book_moves) if book_moves.iter().any(|m| m.mv == mv) => plies += 1,
            _ => break,
        }
        pos = pos.play(mv);
    }
    plies
}

#[test]
fn play_follows_the_book() {
    let dir = temp_dir("book-play");
    let path = dir.join("b.book");
    build_book(&path, &[]);
    let book = Book::<Brazilian>::read(&path, ()).unwrap();
    let saved = dir.join("game.pdn");
    let out = evalearn_ok(&[
        "play",
        "--side",
        "none",
        "--depth",
        "1",
        "--book",
        s(&path),
        "--pdn",
        s(&saved),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[book, score"), "{text}");
    let moves = first_game_moves(&saved);
    // The engine left the book only where the book had no moves.
    let followed = plies_in_book(&book, Brazilian::start(), &moves);
    assert!(followed >= 2, "{followed}");
    let mut pos = Brazilian::start();
    for &mv in &moves[..followed] {
        pos = pos.play(mv);
    }
    assert!(book.probe(&pos).is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn match_json(dir: &Path, name: &str, extra: &[&str]) -> (serde_json::Value, PathBuf) {
    let json = dir.join(format!("{name}.json"));
    let games = dir.join(format!("{name}.pdn"));
    let mut args = vec![
        "match",
        "--a",
        "material",
        "--b",
        "material",
        "--games",
        "16",
        "--depth",
        "2",
        "--seed",
        "5",
        "--json",
        s(&json),
        "--pdn",
        s(&games),
    ];
    args.extend_from_slice(extra);
    evalearn_ok(&args);
    let value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (value, games)
}

#[test]
fn match_openings_and_a_book_side_do_not_depend_on_threads() {
    let dir = temp_dir("book-match");
    let path = dir.join("b.book");
    build_book(&path, &[]);
    let book = Book::<Brazilian>::read(&path, ()).unwrap();

    // Openings from the book: every game starts at a book line, each twice.
    let extra = ["--book", s(&path), "--book-plies", "2"];
    let (one, pdn_one) = match_json(&dir, "open1", &[&extra[..], &["--threads", "1"]].concat());
    let (two, pdn_two) = match_json(&dir, "open2", &[&extra[..], &["--threads", "2"]].concat());
    assert_eq!(one["pentanomial"], two["pentanomial"]);
    assert_eq!(
        std::fs::read_to_string(&pdn_one).unwrap(),
        std::fs::read_to_string(&pdn_two).unwrap()
    );
    let lines = book.lines(2);
    let games = pdn::read_games(&std::fs::read_to_string(&pdn_one).unwrap()).unwrap();
    assert_eq!(games.len(), 16);
    for pair in games.chunks(2) {
        assert_eq!(pair[0].start, pair[1].start);
        assert!(lines.contains(&pair[0].start));
    }

    // A plays from the book, B does not: A's first moves are book moves, chosen per game.
    let extra = ["--a-book", s(&path), "--random-plies", "0"];
    let (one, pdn_one) = match_json(&dir, "side1", &[&extra[..], &["--threads", "1"]].concat());
    let (two, pdn_two) = match_json(&dir, "side2", &[&extra[..], &["--threads", "2"]].concat());
    assert_eq!(one["pentanomial"], two["pentanomial"]);
    let text = std::fs::read_to_string(&pdn_one).unwrap();
    assert_eq!(text, std::fs::read_to_string(&pdn_two).unwrap());
    assert!(one["a"].as_str().unwrap().contains("book"), "{}", one["a"]);
    let games = pdn::read_games(&text).unwrap();
    let start = Brazilian::start();
    let mut openings = std::collections::HashSet::new();
    for game in games.iter().step_by(2) {
        // A is White in the first game of each pair.
        let first = game.moves[0];
        assert!(book.probe(&start).unwrap().iter().any(|m| m.mv == first));
        openings.insert(first);
    }
    assert!(openings.len() > 1, "{openings:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn selfplay_games_follow_the_book_whatever_the_threads() {
    let dir = temp_dir("book-selfplay");
    let path = dir.join("b.book");
    build_book(&path, &[]);
    let book = Book::<Brazilian>::read(&path, ()).unwrap();
    let run = |name: &str, threads: &str| {
        let out = dir.join(name);
        evalearn_ok(&[
            "selfplay",
            "--eval",
            "material",
            "--games",
            "8",
            "--depth",
            "2",
            "--seed",
            "3",
            "--threads",
            threads,
            "--book",
            s(&path),
            "--out",
            s(&out),
        ]);
        out
    };
    let one = run("one.ds", "1");
    let two = run("two.ds", "2");
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    let data = Dataset::<Brazilian>::read(&one, Some(Brazilian::NAME)).unwrap();
    let start = Brazilian::start();
    let mut first_moves = std::collections::HashSet::new();
    for game in &data.games {
        assert_eq!(game.positions[0], start);
        // Every game plays book moves until it reaches a position the book lacks.
        let followed = plies_in_book(&book, start, &game.moves);
        assert!(
            book.probe(&game.positions[followed]).is_none(),
            "game {} left the book at ply {followed}",
            game.index
        );
        first_moves.insert(game.moves[0]);
    }
    assert!(first_moves.len() > 1, "{first_moves:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn build_from_a_dataset_weighs_its_moves() {
    let dir = temp_dir("book-dataset");
    let data = dir.join("d.ds");
    evalearn_ok(&[
        "selfplay",
        "--eval",
        "material",
        "--games",
        "12",
        "--depth",
        "2",
        "--seed",
        "9",
        "--random-plies",
        "0",
        "--temperature",
        "1",
        "--out",
        s(&data),
    ]);
    let path = dir.join("b.book");
    let report = build_book(&path, &["--dataset", s(&data), "--min-games", "2"]);
    assert!(report.contains("book:"), "{report}");
    let book = Book::<Brazilian>::read(&path, ()).unwrap();
    assert!(book.info().contains("12 games used"), "{}", book.info());
    let games = Dataset::<Brazilian>::read(&data, None).unwrap().games;
    let start = Brazilian::start();
    for m in book.probe(&start).unwrap() {
        let played = games.iter().filter(|g| g.moves[0] == m.mv).count() as u32;
        assert_eq!(m.weight, 1 + played);
    }
    // A dataset of the other game is refused.
    let kalah = dir.join("k.ds");
    evalearn_ok(&[
        "selfplay",
        "--game",
        "kalah",
        "--eval",
        "stores",
        "--games",
        "1",
        "--depth",
        "1",
        "--out",
        s(&kalah),
    ]);
    let out = evalearn(&[
        "book",
        "build",
        "--eval",
        "material",
        "--dataset",
        s(&kalah),
        "--out",
        s(&path),
    ]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_shipped_book_reads_and_opens_the_game() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/brazilian.book");
    let book = Book::<Brazilian>::read(&path, ()).unwrap_or_else(|e| panic!("{e}"));
    assert!(book.info().contains("models/td.bin"), "{}", book.info());
    let start = Brazilian::start();
    let moves = book.probe(&start).unwrap();
    let mut legal = MoveList::new();
    start.legal_moves(&mut legal);
    assert!(!moves.is_empty() && moves.len() <= legal.len());
    assert!(book.len() > 100);
    assert!(std::fs::metadata(&path).unwrap().len() < 1 << 20);
}
