//! What `tasks add`, `tasks list` and `done` return. Their field names are a public contract (the JSON of
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

/// What `tasks list` found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TaskList {
    /// The tasks asked for, in file order.
    pub tasks: Vec<ListedTask>,
    /// Open tasks in the file, in all.
    pub open: usize,
    /// Done tasks in the file, in all.
    pub done: usize,
    /// Every section of the file, in order, as it writes them.
    pub sections: Vec<String>,
    /// With `--section`: the section as the file writes it; `null` when it has none so named.
    pub section: Option<String>,
}

/// A task of `tasks list`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ListedTask {
    /// The `##` or `###` heading it is under; `null` above the first.
    pub section: Option<String>,
    /// Its text.
    pub text: String,
    /// `open` or `done`.
    pub state: TaskState,
    /// Its 1-based line.
    pub line: usize,
}

/// Whether a task is done.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TaskState {
    /// `- [ ]`
    Open,
    /// `- [x]`
    Done,
}

/// An open task.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Task {
    /// Its text.
    pub text: String,
    /// Its 1-based line.
    pub line: usize,
}

/// What `done` found. In JSON: `result` names the variant, its fields follow, then the
/// original's keys (see the `Serialize` impl).
#[derive(Debug, Clone)]
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

impl Serialize for Done {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        match self {
            Done::Completed { task, matched_by } => {
                m.serialize_entry("result", "completed")?;
                m.serialize_entry("task", task)?;
                m.serialize_entry("matched_by", matched_by)?;
            }
            Done::Ambiguous {
                candidates,
                matches,
            } => {
                m.serialize_entry("result", "ambiguous")?;
                m.serialize_entry("candidates", candidates)?;
                m.serialize_entry("matches", matches)?;
            }
            Done::AlreadyDone { task } => {
                m.serialize_entry("result", "already_done")?;
                m.serialize_entry("task", task)?;
            }
            Done::NotFound { query } => {
                m.serialize_entry("result", "not_found")?;
                m.serialize_entry("query", query)?;
            }
        }
        // The original's keys: the completed task's text and line (`""` and 0 when none was
        // completed), and `ambiguous` only when several tasks matched.
        let (matched, line) = match self {
            Done::Completed { task, .. } => (task.text.as_str(), task.line),
            _ => ("", 0),
        };
        m.serialize_entry("matched", matched)?;
        m.serialize_entry("line", &line)?;
        if matches!(self, Done::Ambiguous { .. }) {
            m.serialize_entry("ambiguous", &true)?;
        }
        m.end()
    }
}
