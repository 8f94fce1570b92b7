//! What each route answers, as plain values: a [`Site`] and the request's path and query in,
//! a [`Reply`] out. [`dispatch`] is the routing table; the catalogue routes are here (index,
//! tags, search, the icon), the routes that show files in [`super::files`]. The catalogue
//! routes share their helpers (grouping by type, the tag cloud, a page's meta line), which is
//! why they stay in one file a little past 400 lines.

use super::html::{chip, count};
use super::paths;
use super::search;
use super::site::{Reply, Site};
use crate::manifest::{Manifest, Scope, TagCount, ViewPage};
use crate::render::html::{esc, page_link};
use crate::render::layout;
use crate::search::Piece;
use std::fmt::Write as _;

pub use crate::render::layout::{FAVICON, STYLE};

/// Recently updated pages listed on the index.
const RECENT: usize = 10;
/// Tags shown in a sidebar before "all tags".
const SIDEBAR_TAGS: usize = 30;

/// Answer a GET (or HEAD) for `path` (still percent-encoded) and `query`.
pub fn dispatch(site: &Site, path: &str, query: Option<&str>) -> Reply {
    let source = paths::query_value(query, "source").is_some();
    match path {
        "/" => index(site),
        "/tags" | "/tags/" => tags(site),
        "/tag" | "/tag/" => Reply::redirect("/tags".into()),
        "/search" => search(site, query),
        "/graph" | "/graph/" => super::graph::page(site, query),
        "/static/style.css" => style(),
        "/static/live.js" => script(),
        "/favicon.ico" => favicon(),
        "/raw" => Reply::redirect("/raw/".into()),
        // The index lists the wiki; there is no listing of `wiki/` of its own.
        "/wiki" | "/wiki/" => Reply::redirect("/".into()),
        _ => {
            if let Some(rest) = path.strip_prefix("/wiki/") {
                super::files::wiki(site, rest, source)
            } else if let Some(rest) = path.strip_prefix("/raw/") {
                super::files::raw(site, rest, source)
            } else if let Some(rest) = path.strip_prefix("/page/") {
                super::files::page(site, rest, source)
            } else if let Some(rest) = path.strip_prefix("/file/") {
                super::files::bytes(site, rest)
            } else if let Some(rest) = path
                .strip_prefix("/tag/")
                .or_else(|| path.strip_prefix("/tags/"))
            {
                // `/tag/<tag>` (the spec's name) and `/tags/<tag>` (the original's) alike.
                tag(site, rest)
            } else {
                site.not_found()
            }
        }
    }
}

/// `GET /`: pages grouped by type with counts; recently updated and tags alongside.
pub fn index(site: &Site) -> Reply {
    let db = site.db();
    let (pages, recent, tags) = match db.get() {
        Some(m) => match (m.view_pages(), m.recent_pages(RECENT), m.tag_counts()) {
            (Ok(p), Ok(r), Ok(t)) => (p, r, t),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return site.failed(&e.to_string()),
        },
        None => Default::default(),
    };
    let groups = layout::by_type(pages);
    let mut main = format!("<h1>{}</h1>\n", esc(&site.name));
    main.push_str(&db.notice());
    main.push_str(&layout::type_sections(&groups, maturity));
    let mut aside = layout::recently_updated(&recent);
    aside.push_str(&tag_cloud(&tags, None, Some(SIDEBAR_TAGS)));
    aside.push_str("<section>\n<h2>Sources</h2>\n<p><a href=\"/raw/\">Browse raw captures</a></p>\n</section>\n");
    Reply::html(200, site.layout(None, main, Some(aside)).render())
}

fn maturity(p: &ViewPage) -> String {
    match p.maturity.as_deref() {
        Some(m) if !m.trim().is_empty() => {
            format!(" <span class=\"badge quiet\">{}</span>", esc(m))
        }
        _ => String::new(),
    }
}

/// Tag chips in a sidebar section, `limit` at most (with a link to all of them).
fn tag_cloud(tags: &[TagCount], active: Option<&str>, limit: Option<usize>) -> String {
    if tags.is_empty() {
        return String::new();
    }
    let shown = limit.unwrap_or(tags.len()).min(tags.len());
    let mut out = String::from("<section>\n<h2>Tags</h2>\n<p class=\"tags\">");
    for t in &tags[..shown] {
        out.push_str(&chip(&t.tag, Some(t.count), active == Some(t.tag.as_str())));
    }
    out.push_str("</p>\n");
    if shown < tags.len() {
        let _ = writeln!(out, "<p><a href=\"/tags\">All {} tags</a></p>", tags.len());
    }
    out.push_str("</section>\n");
    out
}

