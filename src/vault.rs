//! The vault: where it is (discovery), what it contains (layout) and how it is configured;
//! which files are conflict copies a sync left beside a file (`conflict`).

mod conflict;
mod inside;

pub use conflict::{ConflictCopy, conflict_copy, conflict_copy_name, is_conflict_copy};
pub use inside::{PathError, check_relative, checked as checked_under};

use crate::config::{CONFIG_FILE, Config, ConfigError};
use crate::failure::{Action, Advice, Hint};
use std::path::{Path, PathBuf};

/// The capture file, at the vault root.
pub const INBOX: &str = "inbox.md";
/// The manifest database, at the vault root.
pub const MANIFEST: &str = "sparks.db";
/// The run-time directory, at the vault root: the records of unfinished operations (see
/// `runstate`). Never scanned, never committed.
pub const RUN_DIR: &str = ".sparks";
/// Where finalize archives captures, one file per capture date.
pub const ARCHIVE_DIR: &str = "raw/inbox";
/// The task list.
pub const TASKS: &str = "wiki/collections/Tasks.md";
/// The catalogue of pages.
pub const INDEX: &str = "wiki/index.md";
/// The chronological log.
pub const LOG: &str = "wiki/log.md";
/// The file `publish` keeps in a site it writes (its record of the files there): a folder
/// holding one is a published site, which the scan passes by.
pub const PUBLISHED_MARK: &str = ".sparks-publish.json";

/// The directories of a vault, parents first.
pub const DIRS: &[&str] = &[
    "raw",
    "raw/inbox",
    "raw/archive",
    "wiki",
    "wiki/entities",
    "wiki/concepts",
    "wiki/summaries",
    "wiki/synthesis",
    "wiki/collections",
];

/// An opened vault: its root and its configuration.
#[derive(Debug, Clone)]
pub struct Vault {
    /// The directory holding `sparks.toml`, absolute.
    pub root: PathBuf,
    /// The parsed `sparks.toml`.
    pub config: Config,
}

/// Finding or opening a vault failed.
#[derive(Debug, thiserror::Error)]
pub enum VaultError {
    /// No `sparks.toml` in the directory or any parent.
    #[error("no vault found in {} or any parent directory", .0.display())]
    NotFound(PathBuf),
    /// An explicitly named vault has no `sparks.toml`.
    #[error("{} is not a vault (it has no {CONFIG_FILE})", .0.display())]
    NotAVault(PathBuf),
    /// An explicitly named vault does not exist.
    #[error("{} does not exist", .0.display())]
    Missing(PathBuf),
    /// The configuration is unreadable or invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// One of Sparks' own files or folders is a symbolic link (see [`Vault::check_layout`]).
    #[error(transparent)]
    Unsafe(#[from] PathError),
    /// The working directory could not be determined.
    #[error("cannot resolve {}: {source}", path.display())]
    Path {
        /// The path being resolved.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl Hint for VaultError {
    /// What the user can do about it, where there is something.
    fn hint(&self) -> Option<Advice> {
        match self {
            VaultError::NotFound(_) | VaultError::NotAVault(_) => {
                Some(Advice::run(Action::FindVault))
            }
            VaultError::Missing(_) => Some(Advice::run(Action::CheckVault)),
            VaultError::Unsafe(e) => e.hint(),
            _ => None,
        }
    }
}

impl Vault {
    /// Open the vault whose root is exactly `root`.
    pub fn open(root: &Path) -> Result<Vault, VaultError> {
        let root = absolute(root)?;
        if !root.exists() {
            return Err(VaultError::Missing(root));
        }
        if !is_vault_root(&root) {
            return Err(VaultError::NotAVault(root));
        }
        inside::check_layout(&root)?;
        let config = Config::load(&root.join(CONFIG_FILE))?;
        Ok(Vault { root, config })
    }

    /// Find the vault that contains `start` (the directory itself or a parent) and open it.
    pub fn discover(start: &Path) -> Result<Vault, VaultError> {
        let start = absolute(start)?;
        match enclosing_root(&start) {
            Some(root) => Vault::open(&root),
            None => Err(VaultError::NotFound(start)),
        }
    }

    /// The absolute path of a vault-relative path that Sparks made or took from the manifest.
    /// A path read from anywhere else (a record, an argument) goes through [`Vault::checked`].
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The absolute path of `rel`, checked to stay inside the vault: relative, without `.` or
    /// `..`, and with no symbolic link in the way (the file itself or any folder above it up to
    /// the vault's root), so that a write or a read through it cannot land outside.
    pub fn checked(&self, rel: &str) -> Result<PathBuf, PathError> {
        inside::checked(&self.root, rel)
    }

    /// The vault's display name: the configured one, or the directory's.
    pub fn name(&self) -> String {
        if self.config.vault.name.is_empty() {
            self.root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        } else {
            self.config.vault.name.clone()
        }
    }
}

/// Whether `dir` holds a `sparks.toml` that is not a directory.
pub fn is_vault_root(dir: &Path) -> bool {
    fs_err::metadata(dir.join(CONFIG_FILE)).is_ok_and(|m| !m.is_dir())
}

/// The nearest directory at or above `start` that is a vault root.
pub fn enclosing_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| is_vault_root(d))
        .map(Path::to_path_buf)
}

/// `path` made absolute against the working directory, with `.` and `..` folded lexically
/// (symlinks are kept, so the vault root is the path the user sees).
pub fn absolute(path: &Path) -> Result<PathBuf, VaultError> {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|source| VaultError::Path {
                path: path.to_path_buf(),
                source,
            })?
            .join(path)
    };
    let mut out = PathBuf::new();
    for comp in joined.components() {
        match comp {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// A vault-relative path in the manifest's form: forward slashes.
pub fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_walks_up_to_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("v");
        fs_err::create_dir_all(root.join("wiki/entities")).unwrap();
        fs_err::write(root.join(CONFIG_FILE), "").unwrap();
        let v = Vault::discover(&root.join("wiki/entities")).unwrap();
        assert_eq!(v.root, root);
    }

    #[test]
    fn a_directory_named_sparks_toml_is_not_a_marker() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::create_dir(dir.path().join(CONFIG_FILE)).unwrap();
        assert!(!is_vault_root(dir.path()));
    }

    #[test]
    fn absolute_folds_dots() {
        let p = absolute(Path::new("/a/b/../c/./d")).unwrap();
        assert_eq!(p, PathBuf::from("/a/c/d"));
    }
}
