//! Provenance: what prepare records of the wiki when it opens an ingest (every page's hash,
//! the lint issues of the gate's checks, HEAD, and the contents git could not give back), and
//! what finalize then finds the batch did: the pages it created, changed or deleted (its
//! regen's pages included) and the lint issues it added to them.

use super::IngestError;
use crate::clock::Now;
use crate::fsio;
use crate::git;
use crate::lint::{Issue, delta};
use crate::manifest::{Manifest, PageAction, PageChange, Pages, Snapshot};
use crate::progress::Progress;
use crate::scan;
use crate::vault::Vault;
use std::collections::HashSet;

/// Bring the manifest up to date and record what a new ingest needs to tell later what its
/// batch did. The contents of pages git holds as they are (committed, unchanged) are not
/// copied: a revert reads them from git. Of the others, only those the manifest does not
/// already keep are read. `progress` hears how the scan and the checks go.
pub(super) fn take(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    progress: &dyn Progress,
) -> Result<Snapshot, IngestError> {
    scan::refresh(
        vault,
        manifest,
        now,
        &mut crate::scan::Freshness::Scan,
        progress,
    )?;
    // The generation first: a scan between the two readings stamps what it stores after it,
    // so finalize compares that file too.
    let generation = manifest.generation()?;
    let mut pages = manifest.page_hashes()?;
    let git = git::state(&vault.root)?;
    let in_git = |path: &str| {
        git.as_ref()
            .is_some_and(|g| g.head.is_some() && !g.dirty.contains(path))
    };
    let kept = manifest.blob_hashes()?;
    let mut to_copy = pages
        .iter_mut()
        .filter(|(path, hash)| !in_git(path) && !kept.contains(hash.as_str()));
    manifest.add_blobs(|| -> Result<_, IngestError> {
        for (path, hash) in to_copy.by_ref() {
            // A page that cannot be read now is left out; the scan has reported it.
            let Ok(Some(bytes)) = fsio::read_if_exists(&vault.path(path)) else {
                continue;
            };
            // Edited since the scan: the snapshot holds what was read.
            *hash = blake3::hash(&bytes).to_hex().to_string();
            return Ok(Some((hash.clone(), bytes)));
        }
        Ok(None)
    })?;
    let issues = delta::gate_issues(vault, manifest, Pages::All, progress)?;
    Ok(Snapshot {
        pages,
        base_commit: git.and_then(|g| g.head),
        generation,
        lint_before: delta::encode_by_page(&issues),
    })
}

/// The lint issues the batch of ingest `id` added to the pages it created or changed.
pub(super) fn lint_delta(
    vault: &Vault,
    manifest: &Manifest,
    id: i64,
    changes: &[PageChange],
    progress: &dyn Progress,
) -> Result<Vec<Issue>, IngestError> {
    let touched: Vec<String> = changes
        .iter()
        .filter(|c| c.action != PageAction::Deleted)
        .map(|c| c.path.clone())
        .collect();
    let before: Vec<Issue> = manifest
        .lint_before(id, &touched)?
        .iter()
        .flat_map(|json| delta::decode(json))
        .collect();
    // Only the touched pages' issues can be new: lint those, not the vault.
    let after = delta::gate_issues(vault, manifest, Pages::Only(&touched), progress)?;
    let touched: HashSet<&str> = touched.iter().map(String::as_str).collect();
    Ok(delta::delta(&before, &after, &touched))
}

/// Record what the batch of ingest `id` did and the issues it added (finalize, once the
/// batch's pages and its regen's are scanned). Nothing is recorded without a snapshot.
pub(super) fn record(
    vault: &Vault,
    manifest: &mut Manifest,
    id: i64,
    progress: &dyn Progress,
) -> Result<(), IngestError> {
    let Some(changes) = manifest.page_changes(id)? else {
        return Ok(());
    };
    let issues = lint_delta(vault, manifest, id, &changes, progress)?;
    manifest.record_provenance(id, &changes, &delta::encode(&issues))?;
    Ok(())
}

/// The lint issues finalize recorded for ingest `id`.
pub(super) fn recorded_delta(manifest: &Manifest, id: i64) -> Result<Vec<Issue>, IngestError> {
    Ok(delta::decode(&manifest.lint_delta(id)?.unwrap_or_default()))
}
