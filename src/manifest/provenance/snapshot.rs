//! What prepare records of the wiki when it opens an ingest: every page's hash, the lint
//! issues before the batch, and the contents git cannot give back; one snapshot is kept, the
//! open ingest's (or the last one's).

use crate::manifest::{At, Manifest, Result};
use rusqlite::{OptionalExtension, params};
use std::collections::HashSet;

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
pub(in crate::manifest) fn write_snapshot(
    tx: &rusqlite::Transaction<'_>,
    path: &std::path::Path,
    id: i64,
    s: &Snapshot,
) -> Result<()> {
    sync_rows(tx, path, "wiki_snapshot", "hash", &s.pages)?;
    sync_rows(tx, path, "wiki_lint_before", "issues", &s.lint_before)?;
    crate::manifest::meta::set(tx, path, SNAPSHOT_INGEST, &id.to_string())?;
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
pub(super) fn sync_rows(
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
    Ok(crate::manifest::meta::get(conn, path, SNAPSHOT_INGEST)?.and_then(|v| v.parse().ok()))
}

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
        E: From<crate::manifest::ManifestError>,
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
        crate::manifest::scan_tx::generation(&self.conn).at(&self.path)
    }

    /// Whether the snapshot kept is ingest `id`'s (the next prepare's replaces it).
    pub(super) fn holds_snapshot_of(&self, id: i64) -> Result<bool> {
        Ok(snapshot_ingest(&self.conn, &self.path)? == Some(id))
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
}
