fn main() -> std::process::ExitCode {
    if let Err(message) = cpu_supports_build() {
        eprintln!("error: {message}");
        return std::process::ExitCode::from(2);
    }
    // A kernel path forced by EVALEARN_SIMD that is no path, or one this CPU lacks, is
    // refused before any command runs (not when a model first loads, deep in a run).
    if let Err(message) = evalearn::eval::td::simd::SimdPath::chosen() {
        eprintln!("error: {message}");
        return std::process::ExitCode::from(2);
    }
    quiet_on_closed_pipe();
    evalearn::cli::run(&evalearn::games::registry::GAMES)
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

/// The build may ask for hardware popcount (`.cargo/config.toml`); on a CPU without it the
/// first bit count would die of an illegal instruction, so say so before any runs.
#[cfg(all(target_arch = "x86_64", target_feature = "popcnt"))]
fn cpu_supports_build() -> Result<(), &'static str> {
    // CPUID leaf 1, ECX bit 23: POPCNT. (Not `is_x86_feature_detected!`: built with the
    // feature on, it answers true without asking the CPU.)
    if std::arch::x86_64::__cpuid(1).ecx & (1 << 23) != 0 {
        Ok(())
    } else {
        Err(
            "this evalearn was built for CPUs with the POPCNT instruction and this one \
             lacks it; rebuild with RUSTFLAGS=\"\" cargo build --release",
        )
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "popcnt")))]
fn cpu_supports_build() -> Result<(), &'static str> {
    Ok(())
}
