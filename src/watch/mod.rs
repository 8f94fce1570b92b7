//! `sparks watch`: keep the manifest current from file system events, so that the answers of
//! every command (and of `serve` and `view`, which run one) reflect the files without a scan
//! of their own.
//!
//! One watcher per vault: it holds `.sparks/watch.lock` for its life ([`WatchLock`]), and says
//! what it is in `.sparks/watch.json`. It watches the vault root and each top-level directory
//! the scan walks (so `.git`, `.obsidian` and `.sparks` cost no watches), plus the readers'
//! cookie directory. Events are gathered into bursts ([`events::Pending`]): a burst is applied
//! as one scan when the vault has been quiet for [`QUIET`] (or after [`MOST`] of steady
//! change), of its files alone when it named files, of the whole vault when a directory came,
//! went or moved or the kernel dropped events. A reader's cookie applies what is pending at
//! once and is then removed: the reader's vouch ([`vouch`], in `record.rs` with the rest of the protocol: the lock, the account, the
//! cookies).
//!
//! Where the operating system gives no events (or its limit of watches is reached) the
//! watcher scans the vault at an interval instead, and says so once. Idle, it waits on its
//! channel: no timer, no polling, no writes, and without what the burst freed
//! ([`crate::memory::give_back`] after each).

mod events;
mod follow;
mod record;

pub use follow::{Follower, follow};
pub use record::{Applied, Mode, VOUCH_WAIT, WatchState, running, vouch};

use crate::scan::{self, ScanError};
use crate::session::{Place, SessionError};
use crate::vault::{Vault, VaultError};
use events::Pending;
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use record::{RECENT, Taken, WatchLock};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the vault stays quiet before a burst is applied.
pub const QUIET: Duration = Duration::from_millis(50);
/// The longest a burst waits while changes keep coming.
pub const MOST: Duration = Duration::from_secs(1);
/// The shortest interval between two scans when polling.
pub const POLL_EVERY: Duration = Duration::from_secs(2);

/// The watcher could not start.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The vault could not be found.
    #[error(transparent)]
    Vault(#[from] VaultError),
    /// Its run-time directory could not be written.
    #[error("cannot take the watcher's lock in {}: {source}", dir.display())]
    Lock {
        /// The run-time directory.
        dir: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The manifest could not be opened.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The first scan failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// Saying what the watcher is failed.
    #[error(transparent)]
    Record(#[from] crate::runstate::RunStateError),
    /// The watcher's thread could not start.
    #[error("cannot start the watcher's thread: {0}")]
    Thread(std::io::Error),
}

impl crate::failure::Hint for WatchError {
    fn hint(&self) -> Option<crate::failure::Advice> {
        match self {
            WatchError::Vault(e) => e.hint(),
            WatchError::Session(e) => e.hint(),
            WatchError::Scan(e) => e.hint(),
            WatchError::Record(e) => e.hint(),
            WatchError::Lock { .. } | WatchError::Thread(_) => None,
        }
    }
}

/// What a watcher tells its owner, as it happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// It applied a change to the manifest.
    Applied(Applied),
    /// It scans at an interval instead of following events, and why (said once).
    Polling(String),
    /// Applying a change failed; the next event tries again (readers scan by themselves
    /// meanwhile).
    Failed(String),
}

/// Who hears a watcher's notes.
pub type Listener = Box<dyn FnMut(Note) + Send>;

/// How to watch.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Scan at an interval even where the system gives events (`--poll`, for file systems
    /// whose events do not reach this machine).
    pub poll: bool,
}

/// What starting a watcher came to.
#[derive(Debug)]
pub enum Started {
    /// This process watches the vault, until the [`Watcher`] is stopped or dropped.
    Own(Watcher),
    /// Another process watches it already (its pid, when it has written it).
    Other(Option<u32>),
}

/// A watcher running in this process.
#[derive(Debug)]
pub struct Watcher {
    stop: Sender<Msg>,
    thread: Option<JoinHandle<()>>,
    /// What it said about itself when it started.
    pub state: WatchState,
}

impl Watcher {
    /// Stop watching: what is pending is applied first.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        let _ = self.stop.send(Msg::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.halt();
    }
}

/// A message to the watcher's thread.
enum Msg {
    Event(notify::Result<notify::Event>),
    Stop,
}

