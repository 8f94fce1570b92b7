//! Read-only views for `index` and `affected`: the catalogue of pages, and which files changed
//! since a point in time.

use super::{At, Manifest, Result};
use rusqlite::Row;

/// A live wiki page as the index lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogPage {
    /// Vault-relative path.
    pub path: String,
    /// The frontmatter title, when there is a non-blank one.
    pub title: Option<String>,
    /// The frontmatter type as written, if any.
    pub kind: Option<String>,
}

impl Manifest {
    /// Every live wiki page (with or without frontmatter), by path. A page row exists only for
    /// a live file (the scan removes it with its file), so `files` is not consulted.
    pub fn catalog_pages(&self) -> Result<Vec<CatalogPage>> {
        self.catalog_rows(
            "SELECT p.path, p.title, p.type FROM pages p ORDER BY p.path",
            &[],
            |r| {
                Ok(CatalogPage {
                    path: r.get(0)?,
                    title: r
                        .get::<_, Option<String>>(1)?
                        .filter(|t| !t.trim().is_empty()),
                    kind: r
                        .get::<_, Option<String>>(2)?
                        .filter(|t| !t.trim().is_empty()),
                })
            },
        )
    }

    /// The live wiki pages that may hold an inline Markdown link to a path, by path: those the
    /// scan found one in, and those stored before it looked (schema 13), which may.
    pub fn pages_with_path_links(&self) -> Result<Vec<String>> {
        self.catalog_rows(
            "SELECT path FROM pages INDEXED BY pages_path_links
             WHERE path_links IS NOT 0 ORDER BY path",
            &[],
            |r| r.get(0),
        )
    }

    /// Live files whose content changed after `since_ns` (every live file for `None`), by path.
    pub fn changed_since(&self, since_ns: Option<i64>) -> Result<Vec<String>> {
        // The range on `files_changed`, then a sort of what it found: left to itself, SQLite
        // reads every file in path order to save the sort, which costs what the vault costs.
        self.catalog_rows(
            "SELECT path FROM files INDEXED BY files_changed
             WHERE changed_ns > ?1 AND deleted = 0 ORDER BY path",
            &[&since_ns.unwrap_or(i64::MIN)],
            |r| r.get(0),
        )
    }

    /// Files found deleted after `since_ns` (every deleted file for `None`), by path.
    pub fn deleted_since(&self, since_ns: Option<i64>) -> Result<Vec<String>> {
        self.catalog_rows(
            "SELECT path FROM files INDEXED BY files_changed
             WHERE changed_ns > ?1 AND deleted = 1 ORDER BY path",
            &[&since_ns.unwrap_or(i64::MIN)],
            |r| r.get(0),
        )
    }

    /// The capture dates of the entries ingest `id` archived, ascending, each once.
    pub fn archived_capture_dates(&self, id: i64) -> Result<Vec<String>> {
        self.catalog_rows(
            "SELECT DISTINCT capture_date FROM ingest_entries
             WHERE ingest_id = ?1 AND outcome = 'archive' ORDER BY capture_date",
            &[&id],
            |r| r.get(0),
        )
    }

    fn catalog_rows<T>(
        &self,
        sql: &str,
        args: &[&dyn rusqlite::ToSql],
        map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let mut stmt = self.conn.prepare(sql).at(&self.path)?;
        let rows = stmt.query_map(args, map).at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_manifest_views_are_empty() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let m = Manifest::open(&dir.path().join("sparks.db")).expect("a new manifest");
        assert!(m.catalog_pages().expect("the query runs").is_empty());
        assert!(m.changed_since(None).expect("the query runs").is_empty());
        assert!(m.deleted_since(None).expect("the query runs").is_empty());
        assert!(
            m.archived_capture_dates(1)
                .expect("the query runs")
                .is_empty()
        );
    }
}
