//! What finalize decides and records in the `ingests` tables: each entry's [`Outcome`], and
//! how far it got ([`Step`]). Both are stored by name; the names are printed as they are.

use rusqlite::ToSql;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSqlOutput, ValueRef};

/// What finalize does with an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Archive it and remove it from the inbox.
    Archive,
    /// Leave it in the inbox (`--keep`).
    Keep,
    /// It was edited or removed since prepare: leave the inbox alone.
    Changed,
}

impl Outcome {
    /// The name stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Archive => "archive",
            Outcome::Keep => "keep",
            Outcome::Changed => "changed",
        }
    }

    pub(super) fn parse(s: &str) -> Option<Outcome> {
        match s {
            "archive" => Some(Outcome::Archive),
            "keep" => Some(Outcome::Keep),
            "changed" => Some(Outcome::Changed),
            _ => None,
        }
    }
}

/// How far finalize got: its steps, in the order it runs them. The name of the last one done
/// is stored in `ingests.step` and printed (`finalize of ingest 3 stopped after archive`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The outcome of every entry is decided and recorded.
    Plan,
    /// The archived entries are in their archive files.
    Archive,
    /// The archived entries are out of the inbox.
    Inbox,
    /// The manifest has scanned what finalize wrote.
    Scan,
    /// The collections are regenerated.
    Regen,
    /// The commit is made (never stored: completing the ingest follows at once).
    Commit,
    /// The ingest is completed (stored by [`Manifest::complete_ingest`]).
    Complete,
}

impl Step {
    /// The steps finalize runs after planning, in order.
    pub const AFTER_PLAN: [Step; 5] = [
        Step::Archive,
        Step::Inbox,
        Step::Scan,
        Step::Regen,
        Step::Commit,
    ];

    /// The name stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Step::Plan => "plan",
            Step::Archive => "archive",
            Step::Inbox => "inbox",
            Step::Scan => "scan",
            Step::Regen => "regen",
            Step::Commit => "commit",
            Step::Complete => "complete",
        }
    }

    /// The fault point right after this step's work ([`crate::fault`]).
    pub fn fault_point(self) -> &'static str {
        match self {
            Step::Plan => "finalize.plan",
            Step::Archive => "finalize.archive",
            Step::Inbox => "finalize.inbox",
            Step::Scan => "finalize.scan",
            Step::Regen => "finalize.regen",
            Step::Commit | Step::Complete => "finalize.commit",
        }
    }
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// A step name that is none of [`Step`]'s.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is no finalize step")]
pub struct UnknownStep(pub String);

impl std::str::FromStr for Step {
    type Err = UnknownStep;

    fn from_str(s: &str) -> std::result::Result<Step, UnknownStep> {
        [Step::Plan, Step::Complete]
            .into_iter()
            .chain(Step::AFTER_PLAN)
            .find(|step| step.as_str() == s)
            .ok_or_else(|| UnknownStep(s.to_string()))
    }
}

impl serde::Serialize for Step {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Step {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Step, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl ToSql for Step {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Step {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Step> {
        value
            .as_str()?
            .parse()
            .map_err(|e| FromSqlError::Other(Box::new(e)))
    }
}
