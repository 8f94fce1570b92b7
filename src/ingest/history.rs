//! The history of ingests: `ingest --list` (every ingest, newest first, or those that
//! touched one page) and `ingest --show` (one ingest: its entries, where each was archived, the
//! pages it touched and what happened to each, its commit and the lint issues it added).

use super::IngestError;
use super::provenance::recorded_delta;
use crate::archive;
use crate::lint::Issue;
use crate::manifest::{IngestRecord, IngestStatus, Manifest, Outcome, PageAction, Resolution};
use crate::vault::ARCHIVE_DIR;
use serde::Serialize;

/// Where an ingest stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Prepared, not finalized yet.
    Open,
    /// Finalized.
    Completed,
    /// Closed without archiving.
    Aborted,
    /// Finalized, then reverted.
    Reverted,
}

impl State {
    /// The name printed.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Open => "open",
            State::Completed => "completed",
            State::Aborted => "aborted",
            State::Reverted => "reverted",
        }
    }

    /// The state of a recorded ingest: its status, but for a completed one reverted since.
    pub fn of(r: &IngestRecord) -> State {
        match (r.status, &r.reverted_at) {
            (IngestStatus::Open, _) => State::Open,
            (IngestStatus::Aborted, _) => State::Aborted,
            (IngestStatus::Completed, Some(_)) => State::Reverted,
            (IngestStatus::Completed, None) => State::Completed,
        }
    }
}

/// How many pages an ingest created, changed and deleted.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PageCounts {
    /// Pages it created.
    pub created: usize,
    /// Pages whose content it changed.
    pub changed: usize,
    /// Pages it deleted.
    pub deleted: usize,
}

/// One ingest in the list.
#[derive(Debug, Clone, Serialize)]
pub struct IngestSummary {
    /// The ingest id.
    pub ingest_id: i64,
    /// open, completed, aborted or reverted.
    pub state: State,
    /// When prepare opened it (RFC 3339, local offset).
    pub prepared_at: String,
    /// When finalize completed it.
    pub finalized_at: Option<String>,
    /// When it was aborted.
    pub aborted_at: Option<String>,
    /// When it was reverted.
    pub reverted_at: Option<String>,
    /// Entries in its batch.
    pub entry_count: usize,
    /// Entries it archived.
    pub archived: Option<usize>,
    /// What it did to the wiki's pages (all zero without provenance).
    pub pages: PageCounts,
    /// Whether what it did is recorded (false for ingests from before provenance, and for
    /// those not finalized).
    pub provenance: bool,
    /// The commit finalize made.
    pub commit: Option<String>,
    /// Its token: its name on every device (`--show` and `--revert` take it as well as the id).
    pub token: String,
    /// Its number on the device that made it (its archive markers and commit carry it); the
    /// id, unless it came with git's history from another device.
    pub number: i64,
    /// Whether it came with git's history (made on another device, or here before the manifest
    /// was deleted) rather than being recorded here as it ran.
    pub imported: bool,
}

impl IngestSummary {
    fn of(r: &IngestRecord) -> IngestSummary {
        let state = State::of(r);
        let (created, changed, deleted) = r.counts;
        IngestSummary {
            ingest_id: r.id,
            state,
            prepared_at: r.started_at.clone(),
            finalized_at: r
                .finished_at
                .clone()
                .filter(|_| r.status == IngestStatus::Completed),
            aborted_at: r
                .finished_at
                .clone()
                .filter(|_| r.status == IngestStatus::Aborted),
            reverted_at: r.reverted_at.clone(),
            entry_count: r.entries,
            archived: r.archived,
            pages: PageCounts {
                created,
                changed,
                deleted,
            },
            provenance: r.snapshot && r.status == IngestStatus::Completed,
            commit: r.commit_sha.clone(),
            token: r.token.clone(),
            number: r.number,
            imported: r.imported,
        }
    }
}

/// `ingest --list`.
#[derive(Debug, Clone, Serialize)]
pub struct IngestList {
    /// With `--page`: the page asked about.
    pub page: Option<String>,
    /// With `--page`: the paths it names (a page moved or deleted has had several).
    pub paths: Vec<String>,
    /// The ingests, newest first.
    pub ingests: Vec<IngestSummary>,
}

