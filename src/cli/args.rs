//! Argument groups several commands share: search limits, openings, evaluator specs.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::CliError;
use crate::arena::openings::{random_openings, read_openings};
use crate::eval::spec::{AnyEvaluator, EvalSpec};
use crate::game::checkers::Checkers;
use crate::io::model::ModelHeader;
use crate::search::{Limits, MAX_PLY};

/// How long each move is searched: exactly one of depth, nodes or time.
#[derive(Args, Debug, Clone)]
#[group(required = true, multiple = false)]
pub struct LimitArgs {
    /// Depth per move
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=(MAX_PLY as i64 - 8)))]
    pub depth: Option<u32>,
    /// Nodes per move (quiescence included; deterministic)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Milliseconds per move
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
}

impl LimitArgs {
    pub fn limits(&self) -> Limits {
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime.map(Duration::from_millis),
            ..Limits::default()
        }
    }

    /// The limits in words, for reports.
    pub fn describe(limits: &Limits) -> String {
        match (limits.depth, limits.nodes, limits.movetime) {
            (Some(d), _, _) => format!("depth {d}"),
            (_, Some(n), _) => format!("{n} nodes"),
            (_, _, Some(t)) => format!("{} ms", t.as_millis()),
            _ => "no limit".to_string(),
        }
    }
}

/// Where games start: an openings file, or random plies from the start.
#[derive(Args, Debug, Clone)]
pub struct OpeningArgs {
    /// Openings: a FEN per line, or a .pdn file (the final position of each game)
    #[arg(long, conflicts_with = "random_plies")]
    pub openings: Option<PathBuf>,
    /// Random plies from the start position for each opening (all different)
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(0..=40))]
    pub random_plies: u32,
}

impl OpeningArgs {
    /// `count` openings (a file's list is used round-robin by the caller).
    pub fn openings(&self, count: usize, seed: u64) -> Result<Vec<Checkers>, CliError> {
        match &self.openings {
            Some(path) => read_openings(path).map_err(CliError::input),
            None => random_openings(count, self.random_plies, seed).map_err(CliError::input),
        }
    }
}

/// Loads the evaluator an evaluator argument names.
pub fn load_evaluator(
    text: &str,
) -> Result<(EvalSpec, AnyEvaluator, Option<ModelHeader>), CliError> {
    let spec = EvalSpec::parse(text).map_err(CliError::input)?;
    let (evaluator, header) = spec.load().map_err(|e| CliError::input(e.to_string()))?;
    Ok((spec, evaluator, header))
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn progress_bar(len: u64, template: &str) -> indicatif::ProgressBar {
    let style = indicatif::ProgressStyle::with_template(template)
        .expect("valid template")
        .progress_chars("=> ");
    indicatif::ProgressBar::new(len).with_style(style)
}

/// Advances `bar` by one unit of `what`. A bar on a terminal redraws itself; a hidden one
/// (stderr redirected to a log) prints a plain line at every tenth of the work instead,
/// so long runs in the background still report how far they are.
pub fn advance(bar: &indicatif::ProgressBar, what: &str) {
    bar.inc(1);
    if bar.is_hidden() {
        let (done, total) = (bar.position(), bar.length().unwrap_or(0));
        if total > 0 && done * 10 / total != (done - 1) * 10 / total {
            eprintln!(
                "{done}/{total} {what}, {:.0} s  {}",
                bar.elapsed().as_secs_f64(),
                bar.message()
            );
        }
    }
}
