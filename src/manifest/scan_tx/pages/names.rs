//! A page's tags and aliases: inserted, and replaced when they differ from the stored ones
//! (an alias changed marks the old and new names dirty).

use super::ScanTx;
use crate::key;
use crate::manifest::{At, Dirty, Result};
use crate::markdown::Frontmatter;
use rusqlite::params;

impl ScanTx<'_> {
    /// Replace the page's tags when they differ from `fm`'s.
    pub(super) fn update_tags(&self, path: &str, fm: Option<&Frontmatter>) -> Result<()> {
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
        Ok(())
    }

    /// Replace the page's aliases when they differ from `fm`'s, marking the old and the new
    /// dirty.
    pub(super) fn update_aliases(
        &self,
        path: &str,
        fm: Option<&Frontmatter>,
        dirty: &mut Dirty,
    ) -> Result<()> {
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
        Ok(())
    }

    pub(super) fn insert_tags(&self, path: &str, fm: &Frontmatter) -> Result<()> {
        let mut tag = self
            .tx
            .prepare_cached("INSERT OR IGNORE INTO tags (path, tag, tag_key) VALUES (?1, ?2, ?3)")
            .at(&self.path)?;
        for (tg, k) in tag_rows(fm) {
            tag.execute(params![path, tg, k]).at(&self.path)?;
        }
        Ok(())
    }

    pub(super) fn insert_aliases(
        &self,
        path: &str,
        fm: &Frontmatter,
        dirty: &mut Dirty,
    ) -> Result<()> {
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
