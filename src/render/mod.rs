//! What the viewer and a published site both show: a page's Markdown made safe HTML, one
//! renderer for both. Serving it is the viewer's business ([`crate::view`]: HTTP, routes, the
//! page layout, live reloads); writing it to files would be a publisher's. Nothing here serves,
//! and nothing here uses a server's libraries or an async runtime. The room holds the renderer
//! (this module), the sanitiser ([`sanitize`]), where wikilinks lead as the manifest resolved
//! them (`resolve`), embeds rendered in place ([`embed`]), and the pure helpers for HTML and
//! URLs and the vault's files ([`html`], [`paths`]).
//!
//! Markdown to safe HTML. The body is parsed once with CommonMark plus tables, footnotes,
//! strikethrough, task lists and alert blockquotes; wikilinks are taken from the outline
//! ([`crate::markdown::outline`]), so exactly the links the manifest records are rewritten and
//! nothing inside code is; headings get anchor ids, `^block` markers become anchors and bare
//! web addresses links. The whole result, author HTML included, then goes through
//! [`sanitize`]. Resolving link targets is the caller's business ([`Target`]); the renderer
//! does no I/O.

use crate::key;
use crate::markdown::Link;
use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use std::collections::HashMap;
use std::ops::Range;

mod autolink;
pub mod embed;
pub mod graph;
pub mod html;
pub mod layout;
pub mod paths;
mod resolve;
pub mod sanitize;
mod wikilink;

use autolink::Autolinks;
use wikilink::{display, link_html};

use paths::encode_segment;

/// Where a wikilink leads, as the caller resolved it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A page or file.
    Found {
        /// The URL of the page (fragment included).
        href: String,
        /// The vault-relative path it resolved to.
        path: String,
        /// For an embedded image, the URL of the image.
        image: Option<String>,
        /// A `#heading` or `#^block` the target does not have.
        missing_anchor: Option<String>,
    },
    /// Nothing matches.
    Broken,
    /// This many pages match equally well.
    Ambiguous(usize),
    /// There is no manifest to resolve against.
    Unknown,
    /// A target the reader may not know of (a page a published site does not show), or a link
    /// that leads nowhere there: shown as its text alone, so that nothing tells which.
    Hidden,
    /// An embedded Markdown page, section or block: its content, or why it is not shown.
    Embed(Box<Embed>),
}

/// What an embed of Markdown shows, framed with a link to its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embed {
    /// The URL of the source (fragment included).
    pub href: String,
    /// The vault-relative path of the source.
    pub path: String,
    /// What the frame names: the page's title, with the heading or block.
    pub caption: String,
    /// The content as sanitised HTML, or a short notice (plain text) saying why it is not shown.
    pub body: Result<String, String>,
}

/// A wikilink of the body and its target.
#[derive(Debug, Clone)]
pub struct WikiLink<'a> {
    /// The link, as the outline found it.
    pub link: &'a Link,
    /// Where it leads.
    pub target: Target,
}

/// A heading, for the table of contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TocEntry {
    /// 1 to 6.
    pub level: u8,
    /// Its text, links shown by their labels.
    pub text: String,
    /// Its anchor id.
    pub id: String,
}

/// A rendered body.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// Sanitised HTML.
    pub html: String,
    /// The headings, in order (a leading H1 that was dropped excluded).
    pub toc: Vec<TocEntry>,
    /// The text of a leading H1 dropped because the page shows it as its title.
    pub dropped_h1: Option<String>,
}

/// The anchor id of a heading: its [`key::heading_key`] with runs of spaces, dashes and
/// underscores made one dash and other punctuation dropped. Links compute it from the heading
/// they name, the page from the heading's text; a link that reaches a heading (their heading
/// keys are equal) therefore lands on its id.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in key::heading_key(text).chars() {
        if c.is_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c);
        } else if c.is_whitespace() || c == '-' || c == '_' {
            dash = true;
        }
    }
    if out.is_empty() {
        "section".into()
    } else {
        out
    }
}

/// The anchor id of a `^block` marker.
pub fn block_anchor(block: &str) -> String {
    format!("block-{block}")
}

/// A URL fragment for an anchor id.
pub fn fragment(id: &str) -> String {
    format!("#{}", encode_segment(id))
}

