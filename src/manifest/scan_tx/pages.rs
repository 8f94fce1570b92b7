//! What the scan writes of a page: its row, tags, aliases, links (pending resolution),
//! headings and block ids; their removal when the page goes; and, when a page is read again,
//! only the rows that differ from the stored ones.
//!
//! An edit rarely changes a page's title, aliases or links. Deleting and inserting every row
//! of an edited page rewrote each link's entries in five indexes and made every link to it
//! (and from it) be resolved again; now an edit that only moves lines updates line numbers,
//! one that changes links without adding or removing any rewrites those links' rows alone
//! (the one link in each page that `mv` retargets), and one that leaves the title and aliases
//! alone marks no name as changed.

use super::{Dirty, ScanTx};
use crate::key;
use crate::manifest::{At, Result};
use crate::markdown::{Block, Document, Frontmatter};
use rusqlite::{OptionalExtension, params};

/// A link as the `links` table stores what the page wrote: line, target, heading, block,
/// label, embed.
type LinkRow = (
    i64,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    bool,
);

/// What of a page's row decides resolution, indexes or triggers: title key, loose title,
/// type, maturity, sources.
type NameRow = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    String,
);

/// A heading as stored: level, text, line.
type HeadingRow = (i64, String, i64);

/// A table of rows with line numbers that an edit may only move: how to set a row's line,
/// and how to replace the page's rows.
struct LineTable {
    set_line: &'static str,
    delete: &'static str,
    insert: fn(&ScanTx<'_>, &str, &Document) -> Result<()>,
}

/// A page's links are brought up to date by [`ScanTx::relink`] when they are as many as
/// before (a line moved or a link edited), and replaced otherwise.
const LINK_SET_LINE: &str = "UPDATE links SET line = ?3 WHERE source = ?1 AND seq = ?2";
const LINKS_DELETE: &str = "DELETE FROM links WHERE source = ?1";

const HEADINGS: LineTable = LineTable {
    set_line: "UPDATE headings SET line = ?3 WHERE path = ?1 AND seq = ?2",
    delete: "DELETE FROM headings WHERE path = ?1",
    insert: |tx, path, doc| tx.insert_headings(path, doc),
};

impl ScanTx<'_> {
    /// Remove the page, links, headings and blocks of `path`, noting its title and aliases.
    pub(super) fn clear_derived(&self, path: &str, dirty: &mut Dirty) -> Result<()> {
        let t = &self.tx;
        let mut old = t
            .prepare_cached(
                "SELECT title_key FROM pages WHERE path = ?1 AND title_key IS NOT NULL
                 UNION ALL SELECT alias_key FROM aliases WHERE path = ?1",
            )
            .at(&self.path)?;
        let keys = old
            .query_map([path], |r| r.get::<_, String>(0))
            .at(&self.path)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .at(&self.path)?;
        dirty.extend(keys);
        for sql in [
            "DELETE FROM tags WHERE path = ?1",
            "DELETE FROM aliases WHERE path = ?1",
            "DELETE FROM pages WHERE path = ?1",
            "DELETE FROM links WHERE source = ?1",
            "DELETE FROM headings WHERE path = ?1",
            "DELETE FROM blocks WHERE path = ?1",
        ] {
            self.run(sql, path)?;
        }
        Ok(())
    }

    /// Store a page read for the first time (or back from deletion): every row is new.
    pub(super) fn insert_document(
        &self,
        path: &str,
        doc: &Document,
        dirty: &mut Dirty,
    ) -> Result<()> {
        let page = PageRow::of(doc);
        if let Some(k) = &page.title_key {
            dirty.insert(k.clone());
        }
        self.insert_page(path, &page)?;
        if let Some(fm) = page.fm {
            self.insert_tags(path, fm)?;
            self.insert_aliases(path, fm, dirty)?;
        }
        self.insert_links(path, doc)?;
        self.insert_headings(path, doc)?;
        self.insert_blocks(path, doc)
    }

