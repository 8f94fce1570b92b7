//! Read-only queries for `sparks view`: the viewer's own way of opening the manifest (it never
//! writes), pages by type, recently updated, tags, backlinks, the stored resolution of a
//! page's links, and the title/alias search that full-text search will later replace.

use super::{At, Counted, LinkStatus, Manifest, Result, links::Resolution};
use crate::key;
use rusqlite::{OptionalExtension, Row, ToSql};
use std::collections::HashMap;

/// A live page as the viewer lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewPage {
    /// Vault-relative path.
    pub path: String,
    /// `title:`, when not blank.
    pub title: Option<String>,
    /// `type:`, when not blank.
    pub kind: Option<String>,
    /// `maturity:`
    pub maturity: Option<String>,
    /// `updated:`
    pub updated: Option<String>,
}

/// A tag and how many pages carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagCount {
    /// The tag's key: lower-case, without `#`.
    pub tag: String,
    /// Pages carrying it.
    pub count: usize,
}

/// A page that links to another, or cites it as a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backlink {
    /// The linking page.
    pub source: String,
    /// Its title, when it has one.
    pub title: Option<String>,
    /// How many of its links lead here.
    pub links: usize,
}

/// A page whose title, alias or file name contains every search term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameHit {
    /// Vault-relative path.
    pub path: String,
    /// Its title, when it has one.
    pub title: Option<String>,
    /// `type:`
    pub kind: Option<String>,
    /// `title`, `alias` or `file name`.
    pub via: &'static str,
    /// The name that matched, as written.
    pub name: String,
    /// Its key, for ranking.
    pub name_key: String,
}

/// The condition that the file of `table`'s row (its `path`) is not marked deleted, asked of
/// the index of the files that are (few) rather than of each row's file.
pub(super) fn live(table: &str) -> String {
    format!(
        "NOT EXISTS (SELECT 1 FROM files f INDEXED BY files_deleted
                     WHERE f.path = {table}.path AND f.deleted = 1)"
    )
}

const PAGE_COLUMNS: &str =
    "p.path, nullif(trim(p.title), ''), nullif(trim(p.type), ''), p.maturity, p.updated";

fn view_page(r: &Row<'_>) -> rusqlite::Result<ViewPage> {
    Ok(ViewPage {
        path: r.get(0)?,
        title: r.get(1)?,
        kind: r.get(2)?,
        maturity: r.get(3)?,
        updated: r.get(4)?,
    })
}

impl Manifest {
    /// Every live page, with or without frontmatter, by path.
    pub fn view_pages(&self) -> Result<Vec<ViewPage>> {
        self.view_rows(
            &format!(
                "SELECT {PAGE_COLUMNS} FROM pages p WHERE {} ORDER BY p.path",
                live("p")
            ),
            &[],
            view_page,
        )
    }

    /// Up to `limit` pages with an `updated:` date, newest first.
    pub fn recent_pages(&self, limit: usize) -> Result<Vec<ViewPage>> {
        self.view_rows(
            &format!(
                "SELECT {PAGE_COLUMNS} FROM pages p INDEXED BY pages_recent
                 WHERE {} AND date(p.updated) = p.updated
                 ORDER BY p.updated DESC, p.title_key, p.path LIMIT ?1",
                live("p")
            ),
            &[&(limit as i64)],
            view_page,
        )
    }

    /// Every tag with its page count, most used first.
    pub fn tag_counts(&self) -> Result<Vec<TagCount>> {
        self.view_rows(
            &format!(
                "SELECT t.tag_key, count(*) FROM tags t
                 WHERE {} AND t.tag_key <> ''
                 GROUP BY t.tag_key ORDER BY count(*) DESC, t.tag_key",
                live("t")
            ),
            &[],
            |r| {
                Ok(TagCount {
                    tag: r.get(0)?,
                    count: r.get::<_, i64>(1)? as usize,
                })
            },
        )
    }

    /// The pages carrying `tag` (compared as a key, a leading `#` ignored), by path.
    pub fn pages_tagged(&self, tag: &str) -> Result<Vec<ViewPage>> {
        let k = key::key(tag.trim().trim_start_matches('#'));
        self.view_rows(
            &format!(
                "SELECT {PAGE_COLUMNS} FROM pages p JOIN tags t ON t.path = p.path
                 WHERE {} AND t.tag_key = ?1 ORDER BY p.path",
                live("p")
            ),
            &[&k],
            view_page,
        )
    }

