//! `sparks search`: full-text search.

use crate::cli::output;
use crate::cli::{Ctx, exit::Exit};
use crate::manifest::Scope;
use crate::request;
use crate::search::Mode;
use clap::builder::PossibleValue;
use clap::{Args, ValueEnum};

/// Search page text, titles, aliases and tags, and raw files
///
/// Ranked: a page matching more of the words ranks higher, a match in the title or an alias
/// counts most, and words match by their stem ("syncing" finds "synced"), so a whole sentence
/// is a query. "quoted phrases" count where the words stand together, +word and +"a phrase"
/// must match, -word excludes, OR joins alternatives, prefix* matches word beginnings. Works for accented, hyphenated and
/// CJK text. Reads the index as the last scan left it.
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
    #[arg(long = "in", value_enum, default_value_t = Scope::Wiki)]
    scope: Scope,
    /// Only pages of this type
    #[arg(long = "type", value_name = "TYPE")]
    kind: Option<String>,
    /// Only pages with this tag
    #[arg(long)]
    tag: Option<String>,
    /// How to rank: by words and meaning together, by words alone, or by meaning alone
    #[arg(long, value_enum, default_value_t = Mode::Hybrid)]
    mode: Mode,
    /// At most N hits
    #[arg(long, default_value_t = request::SEARCH_LIMIT, value_name = "N", value_parser = crate::cli::number::count)]
    limit: usize,
    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// The core's scopes, by their names, with the help clap shows for each.
impl ValueEnum for Scope {
    fn value_variants<'a>() -> &'a [Scope] {
        &Scope::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Scope::Wiki => "Wiki pages",
            Scope::Raw => "Raw files",
            Scope::All => "Both",
        };
        Some(PossibleValue::new(self.as_str()).help(help))
    }
}

/// The core's modes, by their names, with the help clap shows for each.
impl ValueEnum for Mode {
    fn value_variants<'a>() -> &'a [Mode] {
        &Mode::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Mode::Hybrid => "Words and meaning together",
            Mode::Lexical => "Words alone (BM25)",
            Mode::Semantic => "Meaning alone (the compiled-in embedding model)",
        };
        Some(PossibleValue::new(self.as_str()).help(help))
    }
}

/// Run `search`.
pub fn run(ctx: &Ctx, args: SearchArgs) -> anyhow::Result<Exit> {
    let report = ctx.run(request::Search::new(
        args.query.join(" "),
        Some(args.scope),
        args.kind,
        args.tag,
        Some(args.limit),
        Some(args.mode),
    ))?;
    output::print(&report, args.json, |report| {
        let mut lines = Vec::new();
        for h in &report.hits {
            lines.push(output::page_label(&h.path, h.title.as_deref()));
            lines.push(format!("  {}", h.snippet));
        }
        if report.truncated {
            lines.push(format!(
                "({} of {} shown; --limit for more)",
                report.hits.len(),
                output::count(report.total, "hit", "hits")
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
        Ok(())
    })
}
