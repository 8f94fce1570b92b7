//! The tasks rule: `Tasks.md` merged by task, so that a task done on one device and one added
//! on the other are both there.
//!
//! A task is a `- [ ]` or `- [x]` line, read as `tasks` reads it, known by its text as
//! `tasks add` compares it, without its checkbox and without a trailing done date
//! (`✅ YYYY-MM-DD`); tasks with the same text are matched in order. Per task, three-way: a
//! side that left the line as it was takes the other's line; when both changed it, the done
//! one wins (ours if both are done, with ours' date). A task removed on one side is removed if
//! the other left it untouched, kept (as changed) if the other changed it. Every other line is
//! ours'. The other's new tasks go under their section, after its last line, as `tasks add`
//! puts them (a section ours lacks is added at the end); tasks above any section go after the
//! last line before ours' first section.

use super::newline;
use crate::inbox::hints::{checkbox_task, ticked_task};
use crate::key::key;
use std::collections::HashMap;

/// A task's identity: its text's key and which occurrence of that key it is.
type Id = (String, usize);

/// Merge three versions of the task list.
pub(super) fn merge(base: Option<&str>, ours: &str, theirs: &str) -> String {
    let nl = newline(ours);
    let (b, o, t) = (
        File::read(base.unwrap_or_default()),
        File::read(ours),
        File::read(theirs),
    );
    let mut out: Vec<(String, &str)> = Vec::with_capacity(o.lines.len());
    for (i, (line, end)) in o.lines.iter().enumerate() {
        let Some(id) = &o.ids[i] else {
            out.push((line.to_string(), end));
            continue;
        };
        let old = b.line_of(id);
        let kept = match t.line_of(id) {
            Some(other) => Some(three_way(old, line, other)),
            // Removed there: gone, unless changed here.
            None => (old != Some(line)).then_some(*line),
        };
        if let Some(kept) = kept {
            out.push((kept.to_string(), end));
        }
    }
    for (i, (line, _)) in t.lines.iter().enumerate() {
        let Some(id) = &t.ids[i] else { continue };
        let old = b.line_of(id);
        if o.line_of(id).is_some() || old == Some(line) {
            continue;
        }
        insert(&mut out, t.section_of(i), line, nl);
    }
    out.into_iter().map(|(line, end)| line + end).collect()
}

/// A task line both sides have: the changed one, or the done one when both changed.
fn three_way<'a>(base: Option<&str>, ours: &'a str, theirs: &'a str) -> &'a str {
    let done = |l: &str| ticked_task(l).is_some();
    let ours_unchanged = base == Some(ours);
    let theirs_unchanged = base == Some(theirs);
    if ours_unchanged || (!theirs_unchanged && done(theirs) && !done(ours)) {
        theirs
    } else {
        ours
    }
}

/// Insert the task `line` into `out` under `section` (`None`: above the first section).
fn insert<'a>(out: &mut Vec<(String, &'a str)>, section: Option<&str>, line: &str, nl: &'a str) {
    let heading = |l: &str| heading_name(l).map(key);
    let (start, end) = match section {
        None => (
            0,
            out.iter()
                .position(|(l, _)| heading(l).is_some())
                .unwrap_or(out.len()),
        ),
        Some(name) => match out.iter().position(|(l, _)| heading(l) == Some(key(name))) {
            Some(h) => {
                let end = (h + 1..out.len()).find(|&i| heading(&out[i].0).is_some());
                (h, end.unwrap_or(out.len()))
            }
            None => {
                let mut new = Vec::new();
                if out.last().is_some_and(|(l, _)| !l.trim().is_empty()) {
                    new.push(String::new());
                }
                new.extend([format!("## {}", name.trim()), String::new()]);
                let at = out.len();
                for (n, l) in new.into_iter().enumerate() {
                    put(out, at + n, l, nl);
                }
                (out.len() - 1, out.len())
            }
        },
    };
    let last = (start..end).rev().find(|&i| !out[i].0.trim().is_empty());
    let at = match (last, section) {
        (Some(i), _) => i + 1,
        (None, Some(_)) => start + 1,
        (None, None) => start,
    };
    put(out, at, line.to_string(), nl);
}

/// Put `line` at `at`, closing the line before it when it had no ending.
fn put<'a>(out: &mut Vec<(String, &'a str)>, at: usize, line: String, nl: &'a str) {
    if at > 0 && out[at - 1].1.is_empty() {
        out[at - 1].1 = nl;
    }
    out.insert(at, (line, nl));
}

/// A section heading's name, as `tasks` reads it: `## name` or `### name`.
fn heading_name(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("### ")
        .or_else(|| line.strip_prefix("## "))?;
    Some(rest.trim())
}

/// A version of the task list as lines (with their endings) and task identities.
struct File<'a> {
    lines: Vec<(&'a str, &'a str)>,
    ids: Vec<Option<Id>>,
    by_id: HashMap<Id, usize>,
}

impl<'a> File<'a> {
    fn read(text: &'a str) -> File<'a> {
        let lines: Vec<(&str, &str)> = text
            .split_inclusive('\n')
            .map(|l| {
                let bare = l.trim_end_matches(['\n', '\r']);
                (bare, &l[bare.len()..])
            })
            .collect();
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut by_id = HashMap::new();
        let ids = lines
            .iter()
            .enumerate()
            .map(|(i, (l, _))| {
                let text = checkbox_task(l).or_else(|| ticked_task(l))?;
                let k = key(without_done_date(text));
                let n = seen.entry(k.clone()).or_default();
                *n += 1;
                let id = (k, *n - 1);
                by_id.insert(id.clone(), i);
                Some(id)
            })
            .collect();
        File { lines, ids, by_id }
    }

    fn line_of(&self, id: &Id) -> Option<&'a str> {
        self.by_id.get(id).map(|&i| self.lines[i].0)
    }

