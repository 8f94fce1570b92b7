//! `sparks fmt`: check, and with `--fix` repair, the frontmatter of files on disk.

use crate::cli::output::{self, Style};
use crate::cli::{Ctx, exit::Exit};
use crate::fmt::{FmtReport, Holding};
use crate::request;
use clap::Args;

/// Check the frontmatter of wiki pages against the schema
///
/// Reads the files from disk (not the manifest) and applies the same schema as `sparks lint`;
/// exits 1 when any issue remains, with or without --check or --json. Without --fix, anything
/// --fix would change is an issue. --fix repairs only what is mechanical (key order, tag form,
/// a single value where a list belongs, a year-first date written another way), changes
/// nothing else in the file, and lists every change. While an ingest is open, the archive files
/// it will write (raw/inbox/<capture date>.md) count as existing sources.
///
/// Examples: sparks fmt; sparks fmt 'wiki/concepts/*.md' --fix; sparks fmt wiki/entities --json
#[derive(Debug, Args)]
pub struct FmtArgs {
    /// A file, directory or glob, relative to the vault root [default: every Markdown file under wiki/]
    #[arg(value_name = "PATH|GLOB")]
    target: Option<String>,

    /// Write nothing, only report (what fmt does without --fix)
    #[arg(long)]
    check: bool,

    /// Repair what is mechanical, then report what remains
    #[arg(long)]
    fix: bool,

    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `fmt`.
pub fn run(ctx: &Ctx, args: FmtArgs) -> anyhow::Result<Exit> {
    let target = args.target.clone();
    let request = request::Fmt::new(args.target, args.fix, args.check)?;
    let report = ctx.run_showing(request.holding(Holding::Streamed), args.json)?;
    if let (0, Some(t)) = (report.files_checked, &target) {
        output::warn(&format!(
            "no Markdown file matches {t:?} (paths and globs are relative to the vault root)"
        ));
    }
    output::print(&report, args.json, text)
}

/// Write the report as text, each issue as it is found.
fn text(r: &FmtReport) -> anyhow::Result<()> {
    let mut out = output::Lines::stdout();
    for f in &r.fixes {
        let key = f.key.as_deref().unwrap_or("key order");
        out.line(&format!(
            "{} {}: {key}: {} → {}",
            output::paint(Style::Good, "fixed"),
            f.path,
            f.before,
            f.after
        ))?;
    }
    if !r.fixes.is_empty() {
        out.line(&format!(
            "{} in {}",
            output::count(r.fixes.len(), "fix", "fixes"),
            output::count(r.files_fixed, "file", "files")
        ))?;
        out.line("")?;
    }
    output::stream(
        |give| r.issues.each(give),
        |i| {
            let line = i.line.map(|l| format!(":{l}")).unwrap_or_default();
            let key = i
                .key
                .as_deref()
                .map(|k| format!("{k}: "))
                .unwrap_or_default();
            out.line(&format!(
                "{}{line}: {}{}",
                output::paint(Style::Label, &i.path),
                output::paint(Style::Bad, &key),
                i.message
            ))
        },
    )?;
    out.line(&if r.issues.is_empty() {
        output::paint(
            Style::Good,
            &format!(
                "Frontmatter OK ({})",
                output::count(r.files_checked, "file", "files")
            ),
        )
    } else {
        output::paint(
            Style::Bad,
            &format!(
                "{} in {}",
                output::count(r.issues.len(), "frontmatter issue", "frontmatter issues"),
                output::count(r.files_with_issues, "file", "files")
            ),
        )
    })?;
    Ok(out.finish()?)
}