    /// The pages whose links resolve to `path`, by path: at most `limit` of them, and how many
    /// there are. The index and its shards link to every page, so they do not count (as for
    /// orphans). The list stops at the limit: a hub page's tens of thousands of backlinks cost
    /// a count, not a list, and the count is kept in `counted` (the caller's, beside this
    /// connection) until the manifest changes.
    pub fn backlinks(
        &self,
        path: &str,
        limit: usize,
        counted: &Counted,
    ) -> Result<(Vec<Backlink>, usize)> {
        const LINKING: &str = "l.resolved = ?1 AND l.source <> ?1
               AND l.source <> 'wiki/index.md' AND substr(l.source, 1, 11) <> 'wiki/index/'";
        let limit = limit as i64;
        let list = self.view_rows(
            &format!(
                "SELECT l.source, nullif(trim(p.title), ''), count(*) FROM links l
                 LEFT JOIN pages p ON p.path = l.source
                 WHERE {LINKING}
                 GROUP BY l.source ORDER BY l.source LIMIT ?2"
            ),
            &[&path, &limit],
            backlink,
        )?;
        if (list.len() as i64) < limit {
            let n = list.len();
            return Ok((list, n));
        }
        let state = self.read_state()?;
        if let Some(n) = counted.backlink_totals.borrow_mut().get(state, path) {
            return Ok((list, n));
        }
        // Counted here rather than by SQLite: the index gives each linking page's rows
        // together, so a page is a change of source; `count(DISTINCT)` with the conditions
        // above took twice as long on a hub's 24,000 backlinks.
        let mut stmt = self
            .conn
            .prepare_cached("SELECT source FROM links WHERE resolved = ?1 ORDER BY source")
            .at(&self.path)?;
        let mut rows = stmt.query([path]).at(&self.path)?;
        let (mut total, mut last) = (0, Vec::<u8>::new());
        while let Some(r) = rows.next().at(&self.path)? {
            let source = r.get_ref(0).at(&self.path)?.as_bytes().unwrap_or_default();
            if source == last.as_slice() {
                continue;
            }
            last.clear();
            last.extend_from_slice(source);
            let counts = source != path.as_bytes()
                && source != b"wiki/index.md"
                && !source.starts_with(b"wiki/index/");
            total += usize::from(counts);
        }
        counted.backlink_totals.borrow_mut().keep(path, total);
        Ok((list, total))
    }

    /// The pages that list `path` among their `sources:`, by path.
    pub fn citing_pages(&self, path: &str) -> Result<Vec<Backlink>> {
        self.view_rows(
            "SELECT s.path, nullif(trim(p.title), ''), count(*) FROM page_sources s
             JOIN pages p ON p.path = s.path
             WHERE s.source = ?1
             GROUP BY s.path ORDER BY s.path",
            &[&path],
            backlink,
        )
    }

    /// The pages the links of `sources` resolve to, by path, each once (a source's links to
    /// itself left out): the pages whose backlinks a change of `sources` may have added to.
    pub fn link_targets(&self, sources: &[String]) -> Result<Vec<String>> {
        let mut targets = std::collections::BTreeSet::new();
        for source in sources {
            let rows = self.view_rows(
                "SELECT DISTINCT resolved FROM links
                 WHERE source = ?1 AND resolved IS NOT NULL AND resolved <> ?1",
                &[source],
                |r| r.get::<_, String>(0),
            )?;
            targets.extend(rows);
        }
        Ok(targets.into_iter().collect())
    }

    /// How the last scan resolved the links of `source`, by link key of the target. Links
    /// to the page's own headings and links not yet resolved are left out.
    pub fn link_resolutions(&self, source: &str) -> Result<HashMap<String, Resolution>> {
        let rows = self.view_rows(
            "SELECT target_key, status, resolved, candidates FROM links
             WHERE source = ?1 AND target <> '' AND status <> 'pending'",
            &[&source],
            |r| {
                let resolution = match (r.get(1)?, r.get::<_, Option<String>>(2)?) {
                    (LinkStatus::Resolved, Some(p)) => Resolution::Resolved(p),
                    (LinkStatus::Ambiguous, _) => {
                        Resolution::Ambiguous(r.get::<_, i64>(3)? as usize)
                    }
                    _ => Resolution::Broken,
                };
                Ok((r.get::<_, String>(0)?, resolution))
            },
        )?;
        Ok(rows.into_iter().collect())
    }

