//! What a plain git command that stopped on a conflict leaves behind, which no Sparks commit
//! may carry on: an operation under way (a merge, rebase, cherry-pick or revert git records
//! in `.git/`: `MERGE_HEAD`, `rebase-merge/`, `rebase-apply/`, `CHERRY_PICK_HEAD`, …, as
//! libgit2's `state()` reads them), and files holding conflict markers ([`crate::markers`]).
//! A commit refuses a file with markers ([`marked_in_work_tree`]); a sync refuses to start while
//! an operation is under way or while a file its push would carry holds markers
//! ([`marked_to_push`]).

use super::{GitError, failed, open, vault_prefix};
use git2::{DiffOptions, RepositoryState};
use std::path::Path;

/// A vault file holding conflict markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    /// The file, vault-relative.
    pub path: String,
    /// The line of its first marker.
    pub line: usize,
}

/// The git operation under way in the repository holding the vault (`merge`, `rebase`,
/// `cherry-pick`, `revert`, `am`, `bisect`), if one is; `None` outside a repository.
pub fn in_progress(vault_root: &Path) -> Result<Option<&'static str>, GitError> {
    let Some(repo) = open(vault_root).map_err(failed(vault_root))? else {
        return Ok(None);
    };
    Ok(match repo.state() {
        RepositoryState::Clean => None,
        RepositoryState::Merge => Some("merge"),
        RepositoryState::Revert | RepositoryState::RevertSequence => Some("revert"),
        RepositoryState::CherryPick | RepositoryState::CherryPickSequence => Some("cherry-pick"),
        RepositoryState::Bisect => Some("bisect"),
        RepositoryState::Rebase
        | RepositoryState::RebaseInteractive
        | RepositoryState::RebaseMerge
        | RepositoryState::ApplyMailboxOrRebase => Some("rebase"),
        RepositoryState::ApplyMailbox => Some("am"),
    })
}

/// Of the repository-relative `paths` (under the vault's `prefix`), the files of the work tree
/// `workdir` that hold conflict markers, vault-relative: what a commit of them must refuse.
/// Only the files a commit takes are read, so a commit costs no more for a large vault.
pub(super) fn marked_in_work_tree(workdir: &Path, prefix: &str, paths: &[String]) -> Vec<Marked> {
    let mut found = Vec::new();
    for p in paths {
        let full = workdir.join(p);
        let regular = crate::fsio::symlink_metadata(&full).is_ok_and(|m| m.is_file());
        // A file that cannot be read is the commit's to report.
        let Some(bytes) = regular.then(|| crate::fsio::read(&full).ok()).flatten() else {
            continue;
        };
        let rel = p.strip_prefix(prefix).unwrap_or(p);
        let line = crate::markers::first(rel, &bytes);
        if line > 0 {
            found.push(Marked {
                path: rel.to_string(),
                line,
            });
        }
    }
    found
}

/// The vault's files a push would carry with conflict markers: those that differ between HEAD
/// and the commit `base` names (the remote-tracking ref, as the last fetch left it; every file
/// of HEAD's when there is none), read from the work tree, whose version of each is what the
/// commits carry once the local commit takes the changes made since (a file fixed by hand
/// since a `git commit -a` of its markers is fine). Only those files are read.
pub fn marked_to_push(vault_root: &Path, base: &str) -> Result<Vec<Marked>, GitError> {
    let git = failed(vault_root);
    let Some(repo) = open(vault_root).map_err(git)? else {
        return Ok(Vec::new());
    };
    let Some(workdir) = repo.workdir().map(Path::to_path_buf) else {
        return Ok(Vec::new());
    };
    let head = match repo.head().and_then(|h| h.peel_to_tree()) {
        Ok(t) => t,
        // No commit yet: nothing to push.
        Err(_) => return Ok(Vec::new()),
    };
    let base = match repo.revparse_single(base).and_then(|o| o.peel_to_tree()) {
        Ok(t) => Some(t),
        Err(e) if e.code() == git2::ErrorCode::NotFound => None,
        Err(e) => return Err(git(e)),
    };
    let prefix = vault_prefix(&workdir, vault_root);
    let mut opts = DiffOptions::new();
    if !prefix.is_empty() {
        opts.pathspec(&prefix);
    }
    let diff = repo
        .diff_tree_to_tree(base.as_ref(), Some(&head), Some(&mut opts))
        .map_err(git)?;
    let changed: Vec<String> = super::new_paths(&diff)
        .filter(|p| p.starts_with(prefix.as_str()))
        .collect();
    Ok(marked_in_work_tree(&workdir, &prefix, &changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each operation git records in its folder is told by name.
    #[test]
    fn an_operation_under_way_is_named() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let repo = git2::Repository::init(dir.path()).expect("a repository");
        let git = repo.path().to_path_buf();
        assert_eq!(in_progress(dir.path()).expect("state"), None);
        for (made, operation) in [
            ("MERGE_HEAD", "merge"),
            ("CHERRY_PICK_HEAD", "cherry-pick"),
            ("REVERT_HEAD", "revert"),
            ("rebase-merge/", "rebase"),
            ("rebase-apply/", "rebase"),
        ] {
            let path = git.join(made.trim_end_matches('/'));
            match made.ends_with('/') {
                true => fs_err::create_dir(&path).expect("a folder"),
                false => fs_err::write(&path, "0123456789012345678901234567890123456789\n")
                    .expect("a file"),
            }
            assert_eq!(
                in_progress(dir.path()).expect("state"),
                Some(operation),
                "{made}"
            );
            match made.ends_with('/') {
                true => fs_err::remove_dir(&path).expect("removed"),
                false => fs_err::remove_file(&path).expect("removed"),
            }
        }
    }
}
