//! What each ingest did to the wiki: the snapshot of its pages prepare records, the contents
//! git cannot give back, the pages finalize found created, changed or deleted, and the lint
//! issues before and after the batch.

use super::{At, Manifest, Result};
use rusqlite::{OptionalExtension, params};
use std::collections::HashSet;

/// What an ingest did to a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageAction {
    /// The page did not exist before the batch.
    Created,
    /// The page's content changed.
    Changed,
    /// The page existed before the batch and does not after.
    Deleted,
}

impl PageAction {
    /// The name stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            PageAction::Created => "created",
            PageAction::Changed => "changed",
            PageAction::Deleted => "deleted",
        }
    }

    fn parse(s: &str) -> Option<PageAction> {
        [
            PageAction::Created,
            PageAction::Changed,
            PageAction::Deleted,
        ]
        .into_iter()
        .find(|a| a.as_str() == s)
    }
}

/// A page an ingest touched, as finalize found it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PageChange {
    /// Vault-relative path.
    pub path: String,
    /// What happened to it.
    pub action: PageAction,
    /// Its hash before the batch (`None`: it did not exist).
    pub before_hash: Option<String>,
    /// Its hash after the batch (`None`: it was deleted).
    pub after_hash: Option<String>,
}

/// What prepare records of the wiki when it opens an ingest.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Every page, with its hash.
    pub pages: Vec<(String, String)>,
    /// HEAD when prepare ran, in a git repository.
    pub base_commit: Option<String>,
    /// The scan generation the pages were read at ([`Manifest::generation`], read before
    /// them): finalize compares only the files stored or deleted after it.
    pub generation: i64,
    /// The lint issues of the gate's checks, by page: each page that has any, with its issues
    /// (JSON).
    pub lint_before: Vec<(String, String)>,
}

/// Record the snapshot of the ingest `id` being opened in `tx`, in place of the one kept
/// (another ingest's), and let go of the contents this one does not need. Only the rows that
/// differ are written: between two prepares few pages change, and writing every page's row
/// again was a fifth of a prepare at 100,000 pages.
pub(super) fn write_snapshot(
    tx: &rusqlite::Transaction<'_>,
    path: &std::path::Path,
    id: i64,
    s: &Snapshot,
) -> Result<()> {
    sync_rows(tx, path, "wiki_snapshot", "hash", &s.pages)?;
    sync_rows(tx, path, "wiki_lint_before", "issues", &s.lint_before)?;
    super::meta::set(tx, path, SNAPSHOT_INGEST, &id.to_string())?;
    // The contents no page of this snapshot has, found in memory: `hash NOT IN (SELECT …)`
    // read every row of `page_blobs` whole (the pages' contents: 0.3–0.6 s at 100,000 pages
    // to delete nothing), where its hashes alone are in their index.
    let wanted: HashSet<&str, foldhash::fast::RandomState> =
        s.pages.iter().map(|(_, hash)| hash.as_str()).collect();
    let unwanted: Vec<String> = blob_hashes(tx, path)?
        .into_iter()
        .filter(|hash| !wanted.contains(hash.as_str()))
        .collect();
    let mut delete = tx
        .prepare("DELETE FROM page_blobs WHERE hash = ?1")
        .at(path)?;
    for hash in &unwanted {
        delete.execute([hash]).at(path)?;
    }
    tx.execute(
        "INSERT OR REPLACE INTO ingest_provenance (ingest_id, base_commit, lint_before, snapshot_gen)
         VALUES (?1, ?2, '', ?3)",
        params![id, s.base_commit, s.generation],
    )
    .at(path)?;
    Ok(())
}

/// The `meta` key naming the ingest whose snapshot `wiki_snapshot` and `wiki_lint_before`
/// hold.
const SNAPSHOT_INGEST: &str = "snapshot_ingest";

