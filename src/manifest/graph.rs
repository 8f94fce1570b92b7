//! Read-only queries for the viewer's graph of links: the live pages (the index and its shards
//! left out, as backlinks leave them out: they link to every page), the links between them as
//! the last scan resolved them (one edge per linking page and target, a page's links to itself
//! left out), and a page's neighbours. Drawing is the viewer's business.

use super::view::live;
use super::{Manifest, Result};
use rusqlite::Row;

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
    /// The live pages `filter` keeps, the index excluded, by path.
    pub fn graph_pages(&self, filter: &GraphFilter) -> Result<Vec<GraphPage>> {
        let tag = filter.tag.clone().unwrap_or_default();
        let kind = filter.kind.clone().unwrap_or_default();
        self.view_rows(
            &format!(
                "SELECT {COLUMNS} FROM pages p WHERE {} AND {}
                 AND (?1 = '' OR EXISTS (SELECT 1 FROM tags t WHERE t.path = p.path AND t.tag_key = ?1))
                 AND (?2 = '' OR lower(trim(p.type)) = ?2)
                 ORDER BY p.path",
                live("p"),
                not_index("p.path")
            ),
            &[&tag, &kind],
            graph_page,
        )
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

    /// Every resolved link as (linking file, target), each pair once, links to oneself left
    /// out. Read from the index of targets alone; the caller keeps the pairs whose ends are
    /// pages it shows.
    pub fn graph_links(&self) -> Result<Vec<(String, String)>> {
        self.view_rows(
            "SELECT DISTINCT source, resolved FROM links INDEXED BY links_resolved_source
             WHERE resolved IS NOT NULL AND resolved <> source",
            &[],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }

    /// The links among `paths` as (linking page, target), each pair once.
    pub fn graph_links_among(&self, paths: &[String]) -> Result<Vec<(String, String)>> {
        let list = serde_json::to_string(paths).unwrap_or_else(|_| "[]".into());
        self.view_rows(
            "SELECT DISTINCT source, resolved FROM links
             WHERE source IN (SELECT value FROM json_each(?1))
               AND resolved IN (SELECT value FROM json_each(?1)) AND resolved <> source
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

    #[test]
    fn pages_filters_and_links() {
        let (_dir, m) = manifest();
        let all = m.graph_pages(&GraphFilter::default()).unwrap();
        let paths: Vec<&str> = all.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["wiki/a.md", "wiki/b.md", "wiki/c.md"], "no index");
        assert_eq!(all[1].title, None, "a blank title is none");
        let tagged = m
            .graph_pages(&GraphFilter {
                tag: Some("x".into()),
                kind: None,
            })
            .unwrap();
        assert_eq!(tagged.len(), 1);
        let typed = m
            .graph_pages(&GraphFilter {
                tag: None,
                kind: Some("entity".into()),
            })
            .unwrap();
        assert_eq!(typed[0].path, "wiki/b.md", "types compare as lower case");
        let mut links = m.graph_links().unwrap();
        links.sort();
        assert_eq!(links.len(), 4, "pairs once, no self-links: {links:?}");
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
}