/// Render `body` to safe HTML. `links` are the body's outline links with their targets; a
/// leading H1 is dropped when it repeats `title` (or when there is no title, in which case it
/// becomes the title).
pub fn render(body: &str, links: &[WikiLink<'_>], title: Option<&str>) -> Rendered {
    render_with(body, links, title, "")
}

/// Render an embedded excerpt: as [`render`], its anchor ids (headings, blocks, footnotes)
/// starting with `prefix`, so that they clash neither with the page's nor another embed's.
pub fn render_embedded(
    body: &str,
    links: &[WikiLink<'_>],
    title: Option<&str>,
    prefix: &str,
) -> String {
    render_with(body, links, title, prefix).html
}

fn render_with(body: &str, links: &[WikiLink<'_>], title: Option<&str>, prefix: &str) -> Rendered {
    render_in_runs(body, links, title, prefix, RUN).0
}

/// The events a body is rendered and sanitised in at a time, at least: a large page's events,
/// HTML and sanitiser tree are never held whole at once (a generated collection page of 80,000
/// quotes, 17 MB of Markdown, took 370 MB rendered whole).
const RUN: usize = 4096;

/// Render `body` a run of at least `run` events at a time, each run ending where a top-level
/// block does, until the author's own HTML is met (a comment alone aside): that may open an
/// element in one block and close it in another, so from there on the rest is one run. A run
/// of blocks the renderer alone made is balanced, so the sanitiser makes of the runs what it
/// makes of the whole. With the number of runs.
fn render_in_runs(
    body: &str,
    links: &[WikiLink<'_>],
    title: Option<&str>,
    prefix: &str,
    run: usize,
) -> (Rendered, usize) {
    let mut r = Renderer::new(body, links, prefix);
    let mut html = String::with_capacity(body.len() + body.len() / 4);
    let mut autolinks = Autolinks::default();
    let (mut depth, mut authors_html, mut runs) = (0usize, false, 0);
    let mut dropped_h1 = None;
    for (event, range) in Parser::new_ext(body, options()).into_offset_iter() {
        match &event {
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Html(h) | Event::InlineHtml(h) if !is_comment(h) => authors_html = true,
            _ => {}
        }
        r.event(event, range);
        if depth == 0 && !authors_html && r.out.len() >= run {
            if !r.flushed {
                dropped_h1 = r.drop_h1(title);
            }
            r.flush(&mut autolinks, &mut html);
            runs += 1;
        }
    }
    if !r.flushed {
        dropped_h1 = r.drop_h1(title);
    }
    r.flush(&mut autolinks, &mut html);
    let rendered = Rendered {
        html,
        toc: r.toc,
        dropped_h1,
    };
    (rendered, runs + 1)
}

/// Whether a piece of the author's HTML is one comment and nothing else (`<!-- … -->`).
fn is_comment(html: &str) -> bool {
    let t = html.trim();
    t.starts_with("<!--") && t.find("-->").map(|i| i + 3) == Some(t.len())
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM
}

/// The state of one rendering.
struct Renderer<'a, 'l> {
    body: &'a str,
    links: &'l [WikiLink<'l>],
    /// The bytes each link replaces (the `!` of an embed included), in order.
    spans: Vec<Range<usize>>,
    emitted: Vec<bool>,
    out: Vec<Event<'a>>,
    toc: Vec<TocEntry>,
    ids: HashMap<String, usize>,
    /// The open heading: its index in `out`, its level, its text for the id (as the outline
    /// sees it) and for display.
    heading: Option<(usize, HeadingLevel, String, String)>,
    first_block_is_h1: bool,
    h1_end: Option<usize>,
    in_code_block: bool,
    footnotes: HashMap<String, usize>,
    open_footnote: Option<String>,
    /// Where the open paragraph starts in `out`.
    paragraph: Option<usize>,
    /// What every anchor id starts with (empty but in an embed).
    prefix: &'l str,
    /// Whether a run of events was made HTML already (`out` holds those after it).
    flushed: bool,
}

impl<'a, 'l> Renderer<'a, 'l> {
    fn new(body: &'a str, links: &'l [WikiLink<'l>], prefix: &'l str) -> Self {
        let spans = links
            .iter()
            .map(|w| {
                let s = &w.link.span;
                let start = if w.link.embed && s.start > 0 && body.as_bytes()[s.start - 1] == b'!' {
                    s.start - 1
                } else {
                    s.start
                };
                start..s.end.min(body.len())
            })
            .collect();
        Renderer {
            body,
            links,
            spans,
            emitted: vec![false; links.len()],
            out: Vec::new(),
            toc: Vec::new(),
            ids: HashMap::new(),
            heading: None,
            first_block_is_h1: false,
            h1_end: None,
            in_code_block: false,
            footnotes: HashMap::new(),
            open_footnote: None,
            paragraph: None,
            prefix,
            flushed: false,
        }
    }

    /// Drop a leading H1 when it repeats `title` (or when there is no title, in which case it
    /// becomes the title): its text. Called before the first run is made HTML.
    fn drop_h1(&mut self, title: Option<&str>) -> Option<String> {
        let first = self.toc.first()?;
        let repeats = title.is_none_or(|t| key::key(t) == key::key(&first.text));
        if first.level != 1 || !self.first_block_is_h1 || !repeats {
            return None;
        }
        let end = self.h1_end.unwrap_or(0);
        self.out.drain(..end);
        Some(self.toc.remove(0).text)
    }

    /// Make the events so far sanitised HTML, after `html`.
    fn flush(&mut self, autolinks: &mut Autolinks, html: &mut String) {
        let mut run = String::new();
        let events = autolinks.feed(std::mem::take(&mut self.out));
        pulldown_cmark::html::push_html(&mut run, events.into_iter());
        // Alignment as the `align` attribute: inline styles are neither kept nor allowed by
        // the CSP.
        for a in ["left", "center", "right"] {
            let style = format!(" style=\"text-align: {a}\"");
            if run.contains(&style) {
                run = run.replace(&style, &format!(" align=\"{a}\""));
            }
        }
        html.push_str(&sanitize::sanitize(&run));
        self.flushed = true;
    }

    fn event(&mut self, event: Event<'a>, range: Range<usize>) {
        match event {
            Event::Text(text) => self.text(text, range),
            Event::Code(code) => {
                if let Some((_, _, id_text, shown)) = self.heading.as_mut() {
                    id_text.push_str(&code);
                    shown.push_str(&code);
                }
                self.push_unless_inside(Event::Code(code), &range);
            }
            Event::Start(Tag::Heading { level, .. }) => {
                if self.out.is_empty() && !self.flushed && level == HeadingLevel::H1 {
                    self.first_block_is_h1 = true;
                }
                self.heading = Some((self.out.len(), level, String::new(), String::new()));
                self.out.push(Event::Start(Tag::Heading {
                    level,
                    id: None,
                    classes: Vec::new(),
                    attrs: Vec::new(),
                }));
            }
            Event::End(TagEnd::Heading(level)) => {
                self.out.push(Event::End(TagEnd::Heading(level)));
                if let Some((at, level, id_text, shown)) = self.heading.take() {
                    let id = self.unique_id(slug(&id_text));
                    self.out[at] = Event::Start(Tag::Heading {
                        level,
                        id: Some(id.clone().into()),
                        classes: Vec::new(),
                        attrs: Vec::new(),
                    });
                    if self.toc.is_empty() {
                        self.h1_end = Some(self.out.len());
                    }
                    self.toc.push(TocEntry {
                        level: level as u8,
                        text: shown.trim().to_string(),
                        id,
                    });
                }
            }
            Event::Start(Tag::Paragraph) => {
                self.paragraph = Some(self.out.len());
                self.out.push(Event::Start(Tag::Paragraph));
            }
            Event::End(TagEnd::Paragraph) => {
                // A paragraph of embeds alone is their frames, not a `<p>` they would break.
                match self.paragraph.take() {
                    Some(at) if self.out[at + 1..].iter().all(frame_or_space) => {
                        self.out.remove(at);
                    }
                    _ => self.out.push(Event::End(TagEnd::Paragraph)),
                }
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                self.in_code_block = true;
                self.out.push(Event::Start(Tag::CodeBlock(kind)));
            }
            Event::End(TagEnd::CodeBlock) => {
                self.in_code_block = false;
                self.out.push(Event::End(TagEnd::CodeBlock));
            }
            Event::FootnoteReference(label) => {
                let (n, id) = self.footnote(&label);
                self.out.push(Event::InlineHtml(
                    format!(
                        "<sup class=\"footnote-ref\" id=\"fnref-{id}\"><a href=\"#fn-{id}\">{n}</a></sup>"
                    )
                    .into(),
                ));
            }
            Event::Start(Tag::FootnoteDefinition(label)) => {
                let (n, id) = self.footnote(&label);
                self.out.push(Event::Html(
                    format!(
                        "<div class=\"footnote\" id=\"fn-{id}\"><span class=\"footnote-label\">{n}</span>\n"
                    )
                    .into(),
                ));
                self.open_footnote = Some(id);
            }
            Event::End(TagEnd::FootnoteDefinition) => {
                let back = self.open_footnote.take().map_or(String::new(), |id| {
                    format!(
                        "<a class=\"footnote-back\" href=\"#fnref-{id}\" title=\"back to the text\">↩</a>"
                    )
                });
                self.out.push(Event::Html(format!("{back}</div>\n").into()));
            }
            other => self.push_unless_inside(other, &range),
        }
    }

    /// The number and anchor of a footnote label, numbered in order of first appearance.
    fn footnote(&mut self, label: &str) -> (usize, String) {
        let id = format!("{}{}", self.prefix, slug(label));
        let next = self.footnotes.len() + 1;
        let n = *self.footnotes.entry(id.clone()).or_insert(next);
        (n, id)
    }

    fn unique_id(&mut self, base: String) -> String {
        let base = format!("{}{base}", self.prefix);
        let n = self.ids.entry(base.clone()).or_insert(0);
        *n += 1;
        if *n == 1 {
            base
        } else {
            format!("{base}-{}", *n - 1)
        }
    }

    /// Events entirely inside a wikilink (emphasis in its label, say) are replaced by the link.
    fn push_unless_inside(&mut self, event: Event<'a>, range: &Range<usize>) {
        if self.in_code_block || !self.inside_a_span(range) {
            self.out.push(event);
        }
    }

    fn inside_a_span(&self, r: &Range<usize>) -> bool {
        let i = self.spans.partition_point(|s| s.end <= r.start);
        self.spans
            .get(i)
            .is_some_and(|s| s.start <= r.start && r.end <= s.end && r.start < r.end)
    }

    fn text(&mut self, text: CowStr<'a>, r: Range<usize>) {
        if self.in_code_block {
            self.out.push(Event::Text(text));
            return;
        }
        if let Some((_, _, id_text, _)) = self.heading.as_mut() {
            id_text.push_str(&text);
        }
        let body = self.body;
        let first = self.spans.partition_point(|s| s.end <= r.start);
        let overlapping: Vec<usize> = (first..self.spans.len())
            .take_while(|&i| self.spans[i].start < r.end)
            .collect();
        let verbatim = body.get(r.clone()) == Some(&*text);
        if overlapping.is_empty() || !verbatim {
            // An escape or entity decodes to other bytes than the source: keep it whole,
            // unless it lies inside a link, whose label the link shows.
            if overlapping.is_empty() || !self.inside_a_span(&r) {
                self.plain(text, &r);
            } else if let Some(&i) = overlapping.first() {
                self.emit_link(i);
            }
            return;
        }
        let mut cursor = r.start;
        for i in overlapping {
            let s = self.spans[i].clone();
            if s.start > cursor {
                self.plain(CowStr::Borrowed(&body[cursor..s.start]), &(cursor..s.start));
            }
            self.emit_link(i);
            cursor = cursor.max(s.end);
        }
        if cursor < r.end {
            self.plain(CowStr::Borrowed(&body[cursor..r.end]), &(cursor..r.end));
        }
    }

    /// Text outside links: a trailing `^block` marker at the end of a line becomes an anchor.
    fn plain(&mut self, text: CowStr<'a>, r: &Range<usize>) {
        if let Some((_, _, _, shown)) = self.heading.as_mut() {
            shown.push_str(&text);
        }
        let at_line_end = self.body[r.end..]
            .trim_start_matches([' ', '\t'])
            .chars()
            .next()
            .is_none_or(|c| c == '\n' || c == '\r');
        if at_line_end && let Some((before, id)) = block_marker(&text) {
            let anchor = format!(
                "<span class=\"block-anchor\" id=\"{}{}\"></span>",
                self.prefix,
                block_anchor(id)
            );
            let before = before.to_string();
            if !before.is_empty() {
                self.out.push(Event::Text(before.into()));
            }
            self.out.push(Event::InlineHtml(anchor.into()));
            return;
        }
        self.out.push(Event::Text(text));
    }

    fn emit_link(&mut self, i: usize) {
        if self.emitted[i] {
            return;
        }
        self.emitted[i] = true;
        let w = &self.links[i];
        let shown = display(w.link);
        if let Some((_, _, _, text)) = self.heading.as_mut() {
            text.push_str(&shown);
        }
        self.out
            .push(Event::InlineHtml(link_html(w, &shown).into()));
    }
}

/// Whether an event of a paragraph is an embed's frame or white space between frames.
fn frame_or_space(e: &Event<'_>) -> bool {
    match e {
        Event::InlineHtml(h) => h.starts_with(wikilink::FRAME),
        Event::Text(t) => t.trim().is_empty(),
        Event::SoftBreak | Event::HardBreak => true,
        _ => false,
    }
}

/// A trailing ` ^id` block marker (letters, digits, dashes): the text before it and the id.
fn block_marker(text: &str) -> Option<(&str, &str)> {
    let t = text.trim_end();
    let caret = t.rfind('^')?;
    let id = &t[caret + 1..];
    let before = &t[..caret];
    let ok_before = before.is_empty() || before.ends_with([' ', '\t']);
    let ok_id = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    (ok_before && ok_id).then(|| (before.trim_end(), id))
}

#[cfg(test)]
mod tests;
