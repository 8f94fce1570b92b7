//! `related`: the pages nearest a page or a text, by meaning (the embedded sections), by words
//! (the text's telling words, ranked by BM25) and by the link graph (shared links, shared
//! citing pages, a link either way, shared tags), fused into one score. Each hit says why, and
//! whether the page already links to it. The page itself, system and generated pages and
//! conflict copies never appear. Unlike `search`, the text is taken as it is: no operators.

use super::fuse::FLOOR;
use super::query::{expression, is_stopword, parse};
use crate::embed::{self, Vector};
use crate::manifest::{Manifest, ManifestError, Neighbour, Resolution, Scope};
use crate::scan::meaning;
use crate::vault::Vault;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// Hits shown when no limit is given.
pub const LIMIT: usize = 10;

/// The weights of meaning, words and the link graph in the fused score, each first made a
/// share of its best hit's. Calibrated on `make eval`'s link-hiding evaluation (BENCHMARKS.md,
/// "Related pages").
const MEANING: f64 = 0.45;
const WORDS: f64 = 0.25;
const GRAPH: f64 = 0.30;

/// Candidates scored by meaning alone beyond those shown (see [`fuse`]): room for the system
/// pages and conflict copies among them, which are not shown.
const SPARE: usize = 256;

/// Telling words of a text looked up, at most.
const WORDS_KEPT: usize = 8;
/// Words of a text considered, the most frequent first, before they are looked up.
const WORDS_TRIED: usize = 12;

/// What to find pages related to.
#[derive(Debug, Clone)]
pub enum About {
    /// A page, by any name `mv` takes: title, alias, file name or vault-relative path.
    Page(String),
    /// A text, as it is.
    Text(String),
}

/// A `related` request.
#[derive(Debug, Clone)]
pub struct Request {
    /// A page or a text.
    pub about: About,
    /// At most this many hits.
    pub limit: usize,
}

/// A page related to the page or text asked about.
#[derive(Debug, Clone, Serialize)]
pub struct Related {
    /// Vault-relative path.
    pub path: String,
    /// Its title, if it has one.
    pub title: Option<String>,
    /// Its type, if any.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The fused score, in (0, 1]: higher is closer.
    pub score: f64,
    /// Why it is related, for a person: `similar text`, `words: …`, `shares 3 links`, …
    pub why: Vec<String>,
    /// Whether the page asked about links to it already (always false for a text).
    pub linked: bool,
}

/// The pages related to a page or a text.
#[derive(Debug, Clone, Serialize)]
pub struct RelatedReport {
    /// The page asked about (vault-relative), or none for a text.
    pub page: Option<String>,
    /// The closest first.
    pub hits: Vec<Related>,
}

/// `related` could not run.
#[derive(Debug, thiserror::Error)]
pub enum RelatedError {
    /// No page has that name.
    #[error(
        "no page is called {0:?} (give a title, an alias, a file name or a vault-relative path)"
    )]
    UnknownPage(String),
    /// Several pages have that name.
    #[error("{name:?} could mean {count} pages; give its vault-relative path")]
    Ambiguous {
        /// The name.
        name: String,
        /// How many pages it could mean.
        count: usize,
    },
    /// The name is a file that is not a wiki page.
    #[error("{0} is not a wiki page: related pages are found for pages and texts")]
    NotAPage(String),
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

impl crate::failure::Hint for RelatedError {
    fn hint(&self) -> Option<crate::failure::Advice> {
        use crate::failure::{Action, Advice};
        match self {
            RelatedError::UnknownPage(_) | RelatedError::NotAPage(_) => {
                Some(Advice::run(Action::Search).then(" to find pages by their title or text"))
            }
            RelatedError::Ambiguous { .. } => None,
            RelatedError::Manifest(m) => m.hint(),
        }
    }
}

/// The page asked about, read.
struct Subject {
    rowid: i64,
    path: String,
    text: String,
}

