//! `wiki/collections/Tasks.md`: `tasks add`, `tasks list` and `done`. Sections are `##` or
//! `###` headings; an open task is a `- [ ]` (or `* [ ]`) line, a done one `- [x]`. Every change rewrites the
//! file atomically under the vault lock, only if it is still the file that was read (a line a
//! human appends meanwhile makes the command start over, never lost), and every byte it does
//! not change stays as it was (line endings included). The `*_recorded` forms, which the
//! commands use, then record the new file in the manifest.
//!
//! The pieces: `file` reads the file as lines (keeping their endings) and rewrites it only if
//! it is unchanged, `choose` picks the task a `done` query names, `list` reads the tasks
//! for `tasks list`, `report` is what the commands return. This file holds the two
//! operations that write.

mod choose;
mod file;
mod list;
mod report;

pub use list::{Filter, list};
pub use report::{Added, Done, ListedTask, Task, TaskList, TaskState};

use crate::clock::Now;
use crate::failure::{Action, Advice, Hint};
use crate::fault;
use crate::fsio::FileError;
use crate::inbox::hints::{checkbox_task, ticked_task};
use crate::key::key;
use crate::lock::VaultLock;
use crate::manifest::Manifest;
use crate::progress::Silent;
use crate::scan::{self, ScanError};
use crate::vault::{TASKS, Vault};
use choose::{Choice, choose, tasks_where};
use file::{Lines, heading_name, load, replace, seed};
use std::path::{Path, PathBuf};

/// How many times a rewrite starts over because the file changed after it was read.
const REWRITE_ATTEMPTS: usize = 20;

