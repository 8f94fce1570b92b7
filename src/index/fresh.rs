//! Whether the manifest describes the wiki as it is on disk: the index is not written from one
//! that is out of date, since a page it does not know would be missing from the index.

use super::{IndexError, is_generated};
use crate::manifest::Manifest;
use crate::manifest::catalog::CatalogPage;
use crate::scan;
use crate::vault::{Vault, relative};
use std::collections::HashSet;

/// Wiki pages on disk that the manifest does not describe as they are.
#[derive(Debug, Clone, Default)]
pub struct Stale {
    /// Pages the manifest does not know.
    pub unknown: Vec<String>,
    /// Pages changed since the last scan.
    pub changed: Vec<String>,
    /// Pages the manifest lists that are gone.
    pub missing: Vec<String>,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |paths: &[String]| {
            let mut s = paths.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
            if paths.len() > 3 {
                s.push_str(&format!(" and {} more", paths.len() - 3));
            }
            s
        };
        let mut parts = Vec::new();
        for (paths, what) in [
            (&self.unknown, "not in the manifest"),
            (&self.changed, "changed since the last scan"),
            (&self.missing, "gone since the last scan"),
        ] {
            if !paths.is_empty() {
                parts.push(format!("{what}: {}", list(paths)));
            }
        }
        write!(
            f,
            "the manifest is out of date, so the index would be wrong ({})",
            parts.join("; ")
        )
    }
}

/// Refuse to index from a manifest that does not describe the wiki's pages as they are on disk.
pub(super) fn check(
    vault: &Vault,
    manifest: &Manifest,
    catalog: &[CatalogPage],
) -> Result<(), IndexError> {
    let rows = manifest.file_rows()?;
    let known: HashSet<&str> = catalog
        .iter()
        .map(|p| p.path.as_str())
        .filter(|p| !is_generated(p))
        .collect();
    let wiki = vault.path("wiki");
    let mut stale = Stale::default();
    let mut on_disk = HashSet::new();
    if wiki.is_dir() {
        let walker = walkdir::WalkDir::new(&wiki)
            .follow_links(false)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                let name = e.file_name().to_string_lossy();
                e.depth() == 0
                    || !(name.starts_with('.')
                        || (e.file_type().is_dir() && name == "node_modules"))
            });
        for entry in walker {
            let entry = entry.map_err(|e| IndexError::Io {
                action: "read",
                path: e.path().unwrap_or(&wiki).to_path_buf(),
                source: e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("filesystem loop")),
            })?;
            if !entry.file_type().is_file() {
                continue;
            }
            let Some(rel) = relative(&vault.root, entry.path()) else {
                continue;
            };
            if !scan::is_page(&rel) || is_generated(&rel) {
                continue;
            }
            let meta = entry.metadata().map_err(|e| IndexError::Io {
                action: "read",
                path: entry.path().to_path_buf(),
                source: e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("unreadable")),
            })?;
            match rows.get(&rel) {
                Some(row) if !row.deleted && known.contains(rel.as_str()) => {
                    if row.stat != crate::scan::stat_of(&meta) {
                        stale.changed.push(rel.clone());
                    }
                }
                _ => stale.unknown.push(rel.clone()),
            }
            on_disk.insert(rel);
        }
    }
    let mut missing: Vec<String> = known
        .iter()
        .filter(|p| !on_disk.contains(**p))
        .map(|p| p.to_string())
        .collect();
    missing.sort();
    stale.missing = missing;
    if stale.unknown.is_empty() && stale.changed.is_empty() && stale.missing.is_empty() {
        Ok(())
    } else {
        Err(IndexError::Stale(stale))
    }
}
