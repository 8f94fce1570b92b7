//! `sparks merge-driver`: the git merge driver `sparks sync` registers (not for people to run).

use crate::cli::{Ctx, exit::Exit};
use crate::failure::Failure;
use clap::Args;
use std::path::PathBuf;

/// Merge one of Sparks' files for git (git runs this; see sparks sync)
///
/// Git runs it as `sparks merge-driver %O %A %B %P` for the files .gitattributes routes to the
/// "sparks" driver: the inbox by entries, the archive and the log by blocks, Tasks by task.
/// The merged text replaces the %A file; a version the file's rule cannot read exits 1 and
/// git keeps the conflict.
#[derive(Debug, Args)]
pub struct MergeDriverArgs {
    /// The common ancestor's version (%O)
    base: PathBuf,
    /// This side's version (%A), replaced by the merge
    ours: PathBuf,
    /// The other side's version (%B)
    theirs: PathBuf,
    /// The file's path in the work tree (%P)
    path: String,
}

/// Run `merge-driver`.
pub fn run(_ctx: &Ctx, args: MergeDriverArgs) -> anyhow::Result<Exit> {
    let workdir = std::env::current_dir()?;
    crate::sync::driver::merge(&workdir, &args.base, &args.ours, &args.theirs, &args.path)
        .map_err(Failure::from)?;
    Ok(Exit::Success)
}
