//! Which Sparks command changed a page after an ingest, told from the files, so that a revert
//! stopped by it can name the command and how to undo it: `done` ticked tasks the ingest
//! added (the file is the ingest's with some boxes ticked), `mv` renamed a page the ingest
//! made (its name now leads, by alias, to a page of another path), `merge` folded it into
//! another (that page holds a section of its name). Anything else stays "edited, not by an
//! ingest".

use crate::inbox::hints::ticked_task;
use crate::ingest::IngestError;
use crate::key;
use crate::manifest::{Manifest, PageChange, Resolution};
use crate::markdown::Document;
use crate::vault::{TASKS, Vault};
use serde::Serialize;

/// A later command that changed a page the ingest touched.
#[derive(Debug, Clone, Serialize)]
pub struct Later {
    /// `done`, `mv` or `merge`.
    pub command: &'static str,
    /// How to undo it, before the revert.
    pub undo: UndoLater,
    /// The commit it made (`mv`, `merge` with `[git] auto_commit`): reverting it in git takes
    /// the change back byte for byte.
    pub commit: Option<String>,
    /// When the page took its present form (its file's mtime), to undo the newest first.
    #[serde(skip)]
    pub at_ns: i64,
}

/// How to undo a later command: an action and its arguments, for each front end to word.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum UndoLater {
    /// Rename the page back: `mv` with these arguments.
    Move {
        /// The page now.
        page: String,
        /// What it was.
        new: String,
    },
    /// Tick these tasks open again, by hand (no command reopens a task).
    Untick {
        /// The task list.
        path: String,
        /// The tasks ticked since.
        tasks: Vec<String>,
    },
    /// Put the merged page back by hand (from git or a backup), and take its section out of
    /// the page it went into: no command takes a merge back.
    Unmerge {
        /// The page merged away.
        path: String,
        /// The page it went into.
        into: String,
    },
}

impl Later {
    /// What the command did, in words: `ticked "Email Dana"`, `renamed to …`.
    pub fn what(&self) -> String {
        match &self.undo {
            UndoLater::Move { page, .. } => format!("renamed to {page}"),
            UndoLater::Untick { tasks, .. } => format!("ticked {}", quoted(tasks)),
            UndoLater::Unmerge { into, .. } => format!("merged into {into}"),
        }
    }
}

