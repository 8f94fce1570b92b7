//! What a published site is made from, read in a few queries: every live wiki page with what
//! its listings show and the hash of its file, and every resolved link between live files.
//! A publish decides which of them it shows; the manifest knows nothing of that.

use super::view::live;
use super::{At, Manifest, Result};
use std::collections::HashMap;

/// A live page under `wiki/`, as a published site lists it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SitePage {
    /// Vault-relative path.
    pub path: String,
    /// `title:`, when not blank.
    pub title: Option<String>,
    /// `type:`, when not blank.
    pub kind: Option<String>,
    /// `updated:` as written, else `created:`.
    pub updated: Option<String>,
    /// The blake3 of its file as the last scan read it (hex).
    pub hash: String,
    /// Its tags, as written, in the order of their keys.
    pub tags: Vec<String>,
    /// Its aliases, as written, in order.
    pub aliases: Vec<String>,
    /// What a link into it may name, hashed (128 bits of blake3): its headings' levels and
    /// texts in order, then its block ids, as the last scan read them.
    pub anchors: [u8; 16],
}

impl Manifest {
    /// Every live page under `wiki/`, by path. The pages, their tags and their aliases are
    /// read side by side in path order (each query walks its table's primary key), so that no
    /// page's values wait in a map for their page.
    pub fn site_pages(&self) -> Result<Vec<SitePage>> {
        // The statement of (path, value) of each live wiki page's rows of `table`, by path
        // then `order`.
        let values = |table: &str, value: &str, order: &str| {
            let sql = format!(
                "SELECT v.path, v.{value} FROM {table} v WHERE v.path LIKE 'wiki/%' AND {}
                 ORDER BY v.path, v.{order}",
                live("v")
            );
            self.conn.prepare_cached(&sql).at(&self.path)
        };
        let mut tag_stmt = values("tags", "tag", "tag_key")?;
        let mut tags = pairs(&mut tag_stmt).at(&self.path)?.peekable();
        let mut alias_stmt = values("aliases", "alias", "seq")?;
        let mut aliases = pairs(&mut alias_stmt).at(&self.path)?.peekable();
        let mut heading_stmt = values("headings", "level || ' ' || v.text", "seq")?;
        let mut headings = pairs(&mut heading_stmt).at(&self.path)?.peekable();
        let mut block_stmt = values("blocks", "block_id", "block_id")?;
        let mut blocks = pairs(&mut block_stmt).at(&self.path)?.peekable();
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT p.path, nullif(trim(p.title), ''), nullif(trim(p.type), ''),
                        coalesce(nullif(trim(p.updated), ''), nullif(trim(p.created), '')),
                        f.hash
                 FROM pages p JOIN files f ON f.path = p.path
                 WHERE f.deleted = 0 AND p.path LIKE 'wiki/%' ORDER BY p.path",
            )
            .at(&self.path)?;
        let mut rows = stmt.query([]).at(&self.path)?;
        let mut pages = Vec::new();
        while let Some(r) = rows.next().at(&self.path)? {
            let path: String = r.get(0).at(&self.path)?;
            let anchors = anchors(
                &values_of(&mut headings, &path).at(&self.path)?,
                &values_of(&mut blocks, &path).at(&self.path)?,
            );
            pages.push(SitePage {
                anchors,
                tags: values_of(&mut tags, &path).at(&self.path)?,
                aliases: values_of(&mut aliases, &path).at(&self.path)?,
                title: r.get(1).at(&self.path)?,
                kind: r.get(2).at(&self.path)?,
                updated: r.get(3).at(&self.path)?,
                hash: r.get(4).at(&self.path)?,
                path,
            });
        }
        Ok(pages)
    }

    /// Give back what the connection's page cache holds (up to its 16 MB, filled by reading
    /// every page and link of a large vault); it fills again as far as it is read.
    pub fn release_cache(&self) -> Result<()> {
        self.conn
            .execute_batch("PRAGMA shrink_memory")
            .at(&self.path)
    }

    /// Every resolved wikilink or embed from a live page under `wiki/` to another file, as
    /// (linking page, target, whether one of its links is an embed), each pair once, by
    /// linking page then target; each path held once ([`LinkTable`]).
    pub fn site_links(&self) -> Result<LinkTable> {
        // The table walked through its primary key (by linking page), each page's targets put
        // in order here: a quarter of the time of SQLite's grouping through the target index,
        // and no sort: a scan of the table sorted by linking page held every link in memory
        // (100 MB at 100,000 pages).
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT l.source, l.resolved, l.embed FROM links l INDEXED BY sqlite_autoindex_links_1
                 WHERE l.source LIKE 'wiki/%' AND l.resolved IS NOT NULL
                   AND l.resolved <> l.source AND {}
                 ORDER BY l.source, l.seq",
                live_source()
            ))
            .at(&self.path)?;
        let mut rows = stmt.query([]).at(&self.path)?;
        let mut table = LinkTable::default();
        let mut filling = table.filling();
        let mut source = String::new();
        let mut targets: Vec<(String, bool)> = Vec::new();
        let mut flush = |source: &str, targets: &mut Vec<(String, bool)>| {
            targets.sort_unstable();
            // An embed sorts after a plain link to the same target: the last of each says.
            for (i, (target, embed)) in targets.iter().enumerate() {
                if targets.get(i + 1).is_none_or(|(next, _)| next != target) {
                    filling.push(source, target, *embed);
                }
            }
            targets.clear();
        };
        while let Some(r) = rows.next().at(&self.path)? {
            let text = |i: usize| {
                r.get_ref(i)
                    .and_then(|v| v.as_str().map_err(Into::into))
                    .at(&self.path)
            };
            let (from, to) = (text(0)?, text(1)?);
            if from != source {
                flush(&source, &mut targets);
                source = from.to_string();
            }
            targets.push((to.to_string(), r.get::<_, i64>(2).at(&self.path)? != 0));
        }
        flush(&source, &mut targets);
        Ok(table)
    }
}

