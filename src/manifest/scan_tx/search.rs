//! What the scan writes of the full-text index: each file's text in the search table of its
//! scope, queued and written in batches. A text longer than [`pieces::PIECE`] is indexed in
//! pieces, one row each, so that no row (and no batch) grows with the file: the first under
//! the file's rowid, the others under [`piece_rowid`]s, which the lookups in
//! `manifest::search` map back to the file.

use super::{Indexed, ScanTx, Text};
use crate::cjk;
use crate::manifest::{At, Result};
use crate::markdown::{Block, Document};
use crate::pieces;
use crate::progress::Phase;
use rusqlite::params;

/// Bits of a piece's rowid that number the piece (see [`piece_rowid`]).
pub(in crate::manifest) const PIECE_BITS: u32 = 22;

/// The rowid of piece `n` of the file with rowid `file`: the file's own for the first piece;
/// for the others a negative number that holds both (`-(file << PIECE_BITS | n)`), so that
/// the lookups read every later piece before any first one. `None` past the most pieces a
/// file can have (2^22, 4 TiB of text) or for a rowid too large to hold one.
pub(in crate::manifest) fn piece_rowid(file: i64, n: u64) -> Option<i64> {
    if n == 0 {
        return Some(file);
    }
    if n >= 1 << PIECE_BITS || !(1..1 << (62 - PIECE_BITS)).contains(&file) {
        return None;
    }
    Some(-((file << PIECE_BITS) | n as i64))
}

/// The rowid of the file a search row belongs to.
pub(in crate::manifest) fn file_rowid(row: i64) -> i64 {
    match row >= 0 {
        true => row,
        false => row.unsigned_abs() as i64 >> PIECE_BITS,
    }
}

impl ScanTx<'_> {
    /// Take the `pieces` rows of the file with this rowid out of its scope's search table.
    pub(super) fn unindex(&self, path: &str, rowid: i64, pieces: i64) -> Result<()> {
        for n in 0..pieces.max(0) as u64 {
            let Some(rowid) = piece_rowid(rowid, n) else {
                break;
            };
            self.search_batch(SearchOp::Delete {
                table: search_table(path),
                rowid,
            })?;
        }
        Ok(())
    }

    /// Index the text (and, for a page, its title, aliases, tags and headings with the first
    /// piece) for full-text search under the file's rowid, in pieces when it is long.
    pub(super) fn index_text(
        &self,
        path: &str,
        rowid: i64,
        doc: Option<&Document>,
        text: Text<'_>,
    ) -> Result<Indexed> {
        let fm = match doc.map(|d| &d.block) {
            Some(Block::Valid(fm)) => Some(fm),
            _ => None,
        };
        let title = fm.and_then(|f| f.title.as_deref()).unwrap_or_default();
        let aliases = fm.map(|f| f.aliases.join("\n")).unwrap_or_default();
        let headings = match doc {
            Some(d) if fm.is_some() => d
                .outline
                .headings
                .iter()
                // The H1 that repeats the title is the title's, not a heading's.
                .filter(|h| !h.text.trim().eq_ignore_ascii_case(title.trim()))
                .map(|h| h.text.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        let mut indexed = Indexed::default();
        let mut index = |body: &str| -> Result<bool> {
            let Some(id) = piece_rowid(rowid, indexed.pieces as u64) else {
                indexed.cut = true;
                return Ok(false);
            };
            let first = indexed.pieces == 0;
            self.search_batch(SearchOp::Insert {
                table: search_table(path),
                rowid: id,
                title: if first {
                    cjk::with_pairs(title).into_owned()
                } else {
                    String::new()
                },
                aliases: if first {
                    cjk::with_pairs(&aliases).into_owned()
                } else {
                    String::new()
                },
                tags: match (first, fm) {
                    (true, Some(f)) => f.tags.join(" "),
                    _ => String::new(),
                },
                headings: if first {
                    cjk::with_pairs(&headings).into_owned()
                } else {
                    String::new()
                },
                body: cjk::with_pairs(body).into_owned(),
            })?;
            indexed.pieces += 1;
            Ok(true)
        };
        match text {
            Text::Whole(t) => {
                for piece in pieces::split(t, pieces::PIECE) {
                    if !index(piece)? {
                        break;
                    }
                }
            }
            Text::Pieces(all) => {
                for piece in all {
                    if !index(&piece)? {
                        break;
                    }
                }
            }
        }
        Ok(indexed)
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
                    let slot = usize::from(table != SEARCH_TABLES[0]);
                    self.removed.borrow_mut()[slot]
                        .note(&self.tx, table, rowid)
                        .at(&self.path)?;
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
                    headings,
                    body,
                } => {
                    // A plain `VALUES` insert: an `INSERT … SELECT` would open a statement
                    // savepoint of its own, and flush.
                    let sql = format!(
                        "INSERT INTO {table} (rowid, title, aliases, tags, headings, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
                    );
                    self.tx
                        .prepare_cached(&sql)
                        .and_then(|mut s| {
                            s.execute(params![rowid, title, aliases, tags, headings, body])
                        })
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
pub(in crate::manifest) fn search_table(path: &str) -> &'static str {
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
        headings: String,
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
                headings,
                body,
                ..
            } => 16 + title.len() + aliases.len() + tags.len() + headings.len() + body.len(),
        }
    }
}

/// The queue of search-index changes of one scan.
#[derive(Debug, Default)]
pub(super) struct SearchBatch {
    ops: Vec<SearchOp>,
    bytes: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_rowids_map_back_to_their_file() {
        assert_eq!(piece_rowid(7, 0), Some(7));
        for (file, n) in [(1, 1), (7, 3), (123_456_789, (1 << PIECE_BITS) - 1)] {
            let row = piece_rowid(file, n).unwrap();
            assert!(row < 0);
            assert_eq!(file_rowid(row), file);
        }
        assert_eq!(file_rowid(42), 42);
        assert_eq!(
            piece_rowid(7, 1 << PIECE_BITS),
            None,
            "past the most pieces"
        );
        assert_eq!(
            piece_rowid(1 << 41, 1),
            None,
            "a rowid too large for pieces"
        );
    }
}
