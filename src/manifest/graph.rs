//! Read-only queries for the viewer's graph of links: the live pages (the index and its shards
//! left out, as backlinks leave them out: they link to every page), the links between them as
//! the last scan resolved them (one edge per linking page and target, a page's links to itself
//! left out), the most linked of them (ranked here, before any link between them is read, and
//! kept in the caller's [`Counted`] until the manifest changes), and a page's neighbours. Drawing is the
//! viewer's business.

use super::view::live;
use super::{At, Counted, Manifest, Result};
use rusqlite::Row;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

/// A page as the graph shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphPage {
    /// Vault-relative path.
    pub path: String,
    /// `title:`, when not blank.
    pub title: Option<String>,
    /// `type:`, when not blank.
    pub kind: Option<String>,
}

/// The most linked pages, each with how many pages link to it, and how many pages there were.
pub type MostLinked = (Vec<(GraphPage, usize)>, usize);

/// The last ranking a connection counted, and the manifest's state it was counted in (kept in
/// a [`super::Counted`]).
#[derive(Debug)]
pub(super) struct Ranked {
    state: (i64, u64),
    filter: GraphFilter,
    limit: usize,
    most: MostLinked,
}

/// Which pages a graph shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GraphFilter {
    /// Only pages carrying this tag (a key: lower-case, no `#`).
    pub tag: Option<String>,
    /// Only pages of this type.
    pub kind: Option<String>,
}

/// The condition that a path (an SQL expression) is not the index or one of its shards.
fn not_index(path: &str) -> String {
    format!("{path} <> 'wiki/index.md' AND substr({path}, 1, 11) <> 'wiki/index/'")
}

const COLUMNS: &str = "p.path, nullif(trim(p.title), ''), nullif(trim(p.type), '')";

fn graph_page(r: &Row<'_>) -> rusqlite::Result<GraphPage> {
    Ok(GraphPage {
        path: r.get(0)?,
        title: r.get(1)?,
        kind: r.get(2)?,
    })
}

impl Manifest {
    /// The `limit` pages `filter` keeps that the most of its pages link to, most linked first
    /// and then by path (pages nothing links to fill the rest, by path), each with how many of
    /// those pages link to it; and how many pages `filter` keeps. Counting reads every link,
    /// so the answer is kept in `counted` (the caller's, beside this connection) until the
    /// manifest changes: a viewer's kept connection draws `/graph` again at the cost of the
    /// pages it draws.
    pub fn graph_most_linked(
        &self,
        filter: &GraphFilter,
        limit: usize,
        counted: &Counted,
    ) -> Result<MostLinked> {
        let state = self.read_state()?;
        if let Some(r) = counted.graph_ranked.borrow().as_deref()
            && r.state == state
            && r.filter == *filter
            && r.limit == limit
        {
            return Ok(r.most.clone());
        }
        let most = self.rank_most_linked(filter, limit)?;
        *counted.graph_ranked.borrow_mut() = Some(Box::new(Ranked {
            state,
            filter: filter.clone(),
            limit,
            most: most.clone(),
        }));
        Ok(most)
    }

