//! What `mv` and `merge` ask before they plan: how the links that reach a page name it, which
//! files hold them, and which files share a file name.

use super::{At, Manifest, Result};

impl Manifest {
    /// The link keys of the targets that resolve to the page at `path`, each once.
    pub fn link_keys_to(&self, path: &str) -> Result<Vec<String>> {
        self.strings(
            "SELECT DISTINCT target_key FROM links WHERE resolved = ?1 AND target <> ''",
            path,
        )
    }

    /// The files holding a link that resolves to the page at `path`, by path.
    pub fn link_sources_to(&self, path: &str) -> Result<Vec<String>> {
        self.strings(
            "SELECT DISTINCT source FROM links WHERE resolved = ?1 ORDER BY source",
            path,
        )
    }

    /// Live files whose name has the link key `name_key`, by path: those a link by that name
    /// could reach (no conflict copy, which no link reaches).
    pub fn files_named(&self, name_key: &str) -> Result<Vec<String>> {
        let mut found = self.strings(
            "SELECT path FROM files WHERE deleted = 0 AND name_key = ?1 ORDER BY path",
            name_key,
        )?;
        found.retain(|p| !crate::vault::is_conflict_copy(p));
        Ok(found)
    }

    fn strings(&self, sql: &str, arg: &str) -> Result<Vec<String>> {
        super::links::collect(&self.conn, sql, arg).at(&self.path)
    }
}
