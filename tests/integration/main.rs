//! evalearn's integration tests, one module per area, built as one test binary (each
//! test binary links the whole release build: one instead of twenty saves minutes of
//! every `cargo test --release`).

mod common;

mod accuracy;
mod architecture;
mod book;
mod cli;
mod cluster;
mod consistency;
mod controls;
mod egdb;
mod evaluators;
mod exact_search;
mod glem;
mod glem_parts;
mod hub;
mod interrupt;
mod kalah;
mod kalah_cli;
mod kalah_perfect;
mod kalah_solve;
mod lazy;
mod model_file;
mod notation;
mod perft;
mod play;
mod pydraughts;
mod random_play;
mod reference_movegen;
mod samuel;
mod samuel_rules;
mod search;
mod selfplay;
mod shard;
mod shipped;
mod slurm;
mod smp;
mod td;
mod td_clipped;
mod td_incremental;
mod tournament;
mod train;
mod web;
mod web_browser;
mod web_http;
