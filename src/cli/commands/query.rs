//! `sparks query`: find pages by frontmatter and links.

use crate::cli::{Ctx, exit::Exit, output};
use crate::manifest::PageFilter;
use crate::query::Holding;
use crate::request::{Query, QueryAnswer};
use clap::Args;

/// Find pages by frontmatter fields and the link graph
///
/// Filters combine with AND. Names given to --linked-from and --links-to may be titles,
/// aliases, file names or vault-relative paths, resolved as links are; --links-to a name no
/// page has yet lists the pages whose links name it. Reads the manifest as the last scan left
/// it. No match prints nothing on stdout and says so on stderr.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  sparks query --tag caching --type concept\n  \
    sparks query --links-to \"Cascade Engine\" --json\n  sparks query --orphan --maturity seed\n  \
    sparks query --resolve \"Big Query\""
)]
pub struct QueryArgs {
    /// Pages with this title (case-insensitive)
    #[arg(long)]
    title: Option<String>,
    /// Pages with this alias (case-insensitive)
    #[arg(long)]
    alias: Option<String>,
    /// Pages with this tag (case-insensitive, `#` optional)
    #[arg(long)]
    tag: Option<String>,
    /// Pages of this type (entity, concept, summary, synthesis, collection)
    #[arg(long = "type", value_name = "TYPE")]
    kind: Option<String>,
    /// Pages of this maturity (seed, working, stable, historical)
    #[arg(long)]
    maturity: Option<String>,
    /// Pages that PAGE links to
    #[arg(long, value_name = "PAGE")]
    linked_from: Option<String>,
    /// Pages that link to PAGE (or, if no page has that name, to the name)
    #[arg(long, value_name = "PAGE")]
    links_to: Option<String>,
    /// Pages older than one of their sources
    #[arg(long)]
    stale: bool,
    /// Pages no other page links to (the index does not count)
    #[arg(long)]
    orphan: bool,
    /// Pages with fewer sentences of prose than `[lint] thin_below_sentences` (default 3)
    #[arg(long)]
    thin: bool,
    /// Print at most N pages (the JSON says how many matched and whether it was cut)
    #[arg(long, value_name = "N", value_parser = crate::cli::number::count)]
    limit: Option<usize>,
    /// Instead of filtering, list every page a new page called NAME would collide with
    #[arg(long, value_name = "NAME")]
    resolve: Option<String>,
    /// Print the result as JSON
    #[arg(long)]
    pub(in crate::cli) json: bool,
}

/// Run `query`.
pub fn run(ctx: &Ctx, args: QueryArgs) -> anyhow::Result<Exit> {
    let name = args.resolve.clone();
    let filter = PageFilter {
        title: args.title,
        alias: args.alias,
        tag: args.tag,
        kind: args.kind,
        maturity: args.maturity,
        linked_from: args.linked_from,
        links_to: args.links_to,
        stale: args.stale,
        orphan: args.orphan,
        thin: args.thin,
        limit: args.limit,
        ..PageFilter::default()
    };
    let answer = ctx.run(Query::new(filter, args.resolve)?.holding(Holding::Streamed))?;
    output::print(&answer, args.json, |answer| {
        match &answer {
            QueryAnswer::Resolve(r) => {
                let name = name.unwrap_or_default();
                let mut lines = vec![match (&r.resolves_to, r.ambiguous) {
                    (Some(p), _) => format!("[[{name}]] already resolves to {p}"),
                    (None, true) => format!("[[{name}]] is ambiguous: several pages claim it"),
                    (None, false) => format!("[[{name}]] resolves to nothing yet"),
                }];
                lines.extend(r.collisions.iter().map(|c| {
                    let title = c
                        .title
                        .as_deref()
                        .map(|t| format!(" ({t})"))
                        .unwrap_or_default();
                    format!("  {}{title}: {} {:?}", c.path, c.via, c.name)
                }));
                output::lines(lines)?;
            }
            QueryAnswer::Pages(report) => {
                let mut out = output::Lines::stdout();
                output::stream(|give| report.pages.each(give), |p| out.line(&p.path))?;
                out.finish()?;
                // Said on stderr: a script reading stdout sees no lines, a person sees why.
                if report.total == 0 {
                    output::status("No page matches the query.");
                }
                if report.truncated {
                    output::status(&format!(
                        "({} of {} shown)",
                        report.shown(),
                        output::count(report.total, "page", "pages")
                    ));
                }
            }
        }
        Ok(())
    })
}
