//! The `files` table: what the scan stored of each file (its stat, hash and the clock it was
//! read at), read back to decide what to read again. The scan writes it through
//! [`super::ScanTx`].

use super::{At, Manifest, Result};
use crate::paths::PathList;
use std::hash::BuildHasher as _;

/// The stored rows of files, by path. A scan holds the row of every file of the vault while it
/// walks, so the paths share one buffer ([`PathList`]), the rows one vector, and a table of
/// their positions hashed on the path finds them. foldhash hashes a path several times faster
/// than SipHash, and a path is no secret.
#[derive(Debug, Default)]
pub struct FileRows {
    paths: PathList,
    rows: Vec<FileRow>,
    index: hashbrown::HashTable<usize>,
    hasher: foldhash::fast::RandomState,
}

impl FileRows {
    /// Room for `n` rows.
    pub fn with_capacity(n: usize) -> FileRows {
        FileRows {
            paths: PathList::with_capacity(n),
            rows: Vec::with_capacity(n),
            index: hashbrown::HashTable::with_capacity(n),
            hasher: Default::default(),
        }
    }

    /// Hold `row` as the row of `path`, in place of any it had.
    pub fn insert(&mut self, path: &str, row: FileRow) {
        let hash = self.hasher.hash_one(path);
        let paths = &self.paths;
        if let Some(&i) = self.index.find(hash, |&i| paths.get(i) == path) {
            self.rows[i] = row;
            return;
        }
        self.paths.push(path);
        self.rows.push(row);
        let (paths, hasher) = (&self.paths, &self.hasher);
        self.index.insert_unique(hash, self.rows.len() - 1, |&i| {
            hasher.hash_one(paths.get(i))
        });
    }

    /// The row of `path`, if one is held.
    pub fn get(&self, path: &str) -> Option<&FileRow> {
        let hash = self.hasher.hash_one(path);
        self.index
            .find(hash, |&i| self.paths.get(i) == path)
            .map(|&i| &self.rows[i])
    }

    /// How many rows are held.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Every row with its path, in the order they were held.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &FileRow)> {
        self.paths.iter().zip(&self.rows)
    }

    /// Every row.
    pub fn values(&self) -> impl Iterator<Item = &FileRow> {
        self.rows.iter()
    }
}

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

/// A row of [`FILE_ROW`]'s columns, and its path as SQLite holds it (no copy made).
fn file_row<'r>(r: &'r rusqlite::Row<'_>) -> rusqlite::Result<(&'r str, FileRow)> {
    Ok((
        r.get_ref(0)?.as_str()?,
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
        let mut out = FileRows::with_capacity((live + deleted) as usize);
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT {FILE_ROW} FROM files"))
            .at(&self.path)?;
        let mut rows = stmt.query([]).at(&self.path)?;
        while let Some(r) = rows.next().at(&self.path)? {
            let (path, row) = file_row(r).at(&self.path)?;
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
        let mut out = FileRows::with_capacity(paths.len());
        for p in paths {
            let mut rows = stmt.query([p]).at(&self.path)?;
            if let Some(r) = rows.next().at(&self.path)? {
                let (path, row) = file_row(r).at(&self.path)?;
                out.insert(path, row);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(size: u64) -> FileRow {
        FileRow {
            stat: Stat {
                size,
                mtime_ns: 1,
                ctime_ns: 1,
                inode: 1,
            },
            hash: None,
            clock_ns: 2,
            deleted: false,
        }
    }

    #[test]
    fn rows_are_found_by_their_whole_path_and_replaced_in_place() {
        let mut rows = FileRows::with_capacity(1);
        assert!(rows.is_empty());
        // More rows than the room asked for, and paths that share prefixes.
        for (i, p) in ["wiki/A.md", "wiki/A.md.bak", "wiki/AB.md", "raw/ü.md"]
            .into_iter()
            .enumerate()
        {
            rows.insert(p, row(i as u64));
        }
        assert_eq!(rows.get("wiki/A.md").map(|r| r.stat.size), Some(0));
        assert_eq!(rows.get("wiki/A.md.bak").map(|r| r.stat.size), Some(1));
        assert_eq!(rows.get("raw/ü.md").map(|r| r.stat.size), Some(3));
        assert!(rows.get("wiki/A").is_none() && rows.get("").is_none());
        rows.insert("wiki/AB.md", row(9));
        assert_eq!(rows.len(), 4, "a path held again replaces its row");
        assert_eq!(rows.get("wiki/AB.md").map(|r| r.stat.size), Some(9));
        let listed: Vec<(&str, u64)> = rows.iter().map(|(p, r)| (p, r.stat.size)).collect();
        assert_eq!(
            listed,
            [
                ("wiki/A.md", 0),
                ("wiki/A.md.bak", 1),
                ("wiki/AB.md", 9),
                ("raw/ü.md", 3)
            ]
        );
        assert_eq!(rows.values().count(), 4);
    }
}
