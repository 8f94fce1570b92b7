//! Git commits through libgit2 (no `git` executable needed). A commit holds only the changes
//! inside the vault directory, never `sparks.db*`, and leaves everything else in the
//! repository, staged or not, exactly as it was: the commit's tree is HEAD's tree with the
//! vault's paths replaced, and the index is updated for those paths only. Its author and
//! committer come from where the git CLI takes them (`GIT_AUTHOR_*`, `GIT_COMMITTER_*`, the
//! configuration, `EMAIL`; see [`ident`]), which libgit2 alone would not read.

mod changes;
mod commit;
pub mod conflicted;
mod growing;
pub mod history;
pub mod ident;
mod locks;
pub mod merge;
pub mod remote;
mod run;
pub mod worktree;

pub use changes::{GitState, Pending, own, pending, state};
use changes::{changed_paths, changes, in_vault, vault_prefix};
use commit::{add_path, signatures};
pub use commit::{commit_vault, commit_vault_noting, commit_vault_paths};
use locks::locked;
pub use locks::{lock_files, lock_files_in, shown};

use crate::failure::{Action, Advice, Hint};
use crate::fsio::FileError;
use git2::{ErrorCode, Repository};
use ident::IdentError;
use std::path::{Path, PathBuf};

/// What a commit attempt did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Commit {
    /// A commit was made.
    Made {
        /// Full hex id.
        sha: String,
        /// Repository-relative paths it changed.
        paths: Vec<String>,
    },
    /// No commit, and why.
    Skipped(String),
}

/// A git operation failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// No identity to commit with (or a date git would refuse), found where git looks.
    #[error("cannot commit in {}: {source}", repo.display())]
    Identity {
        /// The repository's work tree.
        repo: PathBuf,
        /// What is missing or wrong.
        source: IdentError,
    },
    /// A lock file of git's is in the way: a git program is at work in the repository, or one
    /// was stopped before it finished. Sparks removes those its own killed commits left (see
    /// `runstate::commit`); this is any other.
    #[error(
        "git's lock file {shown} is in the way: another git program is at work in the \
         repository, or one was stopped before it finished"
    )]
    Locked {
        /// The lock file, as the user finds it from the vault (relative to it).
        shown: String,
    },
    /// A file of the commit's bookkeeping could not be read, written or removed.
    #[error(transparent)]
    Io(#[from] FileError),
    /// The vault is not inside a git work tree (for an operation that needs one).
    #[error("{} is not inside a git work tree", vault.display())]
    NoRepository {
        /// The vault.
        vault: PathBuf,
    },
    /// HEAD names no branch.
    #[error("HEAD of the repository holding {} is detached: there is no branch to sync", vault.display())]
    Detached {
        /// The vault.
        vault: PathBuf,
    },
    /// The remote to sync with is not configured.
    #[error("the repository holding {} has no remote named {remote:?}", vault.display())]
    NoRemote {
        /// The vault.
        vault: PathBuf,
        /// The remote looked for.
        remote: String,
    },
    /// A fetch or push failed.
    #[error("cannot {action} {remote} ({url}): {why}")]
    Transfer {
        /// `fetch from` or `push to`.
        action: &'static str,
        /// The remote's name.
        remote: String,
        /// Its URL.
        url: String,
        /// What git or libgit2 said.
        why: String,
    },
    /// A plain git command stopped and left its operation under way (a merge, rebase,
    /// cherry-pick or revert that met a conflict): nothing may be committed or synced on top.
    #[error(
        "git is in the middle of a {operation} in the repository holding {}: a plain git \
         command stopped before it finished (on a conflict, most likely)",
        vault.display()
    )]
    Unfinished {
        /// The vault.
        vault: PathBuf,
        /// `merge`, `rebase`, `cherry-pick`, `revert`, `am` or `bisect`.
        operation: &'static str,
    },
    /// Files hold git's conflict markers: no Sparks commit takes them, no sync pushes them.
    #[error(
        "{} {} git's conflict markers (<<<<<<<, =======, >>>>>>>), which no Sparks commit \
         takes and no sync pushes",
        marked_list(files),
        if files.len() == 1 { "holds" } else { "hold" }
    )]
    Markers {
        /// The files, with the line of each one's first marker.
        files: Vec<conflicted::Marked>,
    },
    /// A remote on this disk whose path is not there.
    #[error("cannot {action} {remote}: the path {} does not exist", path.display())]
    NoSuchPath {
        /// `fetch from` or `push to`.
        action: &'static str,
        /// The remote's name.
        remote: String,
        /// Its path, as the sync looked for it.
        path: PathBuf,
    },
    /// A fetch or push got no answer in time: the remote's host is unreachable or down.
    #[error("cannot {action} {remote} ({url}): timed out: {why}")]
    TimedOut {
        /// `fetch from` or `push to`.
        action: &'static str,
        /// The remote's name.
        remote: String,
        /// Its URL.
        url: String,
        /// What timed out, and after how long.
        why: String,
    },
    /// libgit2 reported an error.
    #[error("git ({}): {source}", repo.display())]
    Git {
        /// The repository (or vault) concerned.
        repo: PathBuf,
        /// The cause.
        source: git2::Error,
    },
}