    /// [`Manifest::graph_most_linked`], counted afresh. Links are read from the index of
    /// targets alone, in its order (a target's linking pages come together, each page's rows
    /// side by side), so no row of them is held in memory and only the `limit` best keep
    /// their path.
    fn rank_most_linked(&self, filter: &GraphFilter, limit: usize) -> Result<MostLinked> {
        let tag = filter.tag.clone().unwrap_or_default();
        let kind = filter.kind.clone().unwrap_or_default();
        let shown: Vec<String> = self.view_rows(
            &format!(
                "SELECT p.path FROM pages p WHERE {} AND {}
                 AND (?1 = '' OR EXISTS (SELECT 1 FROM tags t WHERE t.path = p.path AND t.tag_key = ?1))
                 AND (?2 = '' OR lower(trim(p.type)) = ?2)
                 ORDER BY p.path",
                live("p"),
                not_index("p.path")
            ),
            &[&tag, &kind],
            |r| r.get(0),
        )?;
        let is_shown: HashSet<&[u8], foldhash::fast::RandomState> =
            shown.iter().map(|p| p.as_bytes()).collect();
        // The best `limit` so far, the least of them on top: fewer links, then a later path.
        let mut best: BinaryHeap<Reverse<(usize, Reverse<String>)>> = BinaryHeap::new();
        let mut offer = |target: &[u8], n: usize| {
            if n == 0 || limit == 0 {
                return;
            }
            // Targets come by path, so one with as many links as the least kept comes after it.
            if best.len() == limit && best.peek().is_some_and(|Reverse((least, _))| n <= *least) {
                return;
            }
            if best.len() == limit {
                best.pop();
            }
            let path = String::from_utf8_lossy(target).into_owned();
            best.push(Reverse((n, Reverse(path))));
        };
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT resolved, source FROM links INDEXED BY links_resolved_source
                 WHERE resolved IS NOT NULL ORDER BY resolved, source",
            )
            .at(&self.path)?;
        let mut rows = stmt.query([]).at(&self.path)?;
        let (mut target, mut source) = (Vec::<u8>::new(), Vec::<u8>::new());
        let (mut counts, mut n) = (false, 0);
        while let Some(r) = rows.next().at(&self.path)? {
            let t = r.get_ref(0).at(&self.path)?.as_bytes().unwrap_or_default();
            let s = r.get_ref(1).at(&self.path)?.as_bytes().unwrap_or_default();
            if t != target.as_slice() {
                offer(&target, n);
                target.clear();
                target.extend_from_slice(t);
                counts = is_shown.contains(t);
                n = 0;
                source.clear();
            } else if s == source.as_slice() {
                continue;
            }
            if counts {
                source.clear();
                source.extend_from_slice(s);
                n += usize::from(s != t && is_shown.contains(s));
            }
        }
        offer(&target, n);
        drop(rows);
        let mut ranked: Vec<(String, usize)> = best
            .into_iter()
            .map(|Reverse((n, Reverse(path)))| (path, n))
            .collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        if ranked.len() < limit {
            let linked: HashSet<&str> = ranked.iter().map(|(p, _)| p.as_str()).collect();
            let unlinked: Vec<String> = shown
                .iter()
                .filter(|p| !linked.contains(p.as_str()))
                .take(limit - ranked.len())
                .cloned()
                .collect();
            ranked.extend(unlinked.into_iter().map(|p| (p, 0)));
        }
        let paths: Vec<String> = ranked.iter().map(|(p, _)| p.clone()).collect();
        let mut pages: HashMap<String, GraphPage> = self
            .graph_pages_of(&paths)?
            .into_iter()
            .map(|p| (p.path.clone(), p))
            .collect();
        let most = ranked
            .into_iter()
            .filter_map(|(p, n)| Some((pages.remove(&p)?, n)))
            .collect();
        Ok((most, shown.len()))
    }

    /// The live pages among `paths`, by path.
    pub fn graph_pages_of(&self, paths: &[String]) -> Result<Vec<GraphPage>> {
        let list = serde_json::to_string(paths).unwrap_or_else(|_| "[]".into());
        self.view_rows(
            &format!(
                "SELECT {COLUMNS} FROM pages p
                 WHERE p.path IN (SELECT value FROM json_each(?1)) AND {} ORDER BY p.path",
                live("p")
            ),
            &[&list],
            graph_page,
        )
    }

    /// The links among `paths` as (linking page, target), each pair once. Read from the links
    /// of each page of `paths` (the `+` keeps SQLite from probing the index of targets for
    /// every pair of them: 90,000 probes for the 300 pages of `/graph`).
    pub fn graph_links_among(&self, paths: &[String]) -> Result<Vec<(String, String)>> {
        let list = serde_json::to_string(paths).unwrap_or_else(|_| "[]".into());
        self.view_rows(
            "SELECT DISTINCT source, resolved FROM links
             WHERE source IN (SELECT value FROM json_each(?1))
               AND +resolved IN (SELECT value FROM json_each(?1)) AND resolved <> source
             ORDER BY source, resolved",
            &[&list],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }

    /// The pages `path` links to, and up to `limit` of the pages linking to it (the index
    /// excluded), each by path. A hub's thousands of linking pages cost `limit` rows.
    pub fn graph_neighbours(&self, path: &str, limit: usize) -> Result<(Vec<String>, Vec<String>)> {
        let out = self.view_rows(
            &format!(
                "SELECT DISTINCT l.resolved FROM links l JOIN pages p ON p.path = l.resolved
                 WHERE l.source = ?1 AND l.resolved <> ?1 AND {} AND {}
                 ORDER BY l.resolved LIMIT ?2",
                live("p"),
                not_index("l.resolved")
            ),
            &[&path, &(limit as i64)],
            |r| r.get(0),
        )?;
        let into = self.view_rows(
            &format!(
                "SELECT DISTINCT l.source FROM links l INDEXED BY links_resolved_source
                 JOIN pages p ON p.path = l.source
                 WHERE l.resolved = ?1 AND l.source <> ?1 AND {} AND {}
                 ORDER BY l.source LIMIT ?2",
                live("p"),
                not_index("l.source")
            ),
            &[&path, &(limit as i64)],
            |r| r.get(0),
        )?;
        Ok((out, into))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> (tempfile::TempDir, Manifest) {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        m.conn
            .execute_batch(
                "PRAGMA foreign_keys = OFF;
                 INSERT INTO pages (path, frontmatter, title, type) VALUES
                    ('wiki/a.md', 'ok', 'A', 'concept'),
                    ('wiki/b.md', 'ok', ' ', 'Entity'),
                    ('wiki/c.md', 'ok', 'C', 'concept'),
                    ('wiki/index.md', 'ok', 'Index', NULL);
                 INSERT INTO tags (path, tag, tag_key) VALUES ('wiki/a.md', 'X', 'x');
                 INSERT INTO links (source, seq, line, target, target_key, name_key, embed,
                                    status, resolved) VALUES
                    ('wiki/a.md', 1, 1, 'B', 'b', 'b', 0, 'resolved', 'wiki/b.md'),
                    ('wiki/a.md', 2, 2, 'B', 'b', 'b', 0, 'resolved', 'wiki/b.md'),
                    ('wiki/a.md', 3, 3, 'A', 'a', 'a', 0, 'resolved', 'wiki/a.md'),
                    ('wiki/c.md', 1, 1, 'A', 'a', 'a', 0, 'resolved', 'wiki/a.md'),
                    ('wiki/c.md', 2, 2, 'Z', 'z', 'z', 0, 'broken', NULL),
                    ('wiki/index.md', 1, 1, 'A', 'a', 'a', 0, 'resolved', 'wiki/a.md'),
                    ('raw/x.md', 1, 1, 'A', 'a', 'a', 0, 'resolved', 'wiki/a.md');",
            )
            .unwrap();
        (dir, m)
    }

    fn ranked(m: &Manifest, filter: &GraphFilter, limit: usize) -> (Vec<(String, usize)>, usize) {
        let (most, total) = m
            .graph_most_linked(filter, limit, &Counted::default())
            .unwrap();
        let most = most.into_iter().map(|(p, n)| (p.path, n)).collect();
        (most, total)
    }

    fn pairs(items: &[(&str, usize)]) -> Vec<(String, usize)> {
        items.iter().map(|&(p, n)| (p.to_string(), n)).collect()
    }

    #[test]
    fn pages_filters_and_links() {
        let (_dir, m) = manifest();
        let (all, total) = m
            .graph_most_linked(&GraphFilter::default(), 10, &Counted::default())
            .unwrap();
        let paths: Vec<&str> = all.iter().map(|(p, _)| p.path.as_str()).collect();
        assert_eq!(paths, ["wiki/a.md", "wiki/b.md", "wiki/c.md"], "no index");
        assert_eq!(total, 3);
        assert_eq!(all[1].0.title, None, "a blank title is none");
        assert_eq!(
            ranked(&m, &GraphFilter::default(), 10).0,
            pairs(&[("wiki/a.md", 1), ("wiki/b.md", 1), ("wiki/c.md", 0)]),
            "a linking page once, neither itself, the index nor a raw file; ties by path"
        );
        let tagged = GraphFilter {
            tag: Some("x".into()),
            kind: None,
        };
        assert_eq!(
            ranked(&m, &tagged, 10),
            (pairs(&[("wiki/a.md", 0)]), 1),
            "only links from the pages shown count"
        );
        let typed = GraphFilter {
            tag: None,
            kind: Some("entity".into()),
        };
        assert_eq!(
            ranked(&m, &typed, 10),
            (pairs(&[("wiki/b.md", 0)]), 1),
            "types compare as lower case"
        );
        let among = m
            .graph_links_among(&["wiki/a.md".into(), "wiki/b.md".into(), "wiki/c.md".into()])
            .unwrap();
        assert_eq!(
            among,
            [
                ("wiki/a.md".to_string(), "wiki/b.md".to_string()),
                ("wiki/c.md".to_string(), "wiki/a.md".to_string())
            ]
        );
        let (out, into) = m.graph_neighbours("wiki/a.md", 10).unwrap();
        assert_eq!(out, ["wiki/b.md"]);
        assert_eq!(into, ["wiki/c.md"], "neither the index nor a raw file");
    }

    #[test]
    fn the_most_linked_are_the_first_and_counted_again_after_a_change() {
        let (_dir, m) = manifest();
        assert_eq!(
            ranked(&m, &GraphFilter::default(), 2),
            (pairs(&[("wiki/a.md", 1), ("wiki/b.md", 1)]), 3),
            "of two pages as linked, the first by path"
        );
        assert_eq!(
            ranked(&m, &GraphFilter::default(), 1).0,
            pairs(&[("wiki/a.md", 1)])
        );
        m.conn
            .execute_batch(
                "INSERT INTO links (source, seq, line, target, target_key, name_key, embed,
                                    status, resolved) VALUES
                    ('wiki/c.md', 3, 3, 'B', 'b', 'b', 0, 'resolved', 'wiki/b.md');",
            )
            .unwrap();
        assert_eq!(
            ranked(&m, &GraphFilter::default(), 1).0,
            pairs(&[("wiki/b.md", 2)]),
            "a ranking kept from before the change is not shown"
        );
    }
}
