//! The manifest side of `lint` and `brief`: set-based queries, one statement per check.

use super::{At, Manifest, Result, sql};
use crate::markdown::Problem;
use std::collections::HashMap;

/// A link that does not lead where it says.
#[derive(Debug, Clone)]
pub struct LinkFinding {
    /// The linking page.
    pub source: String,
    /// The line of the link.
    pub line: usize,
    /// The target as written.
    pub target: String,
    /// `#heading`, if any.
    pub heading: Option<String>,
    /// `#^block`, if any.
    pub block: Option<String>,
    /// `![[…]]`
    pub embed: bool,
    /// `broken`, `ambiguous` or `resolved`.
    pub status: String,
    /// Where it resolved, if it did.
    pub resolved: Option<String>,
    /// How many pages an ambiguous link could mean.
    pub candidates: usize,
}

/// A page's stored frontmatter, for schema checks.
#[derive(Debug, Clone)]
pub struct PageRecord {
    /// Vault-relative path.
    pub path: String,
    /// `ok`, `none` or `invalid`.
    pub frontmatter: String,
    /// Why the block is invalid.
    pub error: Option<String>,
    /// The line of that error.
    pub error_line: Option<usize>,
    /// The fields, as [`crate::markdown::Frontmatter`].
    pub fields: crate::markdown::Frontmatter,
}

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