/// Find the pages related to `req.about`.
pub fn related(
    vault: &Vault,
    manifest: &Manifest,
    req: &Request,
) -> Result<RelatedReport, RelatedError> {
    related_in(&vault.root, manifest, req)
}

/// The first `limit` pages related to the page at `path` (vault-relative) in the vault at
/// `root` that it does not link to yet: what the viewer suggests linking.
pub fn not_linked_yet(
    root: &Path,
    manifest: &Manifest,
    path: &str,
    limit: usize,
) -> Result<Vec<Related>, RelatedError> {
    let req = Request {
        about: About::Page(path.to_string()),
        // Room for the pages it links to, which are left out.
        limit: limit.saturating_mul(3),
    };
    let mut hits = related_in(root, manifest, &req)?.hits;
    hits.retain(|h| !h.linked);
    hits.truncate(limit);
    Ok(hits)
}

/// [`related`] in the vault at `root`.
fn related_in(
    root: &Path,
    manifest: &Manifest,
    req: &Request,
) -> Result<RelatedReport, RelatedError> {
    let (subject, text) = match &req.about {
        About::Page(name) => {
            let s = subject(root, manifest, name)?;
            let text = s.text.clone();
            (Some(s), text)
        }
        About::Text(t) => (None, t.clone()),
    };
    let meaning_of = match &subject {
        Some(s) => mean(&manifest.page_vectors(s.rowid)?),
        None => None,
    }
    .or_else(|| text_meaning(&text));
    let copy = manifest.meanings_copy()?;
    let keep = |_: i64| true;
    // The meanings are read on a second thread while the words and the graph are looked up.
    let (found, from_copy) = std::thread::scope(|s| {
        let near = meaning_of
            .as_ref()
            .map(|v| s.spawn(|| copy.similarities(v, &keep)));
        let found = words_and_graph(manifest, subject.as_ref(), &text);
        (found, near.and_then(|n| n.join().ok().flatten()))
    });
    let (words, graph) = found?;
    let near = match (from_copy, &meaning_of) {
        (Some(near), _) => near,
        (None, Some(v)) => manifest.similarities(v, Scope::Wiki, &keep)?,
        (None, None) => Vec::new(),
    };
    let self_id = subject.as_ref().map(|s| s.rowid);
    // Hits are taken in order but for system pages and conflict copies: a few hundred more
    // than shown leave room for them.
    let mut scored = fuse(
        &near,
        &words,
        &graph,
        self_id,
        req.limit.saturating_add(SPARE),
    );
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut hits = Vec::new();
    for (id, score) in scored {
        if hits.len() >= req.limit {
            break;
        }
        let Some(hit) = manifest.search_hit(id, 0.0)? else {
            continue;
        };
        if !shown(&hit.path) {
            continue;
        }
        let mut g = graph.get(&id).cloned();
        // A hub's backlinks are not scored (the graph leaves them out): said all the same.
        if let Some(s) = &subject
            && !g.as_ref().is_some_and(|g| g.links_here)
            && manifest.links_to(&hit.path, &s.path)?
        {
            g.get_or_insert_with(Neighbour::default).links_here = true;
        }
        let g = g.as_ref();
        hits.push(Related {
            why: why(near_of(&near, id), words.get(&id), g),
            linked: g.is_some_and(|g| g.linked),
            path: hit.path,
            title: hit.title,
            kind: hit.kind,
            score: (score * 1000.0).round() / 1000.0,
        });
    }
    Ok(RelatedReport {
        page: subject.map(|s| s.path),
        hits,
    })
}

/// Whether a page may be shown as related (and is compared for near-duplicates, and offered
/// links to in the viewer): a wiki page a person or an agent writes, not a system page (the
/// index and its shards, the log, the collections) or a conflict copy.
pub fn shown(path: &str) -> bool {
    crate::scan::is_page(path)
        && !crate::schema::is_system_page(path)
        && !crate::vault::is_conflict_copy(path)
}

