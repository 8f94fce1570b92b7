//! `wiki/collections/Tasks.md`: `tasks add` and `done`. Sections are `##` or `###` headings;
//! an open task is a `- [ ]` (or `* [ ]`) line, a done one `- [x]`. Every change rewrites the
//! file atomically under the vault lock, only if it is still the file that was read (a line a
//! human appends meanwhile makes the command start over, never lost), and every byte it does
//! not change stays as it was (line endings included). The `*_recorded` forms, which the
//! commands use, then record the new file in the manifest.

use crate::clock::Now;
use crate::fault;
use crate::fsio;
use crate::inbox::hints::{checkbox_task, ticked_task};
use crate::key::key;
use crate::lock::VaultLock;
use crate::manifest::Manifest;
use crate::scan::{self, ScanError};
use crate::vault::{TASKS, Vault};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A fuzzy match wins only with a score more than this above the runner-up's (the
/// original's margin).
const FUZZY_MARGIN: i64 = 5;

/// How many candidates an ambiguous fuzzy match lists (the original's cap).
const FUZZY_CANDIDATES: usize = 5;

/// How many times a rewrite starts over because the file changed after it was read.
const REWRITE_ATTEMPTS: usize = 20;

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

/// A task operation failed; the file is unchanged.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// Empty or multi-line input.
    #[error("{0}")]
    Invalid(String),
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
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

impl TaskError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            TaskError::Encoding { .. } => Some("save the file as UTF-8 and run the command again"),
            TaskError::Busy { .. } => Some("run the command again once the file is saved"),
            TaskError::Record(_) => Some("run `sparks scan` to bring the manifest up to date"),
            TaskError::Invalid(_) | TaskError::Io { .. } => None,
        }
    }
}

fn seed(today: &str) -> String {
    format!(
        "---\ntitle: Tasks\ntype: collection\nmaturity: working\ntags: [tasks]\nsources: []\n\
         created: {today}\nupdated: {today}\n---\n\n# Tasks\n\n\
         Open tasks are `- [ ]` lines, done ones `- [x]`, grouped under `##` sections. Add them with \
         `sparks tasks add` and complete them with `sparks done`.\n"
    )
}

/// The seed content of a new `Tasks.md`.
pub fn seed_file(today: &str) -> String {
    seed(today)
}

/// A text file as lines that keep their endings.
struct Lines {
    text: String,
    /// Byte ranges of each line's content (without its ending).
    lines: Vec<(usize, usize)>,
    newline: &'static str,
}

