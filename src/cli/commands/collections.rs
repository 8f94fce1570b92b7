//! `sparks collections regen`: regenerate the collection pages.

use crate::cli::{Ctx, exit::Exit, output};
use crate::collections::regen::{RegenRequest, Status, regen};
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
    #[arg(value_name = "NAME", conflicts_with = "all")]
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
    let vault = ctx.vault()?;
    let mut manifest = ctx.manifest(&vault)?;
    let report = regen(
        &vault,
        &mut manifest,
        ctx.now(),
        &RegenRequest {
            names: args.names,
            all: args.all,
            dry_run: args.dry_run,
            commit: true,
        },
    )?;
    output::seen(&report.seen);
    if args.json {
        output::json(&report)?;
        return Ok(Exit::Success);
    }
    let mut lines = Vec::new();
    if report.collections.is_empty() {
        lines.push(
            "No collection is affected; nothing to regenerate (--all regenerates all).".to_string(),
        );
    }
    for o in &report.collections {
        let status = match o.status {
            Status::WouldWrite => "would write",
            s => s.as_str(),
        };
        lines.push(format!(
            "{status:>11}  {}  ({})",
            o.path,
            output::count(o.items, "entry", "entries")
        ));
    }
    match (&report.commit, &report.commit_skipped) {
        (Some(sha), _) => lines.push(format!("Committed {}.", &sha[..sha.len().min(7)])),
        (None, Some(reason)) => lines.push(format!("Commit skipped: {reason}.")),
        _ => {}
    }
    output::report(lines)?;
    Ok(Exit::Success)
}
