//! The page layout the viewer and a published site both use, and the small pieces (tag chips,
//! counts, breadcrumbs, notices) their pages assemble. URLs are the viewer's, rooted at `/`: a
//! published site rewrites them for where it is served. Every interpolated value goes through
//! [`esc`]; the only unescaped HTML is what the caller passes as already HTML.

use super::html::{display_title, esc, page_link, tag_href};
use super::paths::encode_path;
use crate::manifest::{Backlink, SitePage, ViewPage};
use crate::markdown::Frontmatter;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The stylesheet, embedded in the binary.
pub const STYLE: &str = include_str!("assets/style.css");
/// The icon browsers ask for (a 32×32 PNG in an ICO container), embedded in the binary.
pub const FAVICON: &[u8] = include_bytes!("assets/favicon.ico");

/// A tag chip, with a count when given; `active` marks the tag being shown.
pub fn chip(tag: &str, count: Option<usize>, active: bool) -> String {
    let count = count.map_or(String::new(), |n| format!("<span class=\"n\">{n}</span>"));
    let current = if active { " aria-current=\"page\"" } else { "" };
    format!(
        "<a class=\"tag\" href=\"{}\"{current}>#{}{count}</a>",
        esc(&tag_href(tag)),
        esc(tag)
    )
}

/// The section heading of a page type, in the plural.
pub fn type_heading(kind: &str) -> String {
    match kind {
        "entity" => "Entities".into(),
        "concept" => "Concepts".into(),
        "synthesis" => "Synthesis".into(),
        "summary" => "Summaries".into(),
        "collection" => "Collections".into(),
        "" => "Other pages".into(),
        other => {
            let mut c = other.chars();
            c.next()
                .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
        }
    }
}

/// How many pages of a type: `1 entity`, `2 syntheses`, `3 other pages`.
pub fn type_count(kind: &str, n: usize) -> String {
    let (one, many) = match kind {
        "entity" => ("entity", "entities"),
        "concept" => ("concept", "concepts"),
        "synthesis" => ("synthesis", "syntheses"),
        "summary" => ("summary", "summaries"),
        "collection" => ("collection", "collections"),
        "" => ("other page", "other pages"),
        other => (other, other),
    };
    count(n, one, many)
}

/// A page as an index lists it: the viewer's pages and a published site's alike.
pub trait Listed {
    /// Its vault path.
    fn path(&self) -> &str;
    /// Its `title:`.
    fn title(&self) -> Option<&str>;
    /// Its `type:`.
    fn kind(&self) -> Option<&str>;
    /// Its `updated:`.
    fn updated(&self) -> Option<&str>;
}

impl Listed for ViewPage {
    fn path(&self) -> &str {
        &self.path
    }
    fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }
    fn kind(&self) -> Option<&str> {
        self.kind.as_deref()
    }
    fn updated(&self) -> Option<&str> {
        self.updated.as_deref()
    }
}

impl Listed for SitePage {
    fn path(&self) -> &str {
        &self.path
    }
    fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }
    fn kind(&self) -> Option<&str> {
        self.kind.as_deref()
    }
    fn updated(&self) -> Option<&str> {
        self.updated.as_deref()
    }
}

impl<P: Listed> Listed for &P {
    fn path(&self) -> &str {
        (*self).path()
    }
    fn title(&self) -> Option<&str> {
        (*self).title()
    }
    fn kind(&self) -> Option<&str> {
        (*self).kind()
    }
    fn updated(&self) -> Option<&str> {
        (*self).updated()
    }
}

/// Where a type's pages come in an index: the five types in their order, other types by name,
/// untyped pages last.
pub fn type_order(kind: &str) -> usize {
    match kind {
        "entity" => 0,
        "concept" => 1,
        "synthesis" => 2,
        "summary" => 3,
        "collection" => 4,
        "" => 6,
        _ => 5,
    }
}

/// How a list of pages is sorted: by what each is called (its key), then by path.
pub fn list_key<P: Listed>(p: &P) -> (String, String) {
    (
        crate::key::key(&display_title(p.path(), p.title())),
        p.path().to_string(),
    )
}

/// Pages by type, in [`type_order`], each list sorted by [`list_key`].
pub fn by_type<P: Listed>(pages: impl IntoIterator<Item = P>) -> Vec<(String, Vec<P>)> {
    let mut by: BTreeMap<(usize, String), Vec<P>> = BTreeMap::new();
    for p in pages {
        let kind = p.kind().unwrap_or_default().to_string();
        by.entry((type_order(&kind), kind)).or_default().push(p);
    }
    by.into_iter()
        .map(|((_, k), mut v)| {
            v.sort_by_cached_key(list_key);
            (k, v)
        })
        .collect()
}

