//! `ingest --list`, `--show ID` and `--revert ID`: the history of ingests and its undo.

use super::issue_line;
use crate::cli::hint::shell_word;
use crate::cli::output::{self, Style};
use crate::cli::{Ctx, exit::Exit};
use crate::collections;
use crate::ingest::history::{IngestSummary, State};
use crate::ingest::revert::{Undo, UndoLater, later};
use crate::ingest::{IngestDetail, IngestList, Reverted};
use crate::request;

/// `--list [--page PAGE]`.
pub(super) fn list(ctx: &Ctx, page: Option<String>, json: bool) -> anyhow::Result<Exit> {
    let l = ctx.run(request::ListIngests { page })?;
    output::print(&l, json, |l| output::lines(list_text(l)))
}

/// `--show ID`.
pub(super) fn show(ctx: &Ctx, id: request::IngestRef, json: bool) -> anyhow::Result<Exit> {
    let d = ctx.run(request::ShowIngest::new(id)?)?;
    output::print(&d, json, |d| output::lines(show_text(d)))
}

/// `--revert ID [--dry-run]`.
pub(super) fn revert(
    ctx: &Ctx,
    id: request::IngestRef,
    dry_run: bool,
    json: bool,
) -> anyhow::Result<Exit> {
    let r = ctx.run_showing(request::Revert::new(id.clone(), dry_run)?, json)?;
    for w in &r.warnings {
        output::warn(w);
    }
    if !r.conflicts.is_empty() {
        output::error(
            &format!(
                "ingest {id} was not reverted: {} changed since it, and nothing was written",
                output::count(r.conflicts.len(), "page", "pages")
            ),
            Some(&undo_first(&r)),
        );
    }
    output::print(&r, json, |r| output::report(revert_text(r)))
}

/// What to undo before a revert stopped by later changes can run, in the order to undo it:
/// the later commands, newest first (the conflicts come in that order), then the later
/// ingests, newest first, then whatever else changed a page.
fn undo_first(r: &Reverted) -> String {
    let mut steps: Vec<String> = r
        .conflicts
        .iter()
        .filter_map(|c| c.later.as_ref())
        .map(|l| match (&l.undo, &l.commit) {
            (UndoLater::Move { page, new }, Some(sha)) => format!(
                "`git revert {}` (the `sparks mv` that renamed {new} to {page})",
                crate::git::short(sha)
            ),
            (UndoLater::Move { page, new }, None) => format!(
                "rename {page} back (`sparks mv {} {} --no-alias`) and set its `updated:` \
                 back, or put {new} back by hand",
                shell_word(page),
                shell_word(new)
            ),
            (UndoLater::Untick { path, tasks }, _) => format!(
                "tick {} open again in {path} (the later `sparks done`)",
                later::quoted(tasks)
            ),
            (UndoLater::Unmerge { path, into }, Some(sha)) => format!(
                "`git revert {}` (the `sparks merge` of {path} into {into})",
                crate::git::short(sha)
            ),
            (UndoLater::Unmerge { path, into }, None) => format!(
                "put {path} back (from a backup) and take its section out of {into}: no \
                 command takes a merge back"
            ),
        })
        .collect();
    if r.conflicts.iter().any(|c| c.ingest.is_some()) {
        steps.push("revert the later ingests (newest first)".into());
    }
    if r.conflicts
        .iter()
        .any(|c| c.ingest.is_none() && c.later.is_none())
    {
        steps.push("put the other pages back as the ingest left them".into());
    }
    format!(
        "undo what came after it, in this order: {}; then run `sparks ingest --revert {}` again",
        steps.join("; then "),
        r.ingest_id
    )
}

