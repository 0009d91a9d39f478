//! Choosing an evaluator at run time: an evaluator spec is the name of one of the game's
//! hand-made evaluators (`material`; `stores`, `activity`, `tseitin`) or the path of a
//! model file. Used by every command that takes an evaluator (analyse, play, selfplay,
//! match, train), and by play's hot reload of a model that training keeps rewriting.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use super::lazy::Lazy;
use super::{EvalGame, Evaluator, IncrementalEval};
use crate::game::{GameEntry, GameSpec, owner_of_builtin, parse_game, split_game_text};
use crate::io::model::{self, ModelError, ModelHeader};

/// What an evaluator argument names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalSpec {
    /// A hand-made evaluator of some game, by name.
    Builtin(String),
    Model(PathBuf),
}

impl EvalSpec {
    /// The name of a hand-made evaluator of one of `games`, or anything else as a model
    /// file path.
    pub fn parse<H: GameEntry + ?Sized>(text: &str, games: &[&H]) -> Result<EvalSpec, String> {
        match text.trim() {
            "" => {
                let builtins: Vec<String> = games.iter().map(|g| g.builtins().join(", ")).collect();
                Err(format!(
                    "empty evaluator: give a built-in evaluator ({}) or a model file path",
                    builtins.join("; ")
                ))
            }
            name if owner_of_builtin(games, name).is_some() => {
                Ok(EvalSpec::Builtin(name.to_string()))
            }
            path => Ok(EvalSpec::Model(PathBuf::from(path))),
        }
    }

    /// The game of `games` this spec belongs to, when it tells: a model file's recorded
    /// game, or the game owning a built-in evaluator. `Ok(None)` for a model file that
    /// cannot be read (loading it later reports why).
    pub fn game<H: GameEntry + ?Sized>(&self, games: &[&H]) -> Result<Option<GameSpec>, String> {
        match self {
            EvalSpec::Builtin(name) => Ok(owner_of_builtin(games, name)),
            EvalSpec::Model(path) => match model::read_header(path) {
                Ok(header) => parse_game(games, &header.game)
                    .map(Some)
                    .map_err(|e| format!("{}: recorded game: {e}", path.display())),
                Err(_) => Ok(None),
            },
        }
    }

    /// An evaluator argument of game `G` alone: one of its built-in evaluators, or a
    /// model file path.
    pub fn parse_for<G: EvalGame>(text: &str) -> Result<EvalSpec, String> {
        match text.trim() {
            "" => Err(format!(
                "empty evaluator: give a built-in evaluator ({}) or a model file path",
                G::BUILTINS.join(", ")
            )),
            name if G::builtin(name).is_some() => Ok(EvalSpec::Builtin(name.to_string())),
            path => Ok(EvalSpec::Model(PathBuf::from(path))),
        }
    }

    /// Loads the evaluator for game `G`, with the model's header when it is a model file.
    pub fn load<G: EvalGame>(&self) -> Result<(AnyEvaluator<G>, Option<ModelHeader>), LoadError> {
        match self {
            EvalSpec::Builtin(name) => match G::builtin(name) {
                Some(e) => Ok((AnyEvaluator::Builtin(e), None)),
                None => Err(LoadError::NotForThisGame {
                    name: name.clone(),
                    game: G::NAME,
                    builtins: G::BUILTINS,
                }),
            },
            // A name that is neither a built-in nor a file is most likely a typo'd name.
            EvalSpec::Model(path) if !path.exists() => Err(LoadError::NoSuchEvaluator {
                path: path.clone(),
                game: G::NAME,
                builtins: G::BUILTINS,
            }),
            EvalSpec::Model(path) => {
                let (evaluator, header) = load_model_file::<G>(path)?;
                Ok((evaluator, Some(header)))
            }
        }
    }
}

impl fmt::Display for EvalSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalSpec::Builtin(name) => write!(f, "{name}"),
            EvalSpec::Model(path) => write!(f, "{}", path.display()),
        }
    }
}

