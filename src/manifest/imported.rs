//! Ingests brought in from git's history, so that the history of ingests travels with the
//! vault: an ingest finalized on another device (or on this one, before its manifest was
//! deleted) is found by its finalize commit's trailer, and recorded here as a completed ingest
//! with an id of its own, its number on the device that made it ([`IngestRecord::number`]),
//! its archived entries, the pages its commit changed (with their hashes before and after, the
//! content before read from git at its commit's parent, as for any ingest), and whether a
//! revert commit took it back.
//!
//! [`IngestRecord::number`]: super::IngestRecord::number

use super::{At, Manifest, PageAction, Result, meta};
use rusqlite::{OptionalExtension, params};

/// The `meta` key of the last commit whose history was read for ingests.
pub const WALKED: &str = "ingests_walked";

/// An ingest found in git's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// Its number on the device that made it.
    pub number: i64,
    /// Its token.
    pub token: String,
    /// When its finalize commit was made (RFC 3339), and in ns since the epoch.
    pub at: (String, i64),
    /// Its finalize commit.
    pub commit: String,
    /// That commit's parent: where the pages' contents before are read.
    pub base: Option<String>,
    /// Its archived entries: number in the batch, capture date, content hash, content.
    pub entries: Vec<(u32, String, String, String)>,
    /// The pages its commit changed: path, what happened, hash before, hash after.
    pub pages: Vec<(String, PageAction, Option<String>, Option<String>)>,
}

impl Manifest {
    /// The last commit whose history [`Manifest::import_ingests`] read.
    pub fn ingests_walked(&self) -> Result<Option<String>> {
        self.meta(WALKED)
    }

    /// The id of the ingest named `token`, if one is recorded.
    pub fn ingest_by_token(&self, token: &str) -> Result<Option<i64>> {
        self.conn
            .query_row(
                "SELECT id FROM ingests WHERE token = ?1 ORDER BY id LIMIT 1",
                [token],
                |r| r.get(0),
            )
            .optional()
            .at(&self.path)
    }

    /// Record `found` (ingests not recorded yet, oldest first) and the reverts `reverted`
    /// found (token, when, commit), and that history was read up to `walked`.
    pub fn import_ingests(
        &mut self,
        found: &[Imported],
        reverted: &[(String, String, String)],
        walked: &str,
    ) -> Result<usize> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        let mut n = 0;
        for i in found {
            let known: Option<i64> = tx
                .query_row("SELECT id FROM ingests WHERE token = ?1", [&i.token], |r| {
                    r.get(0)
                })
                .optional()
                .at(&path)?;
            if known.is_some() {
                continue;
            }
            tx.execute(
                "INSERT INTO ingests (token, status, started_at, finished_at, finished_ns,
                                      remaining, archived, kept, changed, commit_sha)
                 VALUES (?1, 'completed', ?2, ?2, ?3, 0, ?4, 0, 0, ?5)",
                params![i.token, i.at.0, i.at.1, i.entries.len() as i64, i.commit],
            )
            .at(&path)?;
            let id = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO ingest_origins (ingest_id, number) VALUES (?1, ?2)",
                params![id, i.number],
            )
            .at(&path)?;
            for (entry, date, hash, content) in &i.entries {
                tx.execute(
                    "INSERT INTO ingest_entries (ingest_id, id, capture_date, hash, content,
                                                 hints, outcome)
                     VALUES (?1, ?2, ?3, ?4, ?5, '[]', 'archive')",
                    params![id, entry, date, hash, content],
                )
                .at(&path)?;
            }
            tx.execute(
                "INSERT INTO ingest_provenance (ingest_id, base_commit, lint_before, lint_delta)
                 VALUES (?1, ?2, '', '[]')",
                params![id, i.base],
            )
            .at(&path)?;
            for (page, action, before, after) in &i.pages {
                tx.execute(
                    "INSERT INTO ingest_pages (ingest_id, path, action, before_hash, after_hash)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![id, page, action.as_str(), before, after],
                )
                .at(&path)?;
            }
            n += 1;
        }
        for (token, at, commit) in reverted {
            tx.execute(
                "UPDATE ingest_provenance SET reverted_at = ?2, revert_commit = ?3
                 WHERE reverted_at IS NULL
                   AND ingest_id IN (SELECT id FROM ingests WHERE token = ?1)",
                params![token, at, commit],
            )
            .at(&path)?;
        }
        meta::set(&tx, &path, WALKED, walked)?;
        tx.commit().at(&path)?;
        Ok(n)
    }
}