impl Hint for GitError {
    /// What the user can do about it.
    fn hint(&self) -> Option<Advice> {
        match self {
            GitError::Identity { source, .. } => source.hint(),
            GitError::Locked { .. } => Some(
                Advice::say("if no git program is running, remove that lock file and ")
                    .then_run(Action::Again)
                    .then(": it resumes where it stopped"),
            ),
            GitError::NoRepository { .. } => Some(Advice::run(Action::SetUpRemote)),
            GitError::Detached { .. } => Some(Advice::say("check out a branch, then sync again")),
            GitError::NoRemote { .. } => Some(
                Advice::run(Action::SetUpRemote)
                    .then(", or name another remote (the vault's sparks.toml can: [sync] remote)"),
            ),
            GitError::Transfer { .. } => Some(Advice::say(
                "check the remote's URL and your access to it; for an ssh or https remote the \
                 git executable carries the transfer, with your ssh agent and credential helpers",
            )),
            GitError::Unfinished { operation, .. } => Some(
                Advice::run(Action::FinishGit {
                    operation: (*operation).to_string(),
                })
                .then(", then ")
                .then_run(Action::Sync)
                .then(
                    " (after an abort, the sync merges the same commits itself, Sparks' own \
                     files by their meaning)",
                ),
            ),
            GitError::Markers { .. } => Some(
                Advice::say(
                    "in each file, keep the text that should stay between the markers and \
                     delete the marker lines, then ",
                )
                .then_run(Action::Again),
            ),
            GitError::NoSuchPath { .. } => Some(Advice::say(
                "connect the disk the remote is on, or point the remote at the repository's \
                 path (in git's configuration of this repository)",
            )),
            GitError::TimedOut { .. } => Some(
                Advice::say(
                    "check this device's network and that the remote's host is up; nothing \
                     is lost: ",
                )
                .then_run(Action::Sync)
                .then(" once it answers"),
            ),
            GitError::Git { .. } | GitError::Io(_) => None,
        }
    }
}

/// The files of a [`GitError::Markers`], each with the line of its first marker (a few named).
fn marked_list(files: &[conflicted::Marked]) -> String {
    const NAMED: usize = 5;
    let mut named: Vec<String> = files
        .iter()
        .take(NAMED)
        .map(|m| format!("{} (line {})", m.path, m.line))
        .collect();
    if files.len() > NAMED {
        named.push(format!("{} more", files.len() - NAMED));
    }
    named.join(", ")
}

/// libgit2's error as a [`GitError`] about the repository holding `vault_root`: a lock in
/// the way as [`GitError::Locked`], naming the file, anything else as [`GitError::Git`].
fn failed(vault_root: &Path) -> impl Fn(git2::Error) -> GitError + Copy + '_ {
    move |source| {
        locked(vault_root, &source).unwrap_or(GitError::Git {
            repo: vault_root.to_path_buf(),
            source,
        })
    }
}

