//! Full-text search over the FTS5 tables that `scan` maintains: one statement per query
//! atom, each answered by an index.

use super::{At, Manifest, Result};
use std::collections::HashMap;

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
    fn sql(self) -> &'static str {
        match self {
            Scope::Wiki => "AND scope = 'wiki'",
            Scope::Raw => "AND scope = 'raw'",
            Scope::All => "",
        }
    }
}

/// How an atom is looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// An FTS5 expression on the word index.
    Words(String),
    /// An FTS5 expression on the trigram index.
    Trigrams(String),
    /// A substring too short for trigrams (e.g. two CJK characters).
    Substring(String),
}

/// A matching file, by rowid, with its score (lower is better, as FTS5's bm25).
pub type Scores = HashMap<i64, f64>;

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
    /// Files matching one atom, with scores. Title matches weigh 10, aliases 8, tags 5,
    /// body 1.
    pub fn search_atom(&self, lookup: &Lookup, scope: Scope) -> Result<Scores> {
        let (sql, arg) = match lookup {
            Lookup::Words(expr) => (
                format!(
                    "SELECT rowid, bm25(search_words, 0.0, 10.0, 8.0, 5.0, 1.0) FROM search_words
                     WHERE search_words MATCH ?1 {}",
                    scope.sql()
                ),
                expr.clone(),
            ),
            Lookup::Trigrams(expr) => (
                format!(
                    "SELECT rowid, bm25(search_tri, 0.0, 10.0, 8.0, 1.0) FROM search_tri
                     WHERE search_tri MATCH ?1 {}",
                    scope.sql()
                ),
                expr.clone(),
            ),
            Lookup::Substring(s) => (
                format!(
                    "SELECT rowid, CASE WHEN instr(lower(title), ?1) > 0 THEN -10.0
                                        WHEN instr(lower(aliases), ?1) > 0 THEN -8.0 ELSE -1.0 END
                     FROM search_tri WHERE (instr(lower(title), ?1) > 0 OR instr(lower(aliases), ?1) > 0
                                            OR instr(lower(body), ?1) > 0) {}",
                    scope.sql()
                ),
                s.to_lowercase(),
            ),
        };
        let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
        let rows = stmt
            .query_map([arg], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?)))
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<Scores>>().at(&self.path)
    }

    /// Of these rowids, those whose page has the type and tag asked for.
    pub fn search_filter(
        &self,
        rowids: &[i64],
        kind: Option<&str>,
        tag: Option<&str>,
    ) -> Result<Vec<i64>> {
        if kind.is_none() && tag.is_none() {
            return Ok(rowids.to_vec());
        }
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT 1 FROM files f JOIN pages p ON p.path = f.path
                 WHERE f.rowid = ?1 AND (?2 IS NULL OR p.type = ?2)
                   AND (?3 IS NULL OR EXISTS (SELECT 1 FROM tags t WHERE t.path = p.path AND t.tag_key = ?3))",
            )
            .at(&self.path)?;
        let tag = tag.map(|t| crate::key::key(t.trim_start_matches('#')));
        let mut out = Vec::new();
        for &id in rowids {
            if stmt
                .exists(rusqlite::params![id, kind, tag])
                .at(&self.path)?
            {
                out.push(id);
            }
        }
        Ok(out)
    }

    /// Describe a hit: path, title, type, and a snippet from the index `snippet_from` matched.
    pub fn search_hit(
        &self,
        rowid: i64,
        score: f64,
        snippet_from: Option<&Lookup>,
    ) -> Result<Option<Hit>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT f.path, w.scope, p.title, p.type, substr(w.body, 1, 160) FROM files f
                 JOIN search_words w ON w.rowid = f.rowid LEFT JOIN pages p ON p.path = f.path
                 WHERE f.rowid = ?1",
            )
            .at(&self.path)?;
        let row = stmt
            .query_row([rowid], |r| {
                Ok(Hit {
                    path: r.get(0)?,
                    scope: r.get(1)?,
                    title: r.get(2)?,
                    kind: r.get(3)?,
                    score: -score,
                    snippet: r.get::<_, String>(4)?,
                })
            })
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .at(&self.path)?;
        let Some(mut hit) = row else { return Ok(None) };
        let snippet = match snippet_from {
            Some(Lookup::Words(expr)) => self.snippet("search_words", 4, expr, rowid)?,
            Some(Lookup::Trigrams(expr)) => self.snippet("search_tri", 3, expr, rowid)?,
            _ => None,
        };
        hit.snippet = snippet
            .unwrap_or(hit.snippet)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        Ok(Some(hit))
    }

    fn snippet(
        &self,
        table: &str,
        column: usize,
        expr: &str,
        rowid: i64,
    ) -> Result<Option<String>> {
        let sql = format!(
            "SELECT snippet({table}, {column}, '**', '**', '…', 16) FROM {table}
             WHERE {table} MATCH ?1 AND rowid = ?2"
        );
        let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
        let mut rows = stmt.query(rusqlite::params![expr, rowid]).at(&self.path)?;
        match rows.next().at(&self.path)? {
            Some(r) => Ok(r
                .get::<_, Option<String>>(0)
                .at(&self.path)?
                .filter(|s| s.contains("**"))),
            None => Ok(None),
        }
    }
}
