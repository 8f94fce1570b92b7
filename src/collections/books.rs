//! Books: titles named in quote attributions (`Author, Title`, `Author / Title`,
//! `Author — Title`) and in `book:` lines of the archived captures. Titles that differ only
//! in case or spacing are one book (the first spelling met is shown).

use super::quotes;
use super::text::{Inputs, archive_lines, inline, labelled, shorten};
use super::{ARCHIVES, Collection, ExtractError, is_archive, page::Body};
use crate::key::loose_key;
use std::collections::HashMap;

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

/// The books the quotes of one source file name, in order: each title with the line that
/// says where it was quoted.
fn quoted(text: &str, path: &str) -> Vec<(String, String)> {
    let quotes = match is_archive(path) {
        true => quotes::in_archive(text, path),
        false => quotes::parse(text, path),
    };
    quotes
        .iter()
        .filter_map(|q| {
            let title = q.attribution.as_deref().and_then(title_of)?;
            let context = format!("quote: \"{}\" ({})", shorten(&q.text, SNIPPET), q.source);
            Some((title.to_string(), context))
        })
        .collect()
}

/// The Books page body.
pub fn body(inputs: &Inputs<'_>) -> Result<Body, ExtractError> {
    // Only the quotes that name a book are kept per file, not every quote of the vault.
    let glob = Collection::Quotes
        .glob(&inputs.vault.config)?
        .expect("Quotes has a glob");
    let quoted = inputs.extract(
        "books-quoted",
        &[glob.prefix(), ARCHIVES],
        |p| glob.is_match(p) || is_archive(p),
        quoted,
    )?;
    // (key, display title, contexts), and where each key is: a look-up, not a search of
    // every book so far for each title met.
    let mut books: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut add = |title: &str, context: String| {
        let k = loose_key(title);
        match at.get(&k) {
            Some(&i) => books[i].2.push(context),
            None => {
                at.insert(k.clone(), books.len());
                books.push((k, title.to_string(), vec![context]));
            }
        }
    };
    let mut sources = Vec::new();
    for (f, books) in quoted {
        for (title, context) in books.unwrap_or_default() {
            add(&title, context);
        }
        sources.push(f);
    }
    let archives = inputs.extract("books", &[ARCHIVES], is_archive, |text, _| {
        noted(text).map(str::to_string).collect::<Vec<_>>()
    })?;
    for (f, titles) in archives {
        for title in titles.unwrap_or_default() {
            add(&title, format!("noted in {f}"));
        }
        sources.push(f);
    }
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
