//! The journal: the one operation that rewrites several files (`mv`, `merge`, `ingest
//! --revert`) and has not finished. It records its plan before it writes anything, each step
//! as it is done, and leaves when it is complete; a journal left behind is an interrupted
//! operation, which the same command completes when run again.
//!
//! Two files: `journal.json`, the operation and how far it got (rewritten at each step), and
//! `journal-plan.json`, its plan, written once (megabytes for a rename of a hub page). The
//! plan is written first and the operation's record created after it, only if none is there:
//! the record's existence is the journal's. Its removal ends the operation; a plan without a
//! record is a leftover that the next operation overwrites and [`RunDir::journaled`] clears.

use super::{Result, RunDir, RunStateError};
use crate::fsio::FileError;
use crate::operation::Operation;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

pub(super) const RECORD: &str = "journal.json";
pub(super) const PLAN: &str = "journal-plan.json";

/// An operation in the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journaled {
    /// `mv`, `merge` or `revert`.
    pub kind: String,
    /// The operation and its arguments, for a front end to word. An earlier Sparks recorded
    /// the command line that completes it under `command`: read back as
    /// [`Operation::Recorded`].
    #[serde(alias = "command", deserialize_with = "operation_or_command_line")]
    pub operation: Operation,
    /// Its arguments (JSON), to recognise the same request.
    pub request: String,
    /// The pages it concerns, for a person: the page moved and where, the pages merged, the
    /// pages a revert puts back.
    #[serde(default)]
    pub pages: Vec<String>,
    /// The last step done, if any.
    pub step: Option<String>,
    /// When it started (RFC 3339).
    pub started_at: String,
    /// The process that started it (for a person reading the file).
    pub pid: u32,
    /// Facts a step records before it acts, by which a rerun recognises what it did (a
    /// revert's inbox rewrite).
    #[serde(default)]
    pub notes: BTreeMap<String, String>,
}

/// What an operation records when it starts.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// The operation and its arguments (its kind is the journal's name for it).
    pub operation: &'a Operation,
    /// Its arguments (JSON), to recognise the same request.
    pub request: &'a str,
    /// The pages it concerns.
    pub pages: &'a [String],
    /// Its plan (JSON).
    pub plan: &'a str,
    /// When it starts (RFC 3339).
    pub started_at: &'a str,
}

impl RunDir {
    /// The unfinished operation, if there is one.
    pub fn journaled(&self) -> Result<Option<Journaled>> {
        let mut j: Option<Journaled> = self.read(RECORD)?;
        // A command line an earlier Sparks recorded is of the record's kind.
        if let Some(Journaled {
            kind,
            operation: Operation::Recorded { kind: of, .. },
            ..
        }) = &mut j
            && of.is_empty()
        {
            of.clone_from(kind);
        }
        Ok(j)
    }

    /// The plan of the unfinished operation.
    pub fn journal_plan(&self) -> Result<String> {
        let path = self.file(PLAN);
        let missing = || {
            RunStateError::Io(FileError::at(
                "read the plan of the unfinished operation from",
                path.clone(),
            )(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "it is gone",
            )))
        };
        let mut bytes = self.read_sealed(PLAN)?.ok_or_else(missing)?;
        // The seal ends the plan with a newline; the plan did not have one.
        if bytes.ends_with(b"\n") {
            bytes.pop();
        }
        String::from_utf8(bytes).map_err(|e| {
            RunStateError::Io(FileError::at(
                "read the plan of the unfinished operation from",
                path.clone(),
            )(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                e,
            )))
        })
    }

    /// Record an operation before it writes anything. Fails when another is unfinished.
    /// The caller holds the vault lock, so no other operation is being recorded meanwhile.
    pub fn journal(&self, e: Entry<'_>) -> Result<Journaled> {
        if let Some(other) = self.journaled()? {
            return Err(RunStateError::Unfinished(other.operation));
        }
        self.ensure()?;
        let plan = self.file(PLAN);
        let sealed = super::seal::Key::of(&self.path, true).and_then(|key| {
            let key = key.ok_or_else(|| std::io::Error::other("no key"))?;
            crate::fsio::write_atomic(&plan, &key.seal(PLAN, e.plan.as_bytes().to_vec()))
        });
        sealed.map_err(|source| RunStateError::Io(FileError::at("write", plan)(source)))?;
        let record = Journaled {
            kind: e.operation.kind().to_string(),
            operation: e.operation.clone(),
            request: e.request.to_string(),
            pages: e.pages.to_vec(),
            step: None,
            started_at: e.started_at.to_string(),
            pid: std::process::id(),
            notes: BTreeMap::new(),
        };
        match self.create(RECORD, &record)? {
            true => Ok(record),
            false => {
                let other = self.journaled()?.map(|j| j.operation);
                Err(RunStateError::Unfinished(
                    other.unwrap_or_else(|| e.operation.clone()),
                ))
            }
        }
    }

    /// Record that a step of the unfinished operation is done.
    pub fn journal_step(&self, step: &str) -> Result<()> {
        self.update_journal(|j| j.step = Some(step.to_string()))
    }

    /// Record a fact of the unfinished operation before acting on it.
    pub fn journal_note(&self, key: &str, value: &str) -> Result<()> {
        self.update_journal(|j| {
            j.notes.insert(key.to_string(), value.to_string());
        })
    }

    fn update_journal(&self, change: impl FnOnce(&mut Journaled)) -> Result<()> {
        let mut j = self.journaled()?.ok_or_else(|| {
            RunStateError::Io(FileError::at("update", self.file(RECORD))(
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "the unfinished operation's record is gone",
                ),
            ))
        })?;
        change(&mut j);
        self.write(RECORD, &j)
    }

    /// Refuse the unfinished operation, whose plan would have Sparks act outside the vault
    /// (`why` says how): its record is set aside, never executed, and the error says so.
    pub fn refuse_journal(&self, why: String) -> RunStateError {
        self.set_aside(RECORD, why)
    }

    /// The operation is complete: its record goes, then its plan.
    pub fn journal_done(&self) -> Result<()> {
        self.remove(RECORD)?;
        self.remove(PLAN)
    }
}

