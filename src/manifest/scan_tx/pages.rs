//! What the scan writes of a page: its row, tags, aliases, links (pending resolution),
//! headings and block ids; and their removal when the page changes or goes.

use super::{Dirty, ScanTx};
use crate::key;
use crate::manifest::{At, Result};
use crate::markdown::{Block, Document};
use rusqlite::params;

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
            t.prepare_cached(sql)
                .and_then(|mut s| s.execute([path]))
                .at(&self.path)?;
        }
        Ok(())
    }

    pub(super) fn insert_document(
        &self,
        path: &str,
        doc: &Document,
        dirty: &mut Dirty,
    ) -> Result<()> {
        let t = &self.tx;
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
        let title_key = title.map(key::key);
        if let Some(k) = &title_key {
            dirty.insert(k.clone());
        }
        let json = |v: &[String]| serde_json::to_string(v).unwrap_or_else(|_| "[]".into());
        let empty: Vec<String> = Vec::new();
        let problems = fm.map_or("[]".to_string(), |f| {
            serde_json::to_string(&f.problems).unwrap_or_else(|_| "[]".into())
        });
        t.prepare_cached(
            "INSERT INTO pages (path, frontmatter, error, error_line, title, title_key, type, maturity,
                                created, updated, sources, problems, body_line, sentences, title_loose,
                                key_lines)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        )
        .and_then(|mut s| {
            s.execute(params![
                path,
                status,
                error,
                error_line,
                title,
                title_key,
                fm.and_then(|f| f.kind.as_deref()),
                fm.and_then(|f| f.maturity.as_deref()),
                fm.and_then(|f| f.created.as_deref()),
                fm.and_then(|f| f.updated.as_deref()),
                json(fm.map_or(&empty, |f| &f.sources)),
                problems,
                doc.body_line as i64,
                doc.outline.sentences as i64,
                title.map(key::loose_key),
                fm.map_or("[]".to_string(), |f| serde_json::to_string(&f.lines).unwrap_or_else(|_| "[]".into())),
            ])
        })
        .at(&self.path)?;
        if let Some(fm) = fm {
            let mut tag = t
                .prepare_cached(
                    "INSERT OR IGNORE INTO tags (path, tag, tag_key) VALUES (?1, ?2, ?3)",
                )
                .at(&self.path)?;
            for tg in &fm.tags {
                let tg = tg.trim();
                if !tg.is_empty() {
                    tag.execute(params![path, tg, key::key(tg.trim_start_matches('#'))])
                        .at(&self.path)?;
                }
            }
            let mut alias = t
                .prepare_cached(
                    "INSERT INTO aliases (path, seq, alias, alias_key, alias_loose)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .at(&self.path)?;
            for (i, a) in fm.aliases.iter().enumerate() {
                if !a.trim().is_empty() {
                    let k = key::key(a);
                    alias
                        .execute(params![path, i as i64, a, k, key::loose_key(a)])
                        .at(&self.path)?;
                    dirty.insert(k);
                }
            }
        }
        let mut link = t
            .prepare_cached(
                "INSERT INTO links (source, seq, line, target, target_key, name_key, heading, block,
                                    label, embed, status, resolved, candidates, heading_key)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            )
            .at(&self.path)?;
        for (i, l) in doc.outline.links.iter().enumerate() {
            let target_key = key::link_key(&l.target);
            let name_key = key::last_component(&target_key).to_string();
            // A link to a heading of the page itself needs no resolution.
            let (status, resolved) = if l.target.is_empty() {
                ("resolved", Some(path))
            } else {
                ("pending", None)
            };
            link.execute(params![
                path,
                i as i64,
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
        }
        let mut heading = t
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
        let mut block = t
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
