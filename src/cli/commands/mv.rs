//! `sparks mv`: rename or move a page, rewriting every reference to it.

use crate::cli::output::{self, Style, paint};
use crate::cli::{Ctx, exit::Exit};
use crate::mv::MoveReport;
use crate::request;
use clap::Args;

/// Rename or move a page and rewrite every link to it
///
/// PAGE is a title, alias, file name or vault-relative path. NEW is a new title (the file
/// becomes NEW.md in the same folder and `title:` becomes NEW) or a path under wiki/ ending in
/// .md (the file moves; the title changes only with the file name). The old title is added to
/// `aliases:` unless --no-alias. Every wikilink in wiki/ that reaches the page by title, file
/// name or path is rewritten to the new name keeping its form (label, #heading, #^block,
/// embed, `\|` in tables, .md); Markdown links get the new relative path; links by alias stay.
/// Code, comments and raw/ are never changed. Each changed page's `updated:` becomes today.
/// The manifest is updated, the index and collections that listed the page are regenerated,
/// and with [git] auto_commit one commit `mv: Old → New` carries exactly the changed files.
///
/// Refused (exit 1, nothing changed) when NEW collides with another page (what `sparks query
/// --resolve NEW` reports) or its file exists, or PAGE is a generated page. If interrupted,
/// run the same command again: it completes what it started, rewriting nothing twice.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  sparks mv \"Big Query\" BigQuery\n  sparks mv cc4bq \"Cascade Engine\" --dry-run\n  \
    sparks mv BigQuery wiki/entities/BigQuery.md --json"
)]
pub struct MvArgs {
    /// The page: a title, alias, file name or vault-relative path
    page: String,

    /// The new title, or a new path under wiki/ ending in .md
    new: String,

    /// Write nothing; show each file and the lines that would change
    #[arg(long)]
    dry_run: bool,

    /// Do not add the old title to the page's aliases
    #[arg(long)]
    no_alias: bool,

    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `mv`.
pub fn run(ctx: &Ctx, args: MvArgs) -> anyhow::Result<Exit> {
    let report = ctx.run_showing(
        request::Mv::new(args.page, args.new, args.no_alias, args.dry_run)?,
        args.json,
    )?;
    print(&report, args.json)
}

/// Print the report of `mv` or `merge`.
pub fn print(report: &MoveReport, json: bool) -> anyhow::Result<Exit> {
    output::print(report, json, |r| match r.dry_run {
        true => output::lines(text(r)),
        false => output::report(text(r)),
    })
}

fn text(r: &MoveReport) -> Vec<String> {
    let mut lines = Vec::new();
    let would = |done: &str, planned: &str| if r.dry_run { planned } else { done }.to_string();
    if r.dry_run {
        lines.push("Dry run — no files written.".to_string());
    }
    if r.resumed {
        lines.push(would(
            "Completing the interrupted run.",
            "An interrupted run of this command is unfinished; it would complete:",
        ));
    }
    let alias = match r.alias_added {
        true => format!("; {:?} added to its aliases", r.old_title),
        false => String::new(),
    };
    lines.push(match &r.deleted {
        Some(from) => format!(
            "{} {from} into {} (title: {}{}; {from} {})",
            paint(Style::Good, &would("Merged", "Would merge")),
            r.to,
            r.title,
            alias,
            would("deleted", "would be deleted"),
        ),
        None => format!(
            "{} {} → {} (title: {}{})",
            paint(Style::Good, &would("Moved", "Would move")),
            r.from,
            r.to,
            r.title,
            alias,
        ),
    });
    lines.push(format!(
        "{} {} in {}",
        would("Rewrote", "Would rewrite"),
        output::count(r.links_rewritten, "link", "links"),
        output::count(r.files_changed.len(), "file", "files"),
    ));
    for c in &r.changes {
        match &c.moved_from {
            Some(from) => lines.push(format!("{} (from {from})", paint(Style::Label, &c.path))),
            None => lines.push(paint(Style::Label, &c.path)),
        }
        for l in &c.lines {
            for b in l.before.lines() {
                lines.push(format!("  {:>4} - {b}", l.line));
            }
            for a in l.after.lines() {
                lines.push(format!("  {:>4} + {a}", l.line));
            }
        }
    }
    match (&r.commit, &r.commit_skipped) {
        (Some(sha), _) => lines.push(format!(
            "Committed {}",
            paint(Style::Dim, &crate::git::short(sha))
        )),
        (None, Some(why)) if !r.dry_run => lines.push(format!("Not committed: {why}")),
        _ => {}
    }
    lines
}
