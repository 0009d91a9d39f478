fn main() -> std::process::ExitCode {
    evalearn::cli::run()
}
