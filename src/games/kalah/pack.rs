//! Kalah positions in dataset form (see [`crate::io::dataset`]). A move's file form is
//! its raw `u128` ([`super::KalahMove`]); the default [`crate::game::Game::unpack_move`]
//! finds the legal move with those bits.

use serde::{Deserialize, Serialize};

use super::{A, B, Kalah, KalahRules};
use crate::game::Game;

/// A position in file form: Dubner's `desk[14]`, the side to move and the rules.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PackedKalah {
    pub counts: [u8; 14],
    pub a_to_move: bool,
    pub stones: u8,
    pub empty_capture: bool,
}

impl PackedKalah {
    pub fn pack(pos: &Kalah) -> PackedKalah {
        let rules = pos.rules();
        PackedKalah {
            counts: *pos.counts(),
            a_to_move: pos.side_to_move() == A,
            stones: rules.stones,
            empty_capture: rules.empty_capture,
        }
    }

    /// The position, checked like a position text (the same checks).
    pub fn unpack(&self) -> Result<Kalah, String> {
        let rules = KalahRules {
            stones: self.stones,
            empty_capture: self.empty_capture,
        };
        let side = if self.a_to_move { A } else { B };
        Kalah::from_counts(rules, self.counts, side).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trip_and_checks() {
        let pos = Kalah::parse_position("B:0,0,8,8,8,8,2,1,7,7,7,7,8,1").unwrap();
        let packed = pos.pack();
        assert_eq!(Kalah::unpack(&packed), Ok(pos));
        let bytes = bincode::serde::encode_to_vec(packed, bincode::config::standard()).unwrap();
        let (back, _): (PackedKalah, usize) =
            bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).unwrap();
        assert_eq!(back, packed);

        let mut wrong = packed;
        wrong.counts[0] += 1;
        assert!(
            Kalah::unpack(&wrong)
                .unwrap_err()
                .contains("stones total 73")
        );
        let mut wrong = packed;
        wrong.stones = 0;
        assert!(Kalah::unpack(&wrong).is_err());
        let mut wrong = packed;
        wrong.counts = [255; 14];
        assert!(Kalah::unpack(&wrong).unwrap_err().contains("field 1"));
    }

    #[test]
    fn moves_pack_to_their_bits() {
        let start = Kalah::start();
        let mv = start.parse_move("1,2").unwrap();
        let packed = start.pack_move(mv);
        assert_eq!(packed, mv.0);
        assert_eq!(start.unpack_move(&packed), Ok(mv));
        assert!(start.unpack_move(&(mv.0 | 1 << 6)).is_err());
        let bytes = bincode::serde::encode_to_vec(packed, bincode::config::standard()).unwrap();
        let (back, _): (u128, usize) =
            bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).unwrap();
        assert_eq!(back, packed);
    }
}
