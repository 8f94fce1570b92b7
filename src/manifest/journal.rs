//! The journal an earlier Sparks kept in the manifest (schemas 5 to 11): the one operation that
//! rewrites several files and had not finished. It lives in the run-time directory now
//! (`runstate`), where deleting the manifest cannot lose it; a row found here is moved there
//! and forgotten.

use super::{At, Manifest, Result};
use rusqlite::OptionalExtension;

/// An unfinished operation an earlier Sparks journaled in the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyJournal {
    /// Its row.
    pub id: i64,
    /// `mv`, `merge` or `revert`.
    pub kind: String,
    /// The command that completes it, as a person types it.
    pub command: String,
    /// Its arguments (JSON), to recognise the same request.
    pub request: String,
    /// Its plan (JSON).
    pub plan: String,
    /// The last step done, if any.
    pub step: Option<String>,
    /// When it started (RFC 3339).
    pub started_at: String,
}

impl Manifest {
    /// The unfinished operation an earlier Sparks journaled here, if there is one.
    pub fn legacy_journal(&self) -> Result<Option<LegacyJournal>> {
        self.conn
            .query_row(
                "SELECT id, kind, command, request, plan, step, started_at FROM journal",
                [],
                |r| {
                    Ok(LegacyJournal {
                        id: r.get(0)?,
                        kind: r.get(1)?,
                        command: r.get(2)?,
                        request: r.get(3)?,
                        plan: r.get(4)?,
                        step: r.get(5)?,
                        started_at: r.get(6)?,
                    })
                },
            )
            .optional()
            .at(&self.path)
    }

    /// The operation has moved to the run-time directory: its row goes.
    pub fn forget_legacy_journal(&self, id: i64) -> Result<()> {
        self.conn
            .execute("DELETE FROM journal WHERE id = ?1", [id])
            .at(&self.path)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_legacy_row_is_read_and_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        assert_eq!(m.legacy_journal().unwrap(), None);
        m.conn
            .execute(
                "INSERT INTO journal (kind, command, request, plan, step, started_at)
                 VALUES ('mv', 'sparks mv A B', '{}', '[]', 'write', 't')",
                [],
            )
            .unwrap();
        let j = m.legacy_journal().unwrap().unwrap();
        assert_eq!((j.kind.as_str(), j.step.as_deref()), ("mv", Some("write")));
        m.forget_legacy_journal(j.id).unwrap();
        assert_eq!(m.legacy_journal().unwrap(), None);
    }
}
