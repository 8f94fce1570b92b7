//! Recent activity, for `brief`.

use super::{At, Manifest, Result};
use std::ops::ControlFlow;

/// A raw file modified in the window.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RawFile {
    /// Vault-relative path.
    pub path: String,
    /// Its local modification date.
    pub modified: String,
    /// Its modification time, RFC 3339 in UTC (the original's key).
    pub mtime: String,
}

/// A page updated in the window.
#[derive(Debug, Clone, serde::Serialize)]
pub struct UpdatedPage {
    /// Vault-relative path.
    pub path: String,
    /// `title:`
    pub title: Option<String>,
    /// `type:`
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// `maturity:`
    pub maturity: Option<String>,
    /// `updated:`
    pub updated: String,
}

impl Manifest {
    /// `give` each raw file (outside the CLI-owned `raw/inbox/` and `raw/archive/`) whose
    /// local modification date is between `from` and `to` (`YYYY-MM-DD`, inclusive), newest
    /// first, as it is read, until it breaks.
    pub fn each_raw_modified(
        &self,
        from: &str,
        to: &str,
        give: &mut dyn FnMut(RawFile) -> ControlFlow<()>,
    ) -> Result<()> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT path, date(mtime_ns / 1000000000, 'unixepoch', 'localtime') AS d,
                        strftime('%Y-%m-%dT%H:%M:%SZ', mtime_ns / 1000000000, 'unixepoch') FROM files
                 WHERE deleted = 0 AND substr(path, 1, 4) = 'raw/'
                   AND substr(path, 1, 10) <> 'raw/inbox/' AND substr(path, 1, 12) <> 'raw/archive/'
                   AND d BETWEEN ?1 AND ?2
                 ORDER BY mtime_ns DESC, path",
            )
            .at(&self.path)?;
        let mut rows = stmt.query([from, to]).at(&self.path)?;
        while let Some(r) = rows.next().at(&self.path)? {
            let file = RawFile {
                path: r.get(0).at(&self.path)?,
                modified: r.get(1).at(&self.path)?,
                mtime: r.get(2).at(&self.path)?,
            };
            if give(file).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// `give` each page whose `updated:` date is between `from` and `to`, newest first, as it
    /// is read, until it breaks.
    pub fn each_page_updated(
        &self,
        from: &str,
        to: &str,
        give: &mut dyn FnMut(UpdatedPage) -> ControlFlow<()>,
    ) -> Result<()> {
        // Only the paths are sorted (SQLite sorts in memory here): each page's row is read
        // as it is given, so that the sort holds the keys of what is found, not its titles.
        let mut sorted = self
            .conn
            .prepare(
                "SELECT path FROM pages
                 WHERE date(updated) = updated AND updated BETWEEN ?1 AND ?2
                 ORDER BY updated DESC, path",
            )
            .at(&self.path)?;
        let mut row = self
            .conn
            .prepare("SELECT title, type, maturity, updated FROM pages WHERE path = ?1")
            .at(&self.path)?;
        let mut paths = sorted.query([from, to]).at(&self.path)?;
        while let Some(r) = paths.next().at(&self.path)? {
            let path: String = r.get(0).at(&self.path)?;
            let page = row
                .query_row([&path], |r| {
                    Ok(UpdatedPage {
                        title: r.get(0)?,
                        kind: r.get(1)?,
                        maturity: r.get(2)?,
                        updated: r.get(3)?,
                        path: String::new(),
                    })
                })
                .at(&self.path)?;
            if give(UpdatedPage { path, ..page }).is_break() {
                break;
            }
        }
        Ok(())
    }
}
