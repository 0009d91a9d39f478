//! One live game as the page plays it: the record, who plays which side, the engine
//! (evaluator, level, searcher) and the model it watches for new revisions; its state as
//! JSON; moves from the page; the engine's searches as jobs for a blocking thread. What
//! differs between the games (the board, the legal moves as the page clicks them, a
//! move's details) is [`WebGame`].

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use super::api::ApiError;
use super::{Config, Games};
use crate::arena::human::{HumanSide, game_tags};
use crate::eval::EvalGame;
use crate::eval::spec::{AnyEvaluator, EvalSpec, ModelWatch, Reload};
use crate::game::view::{MoveInput, Terminal};
use crate::game::{Game, GameFile, GameRecord, GameSpec, GameStatus, Outcome, SavedGame, Side};
use crate::io::model::ModelHeader;
use crate::search::{
    DepthReport, Limits, SearchConfig, SearchResult, Searcher, Tablebase, format_score,
};

/// What the page needs of a game: evaluation and search, its texts and files, how a
/// person types its moves ([`Terminal`]), and what the page draws.
pub(crate) trait WebGame: EvalGame + GameFile + Terminal {
    /// The pieces or stones of the position.
    fn board(&self) -> Value;
    /// The legal moves as the page enters them.
    fn legal(&self) -> Value;
    /// What the page draws of a move played from this position (squares, sowings).
    fn move_detail(&self, mv: Self::Move) -> Value;
    /// What the page needs to draw the game's board, beyond a position (draughts: the
    /// squares' numbers and places); null when nothing.
    fn layout() -> Value {
        Value::Null
    }
}

/// The endgame database of the searchers of game `G`, if the server has one.
fn tablebase<G: Game>(config: &Config) -> Option<Arc<dyn Tablebase<G>>> {
    config.tablebases.get::<G>()
}

/// `first` or `second`: how the API names a side (the game's own names are in `names`).
pub(crate) fn side_key(side: Side) -> &'static str {
    match side {
        Side::First => "first",
        Side::Second => "second",
    }
}

fn human_key(human: HumanSide) -> &'static str {
    match human {
        HumanSide::First => "first",
        HumanSide::Second => "second",
        HumanSide::Both => "both",
        HumanSide::None => "none",
    }
}

/// Reads who the person plays: `first` (also `white`, `a`), `second` (`black`, `b`),
/// `both` or `none`.
pub(super) fn parse_human(text: &str) -> Result<HumanSide, ApiError> {
    clap::ValueEnum::from_str(text, true).map_err(|_| {
        ApiError::bad(format!(
            "human: '{text}' is not a side; expected first (white, a), second (black, b), both or none"
        ))
    })
}

/// How long the engine searches, as the page asks: exactly one of the three.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Level {
    pub depth: Option<u32>,
    pub movetime_ms: Option<u64>,
    pub nodes: Option<u64>,
}

impl Level {
    const DEFAULT: Level = Level {
        depth: None,
        movetime_ms: Some(1000),
        nodes: None,
    };

    /// The level checked against the server's caps.
    pub fn checked(self, config: &Config) -> Result<Level, ApiError> {
        let max_ms = config.max_movetime.as_millis();
        match (self.depth, self.movetime_ms, self.nodes) {
            (Some(d), None, None) if (1..=config.max_depth).contains(&d) => Ok(self),
            (Some(d), None, None) => Err(ApiError::bad(format!(
                "level.depth {d} is out of range: 1..={}",
                config.max_depth
            ))),
            (None, Some(ms), None) if ms >= 1 && u128::from(ms) <= max_ms => Ok(self),
            (None, Some(ms), None) => Err(ApiError::bad(format!(
                "level.movetime_ms {ms} is out of range: 1..={max_ms}"
            ))),
            (None, None, Some(n)) if n >= 1 => Ok(self),
            (None, None, Some(_)) => Err(ApiError::bad("level.nodes must be at least 1")),
            _ => Err(ApiError::bad(
                "level: give exactly one of depth, movetime_ms or nodes",
            )),
        }
    }

