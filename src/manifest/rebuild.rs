//! What `scan --rebuild` carries over from the manifest it sets aside: the history of ingests
//! (what each batch held and did, the contents a revert puts back, the latest snapshot of the
//! wiki), which no file holds and a new scan cannot find again. Everything else the scan
//! rebuilds from the files.

use super::{At, Manifest, Result, uri_path};
use std::path::Path;

/// The tables of the history, parents first, and the `meta` keys it needs.
const TABLES: &[&str] = &[
    "ingests",
    "ingest_entries",
    "ingest_provenance",
    "ingest_pages",
    "page_blobs",
    "wiki_snapshot",
    "wiki_lint_before",
    "ingest_origins",
];
const META_KEYS: &[&str] = &["snapshot_ingest", super::imported::WALKED];

impl Manifest {
    /// Copy the history of ingests from the manifest at `old` (brought to this schema first)
    /// into this one, which a rebuild has just created. Returns how many ingests it holds.
    pub fn import_history(&mut self, old: &Path) -> Result<usize> {
        // Migrated on its own connection, so that its columns are this schema's.
        drop(Manifest::open(old)?);
        let path = self.path.clone();
        self.conn
            .execute(
                "ATTACH DATABASE ?1 AS old",
                [format!("file:{}?mode=ro", uri_path(old))],
            )
            .at(&path)?;
        let copied = self.copy_history();
        let detached = self.conn.execute("DETACH DATABASE old", []).at(&path);
        let n = copied?;
        detached?;
        Ok(n)
    }

    fn copy_history(&mut self) -> Result<usize> {
        let path = self.path.clone();
        let tx = self.immediate()?;
        for table in TABLES {
            tx.execute(
                &format!("INSERT OR IGNORE INTO main.{table} SELECT * FROM old.{table}"),
                [],
            )
            .at(&path)?;
        }
        for key in META_KEYS {
            tx.execute(
                "INSERT OR REPLACE INTO main.meta SELECT * FROM old.meta WHERE key = ?1",
                [key],
            )
            .at(&path)?;
        }
        // A snapshot's generation counts the old manifest's scans: without one, finalize
        // compares the open ingest's snapshot with every page.
        tx.execute("UPDATE ingest_provenance SET snapshot_gen = NULL", [])
            .at(&path)?;
        let n: i64 = tx
            .query_row("SELECT count(*) FROM ingests", [], |r| r.get(0))
            .at(&path)?;
        tx.commit().at(&path)?;
        Ok(n as usize)
    }
}
