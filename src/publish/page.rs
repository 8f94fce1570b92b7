//! One published page: its HTML (the viewer's renderer and layout, links to what the site does
//! not show as their text alone, no live script), its Markdown for agents (the frontmatter
//! left out, every wikilink a Markdown link to the published page or its text alone), and what
//! the search, llms.txt and the feed say of it.

use super::paths;
use super::site::Site;
use super::urls::{self, Base};
use crate::manifest::{Manifest, ManifestError, SitePage};
use crate::markdown::{Block, frontmatter, outline, rewrite};
use crate::render::embed::{Audience, Embedder};
use crate::render::html::{display_title, esc};
use crate::render::layout::{about, backlinks, title_and_byline, toc};
use crate::render::{self, graph};
use std::fmt::Write as _;
use std::path::Path;

/// The most backlinks a published page lists (the viewer's bound).
const BACKLINKS_SHOWN: usize = 500;

/// A description is cut after this many characters.
const DESCRIPTION: usize = 160;

/// A page, made ready to publish.
#[derive(Debug)]
pub struct Made {
    /// The main column and sidebar, with the viewer's URLs.
    pub main: String,
    /// The sidebar.
    pub aside: String,
    /// The title shown.
    pub title: String,
    /// The page's Markdown as the site serves it.
    pub markdown: String,
    /// The readable text, for the search (and its first sentences for llms.txt and the feed,
    /// [`describe`]).
    pub text: String,
}

/// Make the published page `page` of the vault at `root`, whose file holds `text`.
pub fn make(
    root: &Path,
    m: &Manifest,
    site: &Site,
    page: &SitePage,
    text: &str,
    base: &Base,
) -> Result<Made, ManifestError> {
    let rel = page.path.as_str();
    let split = frontmatter::split(text);
    let fm = match split.block {
        Block::Valid(fm) => Some(fm),
        _ => None,
    };
    let outline = outline::outline(split.body, split.body_line);
    let mut embeds = Embedder::showing(root, rel, site);
    let links = embeds.wikilinks(Some(m), rel, &outline)?;
    let rendered = render::render(split.body, &links, page.title.as_deref());
    let title = page
        .title
        .clone()
        .or_else(|| rendered.dropped_h1.clone())
        .unwrap_or_else(|| display_title(rel, None));
    let mut main = title_and_byline(&title, rendered.dropped_h1.as_deref(), fm.as_ref());
    let prose = paths::html(&rendered.html, rel, site);
    drop(rendered.html);
    main.reserve(prose.len() + 64);
    let _ = writeln!(main, "<article class=\"prose\">\n{prose}\n</article>");
    drop(prose);
    let mut aside = fm.as_ref().map_or(String::new(), |fm| {
        let mut fm = fm.clone();
        fm.sources.retain(|s| shown_source(site, s));
        about(&fm, |s| source(site, s))
    });
    aside.push_str(&toc(&rendered.toc));
    let Ok(graph) = graph::section(site, rel);
    aside.push_str(&graph);
    let linking = site.linking(rel);
    let shown: Vec<crate::manifest::Backlink> = linking
        .iter()
        .take(BACKLINKS_SHOWN)
        .map(|p| crate::manifest::Backlink {
            source: p.path.clone(),
            title: p.title.clone(),
            links: 1,
        })
        .collect();
    aside.push_str(&backlinks("Linked from", &shown, linking.len()));
    let _ = writeln!(
        aside,
        "<section>\n<h2>Markdown</h2>\n<p><a href=\"{}\" type=\"text/markdown\">This page as Markdown</a></p>\n</section>",
        esc(&markdown_href(rel, base))
    );
    let readable = crate::scan::meaning::readable(rel, text, &title);
    Ok(Made {
        markdown: {
            let body_at = text.len() - split.body.len();
            let paths = path_edits(site, rel, text, body_at, base);
            markdown(site, rel, split.body, &links, paths, &title, base)
        },
        text: readable,
        main,
        aside,
        title,
    })
}

