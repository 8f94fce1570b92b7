//! Counts for `status`.

use super::{At, Manifest, Result};

/// Pages of one `type:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeCount {
    /// The type as written in frontmatter.
    pub kind: String,
    /// How many live pages have it.
    pub count: u64,
}

/// Manifest counts.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    /// Live files.
    pub tracked: u64,
    /// Live files whose content changed after the last completed ingest (all, without one).
    pub changed_since_ingest: u64,
    /// Files the latest scan did not find.
    pub deleted: u64,
    /// Live wiki pages by type, most common first; pages without a type are not counted.
    pub pages_by_type: Vec<TypeCount>,
    /// Live wiki Markdown files, with or without frontmatter.
    pub pages: u64,
}

impl Manifest {
    /// Count files and pages.
    pub fn counts(&self, since_ns: Option<i64>) -> Result<Counts> {
        // One pass over `files` for all three counts.
        let (tracked, changed_since_ingest, deleted): (i64, i64, i64) = self
            .conn
            .query_row(
                "SELECT coalesce(sum(deleted = 0), 0), coalesce(sum(deleted = 0 AND changed_ns > ?1), 0),
                        coalesce(sum(deleted = 1), 0)
                 FROM files",
                [since_ns.unwrap_or(i64::MIN)],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .at(&self.path)?;
        let pages: i64 = self
            .conn
            .query_row("SELECT count(*) FROM pages", [], |r| r.get(0))
            .at(&self.path)?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT type, count(*) FROM pages WHERE type IS NOT NULL AND type <> ''
                 GROUP BY type ORDER BY count(*) DESC, type",
            )
            .at(&self.path)?;
        let pages_by_type = stmt
            .query_map([], |r| {
                Ok(TypeCount {
                    kind: r.get(0)?,
                    count: r.get::<_, i64>(1)? as u64,
                })
            })
            .at(&self.path)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .at(&self.path)?;
        Ok(Counts {
            tracked: tracked as u64,
            changed_since_ingest: changed_since_ingest as u64,
            deleted: deleted as u64,
            pages: pages as u64,
            pages_by_type,
        })
    }
}
