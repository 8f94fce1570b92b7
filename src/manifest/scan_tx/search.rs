//! What the scan writes of the full-text index: each file's text under its rowid, in the
//! search table of its scope, queued and written in batches.

use super::ScanTx;
use crate::cjk;
use crate::manifest::{At, Result};
use crate::markdown::{Block, Document};
use crate::progress::Phase;
use rusqlite::params;

impl ScanTx<'_> {
    /// Take the file with this rowid out of its scope's search table.
    pub(super) fn unindex(&self, path: &str, rowid: i64) -> Result<()> {
        self.search_batch(SearchOp::Delete {
            table: search_table(path),
            rowid,
        })
    }

    /// Index `body` (and, for a page, its title, aliases and tags) for full-text search, under
    /// the file's rowid.
    pub(super) fn index_text(
        &self,
        path: &str,
        rowid: i64,
        doc: Option<&Document>,
        body: &str,
    ) -> Result<()> {
        let fm = match doc.map(|d| &d.block) {
            Some(Block::Valid(fm)) => Some(fm),
            _ => None,
        };
        let title = fm.and_then(|f| f.title.as_deref()).unwrap_or_default();
        let aliases = fm.map(|f| f.aliases.join("\n")).unwrap_or_default();
        self.search_batch(SearchOp::Insert {
            table: search_table(path),
            rowid,
            title: cjk::with_pairs(title).into_owned(),
            aliases: cjk::with_pairs(&aliases).into_owned(),
            tags: fm.map(|f| f.tags.join(" ")).unwrap_or_default(),
            body: cjk::with_pairs(body).into_owned(),
        })
    }

    /// Queue a change of the search index, writing the queue once it holds enough text.
    ///
    /// FTS5 keeps new terms in memory and writes them as one segment per flush; it flushes
    /// whenever any later statement of the transaction opens a statement savepoint (every
    /// insert checked by a foreign key does). Written one file at a time between the other
    /// tables' rows, the index would be flushed once per file, as thousands of tiny segments
    /// merged again and again. Queued and written together, it is flushed once per batch.
    fn search_batch(&self, op: SearchOp) -> Result<()> {
        let full = {
            let mut batch = self.search.borrow_mut();
            batch.bytes += op.bytes();
            batch.ops.push(op);
            batch.bytes >= SEARCH_BATCH_BYTES
        };
        if full {
            self.flush_search(false)?;
        }
        Ok(())
    }

    /// Write the queued search-index changes, in order; with `shown`, as the indexing phase
    /// of the scan's progress (the last batch, written at commit).
    pub(super) fn flush_search(&self, shown: bool) -> Result<()> {
        let ops = std::mem::take(&mut *self.search.borrow_mut()).ops;
        if shown && !ops.is_empty() {
            self.progress.phase(Phase::Indexing, Some(ops.len() as u64));
        }
        for op in ops {
            if shown {
                self.progress.advance(1);
            }
            match op {
                SearchOp::Delete { table, rowid } => {
                    let sql = format!("DELETE FROM {table} WHERE rowid = ?1");
                    self.tx
                        .prepare_cached(&sql)
                        .and_then(|mut s| s.execute([rowid]))
                        .at(&self.path)?;
                }
                SearchOp::Insert {
                    table,
                    rowid,
                    title,
                    aliases,
                    tags,
                    body,
                } => {
                    // A plain `VALUES` insert: an `INSERT … SELECT` would open a statement
                    // savepoint of its own, and flush.
                    let sql = format!(
                        "INSERT INTO {table} (rowid, title, aliases, tags, body) VALUES (?1, ?2, ?3, ?4, ?5)"
                    );
                    self.tx
                        .prepare_cached(&sql)
                        .and_then(|mut s| s.execute(params![rowid, title, aliases, tags, body]))
                        .at(&self.path)?;
                }
            }
        }
        Ok(())
    }
}

/// The search tables, one per scope.
pub(super) const SEARCH_TABLES: [&str; 2] = ["search_wiki", "search_raw"];

/// The search table of a file: pages in one, raw files in the other, so that a scope is a
/// table and never a filter.
pub(super) fn search_table(path: &str) -> &'static str {
    if path.starts_with("wiki/") {
        SEARCH_TABLES[0]
    } else {
        SEARCH_TABLES[1]
    }
}

/// Bytes of text queued for the search index before it is written.
const SEARCH_BATCH_BYTES: usize = 4 << 20;

/// A queued change of the search index.
#[derive(Debug)]
pub(super) enum SearchOp {
    /// Remove a file's entry.
    Delete { table: &'static str, rowid: i64 },
    /// Add a file's entry.
    Insert {
        table: &'static str,
        rowid: i64,
        title: String,
        aliases: String,
        tags: String,
        body: String,
    },
}

impl SearchOp {
    fn bytes(&self) -> usize {
        match self {
            SearchOp::Delete { .. } => 16,
            SearchOp::Insert {
                title,
                aliases,
                tags,
                body,
                ..
            } => 16 + title.len() + aliases.len() + tags.len() + body.len(),
        }
    }
}

/// The queue of search-index changes of one scan.
#[derive(Debug, Default)]
pub(super) struct SearchBatch {
    ops: Vec<SearchOp>,
    bytes: usize,
}
