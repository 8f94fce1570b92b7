//! Git's lock files: which exist in the repository holding the vault (or another git directory
//! a push writes to), how a user finds one from the vault, and libgit2's "failed to lock" told
//! as [`GitError::Locked`]. `runstate::commit` removes the ones a killed Sparks left.

use super::{GitError, open};
use git2::ErrorCode;
use std::path::{Path, PathBuf};

/// The lock files of git's that exist now in the repository holding the vault: the index's,
/// HEAD's, the packed refs', the configuration's, a shallow clone's, any ref's or reflog's, and
/// a fetch's in the pack folder (`pack-*.idx.lock`). Empty outside a repository.
pub fn lock_files(vault_root: &Path) -> Result<Vec<PathBuf>, GitError> {
    let Some(repo) = open(vault_root).map_err(|source| GitError::Git {
        repo: vault_root.to_path_buf(),
        source,
    })?
    else {
        return Ok(Vec::new());
    };
    let mut dirs = vec![repo.path().to_path_buf()];
    if repo.commondir() != repo.path() {
        dirs.push(repo.commondir().to_path_buf());
    }
    Ok(lock_files_in(&dirs))
}

/// The lock files of git's that exist now in the git directories `dirs` (a repository's
/// `.git`, or a bare repository such as a remote on this disk).
pub fn lock_files_in(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in dirs {
        for name in [
            "index.lock",
            "HEAD.lock",
            "ORIG_HEAD.lock",
            "FETCH_HEAD.lock",
            "packed-refs.lock",
            "config.lock",
            "shallow.lock",
        ] {
            let path = dir.join(name);
            if fs_err::symlink_metadata(&path).is_ok() {
                found.push(path);
            }
        }
        for sub in ["refs", "logs", "objects/pack"] {
            let walk = walkdir::WalkDir::new(dir.join(sub)).follow_links(false);
            for entry in walk.into_iter().flatten() {
                if entry.file_type().is_file()
                    && entry.file_name().to_string_lossy().ends_with(".lock")
                {
                    found.push(entry.into_path());
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// A lock file as the user finds it from the vault: relative to the vault (`.git/index.lock`,
/// or `../.git/index.lock` when the repository is above it).
pub fn shown(vault_root: &Path, path: &Path) -> String {
    let canon = |p: &Path| fs_err::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (root, path) = (canon(vault_root), canon(path));
    let mut up = String::new();
    for ancestor in root.ancestors() {
        if let Some(rel) = crate::vault::relative(ancestor, &path) {
            return format!("{up}{rel}");
        }
        up.push_str("../");
    }
    path.display().to_string()
}

/// libgit2's "failed to lock file" as [`GitError::Locked`], naming the file when its message
/// does.
pub(super) fn locked(vault_root: &Path, e: &git2::Error) -> Option<GitError> {
    if e.code() != ErrorCode::Locked {
        return None;
    }
    let named = e
        .message()
        .split('\'')
        .find(|part| part.ends_with(".lock"))
        .map(|p| shown(vault_root, Path::new(p)));
    Some(GitError::Locked {
        shown: named.unwrap_or_else(|| "in the repository's .git directory".into()),
    })
}
