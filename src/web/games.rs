//! The games the page offers, as the registry ([`crate::games::registry`]) lists them: a
//! [`Handle`] per game turns a request for a game chosen at run time into the game's
//! typed code.

use std::marker::PhantomData;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::Config;
use super::api::ApiError;
use super::live::{self, LiveGame, NewGame, WebGame};
use crate::game::{GameEntry, GameSpec, Side, handle_of, owner_of_builtin, parse_game};

/// The games of the page, in order; the first is the default game.
#[derive(Clone)]
pub struct Games {
    list: Vec<&'static dyn GameHandle>,
}

impl Games {
    pub(crate) fn new(list: Vec<&'static dyn GameHandle>) -> Games {
        assert!(!list.is_empty(), "a page offers at least one game");
        Games { list }
    }

    pub(crate) fn parse(&self, text: &str) -> Result<GameSpec, String> {
        parse_game(&self.list, text)
    }

    pub(crate) fn owner_of_builtin(&self, name: &str) -> Option<GameSpec> {
        owner_of_builtin(&self.list, name)
    }

    /// The built-in evaluators of every game, in words (`brazilian: material; kalah: …`).
    pub(crate) fn builtins_in_words(&self) -> String {
        let lists: Vec<String> = self
            .list
            .iter()
            .map(|g| format!("{}: {}", g.name(), g.builtins().join(", ")))
            .collect();
        lists.join("; ")
    }

    pub(crate) fn default_game(&self) -> GameSpec {
        self.list[0]
            .parse_options("")
            .expect("the standard variant parses")
    }

    pub(crate) fn handle(&self, game: &GameSpec) -> &'static dyn GameHandle {
        handle_of(&self.list, game)
    }

    pub(crate) fn list(&self) -> &[&'static dyn GameHandle] {
        &self.list
    }
}

/// A game as the page drives it.
pub(crate) trait GameHandle: GameEntry {
    /// What the page needs to know of the game (names, evaluators, start, board layout).
    fn info(&self) -> Value;
    /// A new live game of `game` (a variant of this handle's game).
    fn new_game(
        &self,
        game: &GameSpec,
        request: &NewGame,
        model: Option<(String, PathBuf)>,
        config: &Config,
    ) -> Result<Box<dyn LiveGame>, ApiError>;
    /// The extension of the game's files, without the dot.
    fn extension(&self) -> &'static str;
    /// Whether the game reads model files of kind `kind`.
    fn reads_kind(&self, kind: &str) -> bool;
    /// The games of a game file's text, to replay.
    fn replay(&self, game: &GameSpec, text: &str) -> Result<Value, String>;
}

/// The handle of game `G`.
pub(crate) struct Handle<G>(PhantomData<fn() -> G>);

impl<G> Handle<G> {
    pub(crate) const NEW: Handle<G> = Handle(PhantomData);
}

impl<G: WebGame> GameEntry for Handle<G> {
    fn name(&self) -> &'static str {
        G::NAME
    }

    fn parse_options(&self, options: &str) -> Result<GameSpec, String> {
        GameSpec::parse_options::<G>(options)
    }

    fn builtins(&self) -> &'static [&'static str] {
        G::BUILTINS
    }
}

impl<G: WebGame> GameHandle for Handle<G> {
    fn info(&self) -> Value {
        json!({
            "name": G::NAME,
            "names": [G::side_name(Side::First), G::side_name(Side::Second)],
            "builtins": G::BUILTINS,
            "score_unit": G::SCORE_UNITS,
            "start": G::start().format_position(),
            "extension": G::FILE_EXTENSION,
            "layout": G::layout(),
        })
    }

    fn new_game(
        &self,
        game: &GameSpec,
        request: &NewGame,
        model: Option<(String, PathBuf)>,
        config: &Config,
    ) -> Result<Box<dyn LiveGame>, ApiError> {
        live::new_game::<G>(game.variant::<G>(), request, model, config)
    }

    fn extension(&self) -> &'static str {
        G::FILE_EXTENSION
    }

    fn reads_kind(&self, kind: &str) -> bool {
        G::MODEL_KINDS.iter().any(|k| k.kind == kind)
    }

    fn replay(&self, game: &GameSpec, text: &str) -> Result<Value, String> {
        super::runs::replay_games::<G>(game.variant::<G>(), text)
    }
}