/// The reason given when the vault is not in a work tree.
pub const NOT_A_REPOSITORY: &str =
    "the vault is not inside a git work tree (run `git init` in the vault to enable commits)";

/// A commit's abbreviated id, as the text reports print it (seven hex digits).
pub fn short(sha: &str) -> String {
    sha.chars().take(7).collect()
}

/// The id of the most recent commit among HEAD and its first-parent ancestors (a few) whose
/// message contains `line` as a line of its own (a trailer), so that a retried operation can
/// recognise the commit it made before a crash.
pub fn head_with_line(vault_root: &Path, line: &str) -> Result<Option<String>, GitError> {
    let git = |source| GitError::Git {
        repo: vault_root.to_path_buf(),
        source,
    };
    let Some(repo) = open(vault_root).map_err(git)? else {
        return Ok(None);
    };
    let head = match repo.head() {
        Ok(h) => h.peel_to_commit().map_err(git)?,
        Err(_) => return Ok(None),
    };
    // The user may have committed since; look a little way back.
    let mut commit = Some(head);
    for _ in 0..TRAILER_DEPTH {
        let Some(c) = commit else { break };
        if c.message()
            .is_ok_and(|m| m.lines().any(|l| l.trim() == line))
        {
            return Ok(Some(c.id().to_string()));
        }
        commit = c.parents().next();
    }
    Ok(None)
}

/// The content of the vault-relative `path` in commit `sha` (or, with `parent`, in its first
/// parent): `None` when the path is not in that commit, or the commit has no parent.
pub fn file_at(
    vault_root: &Path,
    sha: &str,
    parent: bool,
    path: &str,
) -> Result<Option<Vec<u8>>, GitError> {
    let git = |source| GitError::Git {
        repo: vault_root.to_path_buf(),
        source,
    };
    let Some((repo, workdir)) = work_tree(vault_root).map_err(git)? else {
        return Ok(None);
    };
    let oid = git2::Oid::from_str(sha).map_err(git)?;
    let mut commit = repo.find_commit(oid).map_err(git)?;
    if parent {
        match commit.parents().next() {
            Some(p) => commit = p,
            None => return Ok(None),
        }
    }
    let rel = format!("{}{path}", vault_prefix(&workdir, vault_root));
    let entry = match commit.tree().map_err(git)?.get_path(Path::new(&rel)) {
        Ok(e) => e,
        Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(git(e)),
    };
    let object = entry.to_object(&repo).map_err(git)?;
    Ok(object.as_blob().map(|b| b.content().to_vec()))
}

/// Set `keys` in the local configuration of the repository holding the vault (left as they
/// are when they already hold those values). Nothing outside a repository.
pub fn set_local_config(vault_root: &Path, keys: &[(&str, &str)]) -> Result<(), GitError> {
    let git = failed(vault_root);
    let Some(repo) = open(vault_root).map_err(git)? else {
        return Ok(());
    };
    let mut config = repo
        .config()
        .and_then(|c| c.open_level(git2::ConfigLevel::Local))
        .map_err(git)?;
    for (key, value) in keys {
        if config.get_string(key).ok().as_deref() != Some(*value) {
            config.set_str(key, value).map_err(git)?;
        }
    }
    Ok(())
}

/// The value of `key` in the local configuration of the repository holding the vault (not the
/// user's or the system's); `None` when it is not set there, or outside a repository.
pub fn local_config(vault_root: &Path, key: &str) -> Result<Option<String>, GitError> {
    let git = failed(vault_root);
    let Some(repo) = open(vault_root).map_err(git)? else {
        return Ok(None);
    };
    let config = repo
        .config()
        .and_then(|c| c.open_level(git2::ConfigLevel::Local))
        .and_then(|mut c| c.snapshot())
        .map_err(git)?;
    match config.get_string(key) {
        Ok(value) => Ok(Some(value)),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(git(e)),
    }
}

