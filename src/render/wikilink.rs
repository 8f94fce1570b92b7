//! A wikilink as HTML: what it shows and the element it becomes (a link, an embedded image,
//! an embedded page in its frame, or a span saying why it leads nowhere), from the target the
//! caller resolved.

use super::html::esc;
use super::paths::encode_segment;
use super::{Embed, Target, WikiLink};
use crate::markdown::Link;

/// What a link shows: its label, or its target (with the heading, Obsidian-style).
pub(super) fn display(l: &Link) -> String {
    if let Some(label) = &l.label {
        return label.clone();
    }
    let fragment = match (&l.heading, &l.block) {
        (Some(h), _) => h.clone(),
        (None, Some(b)) => format!("^{b}"),
        (None, None) => return l.target.clone(),
    };
    if l.target.is_empty() {
        fragment
    } else {
        format!("{} › {fragment}", l.target)
    }
}

/// How the frame of an embedded page begins (a paragraph of frames alone is unwrapped).
pub(super) const FRAME: &str = "<figure class=\"embed";

/// An embedded page's frame: a caption linking to the source, then the content or a notice.
fn frame(e: &Embed) -> String {
    let caption = format!(
        "<figcaption><a class=\"embed-source\" href=\"{}\" title=\"{}\">{}</a></figcaption>",
        esc(&e.href),
        esc(&e.path),
        esc(&e.caption)
    );
    match &e.body {
        Ok(html) => format!("{FRAME}\">{caption}<div class=\"embed-body\">{html}</div></figure>"),
        Err(why) => notice(&caption, why),
    }
}

/// A frame holding a short notice instead of content.
fn notice(caption: &str, why: &str) -> String {
    format!(
        "{FRAME} embed-notice\">{caption}<p class=\"embed-why\">{}</p></figure>",
        esc(why)
    )
}

/// The HTML of a resolved wikilink showing `shown`.
pub(super) fn link_html(w: &WikiLink<'_>, shown: &str) -> String {
    let l = w.link;
    let text = esc(shown);
    let written = esc(&l.target);
    match &w.target {
        Target::Embed(e) => frame(e),
        Target::Hidden => text,
        Target::Broken if l.embed => notice(
            &format!("<figcaption>{text}</figcaption>"),
            &format!("Not embedded: no page or file matches “{}”.", l.target),
        ),
        Target::Found {
            image: Some(src), ..
        } if l.embed => {
            // `![[diagram.png|300]]` sets the width, as in Obsidian.
            let (alt, width) = match l.label.as_deref() {
                Some(w) if w.chars().all(|c| c.is_ascii_digit()) && !w.is_empty() => {
                    (l.target.clone(), Some(w.to_string()))
                }
                Some(label) => (label.to_string(), None),
                None => (l.target.clone(), None),
            };
            let width = width.map_or(String::new(), |w| format!(" width=\"{w}\""));
            format!(
                "<img class=\"embed\" src=\"{}\" alt=\"{}\"{width}>",
                esc(src),
                esc(&alt)
            )
        }
        Target::Found {
            href,
            path,
            missing_anchor,
            ..
        } => {
            let embed = if l.embed { " embed" } else { "" };
            let (class, title) = match missing_anchor {
                Some(a) => (
                    format!("wikilink missing-anchor{embed}"),
                    format!("{path} has no {a}"),
                ),
                None => (format!("wikilink{embed}"), path.clone()),
            };
            format!(
                "<a class=\"{class}\" href=\"{}\" title=\"{}\">{text}</a>",
                esc(href),
                esc(&title)
            )
        }
        Target::Broken => format!(
            "<span class=\"wikilink broken\" title=\"no page or file matches “{written}”\">{text}</span>"
        ),
        Target::Ambiguous(n) => format!(
            "<a class=\"wikilink ambiguous\" href=\"/search?q={}\" title=\"ambiguous: {n} pages match “{written}”\">{text}</a>",
            encode_segment(&l.target)
        ),
        Target::Unknown => format!(
            "<span class=\"wikilink unresolved\" title=\"not resolved: there is no manifest yet (run sparks scan)\">{text}</span>"
        ),
    }
}