/// Start watching the vault of `place`, unless another watcher does: its first scan is done when
/// this returns. `listen` hears what it does from then on.
pub fn start(place: &Place, options: Options, listen: Listener) -> Result<Started, WatchError> {
    let vault = place.vault()?;
    let lock = match WatchLock::take(&vault.root) {
        Ok(Ok(lock)) => lock,
        Ok(Err(Taken { pid })) => return Ok(Started::Other(pid)),
        Err(source) => {
            return Err(WatchError::Lock {
                dir: vault.root.join(crate::runstate::DIR),
                source,
            });
        }
    };
    let (tx, rx) = mpsc::channel();
    let mut listen = listen;
    let (backend, mode) = match options.poll {
        true => (None, Mode::Polling),
        false => match native(&vault.root, &lock, tx.clone()) {
            Ok(w) => (Some(w), Mode::Native),
            Err(why) => {
                listen(Note::Polling(why));
                (None, Mode::Polling)
            }
        },
    };
    // Watching began before this scan: a change made during it is in the channel.
    let now = place.now();
    let session = place.open()?;
    let mut manifest = session.manifest()?;
    let found = scan::rescan(&vault, &mut manifest, &now, &*session.progress)?.touched;
    drop(manifest);
    drop(session);
    crate::memory::give_back();
    let state = WatchState {
        pid: std::process::id(),
        since: now.timestamp.clone(),
        mode,
        last_event: None,
        recent: Vec::new(),
    };
    lock.publish(&state)?;
    let mut run = Run {
        place: place.clone(),
        vault,
        lock,
        state: state.clone(),
        backend,
        listen,
        last_poll_cost: Duration::ZERO,
    };
    // What changed before it watched is told like any change: a viewer's page rendered from
    // the manifest as it was reloads.
    if !found.is_empty() {
        run.applied(found);
    }
    let thread = std::thread::Builder::new()
        .name("watch".into())
        .spawn(move || run.run(rx))
        .map_err(WatchError::Thread)?;
    Ok(Started::Own(Watcher {
        stop: tx,
        thread: Some(thread),
        state,
    }))
}

/// The system's file events for the vault at `root`: the root itself, each top-level directory
/// the scan walks (recursively), and the cookie directory. `Err` says why there are none.
fn native(root: &Path, lock: &WatchLock, tx: Sender<Msg>) -> Result<RecommendedWatcher, String> {
    let handler = move |event| {
        let _ = tx.send(Msg::Event(event));
    };
    let config = notify::Config::default().with_follow_symlinks(false);
    let mut w = RecommendedWatcher::new(handler, config).map_err(|e| unavailable(&e))?;
    w.watch(root, RecursiveMode::NonRecursive)
        .map_err(|e| unavailable(&e))?;
    w.watch(&lock.cookies(), RecursiveMode::NonRecursive)
        .map_err(|e| unavailable(&e))?;
    for dir in top_level_dirs(root) {
        match w.watch(&dir, RecursiveMode::Recursive) {
            Ok(()) => {}
            // Gone meanwhile: its removal is an event already.
            Err(e) if matches!(e.kind, notify::ErrorKind::PathNotFound) => {}
            Err(e) => return Err(unavailable(&e)),
        }
    }
    Ok(w)
}

/// Why file events cannot be used, in a user's words.
fn unavailable(e: &notify::Error) -> String {
    match e.kind {
        notify::ErrorKind::MaxFilesWatch => "the system's limit of watched directories is reached \
             (on Linux, raise fs.inotify.max_user_watches)"
            .to_string(),
        _ => format!("file events are not available here ({e})"),
    }
}

/// The top-level directories a scan walks (not hidden, not `node_modules`, no links).
fn top_level_dirs(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = crate::fsio::read_dir(root) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| scan::watched(&format!("{n}/x")))
        })
        .map(|e| e.path())
        .collect()
}

/// The watcher's thread.
struct Run {
    place: Place,
    vault: Vault,
    lock: WatchLock,
    state: WatchState,
    backend: Option<RecommendedWatcher>,
    listen: Listener,
    last_poll_cost: Duration,
}

