//! The routes that show vault files: the original viewer's `/wiki/<path>` and `/raw/<path>`
//! (with or without `.md`; Markdown rendered, the directories of `raw/` listed by
//! [`super::listing`]), `/page/<path>` for the files elsewhere (a `/page/wiki/…` or
//! `/page/raw/…` URL of earlier versions redirects), and `/file/<path>` (the bytes, for
//! images). Every path goes through [`percent_decode`] and [`paths`]; whatever is refused is a
//! 404, never a redirect, so that no encoding of `..` leads anywhere.

use super::html::{crumbs, notice};
use super::listing::{listing, size_text};
use super::page::{self, Content, FileView, Freshness, MarkdownView};
use super::paths::percent_decode;
use super::site::{Reply, Site};
use crate::manifest::Backlink;
use crate::render::html::{display_title, esc, file_href, href_for, page_link};
use crate::render::layout::{about, backlinks, title_and_byline, toc};
use crate::render::paths::{self, VaultFile};
use std::fmt::Write as _;

/// Find the file a request names: `<path>` when it ends in `.md`, else `<path>.md` and then
/// `<path>` itself. The manifest and its companions are never served ([`paths::resolve_clean`]
/// refuses them, by name or through a symbolic link).
fn lookup(site: &Site, decoded_rel: &str) -> Option<VaultFile> {
    let rel = paths::clean_relative(decoded_rel).ok()?;
    if rel.is_empty() {
        return None;
    }
    let candidates = if paths::is_markdown(&rel) {
        vec![rel]
    } else {
        vec![format!("{rel}.md"), rel]
    };
    candidates
        .iter()
        .find_map(|c| paths::resolve_clean(&site.root, c).ok())
}

/// The vault path `<top>/<rest>` of a request path below `/<top>/`; `None` when the rest is
/// refused (bad encoding, `..`, a hidden name, a backslash).
fn under(top: &str, encoded: &str) -> Option<String> {
    let rest = paths::clean_relative(&percent_decode(encoded).ok()?).ok()?;
    Some(if rest.is_empty() {
        top.to_string()
    } else {
        format!("{top}/{rest}")
    })
}

/// `GET /page/<path>`: a file outside `wiki/` and `raw/`; `source` shows a Markdown file's text
/// instead of rendering it. A file under `wiki/` or `raw/` redirects to its own URL, once it
/// is known to exist.
pub fn page(site: &Site, encoded: &str, source: bool) -> Reply {
    let Some(f) = percent_decode(encoded)
        .ok()
        .and_then(|rel| lookup(site, &rel))
    else {
        return site.not_found();
    };
    if f.rel.starts_with("wiki/") || f.rel.starts_with("raw/") {
        let query = if source { "?source" } else { "" };
        return Reply::redirect(format!("{}{query}", href_for(&f.rel)));
    }
    show(site, f, source)
}

/// `GET /wiki/<path>`: a file under `wiki/`, Markdown with or without its `.md`.
pub fn wiki(site: &Site, encoded: &str, source: bool) -> Reply {
    match under("wiki", encoded).and_then(|rel| lookup(site, &rel)) {
        Some(f) => show(site, f, source),
        None => site.not_found(),
    }
}

/// `GET /raw/` and `GET /raw/<path>`: a raw file, or the listing of a directory of `raw/`.
pub fn raw(site: &Site, encoded: &str, source: bool) -> Reply {
    let Some(rel) = under("raw", encoded) else {
        return site.not_found();
    };
    if let Ok(dir) = paths::resolve_dir(&site.root, &rel) {
        return listing(site, &rel, &dir);
    }
    match lookup(site, &rel) {
        Some(f) => show(site, f, source),
        None => site.not_found(),
    }
}

/// `GET /file/<path>`: the bytes of a file. Images are shown inline; anything else is a
/// download. Either way the response is sandboxed: an SVG or HTML file cannot run script here.
pub fn bytes(site: &Site, encoded: &str) -> Reply {
    let Some(f) = percent_decode(encoded)
        .ok()
        .and_then(|rel| paths::clean_relative(&rel).ok())
        .and_then(|rel| paths::resolve_clean(&site.root, &rel).ok())
    else {
        return site.not_found();
    };
    let Ok(body) = fs_err::read(&f.abs) else {
        return site.not_found();
    };
    let sandbox = (
        "content-security-policy",
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox".to_string(),
    );
    match paths::image_type(&f.rel) {
        Some(ct) => Reply {
            status: 200,
            content_type: ct,
            body,
            headers: vec![sandbox],
        },
        None => {
            let name = f.rel.rsplit('/').next().unwrap_or("file");
            Reply {
                status: 200,
                content_type: "application/octet-stream",
                body,
                headers: vec![
                    sandbox,
                    (
                        "content-disposition",
                        format!(
                            "attachment; filename*=UTF-8''{}",
                            paths::encode_segment(name)
                        ),
                    ),
                ],
            }
        }
    }
}

