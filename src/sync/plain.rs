//! What a plain git command left, which a sync refuses to build on: an operation under way (a
//! `git pull` or `rebase` that stopped on a conflict: its merge would be committed half done,
//! the conflicted files with their markers), or commits not yet on the remote that hold files
//! with conflict markers (a `git commit -a` after such a stop). The files not yet committed
//! are the local commit's to refuse ([`crate::git::commit_vault`]). Checked before anything
//! changes, so a refused sync leaves the vault, the branch and the remote as they were.

use super::SyncError;
use crate::git::remote::Upstream;
use crate::git::{GitError, conflicted};
use std::path::Path;

/// Refuse a sync of the vault at `root` while git is mid-operation (before anything else is
/// asked of git: a rebase that stopped leaves HEAD detached, which a sync would otherwise
/// report instead).
pub(super) fn refuse_unfinished(root: &Path) -> Result<(), SyncError> {
    match conflicted::in_progress(root)? {
        Some(operation) => Err(GitError::Unfinished {
            vault: root.to_path_buf(),
            operation,
        }
        .into()),
        None => Ok(()),
    }
}

/// Refuse a sync of the vault at `root` with `up` while a file its push would carry holds
/// conflict markers.
pub(super) fn refuse_marked(root: &Path, up: &Upstream) -> Result<(), SyncError> {
    let files = conflicted::marked_to_push(root, &up.tracking_ref())?;
    match files.is_empty() {
        true => Ok(()),
        false => Err(GitError::Markers { files }.into()),
    }
}
