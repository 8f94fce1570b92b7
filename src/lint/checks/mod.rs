//! One function per family of checks that share a query of the manifest; each pushes the
//! issues of the checks selected.

mod frontmatter;
mod links;
mod names;
mod pages;

use super::{Check, Issue, LintError};
use crate::manifest::{Manifest, Pages};
use crate::progress::Phase;
use crate::vault::Vault;

/// What every check gets: the vault, its manifest, the checks selected and the pages to
/// report on. A family may report pages outside the scope (those it cannot tell apart in its
/// query); [`run`] drops them.
pub(super) struct Context<'a> {
    pub vault: &'a Vault,
    pub manifest: &'a Manifest,
    pub checks: &'a [Check],
    pub scope: Pages<'a>,
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
        });
    }
}

/// A family of checks.
type Family = fn(&Context<'_>, &mut Issues) -> Result<(), LintError>;

/// Every family, in report order.
const FAMILIES: [Family; 8] = [
    links::unresolved,
    links::fragments,
    pages::orphans,
    pages::thin,
    pages::stale,
    pages::dead_sources,
    names::duplicates,
    frontmatter::frontmatter,
];

/// Run every selected check, telling the manifest's listener how far it got.
pub(super) fn run(cx: &Context<'_>) -> Result<Vec<Issue>, LintError> {
    let progress = cx.manifest.progress();
    progress.phase(Phase::Checking, Some(FAMILIES.len() as u64));
    let mut out = Issues::default();
    for family in FAMILIES {
        family(cx, &mut out)?;
        progress.advance(1);
    }
    if let Pages::Only(paths) = cx.scope {
        let only: std::collections::HashSet<&str> = paths.iter().map(String::as_str).collect();
        out.0.retain(|i| only.contains(i.path.as_str()));
    }
    Ok(out.0)
}
