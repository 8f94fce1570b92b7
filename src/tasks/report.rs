//! What `tasks add` and `done` return. Their field names are a public contract (the JSON of
//! the commands and of the MCP tools), so the types stay together here.

use serde::Serialize;

/// What `tasks add` did.
#[derive(Debug, Clone, Serialize)]
pub struct Added {
    /// The section.
    pub section: String,
    /// The task text.
    pub text: String,
    /// The 1-based line of the task.
    pub line: usize,
    /// True when the section was created.
    pub section_created: bool,
    /// True when `Tasks.md` was created.
    pub file_created: bool,
    /// True when an identical open task was already there (nothing was written).
    pub already_open: bool,
}

/// An open task.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Task {
    /// Its text.
    pub text: String,
    /// Its 1-based line.
    pub line: usize,
}

/// What `done` found.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Done {
    /// This task was completed.
    Completed {
        /// The task.
        task: Task,
        /// How it was found: `exact`, `substring` or `fuzzy`.
        matched_by: &'static str,
    },
    /// Several tasks match; none was completed.
    Ambiguous {
        /// The candidates, best first (at most 5 for a fuzzy match).
        candidates: Vec<Task>,
        /// How many open tasks matched in all.
        matches: usize,
    },
    /// No open task matches, but a completed one does: nothing was changed.
    AlreadyDone {
        /// The completed task.
        task: Task,
    },
    /// No open task matches.
    NotFound {
        /// The query.
        query: String,
    },
}
