//! Perft from data files: `tests/data/perft.txt` holds positions and their published or
//! independently checked node counts.

use evalearn::game::Game;
use evalearn::game::perft::perft;
use evalearn::games::brazilian::Brazilian;

struct Case {
    id: String,
    fen: String,
    counts: Vec<(u32, u64)>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("../data/perft.txt");
    let mut cases: Vec<Case> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "id" => cases.push(Case {
                id: value.to_string(),
                fen: String::new(),
                counts: Vec::new(),
            }),
            "fen" => cases.last_mut().expect("id first").fen = value.to_string(),
            "perft" => {
                let (depth, nodes) = value.split_once(' ').expect("perft DEPTH NODES");
                cases
                    .last_mut()
                    .expect("id first")
                    .counts
                    .push((depth.parse().expect("depth"), nodes.parse().expect("nodes")));
            }
            _ => panic!("tests/data/perft.txt line {}: unknown key {key}", n + 1),
        }
    }
    cases
}

#[test]
fn perft_cases_from_data_file() {
    let cases = cases();
    assert!(!cases.is_empty());
    for case in cases {
        let pos = Brazilian::parse_position(&case.fen)
            .unwrap_or_else(|e| panic!("{}: bad FEN: {e}", case.id));
        for &(depth, expected) in &case.counts {
            assert_eq!(perft(&pos, depth), expected, "{} perft {depth}", case.id);
        }
    }
}

/// Depth 11 from the start (105,491,257 leaves) takes under a second in release builds.
#[test]
fn perft_11_from_the_start() {
    assert_eq!(perft(&Brazilian::start(), 11), 105_491_257);
}

#[test]
fn divide_sums_to_perft() {
    let start = Brazilian::start();
    let parts = evalearn::game::perft::divide(&start, 6);
    assert_eq!(parts.len(), 7);
    assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), 37_628);
}
