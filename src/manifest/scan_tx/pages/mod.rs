//! What the scan writes of a page: its row, tags, aliases, links (pending resolution),
//! headings and block ids; their removal when the page goes; and, when a page is read again,
//! only the rows that differ from the stored ones.
//!
//! An edit rarely changes a page's title, aliases or links. Deleting and inserting every row
//! of an edited page rewrote each link's entries in five indexes and made every link to it
//! (and from it) be resolved again; now an edit that only moves lines updates line numbers,
//! one that changes links without adding or removing any rewrites those links' rows alone
//! (the one link in each page that `mv` retargets), and one that leaves the title and aliases
//! alone marks no name as changed.

mod links;
mod names;
mod outline;
mod row;
#[cfg(test)]
mod tests;

use super::{Dirty, ScanTx};
use crate::manifest::{At, Result};
use crate::markdown::Document;
use row::PageRow;
use rusqlite::params;

/// A table of rows with line numbers that an edit may only move: how to set a row's line,
/// and how to replace the page's rows.
struct LineTable {
    set_line: &'static str,
    delete: &'static str,
    insert: fn(&ScanTx<'_>, &str, &Document) -> Result<()>,
}

impl ScanTx<'_> {
    /// Remove the page, links, headings and blocks of `path`, noting its title and aliases.
    pub(super) fn clear_derived(&self, path: &str, dirty: &mut Dirty) -> Result<()> {
        let t = &self.tx;
        let mut old = t
            .prepare_cached(
                "SELECT title_key FROM pages WHERE path = ?1 AND title_key IS NOT NULL
                 UNION ALL SELECT alias_key FROM aliases WHERE path = ?1",
            )
            .at(&self.path)?;
        let keys = old
            .query_map([path], |r| r.get::<_, String>(0))
            .at(&self.path)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .at(&self.path)?;
        dirty.extend(keys);
        for sql in [
            "DELETE FROM tags WHERE path = ?1",
            "DELETE FROM aliases WHERE path = ?1",
            "DELETE FROM pages WHERE path = ?1",
            "DELETE FROM links WHERE source = ?1",
            "DELETE FROM headings WHERE path = ?1",
            "DELETE FROM blocks WHERE path = ?1",
        ] {
            self.run(sql, path)?;
        }
        Ok(())
    }

    /// Store a page read for the first time (or back from deletion): every row is new.
    pub(super) fn insert_document(
        &self,
        path: &str,
        doc: &Document,
        dirty: &mut Dirty,
    ) -> Result<()> {
        let page = PageRow::of(doc);
        if let Some(k) = &page.title_key {
            dirty.insert(k.clone());
        }
        self.insert_page(path, &page)?;
        if let Some(fm) = page.fm {
            self.insert_tags(path, fm)?;
            self.insert_aliases(path, fm, dirty)?;
        }
        self.insert_links(path, doc)?;
        self.insert_headings(path, doc)?;
        self.insert_blocks(path, doc)
    }

    /// Store a page read again: each of its tables is compared with what is stored, and
    /// rewritten only where it differs. Names whose meaning may change (the old and new title
    /// and aliases) are marked dirty only when they changed.
    pub(super) fn update_document(
        &self,
        path: &str,
        doc: &Document,
        dirty: &mut Dirty,
    ) -> Result<()> {
        let page = PageRow::of(doc);
        self.update_page(path, &page, dirty)?;
        self.update_tags(path, page.fm)?;
        self.update_aliases(path, page.fm, dirty)?;
        self.update_links(path, doc)?;
        self.update_headings(path, doc)?;
        self.update_blocks(path, doc)
    }

    /// Bring `path`'s rows of a table with line numbers (`stored`) to the page's (`new`): the
    /// lines updated in place when only they moved, every row replaced otherwise.
    fn sync_lines<R>(
        &self,
        path: &str,
        doc: &Document,
        table: &LineTable,
        (stored, new): (&[R], &[R]),
        line: impl Fn(&R) -> i64,
        same: impl Fn(&R, &R) -> bool,
    ) -> Result<()> {
        match moved_lines(stored, new, line, same) {
            Some(moved) => self.set_lines(table.set_line, path, &moved),
            None => {
                self.run(table.delete, path)?;
                (table.insert)(self, path, doc)
            }
        }
    }

    /// Set the line of each `(seq, line)` of `path`'s rows with `sql` (`?1` path, `?2` seq,
    /// `?3` line).
    fn set_lines(&self, sql: &str, path: &str, moved: &[(i64, i64)]) -> Result<()> {
        let mut stmt = self.tx.prepare_cached(sql).at(&self.path)?;
        for (seq, line) in moved {
            stmt.execute(params![path, seq, line]).at(&self.path)?;
        }
        Ok(())
    }

    /// Run a statement whose one parameter is the path.
    fn run(&self, sql: &str, path: &str) -> Result<()> {
        self.tx
            .prepare_cached(sql)
            .and_then(|mut s| s.execute([path]))
            .at(&self.path)?;
        Ok(())
    }

    /// The rows of a query whose one parameter is the path.
    fn rows<T>(
        &self,
        sql: &str,
        path: &str,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let mut stmt = self.tx.prepare_cached(sql).at(&self.path)?;
        let rows = stmt.query_map([path], row).at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }
}

/// When `new` is `old` with only line numbers changed (`same` compares everything else), the
/// `(seq, line)` of each row whose line moved (possibly none); otherwise `None`.
fn moved_lines<R>(
    old: &[R],
    new: &[R],
    line: impl Fn(&R) -> i64,
    same: impl Fn(&R, &R) -> bool,
) -> Option<Vec<(i64, i64)>> {
    if old.len() != new.len() {
        return None;
    }
    let mut moved = Vec::new();
    for (seq, (o, n)) in old.iter().zip(new).enumerate() {
        if !same(o, n) {
            return None;
        }
        if line(o) != line(n) {
            moved.push((seq as i64, line(n)));
        }
    }
    Some(moved)
}
