//! Full-text search over the FTS5 tables that `scan` maintains: one contentless word index per
//! scope (`search_wiki`, `search_raw`), keyed by the file's rowid in `files`. Building the
//! expressions and cutting snippets is [`crate::search`]'s job; this module only asks the
//! indexes.

use super::{At, Manifest, Result};
use std::collections::HashSet;

/// Which files to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Wiki pages.
    Wiki,
    /// Raw files.
    Raw,
    /// Both.
    All,
}

impl Scope {
    fn tables(self) -> &'static [&'static str] {
        match self {
            Scope::Wiki => &["search_wiki"],
            Scope::Raw => &["search_raw"],
            Scope::All => &["search_wiki", "search_raw"],
        }
    }
}

/// Matching files, by rowid ascending, with their scores (lower is better, as FTS5's bm25). A
/// sorted list, not a map: a common word matches most of a vault, and merging sorted lists
/// costs less than hashing every match.
pub type Scores = Vec<(i64, f64)>;

/// A search hit, described.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Hit {
    /// Vault-relative path.
    pub path: String,
    /// `wiki` or `raw`.
    pub scope: String,
    /// The page's title, if it has one.
    pub title: Option<String>,
    /// The page's type, if any.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Relevance (higher is better).
    pub score: f64,
    /// A short extract with the match marked `**like this**`.
    pub snippet: String,
}

impl Manifest {
    /// Files matching an FTS5 expression, with scores. Title matches weigh 10, aliases 8,
    /// tags 5, body 1.
    pub fn search_match(&self, expr: &str, scope: Scope) -> Result<Scores> {
        let mut out = Scores::new();
        self.search_each(expr, scope, &mut |row| out.push(row))?;
        // Each table answers in rowid order; two tables need merging.
        if !out.is_sorted_by_key(|r| r.0) {
            out.sort_unstable_by_key(|r| r.0);
        }
        Ok(out)
    }

    /// [`Manifest::search_match`]'s matches handed to `each` as they are read (by rowid within
    /// each table, the tables one after the other), for a caller that keeps only the best.
    pub fn search_each(
        &self,
        expr: &str,
        scope: Scope,
        each: &mut dyn FnMut((i64, f64)),
    ) -> Result<()> {
        for table in scope.tables() {
            let sql = format!(
                "SELECT rowid, bm25({table}, 10.0, 8.0, 5.0, 1.0) FROM {table} WHERE {table} MATCH ?1"
            );
            let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
            let mut rows = stmt.query([expr]).at(&self.path)?;
            while let Some(r) = rows.next().at(&self.path)? {
                each((r.get(0).at(&self.path)?, r.get(1).at(&self.path)?));
            }
        }
        Ok(())
    }

    /// The rowids of the files whose page has the type and the tag asked for.
    pub fn search_allowed(&self, kind: Option<&str>, tag: Option<&str>) -> Result<HashSet<i64>> {
        let tag = tag.map(|t| crate::key::key(t.trim_start_matches('#')));
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT f.rowid FROM pages p JOIN files f ON f.path = p.path
                 WHERE (?1 IS NULL OR p.type = ?1)
                   AND (?2 IS NULL OR p.path IN (SELECT t.path FROM tags t WHERE t.tag_key = ?2))",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params![kind, tag], |r| r.get::<_, i64>(0))
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }

    /// The path of the file with this rowid, with its page's title and type. The snippet is
    /// left empty: it is cut from the file by the caller.
    pub fn search_hit(&self, rowid: i64, score: f64) -> Result<Option<Hit>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT f.path, p.title, p.type FROM files f LEFT JOIN pages p ON p.path = f.path
                 WHERE f.rowid = ?1 AND f.deleted = 0",
            )
            .at(&self.path)?;
        let mut rows = stmt.query([rowid]).at(&self.path)?;
        let Some(r) = rows.next().at(&self.path)? else {
            return Ok(None);
        };
        let path: String = r.get(0).at(&self.path)?;
        Ok(Some(Hit {
            scope: if path.starts_with("wiki/") {
                "wiki"
            } else {
                "raw"
            }
            .into(),
            path,
            title: r.get(1).at(&self.path)?,
            kind: r.get(2).at(&self.path)?,
            score: -score,
            snippet: String::new(),
        }))
    }
}