    /// Whether the page at `path` has a heading whose [`crate::key::heading_key`] is
    /// `heading_key`.
    pub fn has_heading(&self, path: &str, heading_key: &str) -> Result<bool> {
        self.exists(
            "SELECT 1 FROM headings WHERE path = ?1 AND key = ?2",
            path,
            heading_key,
        )
    }

    /// Whether the page at `path` has the block id `block`.
    pub fn has_block(&self, path: &str, block: &str) -> Result<bool> {
        self.exists(
            "SELECT 1 FROM blocks WHERE path = ?1 AND block_id = ?2",
            path,
            block,
        )
    }

    /// The content hash the last scan recorded for a live file.
    pub fn file_hash(&self, path: &str) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT hash FROM files WHERE path = ?1 AND deleted = 0",
                [path],
                |r| r.get(0),
            )
            .optional()
            .at(&self.path)
    }

    /// Live pages whose title, an alias, or (for a page without a title) file name contains
    /// every one of `terms` (compared as keys), at most `limit` rows.
    pub fn search_names(&self, terms: &[String], limit: usize) -> Result<Vec<NameHit>> {
        let keys: Vec<String> = terms
            .iter()
            .map(|t| key::key(t))
            .filter(|k| !k.is_empty())
            .collect();
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let all = |col: &str| {
            (1..=keys.len())
                .map(|i| format!("instr({col}, ?{i}) > 0"))
                .collect::<Vec<_>>()
                .join(" AND ")
        };
        // The file name of a page is the last path component without `.md`.
        let sql = format!(
            "SELECT p.path, nullif(trim(p.title), ''), nullif(trim(p.type), ''), 'title', p.title, p.title_key
               FROM pages p
              WHERE {live} AND p.title_key IS NOT NULL AND {title}
             UNION ALL
             SELECT p.path, nullif(trim(p.title), ''), nullif(trim(p.type), ''), 'alias', a.alias, a.alias_key
               FROM aliases a JOIN pages p ON p.path = a.path
              WHERE {live} AND {alias}
             UNION ALL
             SELECT p.path, NULL, nullif(trim(p.type), ''), 'file name', f.name_key, f.name_key
               FROM pages p JOIN files f ON f.path = p.path
              WHERE f.deleted = 0 AND p.title_key IS NULL AND {name}
             LIMIT {limit}",
            title = all("p.title_key"),
            alias = all("a.alias_key"),
            name = all("f.name_key"),
            live = live("p"),
        );
        let args: Vec<&dyn ToSql> = keys.iter().map(|k| k as &dyn ToSql).collect();
        self.view_rows(&sql, &args, |r| {
            let via = match r.get::<_, String>(3)?.as_str() {
                "title" => "title",
                "alias" => "alias",
                _ => "file name",
            };
            Ok(NameHit {
                path: r.get(0)?,
                title: r.get(1)?,
                kind: r.get(2)?,
                via,
                name: r.get(4)?,
                name_key: r.get(5)?,
            })
        })
    }

    fn exists(&self, sql: &str, a: &str, b: &str) -> Result<bool> {
        self.conn
            .query_row(sql, [a, b], |_| Ok(()))
            .optional()
            .map(|found| found.is_some())
            .at(&self.path)
    }

    pub(super) fn view_rows<T>(
        &self,
        sql: &str,
        args: &[&dyn ToSql],
        map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let mut stmt = self.conn.prepare_cached(sql).at(&self.path)?;
        let rows = stmt.query_map(args, map).at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }
}

