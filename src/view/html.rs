//! The viewer's HTML: escaping, the page layout every route shares, and the small pieces
//! (links to pages, tag chips, lists) the routes assemble. Every interpolated value goes
//! through [`esc`]; the only unescaped HTML is what [`super::render`] already sanitised.

use super::paths::{encode_path, encode_segment, is_markdown};
use std::fmt::Write as _;

/// Escape text for HTML content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The URL that shows a vault file, without the `.md` of a Markdown file: the original
/// viewer's `/wiki/…` under `wiki/` and `/raw/…` under `raw/`; `/page/…` for the few files
/// elsewhere (`inbox.md`). A page whose name without `.md` is itself a Markdown name
/// (`Note.md.md`) keeps its `.md`, since the routes take a URL ending in `.md` as the file.
pub fn href_for(path: &str) -> String {
    let shown = match path.strip_suffix(".md") {
        Some(shown) if !is_markdown(shown) => shown,
        _ => path,
    };
    for top in ["wiki", "raw"] {
        if let Some(rest) = shown.strip_prefix(top).and_then(|r| r.strip_prefix('/')) {
            return format!("/{top}/{}", encode_path(rest));
        }
    }
    format!("/page/{}", encode_path(shown))
}

/// The URL of a vault file's bytes (images, downloads).
pub fn file_href(path: &str) -> String {
    format!("/file/{}", encode_path(path))
}

/// The URL of a tag page.
pub fn tag_href(tag: &str) -> String {
    format!("/tag/{}", encode_segment(tag))
}

/// What a page is called: its title, or its file name without `.md`.
pub fn display_title(path: &str, title: Option<&str>) -> String {
    match title.map(str::trim) {
        Some(t) if !t.is_empty() => t.to_string(),
        _ => {
            let name = path.rsplit('/').next().unwrap_or(path);
            name.strip_suffix(".md").unwrap_or(name).to_string()
        }
    }
}

/// A link to a vault file.
pub fn page_link(path: &str, title: Option<&str>) -> String {
    format!(
        "<a href=\"{}\">{}</a>",
        esc(&href_for(path)),
        esc(&display_title(path, title))
    )
}

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
    fn escapes_everything_that_matters() {
        assert_eq!(
            esc("<a href=\"x\" onclick='y'>&</a>"),
            "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;"
        );
    }

    #[test]
    fn hrefs() {
        assert_eq!(
            href_for("wiki/entities/Garden Plan.md"),
            "/wiki/entities/Garden%20Plan"
        );
        assert_eq!(href_for("raw/inbox/2026-05-01.md"), "/raw/inbox/2026-05-01");
        assert_eq!(href_for("raw/clip.txt"), "/raw/clip.txt");
        assert_eq!(href_for("wiki/img/a b.png"), "/wiki/img/a%20b.png");
        assert_eq!(href_for("inbox.md"), "/page/inbox");
        assert_eq!(href_for("wikipedia/x.md"), "/page/wikipedia/x");
        assert_eq!(href_for("wiki/Note.md.md"), "/wiki/Note.md.md");
        assert_eq!(href_for("wiki/Note.MD.md"), "/wiki/Note.MD.md");
        assert_eq!(href_for("wiki/x.m💡.md"), "/wiki/x.m%F0%9F%92%A1");
        assert_eq!(tag_href("ai/agents"), "/tag/ai%2Fagents");
        assert_eq!(tag_href("c#"), "/tag/c%23");
        assert_eq!(display_title("wiki/log.md", None), "log");
        assert_eq!(display_title("wiki/log.md", Some("  ")), "log");
        assert_eq!(display_title("wiki/x.md", Some("X")), "X");
    }

    #[test]
    fn crumbs_link_raw_directories() {
        let c = crumbs("raw/inbox/2026-05-01.md");
        assert!(c.contains("<a href=\"/raw/\">raw</a>"), "{c}");
        assert!(c.contains("<a href=\"/raw/inbox/\">inbox</a>"), "{c}");
        assert!(c.contains("<span>2026-05-01.md</span>"), "{c}");
    }
}
