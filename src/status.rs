//! `status`: what the vault holds and what is pending, from the manifest and the inbox, and
//! whether the installed agent instruction files still hold the current contract.

use crate::contract::{self, Installed};
use crate::inbox::Inbox;
use crate::manifest::{Manifest, ManifestError, Step, TypeCount, meta::LAST_SCAN};
use crate::runstate::{RunDir, RunStateError};
use crate::vault::{INBOX, Vault};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The five page types, in display order, with their plurals.
pub const TYPES: &[(&str, &str)] = &[
    ("entity", "entities"),
    ("concept", "concepts"),
    ("summary", "summaries"),
    ("synthesis", "syntheses"),
    ("collection", "collections"),
];

/// The vault at a glance.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    /// The vault's name.
    pub vault_name: String,
    /// Its root.
    pub vault_root: PathBuf,
    /// The manifest's schema version.
    pub schema_version: i64,
    /// When the last scan ran, if ever.
    pub last_scan: Option<String>,
    /// Pages per type present, as the original's map `{type: count}`.
    pub pages_by_type: BTreeMap<String, u64>,
    /// Pages per type: the five types first (zeros included), then any other type, sorted.
    pub page_counts: Vec<PageCount>,
    /// Wiki Markdown files, with or without frontmatter.
    pub pages: u64,
    /// Entries an ingest would see (the original's key; `inbox.pending`).
    pub inbox_pending: usize,
    /// The inbox.
    pub inbox: InboxStatus,
    /// Manifest file counts.
    pub files: FileCounts,
    /// The open ingest, if there is one.
    pub open_ingest: Option<OpenIngest>,
    /// An operation that rewrites several files (`mv`, `merge`, `ingest --revert`) and was
    /// interrupted: running its command again completes it.
    pub unfinished: Option<Unfinished>,
    /// The conflict copies a sync left beside a file, not yet reconciled (merged into the file
    /// and deleted), by copy.
    pub conflict_copies: Vec<CopyStatus>,
    /// The vault's watcher (`sparks watch`, or the one `serve` or `view` runs).
    pub watch: WatchStatus,
    /// The agent instruction files at the vault root.
    pub contract: ContractStatus,
}

/// Whether a watcher keeps the manifest current: every field but `running` is null when none
/// runs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WatchStatus {
    /// A watcher holds the vault's watcher lock.
    pub running: bool,
    /// Its process id.
    pub pid: Option<u32>,
    /// When it started.
    pub since: Option<String>,
    /// When it last applied a change.
    pub last_event: Option<String>,
    /// `native` (file events) or `polling`.
    pub mode: Option<&'static str>,
}

impl WatchStatus {
    /// The watcher of the vault at `root`, as it says it is.
    pub fn of(root: &std::path::Path) -> WatchStatus {
        match crate::watch::running(root) {
            None => WatchStatus::default(),
            Some(w) => WatchStatus {
                running: true,
                pid: Some(w.pid),
                since: Some(w.since).filter(|s| !s.is_empty()),
                last_event: w.last_event,
                mode: Some(w.mode.as_str()),
            },
        }
    }
}

/// A conflict copy not yet reconciled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CopyStatus {
    /// The file it is a version of.
    pub path: String,
    /// The copy, beside it.
    pub copy: String,
}

/// The agent instruction files, compared with the contract in this binary.
#[derive(Debug, Clone, Serialize)]
pub struct ContractStatus {
    /// Each of CLAUDE.md, AGENTS.md and GEMINI.md that exists, with its state.
    pub files: Vec<Installed>,
}

/// Pages of one type.
#[derive(Debug, Clone, Serialize)]
pub struct PageCount {
    /// The type.
    #[serde(rename = "type")]
    pub kind: String,
    /// How many pages have it.
    pub count: u64,
    /// `1 entity`, `3 entities`.
    pub label: String,
}

/// The inbox's state.
#[derive(Debug, Clone, Serialize)]
pub struct InboxStatus {
    /// Entries an ingest would see (the same splitter).
    pub pending: usize,
    /// Why the inbox cannot be read, if it cannot.
    pub error: Option<String>,
}

/// File counts.
#[derive(Debug, Clone, Serialize)]
pub struct FileCounts {
    /// Every file the manifest has seen, deleted ones included (the original's key).
    pub total: u64,
    /// Live files.
    pub tracked: u64,
    /// Live files whose content changed after the last completed ingest.
    pub changed_since_ingest: u64,
    /// The same count under the original's key.
    pub changed: u64,
    /// Files gone since they were last seen.
    pub deleted: u64,
}

impl Status {
    /// Say what completes the unfinished operation in the words of a front end.
    pub fn word(&mut self, word: crate::failure::Wording) {
        if let Some(u) = &mut self.unfinished {
            u.command = word(&u.resume);
        }
    }
}

/// An interrupted operation, as its journal in `.sparks/` records it.
#[derive(Debug, Clone, Serialize)]
pub struct Unfinished {
    /// `mv`, `merge`, `revert` or `sync`.
    pub kind: String,
    /// What completes it, in the words of the front end that renders the report (the CLI's
    /// command line, the MCP server's tool call): [`Status::word`].
    pub command: String,
    /// What completes it.
    #[serde(skip)]
    pub resume: crate::failure::Action,
    /// The pages it concerns: the page moved and where, the pages merged, the pages a revert
    /// puts back.
    pub pages: Vec<String>,
    /// When it started.
    pub started_at: String,
    /// The last step it did, if any.
    pub step: Option<String>,
}

