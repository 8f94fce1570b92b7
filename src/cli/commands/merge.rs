//! `sparks merge`: merge one page into another, rewriting every reference to it.

use crate::cli::{Ctx, exit::Exit};
use crate::request;
use clap::Args;

/// Merge page FROM into page INTO and rewrite every link to FROM
///
/// FROM's body is appended to INTO under a heading `## <FROM's title>`; FROM's title and
/// aliases join INTO's aliases; tags and sources become the union (INTO's first). Every link
/// to FROM in wiki/ is rewritten to INTO keeping its form (`[[From#Heading]]` becomes
/// `[[Into#Heading]]`); a block id of FROM that INTO has too is renamed (`^id` becomes
/// `^id-2`) and its links follow. FROM is deleted. INTO's `updated:` and that of every page
/// whose links changed become today. The manifest is updated, the index and collections are
/// regenerated, and with [git] auto_commit one commit `merge: From → Into` carries exactly the
/// changed files.
///
/// Refused (exit 1, nothing changed) when FROM and INTO are the same page, either is a
/// generated page, or a link to a heading both pages have would change meaning. If
/// interrupted, run the same command again: it completes what it started.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  sparks merge \"Big Query\" BigQuery --dry-run\n  \
    sparks merge wiki/concepts/cc4bq.md \"Cascade Engine\" --json"
)]
pub struct MergeArgs {
    /// The page to merge and delete: a title, alias, file name or vault-relative path
    from: String,

    /// The page that receives it
    into: String,

    /// Write nothing; show each file and the lines that would change
    #[arg(long)]
    dry_run: bool,

    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `merge`.
pub fn run(ctx: &Ctx, args: MergeArgs) -> anyhow::Result<Exit> {
    let report = ctx.run_showing(
        request::Merge::new(args.from, args.into, args.dry_run)?,
        args.json,
    )?;
    super::mv::print(&report, args.json)
}
