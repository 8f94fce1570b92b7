//! `search`: full-text search of the wiki and raw files. The query language is small and
//! never an error: words (all must match), `"phrases"`, `OR` between alternatives, `-word`
//! to exclude, `prefix*`. Any other punctuation is text. Words are looked up in the word index
//! (accents folded); CJK text as character pairs (see [`crate::cjk`]). Hits are ranked by
//! BM25, and only those shown are described and given a snippet.

mod snippet;

use crate::cjk;
use crate::manifest::{Collision, Hit, Manifest, ManifestError, Scope, Scores};
use crate::markdown::{frontmatter, title};
use crate::pieces;
use crate::vault::Vault;
use serde::Serialize;
pub use snippet::Piece;
use snippet::Term;
use std::collections::BTreeMap;
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

/// The FTS5 expression of an atom. Every piece of text in it is quoted, so no character of
/// the query is FTS syntax; CJK runs become phrases of character pairs.
fn expression(a: &Atom) -> Option<String> {
    let runs = cjk::runs(&a.text);
    let last = runs.len().saturating_sub(1);
    let parts: Vec<String> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, &(is_cjk, run))| {
            if is_cjk {
                return Some(cjk::query(run));
            }
            if !run.chars().any(char::is_alphanumeric) {
                return None;
            }
            let star = if a.prefix && i == last { "*" } else { "" };
            Some(format!("\"{}\"{star}", run.replace('"', "\"\"")))
        })
        .collect();
    match parts.len() {
        0 => None,
        1 => parts.into_iter().next(),
        _ => Some(format!("({})", parts.join(" "))),
    }
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
        let shown = |text: &str, first: bool| -> String {
            let body = match first && crate::scan::is_wiki_markdown(path) {
                true => title::without_title(frontmatter::body(text).0, title),
                false => text,
            };
            match is_markdown(path) {
                true => crate::markdown::plain::text(body),
                false => body.to_string(),
            }
        };
        if size < pieces::HELD_BELOW {
            let Ok(text) = crate::fsio::read_to_string(&file) else {
                return Ok(Vec::new());
            };
            let text = shown(&text, true);
            let parts = pieces::split(&text, pieces::PIECE);
            return Ok(snippet::extract_parts(parts, &self.terms));
        }
        let wanted = self.best_piece(manifest, path)?;
        let Ok(reader) = pieces::Reader::open(&file, pieces::PIECE) else {
            return Ok(Vec::new());
        };
        let Some(piece) = reader.map_while(Result::ok).nth(wanted as usize) else {
            return Ok(Vec::new());
        };
        Ok(snippet::extract_parts(
            [shown(&piece, wanted == 0)],
            &self.terms,
        ))
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

/// Whether a path names a Markdown file.
fn is_markdown(path: &str) -> bool {
    crate::key::strip_md(path).is_some_and(|stem| !stem.is_empty())
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
    let mut terms = Vec::new();
    let expressions: Vec<String> = q.groups.iter().flatten().filter_map(expression).collect();
    let (total, mut ranked) = match q.groups.as_slice() {
        // One word or phrase (the common search): its matches are streamed and only the best
        // kept, where combining atoms needs every match in rowid order. A word in most of a
        // large vault matches tens of thousands of files.
        [group] if group.len() == 1 && q.excluded.is_empty() => {
            let atom = &group[0];
            terms.extend(Term::new(&atom.text, atom.prefix));
            let mut best = Best::new(req.limit);
            if let Some(expr) = expression(atom) {
                manifest.search_each(&expr, req.scope, &mut |hit| {
                    if allowed.as_ref().is_none_or(|a| a.contains(&hit.0)) {
                        best.push(hit);
                    }
                })?;
            }
            (best.seen, best.kept)
        }
        _ => {
            let mut scores = matches(manifest, req.scope, &q, &mut terms)?;
            if let Some(allowed) = &allowed {
                scores.retain(|(id, _)| allowed.contains(id));
            }
            (scores.len(), scores)
        }
    };
    // Describe only what is shown: the best `limit`, and any tied with the last of them, so
    // that ties are broken by path as before the cut. Only those are sorted.
    let keep = best_first(&mut ranked, req.limit);
    ranked.truncate(keep);
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut hits = Vec::new();
    for &(id, score) in &ranked {
        if let Some(h) = manifest.search_hit(id, score)? {
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
    })
}

/// The files matching every group of `q` (any atom of a group) and none of its exclusions,
/// by rowid; the terms to mark in snippets are added to `terms`.
fn matches(
    manifest: &Manifest,
    scope: Scope,
    q: &Query,
    terms: &mut Vec<Term>,
) -> Result<Scores, SearchError> {
    let mut matched: Option<Scores> = None;
    for group in &q.groups {
        let mut union = Scores::new();
        for atom in group {
            terms.extend(Term::new(&atom.text, atom.prefix));
            let Some(expr) = expression(atom) else {
                continue;
            };
            union = either(union, manifest.search_match(&expr, scope)?);
        }
        matched = Some(match matched {
            None => union,
            Some(prev) => both(prev, &union),
        });
    }
    let mut scores = matched.unwrap_or_default();
    for atom in &q.excluded {
        if let Some(expr) = expression(atom) {
            scores = without(scores, &manifest.search_match(&expr, scope)?);
        }
    }
    Ok(scores)
}

