//! `tasks add`, `tasks list` and `done`: the task list.

use super::{Ending, Report, Request};
use crate::failure::Failure;
use crate::session::Session;
use crate::tasks::{Added, Done as Outcome, Filter, TaskList};

/// `tasks add`: an open task under a section of `Tasks.md`.
#[derive(Debug, Clone)]
pub struct TasksAdd {
    /// The section heading.
    pub section: String,
    /// The task.
    pub text: String,
}

impl Request for TasksAdd {
    type Report = Added;

    fn writes(&self) -> bool {
        true
    }

    fn run(self, s: &Session) -> Result<Added, Failure> {
        let mut manifest = s.manifest()?;
        Ok(crate::tasks::add_recorded(
            &s.vault,
            &mut manifest,
            &self.section,
            &self.text,
            &s.now,
        )?)
    }
}

impl Report for Added {}

/// `tasks list`: the open tasks (or all), with their sections.
#[derive(Debug, Clone)]
pub struct TasksList {
    /// What to list.
    pub filter: Filter,
}

impl TasksList {
    /// A listing; an empty section is a usage error.
    pub fn new(all: bool, section: Option<String>) -> Result<TasksList, Failure> {
        let section = match section {
            Some(s) if s.trim().is_empty() => {
                return Err(Failure::usage(
                    "section is empty: name a section, or give none for every section",
                ));
            }
            s => s.map(|s| s.trim().to_string()),
        };
        Ok(TasksList {
            filter: Filter { all, section },
        })
    }
}

impl Request for TasksList {
    type Report = TaskList;

    fn writes(&self) -> bool {
        false
    }

    fn run(self, s: &Session) -> Result<TaskList, Failure> {
        Ok(crate::tasks::list(&s.vault.root, &self.filter)?)
    }
}

impl Report for TaskList {}

/// `done`: complete the one open task the query names.
#[derive(Debug, Clone)]
pub struct Done {
    /// The words of the task.
    pub query: String,
}

impl Request for Done {
    type Report = Outcome;

    fn writes(&self) -> bool {
        true
    }

    fn run(self, s: &Session) -> Result<Outcome, Failure> {
        let mut manifest = s.manifest()?;
        Ok(crate::tasks::done_recorded(
            &s.vault,
            &mut manifest,
            &self.query,
            &s.now,
        )?)
    }
}

impl Report for Outcome {
    /// Anything but a completed task is a problem (exit 1): nothing was changed.
    fn ending(&self) -> Ending {
        match self {
            Outcome::Completed { .. } => Ending::Done,
            _ => Ending::Problems,
        }
    }
}
