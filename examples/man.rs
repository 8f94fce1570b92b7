//! Writes the man pages (`make man`): `sparks.1` and one page per command (`sparks-ingest.1`,
//! …), generated with clap_mangen from the same definitions as `--help`.
//!
//! Usage: `man [DIR]` (default `target/man`). Read one with `man -l target/man/sparks.1`.

use clap::CommandFactory;
use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("target/man"), PathBuf::from);
    fs_err::create_dir_all(&dir)?;
    clap_mangen::generate_to(sparks::cli::Cli::command(), &dir)?;
    eprintln!("wrote the man pages to {}", dir.display());
    Ok(())
}