fn show(site: &Site, f: VaultFile, source: bool) -> Reply {
    let Ok(bytes) = fs_err::read(&f.abs) else {
        return site.not_found();
    };
    let db = site.db();
    let view = match page::view_file(&site.root, &f.rel, &bytes, db.lease()) {
        Ok(v) => v,
        Err(e) => return site.failed(&e.to_string()),
    };
    let FileView { rel, content } = view;
    let conflict = super::copies::notice_for(&site.root, db.get(), &rel);
    let related = match &content {
        Content::Markdown(md) => md
            .backlinks
            .iter()
            .chain(&md.cited_by)
            .map(|b| b.source.clone())
            .chain(md.embedded.iter().cloned())
            .collect(),
        _ => Vec::new(),
    };
    let (title, main, aside) = match content {
        Content::Markdown(md) if source => {
            let title = super::copies::title(&rel, md.title.clone());
            let main = format!(
                "<h1>{}</h1>\n<pre class=\"source\">{}</pre>\n",
                esc(&title),
                esc(&md.source)
            );
            let aside = format!(
                "<section><h2>Source</h2><p><a href=\"{}\">Show rendered</a></p></section>",
                esc(&href_for(&rel))
            );
            (title, main, Some(aside))
        }
        Content::Markdown(mut md) => {
            let title = super::copies::title(&rel, md.title.clone());
            md.title = title.clone();
            let graph = match db
                .get()
                .map(|m| crate::render::graph::section(m, &rel))
                .transpose()
            {
                Ok(g) => g.unwrap_or_default(),
                Err(e) => return site.failed(&e.to_string()),
            };
            let notices = format!("{}{conflict}", db.notice());
            let (main, aside) = markdown(&rel, &md, &notices, &graph);
            (title, main, Some(aside))
        }
        Content::Text { text, truncated } => {
            let title = display_title(&rel, None);
            let cut = if truncated {
                notice(
                    "info",
                    "This file is long: only its first mebibyte is shown.",
                )
            } else {
                String::new()
            };
            let main = format!(
                "<h1>{}</h1>\n{conflict}{cut}<pre class=\"source\">{}</pre>\n",
                esc(&title),
                esc(&text)
            );
            (title, main, None)
        }
        Content::Image => {
            let title = display_title(&rel, None);
            let main = format!(
                "<h1>{}</h1>\n<figure class=\"image\"><img src=\"{}\" alt=\"{}\"></figure>\n",
                esc(&title),
                esc(&file_href(&rel)),
                esc(&title)
            );
            (title, main, None)
        }
        Content::NotUtf8 { offset } => {
            let title = display_title(&rel, None);
            let main = format!(
                "<h1>{}</h1>\n{}\n<p><a href=\"{}\">Download its bytes</a>.</p>\n",
                esc(&title),
                notice(
                    "warn",
                    &format!(
                        "<code>{}</code> is not UTF-8 text (the first byte that is not is at offset {offset}), \
                         so it is not shown: save it as UTF-8 to read it here.",
                        esc(&rel)
                    )
                ),
                esc(&file_href(&rel))
            );
            (title, main, None)
        }
        Content::Binary { size } => {
            let title = display_title(&rel, None);
            let main = format!(
                "<h1>{}</h1>\n<p class=\"lede\">A binary file of {}. <a href=\"{}\">Download it</a>.</p>\n",
                esc(&title),
                size_text(size),
                esc(&file_href(&rel))
            );
            (title, main, None)
        }
    };
    let mut layout = site.layout(Some(&title), main, aside);
    layout.crumbs = crumbs(&rel);
    if let Some(shown) = &mut layout.live {
        shown.related = related;
        shown.file = Some(rel);
    }
    Reply::html(200, layout.render())
}

