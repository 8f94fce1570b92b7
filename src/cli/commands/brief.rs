//! `sparks brief`: recent activity and what to revisit.

use crate::cli::{Ctx, exit::Exit, output};
use crate::request;
use clap::Args;

/// How many items of each group the text lists.
const SHOWN: usize = 10;

/// Gather the last N days of activity for the weekly brief
///
/// Log blocks, raw files modified, pages updated, pages to revisit (stale, unlinked seeds,
/// thin) and open tasks, for the calendar days ending today. The agent writes the brief from
/// `--json`; sparks writes nothing.
///
/// Example: sparks brief --days 7 --json
#[derive(Debug, Args)]
pub struct BriefArgs {
    /// How many calendar days, today included (0 or less: 7)
    #[arg(
        long,
        default_value_t = i64::from(crate::brief::DEFAULT_DAYS),
        value_parser = crate::cli::number::days,
        allow_negative_numbers = true
    )]
    days: i64,

    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `brief`.
pub fn run(ctx: &Ctx, args: BriefArgs) -> anyhow::Result<Exit> {
    let b = ctx.run_showing(request::Brief::new(Some(args.days))?, args.json)?;
    output::seen(&b.seen);
    output::print(&b, args.json, |b| {
        let mut lines = vec![format!(
            "Brief for {} to {} ({})",
            b.window.from,
            b.window.to,
            output::count(b.window.days, "day", "days")
        )];
        let groups = [
            (
                "log entries",
                b.log_entries.iter().map(|e| e.heading.clone()).collect(),
            ),
            (
                "new raw files",
                b.new_raw
                    .iter()
                    .map(|r| format!("{} ({})", r.path, r.modified))
                    .collect(),
            ),
            (
                "pages updated",
                b.updated_wiki
                    .iter()
                    .map(|p| format!("{} ({})", p.path, p.updated))
                    .collect(),
            ),
            ("stale pages", b.revisit.stale.clone()),
            ("unlinked seed pages", b.revisit.seed_orphans.clone()),
            ("thin pages", b.revisit.thin.clone()),
        ];
        for (title, items) in groups {
            group(&mut lines, title, &items, items.len());
        }
        // The JSON lists the first open tasks and counts them all (the original's shape).
        group(&mut lines, "open tasks", &b.tasks.first, b.tasks.open);
        output::lines(lines)?;
        Ok(())
    })
}

/// A group of the brief: its count, at most [`SHOWN`] of its `total` items, then how many more
/// (the JSON has them all).
fn group(lines: &mut Vec<String>, title: &str, items: &[String], total: usize) {
    lines.push(format!("{title}: {total}"));
    let shown = items.len().min(SHOWN);
    lines.extend(items[..shown].iter().map(|i| format!("  {i}")));
    if total > shown {
        lines.push(format!("  … and {} more", total - shown));
    }
}
