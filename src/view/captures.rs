//! An archive file of the inbox (`raw/inbox/<date>.md`, written by `ingest --finalize`) as
//! the viewer shows it: the list of its captures, each with its date, the ingest that
//! archived it and its line, the separators between them, as the file holds them. The file is
//! split by the inbox's own parser ([`crate::inbox::Inbox`]), so that a capture's `---` block
//! is never taken for frontmatter nor a one-line capture above a separator for a heading.
//! Each capture is Markdown, rendered and sanitised like a page, its wikilinks resolved like
//! the page's.

use super::html::count;
use crate::archive;
use crate::inbox::Inbox;
use crate::manifest::Manifest;
use crate::markdown::outline;
use crate::render::embed::Embedder;
use crate::render::{self, Rendered};
use chrono::NaiveDate;
use std::fmt::Write as _;

/// The captures of the archive file `rel` whose text is `text`, rendered; `None` when the
/// text has no separator line, so that no capture can be told from another (the caller then
/// shows the file as any Markdown file).
pub(super) fn render(
    manifest: Option<&Manifest>,
    rel: &str,
    text: &str,
    embeds: &mut Embedder<'_>,
) -> crate::manifest::Result<Option<Rendered>> {
    let named = file_date(rel);
    // The date an undated capture is given; shown only when the file is named by a date.
    let fallback = named.unwrap_or(NaiveDate::MIN);
    let Ok(inbox) = Inbox::parse(text.as_bytes(), fallback) else {
        return Ok(None);
    };
    let mut html = String::new();
    let header = inbox.header(text);
    if !header.trim().is_empty() {
        let _ = writeln!(
            html,
            "<div class=\"capture-header\">{}</div>",
            markdown(manifest, rel, header, 1, "header-", embeds)?
        );
    }
    let _ = writeln!(
        html,
        "<p class=\"capture-count\">{}</p>\n<div class=\"captures\">",
        count(inbox.entries.len(), "capture", "captures")
    );
    for (n, entry) in inbox.entries.iter().enumerate() {
        let date = (entry.dated || named.is_some()).then_some(entry.capture_date);
        let mut meta: Vec<String> = date
            .map(|d| format!("<time datetime=\"{d}\">{d}</time>"))
            .into_iter()
            .collect();
        meta.extend(
            entry
                .content
                .lines()
                .filter_map(archive::parse_marker)
                .map(|m| format!("ingest {}", m.ingest)),
        );
        meta.push(format!("line {}", entry.line));
        let prefix = format!("c{}-", n + 1);
        let _ = writeln!(
            html,
            "<hr class=\"separator\">\n<article class=\"capture\" id=\"capture-{}\">\n\
             <p class=\"capture-meta\">{}</p>\n<div class=\"capture-body\">{}</div>\n</article>",
            n + 1,
            meta.join(" · "),
            markdown(manifest, rel, &entry.content, entry.line, &prefix, embeds)?
        );
    }
    html.push_str("</div>\n");
    Ok(Some(Rendered {
        html: render::sanitize::sanitize(&html),
        toc: Vec::new(),
        dropped_h1: None,
    }))
}

/// The date an archive file is named by (`raw/inbox/2026-04-10.md`), if it is.
fn file_date(rel: &str) -> Option<NaiveDate> {
    let name = rel.rsplit('/').next()?;
    let stem = name.get(..name.len().checked_sub(3)?)?;
    NaiveDate::parse_from_str(stem, "%Y-%m-%d").ok()
}

/// One capture (or the header), whose first line is line `line` of the file, as safe HTML:
/// its wikilinks resolved, its anchors prefixed by `prefix`, a leading H1 kept (a capture's
/// heading is its text, not the page's title). The block marker, an HTML comment, goes.
fn markdown(
    manifest: Option<&Manifest>,
    rel: &str,
    text: &str,
    line: usize,
    prefix: &str,
    embeds: &mut Embedder<'_>,
) -> crate::manifest::Result<String> {
    let outline = outline::outline(text, line);
    let links = embeds.wikilinks(manifest, rel, &outline)?;
    Ok(render::render_embedded(text, &links, Some(""), prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn shown(rel: &str, text: &str) -> Option<String> {
        let mut embeds = Embedder::new(Path::new("."), rel);
        render(None, rel, text, &mut embeds)
            .unwrap()
            .map(|r| r.html)
    }

    #[test]
    fn every_capture_is_listed_with_its_date_and_none_is_a_heading() {
        let text = "---\n<!-- sparks: ingest 3 k3 entry 1 blake3 h1 -->\nFirst\n\
                    ---\n<!-- sparks: ingest 3 k3 entry 2 blake3 h2 -->\nSecond\n\
                    ---\n2026-04-09\nThird <script>x()</script>\n";
        let html = shown("raw/inbox/2026-04-10.md", text).unwrap();
        assert!(
            !(1..=6).any(|n| html.contains(&format!("<h{n}"))),
            "no heading: {html}"
        );
        assert!(
            !html.contains("<script") && !html.contains("sparks: ingest"),
            "{html}"
        );
        assert_eq!(
            html.matches("<hr class=\"separator\">").count(),
            3,
            "{html}"
        );
        assert!(html.contains("3 captures"), "{html}");
        let at = |s: &str| {
            html.find(s)
                .unwrap_or_else(|| panic!("{s} missing: {html}"))
        };
        assert!(at("<p>First</p>") < at("<p>Second</p>") && at("<p>Second</p>") < at("Third"));
        assert!(
            html.contains(
                "<time datetime=\"2026-04-10\">2026-04-10</time> · ingest 3 · line 2</p>"
            ),
            "{html}"
        );
        assert!(
            html.contains("<time datetime=\"2026-04-09\">2026-04-09</time> · line 9</p>"),
            "a capture's own date line wins: {html}"
        );
    }

    #[test]
    fn a_header_is_shown_and_a_file_without_separator_is_not_an_archive() {
        let html = shown("raw/inbox/notes.md", "Kept by hand\n---\nonly\n").unwrap();
        assert!(html.contains("<p>Kept by hand</p>"), "{html}");
        assert!(
            !html.contains("<time"),
            "no date where the name has none: {html}"
        );
        assert!(html.contains("1 capture<"), "{html}");
        assert_eq!(shown("raw/inbox/2026-04-10.md", "# Notes\n\ntext\n"), None);
    }
}