    /// The search limits: the level, never longer than the server's time cap.
    fn limits(self, config: &Config, stop: Arc<AtomicBool>) -> Limits {
        let cap = config.max_movetime;
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: Some(
                self.movetime_ms
                    .map_or(cap, |ms| Duration::from_millis(ms).min(cap)),
            ),
            stop: Some(stop),
            ..Limits::default()
        }
    }

    fn json(self) -> Value {
        match (self.depth, self.movetime_ms, self.nodes) {
            (Some(d), _, _) => json!({ "depth": d }),
            (_, Some(ms), _) => json!({ "movetime_ms": ms }),
            (_, _, Some(n)) => json!({ "nodes": n }),
            _ => json!({}),
        }
    }
}

/// A new game as the page asks for it (every field may be left out).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewGame {
    /// `brazilian`, `kalah` or a Kalah variant; default: the model's game, else
    /// Brazilian draughts.
    pub game: Option<String>,
    /// The start position (draughts FEN; Kalah `A:` and the 14 counts).
    pub position: Option<String>,
    pub human: Option<String>,
    pub level: Option<Level>,
    /// A model file: `models/NAME.bin` or `runs/NAME.bin`.
    pub model: Option<String>,
    /// A built-in evaluator (`material`; `stores`, `activity`, `tseitin`).
    pub eval: Option<String>,
}

/// The path of a model the page names (`models/NAME.bin`, `runs/NAME.bin`): a plain file
/// name in one of the two folders; anything else is refused.
pub(super) fn model_path(config: &Config, name: &str) -> Result<PathBuf, ApiError> {
    let (folder, file) = name.split_once('/').ok_or_else(|| {
        ApiError::bad(format!(
            "model '{name}': expected models/NAME.bin or runs/NAME.bin"
        ))
    })?;
    let dir = match folder {
        "models" => config.models.as_ref(),
        "runs" => config.runs.as_ref(),
        _ => {
            return Err(ApiError::bad(format!(
                "model '{name}': the folder must be models or runs"
            )));
        }
    }
    .ok_or_else(|| {
        ApiError::bad(format!(
            "model '{name}': the server has no --{folder} folder"
        ))
    })?;
    if !super::runs::plain_file_name(file) || !file.ends_with(".bin") {
        return Err(ApiError::bad(format!(
            "model '{name}': NAME.bin must be a plain file name"
        )));
    }
    let path = dir.join(file);
    if !path.is_file() {
        return Err(ApiError::not_found(format!("model '{name}': no such file")));
    }
    Ok(path)
}

/// The game a new game is of: `game` if given, else the model's or evaluator's game,
/// else Brazilian draughts; the model or evaluator must be of that game.
pub(super) fn resolve_game(
    games: &Games,
    request: &NewGame,
    model: Option<&ModelHeader>,
) -> Result<GameSpec, ApiError> {
    let chosen = match &request.game {
        Some(text) => Some(
            games
                .parse(text)
                .map_err(|e| ApiError::bad(format!("game: {e}")))?,
        ),
        None => None,
    };
    let implied = match (model, &request.eval) {
        (Some(header), _) => Some(
            games
                .parse(&header.game)
                .map_err(|e| ApiError::bad(format!("model: recorded game: {e}")))?,
        ),
        (None, Some(name)) => Some(games.owner_of_builtin(name).ok_or_else(|| {
            ApiError::bad(format!(
                "eval: '{name}' is no built-in evaluator ({})",
                games.builtins_in_words()
            ))
        })?),
        (None, None) => None,
    };
    match (chosen, implied) {
        (Some(chosen), Some(implied)) if chosen.family() != implied.family() => {
            Err(ApiError::bad(format!(
                "the {} is for {}, but game is {chosen}",
                if model.is_some() {
                    "model"
                } else {
                    "evaluator"
                },
                implied.family()
            )))
        }
        (Some(chosen), _) => Ok(chosen),
        (None, Some(implied)) => Ok(implied),
        (None, None) => Ok(games.default_game()),
    }
}

