//! `sparks affected`: which collections need regenerating.

use crate::affected::affected;
use crate::cli::{Ctx, exit::Exit, output};
use clap::Args;

/// List the collections whose sources changed since the last completed ingest
///
/// For each collection, the files behind it: sources whose content changed after the last
/// completed ingest, the archive files that ingest wrote, and deleted sources. An archive file
/// counts for the collections its captures feed (a quote for Quotes, a URL for Bookmarks, a
/// `book:` line for Books, `to-read:` for Reading List, `idea:` for Ideas); Projects counts any
/// entity page.
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
        format!("{}: {why}", c.title())
    }))?;
    Ok(Exit::Success)
}
