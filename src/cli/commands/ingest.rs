//! `sparks ingest`: the two-phase ingest, and the history of ingests (`history`: list, show,
//! revert).

mod history;

use crate::cli::output::{self, Style};
use crate::cli::{Ctx, exit::Exit};
use crate::collections;
use crate::ingest::{Batch, FinalizeOptions, Finalized};
use crate::request::{self, OpenBatch, Report as _};
use clap::{ArgGroup, Args};

/// Hand the agent a batch of inbox entries, then archive exactly that batch
///
/// --prepare records up to [ingest] batch_size entries and prints them (JSON by default).
/// The agent writes pages, then --finalize archives the entries of the batch still in the
/// inbox unchanged to raw/inbox/YYYY-MM-DD.md, removes them from the inbox, scans and
/// commits. Entries captured or edited meanwhile stay in the inbox. A second --prepare while an
/// ingest is open exits 3 and prints the open batch again.
///
/// Finalize records what the batch did: the pages it created, changed and deleted, and the
/// lint issues it added to them (--strict refuses the batch instead). --list and --show tell
/// that history; --revert takes an ingest back: its entries return to the inbox, their
/// archive blocks leave raw/inbox/, and its pages are put back as they were. A page changed
/// again since stops the revert before anything is written (exit 1).
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  sparks ingest --prepare --limit 10\n  \
    sparks ingest --finalize --strict -m \"ingest: reading notes\" --keep 4\n  \
    sparks ingest --abort\n  sparks ingest --list --page \"Rust\"\n  sparks ingest --show 12\n  \
    sparks ingest --revert 12 --dry-run")]
#[command(group(ArgGroup::new("mode").required(true).args(["prepare", "finalize", "abort", "status", "list", "show", "revert"])))]
pub struct IngestArgs {
    /// Open an ingest and print its batch
    #[arg(long)]
    prepare: bool,

    /// Archive the open batch, clear it from the inbox, scan and commit (or resume)
    #[arg(long)]
    finalize: bool,

    /// Close the open ingest without archiving anything
    #[arg(long)]
    abort: bool,

    /// Show the open ingest's batch
    #[arg(long)]
    status: bool,

    /// List every ingest, newest first: state, times, entries, pages, commit
    #[arg(long)]
    list: bool,

    /// Show one ingest: its entries, the pages it touched, its commit, its lint delta
    #[arg(long, value_name = "ID", value_parser = crate::cli::number::ingest)]
    show: Option<crate::request::IngestRef>,

    /// Take a finalized ingest back: its entries, archive blocks and pages
    #[arg(long, value_name = "ID", value_parser = crate::cli::number::ingest)]
    revert: Option<crate::request::IngestRef>,

    /// With --list: only the ingests that touched this page (path, title, alias or file name)
    #[arg(long, value_name = "PAGE", requires = "list")]
    page: Option<String>,

    /// With --revert: say what would be done, write nothing
    #[arg(long, requires = "revert")]
    dry_run: bool,

    /// With --prepare: hand out at most N entries (0: all; default: [ingest] batch_size)
    #[arg(long, value_name = "N", requires = "prepare", value_parser = crate::cli::number::count)]
    limit: Option<usize>,

    /// With --finalize: the commit message (default: "ingest: N entries")
    #[arg(short, long, value_name = "MSG", requires = "finalize")]
    message: Option<String>,

    /// With --finalize: leave these entries of the batch in the inbox
    #[arg(long, value_name = "ID", num_args = 1.., requires = "finalize", value_parser = crate::cli::number::id)]
    keep: Vec<u32>,

    /// With --finalize: refuse the batch, archiving nothing, if it adds lint issues to its
    /// pages (also with [ingest] strict = true)
    #[arg(long, requires = "finalize")]
    strict: bool,

    /// Print JSON (the default for --prepare and --status; --json=false prints text)
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    json: Option<bool>,
}

impl IngestArgs {
    /// Whether the command prints JSON: by default with --prepare and --status, with --json
    /// otherwise.
    pub fn json(&self) -> bool {
        self.json.unwrap_or(self.prepare || self.status)
    }
}