/// The content of the vault-relative `path` in HEAD; `None` outside a repository, before the
/// first commit, or when HEAD does not hold it.
pub fn head_file(vault_root: &Path, path: &str) -> Result<Option<Vec<u8>>, GitError> {
    let git = failed(vault_root);
    let Some((repo, _)) = work_tree(vault_root).map_err(git)? else {
        return Ok(None);
    };
    match repo.head() {
        Ok(h) => {
            let sha = h.peel_to_commit().map_err(git)?.id().to_string();
            file_at(vault_root, &sha, false, path)
        }
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => Ok(None),
        Err(e) => Err(git(e)),
    }
}

/// After a commit whose index was not written (the process was killed between the two), the
/// index holds, for the paths the commit changed, what its parent had: those entries become
/// the commit's. An entry the user changed since is left alone.
pub fn align_index(vault_root: &Path, sha: &str) -> Result<(), GitError> {
    let git = failed(vault_root);
    let Some(repo) = open(vault_root).map_err(git)? else {
        return Ok(());
    };
    let commit = repo
        .find_commit(git2::Oid::from_str(sha).map_err(git)?)
        .map_err(git)?;
    let tree = commit.tree().map_err(git)?;
    let parent = match commit.parents().next() {
        Some(p) => Some(p.tree().map_err(git)?),
        None => None,
    };
    let diff = repo
        .diff_tree_to_tree(parent.as_ref(), Some(&tree), None)
        .map_err(git)?;
    let mut index = repo.index().map_err(git)?;
    let mut changed = false;
    for delta in diff.deltas() {
        let Some(path) = delta.new_file().path().or(delta.old_file().path()) else {
            continue;
        };
        let was = parent
            .as_ref()
            .and_then(|t| t.get_path(path).ok())
            .map(|e| e.id());
        let is = tree.get_path(path).ok();
        let held = index.get_path(path, 0).map(|e| e.id);
        if held != was || held == is.as_ref().map(|e| e.id()) {
            continue;
        }
        match is {
            Some(entry) => {
                let path_bytes = path.to_string_lossy().into_owned().into_bytes();
                index
                    .add(&git2::IndexEntry {
                        ctime: git2::IndexTime::new(0, 0),
                        mtime: git2::IndexTime::new(0, 0),
                        dev: 0,
                        ino: 0,
                        mode: entry.filemode() as u32,
                        uid: 0,
                        gid: 0,
                        file_size: 0,
                        id: entry.id(),
                        flags: 0,
                        flags_extended: 0,
                        path: path_bytes,
                    })
                    .map_err(git)?;
            }
            None => index.remove_path(path).map_err(git)?,
        }
        changed = true;
    }
    if changed {
        index.write().map_err(git)?;
    }
    Ok(())
}

/// The newest commit among HEAD and its first-parent ancestors (a few) that changed the
/// vault-relative `path`: its id and subject. `None` outside a repository, or when none of
/// those did.
pub fn last_change(vault_root: &Path, path: &str) -> Result<Option<(String, String)>, GitError> {
    let git = |source| GitError::Git {
        repo: vault_root.to_path_buf(),
        source,
    };
    let Some((repo, workdir)) = work_tree(vault_root).map_err(git)? else {
        return Ok(None);
    };
    let mut commit = match repo.head() {
        Ok(h) => Some(h.peel_to_commit().map_err(git)?),
        Err(_) => return Ok(None),
    };
    let rel = format!("{}{path}", vault_prefix(&workdir, vault_root));
    for _ in 0..TRAILER_DEPTH {
        let Some(c) = commit else { break };
        let parent = c.parents().next();
        let old = parent.as_ref().map(|p| p.tree()).transpose().map_err(git)?;
        let mut opts = git2::DiffOptions::new();
        opts.pathspec(&rel).disable_pathspec_match(true);
        let diff = repo
            .diff_tree_to_tree(old.as_ref(), Some(&c.tree().map_err(git)?), Some(&mut opts))
            .map_err(git)?;
        if diff.deltas().len() > 0 {
            let subject = c.summary().ok().flatten().unwrap_or_default().to_string();
            return Ok(Some((c.id().to_string(), subject)));
        }
        commit = parent;
    }
    Ok(None)
}

