//! The `files` table: what the scan stored of each file (its stat, hash and the clock it was
//! read at), read back to decide what to read again. The scan writes it through
//! [`super::ScanTx`].

use super::{At, Manifest, Result};
use rusqlite::OptionalExtension;
use std::collections::HashMap;

/// The stored rows of files, by path. A scan looks up every file of the vault here: foldhash
/// hashes a path several times faster than the default SipHash, and a path is no secret.
pub type FileRows = HashMap<String, FileRow, foldhash::fast::RandomState>;

/// What the scan compares to decide whether a file must be read again: like git's index,
/// size, mtime, ctime and inode. ctime cannot be set back by `touch -d`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// Bytes.
    pub size: u64,
    /// Modification time, ns since the epoch.
    pub mtime_ns: i64,
    /// Status-change time, ns since the epoch.
    pub ctime_ns: i64,
    /// Inode number (0 where the platform has none).
    pub inode: u64,
}
/// A stored file row.
#[derive(Debug, Clone)]
pub struct FileRow {
    /// What the file looked like when it was last read.
    pub stat: Stat,
    /// blake3 of its content; `None` when the row holds something else (a row marked to be
    /// indexed again), which no content matches. Held as bytes, not hex: a scan keeps a row of
    /// every file in memory.
    pub hash: Option<blake3::Hash>,
    /// The filesystem clock when it was last read.
    pub clock_ns: i64,
    /// Whether the latest scan did not find it.
    pub deleted: bool,
}

/// The columns [`file_row`] reads.
const FILE_ROW: &str = "path, size, mtime_ns, ctime_ns, inode, hash, clock_ns, deleted";

fn file_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(String, FileRow)> {
    Ok((
        r.get::<_, String>(0)?,
        FileRow {
            stat: Stat {
                size: r.get::<_, i64>(1)? as u64,
                mtime_ns: r.get(2)?,
                ctime_ns: r.get(3)?,
                inode: r.get::<_, i64>(4)? as u64,
            },
            hash: r
                .get_ref(5)?
                .as_str()
                .ok()
                .and_then(|h| blake3::Hash::from_hex(h).ok()),
            clock_ns: r.get(6)?,
            deleted: r.get::<_, i64>(7)? != 0,
        },
    ))
}

impl Manifest {
    /// Every file row, live or deleted, by path.
    pub fn file_rows(&self) -> Result<FileRows> {
        // Sized from the tallies up front: grown by doubling, the map rehashed every row
        // again and touched twice its memory (fresh pages the kernel must zero).
        let (live, deleted) = self.file_tally()?;
        let mut out =
            FileRows::with_capacity_and_hasher((live + deleted) as usize, Default::default());
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT {FILE_ROW} FROM files"))
            .at(&self.path)?;
        for row in stmt.query_map([], file_row).at(&self.path)? {
            let (path, row) = row.at(&self.path)?;
            out.insert(path, row);
        }
        Ok(out)
    }

    /// How many files the manifest holds, live and deleted, from the tallies its triggers
    /// keep.
    pub fn file_tally(&self) -> Result<(u64, u64)> {
        self.conn
            .query_row(
                "SELECT coalesce(sum(iif(key = 'files', n, 0)), 0),
                        coalesce(sum(iif(key = 'deleted', n, 0)), 0)
                 FROM tallies WHERE key IN ('files', 'deleted')",
                [],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?.max(0) as u64,
                        r.get::<_, i64>(1)?.max(0) as u64,
                    ))
                },
            )
            .at(&self.path)
    }

    /// The rows of these paths that exist, live or deleted, by path.
    pub fn file_rows_of(&self, paths: &[String]) -> Result<FileRows> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {FILE_ROW} FROM files WHERE path = ?1"))
            .at(&self.path)?;
        let mut rows = FileRows::default();
        for p in paths {
            if let Some((path, row)) = stmt.query_row([p], file_row).optional().at(&self.path)? {
                rows.insert(path, row);
            }
        }
        Ok(rows)
    }
}
