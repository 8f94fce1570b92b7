//! How two devices' versions of one of Sparks' own files merge: pure functions over text, the
//! one implementation behind `sparks sync` and the git merge driver. Each file has a rule
//! ([`rule`]) that knows what the file means, so that a capture archived on one device is not
//! brought back by the other, a log block is not written twice, and no conflict marker ever
//! lands in a file. Files without a rule are left to git's three-way text merge and, where
//! that fails, to a conflict copy beside the file ([`conflict_copy_name`], named and
//! recognised in `vault`, where the scan and the manifest can tell a copy from a page).
//!
//! "Ours" is this device's version, "theirs" the other device's, "base" their common
//! ancestor's (`None` when the file did not exist there). Every rule gives back `ours` byte
//! for byte when `theirs` brings nothing new. Reading and writing the files is the caller's.
//!
//! The pieces: one file per rule (`inbox`, `archive`, `log`, `tasks`, `index`); this file
//! picks the rule and holds what the rules share.

mod archive;
mod inbox;
mod index;
mod log;
mod tasks;

pub use crate::vault::{conflict_copy_name, is_conflict_copy};
pub use archive::{Twice, merge_once as archive_once};

use crate::inbox::InboxError;
use crate::vault::{INBOX, LOG, TASKS};
use std::collections::HashMap;
use std::hash::Hash;

/// How a vault file is merged when both sides changed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `inbox.md`: by entry; what either side archived or deleted stays gone.
    Inbox,
    /// `raw/inbox/<date>.md`: the union of archived blocks, each once by its marker.
    Archive,
    /// `wiki/log.md`: the dated blocks of both sides, each once, in date order.
    Log,
    /// `wiki/collections/Tasks.md`: by task; done on either side is done.
    Tasks,
    /// `wiki/index.md` and its shards: this side's page with the other's new descriptions.
    Index,
    /// A collection page Sparks regenerates from the merged vault: this side's, unchanged.
    Generated,
    /// Any other file: no rule here; git's three-way merge, else a conflict copy.
    Other,
}

/// The rule for a vault-relative path (forward slashes, as the manifest writes paths).
/// Collection pages are `Generated` only when a collection writes them: a page a person put in
/// `wiki/collections/` is `Other`, since nothing would write it again.
pub fn rule(path: &str) -> Rule {
    match path {
        INBOX => Rule::Inbox,
        LOG => Rule::Log,
        TASKS => Rule::Tasks,
        p if crate::archive::is_archive(p) => Rule::Archive,
        p if crate::index::is_generated(p) => Rule::Index,
        p if crate::collections::ALL.iter().any(|c| c.output() == p) => Rule::Generated,
        _ => Rule::Other,
    }
}

/// One of the three versions a merge reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The common ancestor's version.
    Base,
    /// This device's version.
    Ours,
    /// The other device's version.
    Theirs,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Base => "the common ancestor's version",
            Side::Ours => "this device's version",
            Side::Theirs => "the other device's version",
        })
    }
}

/// A version cannot be read by its file's rule; the caller keeps this device's version and
/// writes the other beside it as a conflict copy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The inbox parser refused a version (the cause names the line).
    #[error("cannot merge {path}: {side} does not read as an inbox: {source}")]
    Inbox {
        /// The vault-relative path.
        path: String,
        /// Which version.
        side: Side,
        /// Why.
        source: InboxError,
    },
}

/// Merge three versions of `path` by `rule`. `Ok(Some(text))` is the merged file;
/// `Ok(None)` says the file has no rule here ([`Rule::Other`]): merge it as text, and write a
/// conflict copy where the text merge fails. `Err` when a version cannot be read by the rule.
pub fn merge(
    rule: Rule,
    path: &str,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Result<Option<String>, RuleError> {
    Ok(Some(match rule {
        Rule::Inbox => inbox::merge(path, base, ours, theirs)?,
        Rule::Archive => archive::merge(base, ours, theirs),
        Rule::Log => log::merge(base, ours, theirs),
        Rule::Tasks => tasks::merge(base, ours, theirs),
        Rule::Index => index::merge(base, ours, theirs),
        Rule::Generated => ours.to_string(),
        Rule::Other => return Ok(None),
    }))
}

/// What a three-way merge of keyed items keeps: for each of ours' items whether it stays, and
/// which of theirs' items are added. Items with the same key are matched in order (the second
/// `k` of ours is the second `k` of base). An item removed on either side stays removed, one
/// added on either side is kept, and one added on both sides is kept once.
fn keyed<K: Eq + Hash>(base: &[K], ours: &[K], theirs: &[K]) -> (Vec<bool>, Vec<usize>) {
    let (b, o, t) = (counts(base), counts(ours), counts(theirs));
    let n = |m: &HashMap<&K, usize>, k: &K| m.get(k).copied().unwrap_or(0);
    let mut seen: HashMap<&K, usize> = HashMap::new();
    let keep = ours
        .iter()
        .map(|k| {
            let i = next(&mut seen, k);
            // A base item stays while theirs still has it; a new one always.
            i >= n(&b, k) || i < n(&t, k)
        })
        .collect();
    let mut seen: HashMap<&K, usize> = HashMap::new();
    let add = theirs
        .iter()
        .enumerate()
        .filter(|(_, k)| next(&mut seen, k) >= n(&b, k).max(n(&o, k)))
        .map(|(i, _)| i)
        .collect();
    (keep, add)
}

/// How many times each key occurs.
fn counts<K: Eq + Hash>(items: &[K]) -> HashMap<&K, usize> {
    let mut counts = HashMap::new();
    for k in items {
        *counts.entry(k).or_default() += 1;
    }
    counts
}

/// The occurrence number of `k` so far (0 for the first), counted in `seen`.
fn next<'a, K: Eq + Hash>(seen: &mut HashMap<&'a K, usize>, k: &'a K) -> usize {
    let c = seen.entry(k).or_default();
    *c += 1;
    *c - 1
}

