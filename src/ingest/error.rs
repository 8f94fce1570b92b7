//! How the ingest operations fail, and `FinalizeFailed`, which also says which steps were
//! done before the failure (running finalize again resumes after them).

use super::REWRITE_ATTEMPTS;
use crate::archive::ArchiveError;
use crate::git::GitError;
use crate::inbox::InboxError;
use crate::manifest::{ManifestError, Step};
use crate::scan::ScanError;
use std::path::PathBuf;

/// An ingest operation failed.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// `inbox.md` does not exist.
    #[error("{} does not exist", .0.display())]
    InboxMissing(PathBuf),
    /// `inbox.md` cannot be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    InboxIo {
        /// read or replace
        action: &'static str,
        /// The inbox.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `inbox.md` cannot be parsed.
    #[error(transparent)]
    Inbox(#[from] InboxError),
    /// The inbox kept changing while finalize tried to rewrite it.
    #[error("inbox.md changed {REWRITE_ATTEMPTS} times while finalize was rewriting it")]
    InboxBusy,
    /// No ingest is open.
    #[error("no ingest is open")]
    NoOpenIngest,
    /// `--keep` names an entry the batch does not have.
    #[error("ingest {ingest} has no entry {entry} (its entries are 1 to {count})")]
    UnknownEntry {
        /// The ingest.
        ingest: i64,
        /// The id asked for.
        entry: u32,
        /// How many entries the batch has.
        count: usize,
    },
    /// Finalize has started on the ingest, so it cannot be aborted.
    #[error(
        "ingest {ingest} is partly finalized (its last step done was {step}), so it cannot be aborted"
    )]
    AbortRefused {
        /// The ingest.
        ingest: i64,
        /// Its last step.
        step: Step,
    },
    /// The vault lock could not be taken.
    #[error("cannot lock the vault: {0}")]
    Lock(std::io::Error),
    /// Archiving failed.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// The scan failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// Regenerating the collections failed.
    #[error(transparent)]
    Regen(#[from] crate::collections::regen::RegenError),
    /// The commit failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

impl IngestError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            IngestError::InboxMissing(_) => {
                Some("run `sparks init` in the vault to create inbox.md again")
            }
            IngestError::NoOpenIngest => Some("run `sparks ingest --prepare` first"),
            IngestError::AbortRefused { .. } => {
                Some("run `sparks ingest --finalize` again: it resumes where it stopped")
            }
            IngestError::Git(g) => g.hint(),
            IngestError::Manifest(m) => m.hint(),
            IngestError::Scan(s) => s.hint(),
            IngestError::Regen(r) => r.hint(),
            _ => None,
        }
    }
}

/// Finalize stopped part-way (or could not start); running it again resumes.
#[derive(Debug)]
pub struct FinalizeFailed {
    /// The ingest (0 when none is open).
    pub ingest: i64,
    /// Steps done before the failure.
    pub done: Vec<Step>,
    /// The cause.
    pub error: Box<IngestError>,
}

impl std::fmt::Display for FinalizeFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.ingest, self.done.as_slice()) {
            (0, _) => write!(f, "cannot finalize: {}", self.error),
            (id, []) => write!(f, "cannot finalize ingest {id}"),
            (id, done) => write!(
                f,
                "finalize of ingest {id} stopped after {} (nothing is lost; run it again to resume)",
                done.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl std::error::Error for FinalizeFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // With no ingest there is nothing to add: the message is the cause.
        (self.ingest != 0).then_some(&*self.error as _)
    }
}

/// A [`FinalizeFailed`] for `ingest` after the steps `done`.
pub(super) fn failed(ingest: i64, done: &[Step], error: IngestError) -> FinalizeFailed {
    FinalizeFailed {
        ingest,
        done: done.to_vec(),
        error: Box::new(error),
    }
}
