//! The captures a soak wrote into `inbox.md`, and where each is now: in the inbox (as an entry)
//! or in the archive (as a block under a marker in `raw/inbox/DATE.md`). Every capture must be
//! in exactly one of the two, once.
//!
//! A capture is known by its capture date (its date line, or today for an undated one, which
//! is the date an ingest gives it) and its text: a capture repeating an earlier one's text on
//! a later date line is a capture of its own.

use super::{Finding, Rng};
use crate::harness::{TODAY, TestVault, archive_files};
use std::collections::{HashMap, HashSet};

/// A capture: its date line, if any, and its text.
pub struct Capture {
    date: Option<String>,
    text: String,
}

impl Capture {
    /// The date and text it is known by.
    fn key(&self) -> (String, String) {
        let date = self.date.clone().unwrap_or_else(|| TODAY.to_string());
        (date, self.text.clone())
    }

    /// The entry as it is captured.
    fn entry(&self) -> String {
        match &self.date {
            Some(d) => format!("{d}\n{}", self.text),
            None => self.text.clone(),
        }
    }
}

/// Every capture written, in order.
#[derive(Default)]
pub struct Ledger {
    captures: Vec<Capture>,
    /// Captures not to repeat: those repeated already, and the repeats. So no two captures
    /// share a date and a text (a first capture's date is in 1 to 20 April, a repeat's in 21
    /// to 30 April), and the census tells each from every other.
    not_to_repeat: HashSet<usize>,
}

/// How many times each (date, text) is in the inbox and in the archive.
pub struct Census {
    inbox: HashMap<(String, String), usize>,
    archive: HashMap<(String, String), usize>,
}

impl Census {
    /// The inbox's entries and the archive's blocks, counted.
    pub fn take(v: &TestVault) -> Census {
        let mut inbox = HashMap::new();
        // The header, before the first separator, is no entry.
        for entry in pieces(&v.read("inbox.md")).into_iter().skip(1) {
            if entry.is_empty() {
                continue;
            }
            let (date, text) = match entry.split_once('\n') {
                Some((d, rest)) if is_date(d) => (d.to_string(), rest.trim().to_string()),
                _ => (TODAY.to_string(), entry),
            };
            *inbox.entry((date, text)).or_default() += 1;
        }
        let mut archive = HashMap::new();
        for (name, text) in archive_files(v) {
            // Only `DATE.md` is an archive file: a staged file a killed finalize left beside
            // them holds blocks that were never archived.
            let Some(date) = name.strip_suffix(".md").filter(|d| is_date(d)) else {
                continue;
            };
            let date = date.to_string();
            for block in pieces(&text).into_iter().filter(|b| !b.is_empty()) {
                // A block is its marker line, then the capture's text.
                let text = block
                    .split_once('\n')
                    .filter(|(marker, _)| marker.starts_with("<!-- sparks: ingest "))
                    .map_or(block.as_str(), |(_, rest)| rest)
                    .trim()
                    .to_string();
                *archive.entry((date.clone(), text)).or_default() += 1;
            }
        }
        Census { inbox, archive }
    }

    /// How many times the capture with `key` is in the inbox and in the archive.
    pub fn of(&self, key: &(String, String)) -> (usize, usize) {
        let n = |m: &HashMap<_, usize>| m.get(key).copied().unwrap_or(0);
        (n(&self.inbox), n(&self.archive))
    }
}

/// The pieces of a text between lines of exactly `---`, trimmed: the first is what precedes
/// the first separator (the inbox's header).
fn pieces(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for line in text.lines() {
        match line == "---" {
            true => out.push(String::new()),
            false => {
                let last = out.last_mut().expect("one piece at least");
                last.push_str(line);
                last.push('\n');
            }
        }
    }
    out.into_iter().map(|p| p.trim().to_string()).collect()
}

fn is_date(line: &str) -> bool {
    chrono::NaiveDate::parse_from_str(line.trim(), "%Y-%m-%d").is_ok()
}

