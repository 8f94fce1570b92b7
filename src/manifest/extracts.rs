//! The `extracts` table: what each collection extractor found in a source file, with the
//! content hash it was found in, so that regenerating a collection reads again only the files
//! that changed since ([`crate::collections`] decides what is found; this file only stores it).

use super::{At, Manifest, Result};
use rusqlite::{TransactionBehavior, params};

/// A live file under a prefix, with what an extractor found in it before, if that still holds.
#[derive(Debug, Clone)]
pub struct Extract {
    /// Vault-relative path.
    pub path: String,
    /// What the extractor found (JSON), when it was found in the file's current content by
    /// this build.
    pub data: Option<String>,
}

/// What an extractor found in a file just read: to keep for the next run.
#[derive(Debug, Clone)]
pub struct Fresh {
    /// The extractor.
    pub kind: &'static str,
    /// Vault-relative path.
    pub path: String,
    /// blake3 of the content it was found in.
    pub hash: String,
    /// What was found (JSON).
    pub data: String,
}

/// The meta key naming the build whose findings the table holds.
const BUILD_KEY: &str = "extracts_build";

impl Manifest {
    /// Every live file whose path starts with `prefix`, by path, with what extractor `kind` of
    /// `build` found in its current content, if anything was kept.
    pub fn extracts(&self, kind: &str, prefix: &str, build: &str) -> Result<Vec<Extract>> {
        // A range on the primary key: the files under the prefix, not every file. `prefix`
        // followed by U+10FFFF is above every path that starts with it.
        let end = format!("{prefix}\u{10FFFF}");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT f.path, e.data FROM files f
                 LEFT JOIN extracts e
                   ON e.kind = ?3 AND e.path = f.path AND e.hash = f.hash AND e.build = ?4
                 WHERE f.path >= ?1 AND f.path < ?2 AND f.deleted = 0
                 ORDER BY f.path",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map(params![prefix, end, kind, build], |r| {
                Ok(Extract {
                    path: r.get(0)?,
                    data: r.get(1)?,
                })
            })
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }

    /// Keep what `build` found, in one transaction; the findings of another build are dropped
    /// first. A manifest nobody may write to keeps nothing, and says nothing: this is a cache.
    pub fn keep_extracts(&self, build: &str, fresh: &[Fresh]) -> Result<()> {
        if fresh.is_empty() || self.is_read_only() {
            return Ok(());
        }
        let path = &self.path;
        // On a shared borrow: regen keeps its findings while it holds the manifest to read.
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .at(path)?;
        let stored: Option<String> = tx
            .query_row("SELECT value FROM meta WHERE key = ?1", [BUILD_KEY], |r| {
                r.get(0)
            })
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .at(path)?;
        if stored.as_deref() != Some(build) {
            tx.execute("DELETE FROM extracts", []).at(path)?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [BUILD_KEY, build],
            )
            .at(path)?;
        }
        {
            let mut ins = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO extracts (kind, path, hash, build, data)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .at(path)?;
            for f in fresh {
                ins.execute(params![f.kind, f.path, f.hash, build, f.data])
                    .at(path)?;
            }
        }
        tx.commit().at(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_holds_for_the_content_and_build_it_was_made_from() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let m = Manifest::open(&dir.path().join("sparks.db")).expect("a new manifest");
        m.conn
            .execute_batch(
                "INSERT INTO files (path, name_key, name_loose, path_key, size, mtime_ns, ctime_ns,
                                    inode, hash, clock_ns, changed_ns)
                 VALUES ('raw/quotes/a.md', 'a', 'a', 'raw/quotes/a', 1, 1, 1, 1, 'h1', 2, 1),
                        ('raw/quotes/b.md', 'b', 'b', 'raw/quotes/b', 1, 1, 1, 1, 'h2', 2, 1),
                        ('raw/quotesx.md', 'q', 'q', 'raw/quotesx', 1, 1, 1, 1, 'h3', 2, 1);",
            )
            .expect("rows");
        let fresh = |path: &str, hash: &str| Fresh {
            kind: "quotes",
            path: path.into(),
            hash: hash.into(),
            data: format!("[{path:?}]"),
        };
        m.keep_extracts(
            "b1",
            &[
                fresh("raw/quotes/a.md", "h1"),
                fresh("raw/quotes/b.md", "old"),
            ],
        )
        .expect("kept");
        let got = m.extracts("quotes", "raw/quotes/", "b1").expect("read");
        let got: Vec<(&str, Option<&str>)> = got
            .iter()
            .map(|e| (e.path.as_str(), e.data.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("raw/quotes/a.md", Some("[\"raw/quotes/a.md\"]")),
                ("raw/quotes/b.md", None)
            ],
            "b's finding came from other content; raw/quotesx.md is not under the prefix"
        );
        assert!(
            m.extracts("quotes", "raw/quotes/", "b2").expect("read")[0]
                .data
                .is_none(),
            "another build's finding is not used"
        );
        m.keep_extracts("b2", &[fresh("raw/quotes/b.md", "h2")])
            .expect("kept");
        let n: i64 = m
            .conn
            .query_row("SELECT count(*) FROM extracts", [], |r| r.get(0))
            .expect("count");
        assert_eq!(n, 1, "a new build drops the old build's findings");
    }
}
