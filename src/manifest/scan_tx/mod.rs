//! The scan's one write transaction ([`ScanTx`]) and everything it writes: the `files` rows
//! here, the page and what is derived from it in `pages`, the full-text index in `search`
//! (queued, written in batches), link resolution in `links`. Every method of `ScanTx` lives in
//! this folder; nothing is visible to other commands until [`ScanTx::commit`].

mod bulk;
mod links;
mod meaning;
mod pages;
mod search;

pub use meaning::MEANING_SECTIONS;
pub(super) use meaning::{MEANINGS_TOKEN, section_of};
pub(super) use search::{PIECE_BITS, file_rowid, search_table};

use super::files::Stat;
use super::search_totals::Removed;
use super::{At, Manifest, Result};
use crate::key;
use crate::markdown::Document;
use crate::progress::Progress;
use rusqlite::{OptionalExtension, Transaction, params};
use search::SearchBatch;
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::path::Path;

/// Link keys whose resolution may have changed in this scan.
pub type Dirty = BTreeSet<String>;

/// What was read from a new or changed file.
pub struct Content<'a> {
    /// blake3 of the bytes.
    pub hash: &'a str,
    /// The parsed page, for wiki Markdown.
    pub doc: Option<&'a Document>,
    /// The text to index for search.
    pub text: Option<Text<'a>>,
    /// The vectors of its sections, by section number (`scan::meaning`).
    pub meaning: &'a [(usize, crate::embed::Vector)],
    /// The line of its first conflict marker, 0 for none; `None` when it was not checked.
    pub markers: Option<usize>,
}

/// The text of a file for the search index.
pub enum Text<'a> {
    /// All of it, in memory (cut into pieces here when it is long).
    Whole(&'a str),
    /// A piece at a time, as it is read (a file too large to hold).
    Pieces(&'a mut dyn Iterator<Item = String>),
}

/// How much of a file's text the search index holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Indexed {
    /// Its pieces (rows of the search table).
    pub pieces: i64,
    /// The text went on past the most pieces a file can have: the rest is not searchable.
    pub cut: bool,
}

impl Manifest {
    /// Begin the scan's one write transaction; `progress` hears how resolution and indexing
    /// go.
    pub fn scan_tx<'a>(&'a mut self, progress: &'a dyn Progress) -> Result<ScanTx<'a>> {
        let path = self.path.clone();
        // The scan writes every derived row itself, and removes them itself (`clear_derived`):
        // checking each insert against `files` would cost a lookup and a statement journal
        // per row. Every other transaction turns the checks back on (`Manifest::immediate`).
        self.conn
            .pragma_update(None, "foreign_keys", "OFF")
            .at(&path)?;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .at(&path)?;
        let stamp = generation(&tx).at(&path)? + 1;
        Ok(ScanTx {
            tx,
            path,
            stamp,
            stamped: Cell::new(false),
            meanings_changed: Cell::new(false),
            search: RefCell::default(),
            progress,
            set_aside: Vec::new(),
            removed: RefCell::default(),
        })
    }
}

/// The `meta` key of the scan generation: a counter every scan that stores or deletes a file
/// moves on by one, stamping the rows it writes (`files.gen`), so that "what changed since"
/// is a range of an index, whatever the clocks did.
pub(super) const GENERATION: &str = "files_gen";

/// The generation of the last scan that stored or deleted a file (0 before any).
pub(super) fn generation(conn: &rusqlite::Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1",
        [GENERATION],
        |r| r.get(0),
    )
    .optional()
    .map(Option::unwrap_or_default)
}

/// The stored row of a file the scan found.
struct Previous {
    rowid: i64,
    /// How many pieces of its text the search index holds.
    indexed: i64,
    /// Not marked deleted, nor to be read again from scratch: its derived rows are current.
    live: bool,
}

