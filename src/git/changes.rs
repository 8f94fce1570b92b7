//! What git knows of the vault's files: what differs from HEAD, what a commit takes, and
//! the new files it leaves out.

use super::{GitError, failed, work_tree};
use crate::config::CONFIG_FILE;
use crate::contract::Agent;
use crate::vault::INBOX;
use git2::{ErrorCode, Repository, Status, StatusOptions};
use std::path::Path;

/// What git knows of the vault's files now: HEAD (`None` before the first commit) and the
/// vault-relative paths whose content differs from HEAD's (untracked ones included). `None`
/// when the vault is not in a work tree.
pub fn state(vault_root: &Path) -> Result<Option<GitState>, GitError> {
    let git = |source| GitError::Git {
        repo: vault_root.to_path_buf(),
        source,
    };
    let Some((repo, workdir)) = work_tree(vault_root).map_err(git)? else {
        return Ok(None);
    };
    let head = match repo.head() {
        Ok(h) => Some(h.peel_to_commit().map_err(git)?.id().to_string()),
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => None,
        Err(e) => return Err(git(e)),
    };
    let prefix = vault_prefix(&workdir, vault_root);
    let (taken, left_out) = changes(&repo, &prefix).map_err(git)?;
    let dirty = in_vault(&prefix, taken)
        .into_iter()
        .chain(in_vault(&prefix, left_out));
    Ok(Some(GitState {
        head,
        dirty: dirty.collect(),
    }))
}

/// What a commit of the whole vault would take now, and the new files it would leave out;
/// `None` when the vault is not in a work tree.
pub fn pending(vault_root: &Path) -> Result<Option<Pending>, GitError> {
    let git = failed(vault_root);
    let Some((repo, workdir)) = work_tree(vault_root).map_err(git)? else {
        return Ok(None);
    };
    let prefix = vault_prefix(&workdir, vault_root);
    let (taken, left_out) = changes(&repo, &prefix).map_err(git)?;
    Ok(Some(Pending {
        paths: in_vault(&prefix, taken),
        left_out: in_vault(&prefix, left_out),
    }))
}

/// See [`pending`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pending {
    /// Vault-relative paths a commit takes: those that differ from HEAD and that git tracks
    /// or that are the vault's own ([`own`]).
    pub paths: Vec<String>,
    /// Vault-relative paths of the new files a commit leaves out: git does not track them and
    /// they are not the vault's own (a `.env`, a folder of the user's). Once the user adds one
    /// to git (`git add`), commits take it.
    pub left_out: Vec<String>,
}

/// See [`state`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitState {
    /// The commit HEAD points at.
    pub head: Option<String>,
    /// Vault-relative paths that differ from HEAD.
    pub dirty: std::collections::HashSet<String>,
}

/// The vault's directory relative to the work tree, with a trailing `/` (empty at the top).
pub(super) fn vault_prefix(workdir: &Path, vault_root: &Path) -> String {
    let canon = |p: &Path| fs_err::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (w, v) = (canon(workdir), canon(vault_root));
    match crate::vault::relative(&w, &v) {
        Some(rel) if !rel.is_empty() => format!("{rel}/"),
        _ => String::new(),
    }
}

/// Whether the vault-relative `path` is the vault's own: its layout (`wiki/`, `raw/`, the
/// inbox, `sparks.toml`), an agent's instruction file (`init --agent`), or the git files
/// Sparks writes (`.gitattributes`, `.gitignore`). A commit takes these even before git tracks
/// them; any other new file is the user's to add (it may hold secrets: a `.env`).
pub fn own(path: &str) -> bool {
    let top = path.split('/').next().unwrap_or(path);
    let agents = [Agent::Claude, Agent::Codex, Agent::Gemini].map(Agent::file_name);
    match path.contains('/') {
        true => matches!(top, "wiki" | "raw"),
        false => {
            [INBOX, CONFIG_FILE, ".gitattributes", ".gitignore"].contains(&path)
                || agents.contains(&path)
        }
    }
}

/// Repository-relative paths under `prefix` that a commit takes: those that differ from HEAD or
/// the index and that git tracks or that are the vault's own (see [`changes`]). Every commit
/// of Sparks' takes these, a sync's merge commit included.
pub(super) fn changed_paths(repo: &Repository, prefix: &str) -> Result<Vec<String>, git2::Error> {
    changes(repo, prefix).map(|(taken, _)| taken)
}

/// Repository-relative `paths` under `prefix` as vault-relative ones.
pub(super) fn in_vault(prefix: &str, paths: Vec<String>) -> Vec<String> {
    paths
        .into_iter()
        .map(|p| p[prefix.len()..].to_string())
        .collect()
}

/// Repository-relative paths under `prefix` that differ from HEAD or the index, ignored ones,
/// the manifest and the run-time records excluded: those a commit takes (tracked, or the
/// vault's own), and the new files it leaves out (see [`own`]).
pub(super) fn changes(
    repo: &Repository,
    prefix: &str,
) -> Result<(Vec<String>, Vec<String>), git2::Error> {
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .exclude_submodules(true);
    // A file that grows while it is hashed (an append to the inbox) is hashed again.
    let statuses = super::growing::again_while_growing(|| repo.statuses(Some(&mut opts)))?;
    let (mut taken, mut left_out) = (Vec::new(), Vec::new());
    for s in statuses.iter() {
        let Ok(path) = s.path() else { continue };
        let Some(inner) = path.strip_prefix(prefix) else {
            continue;
        };
        let is_manifest = !inner.contains('/') && inner.starts_with(crate::vault::MANIFEST);
        let is_run_state = inner
            .strip_prefix(crate::vault::RUN_DIR)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
        if is_manifest || is_run_state || s.status().is_ignored() || s.status() == Status::CURRENT {
            continue;
        }
        // Not in the index: git does not track it (new, or untracked by `git rm --cached`).
        match s.status().is_wt_new() && !own(inner) {
            true => left_out.push(path.to_string()),
            false => taken.push(path.to_string()),
        }
    }
    taken.sort();
    left_out.sort();
    Ok((taken, left_out))
}