/// The main column and sidebar of a Markdown file, its neighbourhood's `graph` in the sidebar.
fn markdown(rel: &str, md: &MarkdownView, db_notice: &str, graph: &str) -> (String, String) {
    let fm = md.frontmatter.as_ref();
    let mut main = title_and_byline(&md.title, md.rendered.dropped_h1.as_deref(), fm);
    main.push_str(db_notice);
    match md.freshness {
        Freshness::Changed => main.push_str(&notice(
            "info",
            "This file changed since the last scan: links, tags and backlinks may lag until <code>sparks scan</code>.",
        )),
        Freshness::Unscanned => main.push_str(&notice(
            "info",
            "The last scan has not seen this file: run <code>sparks scan</code> to add it to the index.",
        )),
        Freshness::Current | Freshness::NoManifest => {}
    }
    if let Some(e) = &md.frontmatter_error {
        main.push_str(&notice(
            "warn",
            &format!("The frontmatter cannot be read ({}).", esc(e)),
        ));
    }
    let _ = writeln!(
        main,
        "<article class=\"prose\">\n{}\n</article>",
        md.rendered.html
    );

    let mut aside = fm.map_or(String::new(), |fm| about(fm, source_link));
    aside.push_str(&toc(&md.rendered.toc));
    aside.push_str(graph);
    aside.push_str(&backlinks("Linked from", &md.backlinks, md.backlinks_total));
    aside.push_str(&backlinks(
        "Cited as a source by",
        &md.cited_by,
        md.cited_by.len(),
    ));
    aside.push_str(&related(&md.related));
    let _ = writeln!(
        aside,
        "<section>\n<h2>File</h2>\n<p class=\"path\"><code>{}</code></p>\n<p><a href=\"{}?source\">Show source</a></p>\n</section>",
        esc(rel),
        esc(&href_for(rel))
    );
    (main, aside)
}

/// The pages related to a page that it does not link to yet, the nearest first, under the
/// heading "Related".
fn related(pages: &[Backlink]) -> String {
    if pages.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<section class=\"related\">\n<h2>Related</h2>\n<p class=\"hint\">Not linked from \
         this page yet.</p>\n<ul>\n",
    );
    for p in pages {
        let _ = writeln!(out, "<li>{}</li>", page_link(&p.source, p.title.as_deref()));
    }
    out.push_str("</ul>\n</section>\n");
    out
}

/// A `sources:` entry: a link for a vault path or a web address, text otherwise.
fn source_link(s: &str) -> String {
    let path = s.strip_prefix("./").unwrap_or(s);
    if path.starts_with("raw/") && paths::clean_relative(path).is_ok() {
        format!(
            "<a href=\"{}\"><code>{}</code></a>",
            esc(&href_for(path)),
            esc(path)
        )
    } else if s.starts_with("https://") || s.starts_with("http://") {
        format!(
            "<a href=\"{}\" rel=\"noopener noreferrer\">{}</a>",
            esc(s),
            esc(s)
        )
    } else {
        format!("<code>{}</code>", esc(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_list_of_backlinks_says_how_many_more_there_are() {
        let b = |s: &str| Backlink {
            source: s.into(),
            title: None,
            links: 1,
        };
        let cut = backlinks("Linked from", &[b("wiki/b.md"), b("wiki/a.md")], 2_000);
        assert!(cut.contains("<span class=\"n\">2000</span>"), "{cut}");
        assert!(cut.contains("and 1998 more"), "{cut}");
        assert!(
            cut.find(">a<").unwrap() < cut.find(">b<").unwrap(),
            "by title: {cut}"
        );
        let whole = backlinks("Linked from", &[b("wiki/a.md")], 1);
        assert!(!whole.contains("more"), "{whole}");
        assert!(backlinks("Linked from", &[], 0).is_empty());
    }

    #[test]
    fn sources_link_only_where_they_can() {
        assert_eq!(
            source_link("./raw/inbox/2026-05-01.md"),
            "<a href=\"/raw/inbox/2026-05-01\"><code>raw/inbox/2026-05-01.md</code></a>"
        );
        assert!(source_link("javascript:alert(1)").starts_with("<code>"));
        assert!(source_link("raw/../x").starts_with("<code>"));
        assert!(source_link("https://example.com/a?b=\"c\"").contains("&quot;c&quot;"));
    }
}
