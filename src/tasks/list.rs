//! `tasks list`: the tasks of `Tasks.md` with their sections, read as `done` reads them (a
//! `- [ ]` or `* [ ]` line is open, `- [x]` done; a section is a `##` or `###` heading).

use super::file::{Lines, heading_name, load};
use super::{ListedTask, TaskError, TaskList, TaskState};
use crate::inbox::hints::{checkbox_task, ticked_task};
use crate::key::key;
use crate::vault::TASKS;
use std::path::Path;

/// What to list.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Done tasks too.
    pub all: bool,
    /// Only the tasks of this section (compared as `tasks add` compares it).
    pub section: Option<String>,
}

/// The open tasks of `Tasks.md` (with `all`, the done ones too), in file order, each with its
/// section. No file is no task.
pub fn list(root: &Path, filter: &Filter) -> Result<TaskList, TaskError> {
    let path = root.join(TASKS);
    let Some(bytes) = load(&path)? else {
        return Ok(TaskList::default());
    };
    let file = Lines::parse(&path, bytes)?;
    let wanted = filter.section.as_deref().map(key);
    let mut out = TaskList::default();
    let mut section: Option<&str> = None;
    for i in 0..file.lines.len() {
        let line = file.line(i);
        if let Some(h) = heading_name(line) {
            section = Some(h);
            out.sections.push(h.to_string());
            continue;
        }
        let (text, state) = match (checkbox_task(line), ticked_task(line)) {
            (Some(t), _) => (t, TaskState::Open),
            (None, Some(t)) => (t, TaskState::Done),
            (None, None) => continue,
        };
        match state {
            TaskState::Open => out.open += 1,
            TaskState::Done => out.done += 1,
        }
        if state == TaskState::Done && !filter.all {
            continue;
        }
        if wanted
            .as_ref()
            .is_some_and(|w| section.is_none_or(|s| key(s) != *w))
        {
            continue;
        }
        out.tasks.push(ListedTask {
            section: section.map(str::to_string),
            text: text.to_string(),
            state,
            line: i + 1,
        });
    }
    out.section = wanted.and_then(|w| out.sections.iter().find(|s| key(s) == w).cloned());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault(text: &str) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        fs_err::create_dir_all(d.path().join("wiki/collections")).unwrap();
        fs_err::write(d.path().join(TASKS), text).unwrap();
        d
    }

    fn shown(l: &TaskList) -> Vec<(Option<&str>, &str, TaskState, usize)> {
        l.tasks
            .iter()
            .map(|t| (t.section.as_deref(), t.text.as_str(), t.state, t.line))
            .collect()
    }

    #[test]
    fn open_tasks_with_their_sections_and_done_ones_on_request() {
        let d = vault(
            "# Tasks\n- [ ] loose\n## [[Sparks]]\n- [ ] Write tests\n- [x] Ship\n\
             ### Home\n* [ ] Call the plumber\n- [X] Paint\nnot a task\n- [ ]\n",
        );
        let open = list(d.path(), &Filter::default()).unwrap();
        assert_eq!(
            shown(&open),
            [
                (None, "loose", TaskState::Open, 2),
                (Some("[[Sparks]]"), "Write tests", TaskState::Open, 4),
                (Some("Home"), "Call the plumber", TaskState::Open, 7),
            ]
        );
        assert_eq!((open.open, open.done), (3, 2));
        assert_eq!(open.sections, ["[[Sparks]]", "Home"]);
        let home = list(
            d.path(),
            &Filter {
                all: true,
                section: Some("home".into()),
            },
        )
        .unwrap();
        assert_eq!(
            shown(&home),
            [
                (Some("Home"), "Call the plumber", TaskState::Open, 7),
                (Some("Home"), "Paint", TaskState::Done, 8),
            ]
        );
        assert_eq!(home.section.as_deref(), Some("Home"));
        let none = list(
            d.path(),
            &Filter {
                all: false,
                section: Some("Garden".into()),
            },
        )
        .unwrap();
        assert!(none.tasks.is_empty() && none.section.is_none());
    }

    #[test]
    fn no_file_is_no_task() {
        let d = tempfile::tempdir().unwrap();
        let l = list(d.path(), &Filter::default()).unwrap();
        assert!(l.tasks.is_empty() && l.sections.is_empty());
    }
}