/// A task operation failed; the file is unchanged.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// Empty or multi-line input.
    #[error("{0}")]
    Invalid(String),
    /// The file could not be read or written.
    #[error(transparent)]
    Io(#[from] FileError),
    /// The file kept changing (a human editing it) while the command tried to rewrite it.
    #[error("{} changed {REWRITE_ATTEMPTS} times while it was being rewritten; nothing was changed", path.display())]
    Busy {
        /// The file.
        path: PathBuf,
    },
    /// The file is not UTF-8.
    #[error("{} line {line} is not valid UTF-8", path.display())]
    Encoding {
        /// The file.
        path: PathBuf,
        /// The line.
        line: usize,
    },
    /// The file was written, but recording it in the manifest failed.
    #[error("the task list was written, but the manifest could not record it: {0}")]
    Record(#[from] ScanError),
}

impl Hint for TaskError {
    /// What the user can do about it.
    fn hint(&self) -> Option<Advice> {
        match self {
            TaskError::Encoding { .. } => {
                Some(Advice::say("save the file as UTF-8 and ").then_run(Action::Again))
            }
            TaskError::Busy { .. } => {
                Some(Advice::run(Action::Again).then(" once the file is saved"))
            }
            TaskError::Record(_) => {
                Some(Advice::run(Action::Scan).then(" to bring the manifest up to date"))
            }
            TaskError::Invalid(_) | TaskError::Io(_) => None,
        }
    }
}

/// The seed content of a new `Tasks.md`.
pub fn seed_file(today: &str) -> String {
    seed(today)
}

/// [`add`], then record the rewritten `Tasks.md` in the manifest, so that the next command
/// (`index`, `lint`, `query`) sees the file as it is.
pub fn add_recorded(
    vault: &Vault,
    manifest: &mut Manifest,
    section: &str,
    text: &str,
    now: &Now,
) -> Result<Added, TaskError> {
    let added = add(&vault.root, section, text, &now.today.to_string())?;
    if !added.already_open {
        scan::scan_paths(vault, manifest, &[TASKS.to_string()], now.ns, &Silent)?;
    }
    Ok(added)
}

/// [`done`], then record the rewritten `Tasks.md` in the manifest when a task was completed.
pub fn done_recorded(
    vault: &Vault,
    manifest: &mut Manifest,
    query: &str,
    now: &Now,
) -> Result<Done, TaskError> {
    let result = done(&vault.root, query)?;
    if matches!(result, Done::Completed { .. }) {
        scan::scan_paths(vault, manifest, &[TASKS.to_string()], now.ns, &Silent)?;
    }
    Ok(result)
}

fn lock(root: &Path) -> Result<VaultLock, TaskError> {
    Ok(VaultLock::acquire(root).map_err(FileError::at("lock the vault at", root))?)
}

/// Add an open task `text` under `section` (created if missing), unless it is already open
/// there.
pub fn add(root: &Path, section: &str, text: &str, today: &str) -> Result<Added, TaskError> {
    let (section, text) = (section.trim(), text.trim());
    for (what, v) in [("section", section), ("task text", text)] {
        if v.is_empty() {
            return Err(TaskError::Invalid(format!("the {what} is empty")));
        }
        if v.contains(['\n', '\r']) {
            return Err(TaskError::Invalid(format!(
                "the {what} must be a single line"
            )));
        }
    }
    let _lock = lock(root)?;
    let path = root.join(TASKS);
    for _ in 0..REWRITE_ATTEMPTS {
        let loaded = load(&path)?;
        let (bytes, file_created) = match &loaded {
            Some(b) => (b.clone(), false),
            None => (seed(today).into_bytes(), true),
        };
        let file = Lines::parse(&path, bytes)?;
        let n = file.lines.len();
        let want = key(section);
        let heading = (0..n).find(|&i| heading_name(file.line(i)).is_some_and(|h| key(h) == want));
        // The section as Tasks.md writes it (`home` finds `## Home`).
        let written_section = heading
            .and_then(|h| heading_name(file.line(h)))
            .unwrap_or(section)
            .to_string();
        let (new_text, line, section_created) = match heading {
            Some(h) => {
                let end = (h + 1..n)
                    .find(|&i| heading_name(file.line(i)).is_some())
                    .unwrap_or(n);
                let text_key = key(text);
                if let Some(i) = (h + 1..end)
                    .find(|&i| checkbox_task(file.line(i)).is_some_and(|t| key(t) == text_key))
                {
                    // Report the task and section as the file writes them.
                    return Ok(Added {
                        section: written_section,
                        text: checkbox_task(file.line(i)).unwrap_or(text).into(),
                        line: i + 1,
                        section_created: false,
                        file_created: false,
                        already_open: true,
                    });
                }
                let last = (h + 1..end)
                    .rev()
                    .find(|&i| !file.line(i).trim().is_empty())
                    .unwrap_or(h);
                (
                    file.insert(last + 1, &format!("- [ ] {text}")),
                    last + 2,
                    false,
                )
            }
            None => {
                let mut block = String::new();
                let ends_blank = n == 0 || file.line(n - 1).trim().is_empty();
                if !ends_blank {
                    block.push_str(file.newline);
                }
                let nl = file.newline;
                block.push_str(&format!("## {section}{nl}{nl}- [ ] {text}"));
                let line = n + usize::from(!ends_blank) + 3;
                (file.insert(n, &block), line, true)
            }
        };
        if !replace(&path, loaded.as_deref(), &new_text)? {
            continue;
        }
        fault::reached("tasks.write");
        return Ok(Added {
            section: written_section,
            text: text.into(),
            line,
            section_created,
            file_created,
            already_open: false,
        });
    }
    Err(TaskError::Busy { path })
}

/// Complete the open task that `query` names: an exact match first, then a unique substring
/// match, then the original's fuzzy match (the query's letters in order) with a clear winner.
/// Ambiguity completes nothing. When no open task matches but a completed one does, that is
/// said. A missing `Tasks.md` is "not found" and is not created.
pub fn done(root: &Path, query: &str) -> Result<Done, TaskError> {
    let query = query.trim();
    if query.is_empty() {
        return Err(TaskError::Invalid("the query is empty".into()));
    }
    let _lock = lock(root)?;
    let path = root.join(TASKS);
    for _ in 0..REWRITE_ATTEMPTS {
        let Some(bytes) = load(&path)? else {
            return Ok(Done::NotFound {
                query: query.into(),
            });
        };
        let file = Lines::parse(&path, bytes.clone())?;
        let open = tasks_where(&file, checkbox_task);
        let (task, matched_by) = match choose(&open, query) {
            Choice::One(t, by) => (t, by),
            Choice::Many(candidates, matches) => {
                return Ok(Done::Ambiguous {
                    candidates,
                    matches,
                });
            }
            Choice::None => {
                let completed = tasks_where(&file, ticked_task);
                return Ok(match choose(&completed, query) {
                    Choice::One(task, _) => Done::AlreadyDone { task },
                    _ => Done::NotFound {
                        query: query.into(),
                    },
                });
            }
        };
        let (start, end) = file.lines[task.line - 1];
        let line = &file.text[start..end];
        let Some(at) = line.find("[ ]") else {
            return Ok(Done::NotFound {
                query: query.into(),
            });
        };
        let mut out = String::with_capacity(file.text.len());
        out.push_str(&file.text[..start + at]);
        out.push_str("[x]");
        out.push_str(&file.text[start + at + 3..]);
        if !replace(&path, Some(&bytes), &out)? {
            continue;
        }
        fault::reached("done.write");
        return Ok(Done::Completed { task, matched_by });
    }
    Err(TaskError::Busy { path })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn read(dir: &tempfile::TempDir) -> String {
        fs_err::read_to_string(dir.path().join(TASKS)).unwrap()
    }

    #[test]
    fn add_creates_file_and_section_then_appends() {
        let d = vault();
        let a = add(d.path(), "[[Sparks]]", "Write tests", "2026-05-01").unwrap();
        assert!(a.file_created && a.section_created);
        let b = add(d.path(), "[[sparks]]", "Ship it", "2026-05-01").unwrap();
        assert!(!b.section_created);
        assert_eq!(b.line, a.line + 1);
        let text = read(&d);
        assert!(
            text.ends_with("## [[Sparks]]\n\n- [ ] Write tests\n- [ ] Ship it\n"),
            "{text}"
        );
        assert_eq!(text.lines().nth(a.line - 1), Some("- [ ] Write tests"));
    }

    #[test]
    fn add_inserts_after_the_last_line_of_the_section() {
        let d = vault();
        fs_err::create_dir_all(d.path().join("wiki/collections")).unwrap();
        fs_err::write(
            d.path().join(TASKS),
            "## A\r\n- [ ] one\r\nSome note\r\n\r\n## B\r\n",
        )
        .unwrap();
        let a = add(d.path(), "A", "new", "x").unwrap();
        assert_eq!(
            read(&d),
            "## A\r\n- [ ] one\r\nSome note\r\n- [ ] new\r\n\r\n## B\r\n"
        );
        assert_eq!(a.line, 4);
    }

    #[test]
    fn identical_open_task_is_not_added_twice() {
        let d = vault();
        add(d.path(), "A", "call mum", "x").unwrap();
        let before = read(&d);
        let again = add(d.path(), "A", "Call Mum", "x").unwrap();
        assert!(again.already_open);
        assert_eq!(read(&d), before);
    }

    #[test]
    fn bad_input_is_refused() {
        let d = vault();
        assert!(add(d.path(), "A", "two\nlines", "x").is_err());
        assert!(add(d.path(), " ", "t", "x").is_err());
        assert!(!d.path().join(TASKS).exists());
    }

    #[test]
    fn done_marks_one_line_and_keeps_the_rest() {
        let d = vault();
        fs_err::create_dir_all(d.path().join("wiki/collections")).unwrap();
        let text = "# T\r\n\r\n## A\r\n  * [ ] renew passport\r\n- [ ] other\r\n";
        fs_err::write(d.path().join(TASKS), text).unwrap();
        let r = done(d.path(), "passport").unwrap();
        assert!(matches!(r, Done::Completed { ref task, .. } if task.line == 4));
        assert_eq!(read(&d), text.replace("* [ ] renew", "* [x] renew"));
        assert!(matches!(
            done(d.path(), "passport").unwrap(),
            Done::AlreadyDone { ref task } if task.line == 4
        ));
        assert!(matches!(
            done(d.path(), "dentist").unwrap(),
            Done::NotFound { .. }
        ));
    }

    #[test]
    fn done_never_creates_the_file() {
        let d = vault();
        assert!(matches!(
            done(d.path(), "anything").unwrap(),
            Done::NotFound { .. }
        ));
        assert!(!d.path().join(TASKS).exists());
    }
}