/// An index's pages by type ([`by_type`]): how many there are of each, then a section per type
/// listing them, each link followed by `after` (HTML).
pub fn type_sections<P: Listed>(
    groups: &[(String, Vec<P>)],
    after: impl Fn(&P) -> String,
) -> String {
    let total: usize = groups.iter().map(|(_, p)| p.len()).sum();
    let summary: Vec<String> = groups
        .iter()
        .map(|(k, p)| esc(&type_count(k, p.len())))
        .collect();
    let mut out = format!(
        "<p class=\"lede\">{}{}</p>\n",
        count(total, "page", "pages"),
        match summary.is_empty() {
            true => String::new(),
            false => format!(": {}", summary.join(" · ")),
        }
    );
    for (kind, pages) in groups {
        let _ = write!(
            out,
            "<section class=\"group\">\n<h2>{} <span class=\"n\">{}</span></h2>\n<ul class=\"pages\">\n",
            esc(&type_heading(kind)),
            pages.len()
        );
        for p in pages {
            let _ = writeln!(
                out,
                "<li>{}{}</li>",
                page_link(p.path(), p.title()),
                after(p)
            );
        }
        out.push_str("</ul>\n</section>\n");
    }
    out
}

/// The sidebar section of the pages updated last, each with its date; nothing for none.
pub fn recently_updated<P: Listed>(pages: &[P]) -> String {
    if pages.is_empty() {
        return String::new();
    }
    let mut out = String::from("<section>\n<h2>Recently updated</h2>\n<ul class=\"recent\">\n");
    for p in pages {
        let _ = writeln!(
            out,
            "<li>{} <time>{}</time></li>",
            page_link(p.path(), p.title()),
            esc(p.updated().unwrap_or_default())
        );
    }
    out.push_str("</ul>\n</section>\n");
    out
}

/// `n word` with the right plural.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// A path shown as breadcrumbs; `raw/` directories link to their listings.
pub fn crumbs(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let mut out = String::from("<nav class=\"crumbs\" aria-label=\"Path\"><a href=\"/\">index</a>");
    for (i, part) in parts.iter().enumerate() {
        out.push_str("<span class=\"sep\">/</span>");
        let last = i + 1 == parts.len();
        if parts[0] == "raw" && !last {
            let dir = parts[1..=i].join("/");
            let href = if dir.is_empty() {
                "/raw/".to_string()
            } else {
                format!("/raw/{}/", encode_path(&dir))
            };
            let _ = write!(out, "<a href=\"{}\">{}</a>", esc(&href), esc(part));
        } else {
            let _ = write!(out, "<span>{}</span>", esc(part));
        }
    }
    out.push_str("</nav>");
    out
}

/// A notice above the content (`kind`: `info` or `warn`).
pub fn notice(kind: &str, html: &str) -> String {
    format!("<p class=\"notice {kind}\">{html}</p>")
}

