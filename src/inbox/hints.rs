//! Hints: what an entry looks like it holds (tasks, links, quotes, books, reading). Purely
//! syntactic; the agent decides what the entry means.

use serde::{Deserialize, Serialize};

/// The hints of one entry. Lists are always present, empty when there is nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hints {
    /// Task texts: `- [ ] x`, `* [ ] x`, `TODO: x`.
    pub tasks: Vec<String>,
    /// URLs, first occurrence order, without trailing punctuation.
    pub bookmarks: Vec<String>,
    /// A `> quote` line, or `"…" — Someone`.
    pub has_quote: bool,
    /// A `book:` line.
    pub has_book: bool,
    /// A `to-read:` line.
    pub has_to_read: bool,
}

impl Hints {
    /// The hints of an entry's content.
    pub fn of(content: &str) -> Hints {
        let mut h = Hints::default();
        for line in content.lines() {
            if let Some(task) = checkbox_task(line).or_else(|| todo_task(line)) {
                h.tasks.push(task.to_string());
                continue;
            }
            h.has_book |= labelled(line, "book:");
            h.has_to_read |= labelled(line, "to-read:");
            h.has_quote |= is_quote(line);
            for url in urls(line) {
                if !h.bookmarks.iter().any(|b| b == url) {
                    h.bookmarks.push(url.to_string());
                }
            }
        }
        h
    }
}

/// `- [ ] text` or `* [ ] text` (an unchecked box): the task text.
pub fn checkbox_task(line: &str) -> Option<&str> {
    boxed_task(line, &["[ ]"])
}

/// `- [x] text` or `* [X] text` (a ticked box): the task text.
pub fn ticked_task(line: &str) -> Option<&str> {
    boxed_task(line, &["[x]", "[X]"])
}

/// The text of a `-` or `*` list item that starts with one of `boxes` and a space.
fn boxed_task<'a>(line: &'a str, boxes: &[&str]) -> Option<&'a str> {
    let t = line.trim_start();
    let rest = t.strip_prefix("- ").or_else(|| t.strip_prefix("* "))?;
    let rest = rest.trim_start();
    let rest = boxes.iter().find_map(|b| rest.strip_prefix(b))?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    Some(rest.trim()).filter(|s| !s.is_empty())
}

fn todo_task(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let head = t.get(..5)?;
    if !head.eq_ignore_ascii_case("todo:") {
        return None;
    }
    Some(t[5..].trim()).filter(|s| !s.is_empty())
}

fn labelled(line: &str, label: &str) -> bool {
    let t = line.trim_start();
    t.get(..label.len())
        .is_some_and(|h| h.eq_ignore_ascii_case(label))
        && !t[label.len()..].trim().is_empty()
}

fn is_quote(line: &str) -> bool {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix('>')
        && rest.starts_with([' ', '\t'])
        && !rest.trim().is_empty()
    {
        return true;
    }
    inline_quote(line).is_some()
}

/// A quote written on one line, `"…" — Someone` (any of the usual quote marks; one or two
/// dashes of any kind, then a space, then who said it): the quoted text and the attribution.
/// The line starts with the opening mark, so `a "word" - here` is no quote.
pub fn inline_quote(line: &str) -> Option<(&str, &str)> {
    const MARKS: [char; 7] = ['"', '\'', '`', '“', '”', '‘', '’'];
    let t = line.trim();
    let open = t.chars().next().filter(|c| MARKS.contains(c))?;
    let start = open.len_utf8();
    // The closing mark is the first one followed by the dash: the attribution may hold marks too.
    t[start..].match_indices(MARKS).find_map(|(i, mark)| {
        let text = t[start..start + i].trim();
        let after = t[start + i + mark.len()..].trim_start();
        let dashes = after
            .chars()
            .take_while(|c| matches!(c, '—' | '–' | '-'))
            .collect::<String>();
        let rest = &after[dashes.len()..];
        let count = dashes.chars().count();
        let who = rest.trim();
        ((1..=2).contains(&count)
            && rest.starts_with([' ', '\t'])
            && !who.is_empty()
            && !text.is_empty())
        .then_some((text, who))
    })
}

