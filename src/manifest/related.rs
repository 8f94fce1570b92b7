//! What `related` asks of the manifest: a page's neighbours in the link graph (the pages that
//! link to the same pages, the pages linked from the same pages, the pages that link to it,
//! the pages sharing a tag), the vectors of its sections, and how many pages a word is in.
//! Fusing them with meaning and words is [`crate::search`]'s job.

use super::scan_tx::{MEANING_SECTIONS, section_of};
use super::{At, Manifest, Result};
use crate::embed::Vector;
use std::collections::HashMap;

/// A page near another in the link graph, by its file's rowid.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Neighbour {
    /// Pages both link to.
    pub shared_links: usize,
    /// Pages that link to both.
    pub co_cited: usize,
    /// Whether it links to the page.
    pub links_here: bool,
    /// Whether the page links to it.
    pub linked: bool,
    /// The tags both carry, as written on it.
    pub tags: Vec<String>,
    /// The evidence summed, each shared link, citing page and tag weighted by how rare it is
    /// (1 / ln(2 + the pages it joins)), a link either way counting 1.
    pub weight: f64,
}

/// A link or tag shared by more pages than this says nothing of any two of them (a page
/// every page links to): it is not followed.
const TOO_COMMON: i64 = 1000;

/// Pages linking to a page followed to what else they link to, at most.
const CITING: usize = 100;

/// A shared link's, citing page's or tag's weight: the rarer, the more it says.
fn rarity(pages: i64) -> f64 {
    1.0 / ((2 + pages) as f64).ln()
}