/// A search for a blocking thread: given a callback for each finished iteration, it
/// searches and returns what to do to the game with the result.
pub(super) type SearchJob = Box<dyn FnOnce(&mut dyn FnMut(Value)) -> Finish + Send>;
/// Applies a finished search to its game.
pub(super) type Finish = Box<dyn FnOnce(&mut dyn LiveGame) + Send>;

/// What a move from the page did.
pub(crate) enum Played {
    Moved,
    /// A Kalah turn that goes on: the position so far, not played yet.
    Partial(Value),
}

/// A live game of either game, as the table holds it.
pub(crate) trait LiveGame: Send + Any {
    /// The game's state for the page.
    fn state(&self) -> Value;
    /// Plays a move the person entered.
    fn play(&mut self, text: &str) -> Result<Played, ApiError>;
    /// Takes back moves until the person is to move again.
    fn undo(&mut self) -> Result<(), ApiError>;
    fn set_human(&mut self, human: HumanSide);
    fn set_level(&mut self, level: Level);
    /// Takes the searcher (and the model watch) for a search of the current position.
    fn begin_search(
        &mut self,
        hint: bool,
        config: &Config,
        stop: Arc<AtomicBool>,
    ) -> Result<SearchJob, ApiError>;
    /// The game in its file format: file name and text.
    fn record_file(&self, id: u64) -> (String, String);
    fn as_any(&mut self) -> &mut dyn Any;
}

/// The model in play and the watch on its file.
struct ModelInUse {
    name: String,
    header: ModelHeader,
}

pub(super) struct Live<G: WebGame> {
    record: GameRecord<G>,
    human: HumanSide,
    level: Level,
    /// `None` while a search has it.
    searcher: Option<Searcher<G, AnyEvaluator<G>>>,
    model: Option<ModelInUse>,
    /// `None` without a model, and while a search has it.
    watch: Option<ModelWatch>,
    builtin: String,
    /// The engine's last search (its move, or a hint).
    last_search: Option<Value>,
    hint: Option<Value>,
    /// Things the page should say (model reloads), numbered.
    notices: Vec<Value>,
    notices_seen: usize,
}

/// Most notices kept.
const MAX_NOTICES: usize = 20;

/// Starts a game of `G` as `request` asks (the model's header already read when it names
/// one).
pub(crate) fn new_game<G: WebGame>(
    variant: G::Variant,
    request: &NewGame,
    model: Option<(String, PathBuf)>,
    config: &Config,
) -> Result<Box<dyn LiveGame>, ApiError> {
    let start = match &request.position {
        Some(text) => G::parse_position_of(variant, text)
            .map_err(|e| ApiError::bad(format!("position: {e}")))?,
        None => G::start_of(variant),
    };
    let human = match &request.human {
        Some(text) => parse_human(text)?,
        None => HumanSide::First,
    };
    let level = request.level.unwrap_or(Level::DEFAULT).checked(config)?;
    let spec = match (&model, &request.eval) {
        (Some((_, path)), _) => EvalSpec::Model(path.clone()),
        (None, Some(name)) => EvalSpec::Builtin(name.clone()),
        (None, None) => EvalSpec::Builtin(G::BUILTINS[0].to_string()),
    };
    let (evaluator, header) = spec
        .load::<G>()
        .map_err(|e| ApiError::bad(format!("cannot use {spec}: {e}")))?;
    let mut notices = Vec::new();
    let (model, watch) = match (model, header) {
        (Some((name, path)), Some(header)) => {
            if header.game != G::variant_name(variant) {
                notices.push(format!(
                    "{name} was trained on {}; used here on {}",
                    header.game,
                    G::variant_name(variant)
                ));
            }
            let watch = ModelWatch::new(&path, header.revision);
            (Some(ModelInUse { name, header }), Some(watch))
        }
        _ => (None, None),
    };
    let searcher = Searcher::new(evaluator, SearchConfig::FULL, config.tt_mib)
        .with_tablebase(tablebase::<G>(config))
        .with_threads(config.threads);
    let mut live = Live {
        record: GameRecord::new(start),
        human,
        level,
        searcher: Some(searcher),
        model,
        watch,
        builtin: spec.to_string(),
        last_search: None,
        hint: None,
        notices: Vec::new(),
        notices_seen: 0,
    };
    for text in notices {
        live.notice(text);
    }
    Ok(Box::new(live))
}

