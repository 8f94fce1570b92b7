//! What the two-device soaks ([`super::devices`], [`super::appends`]) wrote, each thing known by
//! a token no other holds, and where each is once the devices have synced to rest.
//!
//! A capture (made with `sparks capture` or appended to `inbox.md` by hand) carries `[cN]` in
//! its text: on each device it must be in `inbox.md` or in an archive file
//! `raw/inbox/DATE.md`, exactly once in all. A task's text is `tend bed tN`: on each device it
//! must be one line of `Tasks.md`, `- [x]` if it was done on either device, `- [ ]` if not.
//! Either device ingests whenever it likes, so a capture both hold may be ingested on both
//! before they sync (issue 48's item 6: it must end archived once); the ingests each device
//! made of each capture are kept, to count those.

use super::finalize::agent_writes;
use super::{Finding, Soak};
use crate::harness::{Run, TestVault, archive_files, git};
use crate::sync::{Devices, head};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;

/// The devices' names, as [`Devices`] holds them: `a` and `b`.
pub const NAMES: [&str; 2] = ["A", "B"];

/// The vault of device `i`.
pub fn device(d: &Devices, i: usize) -> &TestVault {
    match i {
        0 => &d.a,
        _ => &d.b,
    }
}

/// A task written to a device's `Tasks.md`, and whether some device completed it.
struct Task {
    text: String,
    done: bool,
}

/// Every capture and task the soak made, and the ingests each device made.
#[derive(Default)]
pub struct Tokens {
    /// Tokens handed out, written or not.
    next: usize,
    /// The text of every capture written, on either device, by either hand.
    captures: Vec<String>,
    tasks: Vec<Task>,
    /// Ingests finalized, on either device.
    ingests: usize,
    /// Per capture token, whether each device archived it in an ingest of its own.
    archived_by: HashMap<String, [bool; 2]>,
}

impl Tokens {
    /// The text of a new capture on device `i`, made `how` (written or not: see
    /// [`Tokens::captured`]).
    pub fn capture_text(&mut self, i: usize, how: &str) -> String {
        self.next += 1;
        format!(
            "[c{}] {how} on {}: a thought worth keeping",
            self.next, NAMES[i]
        )
    }

    /// The capture `text` is in a device's inbox.
    pub fn captured(&mut self, text: String) {
        self.captures.push(text);
    }

    /// How many captures were written.
    pub fn captures(&self) -> usize {
        self.captures.len()
    }

    /// How many tasks were added, and of them completed.
    pub fn tasks(&self) -> (usize, usize) {
        let done = self.tasks.iter().filter(|t| t.done).count();
        (self.tasks.len(), done)
    }

    /// The text of a new task (added or not: see [`Tokens::added`]).
    pub fn task_text(&mut self) -> String {
        self.next += 1;
        format!("tend bed t{}", self.next)
    }

    /// The task `text` was added.
    pub fn added(&mut self, text: String) {
        self.tasks.push(Task { text, done: false });
    }

    /// The task `text` was completed.
    pub fn done(&mut self, text: &str) {
        for t in self.tasks.iter_mut().filter(|t| t.text == text) {
            t.done = true;
        }
    }

    /// The soak's tasks open in `v`'s `Tasks.md`.
    pub fn open_tasks(&self, v: &TestVault) -> Vec<String> {
        let lines = task_lines(v);
        self.tasks
            .iter()
            .filter(|t| lines.get(&t.text).is_some_and(|s| s == &[false]))
            .map(|t| t.text.clone())
            .collect()
    }

    /// Device `i` finalized an ingest of `entries` (their texts).
    pub fn ingested(&mut self, i: usize, entries: &[String]) {
        self.ingests += 1;
        for text in entries {
            if let Some(end) = text.find(']') {
                self.archived_by
                    .entry(text[..=end].to_string())
                    .or_default()[i] = true;
            }
        }
    }

    /// How many ingests were finalized on either device.
    pub fn ingests(&self) -> usize {
        self.ingests
    }

    /// How many captures both devices archived, each in an ingest of its own.
    pub fn ingested_on_both(&self) -> usize {
        self.archived_by.values().filter(|b| b[0] && b[1]).count()
    }