impl Run {
    fn run(&mut self, rx: Receiver<Msg>) {
        let mut pending = Pending::default();
        // When the burst began, and when its last event came.
        let mut first = Instant::now();
        let mut last = Instant::now();
        loop {
            let waiting = !pending.is_empty() || self.backend.is_none();
            let message = match waiting {
                false => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                true => rx.recv_timeout(
                    self.due(first, last)
                        .saturating_duration_since(Instant::now()),
                ),
            };
            match message {
                Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => {
                    if !pending.is_empty() {
                        self.apply(&mut pending);
                    }
                    return;
                }
                Ok(Msg::Event(Ok(event))) => {
                    let idle = pending.is_empty();
                    // Only what asks for a scan starts or extends a burst: readers opening the
                    // manifest many times a second must not put off applying an edit.
                    if pending.add(&self.vault.root, &event) {
                        if idle {
                            first = Instant::now();
                        }
                        last = Instant::now();
                    }
                }
                Ok(Msg::Event(Err(e))) => self.lost_events(&e, &mut pending),
                Err(RecvTimeoutError::Timeout) => {}
            }
            for dir in std::mem::take(&mut pending.new_dirs) {
                if let Some(w) = &mut self.backend {
                    // Already watched (a rename back) or gone again: the scan sees to it.
                    let _ = w.watch(&dir, RecursiveMode::Recursive);
                }
            }
            if self.backend.is_none() {
                if Instant::now() >= self.due(first, last) {
                    pending.full = true;
                    first = Instant::now();
                    self.apply(&mut pending);
                }
                continue;
            }
            let quiet = last.elapsed() >= QUIET || first.elapsed() >= MOST;
            if !pending.cookies.is_empty() || (!pending.is_empty() && quiet) {
                self.apply(&mut pending);
            }
        }
    }

    /// When the pending burst is to be applied (when polling: the next scan).
    fn due(&self, first: Instant, last: Instant) -> Instant {
        match self.backend {
            Some(_) => (last + QUIET).min(first + MOST),
            None => first + POLL_EVERY.max(self.last_poll_cost * 10),
        }
    }

    /// The system reported an error instead of an event: events were lost, so the whole vault
    /// is scanned; past the watch limit, the watcher polls from now on.
    fn lost_events(&mut self, e: &notify::Error, pending: &mut Pending) {
        pending.full = true;
        if matches!(e.kind, notify::ErrorKind::MaxFilesWatch) && self.backend.is_some() {
            self.backend = None;
            self.state.mode = Mode::Polling;
            // Readers must not wait for cookies a polling watcher never sees.
            if let Err(e) = self.lock.publish(&self.state) {
                (self.listen)(Note::Failed(e.to_string()));
            }
            (self.listen)(Note::Polling(unavailable(e)));
        }
    }

    /// Apply what is pending as one scan; then let the readers whose cookies came after it go.
    fn apply(&mut self, pending: &mut Pending) {
        let started = Instant::now();
        let work = std::mem::take(pending);
        match self.scan(&work) {
            Ok(touched) => {
                for cookie in &work.cookies {
                    let _ = fs_err::remove_file(cookie);
                }
                if self.backend.is_none() {
                    self.last_poll_cost = started.elapsed();
                }
                if !touched.is_empty() {
                    self.applied(touched);
                }
            }
            Err(e) => {
                // Tried again with the next event; readers, whose cookies stay, scan by
                // themselves meanwhile.
                pending.full = true;
                (self.listen)(Note::Failed(e.to_string()));
            }
        }
    }

    fn scan(&self, work: &Pending) -> Result<scan::Touched, WatchError> {
        if !work.full && work.paths.is_empty() {
            return Ok(scan::Touched::default());
        }
        let now = self.place.now();
        let session = self.place.open()?;
        let mut manifest = session.manifest()?;
        let report = match work.full {
            true => scan::rescan(&self.vault, &mut manifest, &now, &*session.progress)?,
            false => {
                let paths: Vec<String> = work.paths.iter().cloned().collect();
                scan::scan_paths(
                    &self.vault,
                    &mut manifest,
                    &paths,
                    now.ns,
                    &*session.progress,
                )?
            }
        };
        // The burst's connection closed, what it held goes back while the watcher idles (a
        // reader's cookie alone, which scans nothing, costs nothing here).
        drop(manifest);
        drop(session);
        crate::memory::give_back();
        Ok(report.touched)
    }

    /// Say what changed: in `watch.json` (for `status` and for viewers in other processes) and
    /// to the owner.
    fn applied(&mut self, touched: scan::Touched) {
        let now = self.place.now();
        let seq = self.state.recent.last().map_or(1, |a| a.seq + 1);
        let more = touched.more || touched.paths.len() > record::PAGES_NAMED;
        let mut paths = touched.paths;
        paths.truncate(record::PAGES_NAMED);
        let applied = Applied {
            seq,
            at: now.timestamp.clone(),
            paths,
            more,
        };
        self.state.last_event = Some(now.timestamp);
        self.state.recent.push(applied.clone());
        if self.state.recent.len() > RECENT {
            self.state.recent.remove(0);
        }
        if let Err(e) = self.lock.publish(&self.state) {
            (self.listen)(Note::Failed(e.to_string()));
        }
        (self.listen)(Note::Applied(applied));
    }
}