/// A name claimed by more than one page.
#[derive(Debug, Clone)]
pub struct Claim {
    /// The name as written by the first claimant.
    pub name: String,
    /// The pages claiming it, by path, with how (`title` or `alias`).
    pub claimants: Vec<(String, &'static str)>,
}

fn link_findings(m: &Manifest, wher: &str, scope: Pages<'_>) -> Result<Vec<LinkFinding>> {
    let mut stmt = m
        .conn
        .prepare(&format!(
            "SELECT l.source, l.line, l.target, l.heading, l.block, l.embed, l.status, l.resolved, l.candidates
             FROM links l WHERE {wher}{} ORDER BY l.source, l.seq",
            scope.and_in("l.source")
        ))
        .at(&m.path)?;
    let rows = stmt
        .query_map(rusqlite::params_from_iter(scope.param()), |r| {
            Ok(LinkFinding {
                source: r.get(0)?,
                line: r.get::<_, i64>(1)? as usize,
                target: r.get(2)?,
                heading: r.get(3)?,
                block: r.get(4)?,
                embed: r.get(5)?,
                status: r.get(6)?,
                resolved: r.get(7)?,
                candidates: r.get::<_, i64>(8)? as usize,
            })
        })
        .at(&m.path)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().at(&m.path)
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

impl Manifest {
    /// Links of the pages in `scope` that resolve to nothing or to several pages.
    pub fn unresolved_links(&self, scope: Pages<'_>) -> Result<Vec<LinkFinding>> {
        let wher = match scope {
            // The redundant `<> 'resolved'` lets SQLite use the partial index `links_status`.
            Pages::All => "l.status IN ('broken', 'ambiguous') AND l.status <> 'resolved'",
            // A few pages' links by their primary key, not every unresolved link of the vault
            // (the unary `+` keeps SQLite off the status index).
            Pages::Only(_) => "+l.status IN ('broken', 'ambiguous')",
        };
        link_findings(self, wher, scope)
    }

    /// Resolved links of the pages in `scope` whose `#heading` or `#^block` the target page
    /// does not have.
    pub fn broken_fragments(&self, scope: Pages<'_>) -> Result<Vec<LinkFinding>> {
        link_findings(
            self,
            // The first condition is the partial index `links_fragments`: only links with a
            // fragment are visited.
            "(l.heading_key IS NOT NULL OR l.block IS NOT NULL)
             AND l.status = 'resolved' AND EXISTS (SELECT 1 FROM pages WHERE path = l.resolved) AND (
               (l.heading_key IS NOT NULL AND NOT EXISTS
                 (SELECT 1 FROM headings h WHERE h.path = l.resolved AND h.key = l.heading_key))
               OR (l.block IS NOT NULL AND NOT EXISTS
                 (SELECT 1 FROM blocks b WHERE b.path = l.resolved AND b.block_id = l.block)))",
            scope,
        )
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

    /// Seed pages no other page links to.
    pub fn seed_orphans(&self) -> Result<Vec<String>> {
        let q = format!(
            "SELECT p.path, NULL FROM pages p WHERE p.maturity = 'seed' AND {} AND NOT {} ORDER BY p.path",
            sql::ORPHAN,
            sql::SYSTEM_PAGE
        );
        Ok(paths(self, &q)?.into_iter().map(|(p, _)| p).collect())
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

    /// Stale pages, each with its `updated:` date and the newest source that is newer.
    pub fn stale_pages(&self) -> Result<Vec<(String, String, String, String)>> {
        let mut stmt = self
            .conn
            .prepare(
                // Driven from each page's sources (CROSS JOIN keeps that order), so that each
                // source is one primary-key seek into `files`, not a pass over it.
                "SELECT p.path, p.updated, f.path, max(date(f.mtime_ns / 1000000000, 'unixepoch', 'localtime'))
                 FROM pages p CROSS JOIN json_each(p.sources) s
                 CROSS JOIN files f ON f.path = (CASE WHEN substr(s.value, 1, 2) = './'
                                                      THEN substr(s.value, 3) ELSE s.value END)
                 WHERE f.deleted = 0 AND date(p.updated) = p.updated
                   AND date(f.mtime_ns / 1000000000, 'unixepoch', 'localtime') > p.updated
                 GROUP BY p.path ORDER BY p.path",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }

    /// Sources (page, source) that name no file or directory of the vault.
    pub fn dead_sources(&self) -> Result<Vec<(String, String)>> {
        paths(
            self,
            // A source names a file, or a directory holding one: two seeks on the primary key
            // (`'0'` is the byte after `'/'`, so the range is every path under the directory).
            "WITH src AS (
               SELECT p.path AS page, s.key AS seq, s.value AS value,
                      rtrim(CASE WHEN substr(s.value, 1, 2) = './' THEN substr(s.value, 3) ELSE s.value END, '/') AS x
               FROM pages p CROSS JOIN json_each(p.sources) s WHERE trim(s.value) <> '')
             SELECT page, value FROM src
             WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = src.x AND f.deleted = 0)
               AND NOT EXISTS (SELECT 1 FROM files f WHERE f.path > src.x || '/' AND f.path < src.x || '0'
                                                       AND f.deleted = 0)
             ORDER BY page, seq",
        )
    }

    /// Names (title or alias keys) claimed by more than one page, of which at least one is
    /// in `scope`; every claimant is listed.
    pub fn shared_names(&self, scope: Pages<'_>) -> Result<Vec<Claim>> {
        // Keys and paths from the two indexes first; the names only for the keys that more
        // than one page claims. In a scope, only the keys its pages claim are counted.
        let claims = match scope {
            Pages::All => "claims AS (
                   SELECT title_key AS k, path FROM pages WHERE title_key IS NOT NULL
                   UNION ALL SELECT alias_key, path FROM aliases)"
                .to_string(),
            Pages::Only(_) => format!(
                "mine AS (
                   SELECT title_key AS k FROM pages WHERE title_key IS NOT NULL{only}
                   UNION SELECT alias_key FROM aliases WHERE 1{only}),
                 claims AS (
                   SELECT title_key AS k, path FROM pages WHERE title_key IN mine
                   UNION ALL SELECT alias_key, path FROM aliases WHERE alias_key IN mine)",
                only = scope.and_in("path"),
            ),
        };
        let mut stmt = self
            .conn
            .prepare(&format!(
                "WITH {claims},
                 shared AS (SELECT k FROM claims GROUP BY k HAVING count(DISTINCT path) > 1)
                 SELECT title_key AS k, title AS name, path, 'title' AS how FROM pages
                 WHERE title_key IN shared
                 UNION SELECT alias_key, alias, path, 'alias' FROM aliases WHERE alias_key IN shared
                 ORDER BY k, path, how DESC"
            ))
            .at(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(scope.param()), |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .at(&self.path)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .at(&self.path)?;
        let mut out: Vec<(String, Claim)> = Vec::new();
        for (k, name, path, how) in rows {
            let how = if how == "title" { "title" } else { "alias" };
            match out.last_mut() {
                Some((last, claim)) if *last == k => {
                    if !claim.claimants.iter().any(|(p, h)| *p == path && *h == how) {
                        claim.claimants.push((path, how));
                    }
                }
                _ => out.push((
                    k,
                    Claim {
                        name,
                        claimants: vec![(path, how)],
                    },
                )),
            }
        }
        Ok(out.into_iter().map(|(_, c)| c).collect())
    }

    /// Every page in `scope` with its stored frontmatter.
    pub fn page_records(&self, scope: Pages<'_>) -> Result<Vec<PageRecord>> {
        // Tags and aliases of every page in one pass each, not two subqueries per page.
        let mut tags = self.lists(
            &format!(
                "SELECT path, tag FROM tags WHERE 1{} ORDER BY path, tag_key",
                scope.and_in("path")
            ),
            scope,
        )?;
        let mut aliases = self.lists(
            &format!(
                "SELECT path, alias FROM aliases WHERE 1{} ORDER BY path, seq",
                scope.and_in("path")
            ),
            scope,
        )?;
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT p.path, p.frontmatter, p.error, p.error_line, p.title, p.type, p.maturity, p.created,
                        p.updated, p.sources, p.problems, p.key_lines
                 FROM pages p WHERE 1{} ORDER BY p.path",
                scope.and_in("p.path")
            ))
            .at(&self.path)?;
        let list = |s: String| serde_json::from_str::<Vec<String>>(&s).unwrap_or_default();
        let rows = stmt
            .query_map(rusqlite::params_from_iter(scope.param()), |r| {
                let path: String = r.get(0)?;
                let problems: Vec<Problem> =
                    serde_json::from_str(&r.get::<_, String>(10)?).unwrap_or_default();
                Ok(PageRecord {
                    frontmatter: r.get(1)?,
                    error: r.get(2)?,
                    error_line: r.get::<_, Option<i64>>(3)?.map(|n| n as usize),
                    fields: crate::markdown::Frontmatter {
                        title: r.get(4)?,
                        kind: r.get(5)?,
                        maturity: r.get(6)?,
                        created: r.get(7)?,
                        updated: r.get(8)?,
                        sources: list(r.get(9)?),
                        tags: tags.remove(&path).unwrap_or_default(),
                        aliases: aliases.remove(&path).unwrap_or_default(),
                        problems,
                        lines: serde_json::from_str(&r.get::<_, String>(11)?).unwrap_or_default(),
                    },
                    path,
                })
            })
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }

    /// `(path, value)` rows grouped by path, in the order of the query.
    pub(super) fn lists(
        &self,
        sql: &str,
        scope: Pages<'_>,
    ) -> Result<HashMap<String, Vec<String>>> {
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        let mut stmt = self.conn.prepare_cached(sql).at(&self.path)?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(scope.param()))
            .at(&self.path)?;
        while let Some(r) = rows.next().at(&self.path)? {
            out.entry(r.get(0).at(&self.path)?)
                .or_default()
                .push(r.get(1).at(&self.path)?);
        }
        Ok(out)
    }
}

