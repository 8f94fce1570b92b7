//! The watcher's records in `.sparks/`: how any Sparks process learns whether a watcher keeps
//! the manifest current, and asks it to vouch for the manifest before it answers.
//!
//! - `watch.lock`: the watcher holds an exclusive OS lock on it for its whole life (the kernel
//!   releases it when the process dies, SIGKILL included), and writes its process id into it.
//!   A watcher is running exactly while the lock is held; nothing else (a pid, a timestamp) is
//!   believed.
//! - `watch.json`: what the watcher says about itself ([`WatchState`]): since when, in which
//!   mode, the last change it applied, and its last few applied changes (what a viewer in
//!   another process follows to reload its pages).
//! - `cookies/`: a reader that wants the manifest vouched for writes a cookie file there
//!   ([`vouch`]). File system events arrive in order, so when the watcher sees the cookie it
//!   has seen every event of a file written before it; it applies what it holds and removes the
//!   cookie. A reader whose cookie is gone knows the manifest reflects every file written
//!   before it asked (git's fsmonitor daemon works the same way).

use crate::fsio::FileError;
use crate::runstate::RunDir;
use serde::{Deserialize, Serialize};
use std::fs::{File, TryLockError};
use std::io::{self, Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The lock file a watcher holds for its life.
pub const LOCK: &str = "watch.lock";
/// The watcher's own account of itself.
pub const STATE: &str = "watch.json";
/// Where readers leave their cookies.
pub const COOKIES: &str = "cookies";
/// How many applied changes `watch.json` keeps for followers.
pub const RECENT: usize = 32;
/// How many pages one applied change names (more are said as `more`).
pub const PAGES_NAMED: usize = 200;

/// How a watcher learns of changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The operating system's file events (inotify, FSEvents, ReadDirectoryChangesW).
    Native,
    /// Scanning the vault at an interval (no events here, or the watch limit was reached).
    Polling,
}

impl Mode {
    /// Its name, as `status` says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Native => "native",
            Mode::Polling => "polling",
        }
    }
}

/// One change the watcher applied to the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    /// Counts the changes this watcher applied, from 1.
    pub seq: u64,
    /// When (RFC 3339).
    pub at: String,
    /// The vault-relative files whose content changed, appeared or went (at most
    /// [`PAGES_NAMED`]).
    pub paths: Vec<String>,
    /// Set when more files changed than `paths` names (a follower then reloads everything).
    #[serde(default)]
    pub more: bool,
}

/// What a running watcher says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchState {
    /// Its process id.
    pub pid: u32,
    /// When it started (RFC 3339).
    pub since: String,
    /// How it learns of changes.
    pub mode: Mode,
    /// When it last applied a change (RFC 3339), if it has.
    pub last_event: Option<String>,
    /// Its last applied changes, oldest first (at most [`RECENT`]).
    #[serde(default)]
    pub recent: Vec<Applied>,
}

/// The lock a running watcher holds; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct WatchLock {
    _file: File,
    run: RunDir,
}

/// Another watcher holds the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// Its process id, as it wrote it (`None` in the instant between its lock and its write).
    pub pid: Option<u32>,
}

impl WatchLock {
    /// Take the vault's watcher lock, unless another process (or another watcher of this one)
    /// holds it.
    pub fn take(root: &Path) -> io::Result<Result<WatchLock, Taken>> {
        let run = RunDir::of(root);
        run.ensure().map_err(io::Error::other)?;
        let path = run.file(LOCK);
        let mut file = crate::fsio::open_lock_file(&path)?;
        // A reader asking whether a watcher runs holds a shared lock for an instant: a few
        // tries tell it from a watcher, which holds it for good.
        let mut tries = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if tries < 10 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(TryLockError::WouldBlock) => {
                    return Ok(Err(Taken {
                        pid: pid_in(&mut file),
                    }));
                }
                Err(TryLockError::Error(e)) => return Err(FileError::io("lock", &path)(e)),
            }
        }
        file.set_len(0).map_err(FileError::io("write", &path))?;
        file.rewind().map_err(FileError::io("write", &path))?;
        writeln!(file, "{}", std::process::id()).map_err(FileError::io("write", &path))?;
        fs_err::create_dir_all(run.file(COOKIES))?;
        Ok(Ok(WatchLock { _file: file, run }))
    }

    /// The directory readers leave their cookies in.
    pub fn cookies(&self) -> PathBuf {
        self.run.file(COOKIES)
    }

    /// Say what this watcher is (at its start and after each applied change).
    pub fn publish(&self, state: &WatchState) -> crate::runstate::Result<()> {
        self.run.write(STATE, state)
    }
}

