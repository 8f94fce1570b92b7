//! The `ingests` and `ingest_entries` tables: which batch an ingest handed out, how far its
//! finalize got, and how it ended.

use super::finalize::{Outcome, Step};
use super::{At, IngestStatus, Manifest, ManifestError, Result};
use rusqlite::{OptionalExtension, Row, params};

/// An entry of a batch about to be opened.
#[derive(Debug, Clone)]
pub struct NewEntry {
    /// The capture date, `YYYY-MM-DD`.
    pub capture_date: String,
    /// blake3 of the content.
    pub hash: String,
    /// The content as handed to the agent.
    pub content: String,
    /// The hints, as JSON.
    pub hints: String,
}

/// A recorded batch entry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BatchEntry {
    /// 1-based position in the batch.
    pub id: u32,
    /// The capture date, `YYYY-MM-DD`.
    pub capture_date: String,
    /// blake3 of the content.
    pub hash: String,
    /// The content.
    pub content: String,
    /// The hints, as JSON.
    pub hints: String,
    /// What finalize decided for it, once it has planned.
    pub outcome: Option<Outcome>,
}

/// An ingest row.
#[derive(Debug, Clone)]
pub struct IngestRow {
    /// The ingest id.
    pub id: i64,
    /// A token that tells this ingest apart from one with the same id in a rebuilt manifest.
    pub token: String,
    /// Open, completed or aborted.
    pub status: IngestStatus,
    /// When prepare opened it (RFC 3339).
    pub started_at: String,
    /// When it completed or was aborted.
    pub finished_at: Option<String>,
    /// The same, in ns since the epoch.
    pub finished_ns: Option<i64>,
    /// The last finalize step recorded as done.
    pub step: Option<Step>,
    /// Inbox entries left out of the batch at prepare.
    pub remaining: i64,
    /// The commit made, if any.
    pub commit_sha: Option<String>,
    /// The inbox rewrite finalize was about to make: the old and new content as
    /// `<len>:<blake3>`, so that a resumed finalize can tell whether it happened.
    pub inbox_rewrite: Option<(String, String)>,
}

/// What the manifest made of a copy of the open ingest's record ([`Manifest::mirror_ingest`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mirrored {
    /// The manifest holds it open, as recorded.
    Open,
    /// The manifest holds it closed (completed or aborted): the record outlived the close.
    Closed,
    /// The manifest holds another ingest under its id, or another open ingest: what it holds.
    Other(String),
}

/// The result of trying to open an ingest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// A new ingest with this id.
    New(i64),
    /// Another ingest was already open.
    AlreadyOpen(i64),
    /// No ingest was open and there was nothing to open one for.
    Nothing,
}

const INGEST_COLUMNS: &str = "id, token, status, started_at, finished_at, finished_ns, step, remaining, commit_sha, inbox_before, inbox_after";

fn ingest_row(r: &Row<'_>) -> rusqlite::Result<IngestRow> {
    Ok(IngestRow {
        id: r.get(0)?,
        token: r.get(1)?,
        status: r.get(2)?,
        started_at: r.get(3)?,
        finished_at: r.get(4)?,
        finished_ns: r.get(5)?,
        step: r.get(6)?,
        remaining: r.get(7)?,
        commit_sha: r.get(8)?,
        inbox_rewrite: match (
            r.get::<_, Option<String>>(9)?,
            r.get::<_, Option<String>>(10)?,
        ) {
            (Some(b), Some(a)) => Some((b, a)),
            _ => None,
        },
    })
}

impl Manifest {
    /// Open an ingest for `entries`, unless one is open already. The check and the insert
    /// run in one immediate transaction, and a unique index admits one open ingest only, so
    /// any number of concurrent callers open exactly one.
    pub fn open_ingest(
        &mut self,
        token: &str,
        started_at: &str,
        remaining: usize,
        entries: &[NewEntry],
        snapshot: Option<&super::Snapshot>,
    ) -> Result<Opened> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        let open: Option<i64> = tx
            .query_row("SELECT id FROM ingests WHERE status = 'open'", [], |r| {
                r.get(0)
            })
            .optional()
            .at(&path)?;
        if let Some(id) = open {
            return Ok(Opened::AlreadyOpen(id));
        }
        if entries.is_empty() {
            return Ok(Opened::Nothing);
        }
        tx.execute(
            "INSERT INTO ingests (token, status, started_at, remaining) VALUES (?1, 'open', ?2, ?3)",
            params![token, started_at, remaining as i64],
        )
        .at(&path)?;
        let id = tx.last_insert_rowid();
        {
            let mut ins = tx
                .prepare(
                    "INSERT INTO ingest_entries (ingest_id, id, capture_date, hash, content, hints)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .at(&path)?;
            for (i, e) in entries.iter().enumerate() {
                ins.execute(params![
                    id,
                    i as i64 + 1,
                    e.capture_date,
                    e.hash,
                    e.content,
                    e.hints
                ])
                .at(&path)?;
            }
        }
        if let Some(s) = snapshot {
            super::provenance::write_snapshot(&tx, &path, id, s)?;
        }
        tx.commit().at(&path)?;
        Ok(Opened::New(id))
    }

