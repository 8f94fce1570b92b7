//! The viewer's HTML: the page layout every route shares, and the small pieces (tag chips,
//! lists, breadcrumbs) the routes assemble. Escaping and links to pages are
//! [`crate::render::html`]'s, shared with a published site. Every interpolated value goes
//! through [`esc`]; the only unescaped HTML is what [`crate::render`] already sanitised.

use crate::render::html::{esc, tag_href};
use crate::render::paths::encode_path;
use std::fmt::Write as _;

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

/// One HTML document of the viewer.
#[derive(Debug, Default)]
pub struct Layout<'a> {
    /// The vault's name.
    pub vault: &'a str,
    /// The `<title>` before the vault name (none for the index).
    pub title: Option<&'a str>,
    /// Breadcrumbs, already HTML.
    pub crumbs: String,
    /// The main column, already HTML.
    pub main: String,
    /// The sidebar, already HTML (none: one column).
    pub aside: Option<String>,
    /// The search box's current text.
    pub query: &'a str,
    /// What the page shows, for the script that reloads it on a change; `None` (a viewer that
    /// does not watch) leaves the script out.
    pub live: Option<Shown>,
}

impl Layout<'_> {
    /// The whole document.
    pub fn render(&self) -> String {
        let title = match self.title {
            Some(t) => format!("{} — {}", esc(t), esc(self.vault)),
            None => esc(self.vault),
        };
        let (class, aside) = match &self.aside {
            Some(a) => ("wrap", format!("<aside class=\"side\">{a}</aside>")),
            None => ("wrap single", String::new()),
        };
        format!(
            "<!doctype html>
<html lang=\"en\">
<head>
<meta charset=\"utf-8\">
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">
<meta name=\"color-scheme\" content=\"light dark\">
<title>{title}</title>
<link rel=\"stylesheet\" href=\"/static/style.css\">
<link rel=\"icon\" href=\"/favicon.ico\">
{live}</head>
<body>
<header class=\"bar\">
<a class=\"brand\" href=\"/\">{vault}</a>
<nav class=\"links\"><a href=\"/\">Index</a><a href=\"/tags\">Tags</a><a href=\"/graph\">Graph</a><a href=\"/raw/\">Raw</a></nav>
<form class=\"search\" action=\"/search\" method=\"get\" role=\"search\">
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
<footer class=\"foot\">Served read-only by <code>sparks view</code></footer>
</body>
</html>
",
            vault = esc(self.vault),
            query = esc(self.query),
            crumbs = self.crumbs,
            main = self.main,
            live = self.live.as_ref().map_or(String::new(), live_script),
        )
    }
}

/// The `data-` attributes of the script tag that tell [`super::live::SCRIPT`] what a page
/// shows: its file, and the pages whose change changes it (backlinks, citations), as attribute
/// text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shown {
    /// The vault-relative file the page shows, if it shows one.
    pub file: Option<String>,
    /// The pages that link to it or cite it.
    pub related: Vec<String>,
}

/// The script tag of a page that reloads itself, telling the script what the page shows.
fn live_script(shown: &Shown) -> String {
    let file = shown
        .file
        .as_ref()
        .map_or(String::new(), |f| format!(" data-file=\"{}\"", esc(f)));
    let related = serde_json::to_string(&shown.related).unwrap_or_else(|_| "[]".into());
    format!(
        "<script src=\"/static/live.js\" defer{file} data-related=\"{}\"></script>\n",
        esc(&related)
    )
}

/// A notice above the content (`kind`: `info` or `warn`).
pub fn notice(kind: &str, html: &str) -> String {
    format!("<p class=\"notice {kind}\">{html}</p>")
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
