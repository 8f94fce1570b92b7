//! `lint --fix`: the safe fixes of what `lint` reports, and only those. Tags that
//! `invalid-frontmatter` reports are put in their canonical form and a page `stale-pages`
//! reports has its `updated:` set to today; nothing `lint` calls clean is changed (a link by
//! path or alias that resolves to one page is no issue, and stays as written). The rest of
//! `invalid-frontmatter` (key order, list shape, date form) is `fmt --fix`'s. Each edit
//! changes only the bytes it fixes (through [`crate::markdown::edit`]), every change is
//! reported line by line, and a second run changes nothing.

use super::{Check, LintError};
use crate::clock::Now;
use crate::fsio;
use crate::manifest::{Manifest, Pages};
use crate::markdown::{Block, edit, frontmatter};
use crate::progress::Progress;
use crate::scan;
use crate::schema;
use crate::vault::Vault;
use serde::Serialize;
use std::collections::BTreeMap;

/// One changed line (or run of lines).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// The file changed.
    pub path: String,
    /// The first line changed.
    pub line: usize,
    /// Why.
    pub reason: String,
    /// What the line was.
    pub before: String,
    /// What it is now.
    pub after: String,
}

/// A fix could not be applied.
#[derive(Debug, thiserror::Error)]
#[error("cannot fix {path}: {source}")]
pub struct FixError {
    /// The file.
    pub path: String,
    /// The cause.
    pub source: std::io::Error,
}

/// What to do to one file.
#[derive(Debug, Default)]
struct Plan {
    tags: bool,
    bump_updated: bool,
}

/// Apply the safe fixes for the selected checks and update the manifest for the files
/// changed (the lint that follows reads it); each change made, line by line.
pub fn apply(
    vault: &Vault,
    manifest: &mut Manifest,
    checks: &[Check],
    now: &Now,
    progress: &dyn Progress,
) -> Result<Vec<Fix>, LintError> {
    let on = |c: Check| checks.contains(&c);
    let mut plans: BTreeMap<String, Plan> = BTreeMap::new();
    if on(Check::InvalidFrontmatter) {
        manifest.page_records(Pages::All, |r| {
            if schema::canonical_tags(&r.fields.tags) != r.fields.tags {
                plans.entry(r.path).or_default().tags = true;
            }
        })?;
    }
    if on(Check::StalePages) {
        for stale in super::freshness::stale_pages(manifest)? {
            plans.entry(stale.path).or_default().bump_updated = true;
        }
    }
    let today = now.today.to_string();
    let mut fixes = Vec::new();
    let mut written = Vec::new();
    for (path, plan) in &plans {
        let file = vault.path(path);
        let err = |source| FixError {
            path: path.clone(),
            source,
        };
        let old = crate::fsio::read_to_string(&file).map_err(err)?;
        let mut text = old.clone();
        let mut step = |text: &mut String, new: Option<String>, reason: &str| {
            if let Some(new) = new.filter(|n| n != text) {
                fixes.extend(changed_lines(path, text, &new, reason));
                *text = new;
            }
        };
        if plan.tags {
            // The tags as the file holds them now, repaired as `fmt --fix` repairs them.
            let new = match frontmatter::split(&text).block {
                Block::Valid(fm) => crate::fmt::repair_list(&text, &fm, "tags").map(|(t, ..)| t),
                _ => None,
            };
            step(&mut text, new, "tags in canonical form");
        }
        if plan.bump_updated {
            let new = edit::set_scalar(&text, "updated", &today);
            step(&mut text, new, "stale page: updated set to today");
        }
        if text != old {
            fsio::write_atomic(&file, text.as_bytes()).map_err(err)?;
            crate::fault::reached("lint.write");
            written.push(path.clone());
        }
    }
    if !written.is_empty() {
        scan::scan_paths(vault, manifest, &written, now.ns, progress)
            .map_err(|e| LintError::Rescan(e.to_string()))?;
    }
    Ok(fixes)
}

/// The lines that differ between `old` and `new`, as fixes: each differing line when the
/// line count is the same, otherwise the changed run as one fix.
fn changed_lines(path: &str, old: &str, new: &str, reason: &str) -> Vec<Fix> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let fix = |line: usize, before: &[&str], after: &[&str]| Fix {
        path: path.to_string(),
        line,
        reason: reason.to_string(),
        before: before.join("\n"),
        after: after.join("\n"),
    };
    if a.len() == b.len() {
        return (0..a.len())
            .filter(|&i| a[i] != b[i])
            .map(|i| fix(i + 1, &a[i..=i], &b[i..=i]))
            .collect();
    }
    let (start, tail) = crate::diff::common_ends(&a, &b);
    vec![fix(
        start + 1,
        &a[start..a.len() - tail],
        &b[start..b.len() - tail],
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_lines_are_reported_one_by_one() {
        let f = changed_lines("p.md", "a\nb\nc\n", "a\nB\nc\n", "r");
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].line, f[0].before.as_str(), f[0].after.as_str()),
            (2, "b", "B")
        );
        let f = changed_lines("p.md", "a\n- x\n- y\nc\n", "a\n- x\nc\n", "r");
        assert_eq!(
            (f[0].line, f[0].before.as_str(), f[0].after.as_str()),
            (3, "- y", "")
        );
    }
}
