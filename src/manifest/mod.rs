//! The manifest: a SQLite database (`sparks.db`) of the vault's files, pages, links and
//! ingests. All SQL lives in this module. The manifest is derived state (apart from the
//! history of ingests): deleting it and scanning rebuilds it.

mod by_page;
pub mod catalog;
mod extracts;
mod files;
mod finalize;
mod fts5;
mod graph;
mod health;
mod history;
mod imported;
mod ingests;
mod journal;
mod links;
mod meaning;
pub mod meta;
mod provenance;
mod query;
mod rebuild;
mod recent;
mod refs;
mod related;
mod scan_tx;
mod search;
mod search_totals;
mod site;
mod sql;
mod states;
mod stats;
mod twins;
mod view;

pub use extracts::{Extract, Fresh};
pub use files::{FileRow, FileRows, Stat};
pub use finalize::{Outcome, Step, UnknownStep};
pub use graph::{GraphFilter, GraphPage};
pub use health::{
    BrokenFragment, Cited, Claim, LinkFinding, LiveFiles, PageRecord, Pages, UnresolvedLink,
};
pub use history::IngestRecord;
pub use imported::Imported;
pub use ingests::{BatchEntry, IngestRow, Mirrored, NewEntry, Opened};
pub use journal::LegacyJournal;
pub use links::{Resolution, Resolver};
pub use meaning::{MeaningsCopy, Near};
pub use provenance::{PageAction, PageChange, Snapshot};
pub use query::{Collision, PageFilter, PageRow};
pub use recent::{RawFile, UpdatedPage};
pub use related::Neighbour;
pub use scan_tx::{Content, Dirty, Indexed, MEANING_SECTIONS, ScanTx, Text};
pub use search::{Hit, Scope, Scores};
pub use site::{LinkTable, SitePage};
pub use states::{FrontmatterState, IngestStatus, LinkStatus, UnknownState};
pub use stats::{Counts, TypeCount};
pub use view::{Backlink, NameHit, TagCount, ViewPage};

use crate::failure::{Action, Advice, Hint};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The migrations, in order; migration N brings the schema to version N.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/0001_init.sql"),
    include_str!("../../migrations/0002_search_without_copies.sql"),
    include_str!("../../migrations/0003_obsidian_heading_keys.sql"),
    include_str!("../../migrations/0004_thin_by_sentences.sql"),
    include_str!("../../migrations/0005_journal.sql"),
    include_str!("../../migrations/0006_provenance.sql"),
    include_str!("../../migrations/0007_extracts.sql"),
    include_str!("../../migrations/0008_pending_links_by_key.sql"),
    include_str!("../../migrations/0009_changes_since_prepare.sql"),
    include_str!("../../migrations/0010_snapshot_kept_between_ingests.sql"),
    include_str!("../../migrations/0011_view_listings.sql"),
    include_str!("../../migrations/0012_search_text.sql"),
    include_str!("../../migrations/0013_markdown_path_links.sql"),
    include_str!("../../migrations/0014_ingest_origins.sql"),
    include_str!("../../migrations/0015_conflict_markers.sql"),
    include_str!("../../migrations/0016_ranked_search.sql"),
    include_str!("../../migrations/0017_meanings.sql"),
    include_str!("../../migrations/0018_meanings_mirror.sql"),
];

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// How long a command waits for another one's write transaction before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The most memory SQLite's page cache may take, in KiB.
const CACHE_KIB: i64 = 16 * 1024;

/// An open manifest.
#[derive(Debug)]
pub struct Manifest {
    conn: Connection,
    path: PathBuf,
    /// Whether [`fts5`]'s ranking functions are registered on `conn` (at its first search).
    fts5: std::cell::OnceCell<()>,
}

