//! Progress of a long operation (a scan, regen, index, lint or fmt over a large vault, a sync's
//! transfer), as the core reports it: which phase it is in and how many items it has done. The
//! core never prints; whoever opened the session decides who listens. The CLI draws a bar on a
//! terminal (`src/cli/progress.rs`); the MCP server, the viewer and every test listen to
//! nothing ([`Silent`]).

use std::fmt;
use std::sync::Arc;

/// What a long operation is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Listing the vault's files and their metadata.
    Walking,
    /// Reading, hashing and parsing the files that changed.
    Reading,
    /// Writing the search index.
    Indexing,
    /// Resolving the links whose targets may have changed.
    Resolving,
    /// Running lint's checks over the manifest.
    Checking,
    /// Working out and writing generated pages (index, collections).
    Writing,
    /// Receiving a remote's objects (a sync's fetch).
    Receiving,
    /// Sending objects to a remote (a sync's push).
    Sending,
}

impl Phase {
    /// The phase as people read it.
    pub fn label(self) -> &'static str {
        match self {
            Phase::Walking => "walking",
            Phase::Reading => "reading",
            Phase::Indexing => "indexing",
            Phase::Resolving => "resolving links",
            Phase::Checking => "checking",
            Phase::Writing => "writing",
            Phase::Receiving => "receiving",
            Phase::Sending => "sending",
        }
    }

    /// What the phase counts.
    pub fn unit(self) -> &'static str {
        match self {
            Phase::Walking | Phase::Reading | Phase::Indexing => "files",
            Phase::Resolving => "targets",
            Phase::Checking => "checks",
            Phase::Writing => "pages",
            Phase::Receiving | Phase::Sending => "objects",
        }
    }
}

/// Listens to an operation's progress. Called from the thread doing the work, once per item:
/// an implementation must be cheap and must never fail the operation.
pub trait Progress: Send + Sync {
    /// A phase begins, with its number of items when it is known.
    fn phase(&self, phase: Phase, total: Option<u64>);
    /// `n` more items of the current phase are done.
    fn advance(&self, n: u64);
}

/// Listens to nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {
    fn phase(&self, _: Phase, _: Option<u64>) {}
    fn advance(&self, _: u64) {}
}

/// A shared listener, as a session holds it; the request passes it down to the core
/// functions that report progress as a `&dyn Progress`.
#[derive(Clone)]
pub struct Listener(pub Arc<dyn Progress>);

impl Listener {
    /// The listener that hears nothing.
    pub fn silent() -> Listener {
        Listener(Arc::new(Silent))
    }
}

impl Default for Listener {
    fn default() -> Listener {
        Listener::silent()
    }
}

impl fmt::Debug for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Listener")
    }
}

impl std::ops::Deref for Listener {
    type Target = dyn Progress;
    fn deref(&self) -> &(dyn Progress + 'static) {
        &*self.0
    }
}

/// A listener for tests: it records what it hears, a line a phase or step.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct Log(pub(crate) std::sync::Mutex<Vec<String>>);

#[cfg(test)]
impl Progress for Log {
    fn phase(&self, phase: Phase, total: Option<u64>) {
        self.0
            .lock()
            .unwrap()
            .push(format!("{} {total:?}", phase.label()));
    }
    fn advance(&self, n: u64) {
        self.0.lock().unwrap().push(format!("+{n}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listener_passes_what_it_hears_on() {
        let log = Arc::new(Log::default());
        let l = Listener(log.clone());
        l.phase(Phase::Resolving, Some(3));
        l.advance(2);
        assert_eq!(*log.0.lock().unwrap(), ["resolving links Some(3)", "+2"]);
        // The silent one takes anything.
        Listener::default().advance(1);
    }
}
