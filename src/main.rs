//! The `sparks` binary: parse the command line, run it, turn the outcome into an exit code.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    sparks::cli::main()
}
