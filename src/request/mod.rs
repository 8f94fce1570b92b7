//! The operations both front ends run. Each is a typed request, built and checked once (the
//! rules of its arguments live in its constructor, nowhere else), that runs against a
//! [`Session`] and returns the report both front ends render: the CLI as text or `--json`, the
//! MCP server as the same JSON. A failure is a [`Failure`], told the same way by both.
//!
//! Adding an operation: a core function, a request here (one file), a command in
//! `src/cli/commands/`, a tool in `src/mcp/tools.rs` (ARCHITECTURE.md, "Where a new command
//! goes").

mod brief;
mod capture;
mod fmt;
mod history;
mod index;
mod ingest;
mod lint;
mod mv;
mod publish;
mod query;
mod read;
mod regen;
mod scan;
mod sync;
mod tasks;

pub use brief::Brief;
pub use capture::Capture;
pub use fmt::Fmt;
pub use history::{IngestRef, ListIngests, Revert, ShowIngest};
pub use index::Index;
pub use ingest::{Abort, Finalize, IngestStatus, OpenBatch, Prepare, PreparedBatch};
pub use lint::Lint;
pub use mv::{Merge, Mv, Reorganise};
pub use publish::Publish;
pub use query::{Query, QueryAnswer};
pub use read::{Affected, Related, SEARCH_LIMIT, Search, Status};
pub use regen::Regen;
pub use scan::Scan;
pub use sync::SyncVault;
pub use tasks::{Done, TasksAdd, TasksList};

use crate::failure::{Action, Advice, Failure, Hint};
use crate::runstate::{Journaled, RunDir};
use crate::scan::Freshness;
use crate::session::Session;
use serde::Serialize;

/// An operation, ready to run.
pub trait Request: Send + 'static {
    /// What it reports.
    type Report: Report;
    /// Whether it may write to the vault's files (the MCP server runs those one at a time). An
    /// operation that only brings the manifest up to date does not count: the manifest is
    /// derived state, and its writes are serialised by SQLite.
    fn writes(&self) -> bool;
    /// Whether it is the rerun that completes this interrupted operation (a request that
    /// may write runs only then while one is in the journal).
    fn resumes(&self, _unfinished: &Journaled) -> bool {
        false
    }
    /// Whether it is the sync that finishes a sync a kill interrupted (every other request
    /// that may write waits for that: it would commit or rewrite the half-written files).
    fn finishes_sync(&self) -> bool {
        false
    }
    /// Whether, when it only reads, it answers from the manifest, which must then reflect the
    /// files ([`Refresh`]).
    fn refresh(&self) -> Refresh {
        Refresh::No
    }
    /// Run it (front ends call [`run`], which guards it).
    fn run(self, session: &Session) -> Result<Self::Report, Failure>;
}

/// How a request that only reads sees the files as they are now: the manifest is brought up
/// to date before it answers, as the session's [`crate::scan::Freshness`] says (`--no-refresh`
/// answers from it as it is; a running watcher's word spares the scan).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    /// It needs no manifest brought up to date: it reads none, reads the files themselves, or
    /// reads only what the files do not make (the history of ingests).
    No,
    /// The request layer brings the manifest up to date before the request runs.
    First,
    /// The operation brings it up to date itself, and says what the scan could not read; it
    /// passes the session's freshness down.
    Within,
}

/// Run a request in a session. While an operation that rewrites several files is unfinished
/// (interrupted), a request that may write runs only if it completes that operation: nothing
/// else may change the files its plan was made from.
pub fn run<R: Request>(request: R, mut session: Session) -> Result<R::Report, Failure> {
    // What git left out of a clone (the merge driver, empty folders), put in cheaply; a device
    // that cannot is told by the next sync, which registers the driver itself.
    let _ = crate::sync::driver::ensure(&session.vault);
    session.fresh = settle(&request, &session);
    if !request.writes() && request.refresh() == Refresh::First {
        let mut manifest = session.manifest()?;
        crate::scan::refresh(
            &session.vault,
            &mut manifest,
            &session.now,
            &mut session.fresh,
            &*session.progress,
        )?;
        session.keep(manifest);
    }
    let journaled = match request.writes() {
        true => {
            // Opened first: opening brings in a journal an earlier Sparks kept in the manifest.
            session.keep(session.manifest()?);
            RunDir::of(&session.vault.root).journaled()?
        }
        false => None,
    };
    if let Some(j) = journaled
        && !request.resumes(&j)
    {
        return Err(Failure {
            message: format!(
                "{} (started {}) was interrupted{}; it must be completed before anything \
                 else writes to the vault",
                j.operation,
                j.started_at,
                j.step
                    .as_deref()
                    .map(|s| format!(" after {s}"))
                    .unwrap_or_default()
            ),
            causes: Vec::new(),
            hint: Some(crate::runstate::finish_or_give_up(&j.operation)),
            usage: false,
        });
    }
    if request.writes()
        && !request.finishes_sync()
        && let Some(sync) = RunDir::of(&session.vault.root).sync_merge()?
    {
        return Err(Failure {
            message: format!(
                "a sync (started {}) was interrupted while it wrote {} into the vault; it must \
                 be completed before anything else writes to the vault",
                if sync.started_at.is_empty() {
                    "earlier"
                } else {
                    sync.started_at.as_str()
                },
                match sync.changed.len() {
                    1 => "1 file".to_string(),
                    n => format!("{n} files"),
                }
            ),
            causes: Vec::new(),
            hint: Some(
                Advice::run(Action::Sync)
                    .then(": it completes what it started, and keeps whatever was written since"),
            ),
            usage: false,
        });
    }
    request.run(&session)
}

/// How fresh the manifest must be for `request`, from the front end's choice in `session`: an
/// operation that writes (or reads no manifest) scans before each decision
/// ([`Freshness::Scan`]); one that answers from the manifest takes a running watcher's word
/// that it applied every change made before now, asked for with a cookie
/// ([`crate::watch::vouch`]), unless the front end said to answer from it as it is.
fn settle<R: Request>(request: &R, session: &Session) -> Freshness {
    if request.writes() || request.refresh() == Refresh::No {
        return Freshness::Scan;
    }
    match session.fresh {
        Freshness::AsIs => Freshness::AsIs,
        fresh => match crate::watch::vouch(&session.vault.root, crate::watch::VOUCH_WAIT) {
            true => Freshness::AsIs,
            false => fresh,
        },
    }
}

/// A report: JSON for both front ends, and how it ends a command.
pub trait Report: Serialize + Send + 'static {
    /// How the command that printed it ends (the CLI's exit code; the MCP server answers any
    /// ending as a normal result, the data saying what happened).
    fn ending(&self) -> Ending {
        Ending::Done
    }

    /// Word the advice the report carries (a lint note's hint), in the words of the front end
    /// that renders it; most reports carry none.
    fn word(&mut self, _word: crate::failure::Wording) {}
}

/// How an operation that ran ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It did what was asked.
    Done,
    /// It ran and found problems (lint or fmt issues, an ambiguous `done`, unreadable files).
    Problems,
    /// Another ingest is open: the report is that ingest's batch.
    IngestOpen,
}

impl Hint for crate::fmt::FmtError {
    fn hint(&self) -> Option<Advice> {
        None
    }
}

impl Hint for crate::ingest::FinalizeFailed {
    fn hint(&self) -> Option<Advice> {
        Some(self.error.finalize_hint())
    }
}

#[cfg(test)]
mod tests;
