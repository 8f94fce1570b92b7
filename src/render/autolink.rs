//! Bare web addresses in text become links, as GitHub's Markdown makes them.

use pulldown_cmark::{CowStr, Event, LinkType, Tag, TagEnd};
use std::ops::Range;

/// Bare `http://` and `https://` URLs in text become links, as GitHub's Markdown makes them
/// (pulldown-cmark does not): not inside a link or an image's text, not in code, not inside an
/// `<a>` of the author's HTML. Neighbouring text events are joined first, since the parser
/// splits text at characters such as `_` and `&` that URLs contain. Fed a body's events a run
/// at a time, each run ending where a block does: whether a link, code or an `<a>` is open
/// carries over from one run to the next.
#[derive(Debug, Default)]
pub(super) struct Autolinks {
    in_link: usize,
    in_code: bool,
    in_html_a: usize,
}

impl Autolinks {
    /// The next run of events, bare URLs linked.
    pub(super) fn feed<'a>(&mut self, events: Vec<Event<'a>>) -> Vec<Event<'a>> {
        let mut out = Vec::with_capacity(events.len());
        let mut text = String::new();
        for event in events {
            if let Event::Text(t) = &event
                && self.in_link == 0
                && !self.in_code
                && self.in_html_a == 0
            {
                text.push_str(t);
                continue;
            }
            link_urls(&mut out, std::mem::take(&mut text));
            match &event {
                Event::Start(Tag::Link { .. } | Tag::Image { .. }) => self.in_link += 1,
                Event::End(TagEnd::Link | TagEnd::Image) => {
                    self.in_link = self.in_link.saturating_sub(1);
                }
                Event::Start(Tag::CodeBlock(_)) => self.in_code = true,
                Event::End(TagEnd::CodeBlock) => self.in_code = false,
                Event::Html(h) | Event::InlineHtml(h) => {
                    let lower = h.to_ascii_lowercase();
                    let opens = lower.matches("<a ").count() + lower.matches("<a>").count();
                    let closes = lower.matches("</a").count();
                    self.in_html_a = (self.in_html_a + opens).saturating_sub(closes);
                }
                _ => {}
            }
            out.push(event);
        }
        link_urls(&mut out, text);
        out
    }
}

/// Push `text` as text and links, one per URL in it.
fn link_urls(out: &mut Vec<Event<'_>>, text: String) {
    if text.is_empty() {
        return;
    }
    let urls = bare_urls(&text);
    if urls.is_empty() {
        out.push(Event::Text(text.into()));
        return;
    }
    let mut at = 0;
    for u in urls {
        if u.start > at {
            out.push(Event::Text(text[at..u.start].to_string().into()));
        }
        let url = text[u.clone()].to_string();
        out.push(Event::Start(Tag::Link {
            link_type: LinkType::Autolink,
            dest_url: url.clone().into(),
            title: CowStr::Borrowed(""),
            id: CowStr::Borrowed(""),
        }));
        out.push(Event::Text(url.into()));
        out.push(Event::End(TagEnd::Link));
        at = u.end;
    }
    if at < text.len() {
        out.push(Event::Text(text[at..].to_string().into()));
    }
}

/// Where bare web addresses are in `text`: `http://` or `https://` not inside a word, a host
/// that starts with a letter or digit, up to whitespace or `<`, without trailing punctuation
/// or an unbalanced closing bracket (GitHub's rule: `(see https://a.b/c).` links `…/c`).
fn bare_urls(text: &str) -> Vec<Range<usize>> {
    // ASCII lower-casing keeps every byte offset.
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = ["https://", "http://"]
        .iter()
        .filter_map(|s| lower[from..].find(s).map(|i| from + i))
        .min()
    {
        from = i + 1;
        if text[..i]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
        {
            continue;
        }
        let host = i + if lower[i..].starts_with("https") {
            8
        } else {
            7
        };
        let end = text[i..]
            .find(|c: char| c.is_whitespace() || c.is_control() || c == '<')
            .map_or(text.len(), |n| i + n);
        let end = i + trim_url_end(&text[i..end]);
        if text[host..end].starts_with(char::is_alphanumeric) {
            out.push(i..end);
            from = end;
        }
    }
    out
}

/// The length of `url` without trailing punctuation and unbalanced closing brackets.
fn trim_url_end(url: &str) -> usize {
    let mut u = url;
    loop {
        let Some(last) = u.chars().next_back() else {
            return 0;
        };
        let unbalanced = |open: char, close: char| {
            last == close && u.matches(open).count() < u.matches(close).count()
        };
        if "?!.,:;*_~'\"".contains(last) || unbalanced('(', ')') || unbalanced('[', ']') {
            u = &u[..u.len() - last.len_utf8()];
        } else {
            return u.len();
        }
    }
}
