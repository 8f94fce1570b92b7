//! The one module that calls `std::fs` (`clippy.toml` bans it elsewhere; other code uses
//! `fs-err`, whose errors name their path, or these functions).
//!
//! Writes: every file Sparks rewrites goes through [`write_atomic`]: a temporary file in the
//! same directory, fsync, rename, fsync of the directory. A reader (or a crash) sees the old
//! content or the new, never a mix.
//!
//! Reads: [`read`], [`read_to_string`] and [`symlink_metadata`] return the operating system's
//! error as it is, for callers whose own error already names the path (an `fs-err` error
//! would name it twice); [`if_exists`] is the one rule for "a missing file is `None`", and
//! [`utf8`] the one way to say on which line a file stops being UTF-8.

// The one module allowed `std::fs` (see `clippy.toml`).
#![allow(clippy::disallowed_methods)]

use std::io::{self, Write};
use std::path::Path;

pub use crate::file_error::FileError;

/// The bytes of `path`, never through a symbolic link: a link at `path` is an error (see
/// [`open_nofollow`]). The error is the operating system's, without the path: the caller's
/// error names it.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut file = open_nofollow(path)?;
    let size = file.metadata().map(|m| m.len() as usize).unwrap_or(0);
    let mut bytes = Vec::with_capacity(size);
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The text of `path`, which must be UTF-8, never through a symbolic link ([`read`]). The
/// error is the operating system's, without the path: the caller's error names it.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read(path)?).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Open `path` for reading without following a symbolic link at its last component: a file
/// of the vault replaced by a link (a remote can commit one) is refused, so that nothing
/// outside the vault is read, and then written back or pushed, as if it were the vault's.
/// Folders on the way are the caller's to check (`Vault::checked`, `Vault::check_layout`).
pub fn open_nofollow(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    no_follow(&mut options);
    options.open(path).map_err(link_refused)
}

/// Open (creating it if need be) a file that Sparks locks, for reading and writing, never
/// through a symbolic link: a link planted there would have the lock's writes land outside.
pub fn open_lock_file(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).read(true).write(true);
    no_follow(&mut options)
        .open(path)
        .map_err(|e| FileError::io("open", path)(link_refused(e)))
}

/// `options` made to refuse a symbolic link at the path's last component (`O_NOFOLLOW`).
pub fn no_follow(options: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options
}

/// The error of opening a symbolic link with `O_NOFOLLOW`, said as what it is.
pub fn link_refused(e: io::Error) -> io::Error {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is a symbolic link, and Sparks does not follow links in the vault's files",
        );
    }
    e
}

/// The metadata of `path` itself (a link is not followed). The error is the operating
/// system's, without the path: the caller's error names it.
pub fn symlink_metadata(path: &Path) -> io::Result<std::fs::Metadata> {
    std::fs::symlink_metadata(path)
}

/// The metadata of a directory entry (a link is not followed). The error is the operating
/// system's, without the path: the caller's error names it.
pub fn entry_metadata(entry: &std::fs::DirEntry) -> io::Result<std::fs::Metadata> {
    entry.metadata()
}

/// The entries of the directory `path`. The error is the operating system's, without the
/// path: the caller's error names it.
pub fn read_dir(path: &Path) -> io::Result<std::fs::ReadDir> {
    std::fs::read_dir(path)
}

/// The bytes of a file as text; if they are not UTF-8, the 1-based line of the first byte
/// that is not, for an error that says where.
pub fn utf8(bytes: &[u8]) -> Result<&str, usize> {
    std::str::from_utf8(bytes).map_err(|e| {
        bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    })
}

