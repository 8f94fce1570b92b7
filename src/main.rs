//! The `sparks` binary: parse the command line, run it, turn the outcome into an exit code.

fn main() -> std::process::ExitCode {
    sparks::cli::main()
}
