//! `sparks brief`: recent activity and what to revisit.

use crate::brief::brief;
use crate::cli::{Ctx, exit::Exit, output};
use clap::Args;

/// Gather the last N days of activity for the weekly brief
///
/// Log blocks, raw files modified, pages updated, pages to revisit (stale, unlinked seeds,
/// thin) and open tasks, for the calendar days ending today. The agent writes the brief from
/// `--json`; sparks writes nothing.
///
/// Example: sparks brief --days 7 --json
#[derive(Debug, Args)]
pub struct BriefArgs {
    /// How many calendar days, today included
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=3660))]
    days: u32,

    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

/// Run `brief`.
pub fn run(ctx: &Ctx, args: BriefArgs) -> anyhow::Result<Exit> {
    let vault = ctx.vault()?;
    let mut manifest = ctx.manifest(&vault)?;
    let b = brief(&vault, &mut manifest, ctx.now(), args.days)?;
    output::seen(&b.seen);
    if args.json {
        output::json(&b)?;
        return Ok(Exit::Success);
    }
    let mut lines = vec![format!(
        "Brief for {} to {} ({} days)",
        b.window.from, b.window.to, b.window.days
    )];
    let mut section = |title: &str, items: Vec<String>| {
        lines.push(format!("{title}: {}", items.len()));
        lines.extend(items.into_iter().take(10).map(|i| format!("  {i}")));
    };
    section(
        "log entries",
        b.log_entries.iter().map(|e| e.heading.clone()).collect(),
    );
    section(
        "new raw files",
        b.new_raw
            .iter()
            .map(|r| format!("{} ({})", r.path, r.modified))
            .collect(),
    );
    section(
        "pages updated",
        b.updated_wiki
            .iter()
            .map(|p| format!("{} ({})", p.path, p.updated))
            .collect(),
    );
    section("stale pages", b.revisit.stale.clone());
    section("unlinked seed pages", b.revisit.seed_orphans.clone());
    section("thin pages", b.revisit.thin.clone());
    section("open tasks", b.tasks.first.clone());
    if b.tasks.open > b.tasks.first.len() {
        lines.push(format!(
            "  … and {} more",
            b.tasks.open - b.tasks.first.len()
        ));
    }
    output::lines(lines)?;
    Ok(Exit::Success)
}
