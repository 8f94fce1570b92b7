//! The pages' stored frontmatter, handed on one page at a time for the schema checks.

use super::Pages;
use crate::manifest::{At, FrontmatterState, Manifest, Result};

/// A page's stored frontmatter, for schema checks.
#[derive(Debug, Clone)]
pub struct PageRecord {
    /// Vault-relative path.
    pub path: String,
    /// Whether the page has a block, and whether it reads.
    pub frontmatter: FrontmatterState,
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

impl Manifest {
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
        let sql = format!(
            "SELECT path, tag_key, tag FROM tags{pass} WHERE 1{}",
            scope.and_in("path")
        );
        let mut tags: Vec<(String, String, String)> =
            self.scoped_rows(&sql, scope, |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
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
                        publish: None,
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
