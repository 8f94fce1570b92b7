//! The walk: every file of the vault with the metadata the change detection compares,
//! skipping hidden entries, `node_modules` and the manifest's own files, following no link.
//! The staged files of Sparks' atomic writes (hidden names) are never vault files; the walk
//! lists them so that the scan can sweep those a killed process left.

use super::ScanIssue;
use crate::fsio;
use crate::manifest::Stat;
use crate::paths::PathList;
use crate::progress::{Phase, Progress};
use crate::vault::{MANIFEST, PUBLISHED_MARK};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// A file found by the walk.
#[derive(Debug, Clone, Copy)]
pub(super) struct Found<'a> {
    pub(super) rel: &'a str,
    // The path as found, when `rel` (lossy for a name that is not UTF-8) cannot give it back.
    pub(super) raw: Option<&'a Path>,
    pub(super) stat: Stat,
}

impl Found<'_> {
    /// Where the file is.
    pub(super) fn path(&self, root: &Path) -> PathBuf {
        match self.raw {
            Some(raw) => raw.to_path_buf(),
            None => root.join(self.rel),
        }
    }
}

/// The files a walk found, by position: their paths in one buffer ([`PathList`]), their
/// metadata beside them, and the few paths as found that a name not in UTF-8 made lossy.
#[derive(Debug, Default)]
pub(super) struct FoundList {
    paths: PathList,
    stats: Vec<Stat>,
    /// By position, ascending.
    raw: Vec<(usize, PathBuf)>,
}

impl FoundList {
    /// Room for `n` files.
    pub(super) fn with_capacity(n: usize) -> FoundList {
        FoundList {
            paths: PathList::with_capacity(n),
            stats: Vec::with_capacity(n),
            raw: Vec::new(),
        }
    }

    /// Add a file.
    pub(super) fn push(&mut self, rel: &str, raw: Option<PathBuf>, stat: Stat) {
        if let Some(raw) = raw {
            self.raw.push((self.stats.len(), raw));
        }
        self.paths.push(rel);
        self.stats.push(stat);
    }

    /// The file at position `i`.
    pub(super) fn get(&self, i: usize) -> Found<'_> {
        let raw = self
            .raw
            .binary_search_by_key(&i, |(at, _)| *at)
            .ok()
            .map(|k| self.raw[k].1.as_path());
        Found {
            rel: self.paths.get(i),
            raw,
            stat: self.stats[i],
        }
    }

    /// How many files it holds.
    pub(super) fn len(&self) -> usize {
        self.stats.len()
    }

    /// Every file, in the order found.
    pub(super) fn iter(&self) -> impl Iterator<Item = Found<'_>> {
        (0..self.len()).map(|i| self.get(i))
    }
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

/// What a walk found.
pub(super) struct Walked {
    /// The files.
    pub(super) found: FoundList,
    /// The errors met.
    pub(super) errors: Vec<ScanIssue>,
    /// The vault-relative paths of directories (or files) that could not be read.
    pub(super) unreadable: Vec<String>,
    /// Staged files of atomic writes, with their names.
    pub(super) staged: Vec<(PathBuf, String)>,
}

/// Walk the vault: the files found, the errors met, the vault-relative paths of directories
/// (or files) that could not be read, and the staged files passed by. Depth first, each directory's entries in
/// byte order of their names; the relative path is built as the walk descends, so no entry's
/// path is parsed again (sorting by `Path::file_name` took a sixth of a warm scan).
/// `expected` is about how many files there are (what the last scan found): the list is
/// sized for it with some room, not grown by doubling.
pub(super) fn walk(root: &Path, progress: &dyn Progress, expected: usize) -> Walked {
    progress.phase(Phase::Walking, None);
    let mut walk = Walk {
        found: FoundList::with_capacity(expected + expected / 32 + 16),
        errors: Vec::new(),
        unreadable: Vec::new(),
        staged: Vec::new(),
        progress,
    };
    walk.dir(root, "", false, 0);
    Walked {
        found: walk.found,
        errors: walk.errors,
        unreadable: walk.unreadable,
        staged: walk.staged,
    }
}

struct Walk<'p> {
    found: FoundList,
    errors: Vec<ScanIssue>,
    unreadable: Vec<String>,
    staged: Vec<(PathBuf, String)>,
    progress: &'p dyn Progress,
}

impl Walk<'_> {
    /// Something at `rel` could not be read.
    fn fail(&mut self, rel: &str, error: &std::io::Error) {
        self.errors.push(ScanIssue {
            path: if rel.is_empty() {
                ".".into()
            } else {
                rel.into()
            },
            error: error.to_string(),
        });
        self.unreadable.push(rel.to_string());
    }

    /// The directory `abs` (vault-relative `rel`, `lossy` when some name on the way is not
    /// UTF-8) at `depth`.
    fn dir(&mut self, abs: &Path, rel: &str, lossy: bool, depth: usize) {
        let entries = match fsio::read_dir(abs) {
            Ok(rd) => rd,
            // Removed between being listed and being read: as if never listed.
            Err(e) if depth > 0 && e.kind() == ErrorKind::NotFound => return,
            Err(e) => return self.fail(rel, &e),
        };
        let mut named: Vec<(std::ffi::OsString, std::fs::DirEntry)> = Vec::new();
        for entry in entries {
            match entry {
                Ok(e) => named.push((e.file_name(), e)),
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return self.fail(rel, &e),
            }
        }
        // A site `publish` writes into the vault is its output, not the vault's files.
        if depth > 0 && named.iter().any(|(n, _)| n == PUBLISHED_MARK) {
            return;
        }
        named.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (name, entry) in named {
            let file_type = match entry.file_type() {
                Ok(t) => t,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => {
                    let child = join(rel, &name.to_string_lossy());
                    self.fail(&child, &e);
                    continue;
                }
            };
            let text = name.to_string_lossy();
            if skipped_name(&text, file_type.is_dir(), depth + 1) {
                if file_type.is_file() && crate::life::stager(&text).is_some() {
                    self.staged.push((entry.path(), text.into_owned()));
                }
                continue;
            }
            let lossy = lossy || name.to_str().is_none();
            let child = join(rel, &text);
            // Symbolic links are not followed: they may leave the vault or form loops.
            if file_type.is_dir() {
                self.dir(&entry.path(), &child, lossy, depth + 1);
            } else if file_type.is_file() {
                match crate::fsio::entry_metadata(&entry) {
                    Ok(meta) => {
                        self.found
                            .push(&child, lossy.then(|| entry.path()), stat_of(&meta));
                        self.progress.advance(1);
                    }
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => self.fail(&child, &e),
                }
            }
        }
    }
}

/// `rel/name`, or `name` at the root.
fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        let mut s = String::with_capacity(rel.len() + 1 + name.len());
        s.push_str(rel);
        s.push('/');
        s.push_str(name);
        s
    }
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
