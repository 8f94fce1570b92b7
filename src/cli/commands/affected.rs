//! `sparks affected`: which collections need regenerating.

use crate::cli::{Ctx, exit::Exit, output};
use crate::request;
use clap::Args;

/// List the collections whose sources changed since the last completed ingest
///
/// Prints the affected collections' registry keys joined by commas (`Books,ReadingList`), or
/// `none`, as the original did; the files behind each go to stderr (and into the JSON's
/// `reason`): sources whose content changed after the last completed ingest, the archive files
/// that ingest wrote, and deleted sources. An archive file counts for the collections its
/// captures feed (a quote for Quotes, a URL for Bookmarks, a `book:` line for Books, `to-read:`
/// for Reading List, `idea:` for Ideas); Projects counts any entity page. Without a completed
/// ingest every file counts.
///
/// Brings the manifest up to date first (an incremental scan), so files written since the last
/// `sparks scan` count.
///
/// Example: sparks affected --json
#[derive(Debug, Args)]
pub struct AffectedArgs {
    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `affected`.
pub fn run(ctx: &Ctx, args: AffectedArgs) -> anyhow::Result<Exit> {
    let a = ctx.run_showing(request::Affected, args.json)?;
    output::seen(&a.seen);
    output::print(&a, args.json, |a| {
        match &a.since {
            Some(t) => output::status(&format!("changes since the last completed ingest ({t}):")),
            None => output::status("no completed ingest yet: every file counts"),
        }
        for (c, paths) in &a.reason.0 {
            output::status(&format!("  {}: {}", c.title(), paths.join(", ")));
        }
        output::lines([if a.affected.is_empty() {
            "none".to_string()
        } else {
            a.affected.join(",")
        }])?;
        Ok(())
    })
}