    /// Make the manifest hold the open ingest `row` with its batch `entries` as its record
    /// says (see `runstate`): inserted when the manifest lost it (rebuilt or deleted), its step,
    /// inbox rewrite and outcomes brought up to date when the manifest is behind.
    pub fn mirror_ingest(&mut self, row: &IngestRow, entries: &[BatchEntry]) -> Result<Mirrored> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        let by_id: Option<(String, IngestStatus)> = tx
            .query_row(
                "SELECT token, status FROM ingests WHERE id = ?1",
                [row.id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .at(&path)?;
        let (before, after) = match &row.inbox_rewrite {
            Some((b, a)) => (Some(b.as_str()), Some(a.as_str())),
            None => (None, None),
        };
        match by_id {
            Some((token, status)) if token == row.token => {
                if status != IngestStatus::Open {
                    return Ok(Mirrored::Closed);
                }
                tx.execute(
                    "UPDATE ingests SET step = ?2, inbox_before = ?3, inbox_after = ?4
                     WHERE id = ?1",
                    params![row.id, row.step, before, after],
                )
                .at(&path)?;
            }
            Some((token, status)) => {
                return Ok(Mirrored::Other(format!(
                    "ingest {} with token {token}, {}",
                    row.id,
                    status.as_str()
                )));
            }
            None => {
                let open: Option<(i64, String)> = tx
                    .query_row(
                        "SELECT id, token FROM ingests WHERE status = 'open'",
                        [],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()
                    .at(&path)?;
                if let Some((id, token)) = open {
                    return Ok(Mirrored::Other(format!(
                        "ingest {id} with token {token}, open"
                    )));
                }
                tx.execute(
                    "INSERT INTO ingests (id, token, status, started_at, remaining, step,
                        inbox_before, inbox_after)
                     VALUES (?1, ?2, 'open', ?3, ?4, ?5, ?6, ?7)",
                    params![
                        row.id,
                        row.token,
                        row.started_at,
                        row.remaining,
                        row.step,
                        before,
                        after
                    ],
                )
                .at(&path)?;
            }
        }
        {
            let mut put = tx
                .prepare(
                    "INSERT INTO ingest_entries (ingest_id, id, capture_date, hash, content, hints,
                        outcome)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                     ON CONFLICT (ingest_id, id) DO UPDATE SET outcome = excluded.outcome",
                )
                .at(&path)?;
            for e in entries {
                put.execute(params![
                    row.id,
                    e.id as i64,
                    e.capture_date,
                    e.hash,
                    e.content,
                    e.hints,
                    e.outcome.map(|o| o.as_str())
                ])
                .at(&path)?;
            }
        }
        tx.commit().at(&path)?;
        Ok(Mirrored::Open)
    }