/// What a reader counted on one connection, kept beside it (not in it) until the manifest
/// changes: the viewer owns one beside each connection it keeps and lends it to the methods
/// that count, so a hub page is shown, and `/graph` drawn, again without counting again.
#[derive(Debug, Default)]
pub struct Counted {
    /// Backlinks counted past a list's limit ([`Manifest::backlinks`]).
    backlink_totals: std::cell::RefCell<Box<by_page::ByPage<usize>>>,
    /// The graph's most linked pages, as last ranked ([`Manifest::graph_most_linked`]).
    graph_ranked: std::cell::RefCell<Option<Box<graph::Ranked>>>,
    /// Lists found for a page ([`Manifest::remembered`]: the viewer's related pages).
    remembered: std::cell::RefCell<Box<by_page::ByPage<Vec<Backlink>>>>,
}

/// A manifest operation failed.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// SQLite reported an error.
    #[error("manifest {}: {source}", path.display())]
    Sql {
        /// The database file.
        path: PathBuf,
        /// The cause.
        source: rusqlite::Error,
    },
    /// The database was written by a newer Sparks.
    #[error(
        "manifest {} has schema version {found}; this sparks knows up to {SCHEMA_VERSION}",
        path.display()
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// Its version.
        found: i64,
    },
    /// The database was written by an older Sparks, and opening it to read does not upgrade
    /// it.
    #[error(
        "manifest {} has schema version {found}, older than {SCHEMA_VERSION}",
        path.display()
    )]
    TooOld {
        /// The database file.
        path: PathBuf,
        /// Its version.
        found: i64,
    },
    /// A stored value does not decode.
    #[error("manifest {}: {what}", path.display())]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The disk holding the manifest is full: SQLite's "database or disk is full", or an I/O
    /// error while the disk has (next to) no space left (growing its shared memory, `xShmMap`,
    /// fails so).
    #[error("manifest {}: the disk is full ({source})", path.display())]
    DiskFull {
        /// The database file.
        path: PathBuf,
        /// SQLite's words.
        source: rusqlite::Error,
    },
    /// One of the manifest's side files (`sparks.db-wal`, `sparks.db-shm`) cannot be written
    /// by this user while the manifest itself can: left read-only by a time `sparks.db` was
    /// (SQLite makes them with its mode), or made by another user.
    #[error(
        "manifest {}: its side file {} cannot be written by this user (read-only, or another \
         user's), so nothing can be recorded",
        path.display(),
        side.display()
    )]
    SideFile {
        /// The database file.
        path: PathBuf,
        /// The side file.
        side: PathBuf,
    },
}

/// Below this much space left, an I/O error of SQLite's is taken for a full disk.
const FULL_BELOW: u64 = 1 << 20;

/// The manifest's side files in WAL mode: the log and its shared-memory index.
fn side_files(path: &Path) -> [PathBuf; 2] {
    ["-wal", "-shm"].map(|suffix| PathBuf::from(format!("{}{suffix}", path.display())))
}

/// SQLite's error about the manifest at `path`, told as what it means for the user: a full disk
/// and a side file this user cannot write are their own errors (neither is mended by
/// rebuilding the manifest), anything else [`ManifestError::Sql`].
fn sql_error(path: &Path, source: rusqlite::Error) -> ManifestError {
    use rusqlite::ErrorCode::{CannotOpen, DiskFull, ReadOnly, SystemIoFailure};
    let path = path.to_path_buf();
    match source.sqlite_error_code() {
        Some(DiskFull) => ManifestError::DiskFull { path, source },
        Some(SystemIoFailure) if crate::fsio::nearly_full(&path, FULL_BELOW) => {
            ManifestError::DiskFull { path, source }
        }
        Some(ReadOnly | CannotOpen) if crate::fsio::writable(&path) => {
            match side_files(&path)
                .into_iter()
                .find(|side| side.exists() && !crate::fsio::writable(side))
            {
                Some(side) => ManifestError::SideFile { path, side },
                None => ManifestError::Sql { path, source },
            }
        }
        _ => ManifestError::Sql { path, source },
    }
}

impl ManifestError {
    /// Whether SQLite refused to write or to create a file (a read-only file or directory, a
    /// side file this user cannot write), as opposed to a busy, corrupt or newer database.
    fn is_write_denied(&self) -> bool {
        use rusqlite::ErrorCode::{CannotOpen, ReadOnly};
        match self {
            ManifestError::Sql { source, .. } => {
                matches!(source.sqlite_error_code(), Some(ReadOnly | CannotOpen))
            }
            ManifestError::SideFile { .. } => true,
            _ => false,
        }
    }
}

