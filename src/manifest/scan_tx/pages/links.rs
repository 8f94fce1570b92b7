//! The links a page writes, as the `links` table stores them (pending resolution, which
//! `scan_tx/links.rs` does): inserted, or, when the page has as many links as before, only
//! the rows that differ rewritten in place.

use super::ScanTx;
use crate::key;
use crate::manifest::{At, LinkStatus, Result};
use crate::markdown::Document;
use rusqlite::params;

/// A page's links are brought up to date by [`ScanTx::relink`] when they are as many as
/// before (a line moved or a link edited), and replaced otherwise.
const LINK_SET_LINE: &str = "UPDATE links SET line = ?3 WHERE source = ?1 AND seq = ?2";
const LINKS_DELETE: &str = "DELETE FROM links WHERE source = ?1";

/// A link as the `links` table stores what the page wrote.
#[derive(Debug, PartialEq, Eq)]
struct LinkRow {
    line: i64,
    target: String,
    heading: Option<String>,
    block: Option<String>,
    label: Option<String>,
    embed: bool,
}

impl LinkRow {
    /// Whether `other` is the same link, wherever its line.
    fn same_link(&self, other: &LinkRow) -> bool {
        (
            &self.target,
            &self.heading,
            &self.block,
            &self.label,
            self.embed,
        ) == (
            &other.target,
            &other.heading,
            &other.block,
            &other.label,
            other.embed,
        )
    }
}

impl ScanTx<'_> {
    /// Bring the page's links to `doc`'s. With as many links as before (a link edited, or
    /// retargeted by `mv`), only the rows that differ are written, in place; the others keep
    /// their rows and resolution. Otherwise every row is replaced.
    pub(super) fn update_links(&self, path: &str, doc: &Document) -> Result<()> {
        let links: Vec<LinkRow> = self.rows(
            "SELECT line, target, heading, block, label, embed FROM links
             WHERE source = ?1 ORDER BY seq",
            path,
            |r| {
                Ok(LinkRow {
                    line: r.get(0)?,
                    target: r.get(1)?,
                    heading: r.get(2)?,
                    block: r.get(3)?,
                    label: r.get(4)?,
                    embed: r.get(5)?,
                })
            },
        )?;
        let new_links = link_rows(doc);
        if links.len() == new_links.len() {
            self.relink(path, doc, &links, &new_links)
        } else {
            self.run(LINKS_DELETE, path)?;
            self.insert_links(path, doc)
        }
    }

    pub(super) fn insert_links(&self, path: &str, doc: &Document) -> Result<()> {
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
    ) -> Result<()> {
        let mut moved = Vec::new();
        for (seq, (o, n)) in stored.iter().zip(new).enumerate() {
            if !o.same_link(n) {
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
            } else if o.line != n.line {
                moved.push((seq as i64, n.line));
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
            (LinkStatus::Resolved, Some(path))
        } else {
            (LinkStatus::Pending, None)
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
}

fn link_rows(doc: &Document) -> Vec<LinkRow> {
    doc.outline
        .links
        .iter()
        .map(|l| LinkRow {
            line: l.line as i64,
            target: l.target.clone(),
            heading: l.heading.clone(),
            block: l.block.clone(),
            label: l.label.clone(),
            embed: l.embed,
        })
        .collect()
}
