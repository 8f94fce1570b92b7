//! The walk: every file of the vault with the metadata the change detection compares,
//! skipping hidden entries, `node_modules` and the manifest's own files, following no link.

use super::ScanIssue;
use crate::manifest::Stat;
use crate::vault::{MANIFEST, relative};
use std::path::{Path, PathBuf};

/// A file found by the walk.
pub(super) struct Found {
    pub(super) rel: String,
    // The path as found, when `rel` (lossy for a name that is not UTF-8) cannot give it back.
    pub(super) raw: Option<PathBuf>,
    pub(super) stat: Stat,
}

/// Whether the walk skips this directory entry (never the root itself).
fn skipped_name(name: &str, is_dir: bool, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    name.starts_with('.') || (is_dir && name == "node_modules") || name.starts_with(MANIFEST)
}

/// Whether the walk visits a vault-relative file path (no skipped name on the way).
pub(super) fn walked(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    !rel.is_empty()
        && parts
            .iter()
            .enumerate()
            .all(|(i, name)| !name.is_empty() && !skipped_name(name, i + 1 < parts.len(), i + 1))
}

/// Walk the vault: the files found, the errors met, and the vault-relative paths of
/// directories (or files) that could not be read.
pub(super) fn walk(root: &Path) -> (Vec<Found>, Vec<ScanIssue>, Vec<String>) {
    let mut found = Vec::new();
    let mut errors = Vec::new();
    let mut unreadable = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            !skipped_name(
                &e.file_name().to_string_lossy(),
                e.file_type().is_dir(),
                e.depth(),
            )
        });
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            // Removed between being listed and being read: as if never listed.
            Err(e) if is_gone(&e) => continue,
            Err(e) => {
                let rel = e.path().and_then(|p| relative(root, p)).unwrap_or_default();
                let error = e
                    .io_error()
                    .map_or_else(|| e.to_string(), |io| io.to_string());
                errors.push(ScanIssue {
                    path: if rel.is_empty() {
                        ".".into()
                    } else {
                        rel.clone()
                    },
                    error,
                });
                unreadable.push(rel);
                continue;
            }
        };
        // Symbolic links are not followed: they may leave the vault or form loops.
        if !entry.file_type().is_file() {
            continue;
        }
        let Some(rel) = relative(root, entry.path()) else {
            continue;
        };
        match entry.metadata() {
            Ok(meta) => found.push(Found {
                raw: entry
                    .path()
                    .to_str()
                    .is_none()
                    .then(|| entry.path().to_path_buf()),
                rel,
                stat: stat_of(&meta),
            }),
            Err(e) if is_gone(&e) => {}
            Err(e) => {
                errors.push(ScanIssue {
                    path: rel.clone(),
                    error: e.to_string(),
                });
                unreadable.push(rel);
            }
        }
    }
    (found, errors, unreadable)
}

/// Whether a walk error says the entry no longer exists (a file or folder deleted while the
/// scan ran); the root itself is checked before the walk.
fn is_gone(e: &walkdir::Error) -> bool {
    e.depth() > 0 && e.io_error().map(std::io::Error::kind) == Some(std::io::ErrorKind::NotFound)
}

/// What the scan compares of a file's metadata.
#[cfg(unix)]
pub fn stat_of(meta: &std::fs::Metadata) -> Stat {
    use std::os::unix::fs::MetadataExt;
    Stat {
        size: meta.size(),
        mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
        ctime_ns: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
        inode: meta.ino(),
    }
}

/// What the scan compares of a file's metadata.
#[cfg(not(unix))]
pub fn stat_of(meta: &std::fs::Metadata) -> Stat {
    let ns = |t: std::io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64)
    };
    Stat {
        size: meta.len(),
        mtime_ns: ns(meta.modified()),
        ctime_ns: ns(meta.created()),
        inode: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_the_walk_skips_are_never_scanned_alone() {
        assert!(walked("wiki/collections/Tasks.md"));
        assert!(walked("inbox.md"));
        assert!(!walked(".gitignore"));
        assert!(!walked("wiki/.obsidian/app.json"));
        assert!(!walked("raw/node_modules/x.md"));
        assert!(
            walked("raw/node_modules"),
            "only a folder of that name is skipped"
        );
        assert!(!walked("sparks.db-wal"));
        assert!(!walked(""));
    }
}