    /// What `v` (device `name`) holds wrong: each capture not exactly once in its inbox and
    /// archive, each task not there once or not done though done somewhere. A finding's key is
    /// the token, so that a capture lost on both devices counts once.
    pub fn check(&self, v: &TestVault, name: &str) -> Vec<Finding> {
        let inbox = token_counts(&v.read("inbox.md"));
        let mut archive: HashMap<&str, HashMap<String, usize>> = HashMap::new();
        let files = archive_files(v);
        for (file, text) in &files {
            // Only `DATE.md` is an archive file: a conflict copy or a staged file beside them
            // holds blocks that were never archived.
            if file.strip_suffix(".md").is_some_and(is_date) {
                archive.insert(file.as_str(), token_counts(text));
            }
        }
        let mut out = Vec::new();
        for text in &self.captures {
            let token = &text[..text.find(']').expect("a token") + 1];
            let here = inbox.get(token).copied().unwrap_or(0);
            let mut archived = 0;
            let mut files = Vec::new();
            for (file, counts) in &archive {
                if let Some(n) = counts.get(token) {
                    archived += n;
                    files.push(*file);
                }
            }
            let what = || {
                format!("{token} on {name}: in the inbox {here}x, archived {archived}x {files:?}")
            };
            match here + archived {
                1 => {}
                0 => out.push(Finding::lost(token, 1, what())),
                _ => out.push(Finding::duplicated(token, 1, what())),
            }
        }
        let lines = task_lines(v);
        for t in &self.tasks {
            let states = lines.get(&t.text).map(Vec::as_slice).unwrap_or_default();
            let what = |says: &str| format!("task {:?} on {name}: {says} ({states:?})", t.text);
            let key = format!("task {}", t.text);
            match states {
                [] => out.push(Finding::lost(key, 1, what("gone"))),
                [done] if *done == t.done => {}
                [true] => out.push(Finding::duplicated(key, 1, what("done, by no device"))),
                [false] => out.push(Finding::lost(key, 1, what("open again"))),
                _ => out.push(Finding::duplicated(key, 1, what("more than once"))),
            }
        }
        out
    }
}

/// Each task line of `v`'s `Tasks.md`, by its text: done or not, once per line.
fn task_lines(v: &TestVault) -> HashMap<String, Vec<bool>> {
    let mut out: HashMap<String, Vec<bool>> = HashMap::new();
    let Ok(text) = std::fs::read_to_string(v.path("wiki/collections/Tasks.md")) else {
        return out;
    };
    for line in text.lines() {
        let (done, task) = match (line.strip_prefix("- [ ] "), line.strip_prefix("- [x] ")) {
            (Some(t), _) => (false, t),
            (_, Some(t)) => (true, t),
            _ => continue,
        };
        out.entry(task.trim().to_string()).or_default().push(done);
    }
    out
}

/// How many times each token (`[c12]`, `[h3.40]`) is in `text`.
fn token_counts(text: &str) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    let mut rest = text;
    while let Some(at) = rest.find('[') {
        rest = &rest[at..];
        let token = rest
            .find(']')
            .map(|end| &rest[..=end])
            .filter(|t| t.len() > 3 && (t.starts_with("[c") || t.starts_with("[h")))
            .filter(|t| {
                t[2..t.len() - 1]
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b == b'.')
            });
        match token {
            Some(t) => {
                *out.entry(t.to_string()).or_default() += 1;
                rest = &rest[t.len()..];
            }
            None => rest = &rest[1..],
        }
    }
    out
}

fn is_date(name: &str) -> bool {
    chrono::NaiveDate::parse_from_str(name, "%Y-%m-%d").is_ok()
}

/// Append the capture `text` to the inbox at `path` as an editor or a phone app does: open the
/// file, read it, append the entry (after a separator if the file does not end with one) in
/// one write, close.
pub fn append_by_hand(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    let mut now = String::new();
    f.read_to_string(&mut now)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut entry = String::new();
    if !now.is_empty() && !now.ends_with('\n') {
        entry.push('\n');
    }
    if !now.trim_end().ends_with("\n---") {
        entry.push_str("---\n");
    }
    entry.push_str(text);
    entry.push_str("\n---\n");
    f.write_all(entry.as_bytes())
        .unwrap_or_else(|e| panic!("append to {}: {e}", path.display()));
}

/// Which step of an [`ingest`] failed, and how.
pub enum Failed {
    Prepare(Run),
    /// Finalize failed [`super::RERUNS`] times more; the ingest is left open.
    Finalize(Run),
}

/// The pages the agent of an [`ingest`] writes.
#[derive(Clone, Copy)]
pub enum Pages {
    /// A summary page per entry ([`agent_writes`]).
    Each,
    /// One page for the whole batch (so that big batches do not grow the vault by a page a
    /// capture).
    One,
}

