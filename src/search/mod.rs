//! `search`: search of the wiki and raw files, ranked by words, by meaning, or both
//! ([`Mode`]; both by default). The query language ([`query`]) is small and never an error:
//! words and `"phrases"` are scored, not required; `+word` must match, `-word` must not, `OR`
//! joins alternatives, `prefix*` matches word beginnings. Words are looked up in the word index
//! by their stem (accents folded); CJK text as character pairs (see [`crate::cjk`]); hits are
//! ranked by BM25 over the pages' fields ([`rank`]). Meaning is the pages' embedded sections
//! against the query's ([`fuse`]). Only the hits shown are described and given a snippet.
mod fuse;
mod query;
mod rank;
pub mod related;
mod snippet;

use crate::manifest::{Collision, Hit, Manifest, ManifestError, Scope};
use crate::pieces;
use crate::scan::meaning;
use crate::vault::Vault;
pub use fuse::Mode;
use fuse::{Found, hybrid, semantic};
use query::{Query, expression, parse};
use rank::{Best, best_first, filter, lexical};
use serde::Serialize;
pub use snippet::Piece;
use snippet::Term;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

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
    /// By words, by meaning, or both.
    pub mode: Mode,
}

/// Search results.
#[derive(Debug, Clone, Serialize)]
pub struct SearchReport {
    /// The query as given.
    pub query: String,
    /// How it was ranked.
    pub mode: Mode,
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

/// A search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

impl crate::failure::Hint for SearchError {
    /// What the user can do about it.
    fn hint(&self) -> Option<crate::failure::Advice> {
        match self {
            SearchError::Manifest(m) => m.hint(),
        }
    }
}

/// The hits of a search, best first, before their snippets are cut: what `sparks search`,
/// the MCP tool and the viewer share.
#[derive(Debug, Clone)]
pub struct Ranked {
    /// Hits in all.
    pub total: usize,
    /// The best `limit` hits, without snippets.
    pub hits: Vec<Hit>,
    terms: Vec<Term>,
    /// The FTS5 expression of each term that must or may match (not the excluded ones).
    expressions: Vec<String>,
    /// The section that matched, of each hit found by meaning, by path.
    passages: HashMap<String, usize>,
    /// The query's meaning, when it was searched by meaning.
    meaning: Option<crate::embed::Vector>,
}

impl Ranked {
    /// The extract of the file of `hit` (vault-relative, under `root`) around the query's
    /// terms, from the file as it is now: a page without its frontmatter and the H1 that
    /// repeats its title (shown above the extract already), and Markdown as plain text (no syntax, no HTML, so no archive markers; links show their labels); empty
    /// when the file cannot be read as text any more. A long file is read a piece at a time,
    /// as the index holds it, and only the piece the index finds the most terms in (the
    /// first) is looked at closely, so that neither memory nor time grows with the file.
    pub fn extract(
        &self,
        manifest: &Manifest,
        root: &Path,
        hit: &Hit,
    ) -> Result<Vec<Piece>, SearchError> {
        let (path, title) = (hit.path.as_str(), hit.title.as_deref().unwrap_or_default());
        let file = root.join(path);
        let size = crate::fsio::symlink_metadata(&file).map_or(0, |m| m.len());
        if size < pieces::HELD_BELOW {
            let Ok(text) = crate::fsio::read_to_string(&file) else {
                return Ok(Vec::new());
            };
            let text = meaning::readable(path, &text, title);
            let parts = pieces::split(&text, pieces::PIECE);
            let extract = snippet::extract_parts(parts, &self.terms);
            // Found by meaning where no word of the query occurs: the passage that matched.
            if !extract.iter().any(|p| p.hit)
                && let Some(&n) = self.passages.get(path)
                && let Some(section) = meaning::sections(&text).nth(n)
                && let Some(query) = &self.meaning
            {
                let from = fuse::closest_line(section, query);
                return Ok(snippet::extract_parts([&section[from..]], &self.terms));
            }
            return Ok(extract);
        }
        let wanted = self.best_piece(manifest, path)?;
        let Ok(reader) = pieces::Reader::open(&file, pieces::PIECE) else {
            return Ok(Vec::new());
        };
        let Some(piece) = reader.map_while(Result::ok).nth(wanted as usize) else {
            return Ok(Vec::new());
        };
        let shown = match wanted {
            0 => meaning::readable(path, &piece, title),
            _ => meaning::plain(path, &piece),
        };
        Ok(snippet::extract_parts([shown], &self.terms))
    }

