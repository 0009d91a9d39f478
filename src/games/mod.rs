//! The games evalearn ships, each in its own folder with everything of that game (rules,
//! notation, learners' inputs, evaluators, views, its own subcommands), and the registry
//! that lists them for the command line. They stand on every generic room (the
//! foundation in [`crate::game`], search, learning, the command line); no generic room
//! uses them, and they never use each other (docs/architecture.md).

pub mod brazilian;
pub mod kalah;
pub mod registry;
