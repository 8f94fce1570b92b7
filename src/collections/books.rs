//! Books: titles named in quote attributions (`Author, Title`, `Author / Title`,
//! `Author — Title`) and in `book:` lines of the archived captures. Titles that differ only
//! in case or spacing are one book (the first spelling met is shown).

use super::quotes;
use super::text::{Inputs, archive_lines, inline, labelled, shorten};
use super::{ExtractError, is_archive, page::Body};
use crate::key::loose_key;

/// How long a quote snippet may be, in characters.
const SNIPPET: usize = 80;

/// The book an attribution names, if it names one.
pub fn title_of(attribution: &str) -> Option<&str> {
    [" / ", ", ", " — "]
        .iter()
        .find_map(|sep| match attribution.find(sep) {
            Some(i) if i > 0 => Some(attribution[i + sep.len()..].trim()).filter(|t| !t.is_empty()),
            _ => None,
        })
}

/// The titles of the `book:` lines of one archive file's text, in order.
pub fn noted(text: &str) -> impl Iterator<Item = &str> {
    archive_lines(text).filter_map(|line| labelled(line, "book:"))
}

/// The Books page body.
pub fn body(inputs: &Inputs<'_>) -> Result<Body, ExtractError> {
    let (quotes, mut sources) = quotes::all(inputs)?;
    // (key, display title, contexts)
    let mut books: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut add = |title: &str, context: String| {
        let k = loose_key(title);
        match books.iter_mut().find(|b| b.0 == k) {
            Some(b) => b.2.push(context),
            None => books.push((k, title.to_string(), vec![context])),
        }
    };
    for q in &quotes {
        if let Some(title) = q.attribution.as_deref().and_then(title_of) {
            add(
                title,
                format!("quote: \"{}\" ({})", shorten(&q.text, SNIPPET), q.source),
            );
        }
    }
    let archives = inputs.files(is_archive);
    for f in &archives {
        let Some(text) = inputs.text(f) else { continue };
        for title in noted(&text) {
            add(title, format!("noted in {f}"));
        }
    }
    sources.extend(archives);
    books.sort_by(|a, b| a.0.cmp(&b.0));
    let mut text = String::new();
    for (_, title, contexts) in &books {
        text.push_str(&format!("## {}\n\n", inline(title)));
        for c in contexts {
            text.push_str(&format!("- {}\n", inline(c)));
        }
        text.push('\n');
    }
    Ok(Body::new(
        books.len(),
        ("book", "books", "referenced"),
        "_No books referenced yet._",
        text,
        sources,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_from_attributions() {
        assert_eq!(title_of("Edsger Dijkstra, EWD498"), Some("EWD498"));
        assert_eq!(
            title_of("Meadows / Thinking in Systems"),
            Some("Thinking in Systems")
        );
        assert_eq!(title_of("Jobs"), None);
        assert_eq!(title_of(", nothing before"), None);
    }
}
