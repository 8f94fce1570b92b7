//! Quotes: `> ` blocks in the quote files and in the archived captures, with an attribution
//! line (`— Author`, `– Author`, `-- Author`, with or without the space) right after the block
//! or after one blank line, and one-line quotes (`"…" — Author`). A `- list item` is a list
//! item, not an attribution. Each archived capture is read on its own, its marker left out.

use super::text::{Inputs, archive_entries, body_lines, inline};
use super::{Collection, ExtractError, is_archive, page::Body};
use crate::inbox::hints::inline_quote;

/// A quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    /// The quote, lines joined with `\n`.
    pub text: String,
    /// Who said it, and where, as written.
    pub attribution: Option<String>,
    /// The file it came from.
    pub source: String,
}

/// The attribution of a line: `— X`, `—X`, `– X`, `-- X`.
fn attribution(line: &str) -> Option<&str> {
    let t = line.trim();
    let rest = t
        .strip_prefix('—')
        .or_else(|| t.strip_prefix('–'))
        .or_else(|| t.strip_prefix("--"))?;
    Some(rest.trim()).filter(|r| !r.is_empty())
}

/// The quotes of one file, in order.
pub fn parse(text: &str, source: &str) -> Vec<Quote> {
    parse_lines(&body_lines(text), source)
}

/// The quotes of an archive file (or of one capture), in order, each capture on its own.
pub fn in_archive(text: &str, source: &str) -> Vec<Quote> {
    archive_entries(text)
        .iter()
        .flat_map(|entry| parse_lines(entry, source))
        .collect()
}

fn parse_lines(lines: &[&str], source: &str) -> Vec<Quote> {
    let mut out = Vec::new();
    let mut current: Option<Vec<String>> = None;
    let mut blank_after = false;
    let close = |out: &mut Vec<Quote>, lines: Vec<String>, attribution: Option<String>| {
        let text = lines.join("\n").trim().to_string();
        if !text.is_empty() {
            out.push(Quote {
                text,
                attribution,
                source: source.to_string(),
            });
        }
    };
    let one_line = |out: &mut Vec<Quote>, line: &str| {
        if let Some((text, who)) = inline_quote(line) {
            out.push(Quote {
                text: text.to_string(),
                attribution: Some(who.to_string()),
                source: source.to_string(),
            });
        }
    };
    for &line in lines {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix('>') {
            if rest.starts_with('>') {
                continue;
            }
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            if blank_after && let Some(lines) = current.take() {
                close(&mut out, lines, None);
            }
            current
                .get_or_insert_with(Vec::new)
                .push(rest.trim_end().to_string());
            blank_after = false;
            continue;
        }
        let Some(lines) = current.take() else {
            one_line(&mut out, line);
            continue;
        };
        if let Some(a) = attribution(line) {
            close(&mut out, lines, Some(a.to_string()));
            blank_after = false;
        } else if line.trim().is_empty() && !blank_after {
            // One blank line may sit between a quote and its attribution.
            current = Some(lines);
            blank_after = true;
        } else {
            close(&mut out, lines, None);
            blank_after = false;
            one_line(&mut out, line);
        }
    }
    if let Some(lines) = current {
        close(&mut out, lines, None);
    }
    out
}

/// Every quote of the Quotes sources (the quote files and the archive), by file then position.
pub fn all(inputs: &Inputs<'_>) -> Result<(Vec<Quote>, Vec<String>), ExtractError> {
    let glob = Collection::Quotes
        .glob(&inputs.vault.config)?
        .expect("Quotes has a glob");
    let files = inputs.files(|p| glob.is_match(p) || is_archive(p));
    let mut quotes = Vec::new();
    for f in &files {
        if let Some(text) = inputs.text(f) {
            quotes.extend(if is_archive(f) {
                in_archive(&text, f)
            } else {
                parse(&text, f)
            });
        }
    }
    Ok((quotes, files))
}

/// The Quotes page body.
pub fn body(inputs: &Inputs<'_>) -> Result<Body, ExtractError> {
    let (quotes, sources) = all(inputs)?;
    let mut text = String::new();
    for q in &quotes {
        for line in q.text.lines() {
            text.push_str(&format!("> {}\n", inline(line)).replace("> \n", ">\n"));
        }
        match &q.attribution {
            Some(a) => text.push_str(&format!("— {}\n", inline(a))),
            None => text.push_str("— (no attribution)\n"),
        }
        text.push('\n');
    }
    Ok(Body::new(
        quotes.len(),
        ("quote", "quotes", "captured"),
        "_No quotes captured yet._",
        text,
        sources,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Vec<(String, Option<String>)> {
        parse(text, "raw/quotes/a.md")
            .into_iter()
            .map(|q| (q.text, q.attribution))
            .collect()
    }

    #[test]
    fn blocks_and_attributions() {
        let got = q(
            "> Simplicity is prerequisite\n> for reliability.\n— Edsger Dijkstra, EWD498\n\n> Make it work first.\n\n",
        );
        assert_eq!(got[0].0, "Simplicity is prerequisite\nfor reliability.");
        assert_eq!(got[0].1.as_deref(), Some("Edsger Dijkstra, EWD498"));
        assert_eq!(got[1], ("Make it work first.".into(), None));
    }

    #[test]
    fn the_weaknesses_of_the_original() {
        assert_eq!(
            q("> Quote\n- a list item\n")[0].1,
            None,
            "a list item is not an attribution"
        );
        assert_eq!(
            q("> Quote\n\n— Author\n")[0].1.as_deref(),
            Some("Author"),
            "one blank line is allowed"
        );
        assert_eq!(
            q("> Quote\n—Author\n")[0].1.as_deref(),
            Some("Author"),
            "no space needed"
        );
        assert_eq!(q("> Quote\n-- Author\n")[0].1.as_deref(), Some("Author"));
        assert_eq!(
            q("> One\n\n\n— Late\n")[0].1,
            None,
            "two blank lines end the quote"
        );
    }

    #[test]
    fn one_line_quotes() {
        assert_eq!(
            q("\"Stay hungry.\" — Steve Jobs\n> Block\n\"Next\" -- Ann\n"),
            [
                ("Stay hungry.".into(), Some("Steve Jobs".into())),
                ("Block".into(), None),
                ("Next".into(), Some("Ann".into()))
            ]
        );
    }

    #[test]
    fn archived_captures_are_read_one_by_one_without_their_markers() {
        let marker = crate::archive::marker(1, "k", 1, "h");
        let text = format!(
            "---\n{marker}\n> The best way to predict the future is to invent it.\n— Alan Kay\n\
             ---\n{marker}\n> Unattributed\n---\n{marker}\n— not an attribution of the quote above\n"
        );
        let got: Vec<_> = in_archive(&text, "raw/inbox/2026-05-01.md")
            .into_iter()
            .map(|q| (q.text, q.attribution))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "The best way to predict the future is to invent it.".into(),
                    Some("Alan Kay".into())
                ),
                ("Unattributed".into(), None)
            ]
        );
    }

    #[test]
    fn frontmatter_and_nested_quotes_are_skipped() {
        let got = q("---\ntitle: x\n---\n> kept\n>> nested\n> more\n");
        assert_eq!(got[0].0, "kept\nmore");
    }
}
