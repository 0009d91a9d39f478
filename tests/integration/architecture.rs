//! The house rules of docs/architecture.md, checked on the source: arrows between rooms
//! point down only, no room but a game's own folder and the registry names a game, no
//! file over 800 lines of non-test code, no function over 120 lines.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The rooms from the ground floor up: a room may use only rooms below it. The games'
/// folders share a floor (and never use each other); the registry is above them.
const FLOORS: [&[&str]; 14] = [
    &["rng"],
    &["game"],
    &["io"],
    &["eval"],
    &["search"],
    &["arena"],
    &["book"],
    &["selfplay"],
    &["accuracy"],
    &["learn"],
    &["web"],
    &["cli"],
    &["game::*"],
    &["game::registry"],
];

const MAX_FILE_LINES: usize = 800;
const MAX_FUNCTION_LINES: usize = 120;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The games: the folders of `src/game/`.
fn games() -> Vec<String> {
    let mut games: Vec<String> = std::fs::read_dir(src().join("game"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    games.sort();
    games
}

/// The room of a file (`search`, `game`, `game::kalah`, `game::registry`), or none for
/// the crate root and the binary.
fn room_of(path: &Path, games: &[String]) -> Option<String> {
    let relative = path.strip_prefix(src()).unwrap();
    let parts: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    match parts[0].as_str() {
        "lib" | "main" => None,
        "game" if parts.len() > 1 && (games.contains(&parts[1]) || parts[1] == "registry") => {
            Some(format!("game::{}", parts[1]))
        }
        room => Some(room.to_string()),
    }
}

/// The room a `crate::` path leads to.
fn room_of_path(path: &str, games: &[String]) -> String {
    let parts: Vec<&str> = path.split("::").collect();
    match parts[0] {
        "with_game" => "game::registry".to_string(),
        "game"
            if parts.len() > 1
                && (games.iter().any(|g| g == parts[1]) || parts[1] == "registry") =>
        {
            format!("game::{}", parts[1])
        }
        "game" => "game".to_string(),
        room => room.to_string(),
    }
}

fn floor(room: &str) -> Option<usize> {
    FLOORS.iter().position(|rooms| {
        rooms.iter().any(|r| {
            *r == room
                || (*r == "game::*" && room.starts_with("game::") && room != "game::registry")
        })
    })
}

/// The lines of a file outside its test module, comments removed, with their numbers.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let next = lines.get(i + 1).map_or("", |l| l.trim_start());
        if line.trim() == "#[cfg(test)]" && next.starts_with("mod ") && !next.ends_with(';') {
            let indent = line.len() - line.trim_start().len();
            let close = format!("{}}}", " ".repeat(indent));
            i += 2;
            while i < lines.len() && lines[i] != close {
                i += 1;
            }
            i += 1;
            continue;
        }
        let trimmed = line.trim_start();
        let without_comment = if trimmed.starts_with("//") {
            ""
        } else {
            line.split(" //").next().unwrap_or("")
        };
        code.push((i + 1, without_comment.to_string()));
        i += 1;
    }
    code
}

/// The `crate::` (and `$crate::`) paths of a line, two segments each.
fn crate_paths(line: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let path: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let two: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).take(2).collect();
        if !two.is_empty() {
            paths.push(two.join("::"));
        }
        rest = after;
    }
    paths
}

/// Whether `line` names one of the games (`kalah`, `Kalah`, `KalahRules`, `brazilian`).
fn names_a_game(line: &str, games: &[String]) -> bool {
    let words = line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    words.filter(|w| !w.is_empty()).any(|word| {
        let lower = word.to_lowercase();
        games
            .iter()
            .any(|g| lower == *g || lower.starts_with(g) && word.starts_with(char::is_uppercase))
    })
}

/// The functions of a file (rustfmt's layout: a body ends at the closing brace at the
/// signature's indentation) longer than `max` lines, with their first line.
fn long_functions(text: &str, max: usize) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let signature = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "pub(super) fn ",
            "const fn ",
            "pub const fn ",
        ]
        .iter()
        .any(|p| trimmed.starts_with(p));
        if !signature || line.trim_end().ends_with(';') {
            continue;
        }
        let indent = &line[..line.len() - trimmed.len()];
        let close = format!("{indent}}}");
        let Some(end) = (i..lines.len()).find(|&j| lines[j] == close) else {
            continue;
        };
        if end - i + 1 > max {
            let name: String = trimmed
                .split("fn ")
                .nth(1)
                .unwrap_or("")
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            long.push((i + 1, name, end - i + 1));
        }
    }
    long
}

#[test]
fn arrows_point_down_no_generic_room_names_a_game_and_nothing_is_too_long() {
    let games = games();
    assert!(games.len() >= 2, "{games:?}");
    let mut files = Vec::new();
    sources(&src(), &mut files);
    files.sort();
    let mut problems = BTreeSet::new();
    for file in &files {
        let Some(room) = room_of(file, &games) else {
            continue;
        };
        let name = file.strip_prefix(src()).unwrap().display().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        // A test module in a file of its own is a test module.
        if file.file_name().is_some_and(|f| f == "tests.rs") {
            continue;
        }
        let code = code_lines(&text);
        if code.len() > MAX_FILE_LINES {
            problems.insert(format!("{name}: {} lines of non-test code", code.len()));
        }
        let in_a_game = room.starts_with("game::");
        for (number, line) in &code {
            for path in crate_paths(line) {
                let target = room_of_path(&path, &games);
                if target == room {
                    continue;
                }
                match (floor(&room), floor(&target)) {
                    (Some(from), Some(to)) if to < from => {}
                    (Some(_), Some(_)) => {
                        problems.insert(format!(
                            "{name}:{number}: {room} uses {target}, a room on its floor or above"
                        ));
                    }
                    _ => {
                        problems.insert(format!(
                            "{name}:{number}: {room} → {target}: a room the floors do not list"
                        ));
                    }
                }
            }
            let declares_a_game = room == "game" && line.trim_start().starts_with("pub mod ");
            if !in_a_game && !declares_a_game && names_a_game(line, &games) {
                problems.insert(format!("{name}:{number}: names a game: {}", line.trim()));
            }
        }
        let test_free: String = code.iter().map(|(_, l)| format!("{l}\n")).collect();
        for (number, function, length) in long_functions(&test_free, MAX_FUNCTION_LINES) {
            problems.insert(format!("{name}:{number}: fn {function} has {length} lines"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_checks_catch_what_they_check() {
    let games = vec!["brazilian".to_string(), "kalah".to_string()];
    assert!(names_a_game("let rules = KalahRules::default();", &games));
    assert!(names_a_game(
        "use crate::game::brazilian::Brazilian;",
        &games
    ));
    assert!(!names_a_game("let game = G::NAME; // a game", &games));
    assert_eq!(
        crate_paths("use crate::search::{Limits}; crate::game::kalah::X"),
        ["search", "game::kalah"]
    );
    assert_eq!(room_of_path("game::kalah", &games), "game::kalah");
    assert_eq!(room_of_path("game::Game", &games), "game");
    assert!(floor("search") < floor("arena") && floor("cli") < floor("game::kalah"));
    assert!(floor("game::kalah") < floor("game::registry"));
    let text = "fn a() {\n    x;\n}\n#[cfg(test)]\nmod tests {\n    fn b() {}\n}\n";
    assert_eq!(code_lines(text).len(), 3);
    let long: String = format!("fn f() {{\n{}}}\n", "    x;\n".repeat(130));
    assert_eq!(long_functions(&long, 120), [(1, "f".to_string(), 132)]);
}
