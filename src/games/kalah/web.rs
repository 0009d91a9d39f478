//! Kalah in the browser: the pits and stores as the page draws them, a compound move
//! sowing by sowing.

use serde_json::{Value, json};

use super::{Kalah, PITS};
use crate::game::{Game, Side};
use crate::web::{WebGame, side_key};

impl WebGame for Kalah {
    /// `pits[side][i]`: pit i + 1 of the side, counted from its owner's left.
    fn board(&self) -> Value {
        json!({
            "pits": [self.pits(Side::First), self.pits(Side::Second)],
            "stores": [self.store(Side::First), self.store(Side::Second)],
        })
    }

    /// The pits the side to move may sow (a turn that goes on is entered a sowing at a
    /// time, each sent to the server).
    fn legal(&self) -> Value {
        if self.is_over() {
            return json!([]);
        }
        let side = self.side_to_move();
        let pits: Vec<usize> = (1..=PITS)
            .filter(|&pit| self.pit(side, pit as u8) > 0)
            .collect();
        json!(pits)
    }

    /// The sowings of a compound move, each with the board after it, so the page shows
    /// the move sowing by sowing.
    fn move_detail(&self, mv: Self::Move) -> Value {
        json!({ "steps": sowing_steps(self, mv.sowings()) })
    }
}

/// The positions after each of `pits`' sowings from `pos`, as the page draws them; stops
/// at a sowing that is not legal.
fn sowing_steps(pos: &Kalah, pits: impl Iterator<Item = u8>) -> Vec<Value> {
    let mut at = *pos;
    let mut steps = Vec::new();
    for pit in pits {
        let Ok(sowing) = at.sow(pit) else { break };
        steps.push(json!({
            "pit": pit,
            "side": side_key(at.side_to_move()),
            "captured": sowing.captured,
            "board": sowing.position.board(),
        }));
        at = sowing.position;
    }
    steps
}
