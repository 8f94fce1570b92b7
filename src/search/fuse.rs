//! Search by meaning, and its fusion with search by words. A query's words (its operators
//! taken away) are embedded by the model compiled into the binary and compared with every
//! section the scan embedded ([`Manifest::similarities`]); a page scores by its closest section.
//! The default search (`hybrid`) adds the two scores, each made comparable first: the words'
//! BM25 as a share of the best one, the meaning's similarity as how far it stands above
//! [`FLOOR`] (what unrelated texts reach) as a share of the best one. Hits found by meaning obey
//! the query's operators and filters as hits found by words do. A query the model cannot read
//! (CJK, other scripts) is ranked by its words alone.

use super::SearchError;
use super::query::Query;
use super::rank::Filter;
use crate::embed::{self, Vector};
use crate::manifest::{Manifest, Scope, Scores};

/// How to rank a search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Words and meaning together.
    #[default]
    Hybrid,
    /// Words alone (BM25 over the pages' fields).
    Lexical,
    /// Meaning alone (the embedded sections).
    Semantic,
}

impl Mode {
    /// Every mode, in the order of [`Mode::NAMES`].
    pub const ALL: [Mode; 3] = [Mode::Hybrid, Mode::Lexical, Mode::Semantic];
    /// The modes' names, as both front ends take them.
    pub const NAMES: [&'static str; 3] = ["hybrid", "lexical", "semantic"];

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Hybrid => "hybrid",
            Mode::Lexical => "lexical",
            Mode::Semantic => "semantic",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    /// A mode by its name; any other name is an error that names the modes.
    fn from_str(name: &str) -> Result<Mode, String> {
        Mode::ALL
            .into_iter()
            .find(|m| m.as_str() == name)
            .ok_or_else(|| format!("{name:?} is not one of {}", Mode::NAMES.join(", ")))
    }
}

/// The similarity a section must reach to be a hit by meaning: about what texts on unrelated
/// subjects reach with this model.
pub(super) const FLOOR: f32 = 0.3;

/// The weight of the words' score in the fused one (the meaning's is the rest): calibrated on
/// the four collections of `make eval` (0.7 with [`FLOOR`] 0.3 beats both parts on each; 0.5
/// fell below words alone on SciFact). BENCHMARKS.md, "Search quality".
const WORDS: f64 = 0.7;

/// Files found, by rowid, scored lower-is-better (as bm25), with the section of each found by
/// meaning (for its snippet), and how many there were in all.
#[derive(Debug, Default)]
pub(super) struct Found {
    pub total: usize,
    pub scores: Scores,
    /// By rowid.
    pub sections: Vec<(i64, usize)>,
    /// The query's meaning, when it was searched by meaning.
    pub meaning: Option<Vector>,
}

/// Where in a section the passage closest to `query` starts: the sentence (or line) most
/// similar to it, as a byte offset.
pub(super) fn closest_line(section: &str, query: &Vector) -> usize {
    let mut best = (f32::MIN, 0);
    let mut start = 0;
    let mut chars = section.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        // The spaces between two sentences belong to neither.
        if i < start {
            continue;
        }
        let next_is_space = chars.peek().is_none_or(|&(_, n)| n.is_whitespace());
        let ends = c == '\n' || (matches!(c, '.' | '!' | '?') && next_is_space);
        if !ends && chars.peek().is_some() {
            continue;
        }
        let end = i + c.len_utf8();
        if let Some(v) = embed::embed(&section[start..end]) {
            let s = embed::similarity(&v, query);
            if s > best.0 {
                best = (s, start);
            }
        }
        // The next sentence starts after the spaces.
        start = section[end..]
            .find(|c: char| !c.is_whitespace())
            .map_or(section.len(), |k| end + k);
    }
    best.1
}

/// The files nearest the query in meaning, at least [`FLOOR`] similar, that `keep` accepts.
pub(super) fn semantic(
    manifest: &Manifest,
    scope: Scope,
    q: &Query,
    keep: &(dyn Fn(i64) -> bool + Sync),
) -> Result<Found, SearchError> {
    let Some(v) = embed::embed(&q.text()) else {
        return Ok(Found::default());
    };
    let mut near = manifest.similarities(&v, scope, keep)?;
    near.retain(|n| n.similarity >= FLOOR);
    Ok(Found {
        total: near.len(),
        scores: near
            .iter()
            .map(|n| (n.file, -f64::from(n.similarity)))
            .collect(),
        sections: near.iter().map(|n| (n.file, n.section)).collect(),
        meaning: Some(v),
    })
}

