//! Finalize: plan once, then run the steps in order, recording each in the manifest so that a
//! run after a crash resumes after the last one done; then close the ingest.

use super::error::failed;
use super::provenance;
use super::report::Finalized;
use super::steps::Run;
use super::{FinalizeFailed, IngestError};
use crate::archive;
use crate::clock::Now;
use crate::collections::feeds;
use crate::fault;
use crate::git::Commit;
use crate::lock::VaultLock;
use crate::manifest::{BatchEntry, Manifest, Outcome, Step};
use crate::runstate::{self, RunDir};
use crate::vault::Vault;

/// What finalize is asked to do.
#[derive(Debug, Clone, Default)]
pub struct FinalizeOptions {
    /// The commit message; default `ingest: N entries`.
    pub message: Option<String>,
    /// Entries of the batch to leave in the inbox.
    pub keep: Vec<u32>,
    /// Refuse the batch, before anything is archived, if it adds lint issues to its pages
    /// (also when `[ingest] strict` is set).
    pub strict: bool,
}

/// Finalize the open ingest, or resume an interrupted finalize.
pub fn finalize(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    opts: &FinalizeOptions,
) -> Result<Finalized, FinalizeFailed> {
    let _lock = VaultLock::acquire(&vault.root).map_err(|e| FinalizeFailed {
        ingest: 0,
        done: Vec::new(),
        error: Box::new(IngestError::Lock(e)),
    })?;
    if let Err(e) = runstate::restore_locked(&vault.root, manifest) {
        return Err(failed(0, &[], e.into()));
    }
    let row = match manifest.open_ingest_row() {
        Ok(Some(row)) => row,
        Ok(None) => return Err(failed(0, &[], IngestError::NoOpenIngest)),
        Err(e) => return Err(failed(0, &[], e.into())),
    };
    let id = row.id;
    let mut run = Run {
        vault,
        now,
        id,
        token: row.token.clone(),
        done: Vec::new(),
        warnings: Vec::new(),
    };
    let resumed = row.step.is_some();
    let run_dir = RunDir::of(&vault.root);
    if resumed {
        // The manifest may have been rebuilt or deleted since the run that stopped: the
        // steps still to run decide from it, so it sees the files first.
        crate::scan::refresh(vault, manifest, now, &mut crate::scan::Freshness::Scan)
            .map_err(|e| run.fail(e.into()))?;
    }
    let row_has_snapshot = manifest.has_snapshot(id).map_err(|e| run.fail(e.into()))?;
    let first = match row.step {
        None | Some(Step::Plan) => 0,
        Some(step) => Step::AFTER_PLAN
            .iter()
            .position(|s| *s == step)
            .map_or(0, |i| i + 1),
    };
    if let Some(step) = &row.step {
        run.done = Step::AFTER_PLAN[..first].to_vec();
        if !opts.keep.is_empty() {
            run.warnings.push(format!(
                "resuming ingest {id} after step {step}: the entries to keep given now are \
                 ignored, the entries chosen when finalize first ran stand"
            ));
        }
    } else {
        if opts.strict || vault.config.ingest.strict {
            run.gate(manifest).map_err(|e| run.fail(e))?;
        }
        run.plan(manifest, &opts.keep).map_err(|e| run.fail(e))?;
    }
    let batch = manifest.batch(id).map_err(|e| run.fail(e.into()))?;
    let archived: Vec<&BatchEntry> = batch
        .iter()
        .filter(|e| e.outcome == Some(Outcome::Archive))
        .collect();
    let ids = |o: Outcome| -> Vec<u32> {
        batch
            .iter()
            .filter(|e| e.outcome == Some(o))
            .map(|e| e.id)
            .collect()
    };

    let mut archive_files = Vec::new();
    let mut remaining = None;
    let mut scan_errors = Vec::new();
    // What the batch feeds is regenerated in any case; a resumed run did it before it stopped.
    let regenerated = feeds::fed_by_all(archived.iter().map(|e| e.content.as_str()));
    let mut also_regenerated = Vec::new();
    let mut commit = None;
    for (i, step) in Step::AFTER_PLAN.into_iter().enumerate() {
        let redo = i < first;
        let result = match step {
            // Done steps that produce facts the summary needs are cheap to recompute.
            Step::Archive if redo => {
                archive_files =
                    archive::files_for(archived.iter().map(|e| e.capture_date.as_str()));
                Ok(())
            }
            Step::Archive => run.archive(&archived).map(|files| archive_files = files),
            Step::Inbox | Step::Scan | Step::Regen if redo => Ok(()),
            Step::Inbox => run
                .clear_inbox(manifest, &archived, row.inbox_rewrite.as_ref())
                .map(|n| remaining = Some(n)),
            Step::Scan => run.scan(manifest).map(|errors| scan_errors = errors),
            Step::Regen => run.regen(manifest, &regenerated).and_then(|others| {
                also_regenerated = others;
                provenance::record(vault, manifest, id)
            }),
            Step::Commit => run
                .commit(archived.len(), opts.message.as_deref())
                .map(|c| commit = Some(c)),
            // Not steps after planning.
            Step::Plan | Step::Complete => Ok(()),
        };
        result.map_err(|e| run.fail(e))?;
        if !redo {
            fault::reached(step.fault_point());
            if step != Step::Commit {
                // The record first: it is never behind the manifest.
                run_dir
                    .record_step(id, step)
                    .map_err(|e| run.fail(e.into()))?;
                manifest
                    .record_step(id, step)
                    .map_err(|e| run.fail(e.into()))?;
            }
            run.done.push(step);
        }
    }
    let remaining = match remaining {
        Some(n) => n,
        None => run.count_inbox().map_err(|e| run.fail(e))?,
    };
    let (sha, skipped) = match commit {
        Some(Commit::Made { sha, .. }) => (Some(sha), None),
        Some(Commit::Skipped(reason)) => (None, Some(reason)),
        None => (None, None),
    };
    let (kept_entries, changed_entries) = (ids(Outcome::Keep), ids(Outcome::Changed));
    let lint_delta = provenance::recorded_delta(manifest, id).map_err(|e| run.fail(e))?;
    if !row_has_snapshot {
        run.warnings.push(format!(
            "the manifest holds no snapshot of the wiki for ingest {id} (it was opened by an \
             earlier sparks, or the manifest was rebuilt or deleted while it was open): what \
             its batch did to the pages (and the lint issues it added) is not recorded, and it \
             cannot be reverted"
        ));
    }
    manifest
        .complete_ingest(
            id,
            &now.timestamp,
            now.ns,
            (archived.len(), kept_entries.len(), changed_entries.len()),
            sha.as_deref(),
            skipped.as_deref(),
        )
        .map_err(|e| run.fail(e.into()))?;
    // The manifest holds it completed first: a record left by a crash here is closed by the
    // next command's restore, never the ingest reopened.
    run_dir.close_ingest().map_err(|e| run.fail(e.into()))?;
    Ok(Finalized {
        ingest_id: id,
        archived: archived.len(),
        entry_count: archived.len(),
        archived_files: archive_files.len(),
        kept: kept_entries.len(),
        changed: changed_entries.len(),
        remaining,
        kept_entries,
        changed_entries,
        archive_files,
        commit_sha: sha.as_deref().map(crate::git::short),
        commit: sha,
        commit_skipped: skipped,
        scan_errors,
        lint_delta,
        regenerated,
        also_regenerated,
        resumed,
        warnings: run.warnings,
    })
}