/// Make `table` (`path`, `column`) hold exactly `rows`: the rows kept and the new ones are
/// walked together in path order, and only those that differ are written or deleted.
fn sync_rows(
    tx: &rusqlite::Transaction<'_>,
    path: &std::path::Path,
    table: &str,
    column: &str,
    rows: &[(String, String)],
) -> Result<()> {
    let mut sorted;
    let rows = if rows.is_sorted_by(|a, b| a.0 < b.0) {
        rows
    } else {
        sorted = rows.to_vec();
        sorted.sort_unstable();
        sorted.dedup_by(|a, b| a.0 == b.0);
        &sorted[..]
    };
    let mut write: Vec<&(String, String)> = Vec::new();
    let mut gone = Vec::new();
    {
        let mut stmt = tx
            .prepare(&format!("SELECT path, {column} FROM {table} ORDER BY path"))
            .at(path)?;
        let mut kept = stmt.query([]).at(path)?;
        let mut new = rows.iter().peekable();
        while let Some(r) = kept.next().at(path)? {
            let old_path = r.get_ref(0).at(path)?.as_str().unwrap_or_default();
            while let Some(row) = new.next_if(|(p, _)| p.as_str() < old_path) {
                write.push(row);
            }
            match new.next_if(|(p, _)| p == old_path) {
                Some(row) => {
                    if r.get_ref(1).at(path)?.as_str().ok() != Some(row.1.as_str()) {
                        write.push(row);
                    }
                }
                None => gone.push(old_path.to_string()),
            }
        }
        write.extend(new);
    }
    let mut delete = tx
        .prepare(&format!("DELETE FROM {table} WHERE path = ?1"))
        .at(path)?;
    for p in &gone {
        delete.execute([p]).at(path)?;
    }
    let mut upsert = tx
        .prepare(&format!(
            "INSERT OR REPLACE INTO {table} (path, {column}) VALUES (?1, ?2)"
        ))
        .at(path)?;
    for (p, v) in write {
        upsert.execute(params![p, v]).at(path)?;
    }
    Ok(())
}

/// The ingest whose snapshot is kept, if any.
fn snapshot_ingest(conn: &rusqlite::Connection, path: &std::path::Path) -> Result<Option<i64>> {
    Ok(super::meta::get(conn, path, SNAPSHOT_INGEST)?.and_then(|v| v.parse().ok()))
}

/// The files stored or deleted since the snapshot (`?1`, its generation), along the index on
/// `gen`, with their hashes in the snapshot and now (`NULL` for a file deleted or not a page).
/// Not sorted: to give the rows in path order SQLite would walk every file.
const CHANGED_SINCE: &str = "SELECT f.path, s.hash,
        CASE WHEN f.deleted = 0 AND EXISTS (SELECT 1 FROM pages p WHERE p.path = f.path)
             THEN CASE WHEN f.hash LIKE 'reindex:%' THEN substr(f.hash, 9) ELSE f.hash END END
 FROM files f INDEXED BY files_gen
 LEFT JOIN wiki_snapshot s ON s.path = f.path
 WHERE f.gen > ?1";

/// Every page of the snapshot and every live page now, with both hashes (point lookups by
/// path both ways: no CTE, which SQLite would materialise and join without an index).
const EVERY_PAGE: &str = "SELECT s.path, s.hash,
        CASE WHEN f.hash LIKE 'reindex:%' THEN substr(f.hash, 9) ELSE f.hash END
 FROM wiki_snapshot s
 LEFT JOIN files f ON f.path = s.path AND f.deleted = 0
   AND EXISTS (SELECT 1 FROM pages p WHERE p.path = f.path)
 UNION ALL
 SELECT p.path, NULL,
        CASE WHEN f.hash LIKE 'reindex:%' THEN substr(f.hash, 9) ELSE f.hash END
 FROM pages p JOIN files f ON f.path = p.path
 WHERE f.deleted = 0 AND NOT EXISTS (SELECT 1 FROM wiki_snapshot s WHERE s.path = p.path)
 ORDER BY 1";

/// The hashes whose contents are kept, read from their index (never the contents).
fn blob_hashes(conn: &rusqlite::Connection, path: &std::path::Path) -> Result<HashSet<String>> {
    let mut stmt = conn.prepare("SELECT hash FROM page_blobs").at(path)?;
    let rows = stmt.query_map([], |r| r.get(0)).at(path)?;
    rows.collect::<rusqlite::Result<_>>().at(path)
}

/// A hash as the scan stored it, without the mark a migration may have put on it.
fn plain(hash: String) -> String {
    match hash.strip_prefix("reindex:") {
        Some(h) => h.to_string(),
        None => hash,
    }
}