/// `2026-05-01T10:02:03+02:00` as `2026-05-01 10:02`, the time where it was recorded.
fn when(t: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(t)
        .map(|d| d.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_else(|_| t.to_string())
}

fn list_text(l: &IngestList) -> Vec<String> {
    if l.ingests.is_empty() {
        return vec![match &l.page {
            Some(p) => format!("No ingest touched {p}."),
            None => "No ingests yet.".to_string(),
        }];
    }
    let mut lines = Vec::new();
    if l.page.is_some() {
        lines.push(format!("Ingests that touched {}:", l.paths.join(", ")));
    }
    lines.push(output::paint(
        Style::Label,
        &format!(
            "{:>4}  {:<9}  {:<16}  {:<16}  {:>7}  {:<11}  {}",
            "ID", "STATE", "PREPARED", "FINALIZED", "ENTRIES", "PAGES +~-", "COMMIT"
        ),
    ));
    for i in &l.ingests {
        lines.push(summary_line(i));
    }
    lines
}

fn summary_line(i: &IngestSummary) -> String {
    let state = match i.state {
        State::Completed => output::paint(Style::Good, &format!("{:<9}", i.state.as_str())),
        State::Open => output::paint(Style::Warn, &format!("{:<9}", i.state.as_str())),
        _ => output::paint(Style::Dim, &format!("{:<9}", i.state.as_str())),
    };
    let pages = match i.provenance {
        true => format!(
            "{}/{}/{}",
            i.pages.created, i.pages.changed, i.pages.deleted
        ),
        false => "-".to_string(),
    };
    format!(
        "{:>4}  {state}  {:<16}  {:<16}  {:>7}  {:<11}  {}",
        i.ingest_id,
        when(&i.prepared_at),
        i.finalized_at.as_deref().map(when).unwrap_or_default(),
        i.archived.unwrap_or(i.entry_count),
        pages,
        i.commit
            .as_deref()
            .map(crate::git::short)
            .unwrap_or_default()
    )
}

fn show_text(d: &IngestDetail) -> Vec<String> {
    let s = &d.summary;
    let mut lines = vec![format!(
        "Ingest {}: {}",
        s.ingest_id,
        output::paint(Style::Label, s.state.as_str())
    )];
    let mut field = |label: &str, value: Option<String>| {
        if let Some(v) = value {
            lines.push(format!("  {}", output::labelled(label, v)));
        }
    };
    field("prepared", Some(when(&s.prepared_at)));
    field("finalized", s.finalized_at.as_deref().map(when));
    field("aborted", s.aborted_at.as_deref().map(when));
    field("reverted", s.reverted_at.as_deref().map(when));
    field("commit", s.commit.as_deref().map(crate::git::short));
    field("commit skipped", d.commit_skipped.clone());
    field(
        "revert commit",
        d.revert_commit.as_deref().map(crate::git::short),
    );
    lines.push(format!("Entries ({}):", d.entries.len()));
    for e in &d.entries {
        let fate = match (&e.archived_to, e.outcome) {
            (Some(file), _) => format!("archived to {file}"),
            (None, Some("keep")) => "kept in the inbox".to_string(),
            (None, Some("changed")) => "changed since prepare, left in the inbox".to_string(),
            _ => "not finalized".to_string(),
        };
        let first: String = e.first_line.chars().take(60).collect();
        lines.push(format!(
            "  {} {}  {first}  {}",
            output::paint(Style::Label, &format!("[{}]", e.id)),
            e.capture_date,
            output::paint(Style::Dim, &format!("({fate})"))
        ));
    }
    if !s.provenance {
        lines.push(match s.state {
            State::Open | State::Aborted => "Pages: none recorded (not finalized).".to_string(),
            _ => "Pages: not recorded (finalized by an earlier sparks).".to_string(),
        });
        return lines;
    }
    lines.push(format!("Pages ({}):", d.page_changes.len()));
    for p in &d.page_changes {
        lines.push(format!("  {:<8} {}", p.action.as_str(), p.path));
    }
    if d.lint_delta.is_empty() {
        lines.push("Lint: the batch added no issues.".to_string());
    } else {
        lines.push(format!(
            "{} the batch added {}:",
            output::paint(Style::Warn, "Lint:"),
            output::count(d.lint_delta.len(), "issue", "issues")
        ));
        lines.extend(d.lint_delta.iter().map(issue_line));
    }
    lines
}

fn revert_text(r: &Reverted) -> Vec<String> {
    let id = r.ingest_id;
    if !r.conflicts.is_empty() {
        let mut lines = vec![format!(
            "{} ingest {id}: {} changed since it; nothing was written.",
            output::paint(Style::Bad, "Cannot revert"),
            output::count(r.conflicts.len(), "page", "pages")
        )];
        for c in &r.conflicts {
            lines.push(format!(
                "  {}  {} by the ingest, since then {}",
                c.path,
                c.action.as_str(),
                match c.ingest {
                    Some(_) => format!("changed by {}", c.changed_by),
                    None => c.changed_by.clone(),
                }
            ));
        }
        return lines;
    }
    let head = match (r.dry_run, r.resumed) {
        (true, _) => output::paint(Style::Warn, "Would revert"),
        (false, true) => output::paint(Style::Good, "Completed the revert of"),
        (false, false) => output::paint(Style::Good, "Reverted"),
    };
    let mut lines = vec![format!(
        "{head} ingest {id}: {} back in the inbox, {} out of {}, {} put back.",
        output::count(r.entries.len(), "entry", "entries"),
        output::count(r.entries.len(), "archive block", "archive blocks"),
        output::count(r.archive_files.len(), "file", "files"),
        output::count(r.pages.len(), "page", "pages"),
    )];
    for e in &r.entries {
        let first: String = e.first_line.chars().take(60).collect();
        lines.push(format!(
            "  {:<8} {} {}  {first}",
            "inbox",
            output::paint(Style::Label, &format!("[{}]", e.id)),
            e.capture_date
        ));
    }
    for p in &r.pages {
        let (verb, why) = match p.undo {
            Undo::Delete => ("delete", "the ingest created it"),
            Undo::Restore => ("restore", "as it was before the ingest"),
        };
        lines.push(format!(
            "  {verb:<8} {}  {}",
            p.path,
            output::paint(Style::Dim, &format!("({why})"))
        ));
    }
    if !r.regenerated.is_empty() {
        lines.push(format!(
            "{} {}.",
            match r.dry_run {
                true => "Would regenerate, if changed:",
                false => "Regenerated",
            },
            collections::titles(&r.regenerated)
        ));
    }
    if !r.dry_run {
        lines.push(match (&r.commit, &r.commit_skipped) {
            (Some(sha), _) => format!(
                "{} {}.",
                output::paint(Style::Good, "Committed"),
                crate::git::short(sha)
            ),
            (None, Some(reason)) => format!(
                "{}: {reason}.",
                output::paint(Style::Warn, "Commit skipped")
            ),
            (None, None) => format!("{}.", output::paint(Style::Warn, "Commit skipped")),
        });
    }
    lines
}