    /// Whether the manifest holds an ingest with this token (any status).
    pub fn knows_ingest_token(&self, token: &str) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT 1 FROM ingests WHERE token = ?1",
                [token],
                |_| Ok(()),
            )
            .optional()
            .at(&self.path)
            .map(|r| r.is_some())
    }

    /// `id` if no ingest has it, else an id above every ingest's.
    pub fn free_ingest_id(&self, id: i64) -> Result<i64> {
        let taken = self
            .conn
            .query_row("SELECT 1 FROM ingests WHERE id = ?1", [id], |_| Ok(()))
            .optional()
            .at(&self.path)?
            .is_some();
        match taken {
            false => Ok(id),
            true => self
                .conn
                .query_row("SELECT max(id) + 1 FROM ingests", [], |r| r.get(0))
                .at(&self.path),
        }
    }

    /// The open ingest, if there is one.
    pub fn open_ingest_row(&self) -> Result<Option<IngestRow>> {
        self.conn
            .query_row(
                &format!("SELECT {INGEST_COLUMNS} FROM ingests WHERE status = 'open'"),
                [],
                ingest_row,
            )
            .optional()
            .at(&self.path)
    }

    /// The archive files the open ingest will write: `raw/inbox/<capture date>.md` for each
    /// capture date of its batch (entries already planned to stay in the inbox left out). The
    /// contract tells the agent to cite them before finalize creates them, so lint and fmt
    /// count them as existing while the ingest is open. Empty when no ingest is open.
    pub fn pending_archives(&self) -> Result<std::collections::BTreeSet<String>> {
        let Some(row) = self.open_ingest_row()? else {
            return Ok(Default::default());
        };
        Ok(self
            .batch(row.id)?
            .into_iter()
            .filter(|e| matches!(e.outcome, None | Some(Outcome::Archive)))
            .map(|e| format!("{}/{}.md", crate::vault::ARCHIVE_DIR, e.capture_date))
            .collect())
    }

    /// The most recently completed ingest.
    pub fn last_completed_ingest(&self) -> Result<Option<IngestRow>> {
        self.conn
            .query_row(
                &format!(
                    "SELECT {INGEST_COLUMNS} FROM ingests WHERE status = 'completed'
                     ORDER BY id DESC LIMIT 1"
                ),
                [],
                ingest_row,
            )
            .optional()
            .at(&self.path)
    }

    /// The batch of ingest `id`, in batch order.
    pub fn batch(&self, id: i64) -> Result<Vec<BatchEntry>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, capture_date, hash, content, hints, outcome FROM ingest_entries
                 WHERE ingest_id = ?1 ORDER BY id",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([id], |r| {
                Ok((
                    BatchEntry {
                        id: r.get::<_, i64>(0)? as u32,
                        capture_date: r.get(1)?,
                        hash: r.get(2)?,
                        content: r.get(3)?,
                        hints: r.get(4)?,
                        outcome: None,
                    },
                    r.get::<_, Option<String>>(5)?,
                ))
            })
            .at(&self.path)?;
        let mut out = Vec::new();
        for row in rows {
            let (mut entry, outcome) = row.at(&self.path)?;
            if let Some(o) = outcome {
                entry.outcome = Some(Outcome::parse(&o).ok_or_else(|| ManifestError::Corrupt {
                    path: self.path.clone(),
                    what: format!("ingest {id} entry {} has outcome {o:?}", entry.id),
                })?);
            }
            out.push(entry);
        }
        Ok(out)
    }

    /// Record finalize's plan for ingest `id` and mark the plan step done, atomically.
    pub fn record_plan(&mut self, id: i64, plan: &[(u32, Outcome)]) -> Result<()> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        {
            let mut up = tx
                .prepare("UPDATE ingest_entries SET outcome = ?3 WHERE ingest_id = ?1 AND id = ?2")
                .at(&path)?;
            for (entry, outcome) in plan {
                up.execute(params![id, *entry as i64, outcome.as_str()])
                    .at(&path)?;
            }
        }
        tx.execute(
            "UPDATE ingests SET step = ?2 WHERE id = ?1 AND status = 'open'",
            params![id, Step::Plan],
        )
        .at(&path)?;
        tx.commit().at(&path)
    }

    /// Record the inbox rewrite finalize of ingest `id` is about to make: the old and new
    /// content (kept, so that a revert can put the batch back as it was) and their
    /// fingerprints (`<len>:<blake3>`, by which a resumed finalize recognises the rewrite).
    pub fn record_inbox_rewrite(
        &self,
        id: i64,
        (before, after): (&[u8], &[u8]),
        (before_print, after_print): (&str, &str),
    ) -> Result<()> {
        // The texts first: the fingerprints say the rewrite may have been made.
        self.conn
            .execute(
                "UPDATE ingest_provenance SET inbox_before = ?2, inbox_after = ?3
                 WHERE ingest_id = ?1",
                params![id, before, after],
            )
            .at(&self.path)?;
        self.conn
            .execute(
                "UPDATE ingests SET inbox_before = ?2, inbox_after = ?3
                 WHERE id = ?1 AND status = 'open'",
                params![id, before_print, after_print],
            )
            .at(&self.path)?;
        Ok(())
    }

    /// Record that finalize of ingest `id` has done `step`.
    pub fn record_step(&self, id: i64, step: Step) -> Result<()> {
        self.conn
            .execute(
                "UPDATE ingests SET step = ?2 WHERE id = ?1 AND status = 'open'",
                params![id, step],
            )
            .at(&self.path)?;
        Ok(())
    }

    /// Close ingest `id` as completed. Returns false if it was no longer open.
    #[allow(clippy::too_many_arguments)]
    pub fn complete_ingest(
        &self,
        id: i64,
        finished_at: &str,
        finished_ns: i64,
        (archived, kept, changed): (usize, usize, usize),
        commit_sha: Option<&str>,
        commit_note: Option<&str>,
    ) -> Result<bool> {
        let n = self
            .conn
            .execute(
                "UPDATE ingests SET status = 'completed', step = ?9, finished_at = ?2,
                    finished_ns = ?3, archived = ?4, kept = ?5, changed = ?6, commit_sha = ?7,
                    commit_note = ?8
                 WHERE id = ?1 AND status = 'open'",
                params![
                    id,
                    finished_at,
                    finished_ns,
                    archived as i64,
                    kept as i64,
                    changed as i64,
                    commit_sha,
                    commit_note,
                    Step::Complete
                ],
            )
            .at(&self.path)?;
        Ok(n == 1)
    }

    /// Close ingest `id` as aborted, if finalize has not started on it. Returns false if it
    /// was no longer open and unstarted.
    pub fn abort_ingest(&self, id: i64, finished_at: &str, finished_ns: i64) -> Result<bool> {
        let n = self
            .conn
            .execute(
                "UPDATE ingests SET status = 'aborted', finished_at = ?2, finished_ns = ?3
                 WHERE id = ?1 AND status = 'open' AND step IS NULL",
                params![id, finished_at, finished_ns],
            )
            .at(&self.path)?;
        Ok(n == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(content: &str) -> NewEntry {
        NewEntry {
            capture_date: "2026-04-10".into(),
            hash: blake3::hash(content.as_bytes()).to_hex().to_string(),
            content: content.into(),
            hints: "{}".into(),
        }
    }

    #[test]
    fn one_open_ingest_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        assert_eq!(
            m.open_ingest("k", "t", 0, &[], None).unwrap(),
            Opened::Nothing
        );
        assert_eq!(
            m.open_ingest("k", "t", 0, &[entry("a")], None).unwrap(),
            Opened::New(1)
        );
        assert_eq!(
            m.open_ingest("k", "t", 0, &[entry("b")], None).unwrap(),
            Opened::AlreadyOpen(1)
        );
        assert_eq!(m.batch(1).unwrap().len(), 1);
        assert!(m.abort_ingest(1, "t", 0).unwrap());
        assert_eq!(
            m.open_ingest("k", "t", 0, &[entry("b")], None).unwrap(),
            Opened::New(2)
        );
    }

    #[test]
    fn the_index_itself_refuses_a_second_open_row() {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        let ins = "INSERT INTO ingests (token, status, started_at, remaining) VALUES ('k', 'open', 't', 0)";
        m.conn.execute(ins, []).unwrap();
        assert!(m.conn.execute(ins, []).is_err());
    }

    #[test]
    fn a_started_finalize_cannot_be_aborted() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        m.open_ingest("k", "t", 0, &[entry("a")], None).unwrap();
        m.record_plan(1, &[(1, Outcome::Archive)]).unwrap();
        assert!(!m.abort_ingest(1, "t", 0).unwrap());
        assert_eq!(m.batch(1).unwrap()[0].outcome, Some(Outcome::Archive));
    }

    #[test]
    fn steps_are_stored_and_read_back_by_their_names() {
        let all: Vec<Step> = [Step::Plan]
            .into_iter()
            .chain(Step::AFTER_PLAN)
            .chain([Step::Complete])
            .collect();
        let names: Vec<String> = all.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            [
                "plan", "archive", "inbox", "scan", "regen", "commit", "complete"
            ]
        );
        for (step, name) in all.iter().zip(&names) {
            assert_eq!(name.parse::<Step>().unwrap(), *step);
            assert!(crate::fault::STEPS.contains(&step.fault_point()));
        }
        assert!("finalize".parse::<Step>().is_err());

        let dir = tempfile::tempdir().unwrap();
        let mut m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        m.open_ingest("k", "t", 0, &[entry("a")], None).unwrap();
        m.record_plan(1, &[(1, Outcome::Archive)]).unwrap();
        assert_eq!(m.open_ingest_row().unwrap().unwrap().step, Some(Step::Plan));
        m.record_step(1, Step::Regen).unwrap();
        let stored: String = m
            .conn
            .query_row("SELECT step FROM ingests WHERE id = 1", [], |r| r.get(0))
            .unwrap();
        assert_eq!(stored, "regen");
        assert_eq!(
            m.open_ingest_row().unwrap().unwrap().step,
            Some(Step::Regen)
        );
        // A value no version wrote is an error naming the manifest, not a guess.
        m.conn
            .execute("UPDATE ingests SET step = 'rgen' WHERE id = 1", [])
            .unwrap();
        let err = m.open_ingest_row().unwrap_err().to_string();
        assert!(err.contains("sparks.db") && err.contains("rgen"), "{err}");
        m.conn
            .execute("UPDATE ingests SET step = 'inbox' WHERE id = 1", [])
            .unwrap();
        assert!(m.complete_ingest(1, "t", 0, (1, 0, 0), None, None).unwrap());
        let done = m.last_completed_ingest().unwrap().unwrap();
        assert_eq!(done.step, Some(Step::Complete));
    }
}
