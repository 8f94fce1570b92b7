//! One function per family of checks that share a query of the manifest; each pushes the
//! issues of the checks selected.

mod copies;
mod frontmatter;
mod links;
mod markers;
mod names;
mod pages;
mod twins;

use super::{Check, Issue, LintError};
use crate::failure::Action;
use crate::manifest::{Manifest, Pages};
use crate::progress::{Phase, Progress};
use crate::vault::Vault;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What every check gets: the vault, its manifest, the checks selected and the pages to
/// report on, and who hears how the checks go. A family may report pages outside the scope
/// (those it cannot tell apart in its query); [`run`] drops them.
pub(super) struct Context<'a> {
    pub vault: &'a Vault,
    pub manifest: &'a Manifest,
    pub checks: &'a [Check],
    pub scope: Pages<'a>,
    pub progress: &'a dyn Progress,
}

impl Context<'_> {
    /// Whether `check` was selected.
    pub fn on(&self, check: Check) -> bool {
        self.checks.contains(&check)
    }
}

/// The issues found so far.
#[derive(Debug, Default)]
pub(super) struct Issues(pub Vec<Issue>);

impl Issues {
    /// An issue of `check` at `path` (and `line`).
    pub fn push(&mut self, check: Check, path: &str, line: Option<usize>, message: String) {
        self.0.push(Issue {
            check,
            path: path.to_string(),
            line,
            message,
            hint: String::new(),
            action: None,
        });
    }

    /// An issue of `check` at `path`, with advice for the front end to word.
    pub fn advise(&mut self, check: Check, path: &str, message: String, action: Action) {
        self.push(check, path, None, message);
        if let Some(i) = self.0.last_mut() {
            i.action = Some(action);
        }
    }
}

/// A family of checks.
type Family = fn(&Context<'_>, &mut Issues) -> Result<(), LintError>;

/// Every family, in report order.
const FAMILIES: [Family; 10] = [
    links::unresolved,
    links::fragments,
    pages::orphans,
    pages::thin,
    pages::sources,
    names::duplicates,
    frontmatter::frontmatter,
    copies::conflicts,
    markers::markers,
    twins::near_duplicates,
];

/// The order in which a whole-vault lint takes the families up (indexes into [`FAMILIES`]):
/// the costliest first, as measured at 10,000 pages (fragments 150 ms, frontmatter 120,
/// sources 60, orphans 33, names 25, unresolved 16, thin 6, conflict copies 1, conflict
/// markers under 1; near-duplicates 25 at 10,000 pages, 250 at 100,000), so that two threads
/// each taking the next family when done end close together.
const COSTLIEST_FIRST: [usize; 10] = [1, 6, 4, 2, 9, 5, 0, 3, 7, 8];

/// Run every selected check, telling the manifest's listener how far it got. A whole-vault
/// lint shares the families between this thread, on the manifest's connection, and a second
/// one on a connection of its own (every check only reads, and a family's queries do not
/// depend on another's); the issues come out as the families run one after the other would
/// give them. A few pages' lint (an ingest's delta) costs less than the second connection.
pub(super) fn run(cx: &Context<'_>) -> Result<Vec<Issue>, LintError> {
    let progress = cx.progress;
    progress.phase(Phase::Checking, Some(FAMILIES.len() as u64));
    let second = match cx.scope {
        Pages::All => cx.manifest.another_reader().ok(),
        Pages::Only(_) => None,
    };
    let found: Vec<Issues> = match second {
        None => FAMILIES
            .iter()
            .map(|family| {
                let mut out = Issues::default();
                family(cx, &mut out)?;
                progress.advance(1);
                Ok(out)
            })
            .collect::<Result<_, LintError>>()?,
        Some(manifest) => {
            let next = AtomicUsize::new(0);
            let slots: Vec<Mutex<Option<Issues>>> =
                FAMILIES.iter().map(|_| Mutex::new(None)).collect();
            let work = |cx: &Context<'_>| -> Result<(), LintError> {
                loop {
                    let Some(&i) = COSTLIEST_FIRST.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        return Ok(());
                    };
                    let mut out = Issues::default();
                    if let Err(e) = FAMILIES[i](cx, &mut out) {
                        // The other thread takes up no further family.
                        next.store(FAMILIES.len(), Ordering::Relaxed);
                        return Err(e);
                    }
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(out);
                    progress.advance(1);
                }
            };
            let work = &work;
            let (vault, checks, scope) = (cx.vault, cx.checks, cx.scope);
            std::thread::scope(|threads| {
                // The connection moves to the thread that uses it (a connection is not Sync).
                let helper = threads.spawn(move || {
                    work(&Context {
                        vault,
                        manifest: &manifest,
                        checks,
                        scope,
                        progress,
                    })
                });
                let mine = work(cx);
                let theirs = helper
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p));
                mine.and(theirs)
            })?;
            slots
                .into_iter()
                .map(|s| {
                    s.into_inner()
                        .unwrap_or_else(|e| e.into_inner())
                        .unwrap_or_default()
                })
                .collect()
        }
    };
    let mut out: Vec<Issue> = found.into_iter().flat_map(|i| i.0).collect();
    if let Pages::Only(paths) = cx.scope {
        let only: std::collections::HashSet<&str> = paths.iter().map(String::as_str).collect();
        out.retain(|i| only.contains(i.path.as_str()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_costliest_first_order_takes_every_family_once() {
        let mut order = COSTLIEST_FIRST.to_vec();
        order.sort_unstable();
        assert_eq!(order, (0..FAMILIES.len()).collect::<Vec<_>>());
    }
}
