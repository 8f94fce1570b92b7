//! Rewriting references: where each part of a wikilink (target, fragment) and of a Markdown
//! link (destination) sits in a file's bytes, and the edits that replace those parts and
//! nothing else. The one implementation of "rewrite a reference", used by `mv` and `merge`
//! (links to a renamed or merged page). Links are found as [`super::outline`] finds them: nothing inside code or HTML
//! comments, nothing in the frontmatter block. Pure; no I/O.

use super::frontmatter;
use super::outline::{self, Link};
use pulldown_cmark::{Event, LinkType, Options, Parser, Tag};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// A wikilink or embed, with the bytes of its parts in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WikiRef {
    /// The link as the outline reads it; its `span` is in file offsets here.
    pub link: Link,
    /// The target as written (spaces around it excluded); empty at the start of the link's
    /// text for a link to a heading of its own page (`[[#Heading]]`).
    pub target: Range<usize>,
    /// What follows `#` (`Heading`, or `^block`), spaces around it excluded.
    pub fragment: Option<Range<usize>>,
    /// True when the label is separated by `\|` (inside a table).
    pub escaped_pipe: bool,
}

/// A Markdown link `[text](dest)` or image `![alt](dest)` whose destination is no URL: a
/// path, relative to the linking file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkdownRef {
    /// The 1-based line of the link.
    pub line: usize,
    /// The bytes of the destination as written, without `<>`.
    pub dest: Range<usize>,
    /// The destination written in angle brackets (`[x](<Old Name.md>)`), where spaces stay.
    pub angle: bool,
    /// The bytes of the whole link, `[text](dest)` or `![alt](dest)`.
    pub span: Range<usize>,
    /// The bytes of its text (an image's alt text), inside the brackets.
    pub label: Range<usize>,
    /// An image (`![alt](dest)`).
    pub image: bool,
}

/// Replace the bytes of `range` with `text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    /// Byte offsets in the old text.
    pub range: Range<usize>,
    /// The new bytes.
    pub text: String,
}

impl WikiRef {
    /// The edit that makes the link name `target`, keeping its fragment, label, separator and
    /// embed mark as written.
    pub fn retarget(&self, target: &str) -> Edit {
        Edit {
            range: self.target.clone(),
            text: target.to_string(),
        }
    }

    /// The edit that makes the fragment `fragment` (`Heading` or `^block`); `None` when the
    /// link has no fragment.
    pub fn refragment(&self, fragment: &str) -> Option<Edit> {
        self.fragment.clone().map(|range| Edit {
            range,
            text: fragment.to_string(),
        })
    }
}

/// The body of `text`, the line it starts on, and where it starts in bytes.
fn body_of(text: &str) -> (&str, usize, usize) {
    let (body, line) = frontmatter::body(text);
    (body, line, text.len() - body.len())
}

/// The wikilinks and embeds of a file (body only), in order, with file offsets.
pub fn wikilinks(text: &str) -> Vec<WikiRef> {
    let (body, body_line, offset) = body_of(text);
    outline::outline(body, body_line)
        .links
        .into_iter()
        .map(|mut link| {
            link.span = offset + link.span.start..offset + link.span.end;
            parts(text, link)
        })
        .collect()
}

/// The parts of a link found at `link.span`, read as [`outline`] reads them: the label
/// starts at the first `|` (`\|` in a table), the fragment at the first `#` before it.
fn parts(text: &str, link: Link) -> WikiRef {
    let inner_start = link.span.start + 2;
    let inner = &text[inner_start..link.span.end - 2];
    let (head, escaped_pipe) = match inner.find('|') {
        Some(p) if inner[..p].ends_with('\\') => (&inner[..p - 1], true),
        Some(p) => (&inner[..p], false),
        None => (inner, false),
    };
    let (name, fragment) = match head.find('#') {
        Some(h) => (&head[..h], Some((h + 1, &head[h + 1..]))),
        None => (head, None),
    };
    let trimmed = |at: usize, s: &str| {
        let start = at + (s.len() - s.trim_start().len());
        inner_start + start..inner_start + start + s.trim().len()
    };
    WikiRef {
        target: trimmed(0, name),
        fragment: fragment.map(|(at, f)| trimmed(at, f)),
        escaped_pipe,
        link,
    }
}

