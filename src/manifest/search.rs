//! Full-text search over the FTS5 tables that `scan` maintains: one contentless word index per
//! scope (`search_wiki`, `search_raw`), keyed by the file's rowid in `files` (a long text's
//! later pieces under rowids of their own, mapped back to the file here: a file matches once,
//! with the best score of its pieces). Building the expressions and cutting snippets is
//! [`crate::search`]'s job; this module only asks the indexes.

use super::scan_tx::{PIECE_BITS, file_rowid, search_table};
use super::{At, Manifest, Result};
use rusqlite::OptionalExtension;
use std::collections::{BTreeMap, HashSet};

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
    /// Every scope, in the order of [`Scope::NAMES`].
    pub const ALL: [Scope; 3] = [Scope::Wiki, Scope::Raw, Scope::All];
    /// The scopes' names, as both front ends take them.
    pub const NAMES: [&'static str; 3] = ["wiki", "raw", "all"];

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Wiki => "wiki",
            Scope::Raw => "raw",
            Scope::All => "all",
        }
    }

    fn tables(self) -> &'static [&'static str] {
        match self {
            Scope::Wiki => &["search_wiki"],
            Scope::Raw => &["search_raw"],
            Scope::All => &["search_wiki", "search_raw"],
        }
    }
}

impl std::str::FromStr for Scope {
    type Err = String;

    /// A scope by its name; any other name is an error that names the scopes.
    fn from_str(name: &str) -> std::result::Result<Scope, String> {
        Scope::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .ok_or_else(|| format!("{name:?} is not one of {}", Scope::NAMES.join(", ")))
    }
}

/// The weight of a match in each field of a search table (`title, aliases, tags, headings,
/// body`), as FTS5's `bm25()` takes them: a word in the title counts as this many in the body.
/// A match in the title or an alias is a strong boost, not a tier above every body match.
const WEIGHTS: &str = "10.0, 8.0, 5.0, 3.0, 1.0";

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
    /// Files matching an FTS5 expression, with scores (see [`WEIGHTS`]).
    pub fn search_match(&self, expr: &str, scope: Scope) -> Result<Scores> {
        let mut out = Scores::new();
        self.search_each(expr, scope, &mut |row| out.push(row))?;
        // Each table answers in rowid order (a long file matched only in a later piece comes
        // last); two tables need merging.
        if !out.is_sorted_by_key(|r| r.0) {
            out.sort_unstable_by_key(|r| r.0);
        }
        Ok(out)
    }

    /// [`Manifest::search_match`]'s matches handed to `each` as they are read (by rowid within
    /// each table, the tables one after the other), for a caller that keeps only the best.
    /// Each file is handed over once: the rows of later pieces (negative rowids, read first)
    /// wait for their file's first piece, or the end of the table.
    pub fn search_each(
        &self,
        expr: &str,
        scope: Scope,
        each: &mut dyn FnMut((i64, f64)),
    ) -> Result<()> {
        for table in scope.tables() {
            let sql = format!(
                "SELECT rowid, bm25({table}, {WEIGHTS}) FROM {table} WHERE {table} MATCH ?1"
            );
            let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
            let mut rows = stmt.query([expr]).at(&self.path)?;
            // Only long files have later pieces: this holds few.
            let mut later: BTreeMap<i64, f64> = BTreeMap::new();
            while let Some(r) = rows.next().at(&self.path)? {
                let (row, score): (i64, f64) = (r.get(0).at(&self.path)?, r.get(1).at(&self.path)?);
                if row < 0 {
                    let best = later.entry(file_rowid(row)).or_insert(score);
                    *best = best.min(score);
                    continue;
                }
                let score = later.remove(&row).map_or(score, |s| s.min(score));
                each((row, score));
            }
            for hit in later {
                each(hit);
            }
        }
        Ok(())
    }

    /// The pieces of the long file at `path` that match an FTS5 expression, by number (0 the
    /// first), with their scores: where in the file a snippet is to be cut. Empty for a file
    /// indexed in one piece (or not at all).
    pub fn search_pieces(&self, expr: &str, path: &str) -> Result<Vec<(u64, f64)>> {
        let file: Option<(i64, i64)> = self
            .conn
            .prepare_cached("SELECT rowid, indexed FROM files WHERE path = ?1 AND deleted = 0")
            .and_then(|mut s| {
                s.query_row([path], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()
            })
            .at(&self.path)?;
        let Some((rowid, pieces)) = file.filter(|(_, n)| *n > 1) else {
            return Ok(Vec::new());
        };
        let table = search_table(path);
        // FTS5 takes a MATCH with one rowid constraint, not an OR of two.
        let sql = format!(
            "SELECT rowid, bm25({table}, {WEIGHTS}) FROM {table}
             WHERE {table} MATCH ?1 AND rowid = ?2
             UNION ALL
             SELECT rowid, bm25({table}, {WEIGHTS}) FROM {table}
             WHERE {table} MATCH ?1 AND rowid BETWEEN ?3 AND ?4"
        );
        let base = rowid << PIECE_BITS;
        let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
        let rows = stmt
            .query_map(
                rusqlite::params![expr, rowid, -(base | (pieces - 1)), -(base | 1)],
                |r| {
                    let row: i64 = r.get(0)?;
                    let n = match row >= 0 {
                        true => 0,
                        false => row.unsigned_abs() & ((1 << PIECE_BITS) - 1),
                    };
                    Ok((n, r.get(1)?))
                },
            )
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_reads_back_from_its_name_and_no_other() {
        for (s, n) in Scope::ALL.into_iter().zip(Scope::NAMES) {
            assert_eq!(s.as_str(), n);
            assert_eq!(n.parse::<Scope>(), Ok(s));
        }
        assert_eq!(
            "Wiki".parse::<Scope>(),
            Err("\"Wiki\" is not one of wiki, raw, all".into())
        );
    }
}
