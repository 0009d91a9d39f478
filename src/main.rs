fn main() -> std::process::ExitCode {
    quiet_on_closed_pipe();
    evalearn::cli::run()
}

/// `evalearn model info M | head` closes stdout early; `println!` then panics. The output
/// was wanted only that far, so end quietly, as `cat` or `grep` do, instead of printing a
/// panic with a backtrace. Every other panic keeps the default report.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let closed = info.payload_as_str().is_some_and(|m| {
            m.starts_with("failed printing to stdout") && m.contains("Broken pipe")
        });
        if closed {
            std::process::exit(0);
        }
        default(info)
    }));
}
