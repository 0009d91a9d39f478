//! The house rules of docs/architecture.md, checked on the source, by folder: arrows
//! between rooms point down only; the games (the folders of `src/games/`) stand above
//! the command line and the registry on top; no file outside `src/games/` names a game
//! or uses a game's file; no file over 800 lines of non-test code, no function over 120
//! lines.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The rooms from the ground floor up: a room may use only rooms below it. Every folder
/// of `src/games/` is a game, and the games share a floor (they never use each other);
/// the registry is above them.
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
    &["games::*"],
    &["games::registry"],
];

/// The folder of the games, under `src/`.
const GAMES: &str = "games";

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

/// The games: the folders of `src/games/`.
fn games() -> Vec<String> {
    let mut games: Vec<String> = std::fs::read_dir(src().join(GAMES))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    games.sort();
    games
}

/// Whether the file at `name` (relative to `src/`, `/`-separated) is of the games'
/// folder: a game's file, the registry or the module declaring them.
fn in_games(name: &str) -> bool {
    name.starts_with(&format!("{GAMES}/"))
}

/// The room of the file at `name`, relative to `src/` (`search/mod.rs` → `search`,
/// `games/kalah/sowing.rs` → `games::kalah`, `games/registry.rs` → `games::registry`,
/// `games/mod.rs` → `games`), or none for the crate root and the binary.
fn room_of(name: &str) -> Option<String> {
    let parts: Vec<&str> = name.trim_end_matches(".rs").split('/').collect();
    match parts.as_slice() {
        ["lib" | "main"] => None,
        [GAMES, "mod"] => Some(GAMES.to_string()),
        [GAMES, inside, ..] => Some(format!("{GAMES}::{inside}")),
        [room, ..] => Some(room.to_string()),
        [] => None,
    }
}

/// The room a `crate::` path leads to (`games::kalah`, `games` for `crate::games::{…}`,
/// `search`).
fn room_of_path(path: &str) -> String {
    let parts: Vec<&str> = path.split("::").collect();
    match parts.as_slice() {
        [GAMES, inside, ..] => format!("{GAMES}::{inside}"),
        [room, ..] => room.to_string(),
        [] => String::new(),
    }
}