impl Hint for ManifestError {
    /// What the user can do about it. Rebuilding is advice only for a manifest that may be
    /// damaged: it cannot free a disk or make a file writable.
    fn hint(&self) -> Option<Advice> {
        match self {
            ManifestError::TooNew { .. } => Some(Advice::say("upgrade sparks")),
            ManifestError::TooOld { .. } => Some(Advice::run(Action::Scan).then(" to upgrade it")),
            ManifestError::DiskFull { .. } => Some(Advice::free_space()),
            ManifestError::SideFile { side, .. } => Some(
                Advice::say(format!(
                    "make {} writable for this user, as the manifest is, then ",
                    side.display()
                ))
                .then_run(Action::Again),
            ),
            e if e.is_write_denied() => Some(
                Advice::say(
                    "the manifest, or the folder it is in, cannot be written by this user: make \
                     them writable, then ",
                )
                .then_run(Action::Again),
            ),
            ManifestError::Sql { .. } | ManifestError::Corrupt { .. } => Some(
                Advice::say("the manifest is derived state: ")
                    .then_run(Action::Rebuild)
                    .then(", which sets it aside and builds a new one"),
            ),
        }
    }
}

/// Results of manifest operations.
pub type Result<T> = std::result::Result<T, ManifestError>;

/// Attach the manifest's path to a SQLite error.
pub(crate) trait At<T> {
    fn at(self, path: &Path) -> Result<T>;
}

impl<T> At<T> for rusqlite::Result<T> {
    fn at(self, path: &Path) -> Result<T> {
        self.map_err(|source| sql_error(path, source))
    }
}

/// `path` as the path of an SQLite URI: `%`, `?` and `#` escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// Move the manifest at `path` and its `-wal`/`-shm` files aside (to `<name>.old-<stamp>`, with
/// `-2`, `-3`… after the stamp when an earlier one of the same second is there: none is ever
/// replaced), so that the next open starts afresh. Returns the new names of the files moved.
pub fn set_aside(path: &Path, stamp: &str) -> std::io::Result<Vec<PathBuf>> {
    let base: String = stamp.chars().filter(char::is_ascii_alphanumeric).collect();
    let taken = |stamp: &str| {
        ["", "-wal", "-shm"].iter().any(|suffix| {
            fs_err::symlink_metadata(format!("{}.old-{stamp}{suffix}", path.display())).is_ok()
        })
    };
    let mut stamp = base.clone();
    let mut n = 1;
    while taken(&stamp) {
        n += 1;
        stamp = format!("{base}-{n}");
    }
    let mut moved = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        let from = PathBuf::from(format!("{}{suffix}", path.display()));
        if from.exists() {
            let to = PathBuf::from(format!("{}.old-{stamp}{suffix}", path.display()));
            fs_err::rename(&from, &to)?;
            moved.push(to);
        }
    }
    Ok(moved)
}

/// Side files this user cannot write next to a manifest it can, made writable again when this
/// user owns them: a `sparks.db` once made read-only leaves its `-wal` and `-shm` read-only
/// (SQLite gives them the database's mode), and every write would then fail long after
/// `sparks.db` is writable again. Their content is kept; a side file of another user's is left
/// for the error to name ([`ManifestError::SideFile`]).
fn repair_side_files(path: &Path) {
    if !crate::fsio::writable(path) {
        return;
    }
    let Ok(mode) = fs_err::metadata(path).map(|m| m.permissions()) else {
        return;
    };
    for side in side_files(path) {
        if side.exists() && !crate::fsio::writable(&side) {
            let _ = fs_err::set_permissions(&side, mode.clone());
        }
    }
}