    /// Store a page read again: each of its tables is compared with what is stored, and
    /// rewritten only where it differs. Names whose meaning may change (the old and new title
    /// and aliases) are marked dirty only when they changed.
    pub(super) fn update_document(
        &self,
        path: &str,
        doc: &Document,
        dirty: &mut Dirty,
    ) -> Result<()> {
        let page = PageRow::of(doc);
        let stored: Option<(NameRow, Option<String>)> = self
            .tx
            .prepare_cached(
                "SELECT title_key, title_loose, type, maturity, sources, updated FROM pages
                 WHERE path = ?1",
            )
            .and_then(|mut s| {
                s.query_row([path], |r| {
                    Ok((
                        (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?),
                        r.get(5)?,
                    ))
                })
                .optional()
            })
            .at(&self.path)?;
        let (stored, stored_updated) = stored.unzip();
        let same_names = stored.as_ref().is_some_and(|s| {
            (&s.0, &s.1, &s.2, &s.3, &s.4)
                == (
                    &page.title_key,
                    &page.title_loose,
                    &page.kind,
                    &page.maturity,
                    &page.sources,
                )
        });
        if same_names {
            // No indexed column and no trigger's column changes: the row is updated in place.
            // `updated` is set only when it changed: SQLite rewrites the entry of an index
            // (`pages_recent`) whenever its column is set, even to the value it had.
            self.tx
                .prepare_cached(
                    "UPDATE pages SET frontmatter = ?2, error = ?3, error_line = ?4, title = ?5,
                        created = ?6, problems = ?7, body_line = ?8, sentences = ?9,
                        key_lines = ?10
                     WHERE path = ?1",
                )
                .and_then(|mut s| {
                    s.execute(params![
                        path,
                        page.status,
                        page.error,
                        page.error_line,
                        page.title,
                        page.created,
                        page.problems,
                        page.body_line,
                        page.sentences,
                        page.key_lines,
                    ])
                })
                .at(&self.path)?;
            if stored_updated.flatten().as_deref() != page.updated {
                self.tx
                    .prepare_cached("UPDATE pages SET updated = ?2 WHERE path = ?1")
                    .and_then(|mut s| s.execute(params![path, page.updated]))
                    .at(&self.path)?;
            }
        } else {
            if let Some(Some(k)) = stored.map(|s| s.0) {
                dirty.insert(k);
            }
            if let Some(k) = &page.title_key {
                dirty.insert(k.clone());
            }
            self.run("DELETE FROM pages WHERE path = ?1", path)?;
            self.insert_page(path, &page)?;
        }
        let fm = page.fm;
        let tags: Vec<(String, String)> = self.rows(
            "SELECT tag, tag_key FROM tags WHERE path = ?1 ORDER BY rowid",
            path,
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        if tags != fm.map(tag_rows).unwrap_or_default() {
            self.run("DELETE FROM tags WHERE path = ?1", path)?;
            if let Some(fm) = fm {
                self.insert_tags(path, fm)?;
            }
        }
        let aliases: Vec<(i64, String)> = self.rows(
            "SELECT seq, alias FROM aliases WHERE path = ?1 ORDER BY seq",
            path,
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        if aliases != fm.map(alias_rows).unwrap_or_default() {
            dirty.extend(aliases.iter().map(|(_, a)| key::key(a)));
            self.run("DELETE FROM aliases WHERE path = ?1", path)?;
            if let Some(fm) = fm {
                self.insert_aliases(path, fm, dirty)?;
            }
        }
        let links: Vec<LinkRow> = self.rows(
            "SELECT line, target, heading, block, label, embed FROM links
             WHERE source = ?1 ORDER BY seq",
            path,
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            },
        )?;
        let same_link = |a: &LinkRow, b: &LinkRow| {
            (&a.1, &a.2, &a.3, &a.4, a.5) == (&b.1, &b.2, &b.3, &b.4, b.5)
        };
        let new_links = link_rows(doc);
        if links.len() == new_links.len() {
            // As many links as before (a link edited, or retargeted by `mv`): only the rows
            // that differ are written, in place; the others keep their rows and resolution.
            self.relink(path, doc, &links, &new_links, same_link)?;
        } else {
            self.run(LINKS_DELETE, path)?;
            self.insert_links(path, doc)?;
        }
        let headings: Vec<HeadingRow> = self.rows(
            "SELECT level, text, line FROM headings WHERE path = ?1 ORDER BY seq",
            path,
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let same_heading = |a: &HeadingRow, b: &HeadingRow| (a.0, &a.1) == (b.0, &b.1);
        let new_headings = heading_rows(doc);
        self.sync_lines(
            path,
            doc,
            &HEADINGS,
            (&headings, &new_headings),
            |h| h.2,
            same_heading,
        )?;
        let blocks: Vec<(String, i64)> = self.rows(
            "SELECT block_id, line FROM blocks WHERE path = ?1 ORDER BY block_id",
            path,
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        if blocks != block_rows(doc) {
            self.run("DELETE FROM blocks WHERE path = ?1", path)?;
            self.insert_blocks(path, doc)?;
        }
        Ok(())
    }

    fn insert_page(&self, path: &str, page: &PageRow<'_>) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO pages (path, frontmatter, error, error_line, title, title_key, type,
                                    maturity, created, updated, sources, problems, body_line,
                                    sentences, title_loose, key_lines)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    path,
                    page.status,
                    page.error,
                    page.error_line,
                    page.title,
                    page.title_key,
                    page.kind,
                    page.maturity,
                    page.created,
                    page.updated,
                    page.sources,
                    page.problems,
                    page.body_line,
                    page.sentences,
                    page.title_loose,
                    page.key_lines,
                ])
            })
            .at(&self.path)?;
        Ok(())
    }

    fn insert_tags(&self, path: &str, fm: &Frontmatter) -> Result<()> {
        let mut tag = self
            .tx
            .prepare_cached("INSERT OR IGNORE INTO tags (path, tag, tag_key) VALUES (?1, ?2, ?3)")
            .at(&self.path)?;
        for (tg, k) in tag_rows(fm) {
            tag.execute(params![path, tg, k]).at(&self.path)?;
        }
        Ok(())
    }

    fn insert_aliases(&self, path: &str, fm: &Frontmatter, dirty: &mut Dirty) -> Result<()> {
        let mut alias = self
            .tx
            .prepare_cached(
                "INSERT INTO aliases (path, seq, alias, alias_key, alias_loose)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .at(&self.path)?;
        for (i, a) in alias_rows(fm) {
            let k = key::key(&a);
            alias
                .execute(params![path, i, a, k, key::loose_key(&a)])
                .at(&self.path)?;
            dirty.insert(k);
        }
        Ok(())
    }

    fn insert_links(&self, path: &str, doc: &Document) -> Result<()> {
        let mut link = self
            .tx
            .prepare_cached(
                "INSERT INTO links (source, seq, line, target, target_key, name_key, heading, block,
                                    label, embed, status, resolved, candidates, heading_key)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            )
            .at(&self.path)?;
        for seq in 0..doc.outline.links.len() {
            self.write_link(&mut link, path, doc, seq)?;
        }
        Ok(())
    }

    /// Bring `path`'s link rows (`stored`) to the page's (`new`), as many: a link that
    /// differs only by its line has the line set; one that differs otherwise is rewritten in
    /// place, its resolution dropped to be found again; the rest stay as they are. Renaming a
    /// page rewrites one link of each page that links to it: deleting and inserting all of
    /// each page's links rewrote every row's entries in six indexes.
    fn relink(
        &self,
        path: &str,
        doc: &Document,
        stored: &[LinkRow],
        new: &[LinkRow],
        same: impl Fn(&LinkRow, &LinkRow) -> bool,
    ) -> Result<()> {
        let mut moved = Vec::new();
        for (seq, (o, n)) in stored.iter().zip(new).enumerate() {
            if !same(o, n) {
                let mut link = self
                    .tx
                    .prepare_cached(
                        "UPDATE links SET line = ?3, target = ?4, target_key = ?5, name_key = ?6,
                            heading = ?7, block = ?8, label = ?9, embed = ?10, status = ?11,
                            resolved = ?12, candidates = ?13, heading_key = ?14
                         WHERE source = ?1 AND seq = ?2",
                    )
                    .at(&self.path)?;
                self.write_link(&mut link, path, doc, seq)?;
            } else if o.0 != n.0 {
                moved.push((seq as i64, n.0));
            }
        }
        self.set_lines(LINK_SET_LINE, path, &moved)
    }

    /// Run `stmt` (an insert or an update of one link row, parameters as `insert_links`
    /// names them) for the link `seq` of `doc`, as a link still to resolve.
    fn write_link(
        &self,
        stmt: &mut rusqlite::CachedStatement<'_>,
        path: &str,
        doc: &Document,
        seq: usize,
    ) -> Result<()> {
        let l = &doc.outline.links[seq];
        let target_key = key::link_key(&l.target);
        let name_key = key::last_component(&target_key).to_string();
        // A link to a heading of the page itself needs no resolution.
        let (status, resolved) = if l.target.is_empty() {
            ("resolved", Some(path))
        } else {
            ("pending", None)
        };
        stmt.execute(params![
            path,
            seq as i64,
            l.line as i64,
            l.target,
            target_key,
            name_key,
            l.heading,
            l.block,
            l.label,
            l.embed,
            status,
            resolved,
            i64::from(resolved.is_some()),
            l.heading.as_deref().map(key::link_heading_key),
        ])
        .at(&self.path)?;
        Ok(())
    }

    fn insert_headings(&self, path: &str, doc: &Document) -> Result<()> {
        let mut heading = self
            .tx
            .prepare_cached(
                "INSERT INTO headings (path, seq, level, text, key, line) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .at(&self.path)?;
        for (i, h) in doc.outline.headings.iter().enumerate() {
            heading
                .execute(params![
                    path,
                    i as i64,
                    h.level,
                    h.text,
                    key::heading_key(&h.text),
                    h.line as i64
                ])
                .at(&self.path)?;
        }
        Ok(())
    }

    fn insert_blocks(&self, path: &str, doc: &Document) -> Result<()> {
        let mut block = self
            .tx
            .prepare_cached(
                "INSERT OR IGNORE INTO blocks (path, block_id, line) VALUES (?1, ?2, ?3)",
            )
            .at(&self.path)?;
        for (id, line) in &doc.outline.blocks {
            block
                .execute(params![path, id, *line as i64])
                .at(&self.path)?;
        }
        Ok(())
    }

    /// Bring `path`'s rows of a table with line numbers (`stored`) to the page's (`new`): the
    /// lines updated in place when only they moved, every row replaced otherwise.
    fn sync_lines<R>(
        &self,
        path: &str,
        doc: &Document,
        table: &LineTable,
        (stored, new): (&[R], &[R]),
        line: impl Fn(&R) -> i64,
        same: impl Fn(&R, &R) -> bool,
    ) -> Result<()> {
        match moved_lines(stored, new, line, same) {
            Some(moved) => self.set_lines(table.set_line, path, &moved),
            None => {
                self.run(table.delete, path)?;
                (table.insert)(self, path, doc)
            }
        }
    }

    /// Set the line of each `(seq, line)` of `path`'s rows with `sql` (`?1` path, `?2` seq,
    /// `?3` line).
    fn set_lines(&self, sql: &str, path: &str, moved: &[(i64, i64)]) -> Result<()> {
        let mut stmt = self.tx.prepare_cached(sql).at(&self.path)?;
        for (seq, line) in moved {
            stmt.execute(params![path, seq, line]).at(&self.path)?;
        }
        Ok(())
    }

    /// Run a statement whose one parameter is the path.
    fn run(&self, sql: &str, path: &str) -> Result<()> {
        self.tx
            .prepare_cached(sql)
            .and_then(|mut s| s.execute([path]))
            .at(&self.path)?;
        Ok(())
    }

    /// The rows of a query whose one parameter is the path.
    fn rows<T>(
        &self,
        sql: &str,
        path: &str,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let mut stmt = self.tx.prepare_cached(sql).at(&self.path)?;
        let rows = stmt.query_map([path], row).at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }
}