/// Where the page at `rel` links to its Markdown, written as the site's (a viewer URL ending in
/// `.md` would be taken for a page and given a folder's `/`).
fn markdown_href(rel: &str, base: &Base) -> String {
    base.href(&urls::markdown(rel), &urls::page(rel))
}

/// Whether a published page's About names the `sources:` entry `s` at all: not when it is a
/// file of the wiki the site does not show (its name is the private page's).
fn shown_source(site: &Site, s: &str) -> bool {
    let path = s.strip_prefix("./").unwrap_or(s);
    !path.starts_with("wiki/") || site.shows(path)
}

/// A `sources:` entry on a published page: a link to a published page, else its text when it
/// is a web address, else nothing a reader could follow (a raw capture is never published).
fn source(site: &Site, s: &str) -> String {
    let path = s.strip_prefix("./").unwrap_or(s);
    if site.page(path).is_some() {
        return crate::render::html::page_link(
            path,
            site.page(path).and_then(|p| p.title.as_deref()),
        );
    }
    if s.starts_with("https://") || s.starts_with("http://") {
        return format!("<a href=\"{0}\" rel=\"nofollow\">{0}</a>", esc(s));
    }
    esc(path.rsplit('/').next().unwrap_or(path))
}

/// The first sentences of a readable text, cut at [`DESCRIPTION`] characters.
pub fn describe(readable: &str) -> String {
    // Only the words a description may hold are joined: a page of millions is never listed.
    let mut flat = String::new();
    let mut length = 0;
    for word in readable.split_whitespace() {
        if length > DESCRIPTION {
            break;
        }
        if !flat.is_empty() {
            flat.push(' ');
            length += 1;
        }
        flat.push_str(word);
        length += word.chars().count();
    }
    match flat.char_indices().nth(DESCRIPTION) {
        None => flat,
        Some((cut, _)) => {
            let head = &flat[..cut];
            let end = head.rfind(". ").map(|i| i + 1).or_else(|| head.rfind(' '));
            format!("{}…", head[..end.unwrap_or(cut)].trim_end())
        }
    }
}

