//! `sparks publish`: the wiki as a static website and llms.txt.

use crate::cli::output;
use crate::cli::{Ctx, exit::Exit};
use crate::request;
use clap::Args;
use std::path::PathBuf;

/// The most written or removed files the text lists by name (the JSON lists them all).
const LISTED: usize = 20;

/// Publish the wiki as a static website and as llms.txt
///
/// Private by default: a page is published when its frontmatter says `publish: true` or a
/// glob of `[publish] include` matches it; with --all (or `[publish] all = true`) every wiki
/// page is, but those saying `publish: false`. Never published: the inbox, raw/, the log,
/// Tasks, the index, conflict copies. A link to a page that is not published shows as its
/// text alone. Each page is a folder with an index.html (as the viewer shows it), its
/// Markdown beside it; llms.txt, llms-full.txt, sitemap.xml, feed.xml, 404.html, tag pages,
/// the graph and a static search complete the site. A second publish writes only what
/// changed and removes only files it wrote before.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  sparks publish\n  sparks publish --all --dry-run\n  \
    sparks publish public --base-url https://me.github.io/notes/ --json"
)]
pub struct PublishArgs {
    /// The folder to write the site into (default: the vault's site/)
    #[arg(value_name = "OUT")]
    out: Option<PathBuf>,
    /// Publish every wiki page but those saying `publish: false`
    #[arg(long)]
    all: bool,
    /// The address the site is served at, for absolute links, the sitemap and the feed
    /// (default: `[publish] base_url`, else relative links)
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Write nothing: say what would be written and removed
    #[arg(long)]
    dry_run: bool,
    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `publish`.
pub fn run(ctx: &Ctx, args: PublishArgs) -> anyhow::Result<Exit> {
    // A folder given on the command line is where the user stands; none: the vault's site/.
    // Its `.` parts are dropped, so that `publish .` names the folder as a reader would.
    let out = match args.out {
        Some(p) if p.is_relative() => Some(std::env::current_dir()?.join(p)),
        other => other,
    }
    .map(|p| p.components().collect::<PathBuf>());
    let report = ctx.run_showing(
        request::Publish::new(out, args.all, args.base_url, args.dry_run),
        args.json,
    )?;
    if !args.json {
        for w in &report.warnings {
            let at = w.line.map_or(String::new(), |l| format!(":{l}"));
            output::warn(&format!("{}{at}: {}", w.page, w.message));
        }
    }
    output::print(&report, args.json, |r| {
        let verb = if r.dry_run { "would write" } else { "wrote" };
        let mut lines = vec![format!(
            "{} published, {} private: {verb} {} into {}, removed {}, {} unchanged",
            output::count(r.published, "page", "pages"),
            r.private,
            output::count(r.written.len(), "file", "files"),
            r.out,
            r.removed.len(),
            r.skipped
        )];
        for (what, files) in [("written", &r.written), ("removed", &r.removed)] {
            for f in files.iter().take(LISTED) {
                lines.push(format!("  {what} {f}"));
            }
            if files.len() > LISTED {
                lines.push(format!("  … and {} more {what}", files.len() - LISTED));
            }
        }
        output::lines(lines)
    })?;
    Ok(Exit::Success)
}