/// The URLs of a line, left to right, without trailing punctuation. A closing parenthesis
/// stays when the URL opened one (`…/Rust_(language)`), and so does a closing bracket.
pub fn urls(line: &str) -> impl Iterator<Item = &str> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        loop {
            let rest = &line[pos..];
            let start = match (rest.find("http://"), rest.find("https://")) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => return None,
            };
            let begin = pos + start;
            let len = line[begin..]
                .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '\'' | '`'))
                .unwrap_or(line.len() - begin);
            pos = begin + len;
            let url = trim_url(&line[begin..pos]);
            let scheme_only =
                url == "http://" || url == "https://" || url.len() <= "https://".len();
            if !scheme_only {
                return Some(url);
            }
        }
    })
}

/// Strip trailing punctuation, keeping a closing `)` or `]` that the URL itself opened.
fn trim_url(mut url: &str) -> &str {
    loop {
        let Some(last) = url.chars().last() else {
            return url;
        };
        let balanced =
            |open: char, close: char| url.matches(open).count() >= url.matches(close).count();
        let strip = match last {
            '.' | ',' | ';' | ':' | '!' | '?' | '}' | '\'' | '"' => true,
            ')' => !balanced('(', ')'),
            ']' => !balanced('[', ']'),
            _ => false,
        };
        if !strip {
            return url;
        }
        url = &url[..url.len() - last.len_utf8()];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_and_bookmarks() {
        let h = Hints::of(
            "Read https://example.com/a.\n- [ ] Email Dana\n* [ ] Renew passport\nTODO: call mum",
        );
        assert_eq!(h.tasks, ["Email Dana", "Renew passport", "call mum"]);
        assert_eq!(h.bookmarks, ["https://example.com/a"]);
        assert!(!h.has_quote && !h.has_book && !h.has_to_read);
    }

    #[test]
    fn checked_boxes_and_bare_todo_are_not_tasks() {
        assert!(Hints::of("- [x] done\nTODO:\n- [ ]x").tasks.is_empty());
    }

    #[test]
    fn books_reading_quotes() {
        let h = Hints::of("book: Dune\nto-read: https://x.io/p)");
        assert!(h.has_book && h.has_to_read);
        assert_eq!(h.bookmarks, ["https://x.io/p"]);
        assert!(Hints::of("> Stay hungry").has_quote);
        assert!(Hints::of("\"Stay foolish\" — Jobs").has_quote);
        assert!(Hints::of("“Simple is hard” -- Rich").has_quote);
        assert!(!Hints::of("a \"word\" here").has_quote);
        assert!(!Hints::of(">nope").has_quote);
    }

    #[test]
    fn urls_are_deduplicated_in_order() {
        let h = Hints::of("https://a.io https://b.io, https://a.io and http:// alone");
        assert_eq!(h.bookmarks, ["https://a.io", "https://b.io"]);
    }

    #[test]
    fn balanced_parentheses_stay_in_urls() {
        let got: Vec<_> =
            urls("see https://en.wikipedia.org/wiki/Rust_(language)). and (https://x.io/a)")
                .collect();
        assert_eq!(
            got,
            [
                "https://en.wikipedia.org/wiki/Rust_(language)",
                "https://x.io/a"
            ]
        );
        let md: Vec<_> = urls("[Tokio](https://tokio.rs/tokio/tutorial)").collect();
        assert_eq!(md, ["https://tokio.rs/tokio/tutorial"]);
    }

    #[test]
    fn inline_quotes_start_with_their_mark() {
        assert_eq!(
            inline_quote("\"Stay hungry\" — Steve Jobs' speech"),
            Some(("Stay hungry", "Steve Jobs' speech"))
        );
        assert_eq!(
            inline_quote("“He said 'no'” -- Ann"),
            Some(("He said 'no'", "Ann"))
        );
        assert_eq!(inline_quote("a \"word\" - here"), None);
        assert_eq!(inline_quote("\"\" — nobody"), None);
        assert_eq!(inline_quote("\"x\" —nobody"), None);
    }
}
