//! The vault's run-time directory, `.sparks/` at its root: what an unfinished operation needs
//! in order to be finished, kept apart from the manifest so that deleting `sparks.db*` or
//! `scan --rebuild` never loses it. It holds the journal of an interrupted `mv`, `merge` or
//! `ingest --revert` (`journal`), the record of the open ingest and how far its finalize got
//! (`ingest`), the record of a commit under way (`commit`), the life locks of the Sparks
//! processes at work ([`crate::life`]), and the watcher's lock, account and cookies (written by
//! the watcher's own module, `watch/record.rs`, through this one).
//!
//! Every record is written atomically; a record exists exactly while its operation is
//! unfinished. The directory ignores itself in git (a `.gitignore` of `*`), `init` lists it in
//! the vault's `.gitignore` too, and `scan` never reads it (hidden names are not walked).
//!
//! The manifest keeps a copy of the open ingest (its queries need it); the record here is the
//! one that counts, and [`restore`] brings the manifest's copy back to it when they differ.

mod commit;
mod ingest;
mod journal;
mod restore;
mod seal;
mod sync;

pub use commit::{commit, guarded, guarded_also};
pub use ingest::OpenIngest;
pub use journal::{Entry, Journaled};
pub use restore::{RestoreError, restore, restore_locked};
pub use sync::SyncMerge;

use crate::fsio::FileError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::io;
use std::path::{Path, PathBuf};

/// The run-time directory's name, at the vault root.
pub const DIR: &str = crate::vault::RUN_DIR;

/// A record in the run-time directory could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RunStateError {
    /// Reading or writing it failed.
    #[error(transparent)]
    Io(#[from] FileError),
    /// It does not read as the record it should be.
    #[error("{} is not a record this sparks can read: {source}", path.display())]
    Corrupt {
        /// The record.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
    /// A record this device's Sparks did not write: a remote or a copy put it there. It was
    /// set aside, and nothing in it was acted on.
    #[error(
        "{} is refused ({why}); nothing in it was run, and it is set aside as {}",
        path.display(), set_aside.display()
    )]
    Untrusted {
        /// The record.
        path: PathBuf,
        /// Why it is not believed.
        why: String,
        /// Where it is now.
        set_aside: PathBuf,
    },
    /// Another operation is unfinished (its record is there already).
    #[error("{0} is unfinished: it must be completed first")]
    Unfinished(crate::operation::Operation),
}

impl crate::failure::Hint for RunStateError {
    /// What the user can do about it.
    fn hint(&self) -> Option<crate::failure::Advice> {
        match self {
            RunStateError::Corrupt { path, .. } => Some(crate::failure::Advice::say(format!(
                "{} records an unfinished operation; a newer sparks may have written it. If \
                 no operation is unfinished, remove the file",
                path.display()
            ))),
            RunStateError::Untrusted { .. } => Some(crate::failure::Advice::say(
                "the next command goes on without it; if an operation of yours was \
                 unfinished, start it again",
            )),
            RunStateError::Unfinished(op) => Some(finish_or_give_up(op)),
            RunStateError::Io(_) => None,
        }
    }
}

/// What to do about the unfinished operation `op` in the journal: run it again, which
/// completes it; or, when it cannot complete (a file it cannot write), give it up, since every
/// other write waits for it.
pub fn finish_or_give_up(op: &crate::operation::Operation) -> crate::failure::Advice {
    crate::failure::Advice::run(crate::failure::Action::Resume(op.clone()))
        .then(format!(
            ": it completes what it started, writing nothing twice. If it cannot (its error says \
         why), give it up: remove {DIR}/{}, and put back the files it changed (",
            journal::RECORD
        ))
        .then_run(crate::failure::Action::RestoreFromGit)
        .then(")")
}

/// Results of run-state operations.
pub type Result<T> = std::result::Result<T, RunStateError>;

/// The run-time directory of one vault.
#[derive(Debug, Clone)]
pub struct RunDir {
    path: PathBuf,
}

impl RunDir {
    /// The run-time directory of the vault at `root` (not created until something is written).
    pub fn of(root: &Path) -> RunDir {
        RunDir {
            path: root.join(DIR),
        }
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Create the directory, ignored by git, and take this process's life lock in it; returns
    /// this process's life tag, which the records written next may name as their owner.
    pub(crate) fn ensure(&self) -> Result<&'static str> {
        let io =
            |action, source| RunStateError::Io(FileError::at(action, self.path.clone())(source));
        if !self.path.is_dir() {
            fs_err::create_dir_all(&self.path).map_err(|e| io("create", e))?;
        }
        // The life lock first: a file staged after it carries this process's tag, so that a
        // later process sweeps it when this one was killed writing it (untagged, it was left
        // for ever: the merge soak found `.sparks/.sparks-XXXXXX.tmp` after a kill).
        let tag = crate::life::register(&self.path).map_err(|e| io("take a life lock in", e))?;
        let ignore = self.file(".gitignore");
        if !ignore.exists() {
            crate::fsio::write_atomic(&ignore, IGNORE_ALL).map_err(|e| io("write", e))?;
        }
        Ok(tag)
    }

