//! The heading that repeats a page's title: the first level-1 heading of a body (`# Title`,
//! or `Title` underlined with `===`), found as the outline finds headings (never one inside
//! code or an HTML comment), with the bytes of its line and of its text. `mv` renames it with
//! the page; `merge` drops it from the body it appends, which already sits under a heading
//! of that title, and `search` from a snippet, which is shown under the title.

use crate::key;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag};
use std::ops::Range;

/// The first level-1 heading of a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleHeading {
    /// Its whole line (both lines of a setext heading), line break included, in body bytes.
    pub line: Range<usize>,
    /// Its text as written (`#` marks and surrounding spaces excluded), in body bytes.
    pub text: Range<usize>,
    /// Nothing but blank lines comes before it.
    pub leading: bool,
}

impl TitleHeading {
    /// Whether its text names `title`, compared as a link's `#Heading` is (case and
    /// punctuation aside): `# spaced repetition` repeats `Spaced repetition`.
    pub fn repeats(&self, body: &str, title: &str) -> bool {
        key::heading_key(&body[self.text.clone()]) == key::heading_key(title)
    }
}

/// The first level-1 heading of `body`, if it has one.
pub fn first_h1(body: &str) -> Option<TitleHeading> {
    let range = Parser::new_ext(body, Options::empty())
        .into_offset_iter()
        .find_map(|(event, range)| match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H1,
                ..
            }) => Some(range),
            _ => None,
        })?;
    let start = body[..range.start].rfind('\n').map_or(0, |i| i + 1);
    // The line break that ends the heading's last line.
    let last = range.end.max(range.start + 1) - 1;
    let end = body[last..].find('\n').map_or(body.len(), |i| last + i + 1);
    let first = &body[start..];
    let first = &first[..first.find('\n').unwrap_or(first.len())];
    let text = match first.trim_start().starts_with('#') {
        true => atx_text(first),
        false => {
            let t = first.trim_end_matches('\r');
            let lead = t.len() - t.trim_start().len();
            lead..t.trim_end().len()
        }
    };
    Some(TitleHeading {
        line: start..end,
        text: start + text.start..start + text.end,
        leading: body[..start].trim().is_empty(),
    })
}

/// A body without its leading H1 when that repeats `title`: `merge` appends the body under
/// `## <title>` already, and a search snippet shows the title above it.
pub fn without_title<'t>(body: &'t str, title: &str) -> &'t str {
    match first_h1(body) {
        Some(h) if h.leading && h.repeats(body, title) => skip_blank_lines(&body[h.line.end..]),
        _ => body,
    }
}

/// `text` without its leading blank lines.
pub fn skip_blank_lines(text: &str) -> &str {
    let mut rest = text;
    while let Some(i) = rest.find('\n') {
        if !rest[..i].trim().is_empty() {
            break;
        }
        rest = &rest[i + 1..];
    }
    rest
}

/// The text of an ATX heading line (`# Text #`) within it.
fn atx_text(line: &str) -> Range<usize> {
    let line = line.trim_end_matches('\r');
    let lead = line.len() - line.trim_start().len();
    let after = lead + line[lead..].len() - line[lead..].trim_start_matches('#').len();
    let rest = &line[after..];
    let start = after + (rest.len() - rest.trim_start().len());
    let mut end = line.trim_end().len().max(start);
    // A closing run of `#` after a space is no part of the text.
    let closed = line[start..end].trim_end_matches('#');
    if closed.len() < end - start && (closed.is_empty() || closed.ends_with([' ', '\t'])) {
        end = start + closed.trim_end().len();
    }
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(body: &str) -> Option<(String, String, bool)> {
        first_h1(body).map(|h| {
            (
                body[h.line.clone()].to_string(),
                body[h.text.clone()].to_string(),
                h.leading,
            )
        })
    }

    #[test]
    fn atx_and_setext_headings_with_their_text() {
        assert_eq!(
            found("\n# Spaced repetition\n\nText.\n"),
            Some((
                "# Spaced repetition\n".into(),
                "Spaced repetition".into(),
                true
            ))
        );
        assert_eq!(
            found("Intro.\n\n  #  Closed title ##  \r\nmore\n"),
            Some((
                "  #  Closed title ##  \r\n".into(),
                "Closed title".into(),
                false
            ))
        );
        assert_eq!(
            found("Title\n=====\n\nBody"),
            Some(("Title\n=====\n".into(), "Title".into(), true))
        );
        assert_eq!(found("# C#"), Some(("# C#".into(), "C#".into(), true)));
        assert_eq!(found("#\n"), Some(("#\n".into(), "".into(), true)));
    }

    #[test]
    fn only_a_real_first_h1() {
        assert_eq!(found("## Two\n\nText\n"), None);
        assert_eq!(found("```\n# code\n```\n"), None);
        assert_eq!(found("<!--\n# hidden\n-->\n"), None);
        assert_eq!(
            found("## Two\n# One\n# Later\n").map(|f| f.1),
            Some("One".into())
        );
    }

    #[test]
    fn repeats_compares_as_headings_do() {
        let body = "# *Spaced* repetition?\n";
        let h = first_h1(body).unwrap();
        assert!(h.repeats(body, "Spaced Repetition"));
        assert!(!h.repeats(body, "Spaced practice"));
    }

    #[test]
    fn a_leading_h1_that_repeats_the_title_goes() {
        assert_eq!(skip_blank_lines("\n  \nText\n\nmore"), "Text\n\nmore");
        assert_eq!(
            without_title(
                "# Offline-first apps\n\nText.\n# Other\n",
                "offline-first apps"
            ),
            "Text.\n# Other\n"
        );
        for kept in [
            "# Another title\n\nText.\n",
            "Text.\n\n# Offline-first apps\n",
        ] {
            assert_eq!(without_title(kept, "Offline-first apps"), kept);
        }
    }
}
