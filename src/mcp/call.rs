//! How one tool call runs: its request is built (a broken argument rule is a tool error), then
//! it runs on a blocking thread (the core does file and SQLite I/O) in its own session, found
//! and opened for that call only. Requests that may write are serialised by one lock; the rest
//! run side by side.

use super::reply;
use crate::failure::Failure;
use crate::request::{Report as _, Request};
use crate::session::Place;
use rmcp::model::CallToolResult;
use std::sync::Arc;

/// Runs calls: the place, and the lock that serialises the calls that may write.
#[derive(Debug, Clone, Default)]
pub struct Runner {
    place: Place,
    writes: Arc<tokio::sync::Mutex<()>>,
}

impl Runner {
    /// A runner for calls on `place`.
    pub fn new(place: Place) -> Runner {
        Runner {
            place,
            writes: Arc::default(),
        }
    }

    /// Wait until no call that may write is running.
    pub async fn idle(&self) {
        drop(self.writes.lock().await);
    }

    /// Run the request `build` makes, after every earlier writing call when it may write, and
    /// answer with its report (or its failure).
    pub async fn call<R: Request>(&self, build: Result<R, Failure>) -> CallToolResult {
        let request = match build {
            Ok(r) => r,
            Err(f) => return reply::failure(&f),
        };
        // The guard moves into the blocking task, so that a cancelled request cannot release
        // the lock while its work is still running.
        let guard = match request.writes() {
            true => Some(self.writes.clone().lock_owned().await),
            false => None,
        };
        let place = self.place.clone();
        let task = tokio::task::spawn_blocking(move || {
            let _guard = guard;
            let session = place.open()?;
            crate::request::run(request, session)
        });
        match task.await {
            Ok(Ok(mut report)) => {
                report.word(super::hint::word);
                reply::json(&report)
            }
            Ok(Err(failure)) => reply::failure(&failure),
            Err(err) => reply::failure(&Failure::from(Stopped(err.to_string()))),
        }
    }
}

/// A call's thread stopped without an answer (a panic): said as a failure.
#[derive(Debug, thiserror::Error)]
#[error("the call stopped unexpectedly: {0}")]
struct Stopped(String);

impl crate::failure::Hint for Stopped {
    fn hint(&self) -> Option<crate::failure::Advice> {
        None
    }
}