/// A resolved link that names its page other than by the page's title.
#[derive(Debug, Clone)]
pub struct AliasedLink {
    /// The linking page.
    pub source: String,
    /// The line of the link.
    pub line: usize,
    /// The target as written.
    pub target: String,
    /// The title of the page it resolves to (which no other page shares).
    pub title: String,
}

impl Manifest {
    /// Links that resolve, by alias, file name or path, to a page whose title is unique: they
    /// can be rewritten to the title without changing where they lead. Links of the pages
    /// Sparks generates (index, log, collections) are left to their generators.
    pub fn aliased_links(&self) -> Result<Vec<AliasedLink>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT l.source, l.line, l.target, p.title FROM links l JOIN pages p ON p.path = l.resolved
                 WHERE l.status = 'resolved' AND l.target <> '' AND l.embed = 0
                   AND l.source <> 'wiki/index.md' AND substr(l.source, 1, 11) <> 'wiki/index/'
                   AND l.source <> 'wiki/log.md' AND substr(l.source, 1, 17) <> 'wiki/collections/'
                   AND p.title_key IS NOT NULL AND l.target_key <> p.title_key
                   AND (SELECT count(*) FROM pages q WHERE q.title_key = p.title_key) = 1
                   AND instr(p.title, '|') = 0 AND instr(p.title, '#') = 0 AND instr(p.title, ']]') = 0
                 ORDER BY l.source, l.seq",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([], |r| {
                Ok(AliasedLink {
                    source: r.get(0)?,
                    line: r.get::<_, i64>(1)? as usize,
                    target: r.get(2)?,
                    title: r.get(3)?,
                })
            })
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }
}
