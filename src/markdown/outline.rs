//! The outline of a Markdown body: wikilinks and embeds, headings and block ids, with line
//! numbers, and how many sentences of prose it holds. Links follow Obsidian's syntax
//! (`[[T]]`, `[[T|label]]`, `[[T#Heading]]`, `[[T#^block]]`, `![[embed]]`, `[[folder/T]]`,
//! `[[T.md]]`, and `[[T\|label]]` inside tables). Nothing inside code (fenced, indented or
//! inline) or an HTML comment is a link or prose. A heading inside an HTML comment or an
//! Obsidian `%%comment%%` is no heading: Obsidian does not offer it as a link target.

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};
use std::ops::Range;

/// A wikilink or embed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The 1-based line of the link in the file.
    pub line: usize,
    /// The target as written, without `#fragment` or `|label`; empty for `[[#Heading]]`.
    pub target: String,
    /// `[[T#Heading]]`
    pub heading: Option<String>,
    /// `[[T#^block]]`
    pub block: Option<String>,
    /// `[[T|label]]`
    pub label: Option<String>,
    /// `![[T]]`
    pub embed: bool,
    /// The bytes of `[[…]]` in the body (the `!` of an embed excluded).
    pub span: Range<usize>,
}

/// A heading of the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// 1 to 6.
    pub level: u8,
    /// The heading's text.
    pub text: String,
    /// The 1-based line in the file.
    pub line: usize,
}

/// What a body links to and what it offers as link targets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outline {
    /// Links in order of appearance.
    pub links: Vec<Link>,
    /// Headings in order.
    pub headings: Vec<Heading>,
    /// Block ids (`^id` at the end of a block) with their lines.
    pub blocks: Vec<(String, usize)>,
    /// Sentences of prose (text outside code, headings and comments), counted by
    /// [`super::sentences::count`].
    pub sentences: usize,
    /// The body holds an inline Markdown link or image to a path (see
    /// [`is_path_destination`]): a reference `mv` may have to rewrite, which the manifest
    /// does not record as a link.
    pub path_links: bool,
}

/// The outline of `body`, whose first line is line `first_line` of its file.
pub fn outline(body: &str, first_line: usize) -> Outline {
    let lines = LineIndex::new(body, first_line);
    let mut excluded: Vec<Range<usize>> = Vec::new();
    let mut headings = Vec::new();
    let mut heading: Option<(u8, String, usize)> = None;
    // Where each heading starts, to drop those inside comments once all comments are known.
    let mut heading_starts = Vec::new();
    // The prose of the body's current line (a space stands for inline code), its sentences
    // counted at each line break and block end: a sentence never spans one (they are
    // white space), and a body of megabytes is never copied whole.
    let mut prose = String::new();
    let mut sentences = super::sentences::Lines::default();
    let mut line_ends = |prose: &mut String| {
        sentences.add(prose);
        prose.clear();
    };
    let mut path_links = false;
    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(
                Tag::Link {
                    link_type: LinkType::Inline,
                    ref dest_url,
                    ..
                }
                | Tag::Image {
                    link_type: LinkType::Inline,
                    ref dest_url,
                    ..
                },
            ) if is_path_destination(dest_url) => path_links = true,
            Event::Start(Tag::CodeBlock(_)) => excluded.push(range),
            Event::Code(text) => {
                match heading.as_mut() {
                    Some((_, t, _)) => t.push_str(&text),
                    None => prose.push(' '),
                }
                excluded.push(range);
            }
            Event::Html(html) | Event::InlineHtml(html)
                if html.trim_start().starts_with("<!--") =>
            {
                excluded.push(comment_range(body, range));
            }
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((level as u8, String::new(), lines.line_of(range.start)));
                heading_starts.push(range.start);
            }
            Event::Text(text) => match heading.as_mut() {
                Some((_, t, _)) => t.push_str(&text),
                None if !in_code(&excluded, range.start) => prose.push_str(&text),
                None => {}
            },
            Event::SoftBreak | Event::HardBreak => line_ends(&mut prose),
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, text, line)) = heading.take() {
                    headings.push(Heading {
                        level,
                        text: text.trim().to_string(),
                        line,
                    });
                }
            }
            Event::End(
                TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Link
                | TagEnd::Image,
            ) => {}
            Event::End(_) => line_ends(&mut prose),
            _ => {}
        }
    }
    line_ends(&mut prose);
    excluded.sort_by_key(|r| r.start);
    let inside = |pos: usize| excluded.iter().any(|r| r.contains(&pos));
    let comments = percent_comments(body, &inside);
    let headings = headings
        .into_iter()
        .zip(heading_starts)
        .filter(|(_, at)| !inside(*at) && !comments.iter().any(|r| r.contains(at)))
        .map(|(h, _)| h)
        .collect();
    Outline {
        links: links(body, &lines, &inside),
        headings,
        blocks: block_ids(body, &lines, &inside),
        sentences: sentences.sentences,
        path_links,
    }
}

