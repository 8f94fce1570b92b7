//! Link resolution inside the scan: the links whose targets may have changed meaning are
//! resolved again, by the rules of [`crate::manifest::Resolution`].

use super::{Dirty, ScanTx};
use crate::manifest::links::{Candidates, InMemory, resolve_key};
use crate::manifest::{At, Resolution, Result};
use crate::progress::Phase;
use rusqlite::params;

impl ScanTx<'_> {
    /// Resolve the links whose targets may have changed meaning: new links, and links whose
    /// key is in `dirty`; or every link when `all` is set. Returns how many targets it resolved.
    pub fn resolve(&self, dirty: &Dirty, all: bool) -> Result<usize> {
        // Each key, and whether every link to it is resolved again (its meaning may have
        // changed) or only its new links (those still `pending`).
        let keys: Vec<(String, bool)> = if all {
            // In the order of the `links_target_key` index: no temporary table of every key.
            // The empty key is a link to a heading of its own page unless some other target
            // folds to it.
            let mut keys = self.collect("SELECT DISTINCT target_key FROM links", &[])?;
            let blank = self.collect(
                "SELECT target_key FROM links WHERE target_key = '' AND target <> '' LIMIT 1",
                &[],
            )?;
            if blank.is_empty() {
                keys.retain(|k| !k.is_empty());
            }
            keys.into_iter().map(|k| (k, true)).collect()
        } else {
            self.tx
                .execute_batch(
                    "CREATE TEMP TABLE IF NOT EXISTS dirty (key TEXT PRIMARY KEY);
                     DELETE FROM temp.dirty;",
                )
                .at(&self.path)?;
            let mut ins = self
                .tx
                .prepare_cached("INSERT OR IGNORE INTO temp.dirty (key) VALUES (?1)")
                .at(&self.path)?;
            for k in dirty {
                ins.execute([k]).at(&self.path)?;
            }
            let changed: std::collections::BTreeSet<String> = self
                .collect(
                    "SELECT target_key FROM links WHERE name_key IN (SELECT key FROM temp.dirty)
                     UNION SELECT target_key FROM links WHERE target_key IN (SELECT key FROM temp.dirty)",
                    &[],
                )?
                .into_iter()
                .collect();
            // `status <> 'resolved'` repeats the partial index's condition, which SQLite
            // must see to use it: without it, finding the new links read every link.
            let pending = self.collect(
                "SELECT DISTINCT target_key FROM links
                 WHERE status = 'pending' AND status <> 'resolved'",
                &[],
            )?;
            let new_only: Vec<(String, bool)> = pending
                .into_iter()
                .filter(|k| !changed.contains(k))
                .map(|k| (k, false))
                .collect();
            changed
                .into_iter()
                .map(|k| (k, true))
                .chain(new_only)
                .collect()
        };
        // Resolving every key asks the same few tables thousands of times: read them once.
        let everything;
        let source: &dyn Candidates = if all {
            everything = InMemory::load(&self.tx).at(&self.path)?;
            &everything
        } else {
            &*self.tx
        };
        // Only the rows whose resolution changes are written: a page with thousands of
        // backlinks, edited, would otherwise rewrite every one of them and their index
        // entries; and a key only new links name leaves its other links alone.
        let mut every = self
            .tx
            .prepare_cached(
                "UPDATE links SET status = ?2, resolved = ?3, candidates = ?4
                 WHERE target_key = ?1 AND target <> ''
                   AND (status IS NOT ?2 OR resolved IS NOT ?3 OR candidates IS NOT ?4)",
            )
            .at(&self.path)?;
        let mut new = self
            .tx
            .prepare_cached(
                "UPDATE links INDEXED BY links_status
                 SET status = ?2, resolved = ?3, candidates = ?4
                 WHERE status = 'pending' AND status <> 'resolved' AND target_key = ?1
                   AND target <> ''",
            )
            .at(&self.path)?;
        self.progress
            .phase(Phase::Resolving, Some(keys.len() as u64));
        for (k, all_rows) in &keys {
            self.progress.advance(1);
            let (status, resolved, candidates) = match resolve_key(source, k).at(&self.path)? {
                Resolution::Resolved(p) => ("resolved", Some(p), 1),
                Resolution::Broken => ("broken", None, 0),
                Resolution::Ambiguous(n) => ("ambiguous", None, n),
            };
            let stmt = if *all_rows { &mut every } else { &mut new };
            stmt.execute(params![k, status, resolved, candidates as i64])
                .at(&self.path)?;
        }
        Ok(keys.len())
    }

    fn collect(&self, sql: &str, args: &[&str]) -> Result<Vec<String>> {
        let mut stmt = self.tx.prepare_cached(sql).at(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(0))
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }
}