/// The scan's write transaction: nothing is visible to other commands until [`ScanTx::commit`].
pub struct ScanTx<'a> {
    tx: Transaction<'a>,
    path: std::path::PathBuf,
    /// The generation this scan stamps on the rows it stores or deletes.
    stamp: i64,
    /// A row was stamped: the generation is recorded at commit.
    stamped: Cell<bool>,
    /// A vector was written or deleted: `meanings` gets a new token at commit.
    meanings_changed: Cell<bool>,
    /// Search-index changes not written yet.
    search: RefCell<SearchBatch>,
    /// Who hears how resolution and indexing go.
    progress: &'a dyn Progress,
    /// Indexes and triggers set aside while an empty manifest is filled.
    set_aside: Vec<bulk::SetAside>,
    /// What the rows deleted from each search table held (`search::SEARCH_TABLES` order).
    removed: RefCell<[Removed; 2]>,
}

/// A committed scan: what is left to do once it is, [`Manifest::settle_scan`].
#[must_use = "a committed scan's search totals are settled by Manifest::settle_scan"]
#[derive(Debug)]
pub struct Committed {
    removed: [Removed; 2],
}

impl Manifest {
    /// Finish a committed scan: take the search rows it deleted out of the search tables'
    /// totals (see `search_totals`), or count them anew in a manifest whose totals an
    /// earlier Sparks let drift.
    pub fn settle_scan(&mut self, committed: Committed) -> Result<()> {
        if self.meta(EXACT_TOTALS)?.is_none() {
            return self.recount_search_totals(&search::SEARCH_TABLES, EXACT_TOTALS);
        }
        let removed: Vec<(&str, Removed)> = search::SEARCH_TABLES
            .into_iter()
            .zip(committed.removed)
            .collect();
        self.settle_search_totals(&removed)
    }
}

/// The `meta` key saying the search tables' totals count only the rows they hold.
const EXACT_TOTALS: &str = "search_totals_exact";

