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
        let one = |sql: &str, arg: i64| -> Result<u64> {
            self.conn
                .query_row(sql, [arg], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .at(&self.path)
        };
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
            tracked: one(
                "SELECT count(*) FROM files WHERE deleted = 0 AND ?1 = ?1",
                0,
            )?,
            changed_since_ingest: one(
                "SELECT count(*) FROM files WHERE deleted = 0 AND changed_ns > ?1",
                since_ns.unwrap_or(i64::MIN),
            )?,
            deleted: one(
                "SELECT count(*) FROM files WHERE deleted = 1 AND ?1 = ?1",
                0,
            )?,
            pages: one("SELECT count(*) FROM pages WHERE ?1 = ?1", 0)?,
            pages_by_type,
        })
    }
}