/// `GET /tags`: every tag.
pub fn tags(site: &Site) -> Reply {
    let db = site.db();
    let tags = match db.get().map(Manifest::tag_counts).transpose() {
        Ok(t) => t.unwrap_or_default(),
        Err(e) => return site.failed(&e.to_string()),
    };
    let mut main = String::from("<h1>Tags</h1>\n");
    main.push_str(&db.notice());
    let _ = writeln!(
        main,
        "<p class=\"lede\">{}</p>",
        count(tags.len(), "tag", "tags")
    );
    main.push_str("<p class=\"tags big\">");
    for t in &tags {
        main.push_str(&chip(&t.tag, Some(t.count), false));
    }
    main.push_str("</p>\n");
    Reply::html(200, site.layout(Some("Tags"), main, None).render())
}

/// `GET /tag/<tag>`: the pages carrying a tag; 404 for a tag no page carries.
pub fn tag(site: &Site, encoded: &str) -> Reply {
    let Ok(tag) = paths::percent_decode(encoded) else {
        return site.not_found();
    };
    let tag = crate::key::key(tag.trim().trim_start_matches('#'));
    let db = site.db();
    let Some(m) = db.get() else {
        return site.not_found();
    };
    let (pages, all) = match (m.pages_tagged(&tag), m.tag_counts()) {
        (Ok(p), Ok(t)) => (p, t),
        (Err(e), _) | (_, Err(e)) => return site.failed(&e.to_string()),
    };
    if pages.is_empty() {
        return site.not_found();
    }
    let mut pages = pages;
    pages.sort_by_cached_key(layout::list_key);
    let title = format!("#{tag}");
    let mut main = format!("<h1 class=\"tag-title\">{}</h1>\n", esc(&title));
    let _ = writeln!(
        main,
        "<p class=\"lede\">{} tagged.</p>\n<ul class=\"pages wide\">",
        count(pages.len(), "page", "pages")
    );
    for p in &pages {
        let _ = writeln!(
            main,
            "<li>{}{}</li>",
            page_link(&p.path, p.title.as_deref()),
            meta_line(p)
        );
    }
    main.push_str("</ul>\n");
    let aside = tag_cloud(&all, Some(&tag), None);
    Reply::html(200, site.layout(Some(&title), main, Some(aside)).render())
}

/// Type, maturity and date of a page in a list.
fn meta_line(p: &ViewPage) -> String {
    let parts: Vec<String> = [
        p.kind.as_deref(),
        p.maturity.as_deref(),
        p.updated.as_deref(),
    ]
    .into_iter()
    .flatten()
    .filter(|s| !s.trim().is_empty())
    .map(esc)
    .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" <span class=\"meta\">{}</span>", parts.join(" · "))
    }
}

/// Name hits shown before "and K more".
const NAMES_SHOWN: usize = 20;

