//! The Brazilian draughts bench: the positions `evalearn bench` searches (its node count
//! at depth 14 is the engine's signature).

use super::Brazilian;
use crate::search::bench::Bench;

impl Bench for Brazilian {
    const BENCH_POSITIONS: &'static [&'static str] = &POSITIONS;
    const BENCH_DEPTH: u32 = 14;
}

/// The draughts bench: the start position, 12 openings and 12 middlegames from engine
/// games (material evaluator, depth 6, random first plies), and 10 endings with kings.
pub const POSITIONS: [&str; 35] = [
    "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", // start
    "W:W13,19,21,22,24,26,27,29,30,31,32:B1,2,3,5,6,7,8,9,12,15,17",      // opening
    "B:W17,19,21,22,24,25,26,27,29,31:B1,3,4,5,7,9,10,11,12,13",          // opening
    "W:W18,20,21,22,23,25,28,29,30,31,32:B3,4,5,6,7,8,9,11,12,13,14",     // opening
    "B:W18,25,26,27,28,29,30,31,32:B1,3,4,5,6,7,8,9,20",                  // opening
    "W:W18,21,24,25,26,28,29,30,32:B1,2,3,5,6,7,8,10,11,12,13",           // opening
    "B:W13,17,18,20,25,28,29,30,31,32:B1,2,3,4,5,6,8,11,12,19",           // opening
    "W:W19,21,22,23,24,25,26,27,29,30,32:B1,2,3,5,6,7,8,11,12,13,17,20",  // opening
    "B:W9,12,17,20,21,22,25,28,29,30,31,32:B2,3,4,5,6,8,10,11,13,15",     // opening
    "W:W12,21,25,27,28,29,30,31,32:B1,2,3,4,5,6,9,14",                    // opening
    "B:W18,19,22,23,24,25,29,30,31,32:B1,2,4,5,8,9,10,11,12,13,21",       // opening
    "W:W15,21,23,25,27,28,29,30,31,32:B2,3,4,5,7,8,9,12,13,14",           // opening
    "B:W10,19,21,22,27,28,29,30,31,32:B1,2,3,4,5,6,8,9,18",               // opening
    "W:W13,17,19,20,21,29,30,32:B5,6,8,9,10,12,15",                       // middlegame
    "W:W13,17,20,21,24,25,29,31:B1,5,6,7,9,10,11,12,15",                  // middlegame
    "B:W13,15,16,19,21,29,30,31:B1,5,6,8,9,10,12",                        // middlegame
    "W:W10,15,22,24,26,29,32:B1,5,9,11,12,13,16",                         // middlegame
    "W:W13,17,18,21,23,24,29,30:B1,5,6,9,10,11,14,16",                    // middlegame
    "B:W13,19,20,21,25,29,30,32:B1,5,6,9,12,16",                          // middlegame
    "B:W15,18,19,22,25,29,30,31:B4,5,6,7,8,11,12,13,21",                  // middlegame
    "B:W13,17,18,21,23,25:B1,5,6,7,9,10,14,16",                           // middlegame
    "W:W13,14,18,20,21,23,25,30:B1,5,6,7,9,11,12,19",                     // middlegame
    "B:W13,17,19,21,24,29,30,32:B1,5,6,9,10,12,14",                       // middlegame
    "B:W12,13,21,23,24,25,26,27,29:B1,3,5,6,9,10,14,20",                  // middlegame
    "W:W19,20,21,22,25,26,29:B1,5,9,10,12,13,14,15",                      // middlegame
    "W:WK5,29:B22,K30",                                                   // ending
    "W:WK13,25:BK32",                                                     // ending
    "B:WK2,21,29:B5,14,K31",                                              // ending
    "B:WK1,K3,27,29:B15,22",                                              // ending
    "B:WK2,21:B5,K29",                                                    // ending
    "B:WK2,14,20,21,22,30:B5,27,K32",                                     // ending
    "W:WK2,9,20:B12,K29",                                                 // ending
    "W:WK20:BK29",                                                        // ending
    "W:WK4,13,21:B1,19,K30",                                              // ending
    "B:WK2,17,21,29,32:B11,23,28,K30",                                    // ending
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::brazilian::Material;
    use crate::search::bench::run;

    #[test]
    fn bench_positions_are_legal_and_varied() {
        let mut with_kings = 0;
        for fen in POSITIONS {
            let pos = Brazilian::parse_position(fen).unwrap();
            assert!(pos.has_legal_move(), "{fen}");
            with_kings += usize::from(pos.king_bits() != 0);
        }
        assert!(with_kings >= 10);
    }

    #[test]
    fn bench_signature_is_stable() {
        let a = run::<Brazilian, _>(Material, 8, 4, 1, |_, _, _| {});
        let b = run::<Brazilian, _>(Material, 8, 4, 1, |_, _, _| {});
        assert_eq!(a.nodes, b.nodes);
        assert!(a.nodes.main > 0 && a.nodes.quiescence > 0);
    }
}
