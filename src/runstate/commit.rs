//! Commits that a kill cannot leave stuck. A process killed inside libgit2 leaves its lock
//! files (`.git/index.lock`, `.git/refs/heads/<branch>.lock`), and every later commit then
//! fails. So before calling libgit2 a Sparks process records that it is committing
//! (`commit.json`: its life tag, its process id and when); a later run that finds lock files
//! removes them when that record proves a Sparks process that is gone left them (its life lock
//! is free, and the files date from its commit), and otherwise fails naming the file. A commit
//! that was made before the kill is recognised by its trailer, and its index brought up to it.

use super::{RunDir, RunStateError};
use crate::fsio::FileError;
use crate::git::{self, Commit, GitError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

const RECORD: &str = "commit.json";

/// How long after the record a lock file may date and still be the recorded commit's: a
/// commit takes seconds; a git program started much later made its own.
const COMMIT_SPAN: Duration = Duration::from_secs(10 * 60);
/// File times and the clock may differ by a little.
const SLACK: Duration = Duration::from_secs(2);

/// A commit under way.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Started {
    /// The life tag of the process committing ([`crate::life`]).
    owner: String,
    /// Its process id, for a person reading the file.
    pid: u32,
    /// When it started, in ns since the epoch.
    started_ns: i128,
    /// Other git directories the work may lock (a remote on this disk that a push writes to).
    #[serde(default)]
    also: Vec<PathBuf>,
}

/// Commit the vault's changes (only `only`'s, when given) with `message`; when `trailer` is
/// given and a recent commit carries it, that commit is the one an interrupted run made, and
/// nothing more is committed.
pub fn commit(
    vault_root: &Path,
    message: &str,
    only: Option<&[String]>,
    trailer: Option<&str>,
) -> Result<Commit, GitError> {
    // Recorded before libgit2 takes any lock: bringing the index up to a commit made before a
    // kill writes the index too.
    guarded(vault_root, || {
        match trailer.map(|line| git::head_with_line(vault_root, line)) {
            Some(Err(e)) => Err(e),
            Some(Ok(Some(sha))) => git::align_index(vault_root, &sha).map(|()| Commit::Made {
                sha,
                paths: Vec::new(),
            }),
            Some(Ok(None)) | None => match only {
                Some(paths) => git::commit_vault_paths(vault_root, message, paths),
                None => git::commit_vault(vault_root, message),
            },
        }
    })
}

/// Run `work`, which takes git's locks (a commit, a checkout, a fetch that moves a ref), so
/// that a kill in the middle cannot leave them stuck: the lock files an earlier killed Sparks
/// left are removed first, and this process is recorded as the one at work until `work` ends.
pub fn guarded<T>(
    vault_root: &Path,
    work: impl FnOnce() -> Result<T, GitError>,
) -> Result<T, GitError> {
    guarded_also(vault_root, &[], work)
}

/// [`guarded`], for work that may also lock the git directories `also` (a push to a
/// repository on this disk writes its refs there): a lock a killed Sparks left in one of them
/// is removed too. A lock there that is not its (another device pushing) is left alone.
pub fn guarded_also<T>(
    vault_root: &Path,
    also: &[PathBuf],
    work: impl FnOnce() -> Result<T, GitError>,
) -> Result<T, GitError> {
    let run = RunDir::of(vault_root);
    clear_locks(vault_root, &run)?;
    let started = Started {
        owner: run.ensure().map_err(record_error)?.to_string(),
        pid: std::process::id(),
        started_ns: now_ns(),
        also: also.to_vec(),
    };
    run.write(RECORD, &started).map_err(record_error)?;
    let done = work();
    run.remove(RECORD).map_err(record_error)?;
    done
}

/// Remove the lock files a killed Sparks commit left; fail on any other, naming it.
fn clear_locks(vault_root: &Path, run: &RunDir) -> Result<(), GitError> {
    // A record this device did not write is set aside and counts for nothing: the locks are
    // then no killed Sparks' to remove.
    let record: Option<Started> = match run.read(RECORD) {
        Err(RunStateError::Untrusted { .. }) => None,
        other => other.map_err(record_error)?,
    };
    let gone = record.filter(|r| !r.owner.is_empty() && !crate::life::alive(run.path(), &r.owner));
    let mut locks = git::lock_files(vault_root)?;
    for lock in &locks {
        let its = gone.as_ref().is_some_and(|r| dates_from(lock, r));
        if !its {
            return Err(GitError::Locked {
                shown: git::shown(vault_root, lock),
            });
        }
    }
    // In the other directories the gone process recorded, only the locks it left.
    if let Some(r) = &gone {
        locks.extend(
            git::lock_files_in(&r.also)
                .into_iter()
                .filter(|l| dates_from(l, r)),
        );
    }
    for lock in &locks {
        crate::fsio::remove_durably(lock).map_err(|source| {
            GitError::Io(FileError::at(
                "remove the lock file a killed commit left",
                lock.clone(),
            )(source))
        })?;
    }
    if gone.is_some() {
        run.remove(RECORD).map_err(record_error)?;
    }
    Ok(())
}

/// Whether the file at `path` was last written during the commit `r` recorded.
fn dates_from(path: &Path, r: &Started) -> bool {
    let Some(written) = fs_err::symlink_metadata(path)
        .ok()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
    else {
        return false;
    };
    let written = written.as_nanos() as i128;
    let (from, to) = (
        r.started_ns - SLACK.as_nanos() as i128,
        r.started_ns + (COMMIT_SPAN + SLACK).as_nanos() as i128,
    );
    (from..=to).contains(&written)
}

fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

fn record_error(e: RunStateError) -> GitError {
    match e {
        RunStateError::Io(e) => GitError::Io(e),
        RunStateError::Corrupt { path, source } => GitError::Io(FileError::at("read", path)(
            std::io::Error::new(std::io::ErrorKind::InvalidData, source),
        )),
        RunStateError::Untrusted {
            path, set_aside, ..
        } => GitError::Io(FileError::at("read", path)(std::io::Error::other(format!(
            "not written by Sparks on this device; set aside as {}",
            set_aside.display()
        )))),
        RunStateError::Unfinished(op) => GitError::Io(FileError::at("commit", run_path())(
            std::io::Error::other(format!("{op} is unfinished")),
        )),
    }
}

fn run_path() -> std::path::PathBuf {
    std::path::PathBuf::from(super::DIR).join(RECORD)
}
