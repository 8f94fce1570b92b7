//! Bookmarks: every URL in the bookmark files (frontmatter skipped) and in the archived
//! captures (markers skipped; a `to-read:` item belongs to the Reading List), grouped by file.
//! A Markdown link `[text](url)` is described by its text; a bare URL by the rest of its line.

use super::text::{Inputs, archive_lines, body_lines, inline, labelled, link_text, stem};
use super::{ARCHIVES, Collection, ExtractError, is_archive, page::Body};
use crate::inbox::hints::urls;

/// A bookmark.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Bookmark {
    /// The URL.
    pub url: String,
    /// What the line says about it.
    pub description: String,
}

/// The bookmarks of one file's text.
pub fn parse(text: &str) -> Vec<Bookmark> {
    of_lines(body_lines(text))
}

/// The bookmarks of an archive file (or of one capture).
pub fn in_archive(text: &str) -> Vec<Bookmark> {
    of_lines(archive_lines(text).filter(|l| labelled(l, "to-read:").is_none()))
}

fn of_lines<'t>(lines: impl IntoIterator<Item = &'t str>) -> Vec<Bookmark> {
    let mut out = Vec::new();
    for line in lines {
        for url in urls(line) {
            out.push(Bookmark {
                url: url.to_string(),
                description: describe(line, url),
            });
        }
    }
    out
}

fn describe(line: &str, url: &str) -> String {
    // `[text](url)`: the text.
    if let Some(end) = line.find(&format!("]({url}"))
        && let Some(start) = line[..end].rfind('[')
    {
        return line[start + 1..end].trim().to_string();
    }
    let text = item_text(line);
    // The line without its URLs, each taken with the punctuation written against it
    // (`(https://…)`, `https://…,`): the rest is the description, as written.
    let mut rest = String::new();
    let mut at = 0;
    for u in urls(text) {
        let start = u.as_ptr() as usize - text.as_ptr() as usize;
        let start = text[..start]
            .trim_end_matches(['(', '<', '['])
            .len()
            .max(at);
        let end = start
            + text[start..]
                .find(char::is_whitespace)
                .unwrap_or(text.len() - start);
        rest.push_str(&text[at..start]);
        rest.push(' ');
        at = end;
    }
    rest.push_str(&text[at..]);
    let words: Vec<&str> = rest.split_whitespace().collect();
    // A word without a letter or digit at either end stood beside a URL (`— `, `: `): not
    // description. Inside, every word stays.
    let has_text = |w: &&str| w.chars().any(char::is_alphanumeric);
    let first = words.iter().position(has_text);
    let last = words.iter().rposition(has_text);
    match (first, last) {
        (Some(a), Some(b)) => words[a..=b].join(" "),
        _ => String::new(),
    }
}

/// A line without what makes it a list item, quote or task (`> - [ ] `): the text it holds.
fn item_text(line: &str) -> &str {
    let mut t = line.trim();
    loop {
        let before = t.len();
        for mark in ["> ", "- ", "* ", "+ ", "[ ] ", "[x] ", "[X] "] {
            t = t.strip_prefix(mark).unwrap_or(t).trim_start();
        }
        t = t.strip_prefix('>').unwrap_or(t).trim_start();
        if t.len() == before {
            return t;
        }
    }
}

/// The Bookmarks page body.
pub fn body(inputs: &Inputs<'_>) -> Result<Body, ExtractError> {
    let glob = Collection::Bookmarks
        .glob(&inputs.vault.config)?
        .expect("Bookmarks has a glob");
    let found = inputs.extract(
        "bookmarks",
        &[glob.prefix(), ARCHIVES],
        |p| glob.is_match(p) || is_archive(p),
        |text, f| match is_archive(f) {
            true => in_archive(text),
            false => parse(text),
        },
    )?;
    let (mut text, mut n, mut groups) = (String::new(), 0, 0);
    for (f, marks) in &found {
        let Some(marks) = marks.as_ref().filter(|m| !m.is_empty()) else {
            continue;
        };
        groups += 1;
        text.push_str(&format!("## {}\n\n", inline(stem(f))));
        for b in marks {
            n += 1;
            if b.description.is_empty() {
                text.push_str(&format!("- <{}>\n", b.url));
            } else {
                text.push_str(&format!("- [{}]({})\n", link_text(&b.description), b.url));
            }
        }
        text.push('\n');
    }
    let verb = if groups == 1 {
        "in 1 file".to_string()
    } else {
        format!("in {groups} files")
    };
    Ok(Body::new(
        n,
        ("bookmark", "bookmarks", &verb),
        "_No bookmarks captured yet._",
        text,
        found.into_iter().map(|(f, _)| f).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Vec<(String, String)> {
        parse(text)
            .into_iter()
            .map(|b| (b.url, b.description))
            .collect()
    }

    #[test]
    fn descriptions() {
        let got = d(
            "# May links\n- https://example.org/rust-book Great intro\n- [Tokio tutorial](https://tokio.rs/tokio/tutorial)\nSee https://a.example/x, and https://b.example/y.\n",
        );
        assert_eq!(
            got[0],
            ("https://example.org/rust-book".into(), "Great intro".into())
        );
        assert_eq!(
            got[1],
            (
                "https://tokio.rs/tokio/tutorial".into(),
                "Tokio tutorial".into()
            )
        );
        assert_eq!(got[2], ("https://a.example/x".into(), "See and".into()));
        assert_eq!(got[3].0, "https://b.example/y");
    }

    #[test]
    fn descriptions_keep_their_punctuation_as_written() {
        let got = d(
            "https://www.inkandswitch.com/local-first/ the Ink & Switch essay: local-first!\n\
             - https://x.example/a — essay — read it!\n\
             > - [ ] (https://y.example/b) [draft] notes, 50% done\n\
             https://z.example/c —\n",
        );
        let shown: Vec<&str> = got.iter().map(|(_, d)| d.as_str()).collect();
        assert_eq!(
            shown,
            [
                "the Ink & Switch essay: local-first!",
                "essay — read it!",
                "[draft] notes, 50% done",
                ""
            ]
        );
    }

    #[test]
    fn archived_captures_without_markers_or_reading_items() {
        let marker = crate::archive::marker(1, "k", 1, "h");
        let text = format!(
            "---\n{marker}\nMet Dana https://example.com/doc\nto-read: https://x.example/a (A)\n\
             ---\n{marker}\n- [ ] read https://b.example/\n"
        );
        let got: Vec<_> = in_archive(&text)
            .into_iter()
            .map(|b| (b.url, b.description))
            .collect();
        assert_eq!(
            got,
            [
                ("https://example.com/doc".into(), "Met Dana".into()),
                ("https://b.example/".into(), "read".into())
            ]
        );
    }

    #[test]
    fn frontmatter_urls_are_not_bookmarks_and_parentheses_balance() {
        let got = d(
            "---\nsource: https://clipper.example/\n---\nhttps://en.wikipedia.org/wiki/Rust_(language) the language\n",
        );
        assert_eq!(
            got,
            [(
                "https://en.wikipedia.org/wiki/Rust_(language)".into(),
                "the language".into()
            )]
        );
    }
}
