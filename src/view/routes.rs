//! What each route answers, as plain values: a [`Site`] and the request's path and query in,
//! a [`Reply`] out. [`dispatch`] is the routing table; the catalogue routes are here (index,
//! tags, search), the routes that show files in [`super::files`].

use super::html::{chip, count, display_title, esc, page_link, type_count, type_heading};
use super::paths;
use super::search;
use super::site::{Reply, Site};
use crate::manifest::{Manifest, TagCount, ViewPage};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The stylesheet, embedded in the binary.
pub const STYLE: &str = include_str!("assets/style.css");

/// Recently updated pages listed on the index.
const RECENT: usize = 10;
/// Tags shown in a sidebar before "all tags".
const SIDEBAR_TAGS: usize = 30;

/// Answer a GET (or HEAD) for `path` (still percent-encoded) and `query`.
pub fn dispatch(site: &Site, path: &str, query: Option<&str>) -> Reply {
    let source = query_value(query, "source").is_some();
    match path {
        "/" => index(site),
        "/tags" | "/tags/" => tags(site),
        "/search" => search(site, &query_value(query, "q").unwrap_or_default()),
        "/static/style.css" => style(),
        "/raw" => Reply::redirect("/raw/".into()),
        _ => {
            if let Some(rest) = path.strip_prefix("/page/") {
                super::files::page(site, rest, source)
            } else if let Some(rest) = path.strip_prefix("/raw/") {
                super::files::raw(site, rest, source)
            } else if let Some(rest) = path.strip_prefix("/file/") {
                super::files::bytes(site, rest)
            } else if let Some(rest) = path.strip_prefix("/tag/") {
                tag(site, rest)
            } else if let Some(r) = legacy(path) {
                r
            } else {
                site.not_found()
            }
        }
    }
}

/// The value of `name` in a form-encoded query (`+` is a space); bad encodings read as empty.
pub fn query_value(query: Option<&str>, name: &str) -> Option<String> {
    query?.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| paths::percent_decode(&v.replace('+', " ")).unwrap_or_default())
    })
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
    let groups = group_by_type(pages);
    let total: usize = groups.iter().map(|(_, p)| p.len()).sum();
    let mut main = format!("<h1>{}</h1>\n", esc(&site.name));
    main.push_str(&db.notice());
    let summary: Vec<String> = groups
        .iter()
        .map(|(k, p)| esc(&type_count(k, p.len())))
        .collect();
    let _ = writeln!(
        main,
        "<p class=\"lede\">{}{}</p>",
        count(total, "page", "pages"),
        if summary.is_empty() {
            String::new()
        } else {
            format!(": {}", summary.join(" · "))
        }
    );
    for (kind, pages) in &groups {
        let _ = write!(
            main,
            "<section class=\"group\">\n<h2>{} <span class=\"n\">{}</span></h2>\n<ul class=\"pages\">\n",
            esc(&type_heading(kind)),
            pages.len()
        );
        for p in pages {
            let _ = writeln!(
                main,
                "<li>{}{}</li>",
                page_link(&p.path, p.title.as_deref()),
                maturity(p)
            );
        }
        main.push_str("</ul>\n</section>\n");
    }
    let mut aside = String::new();
    if !recent.is_empty() {
        aside.push_str("<section>\n<h2>Recently updated</h2>\n<ul class=\"recent\">\n");
        for p in &recent {
            let _ = writeln!(
                aside,
                "<li>{} <time>{}</time></li>",
                page_link(&p.path, p.title.as_deref()),
                esc(p.updated.as_deref().unwrap_or_default())
            );
        }
        aside.push_str("</ul>\n</section>\n");
    }
    aside.push_str(&tag_cloud(&tags, None, Some(SIDEBAR_TAGS)));
    aside.push_str("<section>\n<h2>Sources</h2>\n<p><a href=\"/raw/\">Browse raw captures</a></p>\n</section>\n");
    Reply::html(200, site.layout(None, main, Some(aside)).render())
}

/// Pages by type: the five types in their order, other types by name, untyped pages last;
/// each list sorted by title.
fn group_by_type(pages: Vec<ViewPage>) -> Vec<(String, Vec<ViewPage>)> {
    let mut by: BTreeMap<(usize, String), Vec<ViewPage>> = BTreeMap::new();
    for p in pages {
        let kind = p.kind.clone().unwrap_or_default();
        let order = match kind.as_str() {
            "entity" => 0,
            "concept" => 1,
            "synthesis" => 2,
            "summary" => 3,
            "collection" => 4,
            "" => 6,
            _ => 5,
        };
        by.entry((order, kind)).or_default().push(p);
    }
    by.into_iter()
        .map(|((_, k), mut v)| {
            v.sort_by_cached_key(sort_key);
            (k, v)
        })
        .collect()
}

fn sort_key(p: &ViewPage) -> (String, String) {
    (
        crate::key::key(&display_title(&p.path, p.title.as_deref())),
        p.path.clone(),
    )
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
    pages.sort_by_cached_key(sort_key);
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

/// `GET /search?q=`: pages whose title, alias or file name matches.
pub fn search(site: &Site, q: &str) -> Reply {
    let q = q.trim();
    let db = site.db();
    let mut main = String::from("<h1>Search</h1>\n");
    main.push_str(&db.notice());
    let _ = writeln!(
        main,
        "<form class=\"search big\" action=\"/search\" method=\"get\" role=\"search\">\
         <input type=\"search\" name=\"q\" value=\"{}\" aria-label=\"Search\" placeholder=\"A title or an alias\">\
         <button type=\"submit\">Search</button></form>",
        esc(q)
    );
    if q.is_empty() {
        main.push_str(
            "<p class=\"lede\">Titles, aliases and the names of untitled pages are searched.</p>\n",
        );
    } else if let Some(m) = db.get() {
        let hits = match search::search(m, q) {
            Ok(h) => h,
            Err(e) => return site.failed(&e.to_string()),
        };
        let _ = writeln!(
            main,
            "<p class=\"lede\">{} for “{}”.</p>",
            count(hits.len(), "page", "pages"),
            esc(q)
        );
        if !hits.is_empty() {
            main.push_str("<ol class=\"hits\">\n");
            for h in &hits {
                let matched = h.matched.as_deref().map_or(String::new(), |m| {
                    format!(" <span class=\"via\">{}</span>", esc(m))
                });
                let kind = h.kind.as_deref().map_or(String::new(), |k| {
                    format!("<span class=\"badge\">{}</span> ", esc(k))
                });
                let _ = writeln!(
                    main,
                    "<li>{}{matched}<br><span class=\"meta\">{kind}{}</span></li>",
                    page_link(&h.path, h.title.as_deref()),
                    esc(&h.path)
                );
            }
            main.push_str("</ol>\n");
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

/// `GET /static/style.css`.
pub fn style() -> Reply {
    Reply {
        status: 200,
        content_type: "text/css; charset=utf-8",
        body: STYLE.as_bytes().to_vec(),
        headers: Vec::new(),
    }
}

/// The compatibility routes of the original viewer: `/wiki/<rest>` and `/tags/<tag>`.
pub fn legacy(path: &str) -> Option<Reply> {
    if let Some(rest) = path.strip_prefix("/wiki/") {
        return Some(Reply::redirect(format!("/page/wiki/{rest}")));
    }
    path.strip_prefix("/tags/")
        .filter(|t| !t.is_empty())
        .map(|t| Reply::redirect(format!("/tag/{t}")))
}
