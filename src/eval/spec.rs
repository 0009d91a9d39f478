//! Choosing an evaluator at run time: an evaluator spec is `material` or the path of a
//! model file. Used by every command that takes an evaluator (analyse, play, selfplay,
//! match, train), and by play's hot reload of a model that training keeps rewriting.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::linear::{self, Linear, LinearWeights};
use super::{Evaluator, Material};
use crate::game::Game;
use crate::game::checkers::Checkers;
use crate::io::model::{self, ModelError, ModelHeader};
use crate::learn::glem::{self, Glem, GlemModel};
use crate::learn::td::{self, MlpWeights, TdEvaluator};

/// What an evaluator argument names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalSpec {
    Material,
    Model(PathBuf),
}

impl EvalSpec {
    /// `material`, or anything else as a model file path.
    pub fn parse(text: &str) -> Result<EvalSpec, String> {
        match text.trim() {
            "" => Err("empty evaluator: give `material` or a model file path".to_string()),
            "material" => Ok(EvalSpec::Material),
            path => Ok(EvalSpec::Model(PathBuf::from(path))),
        }
    }

    /// Loads the evaluator, with the model's header when it is a model file.
    pub fn load(&self) -> Result<(AnyEvaluator, Option<ModelHeader>), LoadError> {
        match self {
            EvalSpec::Material => Ok((AnyEvaluator::Material(Material), None)),
            EvalSpec::Model(path) => {
                let (evaluator, header) = load_model_file(path)?;
                Ok((evaluator, Some(header)))
            }
        }
    }
}

impl fmt::Display for EvalSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalSpec::Material => write!(f, "material"),
            EvalSpec::Model(path) => write!(f, "{}", path.display()),
        }
    }
}

/// Why an evaluator could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    Model(ModelError),
    /// The file is a sound model file but of a kind this build does not know.
    UnknownKind {
        path: PathBuf,
        kind: String,
    },
    /// The payload decoded but does not fit this build (e.g. another feature set).
    Invalid {
        path: PathBuf,
        reason: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Model(e) => write!(f, "{e}"),
            LoadError::UnknownKind { path, kind } => write!(
                f,
                "{}: evaluator kind '{kind}' is not one this build knows ({})",
                path.display(),
                KNOWN_KINDS.join(", ")
            ),
            LoadError::Invalid { path, reason } => write!(f, "{}: {reason}", path.display()),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<ModelError> for LoadError {
    fn from(e: ModelError) -> Self {
        LoadError::Model(e)
    }
}

/// Evaluator kinds a model file may hold.
pub const KNOWN_KINDS: [&str; 3] = [linear::KIND, glem::KIND, td::KIND];

/// Any evaluator, chosen at run time (one match per call: cheap and predictable).
#[derive(Clone, Debug)]
pub enum AnyEvaluator {
    Material(Material),
    Linear(Linear),
    Glem(Glem),
    Td(TdEvaluator),
}

impl Evaluator<Checkers> for AnyEvaluator {
    #[inline]
    fn evaluate(&self, pos: &Checkers) -> i32 {
        match self {
            AnyEvaluator::Material(e) => e.evaluate(pos),
            AnyEvaluator::Linear(e) => e.evaluate(pos),
            AnyEvaluator::Glem(e) => e.evaluate(pos),
            AnyEvaluator::Td(e) => e.evaluate(pos),
        }
    }

    fn name(&self) -> String {
        match self {
            AnyEvaluator::Material(e) => e.name(),
            AnyEvaluator::Linear(e) => e.name(),
            AnyEvaluator::Glem(e) => e.name(),
            AnyEvaluator::Td(e) => e.name(),
        }
    }
}

/// Loads a model file of any known kind.
pub fn load_model_file(path: &Path) -> Result<(AnyEvaluator, ModelHeader), LoadError> {
    let header = model::read_header(path)?;
    if header.game != Checkers::NAME {
        return Err(LoadError::Model(ModelError::WrongGame {
            path: Some(path.to_path_buf()),
            found: header.game,
            expected: Checkers::NAME.to_string(),
        }));
    }
    let invalid = |reason: String| LoadError::Invalid {
        path: path.to_path_buf(),
        reason,
    };
    match header.kind.as_str() {
        linear::KIND => {
            let (header, weights) =
                model::load_model::<LinearWeights>(path, Some(Checkers::NAME), Some(linear::KIND))?;
            let evaluator = Linear::new(&weights).map_err(invalid)?;
            Ok((AnyEvaluator::Linear(evaluator), header))
        }
        glem::KIND => {
            let (header, model) =
                model::load_model::<GlemModel>(path, Some(Checkers::NAME), Some(glem::KIND))?;
            let evaluator = Glem::new(&model).map_err(invalid)?;
            Ok((AnyEvaluator::Glem(evaluator), header))
        }
        td::KIND => {
            let (header, weights) =
                model::load_model::<MlpWeights>(path, Some(Checkers::NAME), Some(td::KIND))?;
            let evaluator = TdEvaluator::from_weights(&weights).map_err(invalid)?;
            Ok((AnyEvaluator::Td(evaluator), header))
        }
        other => Err(LoadError::UnknownKind {
            path: path.to_path_buf(),
            kind: other.to_string(),
        }),
    }
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
pub enum Reload {
    Unchanged,
    /// A new revision, loaded.
    Loaded(Box<(AnyEvaluator, ModelHeader)>),
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
    pub fn check(&mut self) -> Reload {
        let stamp = FileStamp::of(&self.path);
        if stamp == self.seen {
            return Reload::Unchanged;
        }
        self.seen = stamp;
        match load_model_file(&self.path) {
            Ok((_, header)) if header.revision == self.revision => Reload::Unchanged,
            Ok((evaluator, header)) => {
                self.revision = header.revision;
                Reload::Loaded(Box::new((evaluator, header)))
            }
            Err(e) => Reload::Failed(e.to_string()),
        }
    }
}