/// The Markdown links and images of a file (body only) whose destination is a path: no
/// scheme (`https:`, `mailto:`), not only a `#fragment`. Reference-style links are left out.
pub fn markdown_links(text: &str) -> Vec<MarkdownRef> {
    // Most pages have no Markdown link at all: skip the parse.
    if !text.contains("](") {
        return Vec::new();
    }
    let (body, body_line, offset) = body_of(text);
    let line_of = |at: usize| body_line + body[..at].matches('\n').count();
    let mut out = Vec::new();
    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        let (dest_url, image) = match event {
            Event::Start(Tag::Link {
                link_type: LinkType::Inline,
                dest_url,
                ..
            }) => (dest_url, false),
            Event::Start(Tag::Image {
                link_type: LinkType::Inline,
                dest_url,
                ..
            }) => (dest_url, true),
            _ => continue,
        };
        if !outline::is_path_destination(&dest_url) {
            continue;
        }
        if let Some((dest, angle, label_end)) = destination(body, range.clone(), &dest_url) {
            let label_start = range.start + 1 + usize::from(image);
            out.push(MarkdownRef {
                line: line_of(range.start),
                dest: offset + dest.start..offset + dest.end,
                angle,
                span: offset + range.start..offset + range.end,
                label: offset + label_start..offset + label_end.max(label_start),
                image,
            });
        }
    }
    out
}

/// The bytes of an inline link's destination inside `range` (which covers `[text](dest
/// "title")`), whether it is in angle brackets, and where the text ends (at its `](`): the last
/// `](` from which `dest`, an optional title and `)` reach the end of the link, and whose
/// destination reads as `dest_url`. `None` for a destination written with escapes or entities,
/// which is left alone rather than guessed at.
fn destination(
    body: &str,
    range: Range<usize>,
    dest_url: &str,
) -> Option<(Range<usize>, bool, usize)> {
    let link = &body[range.clone()];
    let mut found = None;
    for (i, _) in link.match_indices("](") {
        let at = range.start + i + 2;
        if let Some((dest, angle)) = parse_destination(body, at, range.end)
            && body[dest.clone()] == *dest_url
        {
            found = Some((dest, angle, at - 2));
        }
    }
    found
}

/// Parse `dest "title")` from `at` (just after `(`), which must end exactly at `end`.
fn parse_destination(body: &str, at: usize, end: usize) -> Option<(Range<usize>, bool)> {
    let bytes = body.as_bytes();
    let skip_space = |mut i: usize| {
        while i < end && matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i
    };
    let start = skip_space(at);
    let (dest, angle, mut i) = if bytes.get(start) == Some(&b'<') {
        let close = body[start + 1..end].find(['>', '\n'])? + start + 1;
        if bytes[close] != b'>' {
            return None;
        }
        (start + 1..close, true, close + 1)
    } else {
        let mut depth = 0usize;
        let mut i = start;
        while i < end {
            match bytes[i] {
                b' ' | b'\t' | b'\n' | b'\r' => break,
                b'(' => depth += 1,
                b')' if depth == 0 => break,
                b')' => depth -= 1,
                b'\\' => i += 1,
                _ => {}
            }
            i += 1;
        }
        (start..i.min(end), false, i.min(end))
    };
    i = skip_space(i);
    if i < end && matches!(bytes[i], b'"' | b'\'' | b'(') {
        let close = if bytes[i] == b'(' { b')' } else { bytes[i] };
        let rest = &bytes[i + 1..end];
        let j = rest.iter().position(|&b| b == close)?;
        i = skip_space(i + 1 + j + 1);
    }
    (i + 1 == end && bytes.get(i) == Some(&b')')).then_some((dest, angle))
}

/// `s` with its `%XX` escapes decoded (a Markdown link's destination, a URL path); `None` when
/// an escape is malformed or the result is not UTF-8 or holds a NUL byte.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |b: u8| (b as char).to_digit(16);
            let h = bytes.get(i + 1).and_then(|&b| hex(b))?;
            let l = bytes.get(i + 2).and_then(|&b| hex(b))?;
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    if out.contains(&0) {
        return None;
    }
    String::from_utf8(out).ok()
}

