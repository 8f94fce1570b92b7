//! `sparks brief`: recent activity and what to revisit.

use crate::brief::{Holding, Listed};
use crate::cli::{Ctx, exit::Exit, output};
use crate::failure::Failure;
use crate::request;
use clap::Args;
use std::ops::ControlFlow;

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
    let request = request::Brief::new(Some(args.days))?.holding(Holding::Streamed);
    let b = ctx.run_showing(request, args.json)?;
    output::seen(&b.seen);
    output::print(&b, args.json, |b| {
        let mut lines = vec![format!(
            "Brief for {} to {} ({})",
            b.window.from,
            b.window.to,
            output::count(b.window.days, "day", "days")
        )];
        let headings: Vec<String> = b.log_entries.iter().map(|e| e.heading.clone()).collect();
        group(&mut lines, "log entries", &headings, headings.len());
        shown(&mut lines, "new raw files", &b.new_raw, |r| {
            format!("{} ({})", r.path, r.modified)
        })?;
        shown(&mut lines, "pages updated", &b.updated_wiki, |p| {
            format!("{} ({})", p.path, p.updated)
        })?;
        shown(&mut lines, "stale pages", &b.revisit.stale, String::clone)?;
        shown(
            &mut lines,
            "unlinked seed pages",
            &b.revisit.seed_orphans,
            String::clone,
        )?;
        shown(&mut lines, "thin pages", &b.revisit.thin, String::clone)?;
        // The JSON lists the first open tasks and counts them all (the original's shape).
        group(&mut lines, "open tasks", &b.tasks.first, b.tasks.open);
        output::lines(lines)?;
        Ok(())
    })
}

/// A group of the brief from a list read as it is counted: at most [`SHOWN`] of its items
/// are kept, each as `line` words it.
fn shown<T>(
    lines: &mut Vec<String>,
    title: &str,
    list: &Listed<T>,
    line: impl Fn(&T) -> String,
) -> anyhow::Result<()> {
    let (mut items, mut total) = (Vec::new(), 0);
    list.each(&mut |t| {
        if items.len() < SHOWN {
            items.push(line(t));
        }
        total += 1;
        ControlFlow::Continue(())
    })
    .map_err(Failure::from)?;
    group(lines, title, &items, total);
    Ok(())
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