impl Drop for WatchLock {
    fn drop(&mut self) {
        // A watcher that stopped says nothing any more; its lock goes with its file handle.
        let _ = self.run.remove(STATE);
    }
}

/// The running watcher of the vault at `root`, if one holds the lock: what it says about
/// itself (its pid alone while it has not said more yet).
pub fn running(root: &Path) -> Option<WatchState> {
    let run = RunDir::of(root);
    let mut file = crate::fsio::open_nofollow(&run.file(LOCK)).ok()?;
    match file.try_lock_shared() {
        // Free: nobody watches (the lock is let go when `file` closes).
        Ok(()) => None,
        Err(TryLockError::WouldBlock) => {
            let pid = pid_in(&mut file);
            let state = run.read::<WatchState>(STATE).ok().flatten();
            match state {
                Some(s) if pid.is_none_or(|p| p == s.pid) => Some(s),
                // Its account is not written yet (or is a dead one's): the pid is known.
                _ => pid.map(|pid| WatchState {
                    pid,
                    since: String::new(),
                    mode: Mode::Native,
                    last_event: None,
                    recent: Vec::new(),
                }),
            }
        }
        Err(TryLockError::Error(_)) => None,
    }
}

/// How long a reader waits for a watcher to vouch before it scans by itself.
pub const VOUCH_WAIT: Duration = Duration::from_secs(1);

/// Ask the running watcher to vouch that the manifest reflects every file written before now.
/// `true` when it did within `wait`; `false` when no watcher runs on native events, or it did
/// not answer in time (the caller then scans by itself).
pub fn vouch(root: &Path, wait: Duration) -> bool {
    let Some(state) = running(root) else {
        return false;
    };
    if state.mode != Mode::Native || state.since.is_empty() {
        return false;
    }
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let dir = RunDir::of(root).file(COOKIES);
    let cookie = dir.join(format!(
        "{}-{}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    if fs_err::write(&cookie, b"").is_err() {
        return false;
    }
    let started = Instant::now();
    let mut pause = Duration::from_micros(200);
    while started.elapsed() < wait {
        if !cookie.exists() {
            return true;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    }
    let _ = fs_err::remove_file(&cookie);
    false
}

/// The process id written in a lock file, if it reads as one.
fn pid_in(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_watcher_at_a_time_and_none_after_it() {
        let dir = tempfile::tempdir().expect("a directory");
        assert_eq!(running(dir.path()), None);
        let lock = WatchLock::take(dir.path())
            .expect("io")
            .expect("the first takes it");
        let second = WatchLock::take(dir.path()).expect("io");
        assert_eq!(
            second.err(),
            Some(Taken {
                pid: Some(std::process::id())
            })
        );
        let found = running(dir.path()).expect("it runs");
        assert_eq!(found.pid, std::process::id());
        assert!(!vouch(dir.path(), Duration::from_millis(10)), "not started");
        let state = WatchState {
            pid: std::process::id(),
            since: "2026-01-01T00:00:00Z".into(),
            mode: Mode::Native,
            last_event: None,
            recent: Vec::new(),
        };
        lock.publish(&state).expect("published");
        assert_eq!(running(dir.path()), Some(state));
        // Nobody takes the cookie away: no vouching, and the cookie is not left behind.
        assert!(!vouch(dir.path(), Duration::from_millis(20)));
        let left = fs_err::read_dir(lock.cookies()).expect("cookies").count();
        assert_eq!(left, 0);
        drop(lock);
        assert_eq!(running(dir.path()), None);
        assert!(!dir.path().join(".sparks").join(STATE).exists());
    }
}