/// `text` with `edits` applied. Edits are given in any order and must not overlap.
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for e in sorted {
        debug_assert!(e.range.start >= at, "overlapping edits");
        out.push_str(&text[at..e.range.start]);
        out.push_str(&e.text);
        at = e.range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Lines of a file before and after some edits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineChange {
    /// The 1-based line of the first line changed, in the old text.
    pub line: usize,
    /// The whole lines the edits touch, as they were (line breaks between them kept).
    pub before: String,
    /// The same lines after the edits.
    pub after: String,
}

/// The lines `edits` change in `old`, one entry per run of lines they touch.
pub fn line_changes(old: &str, edits: &[Edit]) -> Vec<LineChange> {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    let line_start = |at: usize| old[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = |at: usize| old[at..].find('\n').map_or(old.len(), |i| at + i);
    // An edit that ends with a line break ends on that line, not on the next.
    let last = |e: &Edit| match e.range.end > e.range.start && old[..e.range.end].ends_with('\n') {
        true => e.range.end - 1,
        false => e.range.end,
    };
    let mut out: Vec<LineChange> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = line_start(sorted[i].range.start);
        let mut end = line_end(last(sorted[i])).max(sorted[i].range.end);
        let mut j = i + 1;
        while j < sorted.len() && sorted[j].range.start <= end {
            end = end.max(line_end(last(sorted[j]))).max(sorted[j].range.end);
            j += 1;
        }
        let group: Vec<Edit> = sorted[i..j]
            .iter()
            .map(|e| Edit {
                range: e.range.start - start..e.range.end - start,
                text: e.text.clone(),
            })
            .collect();
        let before = &old[start..end];
        out.push(LineChange {
            line: old[..start].matches('\n').count() + 1,
            before: before.trim_end_matches(['\r', '\n']).to_string(),
            after: apply(before, &group)
                .trim_end_matches(['\r', '\n'])
                .to_string(),
        });
        i = j;
    }
    out
}

/// The edit that turns `old` into `new` where both are one region of a file starting at
/// `offset`: the differing middle, common prefix and suffix left out. `None` when equal.
pub fn difference(old: &str, new: &str, offset: usize) -> Option<Edit> {
    if old == new {
        return None;
    }
    let prefix = common_prefix(old, new);
    let suffix = common_suffix(&old[prefix..], &new[prefix..]);
    Some(Edit {
        range: offset + prefix..offset + old.len() - suffix,
        text: new[prefix..new.len() - suffix].to_string(),
    })
}

/// The edits that turn `old` into `new` line by line, each changed run of whole lines one
/// edit, where both are one region of a file starting at `offset`: for a frontmatter block
/// whose title, aliases and `updated:` change, three small edits rather than one that spans
/// them. Texts too long for a line diff get one [`difference`].
pub fn line_edits(old: &str, new: &str, offset: usize) -> Vec<Edit> {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    if a.len() * b.len() > 250_000 {
        return difference(old, new, offset).into_iter().collect();
    }
    // Longest common subsequence of lines, from the end.
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = match a[i] == b[j] {
                true => lcs[i + 1][j + 1] + 1,
                false => lcs[i + 1][j].max(lcs[i][j + 1]),
            };
        }
    }
    let mut edits = Vec::new();
    let (mut i, mut j, mut at) = (0, 0, offset);
    let mut run: Option<(usize, String)> = None;
    let flush = |run: &mut Option<(usize, String)>, end: usize, edits: &mut Vec<Edit>| {
        if let Some((start, text)) = run.take() {
            edits.push(Edit {
                range: start..end,
                text,
            });
        }
    };
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            flush(&mut run, at, &mut edits);
            at += a[i].len();
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            run.get_or_insert_with(|| (at, String::new()))
                .1
                .push_str(b[j]);
            j += 1;
        } else {
            run.get_or_insert_with(|| (at, String::new()));
            at += a[i].len();
            i += 1;
        }
    }
    flush(&mut run, at, &mut edits);
    edits
}

fn common_prefix(a: &str, b: &str) -> usize {
    let n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    // Back to a character boundary of both.
    (0..=n)
        .rev()
        .find(|&i| a.is_char_boundary(i) && b.is_char_boundary(i))
        .unwrap_or(0)
}

