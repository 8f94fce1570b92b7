//! What the ingest operations return: the batch prepare hands the agent, and what finalize and
//! abort did. Their field names are a public contract (the JSON of `sparks ingest` and of the
//! MCP tools), so the types stay together here.

use crate::collections::Collection;
use crate::inbox::Hints;
use crate::lint::Issue;
use crate::manifest::Step;
use crate::scan::ScanIssue;
use serde::Serialize;

/// A batch as the agent sees it (prepare, resume, status).
#[derive(Debug, Clone, Serialize)]
pub struct Batch {
    /// The ingest id; `null` when nothing was opened.
    pub ingest_id: Option<i64>,
    /// The entries to process.
    pub entries: Vec<BatchItem>,
    /// Entries in this batch.
    pub total: usize,
    /// Entries left in the inbox beyond this batch.
    pub remaining: usize,
    /// The collections this batch's captures feed: exactly those finalize regenerates for it
    /// (fewer when entries are kept or edited meanwhile). Registry keys, sorted.
    pub affected_collections: Vec<Collection>,
    /// True when this is an ingest opened earlier and not yet finalized.
    pub already_in_progress: bool,
    /// When the ingest was opened.
    pub started_at: Option<String>,
    /// The last finalize step done, when finalize was interrupted.
    pub step: Option<Step>,
    /// Things worth knowing that did not stop the command.
    pub warnings: Vec<String>,
}

/// One entry of a batch.
#[derive(Debug, Clone, Serialize)]
pub struct BatchItem {
    /// The entry's id in this ingest (1-based), for `finalize --keep`.
    pub id: u32,
    /// `YYYY-MM-DD`: use it for `created:` of pages made from this entry.
    pub capture_date: String,
    /// The capture.
    pub content: String,
    /// blake3 of the content.
    pub hash: String,
    /// What the content looks like it holds.
    pub hints: Hints,
    /// Existing pages where it may belong, the closest first (`[]` when none is close): read
    /// them before writing a page, and extend or link one rather than repeat it.
    pub related: Vec<crate::search::related::Belongs>,
}

/// What prepare did.
#[derive(Debug, Clone)]
pub enum Prepared {
    /// A new ingest was opened.
    Opened(Batch),
    /// One was open already; here it is, to resume.
    InProgress(Batch),
    /// The inbox holds nothing to ingest.
    Empty(Batch),
}

/// What finalize did.
#[derive(Debug, Clone, Serialize)]
pub struct Finalized {
    /// The ingest completed.
    pub ingest_id: i64,
    /// Entries archived and removed from the inbox.
    pub archived: usize,
    /// The same count under the original's key.
    pub entry_count: usize,
    /// How many archive files hold them (the original's key; `archive_files` lists them).
    pub archived_files: usize,
    /// Entries left in the inbox by `--keep`.
    pub kept: usize,
    /// Entries edited or removed since prepare, left alone.
    pub changed: usize,
    /// Entries in the inbox now.
    pub remaining: usize,
    /// The ids of kept entries.
    pub kept_entries: Vec<u32>,
    /// The ids of changed entries.
    pub changed_entries: Vec<u32>,
    /// The archive files holding this ingest's entries.
    pub archive_files: Vec<String>,
    /// The commit made, if any.
    pub commit: Option<String>,
    /// Its abbreviated form, as the text prints it (the original's key).
    pub commit_sha: Option<String>,
    /// Why no commit was made.
    pub commit_skipped: Option<String>,
    /// Files the post-ingest scan could not read.
    pub scan_errors: Vec<ScanIssue>,
    /// Lint issues the batch added to the pages it created or changed (the checks of the
    /// strict gate; the shape of `lint --json`'s issues).
    pub lint_delta: Vec<Issue>,
    /// The collections regenerated for this batch: those its archived captures feed, as
    /// prepare listed them (registry keys, sorted).
    pub regenerated: Vec<Collection>,
    /// Other collections whose pages finalize rewrote because other sources of theirs changed
    /// since the last completed ingest (pages written meanwhile, new raw files).
    pub also_regenerated: Vec<Collection>,
    /// True when this finalize resumed an interrupted one.
    pub resumed: bool,
    /// Things worth knowing that did not stop the command.
    pub warnings: Vec<String>,
}

/// What abort did.
#[derive(Debug, Clone, Serialize)]
pub struct Aborted {
    /// The ingest closed; `null` when none was open.
    pub ingest_id: Option<i64>,
    /// Entries of its batch, all still in the inbox.
    pub entries: usize,
}