impl Manifest {
    /// Open (creating if needed) the manifest at `path` and bring its schema up to date.
    ///
    /// In a vault nobody may write to (a read-only mount, a shared folder), SQLite cannot create
    /// the WAL's side files; the manifest is then opened read-only, so that the commands that
    /// only read still answer, and any write fails naming the manifest.
    pub fn open(path: &Path) -> Result<Manifest> {
        repair_side_files(path);
        match Manifest::open_writable(path) {
            Err(e) if e.is_write_denied() && path.is_file() => {
                Manifest::open_read_only(path).map_err(|_| e)
            }
            other => other,
        }
    }

    fn open_writable(path: &Path) -> Result<Manifest> {
        let conn = Connection::open(path).at(path)?;
        let mut m = Manifest {
            conn,
            path: path.to_path_buf(),
            fts5: std::cell::OnceCell::new(),
        };
        m.configure().at(path)?;
        m.migrate()?;
        Ok(m)
    }

    /// Open an existing manifest without writing to it: no creation, no migration. A manifest
    /// of another schema version is an error (`sparks scan` brings it up to date). Where the
    /// WAL's side files cannot be created (a vault nobody may write to) and no WAL is left to
    /// read, the file is opened `immutable`: nothing can change a file nobody may write.
    pub fn open_read_only(path: &Path) -> Result<Manifest> {
        Manifest::open_read_only_as(path).map(|(m, _)| m)
    }

    /// [`Manifest::open_read_only`], and whether the connection sees later writes (`false` when
    /// it had to be opened `immutable`).
    fn open_read_only_as(path: &Path) -> Result<(Manifest, bool)> {
        let plain = Manifest::read_only(path, &path.to_string_lossy(), OpenFlags::empty());
        let wal = PathBuf::from(format!("{}-wal", path.display()));
        match plain {
            Err(ManifestError::Sql { .. }) if !wal.exists() => Manifest::read_only(
                path,
                &format!("file:{}?immutable=1", uri_path(path)),
                OpenFlags::SQLITE_OPEN_URI,
            )
            .map(|m| (m, false)),
            other => other.map(|m| (m, true)),
        }
    }

    /// Open the manifest read-only for a server that keeps the connection from one request to
    /// the next (SQLite starts each read where the last write left the file, and keeps the
    /// pages it read while nothing was written). The second value is `false` when the
    /// connection must not be kept: a manifest that could only be opened as immutable (in a
    /// directory nobody may write to) is never read again after it changes.
    pub fn open_to_keep(path: &Path) -> Result<(Manifest, bool)> {
        let (m, live) = Manifest::open_read_only_as(path)?;
        if live {
            m.size_caches().at(path)?;
        }
        Ok((m, live))
    }

    /// Whether a connection kept from [`Manifest::open_to_keep`] may serve another request:
    /// nobody has migrated the manifest since it was opened.
    pub fn still_current(&self) -> bool {
        self.schema_version().ok() == Some(SCHEMA_VERSION)
    }

    /// A second connection to this manifest, read-only, for work run beside this one (a
    /// whole-vault lint shares its checks between two threads).
    pub fn another_reader(&self) -> Result<Manifest> {
        let m = Manifest::open_read_only(&self.path)?;
        m.size_caches().at(&self.path)?;
        Ok(m)
    }

