//! A commit of the vault's changes: HEAD's tree with the vault's paths replaced, the index
//! updated for those paths only, signed as the git CLI would sign it.

use super::growing::again_while_growing;
use super::ident::{self, Role};
use super::{
    Commit, GitError, NOT_A_REPOSITORY, changes, conflicted, failed, in_vault, open, vault_prefix,
};
use git2::{ErrorCode, Index, Repository, Signature, Time};
use std::path::Path;

/// Commit the vault's changes with `message` (a new file outside the vault's own layout
/// only once git tracks it: see [`Pending`]).
pub fn commit_vault(vault_root: &Path, message: &str) -> Result<Commit, GitError> {
    commit(vault_root, message, None).map(|(c, _)| c)
}

/// [`commit_vault`], and the vault-relative paths of the new files it left out, which git
/// does not track and which are not the vault's own ([`Pending::left_out`]).
pub fn commit_vault_noting(
    vault_root: &Path,
    message: &str,
) -> Result<(Commit, Vec<String>), GitError> {
    commit(vault_root, message, None)
}

/// Commit only the given vault-relative paths' changes (e.g. the pages a regen wrote).
pub fn commit_vault_paths(
    vault_root: &Path,
    message: &str,
    only: &[String],
) -> Result<Commit, GitError> {
    commit(vault_root, message, Some(only)).map(|(c, _)| c)
}

pub(super) fn commit(
    vault_root: &Path,
    message: &str,
    only: Option<&[String]>,
) -> Result<(Commit, Vec<String>), GitError> {
    let git = failed(vault_root);
    let Some(repo) = open(vault_root).map_err(git)? else {
        return Ok((Commit::Skipped(NOT_A_REPOSITORY.into()), Vec::new()));
    };
    let Some(workdir) = repo.workdir().map(Path::to_path_buf) else {
        return Ok((Commit::Skipped("the repository is bare".into()), Vec::new()));
    };
    let prefix = vault_prefix(&workdir, vault_root);
    let (mut paths, left_out) = changes(&repo, &prefix).map_err(git)?;
    let left_out = in_vault(&prefix, left_out);
    let skipped = |why: &str| Ok((Commit::Skipped(why.into()), left_out.clone()));
    if let Some(only) = only {
        paths.retain(|p| {
            only.iter()
                .any(|o| p.strip_prefix(prefix.as_str()) == Some(o.as_str()))
        });
    }
    if paths.is_empty() {
        return skipped("nothing to commit: the vault has no changes");
    }
    // A file a plain git command left conflicted is never committed as it is.
    let files = conflicted::marked_in_work_tree(&workdir, &prefix, &paths);
    if !files.is_empty() {
        return Err(GitError::Markers { files });
    }
    let (author, committer) = signatures(&repo, &workdir)?;
    let mut index = repo.index().map_err(git)?;
    for p in &paths {
        let rel = Path::new(p);
        if fs_err::symlink_metadata(workdir.join(rel)).is_ok() {
            add_path(&mut index, rel).map_err(git)?;
        } else {
            index.remove_path(rel).map_err(git)?;
        }
    }
    let head = match repo.head() {
        Ok(h) => Some(h.peel_to_commit().map_err(git)?),
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => None,
        Err(e) => return Err(git(e)),
    };
    // The commit's tree: HEAD's, with only the vault's paths taken from the updated index.
    let mut tree_index = Index::new().map_err(git)?;
    if let Some(c) = &head {
        tree_index.read_tree(&c.tree().map_err(git)?).map_err(git)?;
    }
    for p in &paths {
        match index.get_path(Path::new(p), 0) {
            Some(entry) => tree_index.add(&entry).map_err(git)?,
            None => {
                let _ = tree_index.remove_path(Path::new(p));
            }
        }
    }
    let tree_id = tree_index.write_tree_to(&repo).map_err(git)?;
    if head.as_ref().is_some_and(|c| c.tree_id() == tree_id) {
        index.write().map_err(git)?;
        return skipped("nothing to commit: the vault has no changes");
    }
    let tree = repo.find_tree(tree_id).map_err(git)?;
    let parents: Vec<&git2::Commit<'_>> = head.iter().collect();
    let id = repo
        .commit(Some("HEAD"), &author, &committer, message, &tree, &parents)
        .map_err(git)?;
    index.write().map_err(git)?;
    let made = Commit::Made {
        sha: id.to_string(),
        paths,
    };
    Ok((made, left_out))
}

/// `index.add_path(rel)`, tried again while the file grows under it (see
/// [`again_while_growing`]).
pub(super) fn add_path(index: &mut Index, rel: &Path) -> Result<(), git2::Error> {
    again_while_growing(|| index.add_path(rel))
}

/// The author and committer, found where the git CLI finds them (see [`ident`]): the
/// environment, then the repository's configuration (local, global, system).
pub(super) fn signatures(
    repo: &Repository,
    workdir: &Path,
) -> Result<(Signature<'static>, Signature<'static>), GitError> {
    let git = |source| GitError::Git {
        repo: workdir.to_path_buf(),
        source,
    };
    let config = repo.config().and_then(|mut c| c.snapshot()).map_err(git)?;
    let env = |name: &str| std::env::var(name).ok();
    let lookup = |key: &str| config.get_string(key).ok();
    let sign = |role| {
        let id = ident::resolve(role, &env, &lookup).map_err(|source| GitError::Identity {
            repo: workdir.to_path_buf(),
            source,
        })?;
        match id.when {
            Some((secs, minutes)) => Signature::new(&id.name, &id.email, &Time::new(secs, minutes)),
            None => Signature::now(&id.name, &id.email),
        }
        .map_err(git)
    };
    Ok((sign(Role::Author)?, sign(Role::Committer)?))
}
