//! Filling an empty manifest (a first scan, `scan --rebuild`): every row is new, so the scan
//! sets aside the secondary indexes and the triggers of the tables it writes, and builds each
//! index once, from the finished rows, when it commits.
//!
//! Kept row by row, those indexes were written in file order, not key order (a random page of
//! each per row, spilled from the cache again and again), and each trigger made its insert a
//! statement of several writes with a statement journal of its own (with the link resolution
//! written per key, a first scan at 10,000 pages took 4.9 s; this way, 2.9 s by hand).
//! `CREATE INDEX` sorts instead; what the triggers keep (`tallies`,
//! `page_sources`, schema 7) is counted in one statement each. All of it happens inside the
//! scan's transaction: another process never sees the manifest without its indexes, and an
//! interrupted scan leaves it as it was.

use super::ScanTx;
use super::search::SEARCH_TABLES;
use crate::manifest::{At, Result};

/// The tables a scan writes, whose indexes and triggers a first scan sets aside.
const TABLES: &[&str] = &[
    "files",
    "pages",
    "tags",
    "aliases",
    "links",
    "headings",
    "blocks",
    "page_sources",
];

/// What the triggers of `files` and `pages` keep, computed from the finished rows (the same
/// definitions as the triggers of migration 0007).
const DERIVED: &str = "
DELETE FROM tallies;
INSERT INTO tallies (key, n)
    SELECT 'files', count(*) FROM files WHERE deleted = 0
    UNION ALL SELECT 'deleted', count(*) FROM files WHERE deleted = 1
    UNION ALL SELECT 'pages', count(*) FROM pages
    UNION ALL SELECT 'type:' || type, count(*) FROM pages
              WHERE type IS NOT NULL AND type <> '' GROUP BY type;
DELETE FROM page_sources;
INSERT OR REPLACE INTO page_sources (path, seq, source)
    SELECT p.path, s.key,
           CASE WHEN substr(s.value, 1, 2) = './' THEN substr(s.value, 3) ELSE s.value END
    FROM pages p, json_each(p.sources) s WHERE json_valid(p.sources) AND s.type = 'text';
";

/// FTS5's defaults for merging segments, restored after a first scan.
const AUTOMERGE: u32 = 4;
const CRISISMERGE: u32 = 16;
/// Segments a search table may gather before FTS5 merges them anyway, while a first scan
/// fills it: more than it writes (one per 4 MB batch of text).
const MAX_SEGMENTS: u32 = 1000;

/// An index or trigger set aside: its name and the SQL that creates it again.
#[derive(Debug)]
pub(super) struct SetAside {
    kind: &'static str,
    name: String,
    sql: String,
}

impl ScanTx<'_> {
    /// The manifest holds no file: set aside the indexes and triggers of the tables the scan
    /// writes until [`ScanTx::commit`]. The definitions come from the schema itself, so a
    /// migration that adds an index needs nothing here.
    pub fn fill_empty(&mut self) -> Result<()> {
        let list = TABLES
            .iter()
            .map(|t| format!("'{t}'"))
            .collect::<Vec<_>>()
            .join(", ");
        // Autoindexes (primary keys) have no SQL and stay: the scan looks rows up by them.
        let sql = format!(
            "SELECT type, name, sql FROM sqlite_master
             WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name IN ({list})
             ORDER BY type, name"
        );
        let found = {
            let mut stmt = self.tx.prepare(&sql).at(&self.path)?;
            let rows = stmt
                .query_map([], |r| {
                    let kind: String = r.get(0)?;
                    Ok(SetAside {
                        kind: if kind == "trigger" {
                            "TRIGGER"
                        } else {
                            "INDEX"
                        },
                        name: r.get(1)?,
                        sql: r.get(2)?,
                    })
                })
                .at(&self.path)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)?
        };
        for item in &found {
            self.tx
                .execute_batch(&format!("DROP {} \"{}\"", item.kind, item.name))
                .at(&self.path)?;
        }
        self.set_aside = found;
        // FTS5 writes its index as segments and merges them as they accumulate: filled in one
        // go, the same terms would be merged again at every level. Merged once, at the end.
        for table in SEARCH_TABLES {
            self.tx
                .execute_batch(&format!(
                    "INSERT INTO {table} ({table}, rank) VALUES ('automerge', 0);
                     INSERT INTO {table} ({table}, rank) VALUES ('crisismerge', {MAX_SEGMENTS});"
                ))
                .at(&self.path)?;
        }
        Ok(())
    }

    /// Build the indexes set aside, count what their triggers keep, and put the triggers back.
    pub(super) fn restore_set_aside(&self) -> Result<()> {
        if self.set_aside.is_empty() {
            return Ok(());
        }
        for table in SEARCH_TABLES {
            self.tx
                .execute_batch(&format!(
                    "INSERT INTO {table} ({table}) VALUES ('optimize');
                     INSERT INTO {table} ({table}, rank) VALUES ('automerge', {AUTOMERGE});
                     INSERT INTO {table} ({table}, rank) VALUES ('crisismerge', {CRISISMERGE});"
                ))
                .at(&self.path)?;
        }
        self.tx.execute_batch(DERIVED).at(&self.path)?;
        for item in self.set_aside.iter().filter(|i| i.kind == "INDEX") {
            self.tx.execute_batch(&item.sql).at(&self.path)?;
        }
        for item in self.set_aside.iter().filter(|i| i.kind == "TRIGGER") {
            self.tx.execute_batch(&item.sql).at(&self.path)?;
        }
        Ok(())
    }
}
