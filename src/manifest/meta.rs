//! The `meta` table: small facts about the manifest itself (when the last scan ran).

use super::{At, Manifest, Result};
use rusqlite::OptionalExtension;

/// The key under which the scan records when it last ran (RFC 3339).
pub const LAST_SCAN: &str = "last_scan_at";

impl Manifest {
    /// A `meta` value.
    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .at(&self.path)
    }
}