/// Move the best `limit` of `scores` (lowest first, as bm25), and every one tied with the last
/// of them, to the front, in no order; returns how many that is.
fn best_first(scores: &mut [(i64, f64)], limit: usize) -> usize {
    let Some(last) = limit.checked_sub(1) else {
        return 0;
    };
    if last >= scores.len() {
        return scores.len();
    }
    let cut = scores
        .select_nth_unstable_by(last, |a, b| a.1.total_cmp(&b.1))
        .1
        .1;
    let (mut i, mut end) = (0, scores.len());
    while i < end {
        if scores[i].1 <= cut {
            i += 1;
        } else {
            end -= 1;
            scores.swap(i, end);
        }
    }
    end
}

/// The best `limit` of a stream of matches and those tied with the last of them, as
/// [`best_first`] would choose from all of them, in memory proportional to `limit`: whenever
/// the kept ones pile up, those worse than the current cut are dropped (a later match can
/// only lower the cut, never bring a dropped one back).
struct Best {
    limit: usize,
    kept: Scores,
    /// Matches pushed in all.
    seen: usize,
}

impl Best {
    fn new(limit: usize) -> Best {
        Best {
            limit,
            kept: Scores::new(),
            seen: 0,
        }
    }

    fn push(&mut self, hit: (i64, f64)) {
        self.seen += 1;
        self.kept.push(hit);
        if self.kept.len() >= self.limit.saturating_mul(2).max(1024) {
            let keep = best_first(&mut self.kept, self.limit);
            self.kept.truncate(keep);
        }
    }
}

/// The files in `a` or `b` (each sorted by rowid), with the better score of the two.
fn either(a: Scores, b: Scores) -> Scores {
    if a.is_empty() {
        return b;
    }
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push((a[i].0, a[i].1.min(b[j].1)));
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The files in both `a` and `b` (each sorted by rowid), their scores added.
fn both(a: Scores, b: &Scores) -> Scores {
    let mut j = 0;
    a.into_iter()
        .filter_map(|(id, s)| {
            while j < b.len() && b[j].0 < id {
                j += 1;
            }
            (j < b.len() && b[j].0 == id).then(|| (id, s + b[j].1))
        })
        .collect()
}

/// The files of `a` not in `b` (each sorted by rowid).
fn without(a: Scores, b: &Scores) -> Scores {
    let mut j = 0;
    a.into_iter()
        .filter(|&(id, _)| {
            while j < b.len() && b[j].0 < id {
                j += 1;
            }
            !(j < b.len() && b[j].0 == id)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_matches_combine_as_sets() {
        let a = vec![(1, -1.0), (3, -3.0), (5, -5.0)];
        let b = vec![(2, -2.0), (3, -4.0), (6, -6.0)];
        assert_eq!(
            either(a.clone(), b.clone()),
            [(1, -1.0), (2, -2.0), (3, -4.0), (5, -5.0), (6, -6.0)]
        );
        assert_eq!(both(a.clone(), &b), [(3, -7.0)]);
        assert_eq!(without(a.clone(), &b), [(1, -1.0), (5, -5.0)]);
        assert_eq!(either(Vec::new(), b.clone()), b);
        assert!(both(a, &Vec::new()).is_empty());
    }

    #[test]
    fn the_best_of_a_stream_are_the_best_of_all() {
        // Scores from a few values, so that ties with the cut are many and cross the points
        // where the stream is pruned.
        let all: Scores = (0..5000_i64)
            .map(|i| (i, -(((i * 7919) % 13) as f64)))
            .collect();
        for limit in [0, 1, 5, 20, 400, 600, 4999, 5000, 9000] {
            let mut whole = all.clone();
            let keep = best_first(&mut whole, limit);
            let mut want: Vec<i64> = whole[..keep].iter().map(|h| h.0).collect();
            let mut best = Best::new(limit);
            for &hit in &all {
                best.push(hit);
            }
            let mut kept = best.kept;
            let keep = best_first(&mut kept, limit);
            let mut got: Vec<i64> = kept[..keep].iter().map(|h| h.0).collect();
            want.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, want, "limit {limit}");
            assert_eq!(best.seen, all.len());
        }
        // Every match tied with the last of the best is kept, not `limit` of them.
        let few: Scores = (0..5000_i64).map(|i| (i, -((i % 3) as f64))).collect();
        let mut best = Best::new(20);
        for &hit in &few {
            best.push(hit);
        }
        let top = few.iter().filter(|h| h.1 == -2.0).count();
        assert!(top > 1024, "the ties outnumber a pruning");
        assert_eq!(best_first(&mut best.kept, 20), top);
    }

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
            "知識-(管理)",
        ] {
            let parsed = parse(q);
            for a in parsed.groups.iter().flatten().chain(&parsed.excluded) {
                let e = expression(a).unwrap_or_default();
                let outside: String = e.split('"').step_by(2).collect::<Vec<_>>().concat();
                assert!(
                    outside.chars().all(|c| "()* ".contains(c)),
                    "{q:?} gave {e:?}"
                );
            }
        }
        assert_eq!(parse("***").groups.len(), 0);
    }

    #[test]
    fn cjk_becomes_pairs_beside_quoted_words() {
        assert_eq!(expression(&atom("知識管理")).unwrap(), "\"知識 識管 管理\"");
        assert_eq!(expression(&atom("知")).unwrap(), "\"知\"*");
        assert_eq!(expression(&atom("gpt-4o")).unwrap(), "\"gpt-4o\"");
        assert_eq!(expression(&atom("gpt知識")).unwrap(), "(\"gpt\" \"知識\")");
        let prefix = Atom {
            text: "inval".into(),
            prefix: true,
        };
        assert_eq!(expression(&prefix).unwrap(), "\"inval\"*");
    }
}
