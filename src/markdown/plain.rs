//! Markdown as plain text, for search snippets: what a reader sees, not its syntax. Headings,
//! list and task marks, quote marks, emphasis, code fences, tables and thematic breaks go;
//! a wikilink shows its label (or its target, `[[Page#Heading]]` as `Page > Heading`), an embed
//! its target, a Markdown link its text; HTML (an archive's block markers included) and
//! Obsidian `%%comments%%` are left out. Blocks end with a line break. Pure; no I/O.

use super::outline;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The plain text of a Markdown body.
pub fn text(body: &str) -> String {
    let linked = with_link_labels(body);
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let mut out = String::with_capacity(linked.len());
    let mut hidden = 0usize;
    for event in Parser::new_ext(&linked, options) {
        match event {
            Event::Start(Tag::Image { .. }) => hidden += 1,
            Event::End(TagEnd::Image) => hidden = hidden.saturating_sub(1),
            Event::Text(t) | Event::Code(t) if hidden == 0 => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            Event::Start(Tag::TableCell) | Event::End(TagEnd::TableCell) => out.push(' '),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::TableRow
                | TagEnd::TableHead,
            )
            | Event::Rule => out.push('\n'),
            _ => {}
        }
    }
    without_comments(&out)
}

/// `body` with each wikilink and embed replaced by what it shows, found as the outline finds
/// them (never in code or a comment).
fn with_link_labels(body: &str) -> String {
    let links = outline::outline(body, 1).links;
    if links.is_empty() {
        return body.to_string();
    }
    let mut out = String::with_capacity(body.len());
    let mut at = 0;
    for l in links {
        let start = match l.embed && body[..l.span.start].ends_with('!') {
            true => l.span.start - 1,
            false => l.span.start,
        };
        if start < at {
            continue;
        }
        out.push_str(&body[at..start]);
        let shown = match (&l.label, &l.heading) {
            (Some(label), _) => label.clone(),
            (None, Some(h)) if l.target.is_empty() => h.clone(),
            (None, Some(h)) => format!("{} > {h}", l.target),
            (None, None) => l.target.clone(),
        };
        // What the link shows is text: nothing in it is Markdown syntax.
        out.push_str(&escaped(&shown));
        at = l.span.end;
    }
    out.push_str(&body[at..]);
    out
}

/// Text with every ASCII punctuation character backslash-escaped, so that the Markdown parser
/// reads it back as the same text.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text without Obsidian's `%%comments%%`.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut parts = text.split("%%");
    let mut inside = false;
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    let rest: Vec<&str> = parts.collect();
    // An unclosed `%%` is text, not a comment.
    let closed = rest.len() - rest.len() % 2;
    for (i, part) in rest.iter().enumerate() {
        inside = !inside;
        if i >= closed {
            out.push_str("%%");
            out.push_str(part);
        } else if !inside {
            out.push_str(part);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_goes_and_what_a_reader_sees_stays() {
        let md = "# Zebrafish\n\nThey **regrow** fins; see [[Regeneration|regrowth]], \
                  [[Fins#Rays]], [[#Later]] and [the paper](https://x.example/p).\n\n\
                  ![[fin.png]] ![alt text](a.png)\n\n- [ ] feed them\n- [x] buy a tank\n\n\
                  > Quoted `code`.\n\n```\nfenced\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n\
                  <!-- sparks: ingest 1 k entry 1 blake3 h -->\nAfter %%hidden%% the marker.\n";
        assert_eq!(
            text(md),
            "Zebrafish\nThey regrow fins; see regrowth, Fins > Rays, Later and the paper.\n\
             fin.png \nfeed them\nbuy a tank\nQuoted code.\nfenced\n\n a  b \n 1  2 \n\n\
             After  the marker.\n"
        );
    }

    #[test]
    fn an_archive_reads_as_its_captures() {
        let archive = "---\n<!-- sparks: ingest 1 k entry 1 blake3 h -->\nZebrafish regrow fins.\n\
                       ---\n<!-- sparks: ingest 1 k entry 2 blake3 h -->\n2026-04-10 note\n";
        let plain = text(archive);
        assert!(
            !plain.contains("sparks:") && !plain.contains("---"),
            "{plain}"
        );
        assert!(plain.contains("Zebrafish regrow fins."), "{plain}");
        assert!(plain.contains("2026-04-10 note"), "{plain}");
    }

    #[test]
    fn labels_with_markdown_characters_stay_text_and_stray_percent_signs_stay() {
        assert_eq!(
            text("[[A|*not* emphasis]] 50%% off\n"),
            "*not* emphasis 50%% off\n"
        );
    }
}
