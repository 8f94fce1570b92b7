//! One function per family of checks that share a query of the manifest; each pushes the
//! issues of the checks selected.

mod frontmatter;
mod links;
mod names;
mod pages;

use super::{Check, Issue, LintError};
use crate::manifest::Manifest;
use crate::vault::Vault;

/// What every check gets: the vault, its manifest and the checks selected.
pub(super) struct Context<'a> {
    pub vault: &'a Vault,
    pub manifest: &'a Manifest,
    pub checks: &'a [Check],
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

/// Run every selected check.
pub(super) fn run(cx: &Context<'_>) -> Result<Vec<Issue>, LintError> {
    let mut out = Issues::default();
    links::unresolved(cx, &mut out)?;
    links::fragments(cx, &mut out)?;
    pages::orphans(cx, &mut out)?;
    pages::thin(cx, &mut out)?;
    pages::stale(cx, &mut out)?;
    pages::dead_sources(cx, &mut out)?;
    names::duplicates(cx, &mut out)?;
    frontmatter::frontmatter(cx, &mut out)?;
    Ok(out.0)
}