/// Whether an inline link's destination is a path: not empty, not only a `#fragment`, and
/// without a URL scheme (`https:`, `mailto:`, `obsidian:`).
pub fn is_path_destination(dest: &str) -> bool {
    !dest.is_empty() && !dest.starts_with('#') && !has_scheme(dest)
}

/// Whether a destination starts with a URL scheme.
fn has_scheme(dest: &str) -> bool {
    match dest.find(':') {
        Some(i) if i > 0 => {
            let scheme = &dest[..i];
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        _ => false,
    }
}

fn in_code(excluded: &[Range<usize>], pos: usize) -> bool {
    excluded.last().is_some_and(|r| r.contains(&pos))
}

/// An HTML comment event covers the comment's first line at least; extend it to `-->`.
fn comment_range(body: &str, range: Range<usize>) -> Range<usize> {
    match body[range.start..].find("-->") {
        Some(i) => range.start..(range.start + i + 3).max(range.end),
        None => range.start..body.len(),
    }
}

/// Obsidian's comments: from a `%%` outside code to the next one, or to the end of the body
/// when there is no next one (Obsidian hides the rest of the note then).
fn percent_comments(body: &str, inside: &dyn Fn(usize) -> bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut open = None;
    for (i, _) in body.match_indices("%%").filter(|(i, _)| !inside(*i)) {
        match open.take() {
            None => open = Some(i),
            Some(start) => out.push(start..i + 2),
        }
    }
    if let Some(start) = open {
        out.push(start..body.len());
    }
    out
}

fn links(body: &str, lines: &LineIndex, inside: &dyn Fn(usize) -> bool) -> Vec<Link> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(i) = body[pos..].find("[[").map(|i| pos + i) {
        pos = i + 2;
        if inside(i) {
            continue;
        }
        let rest = &body[i + 2..];
        let Some(end) = rest.find("]]") else { break };
        let inner = &rest[..end];
        if inner.contains('\n') || inner.contains("[[") {
            continue;
        }
        let embed = i > 0 && body.as_bytes()[i - 1] == b'!';
        if let Some(mut link) = parse_inner(inner, embed, lines.line_of(i)) {
            link.span = i..i + 4 + end;
            pos = link.span.end;
            out.push(link);
        }
    }
    out
}

fn parse_inner(inner: &str, embed: bool, line: usize) -> Option<Link> {
    // In a table the label pipe is written `\|`; either form separates target and label.
    let (target_part, label) = match inner.find('|') {
        Some(p) => {
            let before = &inner[..p];
            let before = before.strip_suffix('\\').unwrap_or(before);
            (before, Some(inner[p + 1..].trim().to_string()))
        }
        None => (inner, None),
    };
    let (name, fragment) = match target_part.find('#') {
        Some(p) => (&target_part[..p], Some(target_part[p + 1..].trim())),
        None => (target_part, None),
    };
    let target = name.trim().to_string();
    let (heading, block) = match fragment {
        Some(f) if f.starts_with('^') => (None, Some(f[1..].to_string())),
        Some(f) if !f.is_empty() => (Some(f.to_string()), None),
        _ => (None, None),
    };
    if target.is_empty() && heading.is_none() && block.is_none() {
        return None;
    }
    Some(Link {
        line,
        target,
        heading,
        block,
        label: label.filter(|l| !l.is_empty()),
        embed,
        span: 0..0,
    })
}

fn block_ids(
    body: &str,
    lines: &LineIndex,
    inside: &dyn Fn(usize) -> bool,
) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in body.split_inclusive('\n') {
        let text = line.trim_end();
        if let Some(caret) = text.rfind('^') {
            let id = &text[caret + 1..];
            let before_ok = caret == 0 || text[..caret].ends_with([' ', '\t']);
            let id_ok = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            if before_ok && id_ok && !inside(start + caret) {
                out.push((id.to_string(), lines.line_of(start)));
            }
        }
        start += line.len();
    }
    out
}

/// Byte offset → file line.
struct LineIndex {
    starts: Vec<usize>,
    first_line: usize,
}