/// Tasks as a person reads them in a sentence: `"one", "two"`.
pub fn quoted(tasks: &[String]) -> String {
    tasks
        .iter()
        .map(|t| format!("{t:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The later command that changed `change.path` from what the ingest left (`after_hash`) to
/// what it is now (`now`, `None`: gone), when the files tell it.
pub(super) fn find(
    vault: &Vault,
    manifest: &Manifest,
    change: &PageChange,
    now: Option<&str>,
) -> Result<Option<Later>, IngestError> {
    let Some(after) = change.after_hash.as_deref() else {
        return Ok(None);
    };
    let at = |path: &str| -> Result<i64, IngestError> {
        let rows = manifest.file_rows_of(&[path.to_string()])?;
        Ok(rows.get(path).map_or(0, |r| r.stat.mtime_ns))
    };
    match now {
        Some(_) if change.path == TASKS => {
            let Some(text) = super::read(vault, TASKS)? else {
                return Ok(None);
            };
            let Some(tasks) = ticked_since(&String::from_utf8_lossy(&text), after) else {
                return Ok(None);
            };
            Ok(Some(Later {
                command: "done",
                undo: UndoLater::Untick {
                    path: TASKS.to_string(),
                    tasks,
                },
                commit: None,
                at_ns: at(TASKS)?,
            }))
        }
        Some(_) => Ok(None),
        None => {
            let file = change.path.rsplit('/').next().unwrap_or(&change.path);
            let name = file.strip_suffix(".md").unwrap_or(file);
            let Resolution::Resolved(to) = manifest.resolve_name(name)? else {
                return Ok(None);
            };
            if to == change.path {
                return Ok(None);
            }
            let Some(text) = super::read(vault, &to)? else {
                return Ok(None);
            };
            let doc = Document::parse(&String::from_utf8_lossy(&text));
            let merged = doc
                .outline
                .headings
                .iter()
                .any(|h| h.level == 2 && key::heading_key(&h.text) == key::heading_key(name));
            let (command, undo) = match merged {
                true => (
                    "merge",
                    UndoLater::Unmerge {
                        path: change.path.clone(),
                        into: to.clone(),
                    },
                ),
                false => (
                    "mv",
                    UndoLater::Move {
                        page: to.clone(),
                        new: change.path.clone(),
                    },
                ),
            };
            // The commit that took the page away, if it is this command's.
            let commit = crate::git::last_change(&vault.root, &change.path)
                .ok()
                .flatten()
                .filter(|(_, subject)| subject.starts_with(&format!("{command}: ")))
                .map(|(sha, _)| sha);
            Ok(Some(Later {
                command,
                undo,
                commit,
                at_ns: at(&to)?,
            }))
        }
    }
}

/// The most ticks tried, in all, to find which tasks were ticked since.
const TRIES: usize = 5000;

/// The tasks of `text` that were ticked since it hashed to `before`: the fewest ticked boxes
/// (up to three) that, unticked, give that content back. `None` when no such set is found: the
/// file changed in another way too.
fn ticked_since(text: &str, before: &str) -> Option<Vec<String>> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let ticked: Vec<usize> = (0..lines.len())
        .filter(|&i| ticked_task(lines[i]).is_some())
        .collect();
    let untick = |chosen: &[usize]| -> String {
        let mut out = String::with_capacity(text.len());
        for (i, line) in lines.iter().enumerate() {
            match chosen.contains(&i) {
                true => {
                    // The box is the line's first bracket pair.
                    let at = line.find("[x]").into_iter().chain(line.find("[X]")).min();
                    match at {
                        Some(at) => {
                            out.push_str(&line[..at]);
                            out.push_str("[ ]");
                            out.push_str(&line[at + 3..]);
                        }
                        None => out.push_str(line),
                    }
                }
                false => out.push_str(line),
            }
        }
        out
    };
    let mut tries = 0;
    for k in 1..=3.min(ticked.len()) {
        let mut pick: Vec<usize> = (0..k).collect();
        loop {
            tries += 1;
            if tries > TRIES {
                return None;
            }
            let chosen: Vec<usize> = pick.iter().map(|&p| ticked[p]).collect();
            if blake3::hash(untick(&chosen).as_bytes()).to_hex().as_str() == before {
                return Some(
                    chosen
                        .iter()
                        .filter_map(|&i| ticked_task(lines[i]).map(str::to_string))
                        .collect(),
                );
            }
            // The next combination of k of the ticked lines, in order.
            let Some(j) = (0..k).rev().find(|&j| pick[j] < ticked.len() - k + j) else {
                break;
            };
            pick[j] += 1;
            for m in j + 1..k {
                pick[m] = pick[m - 1] + 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(s: &str) -> String {
        blake3::hash(s.as_bytes()).to_hex().to_string()
    }

    #[test]
    fn the_tasks_ticked_since_are_found() {
        let before = "## A\n- [ ] one\n- [x] old\n- [ ] two\n- [ ] three\n";
        let now = "## A\n- [x] one\n- [x] old\n- [ ] two\n- [x] three\n";
        assert_eq!(
            ticked_since(now, &hash(before)),
            Some(vec!["one".to_string(), "three".to_string()])
        );
        assert_eq!(
            ticked_since(before, &hash(before)),
            None,
            "nothing ticked since"
        );
        let edited = "## A\n- [x] one\n- [x] old\n- [ ] two\n- [x] three\nA note.\n";
        assert_eq!(
            ticked_since(edited, &hash(before)),
            None,
            "changed otherwise"
        );
    }
}