/// The result of reading a file, with a missing file as `None`; any other error stays one.
pub fn if_exists<T>(read: io::Result<T>) -> io::Result<Option<T>> {
    match read {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The bytes of `path`, or `None` when there is no such file ([`read`], [`if_exists`]).
pub fn read_if_exists(path: &Path) -> io::Result<Option<Vec<u8>>> {
    if_exists(read(path))
}

/// Replace `path` with `bytes` atomically, keeping the permissions of the file it replaces.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = stage(path, bytes)?;
    commit(tmp, path)
}

/// Replace `path`, a derived file any command may rebuild without the vault lock (a cache beside
/// the manifest), with `bytes`: atomically, staged under a name that begins with the file's
/// own (`sparks.db-meanings.XXXXXX`), so that whatever ignores the file (the vault's
/// `.gitignore`, sync's own rule for `sparks.db*`, the watcher) ignores the staged file too: a
/// sync that lists the vault while it is written never meets a file that then disappears.
/// Not made durable: a copy lost to a crash is rebuilt. Staged files a killed writer left go
/// first.
pub fn replace_derived(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent(path);
    let name = path
        .file_name()
        .map(|n| format!("{}.", n.to_string_lossy()))
        .unwrap_or_default();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let n = e.file_name();
            let n = n.to_string_lossy();
            if n.starts_with(&name) && n.len() > name.len() {
                // A writer at work loses its staged file: its rename fails, and the next
                // reader rebuilds the copy.
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(&name)
        .tempfile_in(dir)
        .map_err(FileError::io("create a temporary file in", dir))?;
    tmp.write_all(bytes)
        .map_err(FileError::io("write", tmp.path()))?;
    persist(tmp, path)
}

/// Create `path` holding `bytes`, atomically and only if no file of that name exists: the
/// file appears whole or not at all. Returns `false`, writing nothing, when one exists.
pub fn create_atomic(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    let tmp = stage(path, bytes)?;
    match tmp.persist_noclobber(path) {
        Ok(_) => {
            sync_dir(parent(path));
            Ok(true)
        }
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(FileError::io("create", path)(e.error)),
    }
}

/// Remove `path` (a missing file is no error) and make the removal durable.
pub fn remove_durably(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => {
            sync_dir(parent(path));
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(FileError::io("remove", path)(e)),
    }
}

/// Atomic replacements of several files whose directory entries are made durable together:
/// each file is written, synced and renamed into place as [`write_atomic`] does, and
/// [`Renames::sync`] then syncs each directory once, where [`write_atomic`] syncs it after
/// every rename (a batch of archive files in one directory: one directory sync instead of
/// one each). Until `sync` returns, a crash may undo a rename, never leave a file half
/// written.
#[derive(Debug, Default)]
pub struct Renames {
    dirs: Vec<std::path::PathBuf>,
}

impl Renames {
    /// Replace `path` with `bytes` atomically; its directory is synced by [`Renames::sync`].
    pub fn write_atomic(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        persist(stage(path, bytes)?, path)?;
        let dir = parent(path);
        if !self.dirs.iter().any(|d| d == dir) {
            self.dirs.push(dir.to_path_buf());
        }
        Ok(())
    }

    /// Make the renames durable: sync each directory written to, once.
    pub fn sync(self) -> io::Result<()> {
        for dir in &self.dirs {
            std::fs::File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(FileError::io("sync the directory", dir))?;
        }
        Ok(())
    }
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
    let mut old = open_nofollow(path).map_err(FileError::io("read", path))?;
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
    // Staged files a killed Sparks left here go before this process adds its own; its own
    // carry its tag, so that a later process can tell whether their writer is gone.
    crate::life::sweep_once(dir);
    let mut tmp = tempfile::Builder::new()
        .prefix(&crate::life::staged_prefix())
        .suffix(crate::life::STAGED_SUFFIX)
        .tempfile_in(dir)
        .map_err(FileError::io("create a temporary file in", dir))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(FileError::io("write", tmp.path()))?;
    // A temporary file is private (0600); the file it becomes keeps the permissions of the
    // one it replaces, or gets the usual 0644 when it is new.
    let perms = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => Some(meta.permissions()),
        _ => new_file_permissions(),
    };
    if let Some(perms) = perms {
        tmp.as_file()
            .set_permissions(perms)
            .map_err(FileError::io("set permissions of", tmp.path()))?;
    }
    Ok(tmp)
}

/// Rename the staged file over `path`; the directory entry is not synced yet.
fn persist(tmp: tempfile::NamedTempFile, path: &Path) -> io::Result<()> {
    tmp.persist(path)
        .map(drop)
        .map_err(|e| FileError::io("replace", path)(e.error))
}

fn commit(tmp: tempfile::NamedTempFile, path: &Path) -> io::Result<()> {
    persist(tmp, path)?;
    sync_dir(parent(path));
    Ok(())
}

/// Make the entries of `dir` durable. A rename or removal is durable only once the directory
/// is; a failure here cannot be acted on (the change is already visible), so it is not
/// reported.
fn sync_dir(dir: &Path) {
    if let Ok(dir) = std::fs::File::open(dir) {
        let _ = dir.sync_all();
    }
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

/// Whether the disk holding `path` (a file or a directory) has less than `bytes` left for this
/// user: what tells a full disk from another I/O error when the error does not say (SQLite's
/// "disk I/O error" growing its shared memory). `false` when it cannot be told.
pub fn nearly_full(path: &Path, bytes: u64) -> bool {
    #[cfg(unix)]
    {
        let at = if path.is_dir() { path } else { parent(path) };
        rustix::fs::statvfs(at).is_ok_and(|s| s.f_bavail.saturating_mul(s.f_frsize) < bytes)
    }
    #[cfg(not(unix))]
    {
        let _ = (path, bytes);
        false
    }
}

/// Whether this process may write the existing file at `path` (its permission bits, its
/// owner, a read-only mount), as the kernel would decide an open for writing. `false` when it
/// does not exist.
pub fn writable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use rustix::fs::{Access, AtFlags, CWD, accessat};
        accessat(CWD, path, Access::WRITE_OK, AtFlags::EACCESS).is_ok()
    }
    #[cfg(not(unix))]
    {
        std::fs::symlink_metadata(path).is_ok_and(|m| !m.permissions().readonly())
    }
}