fn floor(room: &str) -> Option<usize> {
    let registry = format!("{GAMES}::registry");
    FLOORS.iter().position(|rooms| {
        rooms.iter().any(|r| {
            *r == room
                || (*r == "games::*" && room.starts_with(&format!("{GAMES}::")) && room != registry)
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

/// What breaks the rules in the file at `name` (relative to `src/`, `/`-separated) whose
/// text is `text`, `games` being the games' names.
fn problems_of(name: &str, text: &str, games: &[String]) -> Vec<String> {
    let Some(room) = room_of(name) else {
        return Vec::new();
    };
    // A test module in a file of its own is a test module.
    if name.ends_with("/tests.rs") {
        return Vec::new();
    }
    let mut problems = Vec::new();
    let code = code_lines(text);
    if code.len() > MAX_FILE_LINES {
        problems.push(format!("{name}: {} lines of non-test code", code.len()));
    }
    let of_the_games = in_games(name);
    for (number, line) in &code {
        for path in crate_paths(line) {
            let target = room_of_path(&path);
            if target == room {
                continue;
            }
            // Whatever the floors say: a game's file is used only by the games' folder.
            if !of_the_games && (target == GAMES || target.starts_with(&format!("{GAMES}::"))) {
                problems.push(format!(
                    "{name}:{number}: {room} uses {target}, of the games' folder (src/{GAMES}/)"
                ));
                continue;
            }
            match (floor(&room), floor(&target)) {
                (Some(from), Some(to)) if to < from => {}
                (Some(_), Some(_)) => problems.push(format!(
                    "{name}:{number}: {room} uses {target}, a room on its floor or above"
                )),
                _ => problems.push(format!(
                    "{name}:{number}: {room} → {target}: a room the floors do not list"
                )),
            }
        }
        if !of_the_games && names_a_game(line, games) {
            problems.push(format!("{name}:{number}: names a game: {}", line.trim()));
        }
    }
    let test_free: String = code.iter().map(|(_, l)| format!("{l}\n")).collect();
    for (number, function, length) in long_functions(&test_free, MAX_FUNCTION_LINES) {
        problems.push(format!("{name}:{number}: fn {function} has {length} lines"));
    }
    problems
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
        let relative = file.strip_prefix(src()).unwrap();
        let name: Vec<String> = relative
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let text = std::fs::read_to_string(file).unwrap();
        problems.extend(problems_of(&name.join("/"), &text, &games));
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
    let problems = |name: &str, text: &str| problems_of(name, text, &games);
    let fires = |name: &str, text: &str, what: &str| {
        let found = problems(name, text);
        assert!(found.iter().any(|p| p.contains(what)), "{name}: {found:?}");
    };
    assert!(names_a_game("let rules = KalahRules::default();", &games));
    assert!(names_a_game(
        "use crate::games::brazilian::Brazilian;",
        &games
    ));
    assert!(!names_a_game("let game = G::NAME; // a game", &games));
    assert!(!names_a_game("use crate::game::Game; games()", &games));
    assert_eq!(
        crate_paths("use crate::search::{Limits}; crate::games::kalah::X"),
        ["search", "games::kalah"]
    );
    assert_eq!(room_of("games/kalah/solve/db.rs").unwrap(), "games::kalah");
    assert_eq!(room_of("games/registry.rs").unwrap(), "games::registry");
    assert_eq!(room_of("game/spec.rs").unwrap(), "game");
    assert_eq!(room_of("main.rs"), None);
    assert_eq!(room_of_path("games::kalah"), "games::kalah");
    assert_eq!(room_of_path("game::Game"), "game");
    assert!(floor("search") < floor("arena") && floor("cli") < floor("games::kalah"));
    assert!(floor("games::kalah") < floor("games::registry"));
    assert_eq!(floor("games::kalah"), floor("games::brazilian"));

    // Arrows point down: a room using one above it, or one on its floor.
    fires(
        "search/mod.rs",
        "use crate::arena::Match;",
        "on its floor or above",
    );
    assert!(problems("cli/mod.rs", "use crate::web::Games;").is_empty());
    fires(
        "web/mod.rs",
        "use crate::cli::CliError;",
        "on its floor or above",
    );
    fires(
        "games/kalah/mod.rs",
        "use crate::games::brazilian::Brazilian;",
        "on its floor",
    );
    fires(
        "games/brazilian/hub/mod.rs",
        "use crate::games::registry::GAMES;",
        "or above",
    );
    fires(
        "search/mod.rs",
        "use crate::nowhere::X;",
        "the floors do not list",
    );
    // No file outside the games' folder names a game, the foundation included.
    fires("game/spec.rs", "let pos = Kalah::start();", "names a game");
    fires(
        "learn/train.rs",
        "if name == \"brazilian\" {",
        "names a game",
    );
    // No room below the games uses a game's file, the command line and the foundation
    // included, nor the registry, nor the folder as a whole.
    fires(
        "cli/games.rs",
        "use crate::games::kalah::Kalah;",
        "of the games' folder",
    );
    fires(
        "game/spec.rs",
        "use crate::games::registry::GAMES;",
        "of the games' folder",
    );
    fires(
        "search/mod.rs",
        "use crate::games::{self};",
        "of the games' folder",
    );
    // What the games' folder may do: name its games, use the rooms below and (the
    // registry) the games; the crate root and the binary are outside the rules.
    let registry = "use super::kalah::{self, Kalah};\nuse crate::games::brazilian::Brazilian;\n\
                    use crate::cli::{CliError, Games};\n";
    assert_eq!(
        problems("games/registry.rs", registry),
        Vec::<String>::new()
    );
    let game = "use crate::cli::CliError;\nuse crate::game::Game;\npub struct Kalah;\n";
    assert_eq!(problems("games/kalah/mod.rs", game), Vec::<String>::new());
    assert_eq!(
        problems("games/mod.rs", "pub mod kalah;\n"),
        Vec::<String>::new()
    );
    assert!(problems("main.rs", "evalearn::games::registry::GAMES").is_empty());
    // The library's code, not its unit tests: a test module may take a real game.
    let tested = "fn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::games::kalah::Kalah;\n}\n";
    assert_eq!(problems("game/record.rs", tested), Vec::<String>::new());
    assert!(problems("search/tests.rs", "use crate::games::kalah::Kalah;").is_empty());

    // Lengths: the test module does not count; a file or a function too long does.
    let text = "fn a() {\n    x;\n}\n#[cfg(test)]\nmod tests {\n    fn b() {}\n}\n";
    assert_eq!(code_lines(text).len(), 3);
    let long: String = format!("fn f() {{\n{}}}\n", "    x;\n".repeat(130));
    assert_eq!(long_functions(&long, 120), [(1, "f".to_string(), 132)]);
    fires("search/mod.rs", &long, "fn f has 132 lines");
    fires(
        "search/mod.rs",
        &"const X: u8 = 0;\n".repeat(801),
        "801 lines of non-test code",
    );
}