/// The page `name` names, read.
fn subject(root: &Path, manifest: &Manifest, name: &str) -> Result<Subject, RelatedError> {
    let path = match manifest.resolve_name(name)? {
        Resolution::Resolved(p) => p,
        Resolution::Broken => return Err(RelatedError::UnknownPage(name.into())),
        Resolution::Ambiguous(count) => {
            return Err(RelatedError::Ambiguous {
                name: name.into(),
                count,
            });
        }
    };
    if !crate::scan::is_page(&path) {
        return Err(RelatedError::NotAPage(path));
    }
    let rowid = manifest
        .file_rowid(&path)?
        .ok_or_else(|| RelatedError::UnknownPage(name.into()))?;
    let title = manifest
        .search_hit(rowid, 0.0)?
        .and_then(|h| h.title)
        .unwrap_or_default();
    // A page that cannot be read any more is related by its title and its links.
    let raw = crate::fsio::read_to_string(&root.join(&path)).unwrap_or_default();
    let text = format!("{title}\n{}", meaning::readable(&path, &raw, &title));
    Ok(Subject { rowid, path, text })
}

/// The direction of several vectors (a page's sections), as one vector.
fn mean(vectors: &[Vector]) -> Option<Vector> {
    let mut sum = embed::Sum::default();
    for v in vectors {
        sum.add(v);
    }
    sum.direction()
}

/// Each page's words score (BM25 summed over the telling words it holds) and the words, by
/// rowid; and the page's neighbours in the link graph.
type WordsAndGraph = (HashMap<i64, (f64, Vec<String>)>, HashMap<i64, Neighbour>);

fn words_and_graph(
    manifest: &Manifest,
    subject: Option<&Subject>,
    text: &str,
) -> Result<WordsAndGraph, RelatedError> {
    let mut words: HashMap<i64, (f64, Vec<String>)> = HashMap::new();
    for (word, expr) in telling_words(manifest, text, subject.is_some())? {
        for (id, bm25) in manifest.search_match(&expr, Scope::Wiki)? {
            let e = words.entry(id).or_default();
            e.0 += -bm25;
            e.1.push(word.clone());
        }
    }
    let graph = match subject {
        Some(s) => manifest.related_in_graph(&s.path)?,
        None => HashMap::new(),
    };
    Ok((words, graph))
}

/// The words that tell what `text` is about, with their FTS5 expressions: its most frequent
/// words that are not common English ones, kept when they are in more than the page itself
/// (`in_vault`: the text is a page, which holds them too) and in fewer than a tenth of the
/// pages (at least 20, at most 500: a word in more says little, and costs most to rank), the
/// rarest first.
fn telling_words(
    manifest: &Manifest,
    text: &str,
    in_vault: bool,
) -> Result<Vec<(String, String)>, RelatedError> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
    {
        let word = word.to_lowercase();
        if !is_stopword(&word) {
            *counts.entry(word).or_default() += 1;
        }
    }
    let mut tried: Vec<(String, usize)> = counts.into_iter().collect();
    tried.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    tried.truncate(WORDS_TRIED);
    let pages = manifest.page_count()?.max(1);
    let cap = (pages / 10).clamp(20, 500);
    let least = if in_vault { 2 } else { 1 };
    let mut kept = Vec::new();
    for (word, tf) in tried {
        let Some(expr) = parse(&word)
            .groups
            .first()
            .and_then(|g| g.atoms.first())
            .and_then(expression)
        else {
            continue;
        };
        let df = manifest.pages_matching_upto(&expr, cap)?;
        if df >= least && df < cap {
            let idf = (pages as f64 / df as f64).ln();
            kept.push((tf as f64 * idf, word, expr));
        }
    }
    kept.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(kept
        .into_iter()
        .take(WORDS_KEPT)
        .map(|(_, w, e)| (w, e))
        .collect())
}

/// The similarity of the page with this rowid, when it has one.
fn near_of(near: &[crate::manifest::Near], id: i64) -> Option<f32> {
    near.binary_search_by_key(&id, |n| n.file)
        .ok()
        .map(|i| near[i].similarity)
}

