//! The hand-made evaluator of Brazilian draughts: material, as in Beling's master's thesis
//! (listing 6.2): a man counts 1, a king 3.

use crate::eval::Evaluator;
use crate::game::Game;
use crate::games::brazilian::Brazilian;

/// Material balance for the side to move: man 100, king 300 (the thesis's 1 and 3, in
/// centi-units), so the value lies in [−3600, 3600].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Material;

/// Centi-units of a man and a king.
pub const MAN: i32 = 100;
pub const KING: i32 = 300;

impl Evaluator<Brazilian> for Material {
    #[inline(always)]
    fn evaluate(&self, pos: &Brazilian) -> i32 {
        let side = pos.side_to_move();
        let (men, kings) = pos.count(side);
        let (their_men, their_kings) = pos.count(side.opponent());
        MAN * (men as i32 - their_men as i32) + KING * (kings as i32 - their_kings as i32)
    }

    fn name(&self) -> String {
        "material".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_men_one_and_kings_three_for_the_side_to_move() {
        let pos = Brazilian::parse_position("W:W21,22,K30:B1,K2").unwrap();
        assert_eq!(Material.evaluate(&pos), 2 * MAN + KING - MAN - KING);
        let pos = Brazilian::parse_position("B:W21,22,K30:B1,K2").unwrap();
        assert_eq!(Material.evaluate(&pos), -(2 * MAN + KING - MAN - KING));
        assert_eq!(Material.evaluate(&Brazilian::start()), 0);
    }
}
