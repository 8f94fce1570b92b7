//! The files of a published site that are not pages: `llms.txt` as llmstxt.org describes it (an
//! H1 with the site's name, a blockquote summary, H2 sections of `- [Title](url): description`
//! links to each page's Markdown, collections under "Optional"), `sitemap.xml` and an Atom
//! `feed.xml` of the pages updated last (`llms-full.txt` is written as the pages are made, in
//! [`super::pages`]). Only published pages are named.

use super::lists::{by_type, recent};
use super::out::Stream;
use super::site::Site;
use super::spill::{Span, Spill};
use super::urls::{self, Base};
use crate::file_error::FileError;
use crate::render::html::{display_title, esc};
use crate::render::layout::type_heading;
use std::fmt::Write as _;
use std::io::Write as _;

/// What the feed lists: the pages updated last.
const FEED_ENTRIES: usize = 50;

/// What a feed and llms.txt say of each page: its description, by the page's place among the
/// site's pages, put aside until they are written (held in one string, they were 25 MB at
/// 100,000 pages).
#[derive(Debug, Default)]
pub struct Descriptions {
    text: Spill,
    /// Where each page's description is, by the page's place.
    at: Vec<Span>,
}

impl Descriptions {
    /// Descriptions put aside in `text`.
    pub fn new(text: Spill) -> Descriptions {
        Descriptions {
            text,
            at: Vec::new(),
        }
    }

    /// Say `description` of the page at `place` among the site's pages.
    pub fn set(&mut self, place: usize, description: &str) -> Result<(), FileError> {
        if self.at.len() <= place {
            self.at.resize(place + 1, Span::default());
        }
        self.at[place] = self.text.put(description.as_bytes())?;
        Ok(())
    }

    /// What is said of the published page at `path` (none: nothing, or an empty description).
    pub fn of(&self, site: &Site, path: &str) -> Result<Option<String>, FileError> {
        match site.place(path).and_then(|place| self.at.get(place)) {
            Some(&span) if !span.is_empty() => self.text.text(span).map(Some),
            _ => Ok(None),
        }
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

/// `llms.txt`, written to `w` as it is made: the site's name, its summary, and a section of
/// links for each type of page, collections last under "Optional" (what an agent may skip).
pub fn llms(
    site: &Site,
    (name, description): (&str, &str),
    said: &Descriptions,
    base: &Base,
    w: &mut Stream,
) -> Result<(), FileError> {
    let mut put = |text: &str| w.write_all(text.as_bytes()).map_err(|e| w.error(e));
    let mut head = format!("# {}\n\n", line(name));
    if !description.trim().is_empty() {
        let _ = writeln!(head, "> {}\n", line(description));
    }
    head.push_str("Each link leads to a page's Markdown; `llms-full.txt` holds them all.\n");
    put(&head)?;
    let mut optional = String::new();
    let mut entry = String::new();
    for (kind, pages) in by_type(site) {
        let collections = kind == "collection";
        if !collections {
            put(&format!("\n## {}\n\n", type_heading(&kind)))?;
        }
        for p in pages {
            entry.clear();
            let title = display_title(&p.path, p.title.as_deref());
            let url = base.href(&urls::markdown(&p.path), "");
            let _ = write!(entry, "- [{}]({url})", line(&title));
            match said.of(site, &p.path)? {
                Some(d) => {
                    let _ = writeln!(entry, ": {}", line(&d));
                }
                None => entry.push('\n'),
            }
            match collections {
                true => optional.push_str(&entry),
                false => put(&entry)?,
            }
        }
    }
    if !optional.is_empty() {
        put(&format!("\n## Optional\n\n{optional}"))?;
    }
    Ok(())
}

/// `sitemap.xml`, written to `w` as it is made: the index and every published page, with the
/// date each was updated.
pub fn sitemap(site: &Site, base: &Base, w: &mut Stream) -> Result<(), FileError> {
    let mut put = |text: &str| w.write_all(text.as_bytes()).map_err(|e| w.error(e));
    put(concat!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
    ))?;
    put(&format!(
        "<url><loc>{}</loc></url>\n",
        esc(&base.absolute(""))
    ))?;
    for p in &site.pages {
        let lastmod = p
            .updated
            .as_deref()
            .filter(|u| crate::markdown::frontmatter::is_date(u))
            .map_or(String::new(), |u| format!("<lastmod>{}</lastmod>", esc(u)));
        put(&format!(
            "<url><loc>{}</loc>{lastmod}</url>\n",
            esc(&base.absolute(&urls::page(&p.path)))
        ))?;
    }
    put("</urlset>\n")
}

/// `feed.xml`: an Atom feed of the [`FEED_ENTRIES`] pages updated last (those with a date).
pub fn atom(
    site: &Site,
    name: &str,
    description: &str,
    said: &Descriptions,
    base: &Base,
) -> Result<String, FileError> {
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
        if let Some(d) = said.of(site, &p.path)? {
            let _ = writeln!(out, "<summary>{}</summary>", esc(&d));
        }
        out.push_str("</entry>\n");
    }
    out.push_str("</feed>\n");
    Ok(out)
}