/// The candidates' fused scores, the subject left out: meaning above [`FLOOR`], words and
/// graph, each as a share of its best. The candidates are the pages found by words or links
/// and the `keep` closest by meaning: of 100,000 pages near in meaning, a page found by
/// nothing else ranks below those `keep`, and the rest need not be scored.
fn fuse(
    near: &[crate::manifest::Near],
    words: &HashMap<i64, (f64, Vec<String>)>,
    graph: &HashMap<i64, Neighbour>,
    self_id: Option<i64>,
    keep: usize,
) -> Vec<(i64, f64)> {
    let other = |id: &i64| Some(*id) != self_id;
    let best_meaning = near
        .iter()
        .filter(|n| other(&n.file))
        .map(|n| n.similarity)
        .fold(FLOOR, f32::max);
    let best_words = words
        .iter()
        .filter(|(id, _)| other(id))
        .map(|(_, w)| w.0)
        .fold(0.0, f64::max);
    let best_graph = graph
        .iter()
        .filter(|(id, _)| other(id))
        .map(|(_, g)| g.weight)
        .fold(0.0, f64::max);
    let share = |x: f64, best: f64| if best > 0.0 { x / best } else { 0.0 };
    let by_meaning = |s: f32| {
        let s = share(f64::from(s - FLOOR), f64::from(best_meaning - FLOOR));
        MEANING * s
    };
    // Of the pages scored by meaning alone, the `keep` closest: any other has `keep` pages
    // above it.
    let mut closest: Vec<&crate::manifest::Near> = near
        .iter()
        .filter(|n| other(&n.file) && n.similarity > FLOOR)
        .collect();
    if closest.len() > keep {
        closest.select_nth_unstable_by(keep - 1, |a, b| b.similarity.total_cmp(&a.similarity));
        closest.truncate(keep);
    }
    let mut scores: HashMap<i64, f64> = closest
        .iter()
        .map(|n| (n.file, by_meaning(n.similarity)))
        .collect();
    for id in words.keys().chain(graph.keys()).filter(|id| other(id)) {
        scores.entry(*id).or_insert_with(|| {
            near_of(near, *id)
                .filter(|s| *s > FLOOR)
                .map_or(0.0, by_meaning)
        });
    }
    for (id, w) in words.iter().filter(|(id, _)| other(id)) {
        *scores.entry(*id).or_default() += WORDS * share(w.0, best_words);
    }
    for (id, g) in graph.iter().filter(|(id, _)| other(id)) {
        *scores.entry(*id).or_default() += GRAPH * share(g.weight, best_graph);
    }
    scores.into_iter().collect()
}

/// Why a page is related, for a person.
fn why(
    similarity: Option<f32>,
    words: Option<&(f64, Vec<String>)>,
    g: Option<&Neighbour>,
) -> Vec<String> {
    let mut out = Vec::new();
    if similarity.is_some_and(|s| s >= SIMILAR) {
        out.push("similar text".to_string());
    }
    if let Some((_, w)) = words {
        let shown: Vec<&str> = w.iter().take(3).map(String::as_str).collect();
        out.push(format!("words: {}", shown.join(", ")));
    }
    if let Some(g) = g {
        if g.links_here {
            out.push("links here".to_string());
        }
        if g.linked {
            out.push("linked from here".to_string());
        }
        match g.shared_links {
            0 => {}
            1 => out.push("shares 1 link".to_string()),
            n => out.push(format!("shares {n} links")),
        }
        match g.co_cited {
            0 => {}
            1 => out.push("cited with it by 1 page".to_string()),
            n => out.push(format!("cited with it by {n} pages")),
        }
        out.extend(g.tags.iter().take(3).map(|t| format!("tag #{t}")));
    }
    out
}

/// The similarity from which a page's text is said to be similar: well above what unrelated
/// texts reach ([`FLOOR`]).
const SIMILAR: f32 = 0.5;

