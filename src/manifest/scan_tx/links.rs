//! Link resolution inside the scan: the links whose targets may have changed meaning are
//! resolved again, by the rules of [`crate::manifest::Resolution`].

use super::{Dirty, ScanTx};
use crate::manifest::links::{InMemory, resolve_key};
use crate::manifest::{At, LinkStatus, Resolution, Result};
use crate::progress::Phase;
use rusqlite::params;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// Links read and resolved at a time when every link is resolved afresh.
const RESOLVE_SLICE: i64 = 8192;

/// A link's resolution as stored: `status`, `resolved`, `candidates`.
type Stored = (LinkStatus, Option<String>, i64);

/// The columns that store a resolution.
fn stored(r: Resolution) -> Stored {
    match r {
        Resolution::Resolved(p) => (LinkStatus::Resolved, Some(p), 1),
        Resolution::Broken => (LinkStatus::Broken, None, 0),
        Resolution::Ambiguous(n) => (LinkStatus::Ambiguous, None, n as i64),
    }
}

impl ScanTx<'_> {
    /// Resolve the links whose targets may have changed meaning: new links, and links whose
    /// key is in `dirty`; or every link when `all` is set. Returns how many targets it resolved.
    pub fn resolve(&self, dirty: &Dirty, all: bool) -> Result<usize> {
        if all {
            return self.resolve_every_link();
        }
        // Each key, and whether every link to it is resolved again (its meaning may have
        // changed) or only its new links (those still `pending`).
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
        let keys: Vec<(String, bool)> = changed
            .into_iter()
            .map(|k| (k, true))
            .chain(new_only)
            .collect();
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
            let (status, resolved, candidates) = stored(resolve_key(&*self.tx, k).at(&self.path)?);
            let stmt = if *all_rows { &mut every } else { &mut new };
            stmt.execute(params![k, status, resolved, candidates])
                .at(&self.path)?;
        }
        Ok(keys.len())
    }

    /// Resolve every link afresh (a first scan, a full one): the names are read into memory
    /// once, each key is resolved once, and the links are visited in table order, a slice at a
    /// time, each written only if its resolution changed. Neither visiting nor writing needs
    /// an index, so a first scan can build them all after this (see `bulk`). Returns how
    /// many distinct targets it resolved.
    fn resolve_every_link(&self) -> Result<usize> {
        let names = InMemory::load(&self.tx).at(&self.path)?;
        let last: i64 = self
            .tx
            .query_row("SELECT coalesce(max(rowid), 0) FROM links", [], |r| {
                r.get(0)
            })
            .at(&self.path)?;
        self.progress
            .phase(Phase::Resolving, Some(u64::try_from(last).unwrap_or(0)));
        // A link to a heading of its own page (`[[#H]]`, no target) was resolved when stored.
        let mut read = self
            .tx
            .prepare_cached(
                "SELECT rowid, target_key, status, resolved, candidates FROM links
                 WHERE rowid > ?1 AND target <> '' ORDER BY rowid LIMIT ?2",
            )
            .at(&self.path)?;
        let mut write = self
            .tx
            .prepare_cached(
                "UPDATE links SET status = ?2, resolved = ?3, candidates = ?4 WHERE rowid = ?1",
            )
            .at(&self.path)?;
        let mut known: HashMap<String, Stored> = HashMap::new();
        let mut after = 0i64;
        loop {
            let slice = read
                .query_map(params![after, RESOLVE_SLICE], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        (
                            r.get::<_, LinkStatus>(2)?,
                            r.get::<_, Option<String>>(3)?,
                            r.get::<_, i64>(4)?,
                        ),
                    ))
                })
                .at(&self.path)?
                .collect::<rusqlite::Result<Vec<_>>>()
                .at(&self.path)?;
            let Some(&(end, _, _)) = slice.last() else {
                break;
            };
            for (rowid, k, now) in slice {
                let want = match known.entry(k) {
                    Entry::Occupied(e) => e.into_mut(),
                    Entry::Vacant(e) => {
                        let want = stored(resolve_key(&names, e.key()).at(&self.path)?);
                        e.insert(want)
                    }
                };
                if now != *want {
                    write
                        .execute(params![rowid, want.0, want.1, want.2])
                        .at(&self.path)?;
                }
            }
            self.progress
                .advance(u64::try_from(end - after).unwrap_or(0));
            after = end;
        }
        Ok(known.len())
    }

    fn collect(&self, sql: &str, args: &[&str]) -> Result<Vec<String>> {
        let mut stmt = self.tx.prepare_cached(sql).at(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(0))
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }
}