/// The agent of device `v` ingests: `ingest --prepare --limit LIMIT` (0: all), its `pages`,
/// `ingest --finalize`, run again while it fails (it resumes; a finalize stops when the
/// inbox keeps changing under it) a few times. The texts of the entries archived (none when
/// the inbox had none).
pub fn ingest(v: &TestVault, limit: u64, pages: Pages) -> Result<Vec<String>, Failed> {
    let batch = v.run(&["ingest", "--prepare", "--limit", &limit.to_string()]);
    if batch.code != Some(0) {
        return Err(Failed::Prepare(batch));
    }
    let batch = batch.json();
    if batch["ingest_id"].is_null() {
        return Ok(Vec::new());
    }
    match pages {
        Pages::Each => agent_writes(v, &batch),
        Pages::One => {
            let id = &batch["ingest_id"];
            let date = batch["entries"][0]["capture_date"]
                .as_str()
                .expect("capture_date");
            v.page_citing(
                &format!("wiki/summaries/Batch {id}.md"),
                &format!("Batch {id}"),
                &format!("raw/inbox/{date}.md"),
                "Filed from a batch of captures. They are archived. Nothing else.",
            );
        }
    }
    let mut f = v.run(&["ingest", "--finalize"]);
    for _ in 0..super::RERUNS {
        if f.code == Some(0) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        f = v.run(&["ingest", "--finalize"]);
    }
    if f.code != Some(0) {
        return Err(Failed::Finalize(f));
    }
    let entries = batch["entries"].as_array().expect("entries");
    Ok(entries
        .iter()
        .map(|e| e["content"].as_str().expect("content").to_string())
        .collect())
}

/// Sync the devices in turn (A, B, A), a few turns at most, until both stand on one commit
/// with nothing of theirs left uncommitted.
pub fn rest(d: &Devices) -> Result<(), String> {
    for _ in 0..3 {
        for i in [0, 1, 0] {
            let v = device(d, i);
            let r = v.run(&["sync"]);
            if r.code != Some(0) {
                return Err(format!("{}'s sync failed: {}", NAMES[i], r.stderr.trim()));
            }
        }
        let dirty = |v: &TestVault| {
            let s = git(
                v,
                &v.root,
                &["status", "--porcelain", "--untracked-files=no"],
            );
            !s.trim().is_empty()
        };
        if head(&d.a, &d.a.root) == head(&d.b, &d.b.root) && !dirty(&d.a) && !dirty(&d.b) {
            return Ok(());
        }
    }
    Err(format!(
        "A at {}, B at {}",
        head(&d.a, &d.a.root),
        head(&d.b, &d.b.root)
    ))
}

/// Sync the devices to rest ([`rest`]; stuck if they do not get there) and check both: the
/// tokens ([`Tokens::check`]), conflict markers, staged files and git locks.
pub fn at_rest(soak: &mut Soak, d: &Devices, tokens: &Tokens, round: usize) {
    if let Err(why) = rest(d) {
        soak.stuck_at(round, "syncing to rest", &why);
    }
    for (i, name) in NAMES.iter().enumerate() {
        let v = device(d, i);
        soak.count(round, tokens.check(v, name));
        soak.markers(v, name, round);
        soak.leftovers(v, round);
    }
}

/// The check counts what is on disk by exact token: a capture archived and still in the inbox
/// is duplicated, one in neither lost (`[c10]` is not `[c1]`), a task done somewhere but open
/// here lost; a file with a conflict marker is counted once, however often it is looked at.
#[test]
fn the_check_finds_a_capture_twice_one_gone_a_task_open_again_and_a_marker() {
    let v = TestVault::new();
    let mut tokens = Tokens::default();
    let texts: Vec<String> = (0..3).map(|_| tokens.capture_text(0, "captured")).collect();
    for text in &texts {
        tokens.captured(text.clone());
    }
    v.capture(&[&texts[0], &texts[1], "[c10] someone else's capture"]);
    let marker = "<!-- sparks: ingest 1 t entry 1 blake3 h -->";
    v.write(
        "raw/inbox/2026-05-01.md",
        format!("---\n{marker}\n{}\n", texts[1]),
    );
    let task = tokens.task_text();
    v.run(&["tasks", "add", "--section", "Garden", "--text", &task])
        .ok();
    tokens.added(task.clone());
    assert!(
        tokens.check(&v, "A").len() == 2,
        "the task is open, as it should be"
    );
    tokens.done(&task);
    let found: Vec<(bool, String)> = tokens
        .check(&v, "A")
        .into_iter()
        .map(|f| (f.lost, f.key))
        .collect();
    assert_eq!(
        found,
        [
            (false, "[c2]".to_string()),
            (true, "[c3]".to_string()),
            (true, format!("task {task}"))
        ]
    );

    let mut soak = Soak::new("check");
    v.write(
        "wiki/concepts/Torn.md",
        "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> b\n",
    );
    soak.markers(&v, "A", 0);
    soak.markers(&v, "A", 1);
    assert_eq!(soak.markers.len(), 1);
}
