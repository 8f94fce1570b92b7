//! Paths that stay inside the vault. A remote is not trusted: a file it sends can be a
//! symbolic link (`inbox.md` to a file in the user's home, `wiki/collections` to a folder
//! elsewhere), and a record or an argument can name `../..` or an absolute path. Sparks reads
//! and writes only what lies inside the vault once resolved: [`checked`] says so of one
//! vault-relative path, and [`check_layout`], run whenever a vault is opened, of Sparks' own
//! files and folders, which must not be links at all (a link inside the vault would let a
//! remote point `inbox.md` at the manifest just as well).

use crate::failure::{Advice, Hint};
use crate::fsio::FileError;
use std::path::{Component, Path, PathBuf};

/// A path that would take Sparks out of the vault, or through a link.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    /// The path is not a plain vault-relative path.
    #[error("{path:?} is not a path inside the vault: {why}")]
    NotInside {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A symbolic link is in the way: the file itself, or a folder above it.
    #[error(
        "{} is a symbolic link{}: Sparks does not follow links in the vault's own files and \
         folders, so nothing outside the vault is read or written through them",
        link.display(), target.as_ref().map(|t| format!(" (to {})", t.display())).unwrap_or_default()
    )]
    Link {
        /// The link.
        link: PathBuf,
        /// Where it points, when it can be read.
        target: Option<PathBuf>,
    },
    /// Checking failed.
    #[error(transparent)]
    Io(#[from] FileError),
}

impl Hint for PathError {
    /// What the user can do about it.
    fn hint(&self) -> Option<Advice> {
        match self {
            PathError::Link { .. } => Some(Advice::say(
                "remove the link and put the file or folder itself in its place; if it came \
                 from the remote, take the file from an earlier commit",
            )),
            PathError::NotInside { .. } | PathError::Io(_) => None,
        }
    }
}

/// Check that `rel` is a plain vault-relative path: not empty, not absolute, no `.` or `..`
/// component, no NUL byte, no empty component.
pub fn check_relative(rel: &str) -> Result<(), PathError> {
    let refuse = |why| {
        Err(PathError::NotInside {
            path: rel.to_string(),
            why,
        })
    };
    if rel.is_empty() {
        return refuse("it is empty");
    }
    if rel.contains('\0') {
        return refuse("it holds a NUL byte");
    }
    if rel.starts_with('/') || Path::new(rel).is_absolute() {
        return refuse("it is absolute");
    }
    if rel.split('/').any(str::is_empty) {
        return refuse("it has an empty component");
    }
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(_) => {}
            Component::ParentDir => return refuse("it climbs out with `..`"),
            Component::CurDir => return refuse("it has a `.` component"),
            Component::RootDir | Component::Prefix(_) => return refuse("it is absolute"),
        }
    }
    Ok(())
}

/// `root` joined with `rel`, once `rel` is a plain relative path ([`check_relative`]) and no
/// part of it below `root` that exists is a symbolic link.
pub fn checked(root: &Path, rel: &str) -> Result<PathBuf, PathError> {
    check_relative(rel)?;
    let mut at = root.to_path_buf();
    for part in rel.split('/') {
        at.push(part);
        match crate::fsio::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(link(&at)),
            Ok(_) => {}
            // What does not exist yet has no link below it.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            Err(source) => return Err(FileError::at("check", at)(source).into()),
        }
    }
    Ok(root.join(rel))
}

/// Sparks' own files and folders, as far as they exist, are no symbolic links: the
/// configuration, the inbox, the manifest and its side files, the run-time folder, the
/// standard folders, the index, the log, the collections (every file of their folders), the
/// git attributes and ignores, the agents' contract files. About forty `lstat` calls.
pub fn check_layout(root: &Path) -> Result<(), PathError> {
    const FILES: &[&str] = &[
        crate::config::CONFIG_FILE,
        super::INBOX,
        super::MANIFEST,
        "sparks.db-wal",
        "sparks.db-shm",
        "sparks.db-journal",
        crate::lock::LOCK_FILE,
        super::RUN_DIR,
        ".gitattributes",
        ".gitignore",
        "CLAUDE.md",
        "AGENTS.md",
        "GEMINI.md",
        super::INDEX,
        "wiki/index",
        super::LOG,
    ];
    let one = |path: PathBuf| match crate::fsio::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(link(&path)),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(FileError::at("check", path)(source).into()),
    };
    for rel in FILES.iter().chain(super::DIRS) {
        one(root.join(rel))?;
    }
    for dir in ["wiki/collections", "wiki/index", super::RUN_DIR] {
        let Ok(entries) = crate::fsio::read_dir(&root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_symlink()) {
                return Err(link(&entry.path()));
            }
        }
    }
    Ok(())
}

fn link(path: &Path) -> PathError {
    PathError::Link {
        link: path.to_path_buf(),
        target: fs_err::read_link(path).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_relative_paths_pass_and_the_rest_is_refused() {
        for ok in [
            "inbox.md",
            "wiki/concepts/A.md",
            "wiki/..md",
            "raw/a b/c.png",
        ] {
            assert!(check_relative(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "wiki/../../x",
            "./inbox.md",
            "wiki//a.md",
            "wiki/",
            "a\0b",
        ] {
            assert!(check_relative(bad).is_err(), "{bad:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_anywhere_on_the_way_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (root, outside) = (dir.path().join("v"), dir.path().join("out"));
        fs_err::create_dir_all(root.join("wiki")).unwrap();
        fs_err::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("wiki/collections")).unwrap();
        std::os::unix::fs::symlink(outside.join("f"), root.join("inbox.md")).unwrap();
        let err = checked(&root, "wiki/collections/Books.md").unwrap_err();
        assert!(matches!(err, PathError::Link { .. }), "{err}");
        assert!(err.to_string().contains("wiki/collections"), "{err}");
        assert!(checked(&root, "inbox.md").is_err());
        assert_eq!(
            checked(&root, "wiki/new/A.md").unwrap(),
            root.join("wiki/new/A.md")
        );
        let err = check_layout(&root).unwrap_err().to_string();
        assert!(
            err.contains("inbox.md") && err.contains("symbolic link"),
            "{err}"
        );
    }
}
