//! The search tables' totals, kept equal to what they hold. FTS5 ranks a hit (bm25) by the
//! number of rows of its table and their mean length per column, totals it keeps in a record
//! of its own. A contentless table with `contentless_delete` does not take a deleted row out of
//! them: every change of a file (a delete and an insert) would count it once more, so that the
//! same vault ranked differently by how often its files had been edited, and a watcher's
//! extra scans made its answers differ from a fresh scan's. The scan notes the sizes of the
//! rows it deletes (FTS5 still stores each row's size) and takes them out of the totals once
//! its transaction is committed: FTS5 writes its own totals at commit, over any written
//! before within the transaction.

use super::{At, Manifest, Result};
use rusqlite::{Connection, OptionalExtension};

/// The columns of a search table (`title, aliases, tags, headings, body`).
const COLUMNS: usize = 5;

/// The rowid of FTS5's totals record in a table's `_data`.
const TOTALS_ROW: i64 = 1;

/// Rows of one search table and their tokens per column: what the scan's deletes took out of
/// it, or (counting it anew) all it holds.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Removed {
    rows: u64,
    tokens: [u64; COLUMNS],
}

impl Removed {
    /// Note the row `rowid` of `table` before it is deleted.
    pub(super) fn note(
        &mut self,
        conn: &Connection,
        table: &str,
        rowid: i64,
    ) -> rusqlite::Result<()> {
        let sql = format!("SELECT sz FROM \"{table}_docsize\" WHERE id = ?1");
        let size: Option<Vec<u8>> = conn
            .prepare_cached(&sql)?
            .query_row([rowid], |r| r.get(0))
            .optional()?;
        if let Some(size) = size {
            self.add(&size);
        }
        Ok(())
    }

    /// Count one row of the size `size` (its `_docsize` blob: a varint per column).
    fn add(&mut self, size: &[u8]) {
        self.rows += 1;
        for (total, n) in self.tokens.iter_mut().zip(varints(size)) {
            *total += n;
        }
    }

    /// Take these rows out of `totals` (as [`read_totals`] reads them).
    fn take_out_of(&self, totals: &mut [u64]) {
        let counts = std::iter::once(self.rows).chain(self.tokens);
        for (total, n) in totals.iter_mut().zip(counts) {
            *total = total.saturating_sub(n);
        }
    }

    /// The totals record of a table holding exactly these rows.
    fn as_totals(&self) -> Vec<u64> {
        std::iter::once(self.rows).chain(self.tokens).collect()
    }

    fn is_empty(&self) -> bool {
        self.rows == 0
    }
}

impl Manifest {
    /// Take what `removed` notes out of each table's totals (pairs of table and removal), in
    /// one transaction of its own.
    pub(super) fn settle_search_totals(&mut self, removed: &[(&str, Removed)]) -> Result<()> {
        if removed.iter().all(|(_, r)| r.is_empty()) {
            return Ok(());
        }
        let path = self.path.clone();
        let tx = self.immediate()?;
        for (table, gone) in removed.iter().filter(|(_, r)| !r.is_empty()) {
            let Some(mut totals) = read_totals(&tx, table).at(&path)? else {
                continue;
            };
            gone.take_out_of(&mut totals);
            write_totals(&tx, table, &totals).at(&path)?;
        }
        tx.commit().at(&path)
    }

    /// Count each search table's totals again from its rows' sizes (a manifest an earlier
    /// Sparks kept, whose totals count every row it ever held), and set the `meta` key `mark`.
    pub(super) fn recount_search_totals(&mut self, tables: &[&str], mark: &str) -> Result<()> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        for table in tables {
            if read_totals(&tx, table).at(&path)?.is_none() {
                continue;
            }
            let mut held = Removed::default();
            let sql = format!("SELECT sz FROM \"{table}_docsize\"");
            let mut stmt = tx.prepare(&sql).at(&path)?;
            let mut rows = stmt.query([]).at(&path)?;
            while let Some(row) = rows.next().at(&path)? {
                let size: Vec<u8> = row.get(0).at(&path)?;
                held.add(&size);
            }
            drop(rows);
            drop(stmt);
            write_totals(&tx, table, &held.as_totals()).at(&path)?;
        }
        super::meta::set(&tx, &path, mark, "1")?;
        tx.commit().at(&path)
    }
}

/// A table's totals: its row count, then the tokens of each column. `None` before any row.
fn read_totals(conn: &Connection, table: &str) -> rusqlite::Result<Option<Vec<u64>>> {
    let sql = format!("SELECT block FROM \"{table}_data\" WHERE id = ?1");
    let block: Option<Vec<u8>> = conn
        .query_row(&sql, [TOTALS_ROW], |r| r.get(0))
        .optional()?;
    Ok(block.map(|b| varints(&b).collect()))
}

