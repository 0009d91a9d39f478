//! Which game a command, a config or a model file is about, chosen at run time:
//! `--game brazilian`, `--game kalah`, `--game kalah:6:4:empty-capture` (the game's name,
//! then its rule options, [`Game::parse_variant`]). The list of games a program offers
//! is the registry's ([`crate::games::registry`]); a `GameSpec` names one of them and its
//! variant without knowing its type.

use std::fmt;

use super::Game;

/// A game and its variant: the game's [`Game::NAME`] and the variant's full name
/// ([`Game::variant_name`]), checked when made.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct GameSpec {
    family: &'static str,
    name: String,
}

impl GameSpec {
    /// The spec of `variant` of game `G`.
    pub fn of<G: Game>(variant: G::Variant) -> GameSpec {
        GameSpec {
            family: G::NAME,
            name: G::variant_name(variant),
        }
    }

    /// Reads the options after `NAME:` (empty: the standard variant) for game `G`.
    pub fn parse_options<G: Game>(options: &str) -> Result<GameSpec, String> {
        G::parse_variant(options).map(GameSpec::of::<G>)
    }

    /// The game without its options (`brazilian`, `kalah`).
    pub fn family(&self) -> &'static str {
        self.family
    }

    /// The variant of game `G`, which must be this spec's game.
    pub fn variant<G: Game>(&self) -> G::Variant {
        assert_eq!(
            self.family,
            G::NAME,
            "a {} spec used as {}",
            self.family,
            G::NAME
        );
        G::parse_variant(options_of(&self.name)).expect("a spec holds a valid variant")
    }
}

/// The game's name and the options of a `--game` text (`kalah:6:4` → `kalah`, `6:4`).
pub fn split_game_text(text: &str) -> (&str, &str) {
    let text = text.trim();
    text.split_once(':').unwrap_or((text, ""))
}

fn options_of(name: &str) -> &str {
    split_game_text(name).1
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// One game of a program's list, as the rooms that choose a game at run time see it
/// (the command line's and the web page's handles extend it).
pub trait GameEntry: Sync {
    /// [`Game::NAME`].
    fn name(&self) -> &'static str;
    /// The spec of the variant `options` name (the text after `NAME:`).
    fn parse_options(&self, options: &str) -> Result<GameSpec, String>;
    /// The names of the game's hand-made evaluators, its baseline first.
    fn builtins(&self) -> &'static [&'static str];
}

/// Reads a `--game` text against the games of `list`.
pub fn parse_game<H: GameEntry + ?Sized>(list: &[&H], text: &str) -> Result<GameSpec, String> {
    let (name, options) = split_game_text(text);
    match list.iter().find(|g| g.name() == name) {
        Some(game) => game.parse_options(options),
        None => Err(format!(
            "unknown game '{name}' (games: {})",
            game_names(list).join(", ")
        )),
    }
}

/// The names of the games of `list`.
pub fn game_names<H: GameEntry + ?Sized>(list: &[&H]) -> Vec<&'static str> {
    list.iter().map(|g| g.name()).collect()
}

/// The standard variant of the game of `list` owning the hand-made evaluator `name`.
pub fn owner_of_builtin<H: GameEntry + ?Sized>(list: &[&H], name: &str) -> Option<GameSpec> {
    list.iter()
        .find(|g| g.builtins().contains(&name))
        .map(|g| g.parse_options("").expect("the standard variant parses"))
}

/// The handle of `list` for the game of `spec`, which must be one of them.
pub fn handle_of<'a, H: GameEntry + ?Sized>(list: &[&'a H], spec: &GameSpec) -> &'a H {
    list.iter()
        .find(|g| g.name() == spec.family())
        .copied()
        .expect("specs are made from the list's own games")
}
