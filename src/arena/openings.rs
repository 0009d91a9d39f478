//! Where engine games start: positions after a few random plies (each distinct), or
//! positions read from a file (a position per line, or the final positions of the games of
//! a game file: `.pdn` for draughts, `.klh` for Kalah).

use std::collections::HashSet;
use std::path::Path;

use crate::game::{Game, GameFile, random_plies};
use crate::rng;

/// Tries per opening before giving up on finding a new distinct position.
const ATTEMPTS: u64 = 1000;
/// Keeps opening streams apart from the game streams of the same seed.
const STREAM_DOMAIN: u64 = 0x6F70_656E_696E_6773;

/// `count` openings made of `plies` uniformly random legal plies from the start, all
/// different (a repeat is drawn again). Opening `i` comes from its own random stream, so
/// the list does not depend on threads, and a longer list starts with a shorter one.
/// With `plies` = 0 every opening is the start position.
pub fn random_openings<G: Game>(
    start: G,
    count: usize,
    plies: u32,
    seed: u64,
) -> Result<Vec<G>, String> {
    let openings = random_openings_up_to(start, count, plies, seed);
    if openings.len() < count {
        return Err(format!(
            "found only {} different positions after {plies} random plies; \
             use more random plies or an openings file",
            openings.len()
        ));
    }
    Ok(openings)
}

/// Like [`random_openings`], but stops early, with fewer openings, when no new distinct
/// position turns up (few random plies have few positions).
pub fn random_openings_up_to<G: Game>(start: G, count: usize, plies: u32, seed: u64) -> Vec<G> {
    if plies == 0 {
        return vec![start; count];
    }
    let mut moves = G::Moves::default();
    let mut seen = HashSet::with_capacity(count);
    let mut openings = Vec::with_capacity(count);
    for i in 0..count as u64 {
        let found = (0..ATTEMPTS).find_map(|attempt| {
            let mut rng = rng::stream(seed ^ STREAM_DOMAIN, i + (attempt << 40));
            random_plies(start, plies, &mut rng, &mut moves)
                .filter(|pos| pos.has_legal_move() && !seen.contains(pos))
        });
        let Some(pos) = found else {
            break;
        };
        seen.insert(pos);
        openings.push(pos);
    }
    openings
}

/// Largest file of positions a line read by [`read_position_lines`].
pub const MAX_LINES_FILE_BYTES: usize = 16 << 20;

/// Reads openings from `path`: a game file of the game's own format (the final
/// position of each game; PDN for draughts) when its extension is the game's, otherwise
/// a position per line (blank lines and `#` comments skipped). Finished positions (no
/// legal move) are rejected.
pub fn read_openings<G: GameFile>(variant: G::Variant, path: &Path) -> Result<Vec<G>, String> {
    let name = path.display();
    let text = read_capped(path, G::MAX_FILE_BYTES)?;
    let is_game_file = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(G::FILE_EXTENSION));
    if !is_game_file {
        return positions_of_lines(variant, &text, path);
    }
    let games = G::read_games(variant, &text).map_err(|e| format!("openings file {name}: {e}"))?;
    let mut openings = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let pos = *game.record().position();
        if !pos.has_legal_move() {
            return Err(format!(
                "openings file {name}: game {} ends the game",
                i + 1
            ));
        }
        openings.push(pos);
    }
    non_empty(openings, path)
}

/// Reads openings from `path`, a position per line in the game's text (blank lines and
/// `#` comments skipped), for a game without files of its own.
pub fn read_position_lines<G: Game>(variant: G::Variant, path: &Path) -> Result<Vec<G>, String> {
    let text = read_capped(path, MAX_LINES_FILE_BYTES)?;
    positions_of_lines(variant, &text, path)
}

fn read_capped(path: &Path, max: usize) -> Result<String, String> {
    let name = path.display();
    let size = std::fs::metadata(path)
        .map_err(|e| format!("openings file {name}: {e}"))?
        .len();
    if size > max as u64 {
        return Err(format!("openings file {name}: larger than {max} bytes"));
    }
    std::fs::read_to_string(path).map_err(|e| format!("openings file {name}: {e}"))
}

fn positions_of_lines<G: Game>(
    variant: G::Variant,
    text: &str,
    path: &Path,
) -> Result<Vec<G>, String> {
    let name = path.display();
    let mut openings = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let pos = G::parse_position_of(variant, line)
            .map_err(|e| format!("openings file {name}, line {}: {e}", n + 1))?;
        if !pos.has_legal_move() {
            return Err(format!(
                "openings file {name}, line {}: the side to move has no move",
                n + 1
            ));
        }
        openings.push(pos);
    }
    non_empty(openings, path)
}

fn non_empty<G>(openings: Vec<G>, path: &Path) -> Result<Vec<G>, String> {
    if openings.is_empty() {
        return Err(format!(
            "openings file {}: no position in it",
            path.display()
        ));
    }
    Ok(openings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::brazilian::Brazilian;

    fn random_openings(count: usize, plies: u32, seed: u64) -> Result<Vec<Brazilian>, String> {
        super::random_openings(Brazilian::start(), count, plies, seed)
    }

    #[test]
    fn random_openings_are_distinct_reproducible_and_prefix_stable() {
        let a = random_openings(100, 4, 9).unwrap();
        let distinct: HashSet<_> = a.iter().collect();
        assert_eq!(distinct.len(), 100);
        assert_eq!(a, random_openings(100, 4, 9).unwrap());
        assert_eq!(&random_openings(40, 4, 9).unwrap()[..], &a[..40]);
        assert_ne!(a, random_openings(100, 4, 10).unwrap());
        // Seven first moves only: asking for more distinct one-ply openings fails clearly.
        assert_eq!(random_openings(7, 1, 1).unwrap().len(), 7);
        assert!(
            random_openings(8, 1, 1)
                .unwrap_err()
                .contains("found only 7")
        );
        assert_eq!(
            random_openings(3, 0, 1).unwrap(),
            vec![Brazilian::start(); 3]
        );
    }
}