/// Whether `e` says the disk is full (or this user's quota used up).
pub fn is_full(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::StorageFull || e.kind() == io::ErrorKind::QuotaExceeded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_write_each_file_and_sync_each_directory_once() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        fs_err::create_dir_all(&a).unwrap();
        fs_err::create_dir_all(&b).unwrap();
        fs_err::write(a.join("1.md"), "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let ro = std::fs::Permissions::from_mode(0o640);
            fs_err::set_permissions(a.join("1.md"), ro).unwrap();
        }
        let mut renames = Renames::default();
        for (d, name) in [(&a, "1.md"), (&a, "2.md"), (&b, "3.md")] {
            renames
                .write_atomic(&d.join(name), name.as_bytes())
                .unwrap();
        }
        assert_eq!(
            renames.dirs,
            [a.clone(), b.clone()],
            "one sync per directory"
        );
        renames.sync().unwrap();
        for (d, name) in [(&a, "1.md"), (&a, "2.md"), (&b, "3.md")] {
            assert_eq!(fs_err::read_to_string(d.join(name)).unwrap(), name);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs_err::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(
                mode(&a.join("1.md")),
                0o640,
                "a replaced file keeps its mode"
            );
            assert_eq!(
                mode(&a.join("2.md")),
                0o644,
                "a new file gets the usual mode"
            );
        }
        let left: Vec<_> = fs_err::read_dir(&a)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "temporary files left: {left:?}");
    }

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

    #[test]
    fn a_missing_file_is_none_and_other_errors_stay_errors() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        assert_eq!(read_if_exists(&p).unwrap(), None);
        write_atomic(&p, b"x").unwrap();
        assert_eq!(read_if_exists(&p).unwrap().as_deref(), Some(&b"x"[..]));
        // A directory is there but cannot be read as a file: an error, not "missing".
        assert!(read_if_exists(dir.path()).is_err());
        assert_eq!(
            if_exists(read_to_string(&dir.path().join("b"))).unwrap(),
            None
        );
    }

    #[test]
    fn bad_utf8_names_its_line() {
        assert_eq!(utf8(b"a\nb"), Ok("a\nb"));
        assert_eq!(utf8(b"\xff"), Err(1));
        assert_eq!(utf8(b"one\r\ntwo\nth\xffree\n"), Err(3));
    }

    #[test]
    fn a_derived_file_is_staged_under_its_own_name_and_leftovers_go() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("sparks.db-meanings");
        let leftover = dir.path().join("sparks.db-meanings.Ab12Cd");
        fs_err::write(&leftover, b"half").unwrap();
        fs_err::write(dir.path().join("sparks.db"), b"kept").unwrap();
        replace_derived(&copy, b"one").unwrap();
        replace_derived(&copy, b"two").unwrap();
        assert_eq!(fs_err::read(&copy).unwrap(), b"two");
        let mut names: Vec<String> = fs_err::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["sparks.db", "sparks.db-meanings"]);
    }
}
