//! One producer per check, reading the manifest for that check alone and handing its issues
//! on as it finds them, in report order (by page, then line): the queries read the pages in
//! path order, and [`Found`] puts each page's issues in line order. A family of checks that
//! shares a query (the links' checks, the frontmatter's) runs it once per check, so that no
//! check's issues wait, held, for another's.

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
use crate::vault::Vault;
use std::collections::HashSet;
use std::ops::ControlFlow;

/// What every check gets: the vault, its manifest and the pages to report on. A producer may
/// report pages outside the scope (those it cannot tell apart in its query); [`Found`] drops
/// them.
pub(super) struct Context<'a> {
    pub vault: &'a Vault,
    pub manifest: &'a Manifest,
    pub scope: Pages<'a>,
}

/// Where the issues of a check go, as they are found.
pub(super) type Give<'g> = &'g mut dyn FnMut(Issue) -> ControlFlow<()>;

/// One check's issues on their way out: those of the scope's pages, each page's in line order
/// (a page's issues are held until the next page's come: the producers find them by page, in
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
        self.add(path, line, message, None)
    }

    /// An issue at `path`, with advice for the front end to word.
    pub fn advise(&mut self, path: &str, message: String, action: Action) -> ControlFlow<()> {
        self.add(path, None, message, Some(action))
    }

    fn add(
        &mut self,
        path: &str,
        line: Option<usize>,
        message: String,
        action: Option<Action>,
    ) -> ControlFlow<()> {
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
            action,
        });
        ControlFlow::Continue(())
    }

    /// Hand on the page held, by line (issues on one line in the order found).
    fn flush(&mut self) -> ControlFlow<()> {
        self.page.sort_by_key(|i| i.line);
        for issue in self.page.drain(..) {
            if (self.give)(issue).is_break() {
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

/// Find the issues of `check`, handing them to `out` as they are found.
pub(super) fn produce(cx: &Context<'_>, out: &mut Found<'_, '_>) -> Result<(), LintError> {
    match out.check() {
        Check::AmbiguousLinks | Check::BrokenLinks | Check::MissingEmbeds => {
            links::unresolved(cx, out)
        }
        Check::BrokenHeadings | Check::BrokenBlocks => links::fragments(cx, out),
        Check::Orphans => pages::orphans(cx, out),
        Check::ThinPages => pages::thin(cx, out),
        Check::StalePages => pages::stale(cx, out),
        Check::DeadSources => pages::dead(cx, out),
        Check::DuplicateAliases | Check::DuplicateTitles => names::duplicates(cx, out),
        Check::InvalidFrontmatter | Check::MissingFrontmatter => frontmatter::frontmatter(cx, out),
        Check::SyncConflicts => copies::conflicts(cx, out),
        Check::ConflictMarkers => markers::markers(cx, out),
        Check::NearDuplicates => twins::near_duplicates(cx, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issue(path: &str, line: Option<usize>, message: &str) -> (String, Option<usize>, String) {
        (path.into(), line, message.into())
    }

    #[test]
    fn each_page_comes_out_by_line_and_only_the_scope_s_pages_come_out() {
        let mut got = Vec::new();
        let mut give = |i: Issue| {
            got.push((i.path, i.line, i.message));
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
        let mut give = |_: Issue| {
            n += 1;
            ControlFlow::Break(())
        };
        let mut found = Found::new(Check::Orphans, Pages::All, &mut give);
        assert!(found.push("a.md", None, "x".into()).is_continue());
        assert!(found.push("b.md", None, "x".into()).is_break());
        assert!(found.push("c.md", None, "x".into()).is_break());
        assert!(!found.finish());
        assert_eq!(n, 1);
    }
}