/// The hash of a page's `headings` (each its level, a space, its text) and `blocks` (ids)
/// ([`SitePage::anchors`]).
fn anchors(headings: &[String], blocks: &[String]) -> [u8; 16] {
    let mut h = blake3::Hasher::new();
    for part in headings.iter().chain([&String::new()]).chain(blocks) {
        h.update(part.as_bytes());
        h.update(&[0]);
    }
    let mut out = [0; 16];
    out.copy_from_slice(&h.finalize().as_bytes()[..16]);
    out
}

/// The rows of `stmt`, a query of (path, value).
fn pairs<'s>(
    stmt: &'s mut rusqlite::Statement<'_>,
) -> rusqlite::Result<impl Iterator<Item = rusqlite::Result<(String, String)>> + 's> {
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
}

/// The values of the page at `path` from `rows` of (path, value) in path order, the rows of
/// the paths before it passed by (those of pages that are not live wiki pages).
fn values_of(
    rows: &mut std::iter::Peekable<impl Iterator<Item = rusqlite::Result<(String, String)>>>,
    path: &str,
) -> rusqlite::Result<Vec<String>> {
    let mut values = Vec::new();
    // An error is taken too, and returned.
    while let Some(row) = rows.next_if(|r| !matches!(r, Ok((p, _)) if p.as_str() > path)) {
        let (p, v) = row?;
        if p == path {
            values.push(v);
        }
    }
    Ok(values)
}

/// Links between files, each path held once: a vault's 800,000 links as pairs of numbers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkTable {
    /// The paths, numbered by position.
    pub paths: Vec<String>,
    /// (linking file, target, whether it embeds), by number.
    pub links: Vec<(u32, u32, bool)>,
}

impl LinkTable {
    /// Add links (linking file, target, embed) after those there, numbering new paths.
    pub fn extend(&mut self, links: impl IntoIterator<Item = (String, String, bool)>) {
        let mut filling = self.filling();
        for (s, t, embed) in links {
            filling.push(&s, &t, embed);
        }
    }

    /// The table, to add links to: each path numbered once.
    fn filling(&mut self) -> Filling<'_> {
        let numbers = (self.paths.iter().cloned())
            .zip(0..)
            .collect::<HashMap<String, u32>>();
        Filling {
            table: self,
            numbers,
        }
    }

    /// Each link as (linking file, target, embed), in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str, bool)> {
        self.links.iter().map(|&(s, t, e)| {
            (
                self.paths[s as usize].as_str(),
                self.paths[t as usize].as_str(),
                e,
            )
        })
    }
}

/// A [`LinkTable`] links are added to, with the number of each path it holds.
struct Filling<'a> {
    table: &'a mut LinkTable,
    numbers: HashMap<String, u32>,
}

impl Filling<'_> {
    /// Add the link from `source` to `target`.
    fn push(&mut self, source: &str, target: &str, embed: bool) {
        let s = self.number(source);
        let t = self.number(target);
        self.table.links.push((s, t, embed));
    }

    /// The number of `path`, given it when it has none.
    fn number(&mut self, path: &str) -> u32 {
        if let Some(&n) = self.numbers.get(path) {
            return n;
        }
        let n = u32::try_from(self.table.paths.len()).unwrap_or(u32::MAX);
        self.table.paths.push(path.to_string());
        self.numbers.insert(path.to_string(), n);
        n
    }
}