/// How many commits back [`head_with_line`] and [`last_change`] look.
const TRAILER_DEPTH: usize = 50;

/// The repository holding the vault and its work tree; `None` outside one (or in a bare one).
fn work_tree(vault_root: &Path) -> Result<Option<(Repository, PathBuf)>, git2::Error> {
    Ok(open(vault_root)?.and_then(|repo| {
        let workdir = repo.workdir()?.to_path_buf();
        Some((repo, workdir))
    }))
}

fn open(vault_root: &Path) -> Result<Option<Repository>, git2::Error> {
    match Repository::discover(vault_root) {
        Ok(r) => Ok(Some(r)),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The repository-relative paths a diff's deltas lead to (their new side), those that are
/// UTF-8.
fn new_paths<'d>(diff: &'d git2::Diff<'_>) -> impl Iterator<Item = String> + 'd {
    diff.deltas().filter_map(|d| {
        d.new_file()
            .path()
            .and_then(Path::to_str)
            .map(str::to_string)
    })
}

#[cfg(test)]
mod tests {
    use super::growing::{ADD_TRIES, again_while_growing};
    use super::own;
    use git2::{ErrorClass, ErrorCode};

    /// libgit2's error for a file that grew while it hashed it, as a sync reported it.
    fn grew() -> git2::Error {
        git2::Error::new(
            ErrorCode::GenericError,
            ErrorClass::Os,
            "failed to read file into stream: ",
        )
    }

    #[test]
    fn a_file_that_grows_while_it_is_added_is_added_again_and_other_errors_are_not_retried() {
        let mut calls = 0;
        let r = again_while_growing(|| {
            calls += 1;
            if calls < 3 { Err(grew()) } else { Ok(()) }
        });
        assert!(r.is_ok());
        assert_eq!(calls, 3);

        let mut calls = 0;
        let r = again_while_growing(|| {
            calls += 1;
            Err::<(), _>(grew())
        });
        assert_eq!(
            r.unwrap_err().message(),
            "failed to read file into stream: "
        );
        assert_eq!(calls, ADD_TRIES, "it gives up after a few tries");

        // A status that hashed a file grown since it was measured, as a prepare reported it.
        let mut calls = 0;
        let r = again_while_growing(|| {
            calls += 1;
            match calls {
                1 => Err(git2::Error::new(
                    ErrorCode::GenericError,
                    ErrorClass::Os,
                    "error reading file for hashing: ",
                )),
                _ => Ok(calls),
            }
        });
        assert_eq!(r.unwrap(), 2);

        let mut calls = 0;
        let r = again_while_growing(|| {
            calls += 1;
            Err::<(), _>(git2::Error::new(
                ErrorCode::NotFound,
                ErrorClass::Os,
                "could not find 'inbox.md'",
            ))
        });
        assert!(r.is_err());
        assert_eq!(calls, 1, "any other error is returned at once");
    }

    #[test]
    fn the_vault_s_own_files_are_its_layout_the_instruction_files_and_git_s() {
        for path in [
            "wiki/concepts/A.md",
            "wiki/index/concept.md",
            "raw/inbox/2026-05-01.md",
            "raw/quotes/q.md",
            "inbox.md",
            "sparks.toml",
            "AGENTS.md",
            "CLAUDE.md",
            "GEMINI.md",
            ".gitattributes",
            ".gitignore",
        ] {
            assert!(own(path), "{path}");
        }
        for path in [
            ".env",
            "notes/x.md",
            "wikipedia/a.md",
            "raw",
            "wiki",
            "inbox.md.bak",
            "secrets/sparks.toml",
            "README.md",
        ] {
            assert!(!own(path), "{path}");
        }
    }
}
