//! The manifest's copy of the run-time state, brought back to the records: after `scan
//! --rebuild`, a deleted `sparks.db` or a crash between the two writes, the open ingest the
//! record holds is put back into the manifest (or updated there), an ingest the manifest holds
//! open without a record gets one (a vault from a Sparks that kept none), and a journal an
//! earlier Sparks kept in the manifest moves here.
//!
//! It runs under the vault lock, which every command that changes the open ingest holds: what
//! it reads cannot change under it. A command that finds the lock taken leaves the copy as it
//! is (the writer holding it keeps both up to date).

use super::{OpenIngest, RunDir, RunStateError};
use crate::failure::{Action, Advice, Hint};
use crate::lock::VaultLock;
use crate::manifest::{Manifest, ManifestError, Mirrored};
use std::path::Path;

/// The manifest's copy could not be brought back to the records.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// A record could not be read or written.
    #[error(transparent)]
    RunState(#[from] RunStateError),
    /// The manifest could not be read or written.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The record and the manifest hold different ingests under one id, or different open
    /// ingests.
    #[error(
        "the open ingest recorded in {record} (ingest {id}, token {token}) is not the one the \
         manifest holds ({held})"
    )]
    Conflict {
        /// The record's path.
        record: String,
        /// The ingest it records.
        id: i64,
        /// Its token.
        token: String,
        /// What the manifest holds instead.
        held: String,
    },
}

impl Hint for RestoreError {
    /// What the user can do about it.
    fn hint(&self) -> Option<Advice> {
        match self {
            RestoreError::RunState(e) => e.hint(),
            RestoreError::Manifest(e) => e.hint(),
            RestoreError::Conflict { .. } => Some(
                Advice::say("the record is what counts: ")
                    .then_run(Action::Rebuild)
                    .then(", which sets the manifest aside and builds it again from the files, keeping the record"),
            ),
        }
    }
}

/// Bring the manifest's copy back to the records, unless another command holds the vault
/// lock (or it cannot be taken: a vault nobody may write to has nothing to restore). When
/// the two agree, as they nearly always do, no lock is taken.
pub fn restore(vault_root: &Path, manifest: &mut Manifest) -> Result<(), RestoreError> {
    let run = RunDir::of(vault_root);
    // A record's staged file a killed writer left: nothing else writes here to sweep it.
    crate::life::sweep(run.path(), run.path());
    if !run.has_leftovers() && agree(&run, manifest)? {
        return Ok(());
    }
    match VaultLock::try_acquire(vault_root) {
        Ok(Some(_lock)) => restore_locked(vault_root, manifest),
        Ok(None) | Err(_) => Ok(()),
    }
}

/// Whether the manifest's copy agrees with the records: the same open ingest at the same
/// step (or none in either), and no journal left in the manifest.
fn agree(run: &RunDir, manifest: &Manifest) -> Result<bool, RestoreError> {
    if manifest.legacy_journal()?.is_some() {
        return Ok(false);
    }
    Ok(match (run.open_ingest()?, manifest.open_ingest_row()?) {
        (None, None) => true,
        (Some(open), Some(row)) => {
            row.token == open.token
                && row.id == open.id
                && row.step == open.step
                && row.inbox_rewrite == open.inbox_rewrite
                && outcomes_match(&manifest.batch(row.id)?, &open)
        }
        _ => false,
    })
}

/// [`restore`], by a caller that holds the vault lock.
pub fn restore_locked(vault_root: &Path, manifest: &mut Manifest) -> Result<(), RestoreError> {
    let run = RunDir::of(vault_root);
    move_legacy_journal(&run, manifest)?;
    run.forget_leftovers()?;
    if agree(&run, manifest)? {
        return Ok(());
    }
    match (run.open_ingest()?, manifest.open_ingest_row()?) {
        (None, None) => Ok(()),
        (None, Some(row)) => {
            let entries = manifest.batch(row.id)?;
            run.record_ingest(&OpenIngest::of(&row, entries))?;
            Ok(())
        }
        (Some(open), _) => {
            match manifest.mirror_ingest(&open.row(), &open.entries)? {
                Mirrored::Open => Ok(()),
                // The manifest closed it, and the record outlived the close.
                Mirrored::Closed => Ok(run.close_ingest()?),
                Mirrored::Other(held) => Err(RestoreError::Conflict {
                    record: format!("{}/ingest.json", super::DIR),
                    id: open.id,
                    token: open.token,
                    held,
                }),
            }
        }
    }
}

fn outcomes_match(held: &[crate::manifest::BatchEntry], open: &OpenIngest) -> bool {
    held.len() == open.entries.len()
        && held
            .iter()
            .zip(&open.entries)
            .all(|(a, b)| a.id == b.id && a.hash == b.hash && a.outcome == b.outcome)
}

/// A journal an earlier Sparks kept in the manifest moves to the run-time directory.
fn move_legacy_journal(run: &RunDir, manifest: &Manifest) -> Result<(), RestoreError> {
    let Some(old) = manifest.legacy_journal()? else {
        return Ok(());
    };
    if run.journaled()?.is_none() {
        let operation = crate::operation::Operation::Recorded {
            kind: old.kind.clone(),
            command: old.command.clone(),
        };
        run.journal(super::Entry {
            operation: &operation,
            request: &old.request,
            pages: &[],
            plan: &old.plan,
            started_at: &old.started_at,
        })?;
        if let Some(step) = &old.step {
            run.journal_step(step)?;
        }
    }
    manifest.forget_legacy_journal(old.id)?;
    Ok(())
}
