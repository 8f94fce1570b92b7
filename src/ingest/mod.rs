//! The ingest lifecycle. `prepare` records a batch of inbox entries and hands it to the
//! agent; `finalize` archives exactly the entries of that batch that are still in the inbox
//! unchanged, removes exactly those from the inbox, scans, commits and closes the ingest.
//!
//! Finalize is a recorded sequence of steps (plan, archive, inbox, scan, regen, commit), each
//! safe to run again: archive blocks carry markers so none is appended twice, the inbox
//! rewrite removes only entries still present, and a commit is recognised by its trailer.
//! Running finalize again after a crash at any point completes the ingest with nothing lost
//! or duplicated.
//!
//! The pieces: `prepare` opens a batch (and shows the open one again), `finalize` runs the
//! steps in order and `steps` holds each step; `report` is what each operation returns and
//! `error` how it fails. This file holds what they share and `abort`.

mod error;
mod finalize;
pub mod history;
mod prepare;
mod provenance;
mod recover;
mod report;
pub mod revert;
mod steps;
pub mod travel;

pub use error::{FinalizeFailed, IngestError};
pub use finalize::{FinalizeOptions, finalize};
pub use history::{IngestDetail, IngestList};
pub use prepare::{open_batch, prepare};
pub use report::{Aborted, Batch, BatchItem, Finalized, Prepared};
pub use revert::{RevertOptions, Reverted, revert};

use crate::clock::Now;
use crate::fault;
use crate::fsio;
use crate::fsio::FileError;
use crate::lock::VaultLock;
use crate::manifest::{BatchEntry, Manifest, Step};
use crate::runstate::{self, RunDir};
use crate::vault::{INBOX, Vault};
use std::collections::{HashMap, VecDeque};

/// How many times the inbox rewrite starts over when a human keeps appending.
const REWRITE_ATTEMPTS: usize = 20;

/// The inbox's bytes; `None` when there is no `inbox.md`.
fn read_inbox(vault: &Vault) -> Result<Option<Vec<u8>>, IngestError> {
    let path = vault.path(INBOX);
    Ok(fsio::read_if_exists(&path).map_err(FileError::at("read", path))?)
}

/// For each batch entry accepted by `want`, the index of the inbox entry with its hash (each
/// inbox entry matched once, in order), or `None` when it is no longer there.
fn match_entries(
    batch: &[BatchEntry],
    inbox_hashes: &[&str],
    want: impl Fn(&BatchEntry) -> bool,
) -> Vec<Option<usize>> {
    let mut by_hash: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (i, h) in inbox_hashes.iter().enumerate() {
        by_hash.entry(h).or_default().push_back(i);
    }
    batch
        .iter()
        .map(|b| {
            if !want(b) {
                return None;
            }
            by_hash.get_mut(b.hash.as_str())?.pop_front()
        })
        .collect()
}

/// Close the open ingest without finalizing it. Nothing needs restoring: prepare changed no
/// file. Refused once finalize has started on it.
pub fn abort(vault: &Vault, manifest: &mut Manifest, now: &Now) -> Result<Aborted, IngestError> {
    let _lock = VaultLock::acquire(&vault.root).map_err(IngestError::Lock)?;
    runstate::restore_locked(&vault.root, manifest)?;
    let Some(row) = manifest.open_ingest_row()? else {
        return Ok(Aborted {
            ingest_id: None,
            entries: 0,
        });
    };
    if let Some(step) = row.step {
        return Err(IngestError::AbortRefused {
            ingest: row.id,
            step,
        });
    }
    let entries = manifest.batch(row.id)?.len();
    if !manifest.abort_ingest(row.id, &now.timestamp, now.ns)? {
        return Err(IngestError::AbortRefused {
            ingest: row.id,
            step: Step::Plan,
        });
    }
    // The manifest holds it closed first: a record left by a crash here is closed by the next
    // command's restore, never an aborted ingest reopened.
    RunDir::of(&vault.root).close_ingest()?;
    fault::reached("abort.close");
    Ok(Aborted {
        ingest_id: Some(row.id),
        entries,
    })
}
