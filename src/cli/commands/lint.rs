//! `sparks lint`: the vault's health checks.

use crate::cli::output::{self, Style};
use crate::cli::{Ctx, exit::Exit};
use crate::lint::{self, Holding, Issue, LintReport};
use crate::request;
use clap::Args;

/// Check the vault's health: links, frontmatter, orphans, thin and stale pages
///
/// Brings the manifest up to date first (an incremental scan). Exits 1 when any
/// issue is found, in text and JSON alike. --fix changes only what lint reports, and lists
/// each change: invalid-frontmatter's tags are put in their canonical form, a stale-pages
/// page gets `updated:` set to today. The rest of invalid-frontmatter (key order, list
/// shape, date form) is repaired by `sparks fmt --fix`; the other checks need a person or the
/// agent (a broken link's target does not exist yet). While an ingest is open, the archive files it will write (raw/inbox/<capture date>.md) are
/// not dead sources. An installed CLAUDE.md, AGENTS.md or GEMINI.md that differs from the contract built into
/// this sparks is a warning and a `contract-drift` note in the JSON, not an issue.
#[derive(Debug, Args)]
#[command(after_help = after_help())]
pub struct LintArgs {
    /// Run only these checks
    #[arg(long, value_name = "NAME", num_args = 1..)]
    check: Vec<String>,

    /// Repair the tags and stale dates lint reports, then report what remains
    #[arg(long)]
    fix: bool,

    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// The help after the options: the checks (from [`lint::CHECKS`], five a line), what `--fix`
/// repairs, examples.
fn after_help() -> String {
    let lines: Vec<String> = lint::CHECKS.chunks(5).map(|c| c.join(", ")).collect();
    format!(
        "Checks: {}\n\n\
         --fix repairs: invalid-frontmatter (tags only), stale-pages\n\
         sparks fmt --fix repairs: invalid-frontmatter (key order, list shape, date form)\n\n\
         Examples:\n  sparks lint\n  sparks lint --check broken-links orphans --json\n  \
         sparks lint --fix",
        lines.join(",\n  ")
    )
}

/// Run `lint`.
pub fn run(ctx: &Ctx, args: LintArgs) -> anyhow::Result<Exit> {
    let request = request::Lint::new(&args.check, args.fix)?.holding(Holding::Streamed);
    let report = ctx.run_showing(request, args.json)?;
    output::seen(&report.seen);
    for n in &report.notes {
        output::warn_hint(&n.message, &format!("run `{}` to refresh it", n.hint));
    }
    // Notes are not issues: they leave the exit code alone.
    output::print(&report, args.json, text)
}

/// Write the report as text, each issue as it is read.
fn text(r: &LintReport) -> anyhow::Result<()> {
    let mut out = output::Lines::stdout();
    for f in &r.fixes {
        out.line(&format!(
            "{} {}:{} ({})",
            output::paint(Style::Good, "fixed"),
            f.path,
            f.line,
            f.reason
        ))?;
        out.line(&format!("  - {}", f.before))?;
        out.line(&format!("  + {}", f.after))?;
    }
    if !r.fixes.is_empty() {
        out.line("")?;
    }
    let counts = r.counts();
    let mut current = None;
    // The hint of the group being listed (one for all its issues: `near-duplicates`' merge),
    // said after its last issue.
    let mut hint: Option<String> = None;
    let issue = |i: &Issue| -> std::io::Result<()> {
        if Some(i.check) != current {
            if let Some(h) = hint.take() {
                out.line(&format!("  hint: run `{h}`"))?;
            }
            if current.is_some() {
                out.line("")?;
            }
            out.line(&format!(
                "{} ({}):",
                output::paint(Style::Bad, i.check.name()),
                counts.get(&i.check).copied().unwrap_or(0)
            ))?;
            current = Some(i.check);
        }
        let at = i.line.map(|l| format!(":{l}")).unwrap_or_default();
        out.line(&format!("  {}{at}  {}", i.path, i.message))?;
        if !i.hint.is_empty() {
            hint = Some(i.hint.clone());
        }
        Ok(())
    };
    output::stream(|give| r.issues.each(give), issue)?;
    if let Some(h) = hint {
        out.line(&format!("  hint: run `{h}`"))?;
    }
    let total: usize = counts.values().sum();
    if total == 0 {
        out.line(&output::paint(
            Style::Good,
            "Vault health: OK (no lint issues).",
        ))?;
    } else {
        out.line("")?;
        let checks = counts.values().filter(|&&n| n > 0).count();
        out.line(&output::paint(
            Style::Bad,
            // The original's words, literally: scripts match them.
            &format!("{total} issue(s) across {checks} check(s)."),
        ))?;
    }
    Ok(out.finish()?)
}