/// The words' matches (by rowid, bm25), from `words`, fused with the files near the query in
/// meaning that `allows` accepts and the words' `Filter` lets through. The two are found at the
/// same time: the meanings are read from their copy on a second thread while `words` asks the
/// word index on this one (the copy's file alone, no SQLite: nothing is shared but the cores).
pub(super) fn hybrid(
    manifest: &Manifest,
    scope: Scope,
    q: &Query,
    allows: &(dyn Fn(i64) -> bool + Sync),
    words: impl FnOnce() -> Result<(Scores, Filter), SearchError>,
) -> Result<Found, SearchError> {
    let Some(v) = embed::embed(&q.text()) else {
        let (mut words, _) = words()?;
        words.retain(|&(id, _)| allows(id));
        return Ok(Found {
            total: words.len(),
            scores: words,
            ..Found::default()
        });
    };
    let copy = match scope {
        Scope::Raw => None,
        _ => Some(manifest.meanings_copy()?),
    };
    let (found, from_copy) = std::thread::scope(|s| {
        let near = copy
            .as_ref()
            .map(|c| s.spawn(|| c.similarities(&v, allows)));
        let found = words();
        let near = near.and_then(|n| n.join().ok().flatten());
        (found, near)
    });
    let (mut words, filter) = found?;
    words.retain(|&(id, _)| allows(id));
    let keep = |id: i64| allows(id) && filter.allows(id);
    let mut near = match from_copy {
        Some(near) => near,
        // No current copy: the table, on this thread (which writes the copy again).
        None => manifest.similarities(&v, scope, &keep)?,
    };
    near.retain(|n| filter.allows(n.file));
    let best_words = words.iter().map(|w| -w.1).fold(0.0_f64, f64::max);
    let best_meaning = near.iter().map(|n| n.similarity).fold(FLOOR, f32::max);
    let word_share = |bm25: f64| match best_words > 0.0 {
        true => WORDS * -bm25 / best_words,
        false => 0.0,
    };
    let meaning_share = |s: f32| match best_meaning > FLOOR {
        true => (1.0 - WORDS) * f64::from((s - FLOOR).max(0.0) / (best_meaning - FLOOR)),
        false => 0.0,
    };
    let mut scores = Scores::with_capacity(words.len());
    let mut sections = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < words.len() || j < near.len() {
        let (w, n) = (words.get(i), near.get(j));
        match (w, n) {
            (Some(&(id, bm25)), Some(n)) if id == n.file => {
                scores.push((id, -(word_share(bm25) + meaning_share(n.similarity))));
                sections.push((id, n.section));
                (i, j) = (i + 1, j + 1);
            }
            // A match by words without a meaning (a raw file, a text the model cannot read).
            (Some(&(id, bm25)), None) => {
                scores.push((id, -word_share(bm25)));
                i += 1;
            }
            (Some(&(id, bm25)), Some(n)) if id < n.file => {
                scores.push((id, -word_share(bm25)));
                i += 1;
            }
            (_, Some(n)) => {
                if n.similarity >= FLOOR {
                    scores.push((n.file, -meaning_share(n.similarity)));
                    sections.push((n.file, n.section));
                }
                j += 1;
            }
            (None, None) => break,
        }
    }
    Ok(Found {
        total: scores.len(),
        scores,
        sections,
        meaning: Some(v),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_sentence_is_found_whatever_the_spaces_between() {
        let query = embed::embed("keep files the same on two computers").unwrap();
        let section = "Soil and compost.  \n\n Water the beds. \nSync the notebook across \
                       computers with git!\nThe end.";
        let at = closest_line(section, &query);
        assert!(
            section[at..].starts_with("Sync the notebook"),
            "{:?}",
            &section[at..]
        );
        for odd in ["", " ", ".", ". \n", "a. \n b", "\n\n", "é. ü"] {
            let at = closest_line(odd, &query);
            assert!(odd.is_char_boundary(at), "{odd:?}");
        }
    }
}
