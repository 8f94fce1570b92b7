//! The checks run in report order, each check's issues handed on as they are found, so that
//! memory does not grow with the findings. A whole-vault lint shares the checks between two
//! threads, each on a connection of its own (every check only reads, and a check's queries do
//! not depend on another's): each takes the next check in report order and sends its issues
//! down that check's channel, which holds [`AHEAD`] of them; the caller's thread reads the
//! channels in order. A thread ahead of the reader waits when its channel is full, so a check
//! with few issues is done beside the one being read, and one with many waits its turn. The
//! threads take the checks in the order they are read, so the check being read has always
//! been taken: the reader never waits on a thread that waits on it.

use super::checks::{self, Context, Found, Give};
use super::{Check, Issue, LintError};
use crate::manifest::{Manifest, Pages};
use crate::progress::{Phase, Progress};
use crate::vault::Vault;
use std::ops::ControlFlow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// The issues a check may find ahead of the one being read (about 250 KB of issues).
const AHEAD: usize = 1024;

/// What goes down a check's channel: an issue, or why the check stopped.
type Message = Result<Issue, LintError>;

/// Give each issue of `checks` (each once, in report order: by check, page and line) on the
/// pages in `scope`, until `give` breaks; `progress` hears each check done. A few pages' lint
/// (an ingest's delta) costs less than the other connections, and runs on this thread.
pub(super) fn each(
    vault: &Vault,
    manifest: &Manifest,
    checks: &[Check],
    scope: Pages<'_>,
    progress: &dyn Progress,
    give: Give<'_>,
) -> Result<(), LintError> {
    let order: Vec<Check> = Check::ALL
        .iter()
        .copied()
        .filter(|c| checks.contains(c))
        .collect();
    progress.phase(Phase::Checking, Some(order.len() as u64));
    let readers = match scope {
        Pages::All => (manifest.another_reader(), manifest.another_reader()),
        Pages::Only(_) => return in_turn(vault, manifest, &order, scope, progress, give),
    };
    match readers {
        (Ok(a), Ok(b)) => side_by_side(vault, [a, b], &order, progress, give),
        _ => in_turn(vault, manifest, &order, scope, progress, give),
    }
}

/// The checks one after the other on this thread.
fn in_turn(
    vault: &Vault,
    manifest: &Manifest,
    order: &[Check],
    scope: Pages<'_>,
    progress: &dyn Progress,
    give: Give<'_>,
) -> Result<(), LintError> {
    let cx = Context {
        vault,
        manifest,
        scope,
    };
    for &check in order {
        let mut found = Found::new(check, scope, give);
        checks::produce(&cx, &mut found)?;
        if !found.finish() {
            break;
        }
        progress.advance(1);
    }
    Ok(())
}

/// The checks shared between two threads on the `readers`, read here in order.
fn side_by_side(
    vault: &Vault,
    readers: [Manifest; 2],
    order: &[Check],
    progress: &dyn Progress,
    give: Give<'_>,
) -> Result<(), LintError> {
    let next = AtomicUsize::new(0);
    let (senders, receivers): (Vec<_>, Vec<_>) = order
        .iter()
        .map(|_| {
            let (tx, rx) = sync_channel::<Message>(AHEAD);
            (Mutex::new(Some(tx)), rx)
        })
        .unzip();
    let (next, senders) = (&next, &senders);
    std::thread::scope(|threads| {
        for reader in readers {
            // The connection moves to the thread that uses it (a connection is not Sync).
            threads.spawn(move || work(vault, &reader, order, next, senders));
        }
        let read = read(receivers, progress, give);
        // The threads take up no further check (those they are in stop at their next issue:
        // the channels are gone).
        next.store(order.len(), Ordering::Relaxed);
        read
    })
}

/// Take the next check and send its issues down its channel, until every check is taken.
fn work(
    vault: &Vault,
    manifest: &Manifest,
    order: &[Check],
    next: &AtomicUsize,
    senders: &[Mutex<Option<SyncSender<Message>>>],
) {
    let cx = Context {
        vault,
        manifest,
        scope: Pages::All,
    };
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(&check) = order.get(i) else {
            return;
        };
        let sender = senders[i].lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(tx) = sender else {
            continue;
        };
        let mut send = |issue: Issue| match tx.send(Ok(issue)) {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        };
        let mut found = Found::new(check, Pages::All, &mut send);
        let done = checks::produce(&cx, &mut found);
        found.finish();
        if let Err(e) = done {
            let _ = tx.send(Err(e));
        }
    }
}

/// Give the issues of each channel in turn, until `give` breaks or a check fails.
fn read(
    receivers: Vec<Receiver<Message>>,
    progress: &dyn Progress,
    give: Give<'_>,
) -> Result<(), LintError> {
    for rx in receivers {
        for message in rx {
            if give(message?).is_break() {
                return Ok(());
            }
        }
        progress.advance(1);
    }
    Ok(())
}
