//! The `meta` table: small facts about the manifest itself (when the last scan ran).

use super::{At, Manifest, Result};
use rusqlite::OptionalExtension;
use std::path::Path;

/// The key under which the scan records when it last ran (RFC 3339).
pub const LAST_SCAN: &str = "last_scan_at";

impl Manifest {
    /// A `meta` value.
    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        get(&self.conn, &self.path, key)
    }
}

/// The `meta` value of `key` on `conn` (a connection or a transaction on the manifest at
/// `path`, named in errors).
pub(super) fn get(conn: &rusqlite::Connection, path: &Path, key: &str) -> Result<Option<String>> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()
        .at(path)
}

/// Set the `meta` value of `key` on `conn`.
pub(super) fn set(conn: &rusqlite::Connection, path: &Path, key: &str, value: &str) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .and_then(|mut s| s.execute([key, value]))
    .at(path)?;
    Ok(())
}