/// The open ingest.
#[derive(Debug, Clone, Serialize)]
pub struct OpenIngest {
    /// Its id.
    pub id: i64,
    /// When prepare opened it.
    pub started_at: String,
    /// Its batch size.
    pub entries: usize,
    /// The last finalize step done, if finalize was interrupted.
    pub step: Option<Step>,
}

/// Reading the status failed.
#[derive(Debug, thiserror::Error)]
pub enum StatusError {
    /// The manifest could not be read.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The journal in `.sparks/` could not be read.
    #[error(transparent)]
    RunState(#[from] RunStateError),
}

impl crate::failure::Hint for StatusError {
    /// What the user can do about it.
    fn hint(&self) -> Option<crate::failure::Advice> {
        match self {
            StatusError::Manifest(e) => e.hint(),
            StatusError::RunState(e) => e.hint(),
        }
    }
}

/// Gather the status of the vault.
pub fn status(
    vault: &Vault,
    manifest: &Manifest,
    today: chrono::NaiveDate,
) -> Result<Status, StatusError> {
    let since = manifest
        .last_completed_ingest()?
        .and_then(|r| r.finished_ns);
    let counts = manifest.counts(since)?;
    let page_counts = page_counts(&counts.pages_by_type);
    let inbox = inbox(vault, today);
    let open_ingest = match manifest.open_ingest_row()? {
        Some(row) => Some(OpenIngest {
            entries: manifest.batch(row.id)?.len(),
            id: row.id,
            started_at: row.started_at,
            step: row.step,
        }),
        None => None,
    };
    let conflict_copies = manifest
        .conflict_copies()?
        .into_iter()
        .filter_map(|copy| {
            let of = crate::vault::conflict_copy(&copy)?;
            Some(CopyStatus {
                path: of.original,
                copy,
            })
        })
        .collect();
    let run = RunDir::of(&vault.root);
    let unfinished = match run.journaled()? {
        Some(j) => Some(Unfinished {
            kind: j.kind,
            command: j.operation.to_string(),
            resume: crate::failure::Action::Resume(j.operation),
            pages: j.pages,
            started_at: j.started_at,
            step: j.step,
        }),
        // A sync a kill interrupted: the files it was writing.
        None => run.sync_merge()?.map(|m| Unfinished {
            kind: "sync".to_string(),
            command: "a sync".to_string(),
            resume: crate::failure::Action::Sync,
            pages: m.changed,
            started_at: m.started_at,
            step: Some(match (m.forward.is_some(), m.checked_out) {
                (true, _) => "fetch".to_string(),
                (false, false) => "merge".to_string(),
                (false, true) => "write".to_string(),
            }),
        }),
    };
    Ok(Status {
        vault_name: vault.name(),
        vault_root: vault.root.clone(),
        schema_version: manifest.schema_version()?,
        last_scan: manifest.meta(LAST_SCAN)?,
        pages_by_type: page_counts
            .iter()
            .filter(|p| p.count > 0)
            .map(|p| (p.kind.clone(), p.count))
            .collect(),
        page_counts,
        pages: counts.pages,
        inbox_pending: inbox.pending,
        inbox,
        files: FileCounts {
            total: counts.tracked + counts.deleted,
            tracked: counts.tracked,
            changed_since_ingest: counts.changed_since_ingest,
            changed: counts.changed_since_ingest,
            deleted: counts.deleted,
        },
        open_ingest,
        unfinished,
        conflict_copies,
        watch: WatchStatus::of(&vault.root),
        contract: ContractStatus {
            files: contract::installed(&vault.root),
        },
    })
}

/// The pages by type: the standard four always (in their order), then any other type the
/// pages have, by name.
fn page_counts(by_type: &[TypeCount]) -> Vec<PageCount> {
    let mut page_counts: Vec<PageCount> = TYPES
        .iter()
        .map(|(kind, plural)| {
            let count = by_type
                .iter()
                .find(|t| t.kind == *kind)
                .map_or(0, |t| t.count);
            PageCount {
                kind: kind.to_string(),
                count,
                label: format!("{count} {}", if count == 1 { kind } else { plural }),
            }
        })
        .collect();
    let mut others: Vec<_> = by_type
        .iter()
        .filter(|t| !TYPES.iter().any(|(k, _)| *k == t.kind))
        .collect();
    others.sort_by(|a, b| a.kind.cmp(&b.kind));
    page_counts.extend(others.into_iter().map(|t| PageCount {
        kind: t.kind.clone(),
        count: t.count,
        label: format!("{} {}", t.count, t.kind),
    }));
    page_counts
}

/// The inbox's pending entries, or why it could not be read.
fn inbox(vault: &Vault, today: chrono::NaiveDate) -> InboxStatus {
    match crate::fsio::read(&vault.path(INBOX)) {
        Ok(bytes) => match Inbox::parse(&bytes, today) {
            Ok(i) => InboxStatus {
                pending: i.entries.len(),
                error: None,
            },
            Err(e) => InboxStatus {
                pending: 0,
                error: Some(e.to_string()),
            },
        },
        Err(e) => InboxStatus {
            pending: 0,
            error: Some(format!("cannot read {}: {e}", vault.path(INBOX).display())),
        },
    }
}
