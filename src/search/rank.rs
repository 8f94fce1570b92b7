//! Ranking by words: each atom of a query is looked up in the word index, which scores every
//! file it matches by BM25 over the page's fields (title, aliases, tags, headings and body,
//! weighted; see `manifest::search`); a file's score is the sum of its atoms' scores, as one
//! BM25 over all of them would give, so that a page matching more of the query ranks higher
//! and a title match is a strong boost rather than a tier of its own. Required groups and
//! exclusions then filter the files; they filter hits found by meaning alike ([`Filter`]).

use super::SearchError;
use super::query::{Query, expression};
use super::snippet::Term;
use crate::manifest::{Manifest, Scope, Scores};

/// What a query's operators demand of a hit, as sorted sets of file rowids.
#[derive(Debug, Clone, Default)]
pub(super) struct Filter {
    /// For each required group, the files matching one of its atoms.
    required: Vec<Vec<i64>>,
    /// The files matching an excluded atom.
    excluded: Vec<i64>,
}

impl Filter {
    /// Whether the file with this rowid passes every required group and no exclusion.
    pub fn allows(&self, id: i64) -> bool {
        self.required.iter().all(|r| r.binary_search(&id).is_ok())
            && self.excluded.binary_search(&id).is_err()
    }
}

/// The files matching a query by its words, by rowid, with their summed scores (lower is
/// better, as FTS5's bm25), and the filter of its operators; the terms to mark in snippets
/// are added to `terms`.
pub(super) fn lexical(
    manifest: &Manifest,
    scope: Scope,
    q: &Query,
    terms: &mut Vec<Term>,
) -> Result<(Scores, Filter), SearchError> {
    let mut sum = Scores::new();
    let mut filter = Filter::default();
    for group in &q.groups {
        let required = group.required();
        let mut members = Vec::new();
        for atom in &group.atoms {
            terms.extend(Term::new(&atom.text, atom.prefix));
            let Some(expr) = expression(atom) else {
                continue;
            };
            let found = manifest.search_match(&expr, scope)?;
            if required {
                members = union_ids(&members, &found);
            }
            sum = add(sum, &found);
        }
        if required {
            filter.required.push(members);
        }
    }
    for atom in &q.excluded {
        if let Some(expr) = expression(atom) {
            filter.excluded = union_ids(&filter.excluded, &manifest.search_match(&expr, scope)?);
        }
    }
    if q.filters() {
        sum.retain(|&(id, _)| filter.allows(id));
    }
    Ok((sum, filter))
}

/// The filter of a query's operators alone, for a search by meaning: the files matching each
/// required group and the excluded atoms.
pub(super) fn filter(manifest: &Manifest, scope: Scope, q: &Query) -> Result<Filter, SearchError> {
    let mut filter = Filter::default();
    for group in q.groups.iter().filter(|g| g.required()) {
        let mut members = Vec::new();
        for expr in group.atoms.iter().filter_map(expression) {
            members = union_ids(&members, &manifest.search_match(&expr, scope)?);
        }
        filter.required.push(members);
    }
    for expr in q.excluded.iter().filter_map(expression) {
        filter.excluded = union_ids(&filter.excluded, &manifest.search_match(&expr, scope)?);
    }
    Ok(filter)
}

/// Move the best `limit` of `scores` (lowest first, as bm25), and every one tied with the last
/// of them, to the front, in no order; returns how many that is.
pub(super) fn best_first(scores: &mut [(i64, f64)], limit: usize) -> usize {
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
pub(super) struct Best {
    limit: usize,
    pub kept: Scores,
    /// Matches pushed in all.
    pub seen: usize,
}

impl Best {
    pub fn new(limit: usize) -> Best {
        Best {
            limit,
            kept: Scores::new(),
            seen: 0,
        }
    }

    pub fn push(&mut self, hit: (i64, f64)) {
        self.seen += 1;
        self.kept.push(hit);
        if self.kept.len() >= self.limit.saturating_mul(2).max(1024) {
            let keep = best_first(&mut self.kept, self.limit);
            self.kept.truncate(keep);
        }
    }
}

/// The files in `a` or `b` (each sorted by rowid), with the sum of their scores.
fn add(a: Scores, b: &Scores) -> Scores {
    if a.is_empty() {
        return b.clone();
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
                out.push((a[i].0, a[i].1 + b[j].1));
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The rowids in `a` or in `b` (each sorted), sorted.
fn union_ids(a: &[i64], b: &Scores) -> Vec<i64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j).map(|s| s.0)) {
            (Some(&x), Some(y)) if x == y => {
                i += 1;
                j += 1;
                x
            }
            (Some(&x), Some(y)) if x < y => {
                i += 1;
                x
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (_, Some(y)) => {
                j += 1;
                y
            }
            (None, None) => break,
        };
        out.push(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_matches_combine_as_sets() {
        let a = vec![(1, -1.0), (3, -3.0), (5, -5.0)];
        let b = vec![(2, -2.0), (3, -4.0), (6, -6.0)];
        assert_eq!(
            add(a.clone(), &b),
            [(1, -1.0), (2, -2.0), (3, -7.0), (5, -5.0), (6, -6.0)]
        );
        assert_eq!(add(Vec::new(), &b), b);
        assert_eq!(union_ids(&[1, 3, 5], &b), [1, 2, 3, 5, 6]);
        assert_eq!(union_ids(&[], &b), [2, 3, 6]);
        let filter = Filter {
            required: vec![vec![1, 3, 5], vec![3, 5, 8]],
            excluded: vec![5],
        };
        let allowed: Vec<i64> = (0..10).filter(|&id| filter.allows(id)).collect();
        assert_eq!(allowed, [3]);
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
}