/// Every ingest, newest first; with `page`, those that touched it.
pub fn list(manifest: &Manifest, page: Option<&str>) -> Result<IngestList, IngestError> {
    let records = manifest.ingest_records()?;
    let Some(page) = page else {
        return Ok(IngestList {
            page: None,
            paths: Vec::new(),
            ingests: records.iter().map(IngestSummary::of).collect(),
        });
    };
    let paths = page_paths(manifest, page)?;
    let touching = manifest.ingests_touching(&paths)?;
    Ok(IngestList {
        page: Some(page.to_string()),
        paths,
        ingests: records
            .iter()
            .filter(|r| touching.contains(&r.id))
            .map(IngestSummary::of)
            .collect(),
    })
}

/// The paths `page` names: the page it resolves to now, and every path an ingest touched
/// that it names (by path, with or without `wiki/` and `.md`, or by file name), so that the
/// history of a deleted page can be asked for too.
fn page_paths(manifest: &Manifest, page: &str) -> Result<Vec<String>, IngestError> {
    let mut out = Vec::new();
    if let Resolution::Resolved(p) = manifest.resolve_name(page)? {
        out.push(p);
    }
    let want = page.trim().trim_end_matches(".md");
    let key = crate::key::link_key(want);
    for p in manifest.touched_paths()? {
        let bare = p.trim_end_matches(".md");
        let name = bare.rsplit('/').next().unwrap_or(bare);
        if bare == want
            || bare.strip_prefix("wiki/") == Some(want)
            || crate::key::link_key(name) == key
        {
            out.push(p);
        }
    }
    out.sort();
    out.dedup();
    if out.is_empty() {
        return Err(IngestError::UnknownPage(page.to_string()));
    }
    Ok(out)
}

/// One entry of a shown ingest.
#[derive(Debug, Clone, Serialize)]
pub struct ShownEntry {
    /// Its id in the batch.
    pub id: u32,
    /// `YYYY-MM-DD`.
    pub capture_date: String,
    /// The first line of the capture.
    pub first_line: String,
    /// What finalize did with it: archive, keep or changed (`null` before finalize).
    pub outcome: Option<&'static str>,
    /// The archive file holding it, when archived.
    pub archived_to: Option<String>,
    /// The marker line of its archive block.
    pub marker: Option<String>,
}

/// One page of a shown ingest.
#[derive(Debug, Clone, Serialize)]
pub struct ShownPage {
    /// Vault-relative path.
    pub path: String,
    /// What the ingest did to it.
    pub action: PageAction,
}

/// `ingest --show`.
#[derive(Debug, Clone, Serialize)]
pub struct IngestDetail {
    /// The ingest, as the list shows it.
    #[serde(flatten)]
    pub summary: IngestSummary,
    /// Why finalize made no commit.
    pub commit_skipped: Option<String>,
    /// The commit the revert made.
    pub revert_commit: Option<String>,
    /// Its batch.
    pub entries: Vec<ShownEntry>,
    /// The pages it touched, by path.
    pub page_changes: Vec<ShownPage>,
    /// The lint issues it added to its pages.
    pub lint_delta: Vec<Issue>,
}

/// Ingest `id` in full.
pub fn show(manifest: &Manifest, id: i64) -> Result<IngestDetail, IngestError> {
    let r = manifest
        .ingest_record(id)?
        .ok_or(IngestError::UnknownIngest(id))?;
    let entries = manifest
        .batch(id)?
        .into_iter()
        .map(|e| {
            let archived = e.outcome == Some(Outcome::Archive);
            ShownEntry {
                id: e.id,
                capture_date: e.capture_date.clone(),
                first_line: first_line(&e.content),
                outcome: e.outcome.map(Outcome::as_str),
                archived_to: archived.then(|| format!("{ARCHIVE_DIR}/{}.md", e.capture_date)),
                marker: archived.then(|| archive::marker(r.number, &r.token, e.id, &e.hash)),
            }
        })
        .collect();
    let page_changes = manifest
        .ingest_pages(id)?
        .into_iter()
        .map(|(c, _)| ShownPage {
            path: c.path,
            action: c.action,
        })
        .collect();
    Ok(IngestDetail {
        summary: IngestSummary::of(&r),
        commit_skipped: r.commit_note.clone(),
        revert_commit: r.revert_commit.clone(),
        entries,
        page_changes,
        lint_delta: recorded_delta(manifest, id)?,
    })
}

/// The first non-blank line of a capture.
pub fn first_line(content: &str) -> String {
    content
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .trim()
        .to_string()
}