/// A page's heading (its id the slug of the H1 the body's render dropped, so that links to it
/// still land) and the line under it: type, maturity, when it was updated.
pub fn title_and_byline(title: &str, dropped_h1: Option<&str>, fm: Option<&Frontmatter>) -> String {
    let mut main = String::new();
    let id = dropped_h1.map_or(String::new(), |h| {
        format!(" id=\"{}\"", esc(&super::slug(h)))
    });
    let _ = writeln!(main, "<h1{id}>{}</h1>", esc(title));
    let byline: Vec<String> = [
        fm.and_then(|f| f.kind.as_deref())
            .map(|k| format!("<span class=\"badge\">{}</span>", esc(k))),
        fm.and_then(|f| f.maturity.as_deref()).map(esc),
        fm.and_then(|f| f.updated.as_deref())
            .map(|u| format!("updated <time>{}</time>", esc(u))),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !byline.is_empty() {
        let _ = writeln!(main, "<p class=\"byline\">{}</p>", byline.join(" · "));
    }
    main
}

/// The sidebar's table of contents of a page (its headings down to H3), when it has two or
/// more.
pub fn toc(entries: &[super::TocEntry]) -> String {
    let toc: Vec<_> = entries.iter().filter(|t| t.level <= 3).collect();
    if toc.len() < 2 {
        return String::new();
    }
    let mut aside = String::from("<section>\n<h2>On this page</h2>\n<ul class=\"toc\">\n");
    for t in toc {
        let _ = writeln!(
            aside,
            "<li class=\"l{}\"><a href=\"{}\">{}</a></li>",
            t.level,
            esc(&super::fragment(&t.id)),
            esc(&t.text)
        );
    }
    aside.push_str("</ul>\n</section>\n");
    aside
}

/// The sidebar's sections of what a page's frontmatter says: its facts, tags and sources,
/// each source as `source` shows it.
pub fn about(fm: &Frontmatter, source: impl Fn(&str) -> String) -> String {
    let mut aside = String::new();
    let mut dl = String::new();
    for (label, value) in [
        ("Type", &fm.kind),
        ("Maturity", &fm.maturity),
        ("Created", &fm.created),
        ("Updated", &fm.updated),
    ] {
        if let Some(v) = value.as_deref().filter(|v| !v.trim().is_empty()) {
            let _ = write!(dl, "<dt>{label}</dt><dd>{}</dd>", esc(v));
        }
    }
    if !fm.aliases.is_empty() {
        let aliases: Vec<String> = fm.aliases.iter().map(|a| esc(a)).collect();
        let _ = write!(dl, "<dt>Aliases</dt><dd>{}</dd>", aliases.join(", "));
    }
    if !dl.is_empty() {
        let _ = writeln!(
            aside,
            "<section>\n<h2>About</h2>\n<dl class=\"facts\">{dl}</dl>\n</section>"
        );
    }
    let tags: Vec<String> = fm
        .tags
        .iter()
        .map(|t| crate::key::key(t.trim().trim_start_matches('#')))
        .filter(|t| !t.is_empty())
        .collect();
    if !tags.is_empty() {
        aside.push_str("<section>\n<h2>Tags</h2>\n<p class=\"tags\">");
        for t in &tags {
            aside.push_str(&chip(t, None, false));
        }
        aside.push_str("</p>\n</section>\n");
    }
    if !fm.sources.is_empty() {
        aside.push_str("<section>\n<h2>Sources</h2>\n<ul class=\"sources\">\n");
        for s in &fm.sources {
            let _ = writeln!(aside, "<li>{}</li>", source(s));
        }
        aside.push_str("</ul>\n</section>\n");
    }
    aside
}

/// The pages in `links`, by title, under `heading` with the count `total` (more than are
/// listed when the list was cut).
pub fn backlinks(heading: &str, links: &[Backlink], total: usize) -> String {
    if links.is_empty() {
        return String::new();
    }
    let mut sorted: Vec<&Backlink> = links.iter().collect();
    sorted.sort_by_cached_key(|b| crate::key::key(&display_title(&b.source, b.title.as_deref())));
    let mut out = format!(
        "<section class=\"backlinks\">\n<h2>{heading} <span class=\"n\">{total}</span></h2>\n<ul>\n"
    );
    for b in sorted {
        let _ = writeln!(out, "<li>{}</li>", page_link(&b.source, b.title.as_deref()));
    }
    if total > links.len() {
        let _ = writeln!(
            out,
            "<li class=\"more\">and {} more</li>",
            total - links.len()
        );
    }
    out.push_str("</ul>\n</section>\n");
    out
}

/// One HTML document: the bar (the vault's name, its sections, the search box), breadcrumbs,
/// the main column and a sidebar.
#[derive(Debug, Default)]
pub struct Document<'a> {
    /// The vault's name.
    pub vault: &'a str,
    /// The `<title>` before the vault name (none for the index).
    pub title: Option<&'a str>,
    /// Breadcrumbs, already HTML.
    pub crumbs: &'a str,
    /// The main column, already HTML.
    pub main: &'a str,
    /// The sidebar, already HTML (none: one column).
    pub aside: Option<&'a str>,
    /// The search box's current text.
    pub query: &'a str,
    /// The sections the bar links to: label and URL.
    pub sections: &'a [(&'a str, &'a str)],
    /// Where the search box sends its query (a `GET` with `q`).
    pub search: &'a str,
    /// More of the head, already HTML (a script tag).
    pub head: &'a str,
    /// The footer's text, already HTML.
    pub footer: &'a str,
}

impl Document<'_> {
    /// The whole document.
    pub fn render(&self) -> String {
        let title = match self.title {
            Some(t) => format!("{} — {}", esc(t), esc(self.vault)),
            None => esc(self.vault),
        };
        let (class, aside) = match self.aside {
            Some(a) => ("wrap", format!("<aside class=\"side\">{a}</aside>")),
            None => ("wrap single", String::new()),
        };
        let mut sections = String::new();
        for (label, href) in self.sections {
            let _ = write!(sections, "<a href=\"{}\">{}</a>", esc(href), esc(label));
        }
        // Made at its size: a page of megabytes grown by doubling took twice its size.
        let mut out = String::with_capacity(self.main.len() + aside.len() + 4096);
        let _ = write!(
            out,
            "<!doctype html>
<html lang=\"en\">
<head>
<meta charset=\"utf-8\">
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">
<meta name=\"color-scheme\" content=\"light dark\">
<title>{title}</title>
<link rel=\"stylesheet\" href=\"/static/style.css\">
<link rel=\"icon\" href=\"/favicon.ico\">
{head}</head>
<body>
<header class=\"bar\">
<a class=\"brand\" href=\"/\">{vault}</a>
<nav class=\"links\">{sections}</nav>
<form class=\"search\" action=\"{search}\" method=\"get\" role=\"search\">
<input type=\"search\" name=\"q\" value=\"{query}\" placeholder=\"Search the wiki\" aria-label=\"Search the wiki\">
</form>
</header>
<div class=\"{class}\">
<main>
{crumbs}
{main}
</main>
{aside}
</div>
<footer class=\"foot\">{footer}</footer>
</body>
</html>
",
            vault = esc(self.vault),
            query = esc(self.query),
            search = esc(self.search),
            crumbs = self.crumbs,
            main = self.main,
            head = self.head,
            footer = self.footer,
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crumbs_link_raw_directories() {
        let c = crumbs("raw/inbox/2026-05-01.md");
        assert!(c.contains("<a href=\"/raw/\">raw</a>"), "{c}");
        assert!(c.contains("<a href=\"/raw/inbox/\">inbox</a>"), "{c}");
        assert!(c.contains("<span>2026-05-01.md</span>"), "{c}");
    }
}