impl<G: WebGame> Live<G> {
    fn position(&self) -> G {
        *self.record.position()
    }

    fn notice(&mut self, text: String) {
        self.notices_seen += 1;
        self.notices
            .push(json!({ "n": self.notices_seen, "text": text }));
        if self.notices.len() > MAX_NOTICES {
            self.notices.remove(0);
        }
    }

    fn engine_label(&self) -> String {
        match &self.model {
            Some(model) => format!(
                "model {} ({}, revision {})",
                model.name, model.header.kind, model.header.revision
            ),
            None => format!("the {} evaluator", self.builtin),
        }
    }

    fn status(&self) -> Value {
        match self.record.status() {
            GameStatus::Ongoing => json!({ "over": false }),
            GameStatus::Over { outcome, reason } => json!({
                "over": true,
                "winner": match outcome {
                    Outcome::Win(side) => json!(side_key(side)),
                    Outcome::Draw => Value::Null,
                },
                "result": self.position().describe_end(outcome, reason),
            }),
        }
    }

    /// The moves of the game in notation, each with the side that played it.
    fn moves(&self) -> Vec<Value> {
        self.record
            .positions()
            .iter()
            .zip(self.record.moves())
            .map(|(before, &mv)| {
                json!({
                    "text": before.format_move(mv),
                    "side": side_key(before.side_to_move()),
                })
            })
            .collect()
    }

    fn last_move(&self) -> Value {
        let ply = self.record.ply();
        match self.record.moves().last() {
            Some(&mv) => {
                let before = self.record.positions()[ply - 1];
                let mut detail = before.move_detail(mv);
                detail["text"] = json!(before.format_move(mv));
                detail
            }
            None => Value::Null,
        }
    }

    fn finish_search(&mut self, result: SearchResult<G>, hint: bool) {
        let pos = self.position();
        let Some(best) = result.best_move else {
            return;
        };
        let summary = json!({
            "move": pos.format_move(best),
            "side": side_key(pos.side_to_move()),
            "depth": result.depth,
            "score": result.score,
            "score_text": format_score::<G>(result.score),
            "nodes": result.nodes.total(),
            "nps": nodes_per_second(result.nodes.total(), result.elapsed),
            "elapsed_ms": result.elapsed.as_millis() as u64,
            "stopped": result.stopped,
            "pv": pv_texts(&pos, &result.pv),
        });
        if hint {
            self.hint = Some(summary);
        } else {
            self.record.play(best);
            self.hint = None;
            self.last_search = Some(summary);
        }
    }
}

impl<G: WebGame> LiveGame for Live<G> {
    fn state(&self) -> Value {
        let pos = self.position();
        let ongoing = self.record.status() == GameStatus::Ongoing;
        json!({
            "game": G::NAME,
            "variant": G::variant_name(pos.variant()),
            "names": [G::side_name(Side::First), G::side_name(Side::Second)],
            "score_unit": G::SCORE_UNITS,
            "human": human_key(self.human),
            "level": self.level.json(),
            "engine": {
                "label": self.engine_label(),
                "model": self.model.as_ref().map(|m| m.name.clone()),
                "revision": self.model.as_ref().map(|m| m.header.revision),
                "evaluator": self.model.as_ref().map_or(self.builtin.clone(), |m| m.header.kind.clone()),
            },
            "position": pos.format_position(),
            "start": self.record.start().format_position(),
            "to_move": side_key(pos.side_to_move()),
            "board": pos.board(),
            "legal": if ongoing { pos.legal() } else { json!([]) },
            "moves": self.moves(),
            "last_move": self.last_move(),
            "status": self.status(),
            "last_search": self.last_search,
            "hint": self.hint,
            "notices": self.notices,
        })
    }

