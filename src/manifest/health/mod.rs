//! The manifest side of `lint` and `brief`: set-based queries, one statement per check; the
//! source checks read rows only (`sources.rs`), and `lint` judges them. Each family has its
//! file: links that do not lead where they say (`links.rs`), names several pages claim
//! (`names.rs`), the pages' stored frontmatter (`records.rs`), the pages' sources and the
//! live files (`sources.rs`); here, the scope of a query and the page checks.

mod links;
mod names;
mod records;
mod sources;
#[cfg(test)]
mod tests;

pub use links::{BrokenFragment, LinkFinding, UnresolvedLink};
pub use names::Claim;
pub use records::PageRecord;
pub use sources::{Cited, LiveFiles};

use super::{At, Manifest, Result, sql};
use std::ops::ControlFlow;

/// Which pages a health query reports on: all of them, or only these (the pages an ingest
/// touched, whose issues are all its lint delta needs).
#[derive(Debug, Clone, Copy)]
pub enum Pages<'a> {
    /// Every page.
    All,
    /// Only the pages at these vault-relative paths.
    Only(&'a [String]),
}

impl Pages<'_> {
    /// `AND <column> IN (the pages)`, or nothing; the pages are the statement's parameter
    /// `?1` (see [`Pages::param`]).
    fn and_in(self, column: &str) -> String {
        match self {
            Pages::All => String::new(),
            Pages::Only(_) => format!(" AND {column} IN (SELECT value FROM json_each(?1))"),
        }
    }

    /// The statement's parameters: the pages as a JSON array, or none.
    fn param(self) -> Vec<String> {
        match self {
            Pages::All => Vec::new(),
            Pages::Only(paths) => vec![serde_json::to_string(paths).unwrap_or_default()],
        }
    }
}

impl Manifest {
    /// Every row of the statement `sql`, whose parameter is `scope`'s pages ([`Pages::and_in`]),
    /// each made by `row`.
    fn scoped_rows<T>(
        &self,
        sql: &str,
        scope: Pages<'_>,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let mut stmt = self.conn.prepare(sql).at(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(scope.param()), row)
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }
}

fn paths(m: &Manifest, q: &str) -> Result<Vec<(String, String)>> {
    let mut stmt = m.conn.prepare(q).at(&m.path)?;
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            ))
        })
        .at(&m.path)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().at(&m.path)
}

/// `give` the path in the first column of each row of `q`, as it is read, until it breaks.
fn each_path(m: &Manifest, q: &str, give: &mut dyn FnMut(String) -> ControlFlow<()>) -> Result<()> {
    let mut stmt = m.conn.prepare(q).at(&m.path)?;
    let mut rows = stmt.query([]).at(&m.path)?;
    while let Some(r) = rows.next().at(&m.path)? {
        if give(r.get(0).at(&m.path)?).is_break() {
            break;
        }
    }
    Ok(())
}

impl Manifest {
    /// The live files that are conflict copies a sync left ([`crate::vault::is_conflict_copy`]),
    /// by path. Their own index is read (schema 15), not the table: a copy's name key holds
    /// ` (conflict `, and the names are judged here. As cheap at 100,000 files as at 10, so
    /// that `status` can list them.
    pub fn conflict_copies(&self) -> Result<Vec<String>> {
        let q = "SELECT path, NULL FROM files INDEXED BY files_copies
                 WHERE deleted = 0 AND name_key LIKE '% (conflict %' ORDER BY path";
        Ok(paths(self, q)?
            .into_iter()
            .map(|(p, _)| p)
            .filter(|p| crate::vault::is_conflict_copy(p))
            .collect())
    }

    /// The conflict copies of the file at `original` (vault-relative), by path: the live files
    /// beside it named `<stem> (conflict …)<ext>`, found by their path's range, not by reading
    /// every name.
    pub fn conflict_copies_of(&self, original: &str) -> Result<Vec<String>> {
        let (dir, name) = original.rsplit_once('/').unwrap_or(("", original));
        let stem = match name.rfind('.') {
            Some(i) if i > 0 => &name[..i],
            _ => name,
        };
        let dir = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        // Every name that starts `<stem> (conflict ` sorts from that text to the same with its
        // last character's successor (a space's is `!`).
        let low = format!("{dir}{stem} (conflict ");
        let high = format!("{dir}{stem} (conflict!");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT path FROM files WHERE path >= ?1 AND path < ?2 AND deleted = 0
                 ORDER BY path",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([&low, &high], |r| r.get::<_, String>(0))
            .at(&self.path)?;
        let found = rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)?;
        Ok(found
            .into_iter()
            .filter(|p| crate::vault::conflict_copy(p).is_some_and(|c| c.original == original))
            .collect())
    }

    /// The live files that hold git's conflict markers, with the line of the first (as the
    /// scan noted it: [`crate::markers`]), by path.
    pub fn files_with_markers(&self) -> Result<Vec<(String, usize)>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT path, markers FROM files
                 WHERE markers > 0 AND deleted = 0 ORDER BY path",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .at(&self.path)?;
        let found = rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)?;
        Ok(found
            .into_iter()
            .map(|(p, line)| (p, usize::try_from(line).unwrap_or(0)))
            .collect())
    }

    /// Pages no other page links to (system pages excluded).
    pub fn orphan_pages(&self) -> Result<Vec<String>> {
        let q = format!(
            "SELECT p.path, NULL FROM pages p WHERE {} AND NOT {} ORDER BY p.path",
            sql::ORPHAN,
            sql::SYSTEM_PAGE
        );
        Ok(paths(self, &q)?.into_iter().map(|(p, _)| p).collect())
    }

    /// `give` each seed page no other page links to, by path, as it is read, until it breaks.
    pub fn each_seed_orphan(&self, give: &mut dyn FnMut(String) -> ControlFlow<()>) -> Result<()> {
        let q = format!(
            "SELECT p.path FROM pages p WHERE p.maturity = 'seed' AND {} AND NOT {} ORDER BY p.path",
            sql::ORPHAN,
            sql::SYSTEM_PAGE
        );
        each_path(self, &q, give)
    }

    /// The paths of the pages of [`Manifest::thin_pages`], by path, as they are read, until
    /// `give` breaks.
    pub fn each_thin(
        &self,
        below: usize,
        give: &mut dyn FnMut(String) -> ControlFlow<()>,
    ) -> Result<()> {
        let q = format!(
            "SELECT p.path FROM pages p WHERE {} AND NOT {} ORDER BY p.path",
            sql::thin(below),
            sql::SYSTEM_PAGE
        );
        each_path(self, &q, give)
    }

    /// Pages with fewer than `below` sentences of prose, with their sentence counts (system
    /// pages excluded): the one thin rule of `lint`, `brief` and `query --thin`.
    pub fn thin_pages(&self, below: usize) -> Result<Vec<(String, usize)>> {
        let q = format!(
            "SELECT p.path, CAST(p.sentences AS TEXT) FROM pages p WHERE {} AND NOT {} ORDER BY p.path",
            sql::thin(below),
            sql::SYSTEM_PAGE
        );
        Ok(paths(self, &q)?
            .into_iter()
            .map(|(p, w)| (p, w.parse().unwrap_or(0)))
            .collect())
    }
}