impl Lines {
    fn parse(path: &Path, bytes: Vec<u8>) -> Result<Lines, TaskError> {
        let text = String::from_utf8(bytes).map_err(|e| TaskError::Encoding {
            path: path.to_path_buf(),
            line: e.as_bytes()[..e.utf8_error().valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1,
        })?;
        let mut lines = Vec::new();
        let mut pos = 0;
        for l in text.split_inclusive('\n') {
            let content = l.trim_end_matches('\n').trim_end_matches('\r');
            lines.push((pos, pos + content.len()));
            pos += l.len();
        }
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        Ok(Lines {
            text,
            lines,
            newline,
        })
    }

    fn line(&self, i: usize) -> &str {
        let (a, b) = self.lines[i];
        &self.text[a..b]
    }

    /// The text with `new` inserted as a line before line `at` (0-based; `len` appends).
    fn insert(&self, at: usize, new: &str) -> String {
        let offset = if at < self.lines.len() {
            self.lines[at].0
        } else {
            self.text.len()
        };
        let mut out = String::with_capacity(self.text.len() + new.len() + 2);
        out.push_str(&self.text[..offset]);
        if offset > 0 && !out.ends_with('\n') {
            out.push_str(self.newline);
        }
        out.push_str(new);
        out.push_str(self.newline);
        out.push_str(&self.text[offset..]);
        out
    }
}

fn heading_name(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("### ")
        .or_else(|| line.strip_prefix("## "))?;
    Some(rest.trim())
}

fn load(path: &Path) -> Result<Option<Vec<u8>>, TaskError> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(TaskError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn write(path: &Path, text: &str) -> Result<(), TaskError> {
    if let Some(dir) = path.parent() {
        fs_err::create_dir_all(dir).map_err(|source| TaskError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    fsio::write_atomic(path, text.as_bytes()).map_err(|source| TaskError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Write `text` to `path` if the file still holds `old` (`None`: there was no file), so that
/// a line a human appended after it was read is never lost; `false`, writing nothing, if it
/// changed: the caller reads it again and starts over.
fn replace(path: &Path, old: Option<&[u8]>, text: &str) -> Result<bool, TaskError> {
    let Some(old) = old else {
        write(path, text)?;
        return Ok(true);
    };
    fsio::replace_if_unchanged(path, old, text.as_bytes()).map_err(|source| TaskError::Io {
        path: path.to_path_buf(),
        source,
    })
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
        scan::scan_paths(vault, manifest, &[TASKS.to_string()], now.ns)?;
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
        scan::scan_paths(vault, manifest, &[TASKS.to_string()], now.ns)?;
    }
    Ok(result)
}

fn lock(root: &Path) -> Result<VaultLock, TaskError> {
    VaultLock::acquire(root).map_err(|source| TaskError::Io {
        path: root.to_path_buf(),
        source,
    })
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

/// The tasks of `file` that `parse` recognises, with their lines.
fn tasks_where(file: &Lines, parse: fn(&str) -> Option<&str>) -> Vec<Task> {
    (0..file.lines.len())
        .filter_map(|i| {
            parse(file.line(i)).map(|t| Task {
                text: t.to_string(),
                line: i + 1,
            })
        })
        .collect()
}

enum Choice {
    One(Task, &'static str),
    /// The candidates, and how many matched in all.
    Many(Vec<Task>, usize),
    None,
}

fn choose(tasks: &[Task], query: &str) -> Choice {
    let q = key(query);
    // Identical tasks are interchangeable: completing the first is no guess. (The original had
    // no exact stage and called these ambiguous; a unique match is the same either way.)
    if let Some(t) = tasks.iter().find(|t| key(&t.text) == q) {
        return Choice::One(t.clone(), "exact");
    }
    let hits: Vec<&Task> = tasks.iter().filter(|t| key(&t.text).contains(&q)).collect();
    match hits.as_slice() {
        [one] => return Choice::One((*one).clone(), "substring"),
        [] => {}
        many => return Choice::Many(many.iter().map(|t| (*t).clone()).collect(), many.len()),
    }
    let ranked = crate::fuzzy::rank(query, tasks.iter().map(|t| t.text.as_str()));
    match ranked.as_slice() {
        [] => Choice::None,
        [(i, _)] => Choice::One(tasks[*i].clone(), "fuzzy"),
        [(i, best), (_, next), ..] if *best > next.saturating_add(FUZZY_MARGIN) => {
            Choice::One(tasks[*i].clone(), "fuzzy")
        }
        all => Choice::Many(
            all.iter()
                .take(FUZZY_CANDIDATES)
                .map(|(i, _)| tasks[*i].clone())
                .collect(),
            all.len(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn read(dir: &tempfile::TempDir) -> String {
        std::fs::read_to_string(dir.path().join(TASKS)).unwrap()
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
        std::fs::create_dir_all(d.path().join("wiki/collections")).unwrap();
        std::fs::write(
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

    fn tasks(texts: &[&str]) -> Vec<Task> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Task {
                text: t.to_string(),
                line: i + 1,
            })
            .collect()
    }

    fn pick(texts: &[&str], q: &str) -> Option<String> {
        match choose(&tasks(texts), q) {
            Choice::One(t, _) => Some(t.text),
            _ => None,
        }
    }

    #[test]
    fn exact_beats_substring() {
        assert_eq!(
            pick(&["ship", "ship prepare"], "ship").as_deref(),
            Some("ship")
        );
        assert_eq!(
            pick(&["ship prepare", "ship finalize"], "FINALIZE").as_deref(),
            Some("ship finalize")
        );
        assert!(
            matches!(choose(&tasks(&["write tests for ingest", "write tests for scan"]), "write tests"), Choice::Many(c, 2) if c.len() == 2)
        );
    }

    #[test]
    fn fuzzy_needs_the_letters_in_order_and_a_clear_winner() {
        assert_eq!(
            pick(&["update README", "read me later"], "updrdme").as_deref(),
            Some("update README")
        );
        // 26 against 5: a clear winner.
        assert_eq!(
            pick(&["ship prepare", "ship finalize"], "shp").as_deref(),
            Some("ship prepare")
        );
        // 21 against 20: too close, both listed, best first.
        match choose(&tasks(&["fix login bug", "fix logout bug"]), "fxbg") {
            Choice::Many(c, 2) => assert_eq!(c[0].text, "fix login bug"),
            _ => panic!("fxbg is ambiguous"),
        }
        // A typo is not a subsequence: the original found nothing, and so does this.
        assert!(matches!(
            choose(&tasks(&["ship finalize"]), "ship finalzie"),
            Choice::None
        ));
    }

    #[test]
    fn an_ambiguous_fuzzy_match_lists_five_and_counts_all() {
        let many: Vec<String> = (0..8).map(|i| format!("task number {i}")).collect();
        let texts: Vec<&str> = many.iter().map(String::as_str).collect();
        match choose(&tasks(&texts), "tsknm") {
            Choice::Many(c, 8) => assert_eq!(c.len(), 5),
            _ => panic!("eight equal matches are ambiguous"),
        }
    }

    #[test]
    fn done_marks_one_line_and_keeps_the_rest() {
        let d = vault();
        std::fs::create_dir_all(d.path().join("wiki/collections")).unwrap();
        let text = "# T\r\n\r\n## A\r\n  * [ ] renew passport\r\n- [ ] other\r\n";
        std::fs::write(d.path().join(TASKS), text).unwrap();
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