impl ScanTx<'_> {
    /// The file was read again and its content has not changed: record the new stat (and
    /// its first conflict marker's line, which a file stored before schema 15 lacks).
    pub fn touch(
        &self,
        path: &str,
        stat: Stat,
        clock_ns: i64,
        markers: Option<usize>,
    ) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE files SET size = ?2, mtime_ns = ?3, ctime_ns = ?4, inode = ?5, clock_ns = ?6,
                                  markers = ?7
                 WHERE path = ?1",
            )
            .and_then(|mut s| {
                s.execute(params![
                    path,
                    stat.size as i64,
                    stat.mtime_ns,
                    stat.ctime_ns,
                    stat.inode as i64,
                    clock_ns,
                    markers.map(|m| m as i64)
                ])
            })
            .at(&self.path)?;
        Ok(())
    }

    /// The file is new, changed or back from deletion: store it and everything derived from
    /// it, read at filesystem clock `clock_ns` and found changed at wall clock `changed_ns`,
    /// and note the link keys whose resolution may have changed.
    pub fn store(
        &self,
        path: &str,
        stat: Stat,
        content: Content<'_>,
        (clock_ns, changed_ns): (i64, i64),
        dirty: &mut Dirty,
    ) -> Result<Indexed> {
        let Content {
            hash,
            doc,
            text,
            meaning,
            markers,
        } = content;
        let path_key = key::link_key(path);
        let name_key = key::last_component(&path_key).to_string();
        let name_loose = key::loose_key(&name_key);
        // A live file read again keeps the rows that did not change. A new file, or one back
        // from deletion, has none, and its name may now be what links mean; one a migration
        // asked to read again (`reindex:`) has all its rows written anew.
        let previous = self.previous(path)?;
        let live = previous.as_ref().is_some_and(|p| p.live);
        if let Some(p) = &previous {
            if p.indexed > 0 {
                self.unindex(path, p.rowid, p.indexed)?;
            }
            self.forget_meaning(path, p.rowid)?;
        }
        if previous.is_some() && !live {
            self.clear_derived(path, dirty)?;
        }
        // A hash marked `reindex:` by a migration is content read before: its change time stays.
        let rowid: i64 = self
            .tx
            .prepare_cached(
                "INSERT INTO files (path, name_key, path_key, size, mtime_ns, ctime_ns, inode, hash,
                                    clock_ns, changed_ns, deleted, name_loose, indexed, gen,
                                    markers)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0, ?11, ?12, ?13, ?14)
                 ON CONFLICT (path) DO UPDATE SET
                    size = excluded.size, mtime_ns = excluded.mtime_ns,
                    ctime_ns = excluded.ctime_ns, inode = excluded.inode, hash = excluded.hash,
                    clock_ns = excluded.clock_ns, deleted = 0, indexed = excluded.indexed,
                    gen = excluded.gen, markers = excluded.markers,
                    changed_ns = CASE WHEN files.hash = 'reindex:' || excluded.hash
                                      THEN files.changed_ns ELSE excluded.changed_ns END
                 RETURNING rowid",
            )
            .and_then(|mut s| {
                s.query_row(
                    params![
                        path,
                        name_key,
                        path_key,
                        stat.size as i64,
                        stat.mtime_ns,
                        stat.ctime_ns,
                        stat.inode as i64,
                        hash,
                        clock_ns,
                        changed_ns,
                        name_loose,
                        i64::from(text.is_some()),
                        self.stamp,
                        markers.map(|m| m as i64),
                    ],
                    |r| r.get(0),
                )
            })
            .at(&self.path)?;
        self.stamped.set(true);
        self.store_meaning(rowid, meaning)?;
        match doc {
            Some(doc) if live => self.update_document(path, doc, dirty)?,
            Some(doc) => self.insert_document(path, doc, dirty)?,
            // Nothing is derived from a file that is not a page (unless it was one before).
            None if live => self.clear_derived(path, dirty)?,
            None => {}
        }
        if !live {
            dirty.insert(name_key);
            dirty.insert(path_key);
        }
        let Some(text) = text else {
            return Ok(Indexed::default());
        };
        let indexed = self.index_text(path, rowid, doc, text)?;
        // One piece is what the row says already.
        if indexed.pieces != 1 {
            self.tx
                .prepare_cached("UPDATE files SET indexed = ?2 WHERE rowid = ?1")
                .and_then(|mut s| s.execute(params![rowid, indexed.pieces]))
                .at(&self.path)?;
        }
        Ok(indexed)
    }

    /// The file is gone: mark it deleted (its `changed_ns` becomes the time it was found gone)
    /// and drop everything derived from it.
    pub fn delete(&self, path: &str, now_ns: i64, dirty: &mut Dirty) -> Result<()> {
        let path_key = key::link_key(path);
        dirty.insert(key::last_component(&path_key).to_string());
        dirty.insert(path_key);
        if let Some(p) = self.previous(path)? {
            if p.indexed > 0 {
                self.unindex(path, p.rowid, p.indexed)?;
            }
            self.forget_meaning(path, p.rowid)?;
        }
        self.clear_derived(path, dirty)?;
        self.tx
            .prepare_cached(
                "UPDATE files SET deleted = 1, indexed = 0, changed_ns = ?2, gen = ?3
                 WHERE path = ?1",
            )
            .and_then(|mut s| s.execute(rusqlite::params![path, now_ns, self.stamp]))
            .at(&self.path)?;
        self.stamped.set(true);
        Ok(())
    }

    /// What is stored of `path`, if anything.
    fn previous(&self, path: &str) -> Result<Option<Previous>> {
        self.tx
            .prepare_cached(
                "SELECT rowid, indexed, deleted = 0 AND hash NOT LIKE 'reindex:%' FROM files
                 WHERE path = ?1",
            )
            .and_then(|mut s| {
                s.query_row([path], |r| {
                    Ok(Previous {
                        rowid: r.get(0)?,
                        indexed: r.get(1)?,
                        live: r.get(2)?,
                    })
                })
                .optional()
            })
            .at(&self.path)
    }

    /// Make the transaction's writes visible.
    pub fn commit(self) -> Result<Committed> {
        self.flush_search(true)?;
        self.restore_set_aside()?;
        if self.stamped.get() {
            self.set_meta(GENERATION, &self.stamp.to_string())?;
        }
        self.renew_meanings_token()?;
        self.tx.commit().at(&self.path)?;
        Ok(Committed {
            removed: self.removed.into_inner(),
        })
    }

    /// The manifest's path, for errors.
    pub fn manifest_path(&self) -> &Path {
        &self.path
    }

    /// Set a `meta` value inside the scan.
    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        super::meta::set(&self.tx, &self.path, key, value)
    }

    /// A `meta` value as seen inside the scan.
    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        super::meta::get(&self.tx, &self.path, key)
    }
}