impl Manifest {
    /// Whether the page at `source` links to the page at `target`.
    pub fn links_to(&self, source: &str, target: &str) -> Result<bool> {
        self.conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM links WHERE source = ?1 AND resolved = ?2
                 AND status = 'resolved')",
            )
            .and_then(|mut s| s.query_row([source, target], |r| r.get(0)))
            .at(&self.path)
    }

    /// The rowid of the live file at `path`.
    pub fn file_rowid(&self, path: &str) -> Result<Option<i64>> {
        use rusqlite::OptionalExtension;
        self.conn
            .prepare_cached("SELECT rowid FROM files WHERE path = ?1 AND deleted = 0")
            .and_then(|mut s| s.query_row([path], |r| r.get(0)).optional())
            .at(&self.path)
    }

    /// The pages near the page at `path` in the link graph, by rowid (the page itself left
    /// out).
    pub fn related_in_graph(&self, path: &str) -> Result<HashMap<i64, Neighbour>> {
        let mut near: HashMap<i64, Neighbour> = HashMap::new();
        let mut add = |sql: &str, each: &mut dyn FnMut(&mut Neighbour, f64, String)| {
            let mut stmt = self.conn.prepare_cached(sql).at(&self.path)?;
            let mut rows = stmt
                .query(rusqlite::params![path, TOO_COMMON])
                .at(&self.path)?;
            while let Some(r) = rows.next().at(&self.path)? {
                let id: i64 = r.get(0).at(&self.path)?;
                let pages: i64 = r.get(1).at(&self.path)?;
                let what: String = r.get(2).at(&self.path)?;
                each(near.entry(id).or_default(), rarity(pages), what);
            }
            Ok::<(), super::ManifestError>(())
        };
        // Pages linking to what the page links to: each shared target once, weighted by how
        // many pages link to it (counted to TOO_COMMON and one more, where counting stops:
        // a target beyond is not followed, however many more link to it; so for a tag).
        add(
            "WITH targets AS (
                 SELECT DISTINCT l.resolved AS t FROM links l
                 WHERE l.source = ?1 AND l.status = 'resolved' AND l.resolved <> ?1),
             sized AS (
                 SELECT t, (SELECT count(*) FROM (SELECT DISTINCT source FROM links
                                                    WHERE resolved = t LIMIT ?2 + 1)) AS n
                 FROM targets)
             SELECT DISTINCT f.rowid, s.n, s.t FROM sized s
             JOIN links o ON o.resolved = s.t
             JOIN files f ON f.path = o.source AND f.deleted = 0
             WHERE s.n <= ?2 AND o.source <> ?1",
            &mut |n, w, _| {
                n.shared_links += 1;
                n.weight += w;
            },
        )?;
        // Pages linked from the pages that link to it: the first CITING of them, so that a hub
        // linked from a fifth of the vault costs what a page linked from a few hundred does.
        add(
            &format!(
                "WITH citing AS (
                 SELECT DISTINCT l.source AS s FROM links l
                 WHERE l.resolved = ?1 AND l.source <> ?1 LIMIT {CITING}),
             sized AS (
                 SELECT s, (SELECT count(*) FROM links WHERE source = s) AS n
                 FROM citing)
             SELECT DISTINCT f.rowid, c.n, c.s FROM sized c
             JOIN links o ON o.source = c.s AND o.status = 'resolved'
             JOIN files f ON f.path = o.resolved AND f.deleted = 0
             WHERE c.n <= ?2 AND o.resolved <> ?1"
            ),
            &mut |n, w, _| {
                n.co_cited += 1;
                n.weight += w;
            },
        )?;
        // Links between the two, either way: what the page links to, and the pages that link
        // to it unless more than TOO_COMMON do (a hub's backlinks tell nothing of any one).
        let backlinks: i64 = self
            .conn
            .prepare_cached(
                "SELECT count(*) FROM (SELECT 1 FROM links WHERE resolved = ?1 LIMIT ?2 + 1)",
            )
            .and_then(|mut s| s.query_row(rusqlite::params![path, TOO_COMMON], |r| r.get(0)))
            .at(&self.path)?;
        let to = "SELECT DISTINCT f.rowid, 0, 'to' FROM links l
             JOIN files f ON f.path = l.resolved AND f.deleted = 0
             WHERE l.source = ?1 AND l.status = 'resolved' AND l.resolved <> ?1 AND ?2 > 0";
        let from = "SELECT DISTINCT f.rowid, 0, 'from' FROM links l
             JOIN files f ON f.path = l.source AND f.deleted = 0
             WHERE l.resolved = ?1 AND l.source <> ?1 AND ?2 > 0";
        let both = format!("{to} UNION {from}");
        add(
            if backlinks > TOO_COMMON { to } else { &both },
            &mut |n, _, way| {
                let first = !n.links_here && !n.linked;
                match way.as_str() {
                    "from" => n.links_here = true,
                    _ => n.linked = true,
                }
                if first {
                    n.weight += 1.0;
                }
            },
        )?;
        // Pages sharing a tag.
        add(
            "WITH mine AS (SELECT tag_key FROM tags WHERE path = ?1),
             sized AS (
                 SELECT m.tag_key, (SELECT count(*) FROM (SELECT 1 FROM tags t
                                     WHERE t.tag_key = m.tag_key LIMIT ?2 + 1)) AS n
                 FROM mine m)
             SELECT f.rowid, s.n, t.tag FROM sized s
             JOIN tags t ON t.tag_key = s.tag_key
             JOIN files f ON f.path = t.path AND f.deleted = 0
             WHERE s.n <= ?2 AND t.path <> ?1",
            &mut |n, w, tag| {
                n.tags.push(tag);
                n.weight += w;
            },
        )?;
        Ok(near)
    }

    /// The vectors of the sections of the page whose file has this rowid, in order.
    pub fn page_vectors(&self, rowid: i64) -> Result<Vec<Vector>> {
        let first = rowid * MEANING_SECTIONS as i64;
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id, vec FROM meanings WHERE id BETWEEN ?1 AND ?2 ORDER BY id")
            .at(&self.path)?;
        let mut rows = stmt
            .query([first, first + MEANING_SECTIONS as i64 - 1])
            .at(&self.path)?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().at(&self.path)? {
            let id: i64 = r.get(0).at(&self.path)?;
            debug_assert_eq!(section_of(id).0, rowid);
            if let Ok(Ok(v)) = r
                .get_ref(1)
                .at(&self.path)?
                .as_blob()
                .map(Vector::from_bytes)
            {
                out.push(v);
            }
        }
        Ok(out)
    }

    /// How many wiki pages match the FTS5 expression, counted up to `cap` and no further (a
    /// word in most pages costs no more to count than a rarer one).
    pub fn pages_matching_upto(&self, expr: &str, cap: usize) -> Result<usize> {
        self.conn
            .prepare_cached(
                "SELECT count(*) FROM (SELECT 1 FROM search_wiki WHERE search_wiki MATCH ?1
                 LIMIT ?2)",
            )
            .and_then(|mut s| {
                s.query_row(rusqlite::params![expr, cap as i64], |r| r.get::<_, i64>(0))
            })
            .map(|n| n as usize)
            .at(&self.path)
    }
}
