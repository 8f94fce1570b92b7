//! Full-text search over the FTS5 tables that `scan` maintains: one contentless word index per
//! scope (`search_wiki`, `search_raw`), keyed by the file's rowid in `files` (a long text's
//! later pieces under rowids of their own, mapped back to the file here: a file matches once,
//! with the best score of its pieces). Building the expressions and cutting snippets is
//! [`crate::search`]'s job; this module only asks the indexes.

use super::scan_tx::{PIECE_BITS, file_rowid, search_table};
use super::{At, Manifest, Result, fts5};
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
/// body`), as FTS5's `bm25()` takes them: a word in the title counts as this many in the body
/// ([`fts5::WEIGHTS`]). A match in the title or an alias is a strong boost, not a tier above
/// every body match.
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
            // Only long files have later pieces: this holds few.
            let mut later: BTreeMap<i64, f64> = BTreeMap::new();
            for (row, score) in self.scored(table, expr)? {
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

    /// Register the ranking functions of [`fts5`] on this connection, once.
    pub(super) fn register_fts5(&self) -> Result<()> {
        if self.fts5.get().is_none() {
            fts5::register(&self.conn).at(&self.path)?;
            let _ = self.fts5.set(());
        }
        Ok(())
    }

    /// Every row of `table` (a file, or a later piece of a long one) that matches `expr`, by
    /// rowid, with FTS5's `bm25()` score. A one-phrase expression (a word, a phrase, a prefix:
    /// nearly every search) is scored from each row's weighted count of the phrase and its
    /// length, read in one statement ([`fts5`]); others by `bm25()` itself.
    fn scored(&self, table: &str, expr: &str) -> Result<Scores> {
        self.register_fts5()?;
        let (freq, rows, tokens) = (fts5::FREQ, fts5::ROWS, fts5::TOKENS);
        // CROSS JOIN keeps the word index outside: its matches in rowid order, each row's
        // length looked up beside it.
        let sql = format!(
            "SELECT s.rowid, {freq}({table}), d.sz FROM {table} s
             CROSS JOIN {table}_docsize d ON d.id = s.rowid WHERE {table} MATCH ?1"
        );
        let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
        let mut found: Vec<(i64, f64, u64)> = Vec::new();
        let mut q = stmt.query([expr]).at(&self.path)?;
        while let Some(r) = q.next().at(&self.path)? {
            let Some(f) = r.get::<_, Option<f64>>(1).at(&self.path)? else {
                return self.scored_by_fts5(table, expr);
            };
            let length = r
                .get_ref(2)
                .at(&self.path)?
                .as_blob()
                .map_or(0, fts5::length);
            found.push((r.get(0).at(&self.path)?, f, length));
        }
        if found.is_empty() {
            return Ok(Scores::new());
        }
        let totals = self
            .conn
            .prepare_cached(&format!(
                "SELECT {rows}({table}), {tokens}({table}) FROM {table} WHERE {table} MATCH ?1
                 LIMIT 1"
            ))
            .and_then(|mut s| {
                s.query_row([expr], |r| {
                    Ok(fts5::Totals {
                        rows: r.get::<_, i64>(0)? as f64,
                        tokens: r.get::<_, i64>(1)? as f64,
                    })
                })
            })
            .at(&self.path)?;
        let hits = found.len() as f64;
        Ok(found
            .into_iter()
            .map(|(row, f, length)| (row, fts5::bm25(f, length as f64, hits, totals)))
            .collect())
    }

    /// [`Manifest::scored`] by FTS5's `bm25()`.
    fn scored_by_fts5(&self, table: &str, expr: &str) -> Result<Scores> {
        let sql =
            format!("SELECT rowid, bm25({table}, {WEIGHTS}) FROM {table} WHERE {table} MATCH ?1");
        let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
        stmt.query_map([expr], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .at(&self.path)
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

    /// Rows of every shape: fields weighted differently, a long file's later pieces (negative
    /// rowids), a deleted row, lengths far from the mean.
    fn indexed() -> (tempfile::TempDir, Manifest) {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        let rows: [(i64, [&str; 5]); 8] = [
            (
                1,
                ["Cache invalidation", "", "cache", "", "We cache pages."],
            ),
            (
                2,
                [
                    "Rust",
                    "caching",
                    "",
                    "Cache",
                    "cache cache cache invalidation",
                ],
            ),
            (
                3,
                ["Gardens", "", "", "", "Nothing here but soil and caches."],
            ),
            (4, ["漢字の本", "", "", "", "漢字 and kanji, cached"]),
            (5, ["Long", "", "", "", &"filler words ".repeat(400)]),
            (
                -(5 << 20) - 1,
                ["", "", "", "", "the cache again, later in the file"],
            ),
            (6, ["Deleted", "", "", "", "cache"]),
            (7, ["Short", "", "", "", "invalidation"]),
        ];
        for (rowid, [title, aliases, tags, headings, body]) in rows {
            m.conn
                .execute(
                    "INSERT INTO search_wiki (rowid, title, aliases, tags, headings, body)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    rusqlite::params![rowid, title, aliases, tags, headings, body],
                )
                .unwrap();
        }
        m.conn
            .execute("DELETE FROM search_wiki WHERE rowid = 6", [])
            .unwrap();
        (dir, m)
    }

    #[test]
    fn a_phrase_is_scored_to_the_bit_as_bm25_scores_it() {
        let (_dir, m) = indexed();
        let one_phrase = [
            "\"cache\"",
            "\"cache invalidation\"",
            "\"cach\"*",
            "\"漢字\"",
            "\"soil\"",
        ];
        for expr in one_phrase {
            // The fast path is taken (a NULL would send it to bm25()).
            m.register_fts5().unwrap();
            let freq: Option<f64> = m
                .conn
                .query_row(
                    "SELECT phrase_freq(search_wiki) FROM search_wiki WHERE search_wiki MATCH ?1
                     LIMIT 1",
                    [expr],
                    |r| r.get(0),
                )
                .unwrap();
            assert!(freq.is_some_and(|f| f >= 1.0), "{expr}: {freq:?}");
            let fast = m.scored("search_wiki", expr).unwrap();
            assert!(!fast.is_empty(), "{expr}");
            assert_eq!(
                fast,
                m.scored_by_fts5("search_wiki", expr).unwrap(),
                "{expr}"
            );
        }
        // Every stem's row but the deleted one; the title and the tag outweigh the alias, the
        // heading and three words of the body.
        let mut cache = m.scored("search_wiki", "\"cache\"").unwrap();
        let rows: Vec<i64> = cache.iter().map(|c| c.0).collect();
        assert_eq!(rows, [-(5 << 20) - 1, 1, 2, 3, 4]);
        cache.sort_by(|a, b| a.1.total_cmp(&b.1));
        assert_eq!((cache[0].0, cache[1].0), (1, 2));
        // More than one phrase: bm25() itself.
        let two = "(\"cache\" \"invalidation\")";
        assert_eq!(
            m.scored("search_wiki", two).unwrap(),
            m.scored_by_fts5("search_wiki", two).unwrap()
        );
        assert_eq!(m.scored("search_wiki", "\"absent\"").unwrap(), []);
    }
}