    /// The piece of a long file in which the index finds the most of the query's terms (the
    /// best scored, then the first of equals); the first when it finds none (a title match).
    fn best_piece(&self, manifest: &Manifest, path: &str) -> Result<u64, SearchError> {
        let mut found: BTreeMap<u64, (usize, f64)> = BTreeMap::new();
        for expr in &self.expressions {
            for (piece, score) in manifest.search_pieces(expr, path)? {
                let e = found.entry(piece).or_insert((0, 0.0));
                e.0 += 1;
                e.1 += score;
            }
        }
        Ok(found
            .into_iter()
            .min_by(|a, b| {
                (b.1.0)
                    .cmp(&a.1.0)
                    .then(a.1.1.total_cmp(&b.1.1))
                    .then(a.0.cmp(&b.0))
            })
            .map_or(0, |(piece, _)| piece))
    }
}

/// Run a search. Snippets are cut from the files of `vault`.
pub fn search(
    vault: &Vault,
    manifest: &Manifest,
    req: &Request,
) -> Result<SearchReport, SearchError> {
    let ranked = rank(manifest, req)?;
    let hits = ranked
        .hits
        .iter()
        .map(|h| {
            Ok(Hit {
                snippet: snippet::marked(&ranked.extract(manifest, &vault.root, h)?),
                ..h.clone()
            })
        })
        .collect::<Result<_, SearchError>>()?;
    Ok(SearchReport {
        collisions: manifest.collisions(&req.query)?,
        query: req.query.clone(),
        mode: req.mode,
        total: ranked.total,
        truncated: ranked.hits.len() < ranked.total,
        hits,
    })
}

/// Find and rank the hits of a search, the best `req.limit` of them described.
pub fn rank(manifest: &Manifest, req: &Request) -> Result<Ranked, SearchError> {
    let q = parse(&req.query);
    let allowed = match req.kind.is_some() || req.tag.is_some() {
        true => Some(manifest.search_allowed(req.kind.as_deref(), req.tag.as_deref())?),
        false => None,
    };
    let allows = |id: i64| allowed.as_ref().is_none_or(|a| a.contains(&id));
    let mut terms = Vec::new();
    let expressions: Vec<String> = q
        .groups
        .iter()
        .flat_map(|g| &g.atoms)
        .filter_map(expression)
        .collect();
    let found = match req.mode {
        Mode::Lexical => words(manifest, req, &q, &allows, &mut terms)?,
        Mode::Semantic => {
            terms.extend(
                q.groups
                    .iter()
                    .flat_map(|g| &g.atoms)
                    .filter_map(|a| Term::new(&a.text, a.prefix)),
            );
            let filter = match q.filters() {
                true => Some(filter(manifest, req.scope, &q)?),
                false => None,
            };
            let keep = |id: i64| allows(id) && filter.as_ref().is_none_or(|f| f.allows(id));
            semantic(manifest, req.scope, &q, &keep)?
        }
        Mode::Hybrid => hybrid(manifest, req.scope, &q, &allows, || {
            lexical(manifest, req.scope, &q, &mut terms)
        })?,
    };
    let Found {
        total,
        scores: mut ranked,
        sections,
        meaning,
    } = found;
    // Describe only what is shown: the best `limit`, and any tied with the last of them, so
    // that ties are broken by path as before the cut. Only those are sorted.
    let keep = best_first(&mut ranked, req.limit);
    ranked.truncate(keep);
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut hits = Vec::new();
    let mut passages = HashMap::new();
    for &(id, score) in &ranked {
        if let Some(h) = manifest.search_hit(id, score)? {
            if let Ok(at) = sections.binary_search_by_key(&id, |s| s.0) {
                passages.insert(h.path.clone(), sections[at].1);
            }
            hits.push(h);
        }
    }
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.cmp(&b.path))
    });
    hits.truncate(req.limit);
    Ok(Ranked {
        total,
        hits,
        terms,
        expressions,
        passages,
        meaning,
    })
}

/// The hits of a search by words alone.
fn words(
    manifest: &Manifest,
    req: &Request,
    q: &Query,
    allows: &dyn Fn(i64) -> bool,
    terms: &mut Vec<Term>,
) -> Result<Found, SearchError> {
    let (total, scores) = match q.groups.as_slice() {
        // One word or phrase (the common search): its matches are streamed and only the best
        // kept, where combining atoms needs every match in rowid order. A word in most of a
        // large vault matches tens of thousands of files.
        [group] if group.atoms.len() == 1 && q.excluded.is_empty() => {
            let atom = &group.atoms[0];
            terms.extend(Term::new(&atom.text, atom.prefix));
            let mut best = Best::new(req.limit);
            if let Some(expr) = expression(atom) {
                manifest.search_each(&expr, req.scope, &mut |hit| {
                    if allows(hit.0) {
                        best.push(hit);
                    }
                })?;
            }
            (best.seen, best.kept)
        }
        _ => {
            let (mut scores, _) = lexical(manifest, req.scope, q, terms)?;
            scores.retain(|&(id, _)| allows(id));
            (scores.len(), scores)
        }
    };
    Ok(Found {
        total,
        scores,
        ..Found::default()
    })
}
