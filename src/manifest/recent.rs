//! Recent activity, for `brief`.

use super::{At, Manifest, Result};

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
    /// Raw files (outside the CLI-owned `raw/inbox/` and `raw/archive/`) whose local
    /// modification date is between `from` and `to` (`YYYY-MM-DD`, inclusive), newest first.
    pub fn raw_modified_between(&self, from: &str, to: &str) -> Result<Vec<RawFile>> {
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
        let rows = stmt
            .query_map([from, to], |r| {
                Ok(RawFile {
                    path: r.get(0)?,
                    modified: r.get(1)?,
                    mtime: r.get(2)?,
                })
            })
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }

    /// Pages whose `updated:` date is between `from` and `to`, newest first.
    pub fn pages_updated_between(&self, from: &str, to: &str) -> Result<Vec<UpdatedPage>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT path, title, type, maturity, updated FROM pages
                 WHERE date(updated) = updated AND updated BETWEEN ?1 AND ?2
                 ORDER BY updated DESC, path",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([from, to], |r| {
                Ok(UpdatedPage {
                    path: r.get(0)?,
                    title: r.get(1)?,
                    kind: r.get(2)?,
                    maturity: r.get(3)?,
                    updated: r.get(4)?,
                })
            })
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
    }
}
