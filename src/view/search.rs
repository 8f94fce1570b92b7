//! The viewer's search: the text, found and ranked as `sparks search` finds and ranks it
//! ([`crate::search::rank`], the same index, query language and order), each hit with its
//! extract; and beside it the pages whose title, alias or file name merely contains what was
//! typed ([`Manifest::search_names`]), which a person types before they know a word of the
//! text (`allot` for `Allotment`).

use crate::key;
use crate::manifest::{Hit, Manifest, Result, Scope};
use crate::render::html::display_title;
use crate::search::{self, Piece, Request, SearchError};
use std::collections::HashMap;
use std::path::Path;

/// The most pages found by name.
pub const NAME_LIMIT: usize = 100;

/// The most text hits shown; the rest are counted.
pub const TEXT_LIMIT: usize = 50;

/// A text hit with its extract.
#[derive(Debug, Clone)]
pub struct TextHit {
    /// The hit as `sparks search` describes it.
    pub hit: Hit,
    /// The extract of the file around the query's terms.
    pub extract: Vec<Piece>,
}

/// What a search box query finds.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Files whose text matches, in all.
    pub total: usize,
    /// The best of them, best first.
    pub text: Vec<TextHit>,
    /// Pages named like the query that the text hits do not list already.
    pub names: Vec<NameMatch>,
    /// Whether the name search stopped at [`NAME_LIMIT`], so that more pages may be named so.
    pub names_capped: bool,
}

/// A page found by its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameMatch {
    /// Vault-relative path.
    pub path: String,
    /// Its title, when it has one.
    pub title: Option<String>,
    /// `type:`
    pub kind: Option<String>,
    /// How it matched, for a person: `alias “BQ”`, `file name`; none for the title.
    pub matched: Option<String>,
}

/// Search the text of `scope` (extracts cut from the files under `root`), and the names of
/// wiki pages unless only raw files are searched.
pub fn find(
    root: &Path,
    manifest: &Manifest,
    query: &str,
    scope: Scope,
) -> std::result::Result<Found, SearchError> {
    let req = Request {
        query: query.to_string(),
        scope,
        kind: None,
        tag: None,
        limit: TEXT_LIMIT,
        mode: search::Mode::default(),
    };
    let ranked = search::rank(manifest, &req)?;
    let text: Vec<TextHit> = ranked
        .hits
        .iter()
        .map(|h| {
            Ok(TextHit {
                extract: ranked.extract(manifest, root, h)?,
                hit: h.clone(),
            })
        })
        .collect::<std::result::Result<_, SearchError>>()?;
    let names = if scope == Scope::Raw {
        Vec::new()
    } else {
        names(manifest, query)?
    };
    Ok(Found {
        total: ranked.total,
        names_capped: names.len() >= NAME_LIMIT,
        names: names
            .into_iter()
            .filter(|n| !text.iter().any(|t| t.hit.path == n.path))
            .collect(),
        text,
    })
}

/// Pages whose name contains every word of `query`, best first: an exact name, then a name
/// starting with the query, then one with a word starting with it, then any other; ties by
/// title.
pub fn names(manifest: &Manifest, query: &str) -> Result<Vec<NameMatch>> {
    let terms: Vec<String> = query.split_whitespace().map(str::to_string).collect();
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let q = key::key(&terms.join(" "));
    let mut best: HashMap<String, (u8, NameMatch)> = HashMap::new();
    for hit in manifest.search_names(&terms, NAME_LIMIT * 4)? {
        let rank = rank(&hit.name_key, &q) * 2 + u8::from(hit.via != "title");
        let matched = match hit.via {
            "title" => None,
            "alias" => Some(format!("alias “{}”", hit.name)),
            _ => Some("file name".to_string()),
        };
        let entry = NameMatch {
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
    let mut hits: Vec<(u8, String, NameMatch)> = best
        .into_values()
        .map(|(r, h)| {
            let shown = key::key(&display_title(&h.path, h.title.as_deref()));
            (r, shown, h)
        })
        .collect();
    hits.sort_by(|a, b| (a.0, &a.1, &a.2.path).cmp(&(b.0, &b.1, &b.2.path)));
    Ok(hits
        .into_iter()
        .take(NAME_LIMIT)
        .map(|(_, _, h)| h)
        .collect())
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
