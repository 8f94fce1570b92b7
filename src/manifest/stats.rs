//! Counts for `status`.

use super::{At, Manifest, Result};

/// Pages of one `type:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeCount {
    /// The type as written in frontmatter.
    pub kind: String,
    /// How many live pages have it.
    pub count: u64,
}

/// Manifest counts.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    /// Live files.
    pub tracked: u64,
    /// Live files whose content changed after the last completed ingest (all, without one).
    pub changed_since_ingest: u64,
    /// Files the latest scan did not find.
    pub deleted: u64,
    /// Live wiki pages by type, most common first; pages without a type are not counted.
    pub pages_by_type: Vec<TypeCount>,
    /// Live wiki Markdown files, with or without frontmatter.
    pub pages: u64,
}

/// The live files changed after `?1`, counted from `files_changed` alone: the index holds each
/// file's deletion mark beside its change time (schema 11), so no file row is read.
const CHANGED_SINCE: &str = "SELECT count(*) FROM files INDEXED BY files_changed
                             WHERE changed_ns > ?1 AND deleted = 0";

impl Manifest {
    /// Live wiki Markdown files: the tally [`Manifest::counts`] reads, without the others.
    pub fn page_count(&self) -> Result<usize> {
        use rusqlite::OptionalExtension;
        self.conn
            .prepare_cached("SELECT n FROM tallies WHERE key = 'pages'")
            .and_then(|mut s| s.query_row([], |r| r.get::<_, i64>(0)).optional())
            .map(|n| n.unwrap_or(0).max(0) as usize)
            .at(&self.path)
    }

    /// Count files and pages: from the tallies the schema keeps as files and pages change,
    /// and the files changed since the last ingest through `files_changed`, so that the cost
    /// is that of the changes, not of the vault.
    pub fn counts(&self, since_ns: Option<i64>) -> Result<Counts> {
        let mut stmt = self
            .conn
            .prepare("SELECT key, n FROM tallies")
            .at(&self.path)?;
        let tallies = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .at(&self.path)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .at(&self.path)?;
        let tally = |key: &str| {
            tallies
                .iter()
                .find(|(k, _)| k == key)
                .map_or(0, |(_, n)| (*n).max(0) as u64)
        };
        let tracked = tally("files");
        let changed_since_ingest = match since_ns {
            // Without an ingest, every live file counts.
            None => tracked,
            Some(since) => self
                .conn
                .query_row(CHANGED_SINCE, [since], |r| r.get::<_, i64>(0))
                .at(&self.path)? as u64,
        };
        let mut pages_by_type: Vec<TypeCount> = tallies
            .iter()
            .filter_map(|(k, n)| {
                let kind = k.strip_prefix("type:")?;
                (*n > 0).then(|| TypeCount {
                    kind: kind.to_string(),
                    count: *n as u64,
                })
            })
            .collect();
        pages_by_type.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.kind.cmp(&b.kind)));
        Ok(Counts {
            tracked,
            changed_since_ingest,
            deleted: tally("deleted"),
            pages: tally("pages"),
            pages_by_type,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tallies_follow_every_change_of_files_and_pages() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let m = Manifest::open(&dir.path().join("sparks.db")).expect("a new manifest");
        let file = |path: &str| {
            m.conn
                .execute(
                    "INSERT INTO files (path, name_key, name_loose, path_key, size, mtime_ns,
                                        ctime_ns, inode, hash, clock_ns, changed_ns)
                     VALUES (?1, 'k', 'k', 'k', 1, 1, 1, 1, 'h', 2, 10)",
                    [path],
                )
                .expect("a file row");
        };
        let page = |path: &str, kind: Option<&str>| {
            m.conn
                .execute(
                    "INSERT INTO pages (path, frontmatter, type) VALUES (?1, 'ok', ?2)",
                    rusqlite::params![path, kind],
                )
                .expect("a page row");
        };
        for p in ["wiki/a.md", "wiki/b.md", "wiki/c.md", "raw/x.txt"] {
            file(p);
        }
        page("wiki/a.md", Some("concept"));
        page("wiki/b.md", Some("concept"));
        page("wiki/c.md", None);
        let sql = |s: &str| m.conn.execute_batch(s).expect("a change");
        sql("UPDATE files SET deleted = 1 WHERE path = 'raw/x.txt';
             UPDATE pages SET type = 'entity' WHERE path = 'wiki/b.md';
             UPDATE pages SET type = '' WHERE path = 'wiki/c.md';");
        let c = m.counts(Some(5)).expect("counts");
        assert_eq!((c.tracked, c.deleted, c.pages), (3, 1, 3));
        assert_eq!(c.changed_since_ingest, 3, "changed at 10, after 5");
        assert_eq!(m.counts(Some(10)).expect("counts").changed_since_ingest, 0);
        let types: Vec<(&str, u64)> = c
            .pages_by_type
            .iter()
            .map(|t| (t.kind.as_str(), t.count))
            .collect();
        assert_eq!(types, [("concept", 1), ("entity", 1)]);
        sql("DELETE FROM pages WHERE path = 'wiki/a.md';
             UPDATE files SET deleted = 0 WHERE path = 'raw/x.txt';
             DELETE FROM files WHERE path = 'wiki/a.md';");
        let c = m.counts(None).expect("counts");
        assert_eq!((c.tracked, c.deleted, c.pages), (3, 0, 2));
        assert_eq!(
            c.changed_since_ingest, 3,
            "without an ingest, every live file"
        );
        assert_eq!(c.pages_by_type.len(), 1, "no type with nothing left");
    }

    #[test]
    fn files_changed_since_are_counted_from_the_index_alone() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let m = Manifest::open(&dir.path().join("sparks.db")).expect("a new manifest");
        let plan: Vec<String> = m
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {CHANGED_SINCE}"))
            .and_then(|mut s| {
                s.query_map([0], |r| r.get::<_, String>(3))?
                    .collect::<rusqlite::Result<_>>()
            })
            .expect("a plan");
        assert_eq!(
            plan,
            ["SEARCH files USING COVERING INDEX files_changed (changed_ns>?)"],
            "no file row read per changed file"
        );
    }
}