/// The query vector of a text, for a caller that embeds many at once.
pub fn text_meaning(text: &str) -> Option<Vector> {
    let vectors: Vec<Vector> = meaning::meaning("wiki/text.md", text, "")
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    mean(&vectors).or_else(|| embed::embed(text))
}

/// A page where a capture may belong.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Belongs {
    /// Vault-relative path.
    pub path: String,
    /// Its title, if it has one.
    pub title: Option<String>,
    /// How close its text is to the capture's (cosine, 1 the same meaning).
    pub score: f64,
}

/// Pages offered for one capture, at most.
pub const BELONGS: usize = 5;

/// The similarity from which a page is offered as where a capture may belong: what a page on
/// the capture's subject reaches, well above texts on others ([`FLOOR`]).
const CLOSE: f32 = 0.45;

/// For each text (a capture of an ingest's batch), up to [`BELONGS`] pages it may belong in,
/// the closest first, by meaning: one pass over the vectors for them all. Empty for a text no
/// page is close to, or that the model cannot read.
pub fn where_each_belongs(
    manifest: &Manifest,
    texts: &[&str],
) -> Result<Vec<Vec<Belongs>>, ManifestError> {
    let meanings: Vec<Option<Vector>> = texts.iter().map(|t| text_meaning(t)).collect();
    let queries: Vec<Vector> = meanings.iter().flatten().cloned().collect();
    if queries.is_empty() {
        return Ok(vec![Vec::new(); texts.len()]);
    }
    // A few more than shown: the system pages and conflict copies among them are left out.
    let mut nearest = manifest
        .nearest_each(&queries, 2 * BELONGS, CLOSE, &|_| true)?
        .into_iter();
    let mut out = Vec::with_capacity(texts.len());
    for meaning in &meanings {
        let near = match meaning {
            Some(_) => nearest.next().unwrap_or_default(),
            None => Vec::new(),
        };
        let mut pages = Vec::new();
        for n in near {
            if pages.len() == BELONGS {
                break;
            }
            if let Some(hit) = manifest.search_hit(n.file, 0.0)?
                && shown(&hit.path)
            {
                pages.push(Belongs {
                    path: hit.path,
                    title: hit.title,
                    score: (f64::from(n.similarity) * 1000.0).round() / 1000.0,
                });
            }
        }
        out.push(pages);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Near;

    fn near(file: i64, similarity: f32) -> Near {
        Near {
            file,
            section: 0,
            similarity,
        }
    }

    #[test]
    fn fusing_scores_the_closest_by_meaning_and_every_page_found_otherwise_as_in_full() {
        // 1,000 pages, rowid i similar 0.3 + i/2000; page 7 found by a word, page 9 by a link.
        let all: Vec<Near> = (1..=1000)
            .map(|i| near(i, 0.3 + i as f32 / 2000.0))
            .collect();
        let mut words = HashMap::new();
        words.insert(7, (2.0, vec!["wal".to_string()]));
        let mut graph = HashMap::new();
        graph.insert(
            9,
            Neighbour {
                weight: 1.0,
                ..Neighbour::default()
            },
        );
        let sorted = |mut v: Vec<(i64, f64)>| {
            v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            v
        };
        let full = sorted(fuse(&all, &words, &graph, Some(1000), usize::MAX));
        let cut = sorted(fuse(&all, &words, &graph, Some(1000), 20));
        // The 20 closest (the subject, 1000, left out) and the two found otherwise, each
        // scored as the full fusion scores it.
        assert_eq!(cut.len(), 22, "{cut:?}");
        for (id, score) in &cut {
            let same = full.iter().find(|(i, _)| i == id).expect("scored in full");
            assert_eq!(same.1, *score, "page {id}");
        }
        assert!(cut.iter().any(|(id, s)| *id == 7 && *s > WORDS));
        assert!(cut.iter().any(|(id, s)| *id == 9 && *s > GRAPH));
        // The first 20 of the full fusion are the first 20 of the cut one.
        assert_eq!(full[..20], cut[..20]);
    }
}
