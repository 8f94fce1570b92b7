//! The journal: the one operation that rewrites several files (`mv`, `merge`, `ingest
//! --revert`) and has not finished. It records its plan before it writes anything, each step as
//! it is done, and leaves when it is complete; a row left behind is an interrupted operation,
//! which the same command completes when run again. The database allows one row at a time.

use super::{At, Manifest, Result};
use rusqlite::{OptionalExtension, params};

/// An operation in the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journaled {
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

/// What an operation records when it starts.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// `mv`, `merge` or `revert`.
    pub kind: &'a str,
    /// The command that completes it.
    pub command: &'a str,
    /// Its arguments (JSON).
    pub request: &'a str,
    /// Its plan (JSON).
    pub plan: &'a str,
    /// When it starts (RFC 3339).
    pub started_at: &'a str,
}

impl Manifest {
    /// The unfinished operation, if there is one.
    pub fn journaled(&self) -> Result<Option<Journaled>> {
        self.conn
            .query_row(
                "SELECT id, kind, command, request, plan, step, started_at FROM journal",
                [],
                |r| {
                    Ok(Journaled {
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

    /// Record an operation before it writes anything. Fails (a constraint error) when another
    /// is unfinished: the database, not a check before, keeps it to one.
    pub fn journal(&self, e: Entry<'_>) -> Result<i64> {
        self.conn
            .execute(
                "INSERT INTO journal (kind, command, request, plan, started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![e.kind, e.command, e.request, e.plan, e.started_at],
            )
            .at(&self.path)?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Record that a step of the journaled operation is done.
    pub fn journal_step(&self, id: i64, step: &str) -> Result<()> {
        self.conn
            .execute(
                "UPDATE journal SET step = ?2 WHERE id = ?1",
                params![id, step],
            )
            .at(&self.path)?;
        Ok(())
    }

    /// The operation is complete: it leaves the journal.
    pub fn journal_done(&self, id: i64) -> Result<()> {
        self.conn
            .execute("DELETE FROM journal WHERE id = ?1", [id])
            .at(&self.path)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(kind: &'a str) -> Entry<'a> {
        Entry {
            kind,
            command: "sparks mv A B",
            request: "{}",
            plan: "[]",
            started_at: "2026-05-01T10:00:00+00:00",
        }
    }

    #[test]
    fn one_operation_at_a_time_with_its_steps() {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
        assert_eq!(m.journaled().unwrap(), None);
        let id = m.journal(entry("mv")).unwrap();
        assert!(m.journal(entry("merge")).is_err(), "a second is refused");
        m.journal_step(id, "write").unwrap();
        let j = m.journaled().unwrap().unwrap();
        assert_eq!((j.kind.as_str(), j.step.as_deref()), ("mv", Some("write")));
        m.journal_done(id).unwrap();
        assert_eq!(m.journaled().unwrap(), None);
        m.journal(entry("merge")).unwrap();
    }
}
