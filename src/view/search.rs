//! The viewer's search: one function from a query to ranked hits, so that the handler does
//! not care how they are found. Today it matches titles, aliases and the file names of pages
//! without a title ([`Manifest::search_names`]); full-text search can replace the body of
//! [`search`] without touching the route.

use crate::key;
use crate::manifest::{Manifest, Result};
use std::collections::HashMap;

/// The most hits a search returns.
pub const LIMIT: usize = 100;

/// A page found by a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// Vault-relative path.
    pub path: String,
    /// Its title, when it has one.
    pub title: Option<String>,
    /// `type:`
    pub kind: Option<String>,
    /// How it matched, for a person: `alias “BQ”`, `file name`; none for the title.
    pub matched: Option<String>,
}

/// Pages matching every word of `query`, best first: an exact name, then a name starting
/// with the query, then one with a word starting with it, then any other; ties by title.
pub fn search(manifest: &Manifest, query: &str) -> Result<Vec<SearchHit>> {
    let terms: Vec<String> = query.split_whitespace().map(str::to_string).collect();
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let q = key::key(&terms.join(" "));
    let mut best: HashMap<String, (u8, SearchHit)> = HashMap::new();
    for hit in manifest.search_names(&terms, LIMIT * 4)? {
        let rank = rank(&hit.name_key, &q) * 2 + u8::from(hit.via != "title");
        let matched = match hit.via {
            "title" => None,
            "alias" => Some(format!("alias “{}”", hit.name)),
            _ => Some("file name".to_string()),
        };
        let entry = SearchHit {
            path: hit.path.clone(),
            title: hit.title,
            kind: hit.kind,
            matched,
        };
        match best.get(&hit.path) {
            Some((r, _)) if *r <= rank => {}
            _ => {
                best.insert(hit.path, (rank, entry));
            }
        }
    }
    let mut hits: Vec<(u8, String, SearchHit)> = best
        .into_values()
        .map(|(r, h)| {
            let shown = key::key(&super::html::display_title(&h.path, h.title.as_deref()));
            (r, shown, h)
        })
        .collect();
    hits.sort_by(|a, b| (a.0, &a.1, &a.2.path).cmp(&(b.0, &b.1, &b.2.path)));
    Ok(hits.into_iter().take(LIMIT).map(|(_, _, h)| h).collect())
}

/// 0 exact, 1 prefix, 2 a word starts with the query, 3 anywhere.
fn rank(name_key: &str, q: &str) -> u8 {
    if name_key == q {
        0
    } else if name_key.starts_with(q) {
        1
    } else if name_key
        .match_indices(q)
        .any(|(i, _)| name_key[..i].ends_with(|c: char| !c.is_alphanumeric()))
    {
        2
    } else {
        3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking() {
        assert_eq!(rank("cascade", "cascade"), 0);
        assert_eq!(rank("cascade design", "cascade"), 1);
        assert_eq!(rank("the cascade", "cascade"), 2);
        assert_eq!(rank("escalade", "cala"), 3);
    }
}
