//! The record of the open ingest: the batch prepare handed out (`ingest-batch.json`, written
//! once) and how far finalize got with it (`ingest.json`: the outcome of each entry, the last
//! step done, the inbox rewrite it was about to make). Each change is written here before the
//! manifest's copy, so that the record is never behind the manifest; it goes once the manifest
//! holds the ingest closed. The batch is written before the record that names it and removed
//! after it: the record's existence is the open ingest's.

use super::{Result, RunDir};
use crate::manifest::{BatchEntry, IngestRow, IngestStatus, Outcome, Step};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub(super) const RECORD: &str = "ingest.json";
pub(super) const BATCH: &str = "ingest-batch.json";

/// The open ingest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenIngest {
    /// The ingest id.
    pub id: i64,
    /// Its token (archive markers and commit trailers carry it).
    pub token: String,
    /// When prepare opened it (RFC 3339).
    pub started_at: String,
    /// Inbox entries left out of the batch at prepare.
    pub remaining: i64,
    /// The last finalize step done.
    pub step: Option<Step>,
    /// The inbox rewrite finalize was about to make (`<len>:<blake3>` of the old and new
    /// content).
    pub inbox_rewrite: Option<(String, String)>,
    /// The batch, with each entry's outcome once finalize has planned.
    pub entries: Vec<BatchEntry>,
}

/// `ingest.json`: all of the open ingest but its batch's contents.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    id: i64,
    token: String,
    started_at: String,
    remaining: i64,
    step: Option<Step>,
    inbox_rewrite: Option<(String, String)>,
    /// The outcome finalize decided for each entry, by entry id.
    #[serde(default)]
    outcomes: BTreeMap<u32, Outcome>,
}

impl OpenIngest {
    /// The record of the manifest's open ingest `row` with its batch.
    pub fn of(row: &IngestRow, entries: Vec<BatchEntry>) -> OpenIngest {
        OpenIngest {
            id: row.id,
            token: row.token.clone(),
            started_at: row.started_at.clone(),
            remaining: row.remaining,
            step: row.step,
            inbox_rewrite: row.inbox_rewrite.clone(),
            entries,
        }
    }

    /// The manifest row it stands for.
    pub fn row(&self) -> IngestRow {
        IngestRow {
            id: self.id,
            token: self.token.clone(),
            status: IngestStatus::Open,
            started_at: self.started_at.clone(),
            finished_at: None,
            finished_ns: None,
            step: self.step,
            remaining: self.remaining,
            commit_sha: None,
            inbox_rewrite: self.inbox_rewrite.clone(),
        }
    }
}

impl RunDir {
    /// The open ingest, if one is recorded.
    pub fn open_ingest(&self) -> Result<Option<OpenIngest>> {
        let Some(r) = self.read::<Record>(RECORD)? else {
            return Ok(None);
        };
        let mut entries: Vec<BatchEntry> = self.read(BATCH)?.unwrap_or_default();
        for e in &mut entries {
            e.outcome = r.outcomes.get(&e.id).copied();
        }
        Ok(Some(OpenIngest {
            id: r.id,
            token: r.token,
            started_at: r.started_at,
            remaining: r.remaining,
            step: r.step,
            inbox_rewrite: r.inbox_rewrite,
            entries,
        }))
    }

    /// Record the open ingest whole: a new one, or one the manifest held without a record.
    pub fn record_ingest(&self, open: &OpenIngest) -> Result<()> {
        let batch: Vec<BatchEntry> = open
            .entries
            .iter()
            .map(|e| BatchEntry {
                outcome: None,
                ..e.clone()
            })
            .collect();
        self.write(BATCH, &batch)?;
        self.write(
            RECORD,
            &Record {
                id: open.id,
                token: open.token.clone(),
                started_at: open.started_at.clone(),
                remaining: open.remaining,
                step: open.step,
                inbox_rewrite: open.inbox_rewrite.clone(),
                outcomes: open
                    .entries
                    .iter()
                    .filter_map(|e| Some((e.id, e.outcome?)))
                    .collect(),
            },
        )
    }

    /// Record finalize's plan for ingest `id`: each entry's outcome, and the plan step done.
    pub fn record_plan(&self, id: i64, plan: &[(u32, Outcome)]) -> Result<()> {
        self.update_record(id, |r| {
            r.outcomes = plan.iter().copied().collect();
            r.step = Some(Step::Plan);
        })
    }

    /// Record that finalize of ingest `id` has done `step`.
    pub fn record_step(&self, id: i64, step: Step) -> Result<()> {
        self.update_record(id, |r| r.step = Some(step))
    }

    /// Record the inbox rewrite finalize of ingest `id` is about to make.
    pub fn record_inbox_rewrite(&self, id: i64, before: &str, after: &str) -> Result<()> {
        self.update_record(id, |r| {
            r.inbox_rewrite = Some((before.to_string(), after.to_string()));
        })
    }

    fn update_record(&self, id: i64, change: impl FnOnce(&mut Record)) -> Result<()> {
        if let Some(mut r) = self.read::<Record>(RECORD)?
            && r.id == id
        {
            change(&mut r);
            self.write(RECORD, &r)?;
        }
        Ok(())
    }

    /// The open ingest is closed (the manifest says so already): its record goes, then its
    /// batch.
    pub fn close_ingest(&self) -> Result<()> {
        self.remove(RECORD)?;
        self.remove(BATCH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: u32, content: &str) -> BatchEntry {
        BatchEntry {
            id,
            capture_date: "2026-04-10".into(),
            hash: blake3::hash(content.as_bytes()).to_hex().to_string(),
            content: content.into(),
            hints: "{}".into(),
            outcome: None,
        }
    }

    #[test]
    fn the_record_reads_back_as_each_step_left_it() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::of(dir.path());
        assert_eq!(run.open_ingest().unwrap(), None);
        let open = OpenIngest {
            id: 7,
            token: "abc".into(),
            started_at: "t".into(),
            remaining: 2,
            step: None,
            inbox_rewrite: None,
            entries: vec![entry(1, "one"), entry(2, "two")],
        };
        run.record_ingest(&open).unwrap();
        assert_eq!(run.open_ingest().unwrap().as_ref(), Some(&open));
        run.record_plan(7, &[(1, Outcome::Archive), (2, Outcome::Keep)])
            .unwrap();
        run.record_inbox_rewrite(7, "3:x", "1:y").unwrap();
        run.record_step(7, Step::Inbox).unwrap();
        run.record_step(8, Step::Regen).unwrap();
        let read = run.open_ingest().unwrap().unwrap();
        assert_eq!(
            read.step,
            Some(Step::Inbox),
            "another ingest's step is not taken"
        );
        assert_eq!(read.inbox_rewrite, Some(("3:x".into(), "1:y".into())));
        let outcomes: Vec<_> = read.entries.iter().map(|e| e.outcome).collect();
        assert_eq!(outcomes, [Some(Outcome::Archive), Some(Outcome::Keep)]);
        assert_eq!(read.entries[1].content, "two");
        run.close_ingest().unwrap();
        assert_eq!(run.open_ingest().unwrap(), None);
        let left: Vec<_> = fs_err::read_dir(run.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("ingest"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
