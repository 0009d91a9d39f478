//! Which game a command, a config or a model file is about: `--game brazilian`,
//! `--game kalah`, `--game kalah:6:4:empty-capture` (the game's name, then its rule
//! options, [`Game::parse_variant`]).

use std::fmt;

use super::Game;
use super::brazilian::Brazilian;
use super::kalah::{Kalah, KalahRules};
use crate::eval::EvalGame;

/// A game and its variant.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum GameSpec {
    #[default]
    Brazilian,
    Kalah(KalahRules),
}

/// The names `--game` accepts before any options.
pub const GAME_NAMES: [&str; 2] = [Brazilian::NAME, Kalah::NAME];

impl GameSpec {
    /// Reads `NAME` or `NAME:options`.
    pub fn parse(text: &str) -> Result<GameSpec, String> {
        let text = text.trim();
        let (name, options) = text.split_once(':').unwrap_or((text, ""));
        match name {
            Brazilian::NAME => Brazilian::parse_variant(options).map(|()| GameSpec::Brazilian),
            Kalah::NAME => Kalah::parse_variant(options).map(GameSpec::Kalah),
            _ => Err(format!(
                "unknown game '{name}' (games: {})",
                GAME_NAMES.join(", ")
            )),
        }
    }

    /// The game without its options (`brazilian`, `kalah`).
    pub fn family(self) -> &'static str {
        match self {
            GameSpec::Brazilian => Brazilian::NAME,
            GameSpec::Kalah(_) => Kalah::NAME,
        }
    }

    /// The standard variant of the game owning the hand-made evaluator `name`.
    pub fn owner_of_builtin(name: &str) -> Option<GameSpec> {
        if Brazilian::builtin(name).is_some() {
            return Some(GameSpec::Brazilian);
        }
        if Kalah::builtin(name).is_some() {
            return Some(GameSpec::Kalah(KalahRules::default()));
        }
        None
    }
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GameSpec::Brazilian => f.write_str(&Brazilian::variant_name(())),
            GameSpec::Kalah(rules) => f.write_str(&Kalah::variant_name(rules)),
        }
    }
}

/// Calls the generic function `f::<G>(variant, args…)` for the game of `spec`: one line
/// per game, so every command is written once, generic over the game.
#[macro_export]
macro_rules! with_game {
    ($spec:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        match $spec {
            $crate::game::GameSpec::Brazilian => {
                $f::<$crate::game::brazilian::Brazilian>((), $($arg),*)
            }
            $crate::game::GameSpec::Kalah(rules) => {
                $f::<$crate::game::kalah::Kalah>(rules, $($arg),*)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_errors_name_the_field() {
        for text in ["brazilian", "kalah", "kalah:6:4", "kalah:6:6:empty-capture"] {
            assert_eq!(GameSpec::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(GameSpec::parse("kalah:6:6").unwrap().to_string(), "kalah");
        assert_eq!(
            GameSpec::parse("kalah:6:4").unwrap(),
            GameSpec::Kalah(KalahRules {
                stones: 4,
                empty_capture: false
            })
        );
        assert!(
            GameSpec::parse("chess")
                .unwrap_err()
                .contains("unknown game")
        );
        assert!(GameSpec::parse("kalah:5:4").unwrap_err().contains("pits"));
        assert!(GameSpec::parse("brazilian:8").is_err());
        assert_eq!(
            GameSpec::owner_of_builtin("stores").map(GameSpec::family),
            Some("kalah")
        );
        assert_eq!(
            GameSpec::owner_of_builtin("material"),
            Some(GameSpec::Brazilian)
        );
        assert_eq!(GameSpec::owner_of_builtin("models/x.bin"), None);
    }
}
