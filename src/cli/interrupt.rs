//! Ctrl-C, the same in every long command: the first one raises the process's stop flag
//! (the work in progress ends within about a second, what is finished is kept and
//! reported, and the command exits with status 130); a second one quits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use super::CliError;

/// Exit status of a command stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const STATUS: u8 = 130;

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The stop flag Ctrl-C raises; the handler is installed on the first call.
pub fn flag() -> Arc<AtomicBool> {
    Arc::clone(FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let raised = Arc::clone(&flag);
        // Should the handler not install, Ctrl-C keeps its default: the process ends.
        let _ = ctrlc::set_handler(move || {
            if raised.swap(true, Ordering::SeqCst) {
                std::process::exit(STATUS.into());
            }
            eprintln!("\nstopping: keeping what is finished (Ctrl-C again to quit at once)");
        });
        flag
    }))
}

/// Whether Ctrl-C was pressed.
pub fn raised(flag: &AtomicBool) -> bool {
    flag.load(Ordering::SeqCst)
}

/// The result of a command stopped by Ctrl-C once it has said what it kept.
pub fn stopped(what: impl std::fmt::Display) -> CliError {
    CliError {
        message: format!("interrupted (Ctrl-C): {what}"),
        status: STATUS,
    }
}