/// A page's row in `pages`, as its columns are stored.
struct PageRow<'a> {
    fm: Option<&'a Frontmatter>,
    status: &'static str,
    error: Option<&'a str>,
    error_line: Option<i64>,
    title: Option<&'a str>,
    title_key: Option<String>,
    title_loose: Option<String>,
    kind: Option<String>,
    maturity: Option<String>,
    created: Option<&'a str>,
    updated: Option<&'a str>,
    sources: String,
    problems: String,
    body_line: i64,
    sentences: i64,
    key_lines: String,
}

impl<'a> PageRow<'a> {
    fn of(doc: &'a Document) -> PageRow<'a> {
        let (status, error, error_line, fm) = match &doc.block {
            Block::None => ("none", None, None, None),
            Block::Invalid { line, message } => {
                ("invalid", Some(message.as_str()), Some(*line as i64), None)
            }
            Block::Valid(fm) => ("ok", None, None, Some(fm)),
        };
        let title = fm
            .and_then(|f| f.title.as_deref())
            .filter(|t| !t.trim().is_empty());
        let json =
            |v: std::result::Result<String, serde_json::Error>| v.unwrap_or_else(|_| "[]".into());
        PageRow {
            fm,
            status,
            error,
            error_line,
            title,
            title_key: title.map(key::key),
            title_loose: title.map(key::loose_key),
            kind: fm.and_then(|f| f.kind.clone()),
            maturity: fm.and_then(|f| f.maturity.clone()),
            created: fm.and_then(|f| f.created.as_deref()),
            updated: fm.and_then(|f| f.updated.as_deref()),
            sources: json(serde_json::to_string(fm.map_or(&[][..], |f| &f.sources))),
            problems: fm.map_or("[]".to_string(), |f| {
                json(serde_json::to_string(&f.problems))
            }),
            body_line: doc.body_line as i64,
            sentences: doc.outline.sentences as i64,
            key_lines: fm.map_or("[]".to_string(), |f| json(serde_json::to_string(&f.lines))),
        }
    }
}

/// The tags a page stores, in order, each key once: `(tag, tag_key)`.
fn tag_rows(fm: &Frontmatter) -> Vec<(String, String)> {
    let mut seen = std::collections::HashSet::new();
    fm.tags
        .iter()
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .map(|t| (t.to_string(), key::key(t.trim_start_matches('#'))))
        .filter(|(_, k)| seen.insert(k.clone()))
        .collect()
}

/// The aliases a page stores: `(seq, alias)`, blank ones left out.
fn alias_rows(fm: &Frontmatter) -> Vec<(i64, String)> {
    fm.aliases
        .iter()
        .enumerate()
        .filter(|(_, a)| !a.trim().is_empty())
        .map(|(i, a)| (i as i64, a.clone()))
        .collect()
}

fn link_rows(doc: &Document) -> Vec<LinkRow> {
    doc.outline
        .links
        .iter()
        .map(|l| {
            (
                l.line as i64,
                l.target.clone(),
                l.heading.clone(),
                l.block.clone(),
                l.label.clone(),
                l.embed,
            )
        })
        .collect()
}

fn heading_rows(doc: &Document) -> Vec<HeadingRow> {
    doc.outline
        .headings
        .iter()
        .map(|h| (i64::from(h.level), h.text.clone(), h.line as i64))
        .collect()
}

/// The block ids a page stores, by id: the first line of each.
fn block_rows(doc: &Document) -> Vec<(String, i64)> {
    let mut first = std::collections::BTreeMap::new();
    for (id, line) in &doc.outline.blocks {
        first.entry(id.clone()).or_insert(*line as i64);
    }
    first.into_iter().collect()
}

/// When `new` is `old` with only line numbers changed (`same` compares everything else), the
/// `(seq, line)` of each row whose line moved (possibly none); otherwise `None`.
fn moved_lines<R>(
    old: &[R],
    new: &[R],
    line: impl Fn(&R) -> i64,
    same: impl Fn(&R, &R) -> bool,
) -> Option<Vec<(i64, i64)>> {
    if old.len() != new.len() {
        return None;
    }
    let mut moved = Vec::new();
    for (seq, (o, n)) in old.iter().zip(new).enumerate() {
        if !same(o, n) {
            return None;
        }
        if line(o) != line(n) {
            moved.push((seq as i64, line(n)));
        }
    }
    Some(moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_moved_lines_are_updated_in_place() {
        let row = |line: i64, t: &str| (line, t.to_string());
        let line = |r: &(i64, String)| r.0;
        let same = |a: &(i64, String), b: &(i64, String)| a.1 == b.1;
        let old = [row(3, "A"), row(5, "B")];
        assert_eq!(moved_lines(&old, &old, line, same), Some(vec![]));
        assert_eq!(
            moved_lines(&old, &[row(3, "A"), row(9, "B")], line, same),
            Some(vec![(1, 9)])
        );
        assert_eq!(
            moved_lines(&old, &[row(3, "A"), row(5, "C")], line, same),
            None
        );
        assert_eq!(moved_lines(&old, &[row(3, "A")], line, same), None);
    }
}
