//! `sparks status`: the vault at a glance.

use crate::cli::output::{self, Style};
use crate::cli::{Ctx, exit::Exit};
use crate::contract::FileState;
use crate::request;
use clap::Args;

/// Show the vault, its pages, the inbox and any open ingest
///
/// Reads the manifest as the last scan left it; run `sparks scan` first for fresh counts.
/// Lists the conflict copies a sync left that are not yet reconciled.
/// Warns when an installed CLAUDE.md, AGENTS.md or GEMINI.md differs from the contract built
/// into this sparks (`sparks init --agent NAME --force` refreshes it).
///
/// Example: sparks status --json
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `status`.
pub fn run(ctx: &Ctx, args: StatusArgs) -> anyhow::Result<Exit> {
    let s = ctx.run(request::Status)?;
    output::contract_drift(&s.contract.files);
    output::print(&s, args.json, |s| {
        let pages: Vec<&str> = s.page_counts.iter().map(|p| p.label.as_str()).collect();
        let inbox = match &s.inbox.error {
            Some(e) => output::labelled("inbox", format!("unreadable ({e})")),
            None => output::labelled(
                "inbox",
                format!(
                    "{} pending",
                    output::count(s.inbox.pending, "entry", "entries")
                ),
            ),
        };
        let mut lines = vec![
            output::labelled(
                "vault",
                format!("{} ({})", s.vault_name, s.vault_root.display()),
            ),
            output::labelled("schema", format!("v{}", s.schema_version)),
            output::labelled("pages", pages.join(", ")),
            inbox,
            output::labelled(
                "manifest",
                format!(
                    "{} tracked, {} changed since last ingest, {} deleted",
                    output::count(s.files.total, "file", "files"),
                    s.files.changed_since_ingest,
                    s.files.deleted
                ),
            ),
            output::labelled(
                "last scan",
                s.last_scan
                    .as_deref()
                    .unwrap_or("never (run `sparks scan`)"),
            ),
            output::labelled("watch", watch_text(&s.watch)),
        ];
        if !s.contract.files.is_empty() {
            let files: Vec<String> = s
                .contract
                .files
                .iter()
                .map(|f| match f.state {
                    FileState::Current => format!("{} current", f.file),
                    FileState::Differs => {
                        format!("{} {}", f.file, output::paint(Style::Warn, "differs"))
                    }
                })
                .collect();
            lines.push(output::labelled("contract", files.join(", ")));
        }
        if let Some(i) = &s.open_ingest {
            let step = match &i.step {
                Some(step) => format!("; finalize stopped after {step}, run it again to finish"),
                None => String::new(),
            };
            lines.push(output::labelled(
                "ingest",
                format!(
                    "{} open since {}, {}{step}",
                    i.id,
                    i.started_at,
                    output::count(i.entries, "entry", "entries")
                ),
            ));
        }
        if let Some(u) = &s.unfinished {
            let after = u
                .step
                .as_deref()
                .map(|s| format!(" after {s}"))
                .unwrap_or_default();
            lines.push(output::labelled(
                "unfinished",
                format!(
                    "`{}` stopped{after}; {}",
                    u.command,
                    output::paint(Style::Warn, "run it again to complete it")
                ),
            ));
        }
        for c in s.conflict_copies.iter().take(COPIES_SHOWN) {
            lines.push(output::labelled(
                "conflict",
                format!(
                    "{}, a version of {} a sync kept beside it: {}",
                    c.copy,
                    c.path,
                    output::paint(Style::Warn, "merge it into the file, then delete it")
                ),
            ));
        }
        if s.conflict_copies.len() > COPIES_SHOWN {
            lines.push(output::labelled(
                "conflict",
                format!(
                    "and {} more (sparks lint --check sync-conflicts lists them all)",
                    s.conflict_copies.len() - COPIES_SHOWN
                ),
            ));
        }
        output::lines(lines)?;
        Ok(())
    })
}

/// The most conflict copies the text names.
const COPIES_SHOWN: usize = 10;

/// `running (pid N, since …, last change applied …, native)` or `not running`.
fn watch_text(w: &crate::status::WatchStatus) -> String {
    let Some(pid) = w.pid.filter(|_| w.running) else {
        return "not running".to_string();
    };
    let mut parts = vec![format!("pid {pid}")];
    if let Some(since) = &w.since {
        parts.push(format!("since {since}"));
    }
    parts.push(match &w.last_event {
        Some(at) => format!("last change applied {at}"),
        None => "no change applied yet".to_string(),
    });
    parts.extend(w.mode.map(str::to_string));
    format!("running ({})", parts.join(", "))
}