/// The line ending a file uses: CRLF when it has one, else LF.
fn newline(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// `text` with the line endings `nl`.
fn with_newlines(text: &str, nl: &str) -> String {
    let lf = text.replace("\r\n", "\n");
    if nl == "\n" { lf } else { lf.replace('\n', nl) }
}

/// Whether a text holds a line git would take for a conflict marker.
#[cfg(test)]
fn has_conflict_marker(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_end_matches('\r');
        l.starts_with("<<<<<<<") || l.starts_with(">>>>>>>") || l == "======="
    })
}

/// Tests: the three versions merged by `rule` through [`merge`], checked for conflict markers.
#[cfg(test)]
fn merged(rule: Rule, base: Option<&str>, ours: &str, theirs: &str) -> String {
    let out = merge(rule, "inbox.md", base, ours, theirs)
        .expect("merges")
        .expect("has a rule");
    assert!(!has_conflict_marker(&out), "{out}");
    out
}

/// Tests: a side that brings nothing new gives back the other, byte for byte.
#[cfg(test)]
fn assert_unchanged_sides_give_back_the_other(rule: Rule, base: &str, ours: &str, theirs: &str) {
    assert_eq!(
        merged(rule, Some(base), ours, ours),
        ours,
        "same on both sides"
    );
    assert_eq!(
        merged(rule, Some(base), ours, base),
        ours,
        "theirs unchanged"
    );
    assert_eq!(
        merged(rule, Some(base), base, theirs),
        theirs,
        "ours unchanged"
    );
    assert_eq!(merged(rule, None, ours, ours), ours, "added alike on both");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_gets_its_rule() {
        for (path, expected) in [
            ("inbox.md", Rule::Inbox),
            ("raw/inbox/2026-05-01.md", Rule::Archive),
            ("raw/inbox/old/2026-05-01.md", Rule::Other),
            ("wiki/log.md", Rule::Log),
            ("wiki/collections/Tasks.md", Rule::Tasks),
            ("wiki/index.md", Rule::Index),
            ("wiki/index/Entities.md", Rule::Index),
            ("wiki/index/Notes.md", Rule::Other),
            ("wiki/collections/Quotes.md", Rule::Generated),
            ("wiki/collections/Reading List.md", Rule::Generated),
            ("wiki/collections/My picks.md", Rule::Other),
            ("wiki/entities/Inbox.md", Rule::Other),
            ("sub/inbox.md", Rule::Other),
        ] {
            assert_eq!(rule(path), expected, "{path}");
        }
    }

    #[test]
    fn generated_pages_stay_ours_and_other_files_are_left_to_git() {
        let merged = merge(
            Rule::Generated,
            "wiki/collections/Quotes.md",
            None,
            "a",
            "b",
        );
        assert_eq!(merged, Ok(Some("a".to_string())));
        assert_eq!(merge(Rule::Other, "x.md", None, "a", "b"), Ok(None));
    }

    #[test]
    fn keyed_items_removed_on_a_side_stay_removed_and_added_ones_stay_once() {
        let (keep, add) = keyed(&[1, 2, 3], &[1, 3, 4], &[2, 3, 5]);
        assert_eq!(keep, [false, true, true], "1 was removed by theirs");
        assert_eq!(add, [2], "5 is theirs' only new item; 2 ours removed");
        let (keep, add) = keyed(&[], &[7, 7], &[7, 7, 7]);
        assert_eq!((keep, add), (vec![true, true], vec![2]), "matched in order");
        let (keep, add) = keyed(&[7, 7], &[7], &[7, 7, 8]);
        assert_eq!((keep, add), (vec![true], vec![2]));
    }

    #[test]
    fn conflict_markers_are_recognised() {
        assert!(has_conflict_marker("a\n<<<<<<< ours\nb\n"));
        assert!(has_conflict_marker("a\r\n=======\r\n"));
        assert!(!has_conflict_marker("a\n== heading ==\n"));
    }
}
