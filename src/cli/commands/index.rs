//! `sparks index`: rebuild wiki/index.md.

use crate::cli::output::{self, Style, paint};
use crate::cli::{Ctx, exit::Exit};
use crate::index::{GROUPS, IndexReport};
use crate::request;
use clap::Args;

/// Rebuild wiki/index.md, the catalogue of pages grouped by type
///
/// Lists every page of the manifest once, under Entities, Concepts, Summaries, Syntheses,
/// Collections or Other, sorted by title, as `- [[Title]] — description`. Descriptions written
/// in the old index stay with their page (even when it was renamed or moved), every other
/// hand-written line is kept before the sections, and the frontmatter is kept (`updated` moves
/// only when the content changes). Nothing changed means nothing written. Above `[index]
/// shard_above` pages (sparks.toml, default 500) each type gets its own page under
/// wiki/index/ and wiki/index.md becomes a map of them.
///
/// Brings the manifest up to date first (an incremental scan), so pages written since the last
/// `sparks scan` are listed.
///
/// Example: sparks index --dry-run
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Write nothing; show what would change, line by line
    #[arg(long)]
    dry_run: bool,

    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `index`.
pub fn run(ctx: &Ctx, args: IndexArgs) -> anyhow::Result<Exit> {
    let report = ctx.run_showing(
        request::Index {
            dry_run: args.dry_run,
        },
        args.json,
    )?;
    output::seen(&report.seen);
    output::print(&report, args.json, |report| {
        output::report(text(report))?;
        Ok(())
    })
}

fn text(r: &IndexReport) -> Vec<String> {
    let counts: Vec<String> = GROUPS
        .into_iter()
        .filter(|g| r.by_type.get(*g) > 0)
        .map(|g| g.count(r.by_type.get(g)))
        .collect();
    let pages = output::count(r.pages, "page", "pages");
    let pages = if counts.is_empty() {
        pages
    } else {
        format!("{pages} ({})", counts.join(", "))
    };
    let mut lines = Vec::new();
    if r.dry_run {
        lines.push("Dry run — no files written.".to_string());
    }
    lines.push(match (r.unchanged, r.dry_run) {
        (true, _) => format!("{} is {}: {pages}", r.path, paint(Style::Dim, "up to date")),
        (false, true) => format!("{} {}: {pages}", r.path, paint(Style::Warn, "would change")),
        (false, false) => format!("{} {}: {pages}", paint(Style::Good, "Wrote"), r.path),
    });
    lines.push(format!(
        "Entries: {} added, {} removed, {} kept; {} kept",
        r.added,
        r.removed,
        r.kept,
        output::count(r.descriptions_kept, "description", "descriptions")
    ));
    for s in &r.shards {
        let state = match (s.unchanged, r.dry_run) {
            (true, _) => paint(Style::Dim, "up to date"),
            (false, true) => paint(Style::Warn, "would change"),
            (false, false) => paint(Style::Good, "written"),
        };
        lines.push(format!(
            "  {}: {} ({state})",
            s.path,
            output::count(s.pages, "page", "pages")
        ));
    }
    for p in &r.removed_shards {
        lines.push(format!(
            "  {p}: {}",
            if r.dry_run {
                "would be removed"
            } else {
                "removed"
            }
        ));
    }
    if r.dry_run {
        for d in &r.diff {
            lines.push(format!("--- {}", d.path));
            lines.push(format!("+++ {}", d.path));
            lines.extend(d.lines.iter().cloned());
        }
    }
    lines
}