impl LineIndex {
    fn new(text: &str, first_line: usize) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts, first_line }
    }

    fn line_of(&self, offset: usize) -> usize {
        let idx = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        self.first_line + idx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(body: &str) -> Vec<String> {
        outline(body, 1)
            .links
            .into_iter()
            .map(|l| l.target)
            .collect()
    }

    #[test]
    fn obsidian_forms() {
        let o = outline(
            "See [[Cascade]], [[BigQuery|BQ]], [[Sparks#Design]], [[Note#^abc123]],\n\
             ![[diagram.png]], [[entities/Cascade]] and [[Pebble.md]].\n",
            1,
        );
        let l = &o.links;
        assert_eq!(l.len(), 7);
        assert_eq!(l[1].label.as_deref(), Some("BQ"));
        assert_eq!(l[2].heading.as_deref(), Some("Design"));
        assert_eq!(l[3].block.as_deref(), Some("abc123"));
        assert!(l[4].embed && l[4].target == "diagram.png" && l[4].line == 2);
        assert_eq!(l[5].target, "entities/Cascade");
        assert_eq!(l[6].target, "Pebble.md");
        assert_eq!(&"See [[Cascade]]"[l[0].span.clone()], "[[Cascade]]");
    }

    #[test]
    fn escaped_pipe_in_a_table() {
        let o = outline("| a | b |\n|---|---|\n| [[Cascade\\|CC]] | x |\n", 1);
        assert_eq!(o.links[0].target, "Cascade");
        assert_eq!(o.links[0].label.as_deref(), Some("CC"));
        assert_eq!(o.links[0].line, 3);
    }

    #[test]
    fn markdown_links_to_paths_are_noted() {
        for (body, path) in [
            ("[a](../concepts/A.md)", true),
            ("![img](pics/a.png)", true),
            ("[a](<A B.md#Part>)", true),
            (
                "[a](https://example.com) [b](mailto:x@y.z) [c](obsidian://open)",
                false,
            ),
            ("[a](#Heading) and [b]()", false),
            ("[a][ref]\n\n[ref]: A.md", false),
            ("`[a](A.md)` and\n\n```\n[b](B.md)\n```", false),
            ("No link; [[A]] is a wikilink.", false),
        ] {
            assert_eq!(outline(body, 1).path_links, path, "{body}");
        }
    }

    #[test]
    fn nothing_inside_code_or_comments() {
        let body = "Use `[[Inline]]` syntax.\n\n```\n[[Fenced]]\n```\n\n~~~md\n[[Tilde]]\n~~~\n\n    [[Indented]]\n\n<!-- [[Hidden]] -->\n\n[[Real]]\n";
        assert_eq!(targets(body), ["Real"]);
    }

    #[test]
    fn self_links_to_headings() {
        let o = outline("[[#Design]]\n", 1);
        assert_eq!(o.links[0].target, "");
        assert_eq!(o.links[0].heading.as_deref(), Some("Design"));
        assert!(targets("[[]] and [[#]] and [[ ]]").is_empty());
    }

    #[test]
    fn links_do_not_span_lines() {
        assert!(targets("[[broken\nlink]]").is_empty());
        assert_eq!(targets("[[a]] [[b]]"), ["a", "b"]);
    }

    #[test]
    fn sentences_of_prose_only() {
        let o = outline(
            "# A heading. Here!\n\nOne two. Three?\n\n```\nnot. counted.\n```\n\n    nor. this.\n\n\
             Run `a.b.c` now! [Label.](https://x.example/a.b) <https://y.example/c.d>\n\n\
             <!-- hidden. -->\n\n~~~\nno.\n~~~\n\n知識管理。",
            1,
        );
        assert_eq!(o.sentences, 2 + 1 + 1 + 1);
    }

    #[test]
    fn headings_in_comments_and_code_do_not_exist() {
        let body = "<!--\n## In HTML\n-->\n\n%%\n## In percent\n%%\n\n```\n## In code\n```\n\n\
                    Text %% inline %% here.\n\n## Real\n\n`%%` is code.\n\n## Also real\n\n%%\n## Unclosed\n";
        let o = outline(body, 1);
        let texts: Vec<&str> = o.headings.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(texts, ["Real", "Also real"]);
    }

    #[test]
    fn headings_and_blocks_with_lines() {
        let o = outline(
            "# Title\n\nText here. ^intro\n\n## Design `v2`\n\n```\nx ^notablock\n```\n",
            5,
        );
        assert_eq!(o.headings.len(), 2);
        assert_eq!(o.headings[1].text, "Design v2");
        assert_eq!(o.headings[1].line, 9);
        assert_eq!(o.blocks, [("intro".to_string(), 7)]);
    }
}