/// Run `ingest`.
pub fn run(ctx: &Ctx, args: IngestArgs) -> anyhow::Result<Exit> {
    let json = args.json();
    if args.list {
        return history::list(ctx, args.page, json);
    }
    if let Some(id) = args.show {
        return history::show(ctx, id, json);
    }
    if let Some(id) = args.revert {
        return history::revert(ctx, id, args.dry_run, json);
    }
    if args.prepare || args.status {
        let (batch, exit, what) = if args.status {
            match ctx.run(request::IngestStatus)? {
                OpenBatch::Open(b) => (b, Exit::Success, "open"),
                none @ OpenBatch::None { .. } => {
                    if json {
                        output::json(&none)?;
                    } else {
                        output::write("No ingest is open.\n")?;
                    }
                    return Ok(Exit::Success);
                }
            }
        } else {
            let prepared = ctx.run_showing(request::Prepare { limit: args.limit }, json)?;
            let exit = Exit::from(prepared.ending());
            let what = match (exit, prepared.batch.ingest_id) {
                (Exit::IngestOpen, _) => "in progress",
                (_, None) => "empty",
                _ => "opened",
            };
            (prepared.batch, exit, what)
        };
        for w in &batch.warnings {
            output::warn(w);
        }
        if exit == Exit::IngestOpen {
            output::error(
                &format!(
                    "ingest {} is already open; its batch is printed again",
                    batch.ingest_id.unwrap_or_default()
                ),
                Some(
                    "finish it with `sparks ingest --finalize`, or release it with \
                     `sparks ingest --abort`",
                ),
            );
        }
        if json {
            output::json(&batch)?;
        } else {
            output::lines(batch_text(&batch, what))?;
        }
        return Ok(exit);
    }
    if args.abort {
        let a = ctx.run(request::Abort)?;
        return output::print(&a, json, |a| {
            output::report([match a.ingest_id {
                Some(id) => format!(
                    "{} ingest {id}; its {} in the inbox.",
                    output::paint(Style::Good, "Aborted"),
                    match a.entries {
                        1 => "1 entry stays".to_string(),
                        n => format!("{n} entries stay"),
                    }
                ),
                None => "No ingest is open.".to_string(),
            }])
        });
    }
    let f = ctx.run_showing(
        request::Finalize(FinalizeOptions {
            message: args.message,
            keep: args.keep,
            strict: args.strict,
        }),
        json,
    )?;
    for w in &f.warnings {
        output::warn(w);
    }
    for e in &f.scan_errors {
        output::error(
            &format!("the scan could not read {}: {}", e.path, e.error),
            None,
        );
    }
    output::print(&f, json, |f| output::report(finalized_text(f)))
}

fn finalized_text(f: &Finalized) -> Vec<String> {
    let mut parts = vec![format!(
        "{} archived",
        output::count(f.archived, "entry", "entries")
    )];
    if f.kept > 0 {
        parts.push(format!("{} kept", f.kept));
    }
    if f.changed > 0 {
        parts.push(format!(
            "{} changed since prepare and left in the inbox",
            f.changed
        ));
    }
    let mut lines = vec![format!(
        "{} ingest {}: {}; {} left in the inbox.",
        output::paint(
            Style::Good,
            if f.resumed {
                "Resumed and finalized"
            } else {
                "Finalized"
            }
        ),
        f.ingest_id,
        parts.join(", "),
        output::count(f.remaining, "entry", "entries")
    )];
    if !f.regenerated.is_empty() {
        lines.push(format!(
            "Regenerated {}.",
            collections::titles(&f.regenerated)
        ));
    }
    if !f.also_regenerated.is_empty() {
        lines.push(format!(
            "Also regenerated {}: other sources changed since the last ingest.",
            collections::titles(&f.also_regenerated)
        ));
    }
    if !f.lint_delta.is_empty() {
        lines.push(format!(
            "{} the batch added {} to its pages:",
            output::paint(Style::Warn, "Lint:"),
            output::count(f.lint_delta.len(), "issue", "issues")
        ));
        lines.extend(f.lint_delta.iter().map(issue_line));
    }
    lines.push(match (&f.commit, &f.commit_skipped) {
        (Some(sha), _) => format!(
            "{} {}.",
            output::paint(Style::Good, "Committed"),
            crate::git::short(sha)
        ),
        (None, Some(reason)) => {
            format!(
                "{}: {reason}.",
                output::paint(Style::Warn, "Commit skipped")
            )
        }
        (None, None) => format!("{}.", output::paint(Style::Warn, "Commit skipped")),
    });
    lines
}

/// A lint issue on one line, as `lint` prints it under its check.
pub(super) fn issue_line(i: &crate::lint::Issue) -> String {
    let at = i.line.map(|l| format!(":{l}")).unwrap_or_default();
    format!(
        "  {}{at}  {} {}",
        i.path,
        output::paint(Style::Bad, i.check.name()),
        i.message
    )
}

fn batch_text(b: &Batch, what: &str) -> Vec<String> {
    let Some(id) = b.ingest_id else {
        return vec!["The inbox is empty: nothing to ingest.".into()];
    };
    let mut lines = vec![format!(
        "Ingest {id} {what}: {} in this batch, {} left in the inbox.",
        output::count(b.total, "entry", "entries"),
        b.remaining
    )];
    for e in &b.entries {
        let first = e.content.lines().next().unwrap_or_default();
        let short: String = first.chars().take(60).collect();
        lines.push(format!(
            "  {} {} {}  {}",
            output::paint(Style::Label, &format!("[{}]", e.id)),
            e.capture_date,
            output::paint(Style::Dim, &e.hash[..8]),
            short
        ));
    }
    if !b.affected_collections.is_empty() {
        lines.push(format!(
            "Affected collections: {}",
            collections::titles(&b.affected_collections)
        ));
    }
    lines
}