/// Why an evaluator could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    Model(ModelError),
    /// The file is a sound model file but of a kind the game does not read.
    UnknownKind {
        path: PathBuf,
        kind: String,
        /// The kinds the game reads, in words.
        known: String,
    },
    /// The payload decoded but does not fit this build (e.g. another feature set).
    Invalid {
        path: PathBuf,
        reason: String,
    },
    /// Neither a built-in evaluator nor an existing file.
    NoSuchEvaluator {
        path: PathBuf,
        game: &'static str,
        builtins: &'static [&'static str],
    },
    /// A built-in evaluator of another game.
    NotForThisGame {
        name: String,
        game: &'static str,
        builtins: &'static [&'static str],
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Model(e) => write!(f, "{e}"),
            LoadError::UnknownKind { path, kind, known } => write!(
                f,
                "{}: evaluator kind '{kind}' is not one this game's models can hold ({known})",
                path.display()
            ),
            LoadError::Invalid { path, reason } => write!(f, "{}: {reason}", path.display()),
            LoadError::NoSuchEvaluator { path, .. } if looks_like_a_path(path) => {
                write!(f, "no such model file: {}", path.display())
            }
            LoadError::NoSuchEvaluator {
                path,
                game,
                builtins,
            } => write!(
                f,
                "'{}' is neither a built-in evaluator of {game} ({}) nor a model file (no such \
                 file)",
                path.display(),
                builtins.join(", ")
            ),
            LoadError::NotForThisGame {
                name,
                game,
                builtins,
            } => write!(
                f,
                "'{name}' is not an evaluator of {game} (its built-in evaluators: {})",
                builtins.join(", ")
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// Whether an evaluator argument that names nothing was meant as a model file (a folder
/// in it, or the models' `.bin`) rather than a mistyped built-in name, so that the
/// message about it speaks of the file alone, in every game alike.
fn looks_like_a_path(path: &Path) -> bool {
    let text = path.to_string_lossy();
    text.contains('/') || text.contains(std::path::MAIN_SEPARATOR) || text.ends_with(".bin")
}

impl From<ModelError> for LoadError {
    fn from(e: ModelError) -> Self {
        LoadError::Model(e)
    }
}

/// Any evaluator of game `G`, chosen at run time: one of the game's hand-made ones (a
/// direct call: the baseline is what benches and matches measure against) or a learned
/// model of any kind the game supports ([`EvalGame::MODEL_KINDS`]).
#[derive(Clone)]
pub enum AnyEvaluator<G: EvalGame> {
    Builtin(G::Builtin),
    Model(Arc<dyn Evaluator<G>>),
}

impl<G: EvalGame> AnyEvaluator<G> {
    /// The game's baseline (draughts `material`, Kalah `stores`).
    pub fn baseline() -> Self {
        AnyEvaluator::Builtin(super::baseline::<G>())
    }

    /// A learned evaluator.
    pub fn model(evaluator: impl Evaluator<G> + 'static) -> Self {
        AnyEvaluator::Model(Arc::new(evaluator))
    }
}

impl<G: EvalGame> fmt::Debug for AnyEvaluator<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyEvaluator::Builtin(e) => f.debug_tuple("Builtin").field(e).finish(),
            AnyEvaluator::Model(e) => f.debug_tuple("Model").field(&e.name()).finish(),
        }
    }
}

impl<G: EvalGame> Evaluator<G> for AnyEvaluator<G> {
    #[inline]
    fn evaluate(&self, pos: &G) -> i32 {
        match self {
            AnyEvaluator::Builtin(e) => e.evaluate(pos),
            AnyEvaluator::Model(e) => e.evaluate(pos),
        }
    }

    fn name(&self) -> String {
        match self {
            AnyEvaluator::Builtin(e) => e.name(),
            AnyEvaluator::Model(e) => e.name(),
        }
    }

    fn logit_scale(&self) -> Option<f64> {
        match self {
            AnyEvaluator::Builtin(e) => e.logit_scale(),
            AnyEvaluator::Model(e) => e.logit_scale(),
        }
    }

    fn incremental(&self, plies: usize) -> Option<Box<dyn IncrementalEval<G>>> {
        match self {
            AnyEvaluator::Builtin(e) => e.incremental(plies),
            AnyEvaluator::Model(e) => e.incremental(plies),
        }
    }

    #[inline]
    fn bounds(&self, pos: &G) -> Option<(i32, i32)> {
        match self {
            AnyEvaluator::Builtin(e) => e.bounds(pos),
            AnyEvaluator::Model(e) => e.bounds(pos),
        }
    }
}

/// A model file's evaluator and header.
pub type Loaded<G> = (Arc<dyn Evaluator<G>>, ModelHeader);

/// A kind of model file (an evaluator family: `linear`, `glem`, `td`) as a game reads
/// it: how the payload becomes an evaluator, and how `evalearn model info` describes it.
/// Each family's module makes one for any game with its inputs (`kind::<G>()`); a game
/// lists those it supports in [`EvalGame::MODEL_KINDS`].
pub struct ModelKind<G> {
    /// The kind as model files record it.
    pub kind: &'static str,
    /// Loads the file at `path` (of recorded game `game`) as an evaluator.
    pub load: fn(&Path, &str) -> Result<Loaded<G>, LoadError>,
    /// What the payload holds, in lines of text (checked as loading checks it).
    pub describe: fn(&Path, &str) -> Result<String, LoadError>,
}

