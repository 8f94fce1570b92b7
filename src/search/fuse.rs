//! Search by meaning, and its fusion with search by words. A query's words (its operators
//! taken away) are embedded by the model compiled into the binary and compared with every
//! section the scan embedded ([`Manifest::nearest`]); a file scores by its closest section.
//! The default search (`hybrid`) adds the two scores, each made comparable first: the words'
//! BM25 as a share of the best one, the meaning's similarity as how far it stands above
//! [`FLOOR`] (what unrelated texts reach) as a share of the best one. Hits found by meaning obey
//! the query's operators and filters as hits found by words do. A query the model cannot read
//! (CJK, other scripts) is ranked by its words alone.

use super::SearchError;
use super::query::Query;
use crate::embed;
use crate::manifest::{Manifest, Scope, Scores};
use std::collections::HashMap;

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

/// The weight of the words' score in the fused one (the meaning's is the rest).
const WORDS: f64 = 0.5;

/// Files found, by rowid, scored lower-is-better (as bm25), with the section of each found by
/// meaning (for its snippet), and how many there were in all.
#[derive(Debug, Default)]
pub(super) struct Found {
    pub total: usize,
    pub scores: Scores,
    pub sections: HashMap<i64, usize>,
}

/// The files nearest the query in meaning, at least [`FLOOR`] similar, that `keep` accepts.
pub(super) fn semantic(
    manifest: &Manifest,
    scope: Scope,
    q: &Query,
    keep: &dyn Fn(i64) -> bool,
) -> Result<Found, SearchError> {
    let Some(v) = embed::embed(&q.text()) else {
        return Ok(Found::default());
    };
    let (total, near) = manifest.nearest(&v, scope, FLOOR, usize::MAX, keep)?;
    Ok(Found {
        total,
        scores: near
            .iter()
            .map(|n| (n.file, -f64::from(n.similarity)))
            .collect(),
        sections: near.iter().map(|n| (n.file, n.section)).collect(),
    })
}

/// The words' matches `words` (by rowid, bm25) fused with the files near the query in meaning.
pub(super) fn hybrid(
    manifest: &Manifest,
    scope: Scope,
    q: &Query,
    words: Scores,
    keep: &dyn Fn(i64) -> bool,
) -> Result<Found, SearchError> {
    let Some(v) = embed::embed(&q.text()) else {
        return Ok(Found {
            total: words.len(),
            scores: words,
            sections: HashMap::new(),
        });
    };
    // Every file's similarity, so that a match by words is scored by its meaning too.
    let (_, near) = manifest.nearest(&v, scope, f32::MIN, usize::MAX, keep)?;
    let best_words = words.iter().map(|w| -w.1).fold(0.0_f64, f64::max);
    let best_meaning = near.first().map_or(FLOOR, |n| n.similarity);
    let word_share = |bm25: f64| match best_words > 0.0 {
        true => -bm25 / best_words,
        false => 0.0,
    };
    let meaning_share = |s: f32| match best_meaning > FLOOR {
        true => f64::from((s - FLOOR).max(0.0) / (best_meaning - FLOOR)),
        false => 0.0,
    };
    let by_words: HashMap<i64, f64> = words.iter().copied().collect();
    let mut sections = HashMap::new();
    let mut scores = Scores::new();
    for n in &near {
        let w = by_words.get(&n.file).copied();
        if w.is_none() && n.similarity < FLOOR {
            continue;
        }
        let fused = WORDS * w.map_or(0.0, word_share) + (1.0 - WORDS) * meaning_share(n.similarity);
        scores.push((n.file, -fused));
        sections.insert(n.file, n.section);
    }
    // A match by words the meaning tables do not hold (a file too long to embed, a text the
    // model cannot read) keeps its words' share.
    let seen: std::collections::HashSet<i64> = near.iter().map(|n| n.file).collect();
    for &(id, bm25) in &words {
        if !seen.contains(&id) {
            scores.push((id, -WORDS * word_share(bm25)));
        }
    }
    Ok(Found {
        total: scores.len(),
        scores,
        sections,
    })
}