fn common_suffix(a: &str, b: &str) -> usize {
    let n = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (0..=n)
        .rev()
        .find(|&i| a.is_char_boundary(a.len() - i) && b.is_char_boundary(b.len() - i))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "---\ntitle: P\n---\nSee [[Old]], [[ old # Design | the design ]] and ![[Old#^b1]].\n\
                        | [[Old\\|x]] |\n`[[Old]]` stays, [[#Local]] too.\n";

    fn texts<'a>(text: &'a str, r: &WikiRef) -> (&'a str, Option<&'a str>) {
        (
            &text[r.target.clone()],
            r.fragment.clone().map(|f| &text[f]),
        )
    }

    #[test]
    fn parts_of_every_form() {
        let refs = wikilinks(PAGE);
        let got: Vec<_> = refs.iter().map(|r| texts(PAGE, r)).collect();
        assert_eq!(
            got,
            [
                ("Old", None),
                ("old", Some("Design")),
                ("Old", Some("^b1")),
                ("Old", None),
                ("", Some("Local")),
            ]
        );
        assert!(refs[3].escaped_pipe && !refs[0].escaped_pipe);
        assert!(refs[2].link.embed);
        assert_eq!(&PAGE[refs[0].link.span.clone()], "[[Old]]");
        assert_eq!(refs[1].link.line, 4);
    }

    #[test]
    fn retargeting_keeps_everything_else() {
        let edits: Vec<Edit> = wikilinks(PAGE)
            .iter()
            .filter(|r| !r.target.is_empty())
            .map(|r| r.retarget("New Name"))
            .collect();
        assert_eq!(
            apply(PAGE, &edits),
            "---\ntitle: P\n---\nSee [[New Name]], [[ New Name # Design | the design ]] and ![[New Name#^b1]].\n\
             | [[New Name\\|x]] |\n`[[Old]]` stays, [[#Local]] too.\n"
        );
        let r = &wikilinks(PAGE)[2];
        assert_eq!(
            apply(PAGE, &[r.refragment("^b1-2").unwrap()]),
            PAGE.replace("#^b1]]", "#^b1-2]]")
        );
    }

    #[test]
    fn markdown_destinations() {
        let text = "---\ntitle: P\n---\n[a](Old.md), [b](<Old Name.md> \"t\"), ![c](../x/Old%20Name.md#Part),\n\
                    [web](https://x.example/Old.md), [top](#Local), `[code](Old.md)`, [p](a(b).md)\n";
        let refs = markdown_links(text);
        let dests: Vec<(&str, bool, usize)> = refs
            .iter()
            .map(|r| (&text[r.dest.clone()], r.angle, r.line))
            .collect();
        assert_eq!(
            dests,
            [
                ("Old.md", false, 4),
                ("Old Name.md", true, 4),
                ("../x/Old%20Name.md#Part", false, 4),
                ("a(b).md", false, 5),
            ]
        );
        let whole: Vec<(&str, &str, bool)> = refs
            .iter()
            .map(|r| (&text[r.span.clone()], &text[r.label.clone()], r.image))
            .collect();
        assert_eq!(
            whole[1..3],
            [
                ("[b](<Old Name.md> \"t\")", "b", false),
                ("![c](../x/Old%20Name.md#Part)", "c", true),
            ]
        );
        assert!(markdown_links("no links here [[Old]]\n").is_empty());
    }

    #[test]
    fn line_changes_cover_whole_lines() {
        let old = "a [[X]] b [[X]]\nkeep\nc [[X]]\nend";
        let edits = [
            Edit {
                range: 4..5,
                text: "Y".into(),
            },
            Edit {
                range: 12..13,
                text: "Y".into(),
            },
            Edit {
                range: 25..26,
                text: "Y".into(),
            },
            Edit {
                range: old.len()..old.len(),
                text: "\nmore".into(),
            },
        ];
        let whole = [Edit {
            range: 0..16,
            text: "A\n".into(),
        }];
        assert_eq!(line_changes(old, &whole)[0].before, "a [[X]] b [[X]]");
        let got = line_changes(old, &edits);
        let got: Vec<(usize, &str, &str)> = got
            .iter()
            .map(|c| (c.line, c.before.as_str(), c.after.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (1, "a [[X]] b [[X]]", "a [[Y]] b [[Y]]"),
                (3, "c [[X]]", "c [[Y]]"),
                (4, "end", "end\nmore"),
            ]
        );
    }

    #[test]
    fn line_edits_are_small() {
        let old = "---\ntitle: Old\ntype: concept\nupdated: 2026-01-01\n---\n";
        let new = "---\ntitle: New\ntype: concept\naliases: [Old]\nupdated: 2026-05-01\n---\n";
        let edits = line_edits(old, new, 0);
        assert_eq!(apply(old, &edits), new);
        let texts: Vec<&str> = edits.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(
            texts,
            ["title: New\n", "aliases: [Old]\nupdated: 2026-05-01\n"]
        );
        assert!(line_edits("same\n", "same\n", 0).is_empty());
        assert_eq!(apply("a\nb", &line_edits("a\nb", "a\n", 0)), "a\n");
    }

    #[test]
    fn difference_is_the_changed_middle() {
        let e = difference("updated: 2026-01-01\n", "updated: 2026-05-01\n", 10).unwrap();
        assert_eq!((e.range, e.text.as_str()), (25..26, "5"));
        assert_eq!(difference("same", "same", 0), None);
        let e = difference("é", "è", 0).unwrap();
        assert_eq!((e.range, e.text.as_str()), (0..2, "è"));
    }
}
