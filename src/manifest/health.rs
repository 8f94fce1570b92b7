//! The manifest side of `lint` and `brief`: set-based queries, one statement per check, but
//! for the source checks (stale pages, dead sources), which read the live files and the pages'
//! sources in one pass each and join them in memory.

use super::{At, Manifest, Result, sql};
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
    /// The fields, as [`crate::markdown::Frontmatter`], but for their lines (`lines` is
    /// left empty): [`PageRecord::line_of`] reads them when an issue needs one.
    pub fields: crate::markdown::Frontmatter,
    /// The line of each key, as stored (JSON).
    pub key_lines: String,
}

impl PageRecord {
    /// The line of the block where `key` is set.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        let lines: Vec<(String, usize)> = serde_json::from_str(&self.key_lines).ok()?;
        lines.into_iter().find(|(k, _)| k == key).map(|(_, l)| l)
    }
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
        .query_map(rusqlite::params_from_iter(scope.param()), link_finding)
        .at(&m.path)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().at(&m.path)
}

/// A [`LinkFinding`] from the columns `source, line, target, heading, block, embed, status,
/// resolved, candidates`.
fn link_finding(r: &rusqlite::Row<'_>) -> rusqlite::Result<LinkFinding> {
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

/// A page's `updated:` and `sources:`.
struct Cited {
    path: String,
    updated: Option<String>,
    sources: Vec<String>,
}

/// The live files' modification times by path, read in one pass of the table: the stale
/// and dead-source checks look up every page's sources, and a seek per source into `files`
/// cost a random page read each (2 s at 100,000 pages); so did a binary search of a sorted
/// list, a cache miss per step.
struct LiveFiles {
    mtimes: HashMap<String, i64, foldhash::fast::RandomState>,
    /// Every directory holding a live file, built when first asked.
    dirs: std::cell::OnceCell<std::collections::HashSet<String, foldhash::fast::RandomState>>,
}

impl LiveFiles {
    fn load(m: &Manifest) -> Result<LiveFiles> {
        let mut stmt = m
            .conn
            .prepare_cached("SELECT path, mtime_ns FROM files NOT INDEXED WHERE deleted = 0")
            .at(&m.path)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .at(&m.path)?;
        Ok(LiveFiles {
            mtimes: rows.collect::<rusqlite::Result<_>>().at(&m.path)?,
            dirs: Default::default(),
        })
    }

    /// The modification time (ns) of the live file at `path`.
    fn mtime(&self, path: &str) -> Option<i64> {
        self.mtimes.get(path).copied()
    }

    /// Whether a live file lies under the directory `dir` (at any depth).
    fn holds(&self, dir: &str) -> bool {
        let dirs = self.dirs.get_or_init(|| {
            let mut dirs = std::collections::HashSet::default();
            for path in self.mtimes.keys() {
                for (i, _) in path.match_indices('/') {
                    dirs.insert(path[..i].to_string());
                }
            }
            dirs
        });
        dirs.contains(dir)
    }
}

/// Whether `s` is a date written `YYYY-MM-DD`, as SQLite's `date(s) = s` tells.
fn is_date(s: &str) -> bool {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .is_ok_and(|d| d.format("%Y-%m-%d").to_string() == s)
}

/// The local date (`YYYY-MM-DD`) of a modification time in nanoseconds, as SQLite's
/// `date(ns / 1000000000, 'unixepoch', 'localtime')`.
fn local_date(ns: i64) -> Option<String> {
    use chrono::{Datelike, TimeZone};
    let day = chrono::Local
        .timestamp_opt(ns / 1_000_000_000, 0)
        .earliest()?
        .date_naive();
    Some(format!(
        "{:04}-{:02}-{:02}",
        day.year(),
        day.month(),
        day.day()
    ))
}

/// A stale page: its path, its `updated:` date, the newest source newer than that and the
/// local date that source changed on.
pub type Stale = (String, String, String, String);

/// A dead source: the citing page's path and the source as written.
pub type Dead = (String, String);

/// The stale pages among `pages`, by path: those whose `updated:` is a date older than the
/// local date a source last changed on. The newest such source is named, the first listed
/// among equals.
fn stale_of(files: &LiveFiles, pages: &[Cited]) -> Vec<Stale> {
    let mut stale = Vec::new();
    for page in pages {
        let updated = page.updated.as_deref().unwrap_or_default();
        if !is_date(updated) {
            continue;
        }
        let mut newest: Option<(String, &str)> = None;
        for source in &page.sources {
            let path = source.strip_prefix("./").unwrap_or(source);
            let Some(date) = files.mtime(path).and_then(local_date) else {
                continue;
            };
            if date.as_str() > updated && newest.as_ref().is_none_or(|(d, _)| date > *d) {
                newest = Some((date, path));
            }
        }
        if let Some((date, source)) = newest {
            stale.push((
                page.path.clone(),
                updated.to_string(),
                source.to_string(),
                date,
            ));
        }
    }
    stale.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    stale
}

/// The sources (page, source as written) of `pages` that name neither a live file nor a
/// directory holding one, by page and then as listed; blank sources are not checked.
fn dead_of(files: &LiveFiles, mut pages: Vec<Cited>) -> Vec<Dead> {
    pages.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    let mut dead = Vec::new();
    for page in pages {
        for source in page.sources {
            if source.trim_matches(' ').is_empty() {
                continue;
            }
            let x = source.strip_prefix("./").unwrap_or(&source);
            let x = x.trim_end_matches('/');
            if files.mtime(x).is_none() && !files.holds(x) {
                dead.push((page.path.clone(), source));
            }
        }
    }
    dead
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
        if let Pages::All = scope {
            return self.every_broken_fragment();
        }
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

    /// [`Manifest::broken_fragments`] of the whole vault, joined in memory. Probing the
    /// headings for each link's heading read every heading row of the target (a table lookup
    /// each: 1.8 s at 100,000 pages), and probing `pages` and `blocks` for each link cost two
    /// index searches a link (40 of the query's 60 ms at 10,000 pages in `sqlite3`). Here the
    /// links with a fragment, the pages, the headings and the blocks are each read in one pass
    /// and joined by the linked page's number; only the broken links are read whole.
    fn every_broken_fragment(&self) -> Result<Vec<LinkFinding>> {
        /// What a linked page has that its links' fragments may name.
        #[derive(Default, Clone)]
        struct Target {
            page: bool,
            headings: Vec<String>,
            blocks: Vec<String>,
        }
        struct Fragment {
            rowid: i64,
            /// The linked page's number in `targets`.
            target: u32,
            heading_key: Option<String>,
            block: Option<String>,
        }
        let mut numbers: HashMap<String, u32, foldhash::fast::RandomState> = HashMap::default();
        let mut fragments = Vec::new();
        {
            // The partial index `links_fragments` holds every column read here.
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT rowid, resolved, heading_key, block FROM links
                     WHERE (heading_key IS NOT NULL OR block IS NOT NULL) AND status = 'resolved'
                     ORDER BY source, seq",
                )
                .at(&self.path)?;
            let mut rows = stmt.query([]).at(&self.path)?;
            while let Some(r) = rows.next().at(&self.path)? {
                let resolved = r.get_ref(1).at(&self.path)?.as_str().unwrap_or_default();
                let target = match numbers.get(resolved) {
                    Some(&n) => n,
                    None => {
                        let n = numbers.len() as u32;
                        numbers.insert(resolved.to_string(), n);
                        n
                    }
                };
                fragments.push(Fragment {
                    rowid: r.get(0).at(&self.path)?,
                    target,
                    heading_key: r.get(2).at(&self.path)?,
                    block: r.get(3).at(&self.path)?,
                });
            }
        }
        if fragments.is_empty() {
            return Ok(Vec::new());
        }
        let mut targets = vec![Target::default(); numbers.len()];
        // Each pass reads `path` and, but for the pages, a name; a page's rows come one after
        // the other, so the last path's number is kept.
        let mut pass = |sql: &str, keep: fn(&mut Target, Option<String>)| -> Result<()> {
            let mut stmt = self.conn.prepare(sql).at(&self.path)?;
            let named = stmt.column_count() > 1;
            let mut rows = stmt.query([]).at(&self.path)?;
            let mut last: (String, Option<u32>) = (String::new(), None);
            while let Some(r) = rows.next().at(&self.path)? {
                let path = r.get_ref(0).at(&self.path)?.as_str().unwrap_or_default();
                if path != last.0 {
                    last = (path.to_string(), numbers.get(path).copied());
                }
                if let Some(n) = last.1 {
                    let name = if named {
                        r.get(1).at(&self.path)?
                    } else {
                        None
                    };
                    keep(&mut targets[n as usize], name);
                }
            }
            Ok(())
        };
        pass("SELECT path FROM pages", |t, _| t.page = true)?;
        pass("SELECT path, key FROM headings NOT INDEXED", |t, key| {
            t.headings.extend(key)
        })?;
        pass("SELECT path, block_id FROM blocks", |t, id| {
            t.blocks.extend(id)
        })?;
        let mut whole = self
            .conn
            .prepare(
                "SELECT source, line, target, heading, block, embed, status, resolved, candidates
                 FROM links WHERE rowid = ?1",
            )
            .at(&self.path)?;
        let mut broken = Vec::new();
        for f in fragments {
            let t = &targets[f.target as usize];
            // A link to a file that is not a page (its fragment names nothing Sparks reads).
            if !t.page {
                continue;
            }
            let missing = |name: &Option<String>, names: &[String]| {
                name.as_ref().is_some_and(|n| !names.contains(n))
            };
            if missing(&f.heading_key, &t.headings) || missing(&f.block, &t.blocks) {
                broken.push(whole.query_row([f.rowid], link_finding).at(&self.path)?);
            }
        }
        Ok(broken)
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

    /// Stale pages, each with its `updated:` date and the newest source that is newer (by
    /// the local date of its modification time), by path. A page whose `updated:` is not a
    /// date is never stale.
    pub fn stale_pages(&self) -> Result<Vec<Stale>> {
        Ok(stale_of(&LiveFiles::load(self)?, &self.cited_sources()?))
    }

    /// Sources (page, source) that name no file or directory of the vault, by page and then
    /// as listed.
    pub fn dead_sources(&self) -> Result<Vec<Dead>> {
        Ok(dead_of(&LiveFiles::load(self)?, self.cited_sources()?))
    }

    /// [`Manifest::stale_pages`] and [`Manifest::dead_sources`] together, reading the files
    /// and the pages' sources once.
    pub fn stale_and_dead(&self) -> Result<(Vec<Stale>, Vec<Dead>)> {
        let (files, pages) = (LiveFiles::load(self)?, self.cited_sources()?);
        Ok((stale_of(&files, &pages), dead_of(&files, pages)))
    }

    /// Every page's path, `updated:` and `sources:` (each as written; a value that is not a
    /// string as its JSON), in one pass of the table.
    fn cited_sources(&self) -> Result<Vec<Cited>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT path, updated, sources FROM pages NOT INDEXED")
            .at(&self.path)?;
        let rows = stmt
            .query_map([], |r| {
                let sources = r.get_ref(2)?.as_str().unwrap_or_default();
                let sources = match serde_json::from_str::<Vec<String>>(sources) {
                    Ok(list) => list,
                    Err(_) => serde_json::from_str::<Vec<serde_json::Value>>(sources)
                        .unwrap_or_default()
                        .into_iter()
                        .map(|v| match v {
                            serde_json::Value::String(s) => s,
                            other => other.to_string(),
                        })
                        .collect(),
                };
                Ok(Cited {
                    path: r.get(0)?,
                    updated: r.get(1)?,
                    sources,
                })
            })
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
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

    /// `f` of every page in `scope` with its stored frontmatter, but for the aliases
    /// (`fields.aliases` is left empty: no check of a page's own fields reads them), in no
    /// particular order. The pages are read in one pass over the table and each is handed on
    /// as it is read: held all at once, at 100,000 pages they were 140 MB, over half of a
    /// lint's peak. A page's tags come from the tags read first and sorted by page (in key
    /// order, as before), found by a binary search.
    pub fn page_records(&self, scope: Pages<'_>, mut f: impl FnMut(PageRecord)) -> Result<()> {
        let pass = match scope {
            Pages::All => " NOT INDEXED",
            Pages::Only(_) => "",
        };
        let mut tags: Vec<(String, String, String)> = {
            let mut stmt = self
                .conn
                .prepare(&format!(
                    "SELECT path, tag_key, tag FROM tags{pass} WHERE 1{}",
                    scope.and_in("path")
                ))
                .at(&self.path)?;
            let rows = stmt
                .query_map(rusqlite::params_from_iter(scope.param()), |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .at(&self.path)?;
            rows.collect::<rusqlite::Result<_>>().at(&self.path)?
        };
        tags.sort_unstable();
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT p.path, p.frontmatter, p.error, p.error_line, p.title, p.type, p.maturity, p.created,
                        p.updated, p.sources, p.problems, p.key_lines
                 FROM pages p{pass} WHERE 1{}",
                scope.and_in("p.path")
            ))
            .at(&self.path)?;
        let list = |s: &str| serde_json::from_str::<Vec<String>>(s).unwrap_or_default();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(scope.param()))
            .at(&self.path)?;
        while let Some(r) = rows.next().at(&self.path)? {
            let record = || -> rusqlite::Result<PageRecord> {
                let path: String = r.get(0)?;
                let first = tags.partition_point(|(p, ..)| *p < path);
                let page_tags = tags[first..]
                    .iter()
                    .take_while(|(p, ..)| *p == path)
                    .map(|(.., tag)| tag.clone())
                    .collect();
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
                        sources: list(r.get_ref(9)?.as_str()?),
                        tags: page_tags,
                        aliases: Vec::new(),
                        problems: serde_json::from_str(r.get_ref(10)?.as_str()?)
                            .unwrap_or_default(),
                        lines: Vec::new(),
                    },
                    key_lines: r.get(11)?,
                    path,
                })
            };
            f(record().at(&self.path)?);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SQL the stale and dead-source checks were before they read the tables once: the
    /// reference their answers must equal.
    const STALE_SQL: &str = "SELECT p.path, p.updated, f.path,
               max(date(f.mtime_ns / 1000000000, 'unixepoch', 'localtime'))
        FROM pages p CROSS JOIN json_each(p.sources) s
        CROSS JOIN files f ON f.path = (CASE WHEN substr(s.value, 1, 2) = './'
                                             THEN substr(s.value, 3) ELSE s.value END)
        WHERE f.deleted = 0 AND date(p.updated) = p.updated
          AND date(f.mtime_ns / 1000000000, 'unixepoch', 'localtime') > p.updated
        GROUP BY p.path ORDER BY p.path";
    const DEAD_SQL: &str = "WITH src AS (
          SELECT p.path AS page, s.key AS seq, s.value AS value,
                 rtrim(CASE WHEN substr(s.value, 1, 2) = './' THEN substr(s.value, 3) ELSE s.value END, '/') AS x
          FROM pages p CROSS JOIN json_each(p.sources) s WHERE trim(s.value) <> '')
        SELECT page, value FROM src
        WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = src.x AND f.deleted = 0)
          AND NOT EXISTS (SELECT 1 FROM files f WHERE f.path > src.x || '/' AND f.path < src.x || '0'
                                                  AND f.deleted = 0)
        ORDER BY page, seq";

    #[test]
    fn stale_and_dead_sources_answer_as_the_sql_did() {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        let day = |d: &str| {
            let t = chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d")
                .unwrap()
                .and_hms_opt(12, 0, 0)
                .unwrap();
            t.and_utc().timestamp() * 1_000_000_000
        };
        let files = [
            ("raw/a.md", "2026-04-10", 0),
            ("raw/a2.md", "2026-04-10", 0),
            ("raw/b.md", "2026-04-20", 0),
            ("raw/dir/deep/c.md", "2026-03-01", 0),
            ("raw/dirx.md", "2026-03-01", 0),
            ("raw/gone.md", "2026-05-01", 1),
            ("raw/gonedir/d.md", "2026-05-01", 1),
        ];
        for (path, date, deleted) in files {
            m.conn
                .execute(
                    "INSERT INTO files (path, name_key, name_loose, path_key, size, mtime_ns,
                        ctime_ns, inode, hash, clock_ns, changed_ns, deleted)
                     VALUES (?1, ?1, ?1, ?1, 1, ?2, 0, 0, 'h', 0, 0, ?3)",
                    rusqlite::params![path, day(date), deleted],
                )
                .unwrap();
        }
        let pages = [
            ("wiki/p7.md", "2026-01-01", r#"["raw/a2.md", "raw/a.md"]"#),
            (
                "wiki/p1.md",
                "2026-04-15",
                r#"["raw/a.md", "./raw/b.md", "raw/gone.md"]"#,
            ),
            ("wiki/p2.md", "2026-02-30", r#"["raw/b.md", "raw/nope.md"]"#),
            (
                "wiki/p3.md",
                "2026-01-01",
                r#"["raw/dir", "raw/dir/", "./raw/dir/deep", "raw/di", "raw/dirx.md", "  ", "",
                   "raw/a.md", "raw/b.md", "raw/gonedir", "./", "/"]"#,
            ),
            ("wiki/p4.md", "2026-04-20", r#"["raw/b.md"]"#),
            ("wiki/p5.md", "2026-04-01T10:00", r#"["raw/b.md"]"#),
            ("wiki/p6.md", "2026-01-01", r#"["raw/a.md", "raw/a2.md"]"#),
            ("wiki/p8.md", "2026-01-01", "[]"),
        ];
        for (path, updated, sources) in pages {
            m.conn
                .execute_batch(&format!(
                    "PRAGMA foreign_keys = OFF;
                     INSERT INTO pages (path, frontmatter, updated, sources)
                     VALUES ('{path}', 'ok', '{updated}', '{sources}');"
                ))
                .unwrap();
        }
        let rows = |sql: &str, n: usize| -> Vec<Vec<String>> {
            let mut stmt = m.conn.prepare(sql).unwrap();
            stmt.query_map([], |r| {
                (0..n)
                    .map(|i| r.get::<_, String>(i))
                    .collect::<rusqlite::Result<Vec<String>>>()
            })
            .unwrap()
            .map(|row| row.unwrap())
            .collect()
        };
        let stale: Vec<Vec<String>> = m
            .stale_pages()
            .unwrap()
            .into_iter()
            .map(|(a, b, c, d)| vec![a, b, c, d])
            .collect();
        let dead: Vec<Vec<String>> = m
            .dead_sources()
            .unwrap()
            .into_iter()
            .map(|(a, b)| vec![a, b])
            .collect();
        assert_eq!(stale, rows(STALE_SQL, 4));
        let stale_paths: Vec<Vec<String>> = stale.iter().map(|s| vec![s[0].clone()]).collect();
        assert_eq!(
            stale_paths,
            rows(
                &format!(
                    "SELECT p.path FROM pages p WHERE {} ORDER BY p.path",
                    sql::STALE
                ),
                1
            ),
            "query --stale's condition names the same pages"
        );
        assert_eq!(dead, rows(DEAD_SQL, 2));
        assert_eq!(stale.len(), 4, "{stale:?}");
        assert_eq!(dead.len(), 6, "{dead:?}");
        let (s, d) = m.stale_and_dead().unwrap();
        assert_eq!((s.len(), d.len()), (stale.len(), dead.len()));
    }
}