impl Manifest {
    /// Every live wiki page (Markdown under `wiki/`) with its hash, by path.
    pub fn page_hashes(&self) -> Result<Vec<(String, String)>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT f.path, f.hash FROM files f JOIN pages p ON p.path = f.path
                 WHERE f.deleted = 0 ORDER BY f.path",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, plain(r.get(1)?))))
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }

    /// The hashes whose contents are kept.
    pub fn blob_hashes(&self) -> Result<HashSet<String>> {
        blob_hashes(&self.conn, &self.path)
    }

    /// Keep the contents `next` yields (hash, bytes), one transaction for all.
    pub fn add_blobs<E>(
        &mut self,
        mut next: impl FnMut() -> std::result::Result<Option<(String, Vec<u8>)>, E>,
    ) -> std::result::Result<(), E>
    where
        E: From<super::ManifestError>,
    {
        let path = self.path.clone();
        let tx = self.immediate()?;
        {
            let mut ins = tx
                .prepare("INSERT OR IGNORE INTO page_blobs (hash, content) VALUES (?1, ?2)")
                .at(&path)?;
            while let Some((hash, bytes)) = next()? {
                ins.execute(params![hash, bytes]).at(&path)?;
            }
        }
        tx.commit().at(&path)?;
        Ok(())
    }

    /// Whether prepare recorded a snapshot for ingest `id`.
    pub fn has_snapshot(&self, id: i64) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT 1 FROM ingest_provenance WHERE ingest_id = ?1",
                [id],
                |_| Ok(()),
            )
            .optional()
            .map(|row| row.is_some())
            .at(&self.path)
    }

    /// The scan generation: that of the last scan that stored or deleted a file.
    pub fn generation(&self) -> Result<i64> {
        super::scan_tx::generation(&self.conn).at(&self.path)
    }

    /// What happened to the wiki's pages since ingest `id`'s snapshot: the live pages that
    /// were not in it (created) or whose hash differs (changed), and the pages in it that are
    /// gone (deleted), by path. `None` when prepare recorded no snapshot. Only the files a
    /// scan stored or deleted since the snapshot are compared; a snapshot recorded before
    /// generations were kept is compared page by page.
    pub fn page_changes(&self, id: i64) -> Result<Option<Vec<PageChange>>> {
        let generation: Option<Option<i64>> = self
            .conn
            .query_row(
                "SELECT snapshot_gen FROM ingest_provenance WHERE ingest_id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()
            .at(&self.path)?;
        if !self.holds_snapshot_of(id)? {
            return Ok(None);
        }
        match generation {
            None => Ok(None),
            Some(Some(generation)) => self
                .changes_by(CHANGED_SINCE, params![generation])
                .map(Some),
            Some(None) => self.changes_by(EVERY_PAGE, params![]).map(Some),
        }
    }

    /// Whether the snapshot kept is ingest `id`'s (the next prepare's replaces it).
    fn holds_snapshot_of(&self, id: i64) -> Result<bool> {
        Ok(snapshot_ingest(&self.conn, &self.path)? == Some(id))
    }

    /// The page changes `sql` finds: rows of (path, hash before, hash after), each `NULL` when
    /// the page was not there; rows whose hashes agree are no change.
    fn changes_by(&self, sql: &str, params: &[&dyn rusqlite::ToSql]) -> Result<Vec<PageChange>> {
        let mut stmt = self.conn.prepare(sql).at(&self.path)?;
        let rows = stmt
            .query_map(params, |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, Option<String>>(2)?,
                ))
            })
            .at(&self.path)?;
        let mut changes = Vec::new();
        for row in rows {
            let (path, before, after) = row.at(&self.path)?;
            let action = match (&before, &after) {
                (None, None) => continue,
                (Some(b), Some(a)) if a == b => continue,
                (None, Some(_)) => PageAction::Created,
                (Some(_), None) => PageAction::Deleted,
                (Some(_), Some(_)) => PageAction::Changed,
            };
            changes.push(PageChange {
                path,
                action,
                before_hash: before,
                after_hash: after,
            });
        }
        changes.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }

    /// [`Manifest::page_changes`] comparing every page, whatever the snapshot's generation:
    /// what the comparison of the changed files alone must agree with.
    #[cfg(test)]
    pub fn page_changes_of_every_page(&self, id: i64) -> Result<Vec<PageChange>> {
        assert!(self.holds_snapshot_of(id)?, "the snapshot kept is {id}'s");
        self.changes_by(EVERY_PAGE, params![])
    }

    /// The snapshot of ingest `id` (path → hash), `None` when prepare recorded none. Finalize
    /// asks for [`Manifest::page_changes`] instead; the tests look at what was recorded.
    #[cfg(test)]
    pub fn snapshot(&self, id: i64) -> Result<Option<std::collections::HashMap<String, String>>> {
        if !self.has_snapshot(id)? || !self.holds_snapshot_of(id)? {
            return Ok(None);
        }
        let mut stmt = self
            .conn
            .prepare("SELECT path, hash FROM wiki_snapshot")
            .at(&self.path)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .at(&self.path)?;
        Ok(Some(rows.collect::<rusqlite::Result<_>>().at(&self.path)?))
    }

    /// The lint issues prepare recorded of `pages` before ingest `id`'s batch: each page's
    /// that had any (JSON).
    pub fn lint_before(&self, id: i64, pages: &[String]) -> Result<Vec<String>> {
        if !self.holds_snapshot_of(id)? {
            return Ok(Vec::new());
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT issues FROM wiki_lint_before WHERE path = ?1")
            .at(&self.path)?;
        let mut found = Vec::new();
        for page in pages {
            if let Some(issues) = stmt
                .query_row([page], |r| r.get(0))
                .optional()
                .at(&self.path)?
            {
                found.push(issues);
            }
        }
        Ok(found)
    }

    /// The lint issues finalize found ingest `id`'s batch added (JSON), once it has.
    pub fn lint_delta(&self, id: i64) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT lint_delta FROM ingest_provenance WHERE ingest_id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()
            .at(&self.path)
            .map(Option::flatten)
    }

    /// Record what ingest `id` did to the wiki (replacing what an interrupted finalize
    /// recorded), copying the content before of every page the kept contents hold, and the
    /// lint issues it added (JSON).
    pub fn record_provenance(
        &mut self,
        id: i64,
        changes: &[PageChange],
        lint_delta: &str,
    ) -> Result<()> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        tx.execute("DELETE FROM ingest_pages WHERE ingest_id = ?1", [id])
            .at(&path)?;
        {
            let mut ins = tx
                .prepare(
                    "INSERT INTO ingest_pages (ingest_id, path, action, before_hash, after_hash, before)
                     VALUES (?1, ?2, ?3, ?4, ?5,
                        (SELECT content FROM page_blobs WHERE hash = ?4))",
                )
                .at(&path)?;
            for c in changes {
                ins.execute(params![
                    id,
                    c.path,
                    c.action.as_str(),
                    c.before_hash,
                    c.after_hash
                ])
                .at(&path)?;
            }
        }
        tx.execute(
            "UPDATE ingest_provenance SET lint_delta = ?2 WHERE ingest_id = ?1",
            params![id, lint_delta],
        )
        .at(&path)?;
        tx.commit().at(&path)
    }

    /// The pages ingest `id` touched, by path, with whether their content before is kept.
    pub fn ingest_pages(&self, id: i64) -> Result<Vec<(PageChange, bool)>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT path, action, before_hash, after_hash, before IS NOT NULL
                 FROM ingest_pages WHERE ingest_id = ?1 ORDER BY path",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                ))
            })
            .at(&self.path)?;
        let mut out = Vec::new();
        for row in rows {
            let (path, action, before_hash, after_hash, kept) = row.at(&self.path)?;
            let action =
                PageAction::parse(&action).ok_or_else(|| super::ManifestError::Corrupt {
                    path: self.path.clone(),
                    what: format!("ingest {id} page {path} has action {action:?}"),
                })?;
            out.push((
                PageChange {
                    path,
                    action,
                    before_hash,
                    after_hash,
                },
                kept,
            ));
        }
        Ok(out)
    }

    /// The content of `page` before ingest `id`, when it was kept.
    pub fn page_before(&self, id: i64, page: &str) -> Result<Option<Vec<u8>>> {
        self.conn
            .query_row(
                "SELECT before FROM ingest_pages WHERE ingest_id = ?1 AND path = ?2",
                params![id, page],
                |r| r.get(0),
            )
            .optional()
            .at(&self.path)
            .map(Option::flatten)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{ManifestError, NewEntry, Opened};

    fn open_with(
        blobs: &[(&str, &[u8])],
        pages: &[(&str, &str)],
    ) -> (tempfile::TempDir, Manifest, i64) {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        let mut items: Vec<(String, Vec<u8>)> = blobs
            .iter()
            .map(|(h, b)| (h.to_string(), b.to_vec()))
            .collect();
        m.add_blobs(|| Ok::<_, ManifestError>(items.pop())).unwrap();
        let e = NewEntry {
            capture_date: "2026-04-10".into(),
            hash: "h".into(),
            content: "a".into(),
            hints: "{}".into(),
        };
        let snap = Snapshot {
            pages: pages
                .iter()
                .map(|(p, h)| (p.to_string(), h.to_string()))
                .collect(),
            base_commit: None,
            generation: 0,
            lint_before: Vec::new(),
        };
        let id = match m.open_ingest("k", "t", 0, &[e], Some(&snap)).unwrap() {
            Opened::New(id) => id,
            other => panic!("{other:?}"),
        };
        (dir, m, id)
    }

    #[test]
    fn provenance_keeps_the_content_before_from_the_snapshot_blobs() {
        let (_d, mut m, id) = open_with(&[("hb", b"before")], &[("wiki/a.md", "hb")]);
        assert_eq!(
            m.snapshot(id).unwrap().unwrap().get("wiki/a.md"),
            Some(&"hb".to_string())
        );
        let changes = [
            PageChange {
                path: "wiki/a.md".into(),
                action: PageAction::Changed,
                before_hash: Some("hb".into()),
                after_hash: Some("ha".into()),
            },
            PageChange {
                path: "wiki/b.md".into(),
                action: PageAction::Created,
                before_hash: None,
                after_hash: Some("hc".into()),
            },
        ];
        m.record_provenance(id, &changes, "[]").unwrap();
        // Recording again (a resumed finalize) replaces, never adds.
        m.record_provenance(id, &changes, "[]").unwrap();
        let pages = m.ingest_pages(id).unwrap();
        assert_eq!(pages.len(), 2);
        assert_eq!((pages[0].1, pages[1].1), (true, false));
        assert_eq!(
            m.page_before(id, "wiki/a.md").unwrap().as_deref(),
            Some(&b"before"[..])
        );
        assert_eq!(m.page_before(id, "wiki/b.md").unwrap(), None);
        let rec = m.ingest_record(id).unwrap().unwrap();
        assert_eq!(rec.counts, (1, 1, 0));
        assert!(rec.snapshot);
        assert_eq!(
            m.ingests_touching(&["wiki/b.md".into()]).unwrap(),
            HashSet::from([id])
        );
    }

    #[test]
    fn a_new_snapshot_lets_go_of_contents_it_does_not_need() {
        let (_d, m, _) = open_with(&[("h1", b"one"), ("h2", b"two")], &[("wiki/a.md", "h1")]);
        assert_eq!(m.blob_hashes().unwrap(), HashSet::from(["h1".to_string()]));
    }

    #[test]
    fn an_ingest_without_a_snapshot_has_none() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        let e = NewEntry {
            capture_date: "2026-04-10".into(),
            hash: "h".into(),
            content: "a".into(),
            hints: "{}".into(),
        };
        m.open_ingest("k", "t", 0, &[e], None).unwrap();
        assert_eq!(m.snapshot(1).unwrap(), None);
        assert!(!m.ingest_record(1).unwrap().unwrap().snapshot);
    }

    /// Bringing the kept rows up to date writes the rows that differ and no other: a changed
    /// value, a new path, a path gone; input in any order.
    #[test]
    fn a_snapshot_writes_only_the_rows_that_differ() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        let rows = |n: usize, changed: &[usize]| -> Vec<(String, String)> {
            (0..n)
                .map(|i| {
                    let v = if changed.contains(&i) { "new" } else { "old" };
                    (format!("wiki/p{i:04}.md"), format!("{v}{i}"))
                })
                .collect()
        };
        let path = m.path.clone();
        let mut sync = |rows: &[(String, String)]| -> u64 {
            let tx = m.immediate().unwrap();
            let before = tx.total_changes();
            sync_rows(&tx, &path, "wiki_snapshot", "hash", rows).unwrap();
            let written = tx.total_changes() - before;
            tx.commit().unwrap();
            written
        };
        assert_eq!(sync(&rows(1000, &[])), 1000);
        assert_eq!(sync(&rows(1000, &[])), 0, "nothing differs");
        let mut next = rows(1002, &[3, 500]);
        next.remove(7);
        next.reverse();
        assert_eq!(sync(&next), 2 + 1 + 2, "two changed, one gone, two new");
        assert_eq!(sync(&[]), 1001, "an empty wiki leaves no row");
        assert_eq!(sync(&next), 1001);
        let mut kept: Vec<(String, String)> = {
            let mut stmt = m
                .conn
                .prepare("SELECT path, hash FROM wiki_snapshot")
                .unwrap();
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap()
        };
        kept.sort();
        next.sort();
        assert_eq!(kept, next);
    }
}
