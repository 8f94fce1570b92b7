//! `index`: rebuild `wiki/index.md`, the catalogue of the wiki's pages grouped by type, from the
//! manifest as the last scan left it.
//!
//! Every page is listed once, under its type's section or under `## Other`, as `[[link]]` and a
//! description. The link is the page's title when that resolves to the page, else its path.
//! What people and agents wrote survives a rebuild: a description stays with the page its old
//! entry's link resolves to (by title, alias, file name or path, so a renamed file or a moved
//! page keeps it), every line that is not an entry is kept, in order, before the sections, and
//! so is the page's frontmatter (`updated` moves to today only when the content changes).
//! Nothing changed means nothing written. Above `[index] shard_above` pages, each type gets its
//! own page `wiki/index/<Type>.md` and `wiki/index.md` becomes a map of them.
//!
//! The index is never written from a manifest that is out of date (a page it does not know
//! would be missing): it brings the manifest up to date first (an incremental scan, cheap when
//! nothing changed), and records what it wrote in the manifest afterwards, so that the next
//! command sees the index as it is.
//!
//! The pieces: `group` names the sections, `plan` works out what every index page becomes
//! (pure but for reading the old pages), `apply` writes it, `links` and `page` read and write
//! entries and pages as text, `report` is what the command returns ([`crate::diff`] shows
//! what changed).

mod apply;
mod group;
mod links;
pub mod page;
mod plan;
mod report;

pub use group::{GROUPS, Group};
pub use report::{ByType, FileDiff, IndexReport, ShardReport};

use crate::clock::Now;
use crate::fsio;
use crate::lock::VaultLock;
use crate::manifest::{Manifest, ManifestError};
use crate::progress::Progress;
use crate::scan::{self, ScanError};
use crate::vault::{INDEX, Vault};
use apply::apply;
use plan::plan;
use std::path::{Path, PathBuf};

/// Where the per-type pages of a sharded index live.
pub const SHARD_DIR: &str = "wiki/index";

/// How many times the rewrite starts over when an index page is edited while it runs.
const ATTEMPTS: usize = 5;

/// `index` failed; no file was left half-written.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Bringing the manifest up to date (before) or recording what was written (after) failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// A file could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The vault lock could not be taken.
    #[error("cannot lock the vault: {0}")]
    Lock(std::io::Error),
    /// An index page kept changing while it was being rewritten.
    #[error("{} changed {ATTEMPTS} times while index was rewriting it", .0.display())]
    Busy(PathBuf),
}

impl crate::failure::Hint for IndexError {
    /// What the user can do about it.
    fn hint(&self) -> Option<crate::failure::Advice> {
        match self {
            IndexError::Scan(s) => s.hint(),
            IndexError::Manifest(m) => m.hint(),
            _ => None,
        }
    }
}

/// Bring the manifest up to date, then rebuild the index (or, with `dry_run`, work out what
/// would change and write nothing); `progress` hears how it goes.
pub fn index(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    dry_run: bool,
    fresh: &mut scan::Freshness,
    progress: &dyn Progress,
) -> Result<IndexReport, IndexError> {
    let _lock = if dry_run {
        None
    } else {
        Some(VaultLock::acquire(&vault.root).map_err(IndexError::Lock)?)
    };
    let seen = scan::refresh(vault, manifest, now, fresh, progress)?;
    let report = build(vault, manifest, now, dry_run, progress)?;
    Ok(IndexReport { seen, ..report })
}

/// Rebuild the index from the manifest as it is, for a command that holds the vault lock and
/// brought the manifest up to date itself (`mv` and `merge`, after their writes).
pub fn rebuild(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    progress: &dyn Progress,
) -> Result<IndexReport, IndexError> {
    build(vault, manifest, now, false, progress)
}

fn build(
    vault: &Vault,
    manifest: &mut Manifest,
    now: &Now,
    dry_run: bool,
    progress: &dyn Progress,
) -> Result<IndexReport, IndexError> {
    let seen = scan::Seen::default();
    let catalog = manifest.catalog_pages()?;
    // The index resolves a name for every page it lists: from memory, read once.
    let names = manifest.resolver()?;
    let today = now.today.format("%Y-%m-%d").to_string();
    for _ in 0..ATTEMPTS {
        let plan = plan(vault, &names, &catalog, &today, progress)?;
        if dry_run {
            return Ok(plan.report(false, true, seen).at(vault));
        }
        if apply(vault, &plan)? {
            let written: Vec<String> = plan
                .outputs
                .iter()
                .filter(|o| o.changed())
                .map(|o| o.path.clone())
                .collect();
            if !written.is_empty() {
                scan::scan_paths(vault, manifest, &written, now.ns, progress)?;
            }
            return Ok(plan.report(true, false, seen).at(vault));
        }
    }
    Err(IndexError::Busy(vault.path(INDEX)))
}

/// Whether `index` writes this path itself (so it is no entry of the index).
pub fn is_generated(path: &str) -> bool {
    let shard = path
        .strip_prefix(SHARD_DIR)
        .and_then(|r| r.strip_prefix('/'))
        .and_then(|r| r.strip_suffix(".md"));
    path == INDEX || shard.is_some_and(|s| GROUPS.iter().any(|g| g.heading() == s))
}

/// The path without its `.md`.
pub(crate) fn stem_path(path: &str) -> &str {
    crate::key::strip_md(path).unwrap_or(path)
}

/// An I/O error about `path`, for `map_err`.
fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> IndexError + 'a {
    move |source| IndexError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The bytes of the vault file `rel`; `None` when there is none.
fn read_opt(vault: &Vault, rel: &str) -> Result<Option<Vec<u8>>, IndexError> {
    let path = vault.path(rel);
    fsio::read_if_exists(&path).map_err(io("read", &path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_paths_and_stems() {
        assert!(is_generated("wiki/index.md") && is_generated("wiki/index/Other.md"));
        assert!(!is_generated("wiki/index/Notes.md"));
        assert_eq!(stem_path("wiki/a/B.MD"), "wiki/a/B");
        assert_eq!(stem_path("wiki/a/B.png"), "wiki/a/B.png");
    }
}
