//! `sparks sync`: merge the vault with its remote, over git.

use crate::cli::{Ctx, exit::Exit, hint, output};
use crate::request;
use crate::sync::SyncReport;
use clap::Args;

/// Sync the vault with its git remote: commit, fetch, merge, push
///
/// Commits this device's changes (never sparks.db), fetches the remote branch, merges it
/// (a fast-forward when this side has nothing new), regenerates the collection pages and the
/// index from the merged vault, commits the merge and pushes; a push refused because the remote
/// moved meanwhile is merged again (never forced). Sparks' own files merge by their meaning:
/// the inbox by entries (an archived capture stays archived), the archive and the log by
/// blocks, Tasks by task. Any other file both devices changed in overlapping lines keeps this
/// device's text; the other's is written beside it as "<name> (conflict YYYY-MM-DD).md" and
/// listed by lint until it is gone. A sync also registers a git merge driver with the same
/// rules (and its first commits .gitattributes for it), so a plain git pull merges those files
/// the same way (every command registers the driver where a clone lacks it). Refused while an
/// ingest is open, while git is mid-merge, mid-rebase or mid-cherry-pick, and while a file to
/// commit or push holds git's conflict markers. The remote: --remote, else [sync] remote in
/// sparks.toml, else the branch's upstream, else origin. [sync] remote and git_cli apply only
/// as set on this device: a value that came with a commit is reported, not applied (accept a
/// remote with --remote NAME). A new file outside the vault's own layout (wiki/, raw/,
/// inbox.md, sparks.toml, the agent's file, .gitattributes, .gitignore) is committed only once
/// git tracks it (git add); the report names those left out. A branch with no upstream gets the
/// remote's branch as its upstream (as git push -u), unless --remote named the remote. A remote
/// over a network that does not answer fails within 30 seconds; a long transfer shows its
/// progress on a terminal.
///
/// Example: sparks sync --dry-run
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The git remote to sync with
    #[arg(long, value_name = "NAME")]
    remote: Option<String>,

    /// Fetch and say what a sync would do; change no file, commit or branch
    #[arg(long)]
    dry_run: bool,

    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

/// Run `sync`.
pub fn run(ctx: &Ctx, args: SyncArgs) -> anyhow::Result<Exit> {
    let request = request::SyncVault::new(args.remote, args.dry_run)?.from_this_device();
    // A long fetch or push shows its objects moving on a terminal.
    let mut report = ctx.run_showing(request, args.json)?;
    // Its hints are advice in sentences, not a bare command line (as a lint note's is).
    report.word(hint::word);
    for n in &report.not_applied {
        output::warn_hint(&n.message, &n.hint);
    }
    if let Some(hint) = &report.not_committed_hint {
        output::warn_hint(&left_out(&report.not_committed, report.dry_run), hint);
    }
    output::print(&report, args.json, |r| output::report(text(r)))
}

/// The most paths a warning about files left out of the commit names.
const LEFT_OUT_SHOWN: usize = 10;

/// The warning about the new files this device's commit left out.
fn left_out(paths: &[String], dry_run: bool) -> String {
    let mut named = paths
        .iter()
        .take(LEFT_OUT_SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > LEFT_OUT_SHOWN {
        named.push_str(&format!(" and {} more", paths.len() - LEFT_OUT_SHOWN));
    }
    format!(
        "{} {} not committed: new to git and not the vault's own ({named})",
        output::count(paths.len(), "new file", "new files"),
        match (dry_run, paths.len()) {
            (true, _) => "would be",
            (false, 1) => "was",
            (false, _) => "were",
        }
    )
}

/// The report as lines.
fn text(r: &SyncReport) -> Vec<String> {
    let mut out = Vec::new();
    let with = format!(
        "{} ({}/{}, via {})",
        r.remote, r.remote, r.remote_branch, r.transport
    );
    if r.dry_run {
        out.push(format!(
            "dry run: nothing changed; a sync with {with} would:"
        ));
        if r.would_commit > 0 {
            out.push(format!(
                "  commit {} on this device",
                output::count(r.would_commit, "changed file", "changed files")
            ));
        }
    } else {
        out.push(format!("synced with {with}"));
        if let Some(c) = &r.committed {
            out.push(format!(
                "  committed {} on this device ({})",
                output::count(c.files, "file", "files"),
                crate::git::short(&c.sha)
            ));
        }
    }
    if r.incoming.commits > 0 {
        let how = match (r.fast_forward, &r.merge) {
            (true, _) => "fast-forward".to_string(),
            (false, Some(sha)) => format!("merged as {}", crate::git::short(sha)),
            (false, None) => "to merge".to_string(),
        };
        out.push(format!(
            "  in: {} ({how}), {}",
            output::count(r.incoming.commits, "commit", "commits"),
            output::count(r.changed.len(), "file changed", "files changed")
        ));
        for s in &r.incoming.subjects {
            out.push(format!("    {s}"));
        }
    }
    for p in &r.merged {
        out.push(format!("  merged by meaning: {p}"));
    }
    for p in &r.regenerated {
        out.push(format!("  regenerated: {p}"));
    }
    for c in &r.conflicts {
        out.push(match c.brought {
            false => format!(
                "  conflict: {} kept this device's text; the other's is in {}",
                c.path, c.copy
            ),
            true => format!(
                "  conflict copy from the remote: {}, the version of {} another device's sync \
                 kept beside it",
                c.copy, c.path
            ),
        });
    }
    for t in &r.ingested_twice {
        let pages = |i: usize| {
            t.ingests
                .get(i)
                .map(|g| match g.pages.is_empty() {
                    true => format!("ingest {} (no page)", g.ingest),
                    false => format!("ingest {} ({})", g.ingest, g.pages.join(", ")),
                })
                .unwrap_or_default()
        };
        out.push(format!(
            "  ingested on both devices, archived once in {}: \"{}\" — this device's {}, the \
             other's {}: reconcile the pages",
            t.archive,
            t.entry,
            pages(0),
            pages(1)
        ));
    }
    for f in &r.refused {
        out.push(format!(
            "  not taken from the remote: {} ({})",
            f.path, f.why
        ));
    }
    if r.attributes {
        out.push(
            "  .gitattributes routes Sparks' files to its merge driver (for a plain git pull)"
                .into(),
        );
    }
    if r.outgoing > 0 {
        out.push(format!(
            "  out: {} {}",
            output::count(r.outgoing, "commit", "commits"),
            if r.pushed { "pushed" } else { "to push" }
        ));
    }
    if r.nothing() {
        out.push("  nothing new on either side".to_string());
    }
    out
}
