//! Git commits through libgit2 (no `git` executable needed). A commit holds only the changes
//! inside the vault directory, never `sparks.db*`, and leaves everything else in the
//! repository, staged or not, exactly as it was: the commit's tree is HEAD's tree with the
//! vault's paths replaced, and the index is updated for those paths only. Its author and
//! committer come from where the git CLI takes them (`GIT_AUTHOR_*`, `GIT_COMMITTER_*`, the
//! configuration, `EMAIL`; see [`crate::ident`]), which libgit2 alone would not read.

pub mod conflicted;
pub mod history;
mod locks;
pub mod merge;
pub mod remote;
mod run;
pub mod worktree;

use crate::fsio::FileError;
use locks::locked;
pub use locks::{lock_files, lock_files_in, shown};

use crate::config::CONFIG_FILE;
use crate::contract::Agent;
use crate::failure::{Action, Advice, Hint};
use crate::ident::{self, IdentError, Role};
use crate::vault::INBOX;
use git2::{ErrorCode, Index, Repository, Signature, Status, StatusOptions, Time};
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

fn commit(
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

/// How many times a file is added again while it grows under libgit2.
const ADD_TRIES: usize = 5;

/// `index.add_path(rel)`, tried again while the file grows under it: libgit2 hashes a file in
/// the size it found a moment before and fails ("failed to read file into stream") when an
/// editor or a phone app appends to it meanwhile. A sync's commit would stop on that with an
/// error that says nothing; the append is taken whole by the next try.
fn add_path(index: &mut Index, rel: &Path) -> Result<(), git2::Error> {
    again_while_growing(|| index.add_path(rel))
}

/// Run `add` until it succeeds, fails otherwise than on a file that grew, or has been tried
/// [`ADD_TRIES`] times.
fn again_while_growing(
    mut add: impl FnMut() -> Result<(), git2::Error>,
) -> Result<(), git2::Error> {
    let mut tries = 1;
    loop {
        match add() {
            Err(e) if tries < ADD_TRIES && grew(&e) => tries += 1,
            other => return other,
        }
    }
}

/// Whether libgit2 failed because the file it hashed was longer than it had found
/// (`write_file_stream` in its `blob.c`; the OS error it appends is stale, often empty).
fn grew(e: &git2::Error) -> bool {
    e.class() == git2::ErrorClass::Os && e.message().starts_with("failed to read file into stream")
}

/// The author and committer, found where the git CLI finds them (see [`crate::ident`]): the
/// environment, then the repository's configuration (local, global, system).
fn signatures(
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

/// The vault's directory relative to the work tree, with a trailing `/` (empty at the top).
fn vault_prefix(workdir: &Path, vault_root: &Path) -> String {
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
fn changed_paths(repo: &Repository, prefix: &str) -> Result<Vec<String>, git2::Error> {
    changes(repo, prefix).map(|(taken, _)| taken)
}

/// Repository-relative `paths` under `prefix` as vault-relative ones.
fn in_vault(prefix: &str, paths: Vec<String>) -> Vec<String> {
    paths
        .into_iter()
        .map(|p| p[prefix.len()..].to_string())
        .collect()
}

/// Repository-relative paths under `prefix` that differ from HEAD or the index, ignored ones,
/// the manifest and the run-time records excluded: those a commit takes (tracked, or the
/// vault's own), and the new files it leaves out (see [`own`]).
fn changes(repo: &Repository, prefix: &str) -> Result<(Vec<String>, Vec<String>), git2::Error> {
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .exclude_submodules(true);
    let statuses = repo.statuses(Some(&mut opts))?;
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

#[cfg(test)]
mod tests {
    use super::{ADD_TRIES, again_while_growing, own};
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
            Err(grew())
        });
        assert_eq!(
            r.unwrap_err().message(),
            "failed to read file into stream: "
        );
        assert_eq!(calls, ADD_TRIES, "it gives up after a few tries");

        let mut calls = 0;
        let r = again_while_growing(|| {
            calls += 1;
            Err(git2::Error::new(
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
