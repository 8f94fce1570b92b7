//! File writes. Every file Sparks rewrites goes through [`write_atomic`]: a temporary file in
//! the same directory, fsync, rename, fsync of the directory. A reader (or a crash) sees the
//! old content or the new, never a mix.

use std::io::{self, Write};
use std::path::Path;

/// Replace `path` with `bytes` atomically, keeping the permissions of the file it replaces.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = stage(path, bytes)?;
    commit(tmp, path)
}

/// Replace `path` with `bytes` only if it still holds `expected` once the new content is on
/// disk. Returns `false`, writing nothing, if the file changed since it was read: the caller
/// starts over from the new content, so that a human's concurrent append is never lost.
/// Bytes appended to the old file in the instant between that check and the rename are
/// carried over to the end of the new one.
pub fn replace_if_unchanged(path: &Path, expected: &[u8], bytes: &[u8]) -> io::Result<bool> {
    replace_checked(path, expected, bytes, || {})
}

/// [`replace_if_unchanged`], running `between` after the check and before the rename (where
/// a test puts the racing append).
fn replace_checked(
    path: &Path,
    expected: &[u8],
    bytes: &[u8],
    between: impl FnOnce(),
) -> io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let tmp = stage(path, bytes)?;
    let mut old = fs_err::File::open(path)?;
    let mut now = Vec::with_capacity(expected.len());
    old.read_to_end(&mut now)?;
    if now != expected {
        return Ok(false);
    }
    between();
    commit(tmp, path)?;
    let mut late = Vec::new();
    old.seek(SeekFrom::Start(expected.len() as u64))?;
    old.read_to_end(&mut late)?;
    if !late.is_empty() {
        let mut f = fs_err::OpenOptions::new().append(true).open(path)?;
        f.write_all(&late)?;
        f.sync_all()?;
    }
    Ok(true)
}

fn stage(path: &Path, bytes: &[u8]) -> io::Result<tempfile::NamedTempFile> {
    let dir = parent(path);
    let mut tmp = tempfile::Builder::new()
        .prefix(".sparks-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| with_path(e, "create a temporary file in", dir))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| with_path(e, "write", tmp.path()))?;
    // A temporary file is private (0600); the file it becomes keeps the permissions of the
    // one it replaces, or gets the usual 0644 when it is new.
    let perms = match std::fs::metadata(path) {
        Ok(meta) => Some(meta.permissions()),
        Err(_) => new_file_permissions(),
    };
    if let Some(perms) = perms {
        tmp.as_file()
            .set_permissions(perms)
            .map_err(|e| with_path(e, "set permissions of", tmp.path()))?;
    }
    Ok(tmp)
}

fn commit(tmp: tempfile::NamedTempFile, path: &Path) -> io::Result<()> {
    tmp.persist(path)
        .map_err(|e| with_path(e.error, "replace", path))?;
    // The rename is durable only once the directory entry is; a failure here cannot be
    // acted on (the new content is already visible), so it is not reported.
    if let Ok(dir) = std::fs::File::open(parent(path)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(unix)]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    None
}

fn with_path(err: io::Error, action: &str, path: &Path) -> io::Error {
    io::Error::new(
        err.kind(),
        format!("failed to {action} `{}`: {err}", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
    }

    #[test]
    fn an_append_racing_the_rename_is_carried_over() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("inbox.md");
        std::fs::write(&p, b"old").unwrap();
        let append = || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
            f.write_all(b"\n---\nlate capture\n").unwrap();
        };
        assert!(replace_checked(&p, b"old", b"new", append).unwrap());
        assert_eq!(std::fs::read(&p).unwrap(), b"new\n---\nlate capture\n");
    }

    #[test]
    fn refuses_to_replace_a_file_that_changed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("inbox.md");
        std::fs::write(&p, b"edited by a human").unwrap();
        assert!(!replace_if_unchanged(&p, b"what we read", b"new").unwrap());
        assert_eq!(std::fs::read(&p).unwrap(), b"edited by a human");
        assert!(replace_if_unchanged(&p, b"edited by a human", b"new").unwrap());
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
    }
}