    fn play(&mut self, text: &str) -> Result<Played, ApiError> {
        let pos = self.position();
        if self.record.status() != GameStatus::Ongoing {
            return Err(ApiError::bad("the game is over: undo or start a new game"));
        }
        let side = pos.side_to_move();
        if !self.human.plays(side) {
            return Err(ApiError::conflict(format!(
                "it is the engine's move ({} to move): ask it to move",
                G::side_name(side)
            )));
        }
        match pos.read_move(text) {
            MoveInput::Move(mv) => {
                self.record.play(mv);
                self.hint = None;
                Ok(Played::Moved)
            }
            MoveInput::Continue(after) => Ok(Played::Partial(json!({
                "text": text.trim(),
                "board": after.board(),
                "legal": after.legal(),
                "position": after.format_position(),
            }))),
            MoveInput::Invalid(why) => Err(ApiError::bad(why)),
        }
    }

    fn undo(&mut self) -> Result<(), ApiError> {
        if self.record.undo().is_none() {
            return Err(ApiError::bad("nothing to take back"));
        }
        // Back to a position where the person is to move (when the person plays).
        if self.human != HumanSide::None {
            while !self.human.plays(self.position().side_to_move()) && self.record.undo().is_some()
            {
            }
        }
        self.hint = None;
        self.last_search = None;
        Ok(())
    }

    fn set_human(&mut self, human: HumanSide) {
        self.human = human;
    }

    fn set_level(&mut self, level: Level) {
        self.level = level;
    }

    fn begin_search(
        &mut self,
        hint: bool,
        config: &Config,
        stop: Arc<AtomicBool>,
    ) -> Result<SearchJob, ApiError> {
        if self.record.status() != GameStatus::Ongoing {
            return Err(ApiError::bad("the game is over"));
        }
        let mut searcher = self
            .searcher
            .take()
            .ok_or_else(|| ApiError::conflict("the engine is already thinking"))?;
        let mut watch = self.watch.take();
        let record = self.record.clone();
        let limits = self.level.limits(config, stop);
        Ok(Box::new(move |progress: &mut dyn FnMut(Value)| {
            // As `play` does: a new revision of the model replaces the evaluator before
            // the engine moves; a file that cannot be loaded leaves the old one in play.
            let reload = match watch.as_mut().map(|w| w.check::<G>()) {
                Some(Reload::Loaded(loaded)) => {
                    let (evaluator, header) = *loaded;
                    *searcher.evaluator_mut() = evaluator;
                    Some(Ok(header))
                }
                Some(Reload::Failed(why)) => Some(Err(why)),
                Some(Reload::Unchanged) | None => None,
            };
            let root = *record.position();
            let result = searcher.search(&record, &limits, |iteration| {
                progress(iteration_info::<G>(&root, iteration));
            });
            let finish: Finish = Box::new(move |game: &mut dyn LiveGame| {
                let Some(live) = game.as_any().downcast_mut::<Live<G>>() else {
                    return;
                };
                live.searcher = Some(searcher);
                live.watch = watch;
                match reload {
                    Some(Ok(header)) => {
                        let revision = header.revision;
                        if let Some(model) = &mut live.model {
                            model.header = header;
                        }
                        live.notice(format!("model revision {revision} loaded"));
                    }
                    Some(Err(why)) => {
                        let revision = live.model.as_ref().map_or(0, |m| m.header.revision);
                        live.notice(format!(
                            "cannot load the new model file ({why}); playing on with revision {revision}"
                        ));
                    }
                    None => {}
                }
                live.finish_search(result, hint);
            });
            finish
        }))
    }

