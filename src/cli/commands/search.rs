//! `sparks search`: full-text search.

use crate::cli::output::{self, Style};
use crate::cli::{Ctx, exit::Exit};
use crate::manifest::Scope;
use crate::request;
use clap::{Args, ValueEnum};

/// Search page text, titles, aliases and tags, and raw files
///
/// Words must all match; "quoted phrases" match as written; OR joins alternatives; -word
/// excludes; prefix* matches word beginnings. Title and alias matches rank above body
/// matches. Works for accented, hyphenated and CJK text. Reads the index as the last scan
/// left it.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  sparks search write-ahead log\n  sparks search '\"cache invalidation\" OR eviction -redis'\n  \
    sparks search 知識管理 --in raw --json"
)]
pub struct SearchArgs {
    /// The query; to exclude a word, quote the whole query (`'wal -sqlite'`) or put the
    /// query after `--`
    #[arg(required = true, num_args = 1..)]
    query: Vec<String>,
    /// Where to search
    #[arg(long = "in", value_enum, default_value_t = Where::Wiki)]
    scope: Where,
    /// Only pages of this type
    #[arg(long = "type", value_name = "TYPE")]
    kind: Option<String>,
    /// Only pages with this tag
    #[arg(long)]
    tag: Option<String>,
    /// At most N hits
    #[arg(long, default_value_t = request::SEARCH_LIMIT, value_name = "N", value_parser = crate::cli::number::count)]
    limit: usize,
    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Where {
    /// Wiki pages
    Wiki,
    /// Raw files
    Raw,
    /// Both
    All,
}

/// Run `search`.
pub fn run(ctx: &Ctx, args: SearchArgs) -> anyhow::Result<Exit> {
    let scope = match args.scope {
        Where::Wiki => Scope::Wiki,
        Where::Raw => Scope::Raw,
        Where::All => Scope::All,
    };
    let report = ctx.run(request::Search::new(
        args.query.join(" "),
        Some(scope),
        args.kind,
        args.tag,
        Some(args.limit),
    ))?;
    if args.json {
        output::json(&report)?;
        return Ok(Exit::Success);
    }
    let mut lines = Vec::new();
    for h in &report.hits {
        let title = h
            .title
            .as_deref()
            .map(|t| format!(" ({t})"))
            .unwrap_or_default();
        lines.push(format!("{}{title}", output::paint(Style::Label, &h.path)));
        lines.push(format!("  {}", h.snippet));
    }
    if report.truncated {
        lines.push(format!(
            "({} of {} hits shown; --limit for more)",
            report.hits.len(),
            report.total
        ));
    }
    for c in &report.collisions {
        lines.push(format!(
            "note: a page titled {:?} would collide with {} ({} {:?})",
            report.query, c.path, c.via, c.name
        ));
    }
    if report.total == 0 {
        output::status(&format!("no matches for {:?}", report.query));
    }
    output::lines(lines)?;
    Ok(Exit::Success)
}