fn write_totals(conn: &Connection, table: &str, totals: &[u64]) -> rusqlite::Result<()> {
    let mut block = Vec::with_capacity(totals.len() * 3);
    for &n in totals {
        put_varint(n, &mut block);
    }
    let sql = format!("UPDATE \"{table}_data\" SET block = ?2 WHERE id = ?1");
    conn.execute(&sql, rusqlite::params![TOTALS_ROW, block])?;
    Ok(())
}

/// The varints of `bytes`, in SQLite's encoding (big-endian groups of seven bits, the high bit
/// set on all but the last; a ninth byte holds eight), as FTS5 writes sizes and totals.
fn varints(mut bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    std::iter::from_fn(move || {
        let (n, used) = get_varint(bytes)?;
        bytes = &bytes[used..];
        Some(n)
    })
}

fn get_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut n = 0u64;
    for (i, &b) in bytes.iter().take(8).enumerate() {
        n = (n << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            return Some((n, i + 1));
        }
    }
    let last = *bytes.get(8)?;
    Some(((n << 8) | u64::from(last), 9))
}

fn put_varint(mut n: u64, out: &mut Vec<u8>) {
    if n >> 56 != 0 {
        let mut buf = [0u8; 9];
        buf[8] = n as u8;
        n >>= 8;
        for b in buf[..8].iter_mut().rev() {
            *b = (n as u8 & 0x7f) | 0x80;
            n >>= 7;
        }
        out.extend_from_slice(&buf);
        return;
    }
    let mut groups = [0u8; 8];
    let mut len = 0;
    loop {
        groups[len] = (n as u8 & 0x7f) | 0x80;
        len += 1;
        n >>= 7;
        if n == 0 {
            break;
        }
    }
    groups[0] &= 0x7f;
    out.extend(groups[..len].iter().rev());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_read_back_what_was_written() {
        for n in [
            0,
            1,
            127,
            128,
            412,
            16_383,
            16_384,
            1 << 40,
            (1 << 56) - 1,
            1 << 56,
            u64::MAX,
        ] {
            let mut b = Vec::new();
            put_varint(n, &mut b);
            assert_eq!(get_varint(&b), Some((n, b.len())), "{n}");
        }
        // As FTS5 wrote them: five rows, 15 and 412 tokens.
        assert_eq!(
            varints(&[0x05, 0x0f, 0x83, 0x1c]).collect::<Vec<_>>(),
            [5, 15, 412]
        );
        assert_eq!(get_varint(&[0x83]), None, "cut short");
    }

    /// A search table `s` as the manifest makes them, after `ops`.
    fn table_after(ops: &str) -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE VIRTUAL TABLE s USING fts5(title, aliases, tags, headings, body,
             content = '', contentless_delete = 1);",
        )
        .unwrap();
        c.execute_batch(ops).unwrap();
        c
    }

    fn totals_after(ops: &str) -> Vec<u64> {
        read_totals(&table_after(ops), "s").unwrap().unwrap()
    }

    /// What this module exists for: FTS5 itself does not take a deleted row out of its totals
    /// (when SQLite starts to, this test says so and the notes can go).
    #[test]
    fn fts5_counts_deleted_rows_and_a_note_takes_them_out() {
        let insert = "INSERT INTO s (rowid, title, aliases, tags, headings, body) VALUES
                      (1, 'a', '', '', '', 'x y z'), (2, 'b', '', 't', 'h', 'x y');";
        let drifted = totals_after(&format!("{insert} DELETE FROM s WHERE rowid = 2;"));
        assert_eq!(drifted, [2, 2, 0, 1, 1, 5]);

        let c = table_after(insert);
        let mut gone = Removed::default();
        gone.note(&c, "s", 2).unwrap();
        gone.note(&c, "s", 99).unwrap();
        assert_eq!(
            gone,
            Removed {
                rows: 1,
                tokens: [1, 0, 1, 1, 2]
            },
            "a missing row adds nothing"
        );
        c.execute_batch("DELETE FROM s WHERE rowid = 2;").unwrap();
        let mut totals = read_totals(&c, "s").unwrap().unwrap();
        gone.take_out_of(&mut totals);
        write_totals(&c, "s", &totals).unwrap();
        c.execute_batch(
            "INSERT INTO s (rowid, title, aliases, tags, headings, body) VALUES (3, 'c', '', '', '', 'w');",
        )
        .unwrap();
        assert_eq!(
            read_totals(&c, "s").unwrap().unwrap(),
            totals_after(
                "INSERT INTO s (rowid, title, aliases, tags, headings, body) VALUES
                 (1, 'a', '', '', '', 'x y z'), (3, 'c', '', '', '', 'w');"
            ),
            "the same totals as a table that never held the deleted row"
        );
    }
}
