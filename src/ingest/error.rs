//! How the ingest operations fail, and `FinalizeFailed`, which also says which steps were
//! done before the failure (running finalize again resumes after them).

use super::REWRITE_ATTEMPTS;
use crate::archive::ArchiveError;
use crate::failure::{Action, Advice, Hint};
use crate::fsio::FileError;
use crate::git::GitError;
use crate::inbox::InboxError;
use crate::lint::Issue;
use crate::manifest::{ManifestError, Step};
use crate::scan::ScanError;
use std::path::PathBuf;

/// An ingest operation failed.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// `inbox.md` does not exist.
    #[error("{} does not exist", .0.display())]
    InboxMissing(PathBuf),
    /// `inbox.md` or a page could not be read, written or removed.
    #[error(transparent)]
    Io(#[from] FileError),
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
    /// A record of the open ingest or of an unfinished revert (`.sparks/`) failed.
    #[error(transparent)]
    RunState(#[from] crate::runstate::RunStateError),
    /// The manifest's copy of the open ingest could not be brought back to its record.
    #[error(transparent)]
    Restore(#[from] crate::runstate::RestoreError),
    /// No ingest has this id.
    #[error("there is no ingest {0}")]
    UnknownIngest(i64),
    /// No ingest has this token, here or in git's history.
    #[error("there is no ingest with the token {0}, here or in git's history")]
    UnknownToken(String),
    /// `--page` names no page, now or in any ingest's history.
    #[error("no page is called {0:?}, and no ingest touched a page of that name")]
    UnknownPage(String),
    /// The ingest cannot be reverted in its state.
    #[error("ingest {ingest} cannot be reverted: {why}")]
    NotRevertible {
        /// The ingest.
        ingest: i64,
        /// Why not.
        why: String,
    },
    /// The content of a page before the ingest cannot be found.
    #[error(
        "cannot revert ingest {ingest}: the content of {path} before it is not kept in the \
         manifest{}",
        .git.as_deref().map(|g| format!(" and cannot be read from git ({g})")).unwrap_or_default()
    )]
    NoContentBefore {
        /// The ingest.
        ingest: i64,
        /// The page.
        path: String,
        /// What git said, when the vault is a repository.
        git: Option<String>,
    },
    /// A page changed while a revert was interrupted.
    #[error(
        "{path} changed while the revert of ingest {ingest} was interrupted: it is neither as \
         the ingest left it nor as it was before"
    )]
    ChangedMidRevert {
        /// The ingest.
        ingest: i64,
        /// The page.
        path: String,
    },
    /// Linting the batch's pages failed.
    #[error(transparent)]
    Lint(#[from] crate::lint::LintError),
    /// A strict finalize found lint issues the batch added.
    #[error("{}", strict_message(*.ingest, .issues))]
    Strict {
        /// The ingest.
        ingest: i64,
        /// The issues its batch added.
        issues: Vec<Issue>,
    },
}

/// What a strict finalize says when it refuses a batch: each issue on a line of its own.
fn strict_message(ingest: i64, issues: &[Issue]) -> String {
    let mut text = format!(
        "strict finalize: the batch of ingest {ingest} adds {} to its pages; nothing was archived",
        match issues.len() {
            1 => "1 lint issue".to_string(),
            n => format!("{n} lint issues"),
        }
    );
    for i in issues {
        let at = i.line.map(|l| format!(":{l}")).unwrap_or_default();
        text.push_str(&format!("\n    {}{at}: {}: {}", i.path, i.check, i.message));
    }
    text
}

impl IngestError {
    /// What to do when finalize stopped: the cause's advice, or to finalize again.
    pub fn finalize_hint(&self) -> Advice {
        self.hint().unwrap_or_else(|| {
            Advice::say("fix the cause and ")
                .then_run(Action::Finalize)
                .then(": it resumes where it stopped")
        })
    }
}

impl Hint for IngestError {
    /// What the user can do about it.
    fn hint(&self) -> Option<Advice> {
        match self {
            IngestError::RunState(e) => e.hint(),
            IngestError::Restore(e) => e.hint(),
            IngestError::InboxMissing(_) => {
                Some(Advice::run(Action::Init).then(" to create inbox.md again"))
            }
            IngestError::NoOpenIngest => Some(Advice::run(Action::Prepare).then(" first")),
            IngestError::AbortRefused { .. } => {
                Some(Advice::run(Action::Finalize).then(" again: it resumes where it stopped"))
            }
            IngestError::Git(g) => g.hint(),
            IngestError::Manifest(m) => m.hint(),
            IngestError::Scan(s) => s.hint(),
            IngestError::Regen(r) => r.hint(),
            IngestError::UnknownIngest(_) | IngestError::UnknownToken(_) => {
                Some(Advice::run(Action::ListIngests).then(" to list the ingests"))
            }
            IngestError::ChangedMidRevert { .. } => Some(Advice::say(
                "put the page back as the ingest left it (or as it was before it), then run the \
                 revert again to complete it",
            )),
            IngestError::Strict { .. } => Some(Advice::say(
                "fix the pages and finalize again: the ingest stays open (a finalize that is not \
                 strict archives the batch and reports the issues as lint_delta)",
            )),
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