fn backlink(r: &Row<'_>) -> rusqlite::Result<Backlink> {
    Ok(Backlink {
        source: r.get(0)?,
        title: r.get(1)?,
        links: r.get::<_, i64>(2)? as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::Hint;

    #[test]
    fn read_only_open_refuses_a_missing_file_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sparks.db");
        assert!(Manifest::open_read_only(&p).is_err());
        assert!(
            !p.exists(),
            "opening read-only must not create the manifest"
        );
        drop(Manifest::open(&p).unwrap());
        let m = Manifest::open_read_only(&p).unwrap();
        assert!(m.view_pages().unwrap().is_empty());
        assert!(m.tag_counts().unwrap().is_empty());
        assert!(m.recent_pages(10).unwrap().is_empty());
        let counted = Counted::default();
        assert!(m.backlinks("wiki/a.md", 10, &counted).unwrap().0.is_empty());
        assert!(m.citing_pages("raw/a.md").unwrap().is_empty());
        assert!(m.link_resolutions("wiki/a.md").unwrap().is_empty());
        assert!(!m.has_heading("wiki/a.md", "x").unwrap());
        assert!(
            m.search_names(&["a".into(), "b".into()], 10)
                .unwrap()
                .is_empty()
        );
        assert!(m.search_names(&[" ".into()], 10).unwrap().is_empty());
    }

    #[test]
    fn listings_leave_out_the_pages_of_deleted_files() {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        m.conn
            .execute_batch(
                "INSERT INTO files (path, name_key, name_loose, path_key, size, mtime_ns,
                                    ctime_ns, inode, hash, clock_ns, changed_ns, deleted) VALUES
                    ('wiki/a.md', 'a', 'a', 'wiki/a', 1, 0, 0, 1, 'h', 0, 0, 0),
                    ('wiki/b.md', 'b', 'b', 'wiki/b', 1, 0, 0, 2, 'h', 0, 0, 1),
                    ('wiki/c.md', 'c', 'c', 'wiki/c', 1, 0, 0, 3, 'h', 0, 0, 0);
                 INSERT INTO pages (path, frontmatter, title, title_key, updated) VALUES
                    ('wiki/a.md', 'ok', 'Alpha', 'alpha', '2026-01-02'),
                    ('wiki/b.md', 'ok', 'Beta', 'beta', '2026-01-03'),
                    ('wiki/c.md', 'ok', 'Gamma', 'gamma', 'soon');
                 INSERT INTO aliases (path, seq, alias, alias_key, alias_loose) VALUES
                    ('wiki/b.md', 0, 'Alphabet', 'alphabet', 'alphabet');
                 INSERT INTO tags (path, tag, tag_key) VALUES
                    ('wiki/a.md', 'x', 'x'), ('wiki/b.md', 'x', 'x'), ('wiki/b.md', 'y', 'y');",
            )
            .unwrap();
        let paths = |pages: Vec<ViewPage>| pages.into_iter().map(|p| p.path).collect::<Vec<_>>();
        assert_eq!(paths(m.view_pages().unwrap()), ["wiki/a.md", "wiki/c.md"]);
        assert_eq!(
            paths(m.recent_pages(10).unwrap()),
            ["wiki/a.md"],
            "a deleted file's page and a page without a date are not recent"
        );
        assert_eq!(
            m.tag_counts().unwrap(),
            [TagCount {
                tag: "x".into(),
                count: 1
            }]
        );
        assert_eq!(paths(m.pages_tagged("#X").unwrap()), ["wiki/a.md"]);
        let names: Vec<String> = m
            .search_names(&["alph".into()], 10)
            .unwrap()
            .into_iter()
            .map(|h| h.name)
            .collect();
        assert_eq!(names, ["Alpha"], "nor is a deleted file's alias");
        // Undeleted, the file's page is listed again.
        m.conn
            .execute("UPDATE files SET deleted = 0 WHERE path = 'wiki/b.md'", [])
            .unwrap();
        assert_eq!(
            paths(m.recent_pages(1).unwrap()),
            ["wiki/b.md"],
            "newest first"
        );
        assert_eq!(m.tag_counts().unwrap().len(), 2);
    }

    #[test]
    fn backlinks_stop_at_the_limit_and_citations_follow_the_pages() {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        m.conn
            .execute_batch(
                "PRAGMA foreign_keys = OFF;
                 INSERT INTO pages (path, frontmatter, title, sources) VALUES
                    ('wiki/a.md', 'ok', 'A', '[\"./raw/x.md\", \"raw/x.md\"]'),
                    ('wiki/b.md', 'ok', 'B', '[\"raw/y.md\"]'),
                    ('wiki/c.md', 'ok', 'C', 'not json');
                 INSERT INTO links (source, seq, line, target, target_key, name_key, embed,
                                    status, resolved) VALUES
                    ('wiki/a.md', 1, 1, 'H', 'h', 'h', 0, 'resolved', 'wiki/h.md'),
                    ('wiki/a.md', 2, 2, 'H', 'h', 'h', 0, 'resolved', 'wiki/h.md'),
                    ('wiki/b.md', 1, 1, 'H', 'h', 'h', 0, 'resolved', 'wiki/h.md'),
                    ('wiki/c.md', 1, 1, 'H', 'h', 'h', 0, 'resolved', 'wiki/h.md'),
                    ('wiki/index.md', 1, 1, 'H', 'h', 'h', 0, 'resolved', 'wiki/h.md'),
                    ('wiki/index/h.md', 1, 1, 'H', 'h', 'h', 0, 'resolved', 'wiki/h.md'),
                    ('wiki/h.md', 1, 1, 'H', 'h', 'h', 0, 'resolved', 'wiki/h.md'),
                    ('wiki/indexing.md', 1, 1, 'H', 'h', 'h', 0, 'resolved', 'wiki/h.md');",
            )
            .unwrap();
        let counted = Counted::default();
        let (all, n) = m.backlinks("wiki/h.md", 10, &counted).unwrap();
        assert_eq!(
            (all.len(), n),
            (4, 4),
            "the index, its shards and the page itself do not count"
        );
        assert_eq!(all[0].links, 2);
        let (some, n) = m.backlinks("wiki/h.md", 2, &counted).unwrap();
        assert_eq!((some.len(), n), (2, 4), "counted past the limit alike");
        assert_eq!(
            counted.backlink_totals.borrow().kept("wiki/h.md"),
            Some(&4),
            "the count past the limit is kept beside the connection"
        );
        let other = rusqlite::Connection::open(dir.path().join("sparks.db")).unwrap();
        other
            .execute_batch(
                "PRAGMA foreign_keys = OFF;
                 INSERT INTO links (source, seq, line, target, target_key, name_key, embed,
                                    status, resolved)
                 VALUES ('wiki/d.md', 1, 1, 'H', 'h', 'h', 0, 'resolved', 'wiki/h.md');",
            )
            .unwrap();
        assert_eq!(
            m.backlinks("wiki/h.md", 2, &counted).unwrap().1,
            5,
            "another connection's commit is counted"
        );
        m.conn
            .execute("DELETE FROM links WHERE source = 'wiki/b.md'", [])
            .unwrap();
        assert_eq!(
            m.backlinks("wiki/h.md", 2, &counted).unwrap().1,
            4,
            "the connection's own write is counted"
        );
        let cited = m.citing_pages("raw/x.md").unwrap();
        assert_eq!(cited.len(), 1);
        assert_eq!((cited[0].source.as_str(), cited[0].links), ("wiki/a.md", 2));
        m.conn
            .execute_batch(
                "UPDATE pages SET sources = '[\"raw/x.md\"]' WHERE path = 'wiki/b.md';
                 DELETE FROM pages WHERE path = 'wiki/a.md';",
            )
            .unwrap();
        let cited: Vec<String> = m
            .citing_pages("raw/x.md")
            .unwrap()
            .into_iter()
            .map(|b| b.source)
            .collect();
        assert_eq!(cited, ["wiki/b.md"]);
        assert!(m.citing_pages("raw/y.md").unwrap().is_empty());
    }

    #[test]
    fn an_older_schema_is_not_migrated_by_a_reader() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sparks.db");
        rusqlite::Connection::open(&p)
            .unwrap()
            .execute_batch("CREATE TABLE x (y)")
            .unwrap();
        let err = Manifest::open_read_only(&p).unwrap_err();
        assert!(err.to_string().contains("older than"), "{err}");
        let hint = err.hint().unwrap();
        assert_eq!(
            hint.parts()[0],
            crate::failure::Part::Do(crate::failure::Action::Scan)
        );
    }
}