    fn record_file(&self, id: u64) -> (String, String) {
        let tags = game_tags::<G>("evalearn serve", self.human, &self.engine_label());
        let result = match self.record.status() {
            GameStatus::Over { outcome, .. } => Some(outcome),
            GameStatus::Ongoing => None,
        };
        let game = SavedGame::from_record(&self.record, tags, result);
        (
            format!("evalearn-game-{id}.{}", G::FILE_EXTENSION),
            G::write_game(&game),
        )
    }

    fn as_any(&mut self) -> &mut dyn Any {
        self
    }
}

/// The moves of a line from `pos`, in notation (stops at a move that is not legal, which
/// a line from the search never has).
fn pv_texts<G: Game>(pos: &G, pv: &[G::Move]) -> Vec<String> {
    let mut at = *pos;
    let mut moves = G::Moves::default();
    let mut texts = Vec::with_capacity(pv.len());
    for &mv in pv {
        at.legal_moves(&mut moves);
        if !moves.contains(&mv) {
            break;
        }
        texts.push(at.format_move(mv));
        at = at.play(mv);
    }
    texts
}

/// Nodes a second over `elapsed`, from its nanoseconds: the page's searches often take
/// well under a millisecond, which a coarser clock would show as no rate at all. Null
/// only when no time passed.
fn nodes_per_second(nodes: u64, elapsed: Duration) -> Value {
    match elapsed.as_nanos() {
        0 => Value::Null,
        nanos => {
            let rate = u128::from(nodes) * 1_000_000_000 / nanos;
            json!(u64::try_from(rate).unwrap_or(u64::MAX))
        }
    }
}

/// A finished iteration as the page shows it while the engine thinks.
fn iteration_info<G: WebGame>(root: &G, iteration: &DepthReport<G>) -> Value {
    let nodes = iteration.nodes.total();
    json!({
        "depth": iteration.depth,
        "score": iteration.score,
        "score_text": format_score::<G>(iteration.score),
        "nodes": nodes,
        "nps": nodes_per_second(nodes, iteration.elapsed),
        "elapsed_ms": iteration.elapsed.as_millis() as u64,
        "pv": pv_texts(root, &iteration.pv),
    })
}

/// Reads the header of a model file for a new game (its game decides the game when the
/// request does not say).
pub(super) fn model_header(path: &Path) -> Result<ModelHeader, ApiError> {
    crate::io::model::read_header(path).map_err(|e| ApiError::bad(format!("model: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_per_second_are_told_for_searches_under_a_millisecond() {
        assert_eq!(
            nodes_per_second(300, Duration::from_micros(100)),
            json!(3_000_000)
        );
        assert_eq!(nodes_per_second(5, Duration::from_secs(2)), json!(2));
        assert_eq!(nodes_per_second(5, Duration::ZERO), Value::Null);
        assert_eq!(
            nodes_per_second(u64::MAX, Duration::from_nanos(1)),
            json!(u64::MAX)
        );
    }

    #[test]
    fn levels_are_checked_against_the_caps() {
        let config = Config::default();
        let level = |depth, movetime_ms, nodes| Level {
            depth,
            movetime_ms,
            nodes,
        };
        assert!(level(Some(30), None, None).checked(&config).is_ok());
        assert!(level(Some(31), None, None).checked(&config).is_err());
        assert!(level(None, Some(30_000), None).checked(&config).is_ok());
        assert!(level(None, Some(30_001), None).checked(&config).is_err());
        assert!(level(None, None, Some(0)).checked(&config).is_err());
        assert!(level(None, None, None).checked(&config).is_err());
        // A depth-limited search stops at the time cap too.
        let limits = level(Some(4), None, None).limits(&config, Arc::default());
        assert_eq!(limits.movetime, Some(config.max_movetime));
    }
}
