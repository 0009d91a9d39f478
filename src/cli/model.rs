//! `evalearn model info PATH`: what a model file holds, in words.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::CliError;
use crate::io::model;

#[derive(Args, Debug)]
pub struct ModelArgs {
    #[command(subcommand)]
    command: ModelCommand,
}

#[derive(Subcommand, Debug)]
enum ModelCommand {
    /// Print a model file's header: game, evaluator, revision, training metadata
    Info {
        /// The model file
        path: PathBuf,
    },
}

pub fn model(args: ModelArgs) -> Result<(), CliError> {
    match args.command {
        ModelCommand::Info { path } => {
            let header = model::read_header(&path).map_err(|e| CliError::input(e.to_string()))?;
            println!("{header}");
            Ok(())
        }
    }
}
