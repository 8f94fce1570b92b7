//! This process's life, as other Sparks processes can tell it. A process that may write to a
//! vault holds an OS file lock, for as long as it runs, on a file under the vault's run-time
//! directory named by a tag unique to the process (`.sparks/live/<tag>`). The kernel releases
//! the lock when the process dies, however it dies (a SIGKILL from an agent's shell, a laptop
//! that loses power), so a later process can tell whether the owner of something left behind
//! is still at work or gone, without trusting a process id the system may have given to
//! another program since.
//!
//! What a process leaves behind carries its tag: the staged files of its atomic writes
//! (`.sparks-<tag>-XXXXXX.tmp`, named by [`crate::fsio`]) and the record of a commit it
//! started. [`sweep`] removes the staged files of processes that are gone.

// The lock is `std::fs::File::lock`, which fs-err does not wrap.
#![allow(clippy::disallowed_methods)]

use crate::file_error::FileError;
use std::collections::HashSet;
use std::fs::{File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};

/// How every staged file's name starts.
pub const STAGED_PREFIX: &str = ".sparks-";
/// How every staged file's name ends.
pub const STAGED_SUFFIX: &str = ".tmp";
/// The directory of life locks, inside the run-time directory.
const LIVE_DIR: &str = "live";
/// A staged file without a tag was left by a Sparks that predates tags (or by a process that
/// could not take its lock, in a vault it cannot write to): it is swept once this old, when no
/// write can still be under way.
const UNTAGGED_AGE: Duration = Duration::from_secs(60 * 60);

/// This process's life in one vault.
struct Life {
    tag: String,
    run_dir: PathBuf,
    /// Holds the lock; never dropped before the process ends.
    _lock: File,
    /// The directories swept already.
    swept: Mutex<HashSet<PathBuf>>,
}

static LIFE: OnceLock<Life> = OnceLock::new();

/// The tag of this process, once it has registered ([`register`]); `None` before.
pub fn tag() -> Option<&'static str> {
    LIFE.get().map(|l| l.tag.as_str())
}

/// Take this process's life lock in the run-time directory `run_dir` (created if needed), once
/// per process; later calls return the tag of the first. Returns the tag.
pub fn register(run_dir: &Path) -> io::Result<&'static str> {
    if let Some(life) = LIFE.get() {
        return Ok(&life.tag);
    }
    let dir = run_dir.join(LIVE_DIR);
    fs_err::create_dir_all(&dir)?;
    let tag = new_tag();
    // The lock is taken on a file under another name and then renamed into place, so that a
    // life file is locked from the moment it can be found: [`alive`] never sees it unlocked
    // while its process lives.
    let staged = tempfile::Builder::new()
        .prefix(".new-")
        .tempfile_in(&dir)
        .map_err(FileError::io("create a life file in", &dir))?;
    staged
        .as_file()
        .lock()
        .map_err(FileError::io("lock", staged.path()))?;
    let path = dir.join(&tag);
    let lock = staged
        .persist(&path)
        .map_err(|e| FileError::io("create", &path)(e.error))?;
    let life = Life {
        tag,
        run_dir: run_dir.to_path_buf(),
        _lock: lock,
        swept: Mutex::new(HashSet::new()),
    };
    let life = match LIFE.set(life) {
        Ok(()) => LIFE.get(),
        // Another thread registered first: its life stands, this one's file goes.
        Err(mine) => {
            let _ = fs_err::remove_file(mine.run_dir.join(LIVE_DIR).join(&mine.tag));
            LIFE.get()
        }
    };
    let life = life.ok_or_else(|| io::Error::other("the life lock was not kept"))?;
    forget_the_dead(&dir, &life.tag);
    Ok(&life.tag)
}

/// This process is done: its life file goes (a process killed keeps it, and the next one to
/// register removes it). Its lock is held until the process ends.
pub fn retire() {
    if let Some(life) = LIFE.get() {
        let _ = fs_err::remove_file(life.run_dir.join(LIVE_DIR).join(&life.tag));
    }
}

/// A tag no other process has had: this process's id, then a hash of it with the clock.
fn new_tag() -> String {
    let pid = std::process::id();
    let ns = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut h = blake3::Hasher::new();
    h.update(&ns.to_le_bytes());
    h.update(&pid.to_le_bytes());
    format!("{pid}x{}", &h.finalize().to_hex()[..10])
}

/// Remove the life files of processes that are gone (and files a registration killed midway
/// left), so that `.sparks/live/` holds the living.
fn forget_the_dead(dir: &Path, mine: &str) {
    let Ok(entries) = fs_err::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name != mine {
            // `alive` removes the file of a process it finds gone.
            let _ = alive_at(&entry.path());
        }
    }
}

/// Whether the process with `tag` is alive: its life file exists and is locked. A process
/// never tells itself dead (its own lock is held on another open file).
pub fn alive(run_dir: &Path, tag: &str) -> bool {
    if tag.is_empty() || tag.contains(['/', '\\']) || tag.starts_with('.') {
        return false;
    }
    alive_at(&run_dir.join(LIVE_DIR).join(tag))
}