impl Ledger {
    /// Capture `n` new texts (about half with a date line, some with a URL so that finalize
    /// regenerates a collection) and, one time in four, the text of an archived capture again
    /// on a later date line.
    pub fn capture(&mut self, v: &TestVault, rng: &mut Rng, census: &Census, n: usize) {
        let mut fresh = Vec::new();
        for _ in 0..n {
            let i = self.captures.len();
            let date = rng
                .one_in(2)
                .then(|| format!("2026-04-{:02}", rng.between(1, 20)));
            let text = match rng.one_in(4) {
                true => format!("capture {i}: read https://example.com/{i} later"),
                false => format!("capture {i}: a thought worth keeping"),
            };
            self.captures.push(Capture { date, text });
            fresh.push(i);
        }
        let archived: Vec<usize> = (0..self.captures.len())
            .filter(|i| self.captures[*i].date.is_some() && !self.not_to_repeat.contains(i))
            .filter(|i| census.of(&self.captures[*i].key()).1 > 0)
            .collect();
        if !archived.is_empty() && rng.one_in(4) {
            let original = archived[rng.between(0, archived.len() as u64 - 1) as usize];
            let text = self.captures[original].text.clone();
            // Later than any first capture's date line, earlier than today.
            let date = Some(format!("2026-04-{:02}", rng.between(21, 30)));
            self.not_to_repeat.extend([original, self.captures.len()]);
            fresh.push(self.captures.len());
            self.captures.push(Capture { date, text });
        }
        let entries: Vec<String> = fresh.iter().map(|i| self.captures[*i].entry()).collect();
        let refs: Vec<&str> = entries.iter().map(String::as_str).collect();
        v.capture(&refs);
    }

    /// Capture three more when fewer than `at_least` are in the inbox, so that every round has
    /// a batch to prepare.
    pub fn top_up(&mut self, v: &TestVault, rng: &mut Rng, at_least: usize) {
        let census = Census::take(v);
        let pending = self
            .captures
            .iter()
            .filter(|c| census.of(&c.key()).0 > 0)
            .count();
        if pending < at_least {
            self.capture(v, rng, &census, 3);
        }
    }

    /// Every capture in the inbox or the archive, once: one neither is lost, one in both or
    /// twice in either is duplicated.
    pub fn check(&self, census: &Census) -> Vec<Finding> {
        let keys: HashSet<_> = self.captures.iter().map(Capture::key).collect();
        assert_eq!(
            keys.len(),
            self.captures.len(),
            "the soak wrote two captures with the same date and text: it cannot tell them apart"
        );
        let mut out = Vec::new();
        for c in &self.captures {
            let key = c.key();
            let (inbox, archive) = census.of(&key);
            let what = || {
                format!(
                    "{:?} ({}) in the inbox {inbox}x, archived {archive}x",
                    key.1, key.0
                )
            };
            match inbox + archive {
                0 => out.push(Finding::lost(id(&key), 1, what())),
                1 => {}
                _ => out.push(Finding::duplicated(id(&key), 1, what())),
            }
        }
        out
    }
}

/// The name a finding about the capture `key` is counted under, once over the soak.
fn id(key: &(String, String)) -> String {
    format!("{} {}", key.0, key.1)
}

/// Every entry of a prepared `batch` back in the inbox (after a revert): one that is not is
/// lost. ([`Ledger::check`] finds one there twice, or there and archived.)
pub fn put_back(census: &Census, batch: &serde_json::Value) -> Vec<Finding> {
    let mut out = Vec::new();
    for entry in batch["entries"].as_array().expect("entries") {
        let field = |k: &str| entry[k].as_str().expect("entry field").to_string();
        let key = (field("capture_date"), field("content"));
        let (inbox, archive) = census.of(&key);
        if inbox == 0 {
            let what = format!(
                "{:?} ({}) is not back in the inbox (archived {archive}x)",
                key.1, key.0
            );
            out.push(Finding::lost(id(&key), 1, what));
        }
    }
    out
}

/// The census counts what is on disk, whoever wrote it: a capture archived by hand and left in
/// the inbox is duplicated, one taken out of the inbox lost, and one whose block is only in a
/// staged file beside the archive is where it was.
#[test]
fn the_census_finds_a_capture_in_both_places_and_one_in_neither() {
    let v = TestVault::new();
    let mut ledger = Ledger::default();
    ledger.capture(&v, &mut Rng::new(7), &Census::take(&v), 3);
    assert!(ledger.check(&Census::take(&v)).is_empty());
    let [twice, gone, staged] = &ledger.captures[..] else {
        panic!("three captures")
    };
    let block = |c: &Capture| {
        let (date, text) = c.key();
        let marker = "<!-- sparks: ingest 1 t entry 1 blake3 h -->";
        (date, format!("---\n{marker}\n{text}\n"))
    };
    let (date, text) = block(twice);
    v.write(&format!("raw/inbox/{date}.md"), text);
    v.write("raw/inbox/.sparks-staged.tmp", block(staged).1);
    let inbox = v.read("inbox.md");
    v.write(
        "inbox.md",
        inbox.replace(&format!("{}\n---\n", gone.entry()), ""),
    );
    let found = ledger.check(&Census::take(&v));
    let kinds: Vec<(bool, &str)> = found.iter().map(|f| (f.lost, f.key.as_str())).collect();
    assert_eq!(
        kinds,
        [
            (false, id(&twice.key()).as_str()),
            (true, id(&gone.key()).as_str())
        ]
    );
}