/// `GET /search?q=…&in=wiki|raw|all`: the text, as `sparks search` finds and ranks it, with
/// extracts; then pages named like the query that the text does not mention.
pub fn search(site: &Site, query: Option<&str>) -> Reply {
    let q = paths::query_value(query, "q").unwrap_or_default();
    let q = q.trim();
    let scope = match paths::query_value(query, "in").as_deref() {
        Some("raw") => Scope::Raw,
        Some("all") => Scope::All,
        _ => Scope::Wiki,
    };
    let db = site.db();
    let mut main = String::from("<h1>Search</h1>\n");
    main.push_str(&db.notice());
    let option = |value: &str, label: &str, s: Scope| {
        let selected = if s == scope { " selected" } else { "" };
        format!("<option value=\"{value}\"{selected}>{label}</option>")
    };
    let _ = writeln!(
        main,
        "<form class=\"search big\" action=\"/search\" method=\"get\" role=\"search\">\
         <input type=\"search\" name=\"q\" value=\"{}\" aria-label=\"Search\" placeholder=\"Words, &quot;a phrase&quot;, prefix*\">\
         <select name=\"in\" aria-label=\"Where\">{}{}{}</select>\
         <button type=\"submit\">Search</button></form>",
        esc(q),
        option("wiki", "Wiki", Scope::Wiki),
        option("raw", "Raw captures", Scope::Raw),
        option("all", "Both", Scope::All),
    );
    if q.is_empty() {
        main.push_str(
            "<p class=\"lede\">Searches the text, titles, aliases and tags as <code>sparks search</code> does: \
             ranked, the pages with most of your words first; <code>\"a phrase\"</code>, <code>+word</code>, \
             <code>OR</code>, <code>-word</code> and <code>prefix*</code> work too. Titles and aliases that merely contain what you type are listed after.</p>\n",
        );
    } else if let Some(m) = db.get() {
        let found = match search::find(&site.root, m, q, scope) {
            Ok(f) => f,
            Err(e) => return site.failed(&e.to_string()),
        };
        let (one, many) = if scope == Scope::Wiki {
            ("page", "pages")
        } else {
            ("file", "files")
        };
        let _ = writeln!(
            main,
            "<p class=\"lede\">{} for “{}”.</p>",
            count(found.total, one, many),
            esc(q)
        );
        if !found.text.is_empty() {
            main.push_str("<ol class=\"hits\">\n");
            for t in &found.text {
                let kind = t.hit.kind.as_deref().map_or(String::new(), |k| {
                    format!(" <span class=\"badge\">{}</span>", esc(k))
                });
                let _ = writeln!(
                    main,
                    "<li>{}{kind}<p class=\"snippet\">{}</p><span class=\"meta\">{}</span></li>",
                    page_link(&t.hit.path, t.hit.title.as_deref()),
                    extract_html(&t.extract),
                    esc(&t.hit.path)
                );
            }
            main.push_str("</ol>\n");
        }
        if found.total > found.text.len() {
            let _ = writeln!(
                main,
                "<p class=\"more\">… and {} more: add a word to narrow the search.</p>",
                found.total - found.text.len()
            );
        }
        if !found.names.is_empty() {
            let _ = writeln!(
                main,
                "<section class=\"names\">\n<h2>Named like “{}”</h2>\n<ul class=\"hits names\">",
                esc(q)
            );
            for h in found.names.iter().take(NAMES_SHOWN) {
                let matched = h.matched.as_deref().map_or(String::new(), |m| {
                    format!(" <span class=\"via\">{}</span>", esc(m))
                });
                let _ = writeln!(
                    main,
                    "<li>{}{matched} <span class=\"meta\">{}</span></li>",
                    page_link(&h.path, h.title.as_deref()),
                    esc(&h.path)
                );
            }
            main.push_str("</ul>\n");
            if found.names.len() > NAMES_SHOWN {
                let floor = if found.names_capped { "at least " } else { "" };
                let _ = writeln!(
                    main,
                    "<p class=\"more\">… and {floor}{} more.</p>",
                    found.names.len() - NAMES_SHOWN
                );
            }
            main.push_str("</section>\n");
        }
    }
    let title = if q.is_empty() {
        "Search".to_string()
    } else {
        format!("Search: {q}")
    };
    let mut layout = site.layout(Some(&title), main, None);
    layout.query = q;
    Reply::html(200, layout.render())
}

/// An extract as HTML: the text escaped, the occurrences of the query's terms marked.
fn extract_html(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| {
            if p.hit {
                format!("<mark>{}</mark>", esc(&p.text))
            } else {
                esc(&p.text)
            }
        })
        .collect()
}

/// `GET /static/style.css`.
pub fn style() -> Reply {
    Reply {
        status: 200,
        content_type: "text/css; charset=utf-8",
        body: STYLE.as_bytes().to_vec(),
        headers: Vec::new(),
    }
}

/// `GET /static/live.js`: the script that reloads a page on a change, embedded in the binary.
pub fn script() -> Reply {
    Reply {
        status: 200,
        content_type: "text/javascript; charset=utf-8",
        body: super::live::SCRIPT.as_bytes().to_vec(),
        headers: Vec::new(),
    }
}

/// `GET /favicon.ico`: the viewer's icon, embedded in the binary.
pub fn favicon() -> Reply {
    Reply {
        status: 200,
        content_type: "image/x-icon",
        body: FAVICON.to_vec(),
        headers: vec![("cache-control", "max-age=86400".into())],
    }
}