/// [`alive`] of the life file at `path`. A file found unlocked is the life of a process that
/// is gone; it is removed while its lock is held, so no process ever takes it over.
fn alive_at(path: &Path) -> bool {
    let file = match fs_err::File::open(path) {
        Ok(f) => f.into_parts().0,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return false,
        // Unreadable: it cannot be told, so it is taken for alive and nothing is removed.
        Err(_) => return true,
    };
    match file.try_lock() {
        Ok(()) => {
            let _ = fs_err::remove_file(path);
            false
        }
        Err(TryLockError::WouldBlock) => true,
        Err(TryLockError::Error(_)) => true,
    }
}

/// Who left a staged file, from its name; `None` for a name that is no staged file's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stager<'a> {
    /// A process with this tag.
    Tagged(&'a str),
    /// A Sparks that did not tag its staged files.
    Untagged,
}

/// The name a staged file of this process starts with.
pub fn staged_prefix() -> String {
    match tag() {
        Some(t) => format!("{STAGED_PREFIX}{t}-"),
        None => STAGED_PREFIX.to_string(),
    }
}

/// Who staged the file called `name`, if it is a staged file.
pub fn stager(name: &str) -> Option<Stager<'_>> {
    let middle = name
        .strip_prefix(STAGED_PREFIX)?
        .strip_suffix(STAGED_SUFFIX)?;
    Some(match middle.split_once('-') {
        Some((tag, _)) => Stager::Tagged(tag),
        None => Stager::Untagged,
    })
}

/// Whether the staged file at `path`, called `name`, was left by a process that is gone.
pub fn abandoned(run_dir: &Path, path: &Path, name: &str) -> bool {
    match stager(name) {
        None => false,
        Some(Stager::Tagged(tag)) => Some(tag) != self::tag() && !alive(run_dir, tag),
        Some(Stager::Untagged) => fs_err::symlink_metadata(path)
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > UNTAGGED_AGE),
    }
}

/// Remove the staged files in `dir` that processes now gone left there; returns the paths
/// removed. A file that cannot be removed is left (the next sweep tries again).
pub fn sweep(dir: &Path, run_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs_err::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let path = entry.path();
        if abandoned(run_dir, &path, name) && fs_err::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

/// [`sweep`] `dir` once in this process's life, before its first staged file there; nothing
/// before this process has registered.
pub fn sweep_once(dir: &Path) {
    let Some(life) = LIFE.get() else { return };
    let Ok(mut swept) = life.swept.lock() else {
        return;
    };
    if swept.insert(dir.to_path_buf()) {
        sweep(dir, &life.run_dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staged_names_tell_their_stager() {
        assert_eq!(
            stager(".sparks-123xab12-Q8zK2a.tmp"),
            Some(Stager::Tagged("123xab12"))
        );
        assert_eq!(stager(".sparks-Q8zK2a.tmp"), Some(Stager::Untagged));
        assert_eq!(stager("sparks-Q8zK2a.tmp"), None);
        assert_eq!(stager(".sparks-Q8zK2a.md"), None);
        assert_eq!(stager("notes.md"), None);
    }

    /// A life file is alive while its lock is held and dead once the holder lets go; the dead
    /// one is removed by the look that finds it so.
    #[test]
    fn a_life_is_alive_while_its_lock_is_held() {
        let dir = tempfile::tempdir().unwrap();
        let live = dir.path().join(LIVE_DIR);
        fs_err::create_dir_all(&live).unwrap();
        let path = live.join("42xabc");
        let holder = fs_err::File::create(&path).unwrap().into_parts().0;
        holder.lock().unwrap();
        assert!(alive(dir.path(), "42xabc"));
        assert!(path.exists(), "a living file is left alone");
        drop(holder);
        assert!(!alive(dir.path(), "42xabc"));
        assert!(!path.exists(), "the dead one is removed");
        assert!(!alive(dir.path(), "never-was"));
        assert!(!alive(dir.path(), "../escape"));
    }

    #[test]
    fn a_sweep_removes_only_what_the_dead_staged() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join(".sparks");
        let live = run.join(LIVE_DIR);
        fs_err::create_dir_all(&live).unwrap();
        let holder = fs_err::File::create(live.join("7xlive"))
            .unwrap()
            .into_parts()
            .0;
        holder.lock().unwrap();
        let work = dir.path().join("wiki");
        fs_err::create_dir_all(&work).unwrap();
        for name in [
            ".sparks-7xlive-aaaaaa.tmp",
            ".sparks-9xdead-bbbbbb.tmp",
            ".sparks-cccccc.tmp",
            "page.md",
        ] {
            fs_err::write(work.join(name), "x").unwrap();
        }
        let removed = sweep(&work, &run);
        assert_eq!(removed, [work.join(".sparks-9xdead-bbbbbb.tmp")]);
        let mut left: Vec<String> = fs_err::read_dir(&work)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [".sparks-7xlive-aaaaaa.tmp", ".sparks-cccccc.tmp", "page.md"],
            "a living process's file and a young untagged one stay"
        );
    }
}