    /// The record `name`, if it exists and this device's Sparks wrote it.
    pub(crate) fn read<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>> {
        let path = self.file(name);
        let Some(bytes) = self.read_sealed(name)? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|source| RunStateError::Corrupt { path, source })
    }

    /// The body of the sealed record `name`, if it exists; a record without this device's
    /// seal is set aside ([`RunStateError::Untrusted`]).
    fn read_sealed(&self, name: &str) -> Result<Option<Vec<u8>>> {
        let path = self.file(name);
        let io = |action, source| RunStateError::Io(FileError::at(action, path.clone())(source));
        let Some(mut bytes) = crate::fsio::read_if_exists(&path).map_err(|e| io("read", e))? else {
            return Ok(None);
        };
        let key = seal::Key::of(&self.path, false).map_err(|e| io("read the key of", e))?;
        match seal::open(key.as_ref(), name, &bytes) {
            Ok(body) => {
                let len = body.len();
                bytes.truncate(len);
                Ok(Some(bytes))
            }
            Err(broken) => Err(self.set_aside(name, broken.as_str().to_string())),
        }
    }

    /// Move the record `name` out of the way, into `set-aside/`, and say so.
    fn set_aside(&self, name: &str, why: String) -> RunStateError {
        let path = self.file(name);
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = self.file(SET_ASIDE);
        let to = dir.join(format!("{name}.{stamp}"));
        let moved = fs_err::create_dir_all(&dir).and_then(|()| fs_err::rename(&path, &to));
        match moved {
            Ok(()) => RunStateError::Untrusted {
                path,
                why,
                set_aside: to,
            },
            // Another process set it aside first.
            Err(e) if e.kind() == io::ErrorKind::NotFound => RunStateError::Untrusted {
                path,
                why,
                set_aside: dir,
            },
            Err(source) => RunStateError::Io(FileError::at("set aside", path)(source)),
        }
    }

    /// `value`'s record, sealed as `name`.
    fn sealed<T: Serialize>(&self, name: &str, value: &T) -> io::Result<Vec<u8>> {
        let key = seal::Key::of(&self.path, true)?.ok_or_else(|| io::Error::other("no key"))?;
        Ok(key.seal(name, to_json(value)?))
    }

    /// Write the record `name`, replacing the one there.
    pub(crate) fn write<T: Serialize>(&self, name: &str, value: &T) -> Result<()> {
        self.ensure()?;
        let path = self.file(name);
        let written = self
            .sealed(name, value)
            .and_then(|bytes| crate::fsio::write_atomic(&path, &bytes));
        written.map_err(|source| RunStateError::Io(FileError::at("write", path)(source)))
    }

    /// Write the record `name` unless one is there; `false` when one is.
    fn create<T: Serialize>(&self, name: &str, value: &T) -> Result<bool> {
        self.ensure()?;
        let path = self.file(name);
        let created = self
            .sealed(name, value)
            .and_then(|bytes| crate::fsio::create_atomic(&path, &bytes));
        created.map_err(|source| RunStateError::Io(FileError::at("write", path)(source)))
    }

    /// What a kill between two writes of a record can leave without its record: a batch
    /// without its `ingest.json`, a plan without its `journal.json`.
    const LEFTOVERS: [(&str, &str); 2] = [
        (ingest::BATCH, ingest::RECORD),
        (journal::PLAN, journal::RECORD),
    ];

    /// Whether a leftover ([`RunDir::forget_leftovers`]) is there.
    pub fn has_leftovers(&self) -> bool {
        Self::LEFTOVERS
            .iter()
            .any(|(leftover, record)| !self.file(record).exists() && self.file(leftover).exists())
    }

    /// Remove the leftovers. The caller holds the vault lock (records are made under it).
    pub fn forget_leftovers(&self) -> Result<()> {
        for (leftover, record) in Self::LEFTOVERS {
            if !self.file(record).exists() && self.file(leftover).exists() {
                self.remove(leftover)?;
            }
        }
        Ok(())
    }

    /// Remove the record `name` (there or not).
    pub(crate) fn remove(&self, name: &str) -> Result<()> {
        let path = self.file(name);
        crate::fsio::remove_durably(&path)
            .map_err(|source| RunStateError::Io(FileError::at("remove", path)(source)))
    }
}

/// Where records this device's Sparks did not write are moved to.
const SET_ASIDE: &str = "set-aside";

/// What `.sparks/.gitignore` says: everything here, itself included, is ignored.
const IGNORE_ALL: &[u8] = b"# Sparks' run-time state: never committed.\n*\n";

/// A record's bytes: one line of JSON (a plan may be megabytes; nobody edits these by hand).
fn to_json<T: Serialize>(value: &T) -> io::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    Ok(bytes)
}
