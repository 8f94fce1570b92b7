//! The pages an ingest's batch created, changed or deleted: the wiki now against the
//! snapshot prepare recorded, compared for the files a scan stored or deleted since.

use super::{PageAction, PageChange};
use crate::manifest::{At, Manifest, Result};
use rusqlite::{OptionalExtension, params};

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
impl Manifest {
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
}
