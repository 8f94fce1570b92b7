//! One function per family of checks that share a query of the manifest (or what is built
//! from it); each runs once for the checks selected ([`run`]). The issues of a check that are
//! bounded by the vault's pages (at most a few a page) are held, in report order; those of the
//! link checks, as many as the links, are counted, and read from the manifest again as they
//! are written ([`each`]), so that memory does not grow with them.

mod copies;
mod frontmatter;
mod links;
mod markers;
mod names;
mod pages;
mod twins;

use super::{Check, Issue, LintError};
use crate::failure::{Action, Wording};
use crate::manifest::{Manifest, Pages};
use crate::progress::{Phase, Progress};
use crate::vault::Vault;
use std::collections::{BTreeMap, HashSet};
use std::ops::ControlFlow;
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

/// What a family found: the issues held, and the links that the link checks' issues are
/// (each check's row numbers, read whole when its issues are written).
#[derive(Debug, Default)]
pub(super) struct Findings {
    held: Vec<Issue>,
    links: Vec<(Check, Vec<i64>)>,
}

impl Findings {
    /// An issue of `check` at `path` (and `line`).
    pub fn push(&mut self, check: Check, path: &str, line: Option<usize>, message: String) {
        self.held.push(Issue {
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
        if let Some(i) = self.held.last_mut() {
            i.action = Some(action);
        }
    }

    /// The issues of `check`, by the row numbers of their links in report order.
    pub fn links(&mut self, check: Check, rows: Vec<i64>) {
        self.links.push((check, rows));
    }
}

/// A family of checks.
type Family = fn(&Context<'_>, &mut Findings) -> Result<(), LintError>;

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

/// Run every selected check, telling the manifest's listener how far it got: the issues held
/// and the counts of the others, for [`each`] to give in report order. A whole-vault
/// lint shares the families between this thread, on the manifest's connection, and a second
/// one on a connection of its own (every check only reads, and a family's queries do not
/// depend on another's); the issues come out as the families run one after the other would
/// give them. A few pages' lint (an ingest's delta) costs less than the second connection.
pub(super) fn run(cx: &Context<'_>) -> Result<Checked, LintError> {
    let progress = cx.progress;
    progress.phase(Phase::Checking, Some(FAMILIES.len() as u64));
    let second = match cx.scope {
        Pages::All => cx.manifest.another_reader().ok(),
        Pages::Only(_) => None,
    };
    let found: Vec<Findings> = match second {
        None => FAMILIES
            .iter()
            .map(|family| {
                let mut out = Findings::default();
                family(cx, &mut out)?;
                progress.advance(1);
                Ok(out)
            })
            .collect::<Result<_, LintError>>()?,
        Some(manifest) => {
            let next = AtomicUsize::new(0);
            let slots: Vec<Mutex<Option<Findings>>> =
                FAMILIES.iter().map(|_| Mutex::new(None)).collect();
            let work = |cx: &Context<'_>| -> Result<(), LintError> {
                loop {
                    let Some(&i) = COSTLIEST_FIRST.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        return Ok(());
                    };
                    let mut out = Findings::default();
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
    // The held issues are moved into one list of their exact length (a list grown as they
    // come was up to twice as large, at the peak of a lint of 100,000 pages).
    let held = found.iter().map(|f| f.held.len()).sum();
    let mut checked = Checked {
        checks: cx.checks.to_vec(),
        held: Vec::with_capacity(held),
        links: BTreeMap::new(),
        counts: cx.checks.iter().map(|c| (*c, 0)).collect(),
    };
    for f in found {
        checked.held.extend(f.held);
        for (check, rows) in f.links {
            checked.counts.insert(check, rows.len());
            checked.links.insert(check, rows);
        }
    }
    if let Pages::Only(paths) = cx.scope {
        let only: HashSet<&str> = paths.iter().map(String::as_str).collect();
        checked.held.retain(|i| only.contains(i.path.as_str()));
    }
    // Stable: a page's issues on one line stay in the order found.
    checked
        .held
        .sort_by(|a, b| (a.check, &a.path, a.line).cmp(&(b.check, &b.path, b.line)));
    for i in &checked.held {
        *checked.counts.entry(i.check).or_default() += 1;
    }
    Ok(checked)
}

/// What the checks found: the issues held (by check, path and line), and the links of the
/// link checks' (row numbers, 8 bytes an issue); the count of each check that ran.
#[derive(Debug)]
pub struct Checked {
    checks: Vec<Check>,
    held: Vec<Issue>,
    links: BTreeMap<Check, Vec<i64>>,
    counts: BTreeMap<Check, usize>,
}

impl Checked {
    /// The issues per check: every check that ran is present.
    pub fn counts(&self) -> &BTreeMap<Check, usize> {
        &self.counts
    }

    /// Word the hint of each issue that has advice (only held issues have any).
    pub fn word(&mut self, word: Wording) {
        for i in &mut self.held {
            if let Some(action) = &i.action {
                i.hint = word(action);
            }
        }
    }
}

/// Where the issues go, one at a time, until the receiver has had enough.
pub(super) type Give<'g> = &'g mut dyn FnMut(&Issue) -> ControlFlow<()>;

/// Give each issue of `checked` on the pages in `scope` (those it was checked on), by check,
/// path and line, until `give` breaks: the held ones, and the link checks' read from
/// `manifest` (where they were found) as they are given.
pub(super) fn each(
    manifest: &Manifest,
    scope: Pages<'_>,
    checked: &Checked,
    give: Give<'_>,
) -> Result<(), LintError> {
    let mut order: Vec<Check> = checked.checks.clone();
    order.sort_unstable();
    order.dedup();
    let mut held = checked.held.iter().peekable();
    for check in order {
        if let Some(rows) = checked.links.get(&check) {
            let mut found = Found::new(check, scope, &mut *give);
            links::each(manifest, rows, &mut found)?;
            if !found.finish() {
                return Ok(());
            }
            continue;
        }
        while let Some(i) = held.next_if(|i| i.check == check) {
            if give(i).is_break() {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// A link check's issues on their way out: those of the scope's pages, each page's in line
/// order (a page's issues are held until the next page's come: they are found by page, in
/// path order, but not always by line), handed to the receiver until it has had enough.
pub(super) struct Found<'s, 'g> {
    check: Check,
    only: Option<HashSet<&'s str>>,
    page: Vec<Issue>,
    give: Give<'g>,
    stopped: bool,
}

impl<'s, 'g> Found<'s, 'g> {
    /// The issues of `check` on the pages of `scope`, for `give`.
    pub fn new(check: Check, scope: Pages<'s>, give: Give<'g>) -> Found<'s, 'g> {
        let only = match scope {
            Pages::All => None,
            Pages::Only(paths) => Some(paths.iter().map(String::as_str).collect()),
        };
        Found {
            check,
            only,
            page: Vec::new(),
            give,
            stopped: false,
        }
    }

    /// The check whose issues these are.
    pub fn check(&self) -> Check {
        self.check
    }

    /// An issue at `path` (and `line`); `Break` once the receiver wants no more.
    pub fn push(&mut self, path: &str, line: Option<usize>, message: String) -> ControlFlow<()> {
        if self.stopped {
            return ControlFlow::Break(());
        }
        if self.only.as_ref().is_some_and(|only| !only.contains(path)) {
            return ControlFlow::Continue(());
        }
        if let Some(last) = self.page.last()
            && last.path != path
        {
            debug_assert!(
                last.path.as_str() < path,
                "{}: {path} after {}",
                self.check,
                last.path
            );
            self.flush()?;
        }
        self.page.push(Issue {
            check: self.check,
            path: path.to_string(),
            line,
            message,
            hint: String::new(),
            action: None,
        });
        ControlFlow::Continue(())
    }

    /// Hand on the page held, by line (issues on one line in the order found).
    fn flush(&mut self) -> ControlFlow<()> {
        self.page.sort_by_key(|i| i.line);
        for issue in self.page.drain(..) {
            if (self.give)(&issue).is_break() {
                self.stopped = true;
                break;
            }
        }
        self.page.clear();
        match self.stopped {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        }
    }

    /// Hand on the last page held; whether the receiver took every issue.
    pub fn finish(mut self) -> bool {
        self.flush().is_continue()
    }
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

    fn issue(path: &str, line: Option<usize>, message: &str) -> (String, Option<usize>, String) {
        (path.into(), line, message.into())
    }

    #[test]
    fn each_page_comes_out_by_line_and_only_the_scope_s_pages_come_out() {
        let mut got = Vec::new();
        let mut give = |i: &Issue| {
            got.push((i.path.clone(), i.line, i.message.clone()));
            ControlFlow::Continue(())
        };
        let only = ["a.md".to_string(), "c.md".to_string()];
        let mut found = Found::new(Check::BrokenLinks, Pages::Only(&only), &mut give);
        let _ = found.push("a.md", Some(9), "x".into());
        let _ = found.push("a.md", Some(2), "y".into());
        let _ = found.push("a.md", Some(9), "z".into());
        let _ = found.push("b.md", Some(1), "not in the scope".into());
        let _ = found.push("c.md", Some(1), "w".into());
        assert!(found.finish());
        assert_eq!(
            got,
            [
                issue("a.md", Some(2), "y"),
                issue("a.md", Some(9), "x"),
                issue("a.md", Some(9), "z"),
                issue("c.md", Some(1), "w"),
            ]
        );
    }

    #[test]
    fn a_receiver_that_has_had_enough_stops_the_producer() {
        let mut n = 0;
        let mut give = |_: &Issue| {
            n += 1;
            ControlFlow::Break(())
        };
        let mut found = Found::new(Check::BrokenLinks, Pages::All, &mut give);
        assert!(found.push("a.md", None, "x".into()).is_continue());
        assert!(found.push("b.md", None, "x".into()).is_break());
        assert!(found.push("c.md", None, "x".into()).is_break());
        assert!(!found.finish());
        assert_eq!(n, 1);
    }
}
