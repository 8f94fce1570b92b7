//! Finalize: plan once, then run the steps in order, recording each in the manifest so that a
//! run after a crash resumes after the last one done; then close the ingest.

use super::error::failed;
use super::provenance;
use super::report::Finalized;
use super::steps::Run;
use super::{FinalizeFailed, IngestError};
use crate::archive;
use crate::clock::Now;
use crate::collections::{Collection, feeds};
use crate::fault;
use crate::git::Commit;
use crate::lock::VaultLock;
use crate::manifest::{BatchEntry, IngestRow, Manifest, Outcome, Step};
use crate::runstate::{self, RunDir};
use crate::scan::ScanIssue;
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

/// Finalize the open ingest, or resume an interrupted finalize; `progress` hears how its
/// scans, checks and writing go.
pub fn finalize(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    opts: &FinalizeOptions,
    progress: &dyn crate::progress::Progress,
) -> Result<Finalized, FinalizeFailed> {
    let (_lock, row) = open_ingest(vault, manifest)?;
    let id = row.id;
    let mut run = Run {
        vault,
        now,
        progress,
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
        let fresh = &mut crate::scan::Freshness::Scan;
        crate::scan::refresh(vault, manifest, now, fresh, progress)
            .map_err(|e| run.fail(e.into()))?;
    }
    let row_has_snapshot = manifest.has_snapshot(id).map_err(|e| run.fail(e.into()))?;
    let first = resume_at(row.step);
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

    // What the batch feeds is regenerated in any case; a resumed run did it before it stopped.
    let regenerated = feeds::fed_by_all(archived.iter().map(|e| e.content.as_str()));
    let ran = run_steps(
        &mut run,
        manifest,
        &run_dir,
        &archived,
        row.inbox_rewrite.as_ref(),
        &regenerated,
        first,
        opts.message.as_deref(),
    )?;
    let Ran {
        archive_files,
        remaining,
        scan_errors,
        also_regenerated,
        commit,
    } = ran;
    let remaining = match remaining {
        Some(n) => n,
        None => run.count_inbox().map_err(|e| run.fail(e))?,
    };
    let (sha, skipped) = match commit {
        Some(Commit::Made { sha, .. }) => (Some(sha), None),
        Some(Commit::Skipped(reason)) => (None, Some(reason)),
        None => (None, None),
    };
    let (kept_entries, changed_entries) =
        (ids(&batch, Outcome::Keep), ids(&batch, Outcome::Changed));
    let lint_delta = provenance::recorded_delta(manifest, id).map_err(|e| run.fail(e))?;
    if !row_has_snapshot {
        run.warnings.push(no_snapshot(id));
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

/// What the steps after planning found, for the summary.
struct Ran {
    archive_files: Vec<String>,
    remaining: Option<usize>,
    scan_errors: Vec<ScanIssue>,
    also_regenerated: Vec<Collection>,
    commit: Option<Commit>,
}

/// Run the steps after planning, from step `first` of [`Step::AFTER_PLAN`] (those before it
/// ran before a stop: only what the summary needs of them is worked out again), each recorded
/// as done once it is.
#[allow(clippy::too_many_arguments)]
fn run_steps(
    run: &mut Run<'_>,
    manifest: &mut Manifest,
    run_dir: &RunDir,
    archived: &[&BatchEntry],
    inbox_rewrite: Option<&(String, String)>,
    regenerated: &[Collection],
    first: usize,
    message: Option<&str>,
) -> Result<Ran, FinalizeFailed> {
    let mut archive_files = Vec::new();
    let mut remaining = None;
    let mut scan_errors = Vec::new();
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
            Step::Archive => run.archive(archived).map(|files| archive_files = files),
            Step::Inbox | Step::Scan | Step::Regen if redo => Ok(()),
            Step::Inbox => run
                .clear_inbox(manifest, archived, inbox_rewrite)
                .map(|n| remaining = Some(n)),
            Step::Scan => run.scan(manifest).map(|errors| scan_errors = errors),
            Step::Regen => run.regen(manifest, regenerated).and_then(|others| {
                also_regenerated = others;
                provenance::record(run.vault, manifest, run.id, run.progress)
            }),
            Step::Commit => run
                .commit(archived.len(), message)
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
                    .record_step(run.id, step)
                    .map_err(|e| run.fail(e.into()))?;
                manifest
                    .record_step(run.id, step)
                    .map_err(|e| run.fail(e.into()))?;
            }
            run.done.push(step);
        }
    }
    Ok(Ran {
        archive_files,
        remaining,
        scan_errors,
        also_regenerated,
        commit,
    })
}

/// The entries of `batch` with `outcome`, by id.
fn ids(batch: &[BatchEntry], outcome: Outcome) -> Vec<u32> {
    let with = batch.iter().filter(|e| e.outcome == Some(outcome));
    with.map(|e| e.id).collect()
}

/// The index in [`Step::AFTER_PLAN`] of the first step still to run after `done` (the last
/// step a stopped run recorded; none: from the start).
fn resume_at(done: Option<Step>) -> usize {
    match done {
        None | Some(Step::Plan) => 0,
        Some(step) => Step::AFTER_PLAN
            .iter()
            .position(|s| *s == step)
            .map_or(0, |i| i + 1),
    }
}

/// The warning of an ingest `id` whose manifest holds no snapshot of the wiki.
fn no_snapshot(id: i64) -> String {
    format!(
        "the manifest holds no snapshot of the wiki for ingest {id} (it was opened by an \
         earlier sparks, or the manifest was rebuilt or deleted while it was open): what its \
         batch did to the pages (and the lint issues it added) is not recorded, and it cannot \
         be reverted"
    )
}

/// The vault locked, what a killed command left restored, and the open ingest's row.
fn open_ingest(
    vault: &Vault,
    manifest: &mut Manifest,
) -> Result<(VaultLock, IngestRow), FinalizeFailed> {
    let lock = VaultLock::acquire(&vault.root).map_err(|e| failed(0, &[], IngestError::Lock(e)))?;
    runstate::restore_locked(&vault.root, manifest).map_err(|e| failed(0, &[], e.into()))?;
    match manifest.open_ingest_row() {
        Ok(Some(row)) => Ok((lock, row)),
        Ok(None) => Err(failed(0, &[], IngestError::NoOpenIngest)),
        Err(e) => Err(failed(0, &[], e.into())),
    }
}
