//! A page's headings and block ids: inserted, their lines updated in place when only they
//! moved, and replaced when they differ otherwise.

use super::{LineTable, ScanTx};
use crate::key;
use crate::manifest::{At, Result};
use crate::markdown::Document;
use rusqlite::params;

/// A heading as stored.
#[derive(Debug, PartialEq, Eq)]
struct HeadingRow {
    level: i64,
    text: String,
    line: i64,
}

const HEADINGS: LineTable = LineTable {
    set_line: "UPDATE headings SET line = ?3 WHERE path = ?1 AND seq = ?2",
    delete: "DELETE FROM headings WHERE path = ?1",
    insert: |tx, path, doc| tx.insert_headings(path, doc),
};

impl ScanTx<'_> {
    /// Bring the page's headings to `doc`'s: their lines set when only they moved.
    pub(super) fn update_headings(&self, path: &str, doc: &Document) -> Result<()> {
        let headings: Vec<HeadingRow> = self.rows(
            "SELECT level, text, line FROM headings WHERE path = ?1 ORDER BY seq",
            path,
            |r| {
                Ok(HeadingRow {
                    level: r.get(0)?,
                    text: r.get(1)?,
                    line: r.get(2)?,
                })
            },
        )?;
        let same_heading =
            |a: &HeadingRow, b: &HeadingRow| (a.level, &a.text) == (b.level, &b.text);
        let new_headings = heading_rows(doc);
        self.sync_lines(
            path,
            doc,
            &HEADINGS,
            (&headings, &new_headings),
            |h| h.line,
            same_heading,
        )
    }

    /// Replace the page's block ids when they differ from `doc`'s.
    pub(super) fn update_blocks(&self, path: &str, doc: &Document) -> Result<()> {
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

    pub(super) fn insert_headings(&self, path: &str, doc: &Document) -> Result<()> {
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

    pub(super) fn insert_blocks(&self, path: &str, doc: &Document) -> Result<()> {
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
}

fn heading_rows(doc: &Document) -> Vec<HeadingRow> {
    doc.outline
        .headings
        .iter()
        .map(|h| HeadingRow {
            level: i64::from(h.level),
            text: h.text.clone(),
            line: h.line as i64,
        })
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