    /// The section the line `i` is in.
    fn section_of(&self, i: usize) -> Option<&'a str> {
        self.lines[..i]
            .iter()
            .rev()
            .find_map(|(l, _)| heading_name(l))
    }
}

/// A task's text without a trailing done date, `✅ YYYY-MM-DD`.
fn without_done_date(text: &str) -> &str {
    text.rsplit_once('✅')
        .filter(|(_, date)| crate::markdown::frontmatter::is_date(date.trim()))
        .map_or(text, |(before, _)| before.trim_end())
}

#[cfg(test)]
mod tests {
    use super::super::{Rule, assert_unchanged_sides_give_back_the_other};
    use crate::tasks::{add, done, seed_file};
    use crate::vault::TASKS;

    /// `text` after `change` ran on it in a vault, as the `tasks` commands write it.
    fn after(text: &str, change: impl FnOnce(&std::path::Path)) -> String {
        let dir = tempfile::tempdir().expect("a temporary directory");
        fs_err::create_dir_all(dir.path().join("wiki/collections")).expect("mkdir");
        fs_err::write(dir.path().join(TASKS), text).expect("write");
        change(dir.path());
        fs_err::read_to_string(dir.path().join(TASKS)).expect("read")
    }

    fn added(text: &str, section: &str, task: &str) -> String {
        after(text, |root| {
            add(root, section, task, "2026-05-01").expect("added");
        })
    }

    fn completed(text: &str, query: &str) -> String {
        after(text, |root| {
            done(root, query).expect("done");
        })
    }

    fn merged(base: Option<&str>, ours: &str, theirs: &str) -> String {
        super::super::merged(Rule::Tasks, base, ours, theirs)
    }

    fn base() -> String {
        let seed = seed_file("2026-04-01");
        let text = added(&added(&seed, "Home", "water plants"), "Home", "fix tap");
        added(&text, "Work", "send report")
    }

    #[test]
    fn a_task_done_on_one_device_and_one_added_on_the_other() {
        let base = base();
        let ours = completed(&base, "water plants");
        let theirs = added(&added(&base, "Home", "buy bulbs"), "Errands", "post office");
        let both = added(&added(&ours, "Home", "buy bulbs"), "Errands", "post office");
        assert_eq!(merged(Some(&base), &ours, &theirs), both);
        let mirrored = merged(Some(&base), &theirs, &ours);
        assert!(mirrored.contains("- [x] water plants"), "{mirrored}");
        assert_eq!(mirrored.matches("buy bulbs").count(), 1, "{mirrored}");
    }

    #[test]
    fn removed_on_one_side_goes_unless_the_other_changed_it() {
        let base = base();
        let ours = base
            .replace("- [ ] fix tap\n", "")
            .replace("- [ ] send report\n", "");
        let theirs = completed(&added(&base, "Work", "plan trip"), "send report");
        let out = merged(Some(&base), &ours, &theirs);
        assert!(!out.contains("fix tap"), "untouched there: removed\n{out}");
        assert!(out.contains("- [x] send report"), "done there: kept\n{out}");
        assert!(out.contains("- [ ] plan trip"), "{out}");
        let tasks = |t: &str| {
            let mut v: Vec<String> = t
                .lines()
                .filter(|l| l.starts_with("- ["))
                .map(String::from)
                .collect();
            v.sort();
            v
        };
        assert_eq!(tasks(&merged(Some(&base), &theirs, &ours)), tasks(&out));
    }

    #[test]
    fn done_wins_and_the_done_date_is_the_doers() {
        let base = "## A\n- [ ] call mum\n- [ ] pay rent\n";
        let ours = "## A\n- [x] call mum ✅ 2026-05-02\n- [ ] pay rent\n";
        let theirs = "## A\n- [x] call mum ✅ 2026-05-03\n- [x] pay rent ✅ 2026-05-03\n";
        assert_eq!(
            merged(Some(base), ours, theirs),
            "## A\n- [x] call mum ✅ 2026-05-02\n- [x] pay rent ✅ 2026-05-03\n"
        );
        // Reopened on one side, untouched on the other: open.
        let reopened = "## A\n- [ ] call mum\n- [ ] pay rent\n";
        assert_eq!(merged(Some(ours), reopened, ours), reopened);
        // Both added the same task: once, the done one.
        let out = merged(None, "## A\n- [ ] new\n", "## A\n- [x] New\n");
        assert_eq!(out, "## A\n- [x] New\n");
    }

    #[test]
    fn unchanged_sides_give_back_the_other() {
        let base = base();
        let ours = completed(&added(&base, "Home", "mop"), "fix tap");
        let theirs = completed(&added(&base, "Work", "call Bo"), "send report");
        assert_unchanged_sides_give_back_the_other(Rule::Tasks, &base, &ours, &theirs);
    }

    #[test]
    fn tasks_above_any_section_crlf_and_no_final_newline() {
        let base = "# Tasks\r\n- [ ] top\r\n## A\r\n- [ ] a";
        let theirs = "# Tasks\r\n- [ ] top\r\n- [ ] top two\r\n## A\r\n- [ ] a\r\n- [ ] a2\r\n";
        let out = merged(Some(base), base, theirs);
        assert_eq!(
            out,
            "# Tasks\r\n- [ ] top\r\n- [ ] top two\r\n## A\r\n- [ ] a\r\n- [ ] a2\r\n"
        );
        let out = merged(None, "## A\n- [ ] a", "## B\n- [ ] b\n");
        assert_eq!(out, "## A\n- [ ] a\n\n## B\n\n- [ ] b\n");
    }
}