    fn read_only(path: &Path, name: &str, flags: OpenFlags) -> Result<Manifest> {
        let conn = Connection::open_with_flags(
            name,
            flags | OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .at(path)?;
        conn.busy_timeout(Duration::from_secs(5)).at(path)?;
        let m = Manifest {
            conn,
            path: path.to_path_buf(),
            fts5: std::cell::OnceCell::new(),
        };
        let found = m.schema_version()?;
        if found > SCHEMA_VERSION {
            return Err(ManifestError::TooNew {
                path: path.to_path_buf(),
                found,
            });
        }
        if found < SCHEMA_VERSION {
            return Err(ManifestError::TooOld {
                path: path.to_path_buf(),
                found,
            });
        }
        Ok(m)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the manifest was opened read-only (a vault nobody may write to).
    pub fn is_read_only(&self) -> bool {
        self.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false)
    }

    fn configure(&self) -> rusqlite::Result<()> {
        self.conn.busy_timeout(BUSY_TIMEOUT)?;
        self.conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))?;
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        self.size_caches()?;
        self.conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(())
    }

    /// The cache and temporary-storage settings every connection shares, writing or only
    /// reading.
    fn size_caches(&self) -> rusqlite::Result<()> {
        // A scan writes every index of a large vault in file order, not key order: with
        // SQLite's default 2 MB cache it would spill the same pages to the WAL again and
        // again. The cache grows only as far as it is used.
        self.conn.pragma_update(None, "cache_size", -CACHE_KIB)?;
        // Statement journals (a statement that writes several rows, or fires a trigger, keeps
        // one to undo itself) and sorts stay in memory: in a temporary file they were a write
        // call per page, a fifth of a first scan's time.
        self.conn.pragma_update(None, "temp_store", "MEMORY")
    }

    fn migrate(&mut self) -> Result<()> {
        let current = self.schema_version()?;
        if current > SCHEMA_VERSION {
            return Err(ManifestError::TooNew {
                path: self.path.clone(),
                found: current,
            });
        }
        if current == SCHEMA_VERSION {
            return Ok(());
        }
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .at(&path)?;
        // Another process may have migrated while this one waited for the write lock.
        let current: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .at(&path)?;
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
            tx.execute_batch(sql).at(&path)?;
            tx.pragma_update(None, "user_version", i as i64 + 1)
                .at(&path)?;
        }
        tx.commit().at(&path)
    }

    /// The schema version of the database (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .at(&self.path)
    }

    fn immediate(&mut self) -> Result<rusqlite::Transaction<'_>> {
        self.conn
            .pragma_update(None, "foreign_keys", "ON")
            .at(&self.path)?;
        self.conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .at(&self.path)
    }
}

/// A connection that wrote leaves its writes in the database file, not only in the
/// write-ahead log. SQLite copies the log into the database when the last connection to it
/// closes, and that copy is what makes a command's writes durable (commits alone do not sync
/// the log); a connection kept open elsewhere, such as the viewer's, would put it off until
/// SQLite's automatic checkpoint in some later command. A connection that wrote nothing (every
/// read-only one) checkpoints nothing.
impl Drop for Manifest {
    fn drop(&mut self) {
        if self.conn.total_changes() > 0 {
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_migrates_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sparks.db");
        let m = Manifest::open(&p).unwrap();
        assert_eq!(m.schema_version().unwrap(), SCHEMA_VERSION);
        drop(m);
        let m = Manifest::open(&p).unwrap();
        assert_eq!(m.schema_version().unwrap(), SCHEMA_VERSION);
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sparks.db");
        let c = Connection::open(&p).unwrap();
        c.pragma_update(None, "user_version", 99).unwrap();
        drop(c);
        assert!(matches!(
            Manifest::open(&p),
            Err(ManifestError::TooNew { found: 99, .. })
        ));
    }

    #[test]
    fn a_file_that_is_not_a_database_is_an_error_with_a_hint() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sparks.db");
        fs_err::write(&p, b"this is not sqlite, just some text that is long enough to be a header..........................................").unwrap();
        let err = Manifest::open(&p).unwrap_err();
        assert!(err.to_string().contains("sparks.db"), "{err}");
        assert!(err.hint().is_some());
    }

    /// SQLite's "database or disk is full" is a full disk, advised as one: never a rebuild,
    /// which would need more space still.
    #[test]
    fn a_full_database_is_a_full_disk_with_advice_to_free_space() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sparks.db");
        let m = Manifest::open(&p).unwrap();
        let pages: i64 = m
            .conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .unwrap();
        m.conn.pragma_update(None, "max_page_count", pages).unwrap();
        let err = m
            .conn
            .execute_batch("CREATE TABLE filler(x); INSERT INTO filler VALUES (zeroblob(1000000));")
            .at(&p)
            .unwrap_err();
        assert!(matches!(err, ManifestError::DiskFull { .. }), "{err:?}");
        assert!(err.to_string().contains("the disk is full"), "{err}");
        assert_eq!(err.hint(), Some(Advice::free_space()));
    }
}