/// The condition that a link's source file is live.
fn live_source() -> String {
    "NOT EXISTS (SELECT 1 FROM files f INDEXED BY files_deleted
                 WHERE f.path = l.source AND f.deleted = 1)"
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_with_tags_and_hashes_and_the_links_between_live_files() {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        m.conn
            .execute_batch(
                "PRAGMA foreign_keys = OFF;
                 INSERT INTO files (path, name_key, name_loose, path_key, size, mtime_ns,
                                    ctime_ns, inode, hash, clock_ns, changed_ns, deleted) VALUES
                    ('wiki/a.md', 'a', 'a', 'wiki/a', 1, 0, 0, 0, 'ha', 0, 0, 0),
                    ('wiki/b.md', 'b', 'b', 'wiki/b', 1, 0, 0, 0, 'hb', 0, 0, 0),
                    ('wiki/gone.md', 'gone', 'gone', 'wiki/gone', 1, 0, 0, 0, 'hg', 0, 0, 1),
                    ('raw/r.md', 'r', 'r', 'raw/r', 1, 0, 0, 0, 'hr', 0, 0, 0);
                 INSERT INTO pages (path, frontmatter, title, type, created, updated) VALUES
                    ('wiki/a.md', 'ok', 'Alpha', 'concept', '2026-05-01', '2026-05-02'),
                    ('wiki/b.md', 'ok', ' ', NULL, '2026-05-03', NULL),
                    ('wiki/gone.md', 'ok', 'Gone', NULL, NULL, NULL);
                 INSERT INTO aliases (path, seq, alias, alias_key, alias_loose) VALUES
                    ('wiki/a.md', 1, 'Old A', 'old a', 'olda');
                 INSERT INTO headings (path, seq, level, text, key, line) VALUES
                    ('wiki/a.md', 2, 2, 'Part', 'part', 5), ('wiki/a.md', 1, 1, 'Top', 'top', 1),
                    ('wiki/gone.md', 1, 1, 'Gone', 'gone', 1);
                 INSERT INTO blocks (path, block_id, line) VALUES
                    ('wiki/a.md', 'zz', 7), ('wiki/a.md', 'b1', 6), ('raw/r.md', 'r', 1);
                 INSERT INTO tags (path, tag, tag_key) VALUES
                    ('wiki/a.md', 'B-tag', 'b-tag'), ('wiki/a.md', 'a-tag', 'a-tag'),
                    ('wiki/aa.md', 'no-page', 'no-page'), ('wiki/gone.md', 'gone', 'gone');
                 INSERT INTO links (source, seq, line, target, target_key, name_key, embed,
                                    status, resolved) VALUES
                    ('wiki/a.md', 1, 1, 'B', 'b', 'b', 0, 'resolved', 'wiki/b.md'),
                    ('wiki/a.md', 2, 2, 'B', 'b', 'b', 1, 'resolved', 'wiki/b.md'),
                    ('wiki/a.md', 3, 3, 'pic.png', 'pic.png', 'pic.png', 1, 'resolved', 'wiki/pic.png'),
                    ('wiki/a.md', 4, 4, 'A', 'a', 'a', 0, 'resolved', 'wiki/a.md'),
                    ('wiki/b.md', 1, 1, 'Z', 'z', 'z', 0, 'broken', NULL),
                    ('wiki/gone.md', 1, 1, 'A', 'a', 'a', 0, 'resolved', 'wiki/a.md'),
                    ('raw/r.md', 1, 1, 'A', 'a', 'a', 0, 'resolved', 'wiki/a.md');",
            )
            .unwrap();
        let pages = m.site_pages().unwrap();
        assert_eq!(
            pages,
            [
                SitePage {
                    path: "wiki/a.md".into(),
                    title: Some("Alpha".into()),
                    kind: Some("concept".into()),
                    updated: Some("2026-05-02".into()),
                    hash: "ha".into(),
                    tags: vec!["a-tag".into(), "B-tag".into()],
                    aliases: vec!["Old A".into()],
                    anchors: anchors(
                        &["1 Top".into(), "2 Part".into()],
                        &["b1".into(), "zz".into()]
                    ),
                },
                SitePage {
                    path: "wiki/b.md".into(),
                    title: None,
                    kind: None,
                    updated: Some("2026-05-03".into()),
                    hash: "hb".into(),
                    tags: Vec::new(),
                    aliases: Vec::new(),
                    anchors: anchors(&[], &[]),
                },
            ],
            "a deleted file's page is gone; a blank title is none; created stands in for updated"
        );
        assert_eq!(
            m.site_links().unwrap().iter().collect::<Vec<_>>(),
            [
                ("wiki/a.md", "wiki/b.md", true),
                ("wiki/a.md", "wiki/pic.png", true),
            ],
            "each pair once; no link to itself, from a deleted file or from raw/"
        );
    }
}
