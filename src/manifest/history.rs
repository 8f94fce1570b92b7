//! The history of ingests as `ingest --list/--show` read it, and what a revert records: the
//! inbox finalize replaced, the rewrite a revert is making, and the revert itself.

use super::{At, Manifest, Result};
use rusqlite::{OptionalExtension, Row, params};
use std::collections::HashSet;

/// An ingest as its history shows it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct IngestRecord {
    /// The ingest id.
    pub id: i64,
    /// Its token (archive markers and commit trailers carry it).
    pub token: String,
    /// Open, completed or aborted (a reverted ingest stays completed).
    pub status: super::IngestStatus,
    /// When prepare opened it (RFC 3339, local offset).
    pub started_at: String,
    /// When it completed or was aborted.
    pub finished_at: Option<String>,
    /// Entries in its batch.
    pub entries: usize,
    /// Entries it archived (completed ingests).
    pub archived: Option<usize>,
    /// The commit finalize made.
    pub commit_sha: Option<String>,
    /// Why finalize made no commit.
    pub commit_note: Option<String>,
    /// Whether prepare recorded a snapshot (and so finalize a provenance).
    pub snapshot: bool,
    /// HEAD when prepare ran.
    pub base_commit: Option<String>,
    /// When it was reverted.
    pub reverted_at: Option<String>,
    /// The commit the revert made.
    pub revert_commit: Option<String>,
    /// Pages it created, changed and deleted.
    pub counts: (usize, usize, usize),
    /// Its number on the device that made it, which its archive markers and commit trailers
    /// carry: its id, unless it was brought in from git's history.
    pub number: i64,
    /// Whether it was brought in from git's history (made on another device, or here before
    /// the manifest was deleted).
    pub imported: bool,
}

const RECORD_COLUMNS: &str = "i.id, i.token, i.status, i.started_at, i.finished_at,
    (SELECT count(*) FROM ingest_entries e WHERE e.ingest_id = i.id), i.archived, i.commit_sha,
    i.commit_note, v.ingest_id IS NOT NULL, v.base_commit, v.reverted_at, v.revert_commit,
    (SELECT count(*) FROM ingest_pages p WHERE p.ingest_id = i.id AND p.action = 'created'),
    (SELECT count(*) FROM ingest_pages p WHERE p.ingest_id = i.id AND p.action = 'changed'),
    (SELECT count(*) FROM ingest_pages p WHERE p.ingest_id = i.id AND p.action = 'deleted'),
    coalesce(o.number, i.id), o.ingest_id IS NOT NULL";

/// The ingests with their provenance, when they have one.
const RECORDS: &str = "ingests i LEFT JOIN ingest_provenance v ON v.ingest_id = i.id
    LEFT JOIN ingest_origins o ON o.ingest_id = i.id";

fn record(r: &Row<'_>) -> rusqlite::Result<IngestRecord> {
    let count = |i| r.get::<_, i64>(i).map(|n| n as usize);
    Ok(IngestRecord {
        id: r.get(0)?,
        token: r.get(1)?,
        status: r.get(2)?,
        started_at: r.get(3)?,
        finished_at: r.get(4)?,
        entries: count(5)?,
        archived: r.get::<_, Option<i64>>(6)?.map(|n| n as usize),
        commit_sha: r.get(7)?,
        commit_note: r.get(8)?,
        snapshot: r.get::<_, i64>(9)? != 0,
        base_commit: r.get(10)?,
        reverted_at: r.get(11)?,
        revert_commit: r.get(12)?,
        counts: (count(13)?, count(14)?, count(15)?),
        number: r.get(16)?,
        imported: r.get::<_, i64>(17)? != 0,
    })
}

impl Manifest {
    /// The latest ingest after `id`, not reverted, that touched `page`, with the hash it left.
    pub fn later_change(&self, id: i64, page: &str) -> Result<Option<(i64, Option<String>)>> {
        self.conn
            .query_row(
                "SELECT p.ingest_id, p.after_hash FROM ingest_pages p
                 JOIN ingest_provenance v ON v.ingest_id = p.ingest_id
                 WHERE p.path = ?2 AND p.ingest_id > ?1 AND v.reverted_at IS NULL
                 ORDER BY p.ingest_id DESC LIMIT 1",
                params![id, page],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .at(&self.path)
    }

    /// The inbox before and after finalize of ingest `id` removed its batch, when recorded.
    pub fn inbox_texts(&self, id: i64) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        self.provenance_pair("inbox_before, inbox_after", id)
    }

    /// Two columns of ingest `id`'s provenance, when both are set.
    fn provenance_pair<T: rusqlite::types::FromSql>(
        &self,
        columns: &str,
        id: i64,
    ) -> Result<Option<(T, T)>> {
        self.conn
            .query_row(
                &format!("SELECT {columns} FROM ingest_provenance WHERE ingest_id = ?1"),
                [id],
                |r| {
                    Ok(match (r.get(0)?, r.get(1)?) {
                        (Some(b), Some(a)) => Some((b, a)),
                        _ => None,
                    })
                },
            )
            .optional()
            .at(&self.path)
            .map(Option::flatten)
    }

    /// Every ingest, newest first.
    pub fn ingest_records(&self) -> Result<Vec<IngestRecord>> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {RECORD_COLUMNS} FROM {RECORDS} ORDER BY i.id DESC"
            ))
            .at(&self.path)?;
        let rows = stmt.query_map([], record).at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }

    /// Ingest `id`, if there is one.
    pub fn ingest_record(&self, id: i64) -> Result<Option<IngestRecord>> {
        self.conn
            .query_row(
                &format!("SELECT {RECORD_COLUMNS} FROM {RECORDS} WHERE i.id = ?1"),
                [id],
                record,
            )
            .optional()
            .at(&self.path)
    }

    /// The ids of the ingests that touched any of `pages`.
    pub fn ingests_touching(&self, pages: &[String]) -> Result<HashSet<i64>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT ingest_id FROM ingest_pages WHERE path = ?1")
            .at(&self.path)?;
        let mut out = HashSet::new();
        for p in pages {
            let ids = stmt.query_map([p], |r| r.get(0)).at(&self.path)?;
            for id in ids {
                out.insert(id.at(&self.path)?);
            }
        }
        Ok(out)
    }

    /// Every path some ingest touched.
    pub fn touched_paths(&self) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT path FROM ingest_pages ORDER BY path")
            .at(&self.path)?;
        let rows = stmt.query_map([], |r| r.get(0)).at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }

    /// The revert of ingest `id` is complete: mark the ingest reverted (a manifest rebuilt
    /// since the revert started has no such ingest: nothing to mark).
    pub fn finish_revert(&self, id: i64, at: &str, commit: Option<&str>) -> Result<()> {
        self.conn
            .execute(
                "UPDATE ingest_provenance SET reverted_at = ?2, revert_commit = ?3
                 WHERE ingest_id = ?1",
                params![id, at, commit],
            )
            .at(&self.path)?;
        Ok(())
    }
}
