//! The files of a published site that are not pages: `llms.txt` as llmstxt.org describes it (an
//! H1 with the site's name, a blockquote summary, H2 sections of `- [Title](url): description`
//! links to each page's Markdown, collections under "Optional"), `sitemap.xml` and an Atom
//! `feed.xml` of the pages updated last (`llms-full.txt` is written as the pages are made, in
//! [`super::pages`]). Only published pages are named.

use super::lists::{by_type, recent};
use super::site::Site;
use super::urls::{self, Base};
use crate::render::html::{display_title, esc};
use crate::render::layout::type_heading;
use std::fmt::Write as _;
use std::ops::Range;

/// What the feed lists: the pages updated last.
const FEED_ENTRIES: usize = 50;

/// What a feed and llms.txt say of each page: its description, by the page's place among the
/// site's pages, every one in one string (a map by path held each path a second time, and
/// each description in an allocation of its own: 33 MB at 100,000 pages).
#[derive(Debug, Default)]
pub struct Descriptions {
    text: String,
    /// Where each page's description is in `text`, by the page's place.
    at: Vec<Range<usize>>,
}

impl Descriptions {
    /// Say `description` of the page at `place` among the site's pages.
    pub fn set(&mut self, place: usize, description: &str) {
        if self.at.len() <= place {
            self.at.resize(place + 1, 0..0);
        }
        let start = self.text.len();
        self.text.push_str(description);
        self.at[place] = start..self.text.len();
    }

    /// What is said of the published page at `path` (none: nothing, or an empty description).
    pub fn of(&self, site: &Site, path: &str) -> Option<&str> {
        let range = self.at.get(site.place(path)?)?;
        Some(&self.text[range.clone()]).filter(|d| !d.is_empty())
    }
}

/// One line of Markdown: its line breaks and the brackets of a link's text made harmless.
pub fn line(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('[', "(")
        .replace(']', ")")
}

/// `llms.txt`: the site's name, its summary, and a section of links for each type of page,
/// collections last under "Optional" (what an agent may skip).
pub fn llms(
    site: &Site,
    name: &str,
    description: &str,
    said: &Descriptions,
    base: &Base,
) -> String {
    let mut out = format!("# {}\n\n", line(name));
    if !description.trim().is_empty() {
        let _ = writeln!(out, "> {}\n", line(description));
    }
    let _ = writeln!(
        out,
        "Each link leads to a page's Markdown; `llms-full.txt` holds them all.\n"
    );
    let mut optional = String::new();
    for (kind, pages) in by_type(site) {
        let mut section = String::new();
        for p in pages {
            let title = display_title(&p.path, p.title.as_deref());
            let url = base.href(&urls::markdown(&p.path), "");
            let _ = write!(section, "- [{}]({url})", line(&title));
            match said.of(site, &p.path) {
                Some(d) => {
                    let _ = writeln!(section, ": {}", line(d));
                }
                None => section.push('\n'),
            }
        }
        if kind == "collection" {
            optional = section;
        } else {
            let _ = write!(out, "## {}\n\n{section}\n", type_heading(&kind));
        }
    }
    if !optional.is_empty() {
        let _ = write!(out, "## Optional\n\n{optional}\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// `sitemap.xml`: the index and every published page, with the date each was updated.
pub fn sitemap(site: &Site, base: &Base) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    let _ = writeln!(out, "<url><loc>{}</loc></url>", esc(&base.absolute("")));
    for p in &site.pages {
        let lastmod = p
            .updated
            .as_deref()
            .filter(|u| crate::markdown::frontmatter::is_date(u))
            .map_or(String::new(), |u| format!("<lastmod>{}</lastmod>", esc(u)));
        let _ = writeln!(
            out,
            "<url><loc>{}</loc>{lastmod}</url>",
            esc(&base.absolute(&urls::page(&p.path)))
        );
    }
    out.push_str("</urlset>\n");
    out
}

/// `feed.xml`: an Atom feed of the [`FEED_ENTRIES`] pages updated last (those with a date).
pub fn atom(
    site: &Site,
    name: &str,
    description: &str,
    said: &Descriptions,
    base: &Base,
) -> String {
    let entries = recent(site, FEED_ENTRIES);
    let stamp = |d: Option<&str>| match d.filter(|d| crate::markdown::frontmatter::is_date(d)) {
        Some(d) => format!("{d}T00:00:00Z"),
        None => "1970-01-01T00:00:00Z".to_string(),
    };
    let updated = stamp(entries.first().and_then(|p| p.updated.as_deref()));
    let home = base.absolute("");
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n\
         <title>{}</title>\n<id>{}</id>\n<updated>{updated}</updated>\n\
         <link rel=\"alternate\" href=\"{}\"/>\n<link rel=\"self\" href=\"{}\"/>\n",
        esc(name),
        esc(&home),
        esc(&home),
        esc(&base.absolute("feed.xml"))
    );
    if !description.trim().is_empty() {
        let _ = writeln!(out, "<subtitle>{}</subtitle>", esc(description.trim()));
    }
    if entries.is_empty() {
        let _ = writeln!(out, "<author><name>{}</name></author>", esc(name));
    }
    for p in entries {
        let url = base.absolute(&urls::page(&p.path));
        let _ = write!(
            out,
            "<entry>\n<title>{}</title>\n<id>{}</id>\n<link href=\"{}\"/>\n<updated>{}</updated>\n\
             <author><name>{}</name></author>\n",
            esc(&display_title(&p.path, p.title.as_deref())),
            esc(&url),
            esc(&url),
            stamp(p.updated.as_deref()),
            esc(name)
        );
        if let Some(d) = said.of(site, &p.path) {
            let _ = writeln!(out, "<summary>{}</summary>", esc(d));
        }
        out.push_str("</entry>\n");
    }
    out.push_str("</feed>\n");
    out
}
