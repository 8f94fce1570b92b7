//! The vault lock: one writer at a time for the commands that read, modify and rewrite a file
//! (finalize, abort, tasks add, done). It is an OS file lock (`flock`), released by the kernel
//! when the process dies, so a crash never leaves a stale lock behind.

use crate::fsio::FileError;
use std::fs::{File, TryLockError};
use std::io;
use std::path::Path;

/// The lock file, beside the manifest (and covered by the same `sparks.db*` ignore rule).
pub const LOCK_FILE: &str = "sparks.db-lock";

/// A held vault lock; dropping it releases the lock.
#[derive(Debug)]
pub struct VaultLock {
    _file: File,
}

impl VaultLock {
    /// Wait for and take the exclusive lock of the vault at `root`.
    pub fn acquire(root: &Path) -> io::Result<VaultLock> {
        let (file, path) = open(root)?;
        file.lock().map_err(FileError::io("lock", &path))?;
        Ok(VaultLock { _file: file })
    }

    /// Take the exclusive lock of the vault at `root` if no other holder has it; `None` when
    /// one has (another process, or this one through another [`VaultLock`]).
    pub fn try_acquire(root: &Path) -> io::Result<Option<VaultLock>> {
        let (file, path) = open(root)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(VaultLock { _file: file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(FileError::io("lock", &path)(e)),
        }
    }
}

fn open(root: &Path) -> io::Result<(File, std::path::PathBuf)> {
    let path = root.join(LOCK_FILE);
    let file = crate::fsio::open_lock_file(&path)?;
    Ok((file, path))
}
