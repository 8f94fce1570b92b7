//! A page's row in `pages`: made from the document, inserted, and updated in place when no
//! column that decides resolution, an index or a trigger changed.

use super::ScanTx;
use crate::key;
use crate::manifest::{At, Dirty, FrontmatterState, Result};
use crate::markdown::{Block, Document, Frontmatter};
use rusqlite::{OptionalExtension, params};

/// What of a page's row decides resolution, indexes or triggers.
#[derive(Debug, PartialEq, Eq)]
struct NameRow {
    title_key: Option<String>,
    title_loose: Option<String>,
    kind: Option<String>,
    maturity: Option<String>,
    sources: String,
}

/// A page's row in `pages`, as its columns are stored.
pub(super) struct PageRow<'a> {
    /// The frontmatter, when the block reads.
    pub(super) fm: Option<&'a Frontmatter>,
    status: FrontmatterState,
    error: Option<&'a str>,
    error_line: Option<i64>,
    title: Option<&'a str>,
    /// The title's key, when the page has a title.
    pub(super) title_key: Option<String>,
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
    path_links: bool,
}

impl<'a> PageRow<'a> {
    pub(super) fn of(doc: &'a Document) -> PageRow<'a> {
        let (status, error, error_line, fm) = match &doc.block {
            Block::None => (FrontmatterState::Missing, None, None, None),
            Block::Invalid { line, message } => (
                FrontmatterState::Invalid,
                Some(message.as_str()),
                Some(*line as i64),
                None,
            ),
            Block::Valid(fm) => (FrontmatterState::Valid, None, None, Some(fm)),
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
            path_links: doc.outline.path_links,
        }
    }

    /// Whether `stored` holds the same names as this row.
    fn same_names(&self, stored: &NameRow) -> bool {
        (
            &stored.title_key,
            &stored.title_loose,
            &stored.kind,
            &stored.maturity,
            &stored.sources,
        ) == (
            &self.title_key,
            &self.title_loose,
            &self.kind,
            &self.maturity,
            &self.sources,
        )
    }
}

impl ScanTx<'_> {
    /// Bring the page's row to `page`: updated in place when its names are as stored (its
    /// title and aliases keep their meaning), else replaced, the old and new title marked
    /// dirty.
    pub(super) fn update_page(
        &self,
        path: &str,
        page: &PageRow<'_>,
        dirty: &mut Dirty,
    ) -> Result<()> {
        let stored: Option<(NameRow, Option<String>)> = self
            .tx
            .prepare_cached(
                "SELECT title_key, title_loose, type, maturity, sources, updated FROM pages
                 WHERE path = ?1",
            )
            .and_then(|mut s| {
                s.query_row([path], |r| {
                    Ok((
                        NameRow {
                            title_key: r.get(0)?,
                            title_loose: r.get(1)?,
                            kind: r.get(2)?,
                            maturity: r.get(3)?,
                            sources: r.get(4)?,
                        },
                        r.get(5)?,
                    ))
                })
                .optional()
            })
            .at(&self.path)?;
        let (stored, stored_updated) = stored.unzip();
        if stored.as_ref().is_some_and(|s| page.same_names(s)) {
            // No indexed column and no trigger's column changes: the row is updated in place.
            // `updated` is set only when it changed: SQLite rewrites the entry of an index
            // (`pages_recent`) whenever its column is set, even to the value it had.
            self.tx
                .prepare_cached(
                    "UPDATE pages SET frontmatter = ?2, error = ?3, error_line = ?4, title = ?5,
                        created = ?6, problems = ?7, body_line = ?8, sentences = ?9,
                        key_lines = ?10, path_links = ?11
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
                        page.path_links,
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
            if let Some(Some(k)) = stored.map(|s| s.title_key) {
                dirty.insert(k);
            }
            if let Some(k) = &page.title_key {
                dirty.insert(k.clone());
            }
            self.run("DELETE FROM pages WHERE path = ?1", path)?;
            self.insert_page(path, page)?;
        }
        Ok(())
    }

    pub(super) fn insert_page(&self, path: &str, page: &PageRow<'_>) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO pages (path, frontmatter, error, error_line, title, title_key, type,
                                    maturity, created, updated, sources, problems, body_line,
                                    sentences, title_loose, key_lines, path_links)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                         ?17)",
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
                    page.path_links,
                ])
            })
            .at(&self.path)?;
        Ok(())
    }
}
