//! `sparks scan`: bring the manifest up to date.

use crate::cli::output::{self, Style};
use crate::cli::{Ctx, exit::Exit};
use crate::request;
use clap::Args;

/// Update the manifest from the vault's files
///
/// Reads only files whose size, mtime, ctime or inode changed (or whose mtime is too recent to
/// trust); exits 1 when a file or directory could not be read, and then changes nothing known
/// about it.
///
/// Example: sparks scan --json
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Read every file, whatever its metadata says
    #[arg(long)]
    full: bool,

    /// Set the manifest aside (as sparks.db.old-*) and build a new one from the files: for a
    /// corrupt or truncated sparks.db, or one you do not trust. The history of past ingests is
    /// carried over when the old file still reads; the records of unfinished operations
    /// (.sparks/) are never touched
    #[arg(long, conflicts_with = "full")]
    rebuild: bool,

    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `scan`.
pub fn run(ctx: &Ctx, args: ScanArgs) -> anyhow::Result<Exit> {
    let report = ctx.run_showing(
        request::Scan {
            full: args.full,
            rebuild: args.rebuild,
        },
        args.json,
    )?;
    for k in &report.set_aside {
        output::status(&format!("set the old manifest aside as {}", k.display()));
    }
    if let Some(n) = report.history_kept {
        output::status(&format!(
            "kept the history of {} from it",
            output::count(n, "ingest", "ingests")
        ));
    }
    for w in &report.warnings {
        output::warn(w);
    }
    output::print(&report, args.json, |report| {
        output::report([
            format!(
                "{} {} in {}ms",
                output::paint(Style::Label, "Scanned"),
                report.vault_root.display(),
                report.duration_ms
            ),
            format!(
                "  walked: {}  hashed: {}  skipped: {}  deleted: {}  changed: {}  embedded: {}",
                report.walked,
                report.hashed,
                report.skipped,
                report.deleted,
                report.changed,
                report.embedded
            ),
        ])?;
        for e in &report.errors {
            output::error(&format!("cannot read {}: {}", e.path, e.error), None);
        }
        if !report.errors.is_empty() {
            output::status(&format!(
                "{} could not be read; what the manifest knew about {} is unchanged",
                output::count(report.errors.len(), "path", "paths"),
                if report.errors.len() == 1 {
                    "it"
                } else {
                    "them"
                }
            ));
        }
        Ok(())
    })
}
