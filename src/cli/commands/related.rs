//! `sparks related`: the pages nearest a page or a text.

use crate::cli::output;
use crate::cli::{Ctx, exit::Exit};
use crate::request;
use crate::search::related::{About, LIMIT};
use clap::Args;

/// Find the pages related to a page or a text
///
/// Nearest by meaning (the embedded text), by words (the text's telling words, ranked) and by
/// the link graph (pages linking to the same pages, linked from the same pages, linking here,
/// sharing a tag), fused into one score. Each page says why, and whether the page already
/// links to it. The page itself, system pages and conflict copies never appear. The text is
/// taken as it is (no search operators). Before writing a page from a capture, read the pages
/// related to the capture: extend or link one of them rather than write a near-duplicate.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  sparks related \"Write-ahead log\"\n  sparks related wiki/concepts/wal.md --json\n  \
    sparks related --text how does sqlite stay consistent after a crash"
)]
pub struct RelatedArgs {
    /// The page: a title, an alias, a file name or a vault-relative path; with --text, the
    /// text (to begin it with `-`, put it after `--`)
    #[arg(value_name = "PAGE", required_unless_present = "text")]
    words: Vec<String>,
    /// Pages related to a text: the words given, or standard input (no words, or `-`)
    #[arg(long)]
    text: bool,
    /// At most N pages
    #[arg(long, default_value_t = LIMIT, value_name = "N", value_parser = crate::cli::number::count)]
    limit: usize,
    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `related`.
pub fn run(ctx: &Ctx, args: RelatedArgs) -> anyhow::Result<Exit> {
    let about = match (args.text, args.words.as_slice()) {
        (true, []) => About::Text(super::stdin("the text")?),
        (true, [dash]) if dash == "-" => About::Text(super::stdin("the text")?),
        (true, words) => About::Text(words.join(" ")),
        (false, words) => About::Page(words.join(" ")),
    };
    let report = ctx.run(request::Related::new(about, Some(args.limit)))?;
    output::print(&report, args.json, |report| {
        let mut lines = Vec::new();
        for h in &report.hits {
            let linked = if h.linked { ", linked already" } else { "" };
            lines.push(format!(
                "{}  {:.2}{linked}",
                output::page_label(&h.path, h.title.as_deref()),
                h.score
            ));
            if !h.why.is_empty() {
                lines.push(format!("  {}", h.why.join("; ")));
            }
        }
        if report.hits.is_empty() {
            output::status("no related pages");
        }
        output::lines(lines)?;
        Ok(())
    })
}