/// The model kinds game `G` reads, in words (`linear, glem, td`).
pub fn kinds_in_words<G: EvalGame>() -> String {
    let kinds: Vec<&str> = G::MODEL_KINDS.iter().map(|k| k.kind).collect();
    if kinds.is_empty() {
        "none".to_string()
    } else {
        kinds.join(", ")
    }
}

/// True if a model file's recorded game (`kalah`, `kalah:6:4`, `brazilian`) is game `G`,
/// whatever its variant.
pub fn same_game<G: EvalGame>(recorded: &str) -> bool {
    recorded.split(':').next() == Some(G::NAME)
}

/// The model kind of game `G` a file's header names.
fn model_kind<G: EvalGame>(path: &Path) -> Result<(&'static ModelKind<G>, ModelHeader), LoadError> {
    let header = model::read_header(path)?;
    if !same_game::<G>(&header.game) {
        return Err(LoadError::Model(ModelError::WrongGame {
            path: Some(path.to_path_buf()),
            found: header.game,
            expected: G::NAME.to_string(),
        }));
    }
    match G::MODEL_KINDS.iter().find(|k| k.kind == header.kind) {
        Some(kind) => Ok((kind, header)),
        None => Err(LoadError::UnknownKind {
            path: path.to_path_buf(),
            kind: header.kind,
            known: kinds_in_words::<G>(),
        }),
    }
}

/// Loads a model file of any kind game `G` reads, with its bounds from the baseline for
/// lazy evaluation where the game has it ([`Lazy`], observed from the start of the
/// recorded variant); a model of another game is a [`ModelError::WrongGame`].
pub fn load_model_file<G: EvalGame>(
    path: &Path,
) -> Result<(AnyEvaluator<G>, ModelHeader), LoadError> {
    let (kind, header) = model_kind::<G>(path)?;
    let (evaluator, header) = (kind.load)(path, &header.game)?;
    if !G::LAZY_EVALUATION {
        return Ok((AnyEvaluator::Model(evaluator), header));
    }
    let lazy = with_bounds(evaluator, &header.game);
    Ok((AnyEvaluator::Model(Arc::new(lazy)), header))
}

/// A model with its lazy evaluation's bounds, observed from the start of its recorded
/// game's variant (the standard start if the variant does not parse).
fn with_bounds<G: EvalGame>(evaluator: Arc<dyn Evaluator<G>>, recorded: &str) -> Lazy<G> {
    let start = G::parse_variant(split_game_text(recorded).1)
        .map(G::start_of)
        .unwrap_or_else(|_| G::start());
    Lazy::new(evaluator, start)
}

/// What a model file of game `G` holds beyond its header, in lines of text (`evalearn
/// model info`), with its lazy evaluation's bounds where the game has them.
pub fn describe_model_file<G: EvalGame>(path: &Path) -> Result<String, LoadError> {
    let (kind, header) = model_kind::<G>(path)?;
    let mut text = (kind.describe)(path, &header.game)?;
    if G::LAZY_EVALUATION {
        let (evaluator, _) = (kind.load)(path, &header.game)?;
        let lazy = with_bounds(evaluator, &header.game);
        text.push_str(&lazy.observed().describe(G::BUILTINS[0]));
    }
    Ok(text)
}

/// Identity of a file version: modification time, length and (on Unix) inode, which an
/// atomic rename always changes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct FileStamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

impl FileStamp {
    fn of(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Some(FileStamp {
            modified: meta.modified().ok(),
            len: meta.len(),
            inode,
        })
    }
}

/// What a look at a watched model file found.
#[derive(Debug)]
pub enum Reload<G: EvalGame> {
    Unchanged,
    /// A new revision, loaded.
    Loaded(Box<(AnyEvaluator<G>, ModelHeader)>),
    /// The file changed but cannot be loaded; said once per version of the file.
    Failed(String),
}

/// Watches a model file for new revisions written by a training run.
#[derive(Debug)]
pub struct ModelWatch {
    path: PathBuf,
    revision: u64,
    seen: Option<FileStamp>,
}

impl ModelWatch {
    /// Watches `path`, whose revision `revision` is in use now.
    pub fn new(path: &Path, revision: u64) -> ModelWatch {
        ModelWatch {
            path: path.to_path_buf(),
            revision,
            seen: FileStamp::of(path),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Looks at the file: cheap (one `stat`) when it has not changed since the last look.
    pub fn check<G: EvalGame>(&mut self) -> Reload<G> {
        let stamp = FileStamp::of(&self.path);
        if stamp == self.seen {
            return Reload::Unchanged;
        }
        self.seen = stamp;
        match load_model_file::<G>(&self.path) {
            Ok((_, header)) if header.revision == self.revision => Reload::Unchanged,
            Ok((evaluator, header)) => {
                self.revision = header.revision;
                Reload::Loaded(Box::new((evaluator, header)))
            }
            Err(e) => Reload::Failed(e.to_string()),
        }
    }
}
