//! `sparks collections regen`: regenerate the collection pages.

use crate::cli::output::{self, Style};
use crate::cli::{Ctx, exit::Exit};
use crate::collections::regen::Status;
use crate::request;
use clap::{Args, Subcommand};

/// Manage the generated collection pages in wiki/collections/
///
/// `sparks collections regen` rewrites the pages whose sources changed; `sparks affected` says
/// which those are.
///
/// Example: sparks collections regen --dry-run
#[derive(Debug, Args)]
pub struct CollectionsArgs {
    #[command(subcommand)]
    command: CollectionsCommand,
}

#[derive(Debug, Subcommand)]
enum CollectionsCommand {
    Regen(RegenArgs),
}

impl CollectionsArgs {
    /// Whether the command prints JSON.
    pub fn json(&self) -> bool {
        let CollectionsCommand::Regen(r) = &self.command;
        r.json
    }
}

/// Regenerate collection pages: those whose sources changed, the ones named, or all
///
/// Quotes, Bookmarks, Books, Reading List, Media, Ideas and Projects, named by title or registry
/// key ("Reading List" or ReadingList). With no names, only the collections `sparks affected`
/// reports. A page whose content did not change is left byte for byte. With [git] auto_commit, the pages written are committed (and nothing else). Tasks is
/// the live task list and is never regenerated.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  sparks collections regen\n  sparks collections regen Quotes \"Reading List\"\n  \
    sparks collections regen --all --dry-run"
)]
struct RegenArgs {
    /// Collections to regenerate (default: the affected ones)
    #[arg(value_name = "NAME")]
    names: Vec<String>,

    /// Regenerate all seven
    #[arg(long)]
    all: bool,

    /// Write nothing; say what would change
    #[arg(long)]
    dry_run: bool,

    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

/// Run `collections`.
pub fn run(ctx: &Ctx, args: CollectionsArgs) -> anyhow::Result<Exit> {
    let CollectionsCommand::Regen(args) = args.command;
    let report = ctx.run_showing(
        request::Regen::new(args.names, args.all, args.dry_run)?,
        args.json,
    )?;
    output::seen(&report.seen);
    output::print(&report, args.json, |report| {
        let mut lines = Vec::new();
        if report.dry_run {
            lines.push("Dry run — no files were written.".to_string());
        }
        if report.collections.is_empty() {
            lines.push(
                "No collection is affected; nothing to regenerate (--all regenerates all)."
                    .to_string(),
            );
        }
        for o in &report.collections {
            let status = match o.status {
                Status::Written => output::paint(Style::Good, "written"),
                Status::WouldWrite => output::paint(Style::Warn, "would write"),
                s => output::paint(Style::Dim, s.as_str()),
            };
            // Padded by hand: the colour codes would count in a width.
            let pad = " ".repeat(11usize.saturating_sub(o.status.as_str().len()));
            lines.push(format!(
                "{pad}{status}  {}  ({})",
                o.path,
                output::count(o.items, "entry", "entries")
            ));
        }
        // The original's words, literally: scripts match them.
        lines.push(format!(
            "{} collection(s) processed.",
            report.collections.len()
        ));
        match (&report.commit, &report.commit_skipped) {
            (Some(sha), _) => lines.push(format!(
                "{} {}.",
                output::paint(Style::Good, "Committed"),
                crate::git::short(sha)
            )),
            (None, Some(reason)) => lines.push(format!(
                "{}: {reason}.",
                output::paint(Style::Warn, "Commit skipped")
            )),
            _ => {}
        }
        output::report(lines)?;
        Ok(())
    })
}