/// The operation of a record: as this Sparks writes it, or the command line an earlier one
/// wrote (its kind is filled in from the record's by [`RunDir::journaled`]).
fn operation_or_command_line<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Operation, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Operation(Operation),
        CommandLine(String),
    }
    Ok(match Either::deserialize(d)? {
        Either::Operation(op) => op,
        Either::CommandLine(command) => Operation::Recorded {
            kind: String::new(),
            command,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(operation: &'a Operation, plan: &'a str) -> Entry<'a> {
        Entry {
            operation,
            request: "{}",
            pages: &[],
            plan,
            started_at: "2026-05-01T10:00:00+00:00",
        }
    }

    #[test]
    fn one_operation_at_a_time_with_its_steps_and_notes() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::of(dir.path());
        assert_eq!(run.journaled().unwrap(), None);
        let (mv, merge) = (
            Operation::Mv {
                page: "A".into(),
                new: "B".into(),
                no_alias: false,
            },
            Operation::Merge {
                from: "A".into(),
                into: "B".into(),
            },
        );
        run.journal(entry(&mv, "[1]")).unwrap();
        let second = run.journal(entry(&merge, "[2]")).unwrap_err();
        assert!(
            matches!(second, RunStateError::Unfinished { .. }),
            "{second}"
        );
        assert_eq!(run.journal_plan().unwrap(), "[1]", "the first plan stands");
        run.journal_step("write").unwrap();
        run.journal_note("inbox", "1:abc").unwrap();
        let j = run.journaled().unwrap().unwrap();
        assert_eq!((j.kind.as_str(), j.step.as_deref()), ("mv", Some("write")));
        assert_eq!(j.operation, mv, "recorded as its kind and arguments");
        assert_eq!(j.notes["inbox"], "1:abc");
        assert_eq!(j.pid, std::process::id());
        run.journal_done().unwrap();
        assert_eq!(run.journaled().unwrap(), None);
        let left: Vec<_> = fs_err::read_dir(run.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("journal"))
            .collect();
        assert!(left.is_empty(), "no journal is left: {left:?}");
        run.journal(entry(&merge, "[2]")).unwrap();
    }

    #[test]
    fn a_record_an_earlier_sparks_wrote_with_its_command_line_is_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::of(dir.path());
        // The record as builds before the operation was recorded by its arguments wrote it,
        // sealed as they sealed it.
        let old = serde_json::json!({
            "kind": "merge", "command": "sparks merge A B", "request": "{}", "pages": [],
            "step": "write", "started_at": "2026-05-01T10:00:00+00:00", "pid": 1, "notes": {},
        });
        run.write(RECORD, &old).unwrap();
        let j = run.journaled().unwrap().unwrap();
        let recorded = Operation::Recorded {
            kind: "merge".into(),
            command: "sparks merge A B".into(),
        };
        assert_eq!((j.operation, j.step.as_deref()), (recorded, Some("write")));
        // Updated by a step of its rerun, it keeps what it was.
        run.journal_step("regen").unwrap();
        let j = run.journaled().unwrap().unwrap();
        assert_eq!(j.operation.kind(), "merge");
    }

    #[test]
    fn a_record_this_sparks_cannot_read_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::of(dir.path());
        fs_err::create_dir_all(run.path()).unwrap();
        fs_err::write(run.file(RECORD), "{not json").unwrap();
        let err = run.journaled().unwrap_err().to_string();
        assert!(err.contains("journal.json"), "{err}");
    }
}
