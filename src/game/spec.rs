//! Which game a command, a config or a model file is about: `--game brazilian`,
//! `--game kalah`, `--game kalah:6:4:empty-capture` (the game's name, then its rule
//! options, [`Game::parse_variant`]).

use std::fmt;

use super::Game;
use super::checkers::Checkers;
use crate::eval::EvalGame;

/// A game and its variant.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum GameSpec {
    #[default]
    Brazilian,
}

/// The names `--game` accepts before any options.
pub const GAME_NAMES: [&str; 1] = [Checkers::NAME];

impl GameSpec {
    /// Reads `NAME` or `NAME:options`.
    pub fn parse(text: &str) -> Result<GameSpec, String> {
        let text = text.trim();
        let (name, options) = text.split_once(':').unwrap_or((text, ""));
        match name {
            Checkers::NAME => Checkers::parse_variant(options).map(|()| GameSpec::Brazilian),
            _ => Err(format!(
                "unknown game '{name}' (games: {})",
                GAME_NAMES.join(", ")
            )),
        }
    }

    /// The game without its options (`brazilian`, `kalah`).
    pub fn family(self) -> &'static str {
        match self {
            GameSpec::Brazilian => Checkers::NAME,
        }
    }

    /// The standard variant of the game owning the hand-made evaluator `name`.
    pub fn owner_of_builtin(name: &str) -> Option<GameSpec> {
        if Checkers::builtin(name).is_some() {
            return Some(GameSpec::Brazilian);
        }
        None
    }
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GameSpec::Brazilian => f.write_str(&Checkers::variant_name(())),
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
                $f::<$crate::game::checkers::Checkers>((), $($arg),*)
            }
        }
    };
}
