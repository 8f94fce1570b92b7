//! `sparks affected`: which collections need regenerating.

use crate::affected::affected;
use crate::cli::{Ctx, exit::Exit, output};
use clap::Args;

/// List the collections whose sources changed since the last completed ingest
///
/// For each collection, the files behind it: sources whose content changed after the last
/// completed ingest, the archive files that ingest wrote, and deleted sources. Books and Reading List count an archive file only when it has a
/// `book:` or `to-read:` line; Ideas counts any archived capture; Projects any entity page.
/// Without a completed ingest every file counts.
///
/// Reads the manifest as the last scan left it: run `sparks scan` first.
///
/// Example: sparks affected --json
#[derive(Debug, Args)]
pub struct AffectedArgs {
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

/// Run `affected`.
pub fn run(ctx: &Ctx, args: AffectedArgs) -> anyhow::Result<Exit> {
    let vault = ctx.vault()?;
    let manifest = ctx.manifest(&vault)?;
    let a = affected(&vault, &manifest)?;
    if args.json {
        output::json(&a)?;
        return Ok(Exit::Success);
    }
    match &a.since {
        Some(t) => output::status(&format!("changes since the last completed ingest ({t}):")),
        None => output::status("no completed ingest yet: every file counts"),
    }
    output::lines(a.reasons.0.iter().map(|(c, paths)| {
        let why = if paths.is_empty() {
            "none".to_string()
        } else {
            paths.join(", ")
        };
        format!("{}: {why}", c.name())
    }))?;
    Ok(Exit::Success)
}
