//! Reading List: the `to-read:` lines of the archived captures, each once, in the order they
//! were captured. An item holding one URL is a link, titled by the rest of the item
//! (`https://… (HTTP Semantics)` → `[HTTP Semantics](https://…)`); an item without a URL is
//! text.

use super::text::{Inputs, archive_lines, inline, labelled, link_text};
use super::{ARCHIVES, ExtractError, is_archive, page::Body};
use crate::inbox::hints::urls;
use crate::key::key;

/// The `to-read:` items of one archive file's text, in order, repeats included.
pub fn items(text: &str) -> impl Iterator<Item = &str> {
    archive_lines(text).filter_map(|line| labelled(line, "to-read:"))
}

/// What an item points at: its one URL and the title written around it, if any.
pub fn link(item: &str) -> Option<(&str, Option<String>)> {
    let mut found = urls(item);
    let url = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let rest = item.replacen(url, " ", 1);
    let title = rest
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_matches(|c: char| c.is_whitespace() || "—–-:|".contains(c))
        .to_string();
    let title = match title.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        Some(inner) => inner.trim().to_string(),
        None => title,
    };
    Some((url, Some(title).filter(|t| !t.is_empty())))
}

/// The line an item shows as.
fn shown(item: &str) -> String {
    match link(item) {
        Some((url, Some(title))) => format!("[{}]({url})", link_text(&title)),
        Some((url, None)) => format!("<{url}>"),
        None => inline(item),
    }
}

/// The Reading List page body.
pub fn body(inputs: &Inputs<'_>) -> Result<Body, ExtractError> {
    let found = inputs.extract("reading", &[ARCHIVES], is_archive, |text, _| {
        items(text).map(str::to_string).collect::<Vec<_>>()
    })?;
    let mut seen = std::collections::HashSet::new();
    let mut text = String::new();
    let mut n = 0;
    for (f, items) in &found {
        for item in items.iter().flatten() {
            let item = item.as_str();
            // The same URL with or without a title is one item.
            let same = link(item).map_or_else(|| key(item), |(url, _)| url.to_string());
            if !seen.insert(same) {
                continue;
            }
            n += 1;
            text.push_str(&format!("- {} _(via {f})_\n", shown(item)));
        }
    }
    Ok(Body::new(
        n,
        ("item", "items", "to read"),
        "_No to-read items captured yet._",
        text,
        found.into_iter().map(|(f, _)| f).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_with_a_title_are_links() {
        assert_eq!(
            shown("https://www.rfc-editor.org/rfc/rfc9110 (HTTP Semantics)"),
            "[HTTP Semantics](https://www.rfc-editor.org/rfc/rfc9110)"
        );
        assert_eq!(
            shown("Designing Data-Intensive Applications — https://dataintensive.net/"),
            "[Designing Data-Intensive Applications](https://dataintensive.net/)"
        );
        assert_eq!(
            shown("https://en.wikipedia.org/wiki/Rust_(language)"),
            "<https://en.wikipedia.org/wiki/Rust_(language)>"
        );
        assert_eq!(shown("SICP"), "SICP");
        assert_eq!(
            shown("<b>two</b> https://a.example https://b.example"),
            "&lt;b&gt;two&lt;/b&gt; https://a.example https://b.example"
        );
        // Brackets of the title stay, escaped, and so does its punctuation.
        assert_eq!(
            shown("[x] & y! https://a.example/"),
            "[\\[x\\] & y!](https://a.example/)"
        );
    }
}