/// The page's Markdown as the site serves it: its title as an H1 (once), the body without the
/// frontmatter (which may name private files), each wikilink to a published page a Markdown
/// link to its Markdown, each embedded image an image, any other wikilink its text alone. The
/// links are the body's, with the targets the render resolved them to for the site's reader.
fn markdown(
    site: &Site,
    rel: &str,
    body: &str,
    links: &[render::WikiLink<'_>],
    paths: Vec<rewrite::Edit>,
    title: &str,
    base: &Base,
) -> String {
    let from = urls::markdown(rel);
    let mut edits = Vec::new();
    for w in links {
        let l = w.link;
        let shown = l.label.clone().unwrap_or_else(|| match &l.heading {
            Some(h) if !l.target.is_empty() => format!("{} › {h}", l.target),
            Some(h) => h.clone(),
            None => l.target.clone(),
        });
        let target = match &w.target {
            render::Target::Found { path, .. } => Some(path.as_str()),
            render::Target::Embed(e) => Some(e.path.as_str()),
            _ => None,
        };
        let start = match l.embed && body[..l.span.start].ends_with('!') {
            true => l.span.start - 1,
            false => l.span.start,
        };
        let replacement = match target.filter(|t| site.shows(t)) {
            Some(t) if site.page(t).is_some() => {
                let href = base.href(&urls::markdown(t), &from);
                format!("[{}]({})", md_text(&shown), md_url(&href))
            }
            Some(t) => {
                let file = urls::file(t);
                let bang = if l.embed { "!" } else { "" };
                let href = base.href(&file, &from);
                format!("{bang}[{}]({})", md_text(&shown), md_url(&href))
            }
            None => md_text(&shown),
        };
        edits.push(rewrite::Edit {
            range: start..l.span.end.min(body.len()),
            text: replacement,
        });
    }
    let inside_wikilink = |e: &rewrite::Edit| {
        edits
            .iter()
            .any(|w: &rewrite::Edit| w.range.start < e.range.end && e.range.start < w.range.end)
    };
    let paths: Vec<rewrite::Edit> = paths.into_iter().filter(|e| !inside_wikilink(e)).collect();
    edits.extend(paths);
    let linked = rewrite::apply(body, &edits);
    let body = crate::markdown::title::without_title(&linked, title);
    let body = body.trim();
    // Made at its size: a page of megabytes grown by doubling took twice its size.
    let mut md = String::with_capacity(title.len() + body.len() + 5);
    let _ = write!(md, "# {title}\n\n{body}\n");
    md
}

/// The edits (in the body, which starts at byte `body_at` of `text`) that make each Markdown
/// link or image of the page at `rel` whose destination is a path lead where it leads on the
/// site ([`paths::leads`]): a published page's Markdown, a carried file's copy, else its text
/// alone (an image's alt text).
fn path_edits(
    site: &Site,
    rel: &str,
    text: &str,
    body_at: usize,
    base: &Base,
) -> Vec<rewrite::Edit> {
    let from = urls::markdown(rel);
    let in_body = |r: &std::ops::Range<usize>| r.start - body_at..r.end - body_at;
    rewrite::markdown_links(text)
        .into_iter()
        .filter(|r| r.span.start >= body_at)
        .map(|r| match paths::leads(site, rel, &text[r.dest.clone()]) {
            paths::Leads::Page(p, _) => rewrite::Edit {
                range: in_body(&r.dest),
                text: md_url(&base.href(&urls::markdown(&p), &from)),
            },
            paths::Leads::File(p) => rewrite::Edit {
                range: in_body(&r.dest),
                text: md_url(&base.href(&urls::file(&p), &from)),
            },
            paths::Leads::Nowhere => rewrite::Edit {
                range: in_body(&r.span),
                text: text[r.label.clone()].to_string(),
            },
        })
        .collect()
}

/// Text for inside a Markdown link's brackets.
fn md_text(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

/// A URL for inside a Markdown link's parentheses.
fn md_url(s: &str) -> String {
    s.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_links_to_its_markdown_beside_its_folder() {
        let rel = "wiki/concepts/Garden Plan.md";
        assert_eq!(
            markdown_href(rel, &Base::Relative),
            "../../../wiki/concepts/Garden%20Plan.md"
        );
        assert_eq!(
            markdown_href(rel, &Base::of(Some("https://me.github.io/notes/"))),
            "https://me.github.io/notes/wiki/concepts/Garden%20Plan.md"
        );
    }

    #[test]
    fn a_source_in_the_wiki_is_named_only_when_it_is_published() {
        let page = |path: &str| SitePage {
            path: path.into(),
            ..SitePage::default()
        };
        let site = Site::new(
            vec![page("wiki/a.md")],
            &crate::manifest::LinkTable::default(),
        );
        assert!(shown_source(&site, "wiki/a.md"));
        assert!(shown_source(&site, "raw/inbox/2026-05-01.md"));
        assert!(shown_source(&site, "https://example.org/"));
        assert!(!shown_source(&site, "wiki/concepts/private.md"));
        assert!(!shown_source(&site, "./wiki/concepts/private.md"));
    }

    #[test]
    fn a_description_is_the_first_sentences_cut_at_a_word() {
        assert_eq!(describe("One.\n\nTwo  three."), "One. Two three.");
        let long = "word ".repeat(60);
        let d = describe(&long);
        assert!(
            d.ends_with('…') && d.chars().count() <= DESCRIPTION + 1,
            "{d}"
        );
        // Around the cut, as the whole text's words joined would give it.
        for n in 0..400 {
            let text: String = (0..n).map(|i| format!("w{i}. ")).collect();
            let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let whole = match joined.char_indices().nth(DESCRIPTION) {
                None => joined.clone(),
                Some((cut, _)) => {
                    let head = &joined[..cut];
                    let end = head.rfind(". ").map(|i| i + 1).or_else(|| head.rfind(' '));
                    format!("{}…", head[..end.unwrap_or(cut)].trim_end())
                }
            };
            assert_eq!(describe(&text), whole, "{n} words");
        }
    }
}
