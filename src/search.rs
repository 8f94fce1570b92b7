//! `search`: full-text search of the wiki and raw files. The query language is small and
//! never an error: words (all must match), `"phrases"`, `OR` between alternatives, `-word`
//! to exclude, `prefix*`. Any other punctuation is text. Latin-script words use the word
//! index (accents folded); CJK text uses the trigram index, or a substring scan when it is
//! shorter than three characters.

use crate::manifest::{Collision, Hit, Lookup, Manifest, ManifestError, Scope, Scores};
use serde::Serialize;

/// A search request.
#[derive(Debug, Clone)]
pub struct Request {
    /// The query text.
    pub query: String,
    /// Wiki, raw or both.
    pub scope: Scope,
    /// Only pages of this type.
    pub kind: Option<String>,
    /// Only pages with this tag.
    pub tag: Option<String>,
    /// At most this many hits.
    pub limit: usize,
}

/// Search results.
#[derive(Debug, Clone, Serialize)]
pub struct SearchReport {
    /// The query as given.
    pub query: String,
    /// Hits in all.
    pub total: usize,
    /// True when the limit cut the list.
    pub truncated: bool,
    /// The best hits first.
    pub hits: Vec<Hit>,
    /// Pages a new page titled like the query would collide with (same title, alias or file
    /// name, or one differing only in case, spaces, dashes, underscores or normalisation).
    pub collisions: Vec<Collision>,
}

/// One term of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Atom {
    text: String,
    prefix: bool,
}

/// A parsed query: every group must match (each group is alternatives joined by `OR`), and
/// no excluded atom may.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Query {
    groups: Vec<Vec<Atom>>,
    excluded: Vec<Atom>,
}

fn parse(q: &str) -> Query {
    let mut out = Query::default();
    let mut chars = q.chars().peekable();
    let mut pending_or = false;
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let negate = c == '-' && chars.clone().nth(1).is_some_and(|n| !n.is_whitespace());
        if negate {
            chars.next();
        }
        let (text, quoted) = if chars.peek() == Some(&'"') {
            chars.next();
            let t: String = chars.by_ref().take_while(|&x| x != '"').collect();
            (t, true)
        } else {
            let mut t = String::new();
            while let Some(&x) = chars.peek() {
                if x.is_whitespace() {
                    break;
                }
                t.push(x);
                chars.next();
            }
            (t, false)
        };
        if !quoted && !negate && text == "OR" {
            pending_or = !out.groups.is_empty();
            continue;
        }
        let prefix = !quoted && text.len() > 1 && text.ends_with('*');
        let text = if prefix {
            text[..text.len() - 1].to_string()
        } else {
            text
        };
        if !text.chars().any(char::is_alphanumeric) {
            pending_or = false;
            continue;
        }
        let atom = Atom { text, prefix };
        if negate {
            out.excluded.push(atom);
        } else if pending_or {
            if let Some(g) = out.groups.last_mut() {
                g.push(atom);
            }
        } else {
            out.groups.push(vec![atom]);
        }
        pending_or = false;
    }
    out
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// How to look an atom up. Its text is always quoted, so no character of it is FTS syntax.
fn lookup(a: &Atom) -> Lookup {
    let quoted = format!("\"{}\"", a.text.replace('"', "\"\""));
    if a.text.chars().any(is_cjk) {
        if a.text.chars().count() < 3 {
            Lookup::Substring(a.text.clone())
        } else {
            Lookup::Trigrams(quoted)
        }
    } else if a.prefix {
        Lookup::Words(format!("{quoted}*"))
    } else {
        Lookup::Words(quoted)
    }
}

/// A search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

impl SearchError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            SearchError::Manifest(m) => m.hint(),
        }
    }
}

/// Run a search.
pub fn search(manifest: &Manifest, req: &Request) -> Result<SearchReport, SearchError> {
    let q = parse(&req.query);
    let mut matched: Option<Scores> = None;
    let mut snippet_from = None;
    for group in &q.groups {
        let mut union = Scores::new();
        for atom in group {
            let l = lookup(atom);
            for (id, s) in manifest.search_atom(&l, req.scope)? {
                let e = union.entry(id).or_insert(s);
                *e = e.min(s);
            }
            if snippet_from.is_none() && !matches!(l, Lookup::Substring(_)) {
                snippet_from = Some(l);
            }
        }
        matched = Some(match matched {
            None => union,
            Some(prev) => prev
                .into_iter()
                .filter_map(|(id, s)| union.get(&id).map(|u| (id, s + u)))
                .collect(),
        });
    }
    let mut scores = matched.unwrap_or_default();
    for atom in &q.excluded {
        for id in manifest.search_atom(&lookup(atom), req.scope)?.keys() {
            scores.remove(id);
        }
    }
    let ids: Vec<i64> = scores.keys().copied().collect();
    let ids = manifest.search_filter(&ids, req.kind.as_deref(), req.tag.as_deref())?;
    let mut hits = Vec::new();
    for id in ids {
        if let Some(h) = manifest.search_hit(id, scores[&id], snippet_from.as_ref())? {
            hits.push(h);
        }
    }
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.cmp(&b.path))
    });
    let total = hits.len();
    hits.truncate(req.limit);
    Ok(SearchReport {
        collisions: manifest.collisions(&req.query)?,
        query: req.query.clone(),
        total,
        truncated: hits.len() < total,
        hits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atom(t: &str) -> Atom {
        Atom {
            text: t.into(),
            prefix: false,
        }
    }

    #[test]
    fn words_phrases_or_exclusions_prefixes() {
        let q = parse(r#"cache "write ahead" wal OR journal -sqlite pre*"#);
        assert_eq!(q.groups.len(), 4);
        assert_eq!(q.groups[1], [atom("write ahead")]);
        assert_eq!(q.groups[2], [atom("wal"), atom("journal")]);
        assert_eq!(
            q.groups[3],
            [Atom {
                text: "pre".into(),
                prefix: true
            }]
        );
        assert_eq!(q.excluded, [atom("sqlite")]);
    }

    #[test]
    fn punctuation_is_text_never_syntax() {
        for q in [
            r#"a AND ( b" NOT c:d ^e {f} +g *"#,
            "\"",
            "OR OR",
            "- -",
            "***",
            "c++ (x)",
            "NEAR(a b)",
        ] {
            let parsed = parse(q);
            for a in parsed.groups.iter().flatten().chain(&parsed.excluded) {
                match lookup(a) {
                    Lookup::Words(e) | Lookup::Trigrams(e) => assert!(e.starts_with('"'), "{e}"),
                    Lookup::Substring(_) => {}
                }
            }
        }
        assert_eq!(parse("***").groups.len(), 0);
    }

    #[test]
    fn cjk_goes_to_trigrams_or_substrings() {
        assert!(matches!(lookup(&atom("知識管理")), Lookup::Trigrams(_)));
        assert!(matches!(lookup(&atom("知識")), Lookup::Substring(_)));
        assert!(matches!(lookup(&atom("gpt-4o")), Lookup::Words(_)));
    }
}
