//! The archive rule: `raw/inbox/<date>.md` is the union of both sides' blocks, each once.
//!
//! A block Sparks wrote is known by its marker's ingest token and entry number, never by its
//! text: the same words captured on two devices are two captures, and both stay. `raw/` is
//! append-only, so nothing either side has is dropped and the base does not matter. Blocks
//! without a marker (written by hand) are known by their bytes. This device's file stays as
//! it is and the other's new blocks follow, in its order: every block of one file has the
//! file's capture date, and a marker carries no time that would order two devices' ingests.
//!
//! A block starts at a `---` line outside a code block (a capture may hold a fenced `---`), or
//! at any `---` line followed by a marker, which Sparks writes only at a block's start.

use crate::archive::{Marker, parse_marker};
use crate::inbox::next_fence;
use std::collections::{HashMap, HashSet};

/// Merge two versions of an archive file.
pub(super) fn merge(ours: &str, theirs: &str) -> String {
    merge_once(ours, theirs, &mut HashMap::new()).0
}

/// A capture both devices archived, each in an ingest of its own (each prepared it before
/// syncing): the merged file keeps this device's block of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Twice {
    /// The capture's content hash.
    pub hash: String,
    /// The first line of its text, for a person.
    pub first_line: String,
    /// This device's ingest that archived it: its number here and its token.
    pub ours: (i64, String),
    /// The other device's ingest: its number there and its token.
    pub theirs: (i64, String),
}

/// [`merge`], leaving out the other side's blocks that archive again a capture one of this
/// side's blocks archives (the same content hash, another ingest): at most `budget[hash]` of
/// them, the number of captures the caller knows both sides took from their common inbox.
/// Captures with the same words that are not the same capture stay, each once.
pub fn merge_once(
    ours: &str,
    theirs: &str,
    budget: &mut HashMap<String, usize>,
) -> (String, Vec<Twice>) {
    let mine = blocks(ours);
    let hand: HashSet<&str> = mine
        .iter()
        .filter(|b| b.marker.is_none())
        .map(|b| b.text)
        .collect();
    let mut markers: HashSet<(String, u32)> = mine
        .iter()
        .filter_map(|b| b.marker.as_ref())
        .map(|m| (m.token.clone(), m.entry))
        .collect();
    let mut twice = Vec::new();
    let mut out = ours.to_string();
    for block in blocks(theirs) {
        let new = match &block.marker {
            Some(m) => markers.insert((m.token.clone(), m.entry)),
            None => !block.text.trim().is_empty() && !hand.contains(block.text),
        };
        if !new {
            continue;
        }
        if let Some(m) = &block.marker
            && let Some(left) = budget.get_mut(&m.hash).filter(|n| **n > 0)
            && let Some(mine) = mine
                .iter()
                .filter_map(|b| b.marker.as_ref())
                .find(|o| o.hash == m.hash && o.token != m.token)
        {
            *left -= 1;
            twice.push(Twice {
                hash: m.hash.clone(),
                first_line: first_line(block.text),
                ours: (mine.ingest, mine.token.clone()),
                theirs: (m.ingest, m.token.clone()),
            });
            continue;
        }
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(block.text);
    }
    if out.len() > ours.len() && !out.ends_with('\n') {
        out.push('\n');
    }
    (out, twice)
}

/// The first line of a block's capture: past its separator, marker and date lines.
fn first_line(block: &str) -> String {
    block
        .lines()
        .map(str::trim)
        .find(|l| {
            !l.is_empty()
                && *l != "---"
                && parse_marker(l).is_none()
                && chrono::NaiveDate::parse_from_str(l, "%Y-%m-%d").is_err()
        })
        .unwrap_or_default()
        .to_string()
}

/// One block of an archive file.
struct Block<'a> {
    /// Its bytes, from its `---` line to the next block.
    text: &'a str,
    /// Its marker, if it has one.
    marker: Option<Marker>,
}

/// The blocks of an archive file, in order; text before the first `---` is a block too.
fn blocks(text: &str) -> Vec<Block<'_>> {
    let mut lines = Vec::new();
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        lines.push((pos, line.trim_end_matches(['\n', '\r'])));
        pos += line.len();
    }
    let marker = |i: usize| lines.get(i).and_then(|(_, l)| parse_marker(l));
    // Where each block starts, and its separator's line (none for text before the first).
    let mut starts = vec![(0, None)];
    let mut fence = None;
    for (i, &(at, line)) in lines.iter().enumerate() {
        if line == "---" && (fence.is_none() || marker(i + 1).is_some()) {
            if at == 0 {
                starts.clear();
            }
            starts.push((at, Some(i)));
            fence = None;
        } else {
            fence = next_fence(fence, line);
        }
    }
    let ends = starts.iter().skip(1).map(|s| s.0).chain([text.len()]);
    starts
        .iter()
        .zip(ends)
        .filter(|((from, _), to)| from < to)
        .map(|(&(from, sep), to)| Block {
            text: &text[from..to],
            marker: sep.and_then(|i| marker(i + 1)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{Rule, assert_unchanged_sides_give_back_the_other};
    use crate::archive::{Item, archive, marker};

    const FILE: &str = "raw/inbox/2026-05-01.md";

    /// The archive file `start` after one ingest archived `captures` (entries 1, 2, …), as
    /// finalize writes it.
    fn ingested(start: &str, token: &str, captures: &[&str]) -> String {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join(FILE);
        fs_err::create_dir_all(dir.path().join("raw/inbox")).expect("mkdir");
        fs_err::write(&path, start).expect("write");
        let hashes: Vec<String> = captures.iter().map(|c| crate::inbox::hash(c)).collect();
        let items: Vec<Item<'_>> = (0..captures.len())
            .map(|i| Item {
                entry: i as u32 + 1,
                capture_date: "2026-05-01",
                hash: &hashes[i],
                content: captures[i],
            })
            .collect();
        archive(dir.path(), 1, token, &items).expect("archived");
        fs_err::read_to_string(&path).expect("read")
    }

    fn merged(ours: &str, theirs: &str) -> String {
        super::super::merged(Rule::Archive, None, ours, theirs)
    }

    #[test]
    fn two_ingests_of_one_day_keep_both_sides_blocks_once_each() {
        let base = ingested("", "k0", &["earlier"]);
        let ours = ingested(&base, "laptop", &["buy milk", "call Ann"]);
        let theirs = ingested(&base, "phone", &["buy milk"]);
        let out = merged(&ours, &theirs);
        assert_eq!(out, ingested(&ours, "phone", &["buy milk"]));
        assert_eq!(out.matches("buy milk").count(), 2, "two captures: {out}");
        assert_eq!(out.matches("earlier").count(), 1, "{out}");
        let back = merged(&theirs, &ours);
        assert_eq!(back, ingested(&theirs, "laptop", &["buy milk", "call Ann"]));
    }

    #[test]
    fn a_merge_adds_nothing_twice_and_drops_nothing() {
        let base = ingested("", "k0", &["a"]);
        let ours = ingested(&base, "k1", &["b"]);
        let theirs = ingested(&base, "k2", &["c"]);
        let out = merged(&ours, &theirs);
        assert_eq!(merged(&out, &theirs), out);
        assert_eq!(merged(&out, &ours), out);
        assert_unchanged_sides_give_back_the_other(Rule::Archive, &base, &ours, &theirs);
        assert_eq!(merged("", &theirs), theirs);
        // A block only theirs still has (a revert on this side) stays: raw/ is append-only.
        assert_eq!(merged("", &out), out);
    }

    #[test]
    fn a_fenced_separator_is_content_and_hand_written_blocks_are_kept() {
        let fenced = "note\n```\n---\n```";
        let ours = ingested("", "k1", &[fenced]);
        let theirs = ingested("", "k2", &["x\n```\n---\n```"]);
        let out = merged(&ours, &theirs);
        assert_eq!(out, ingested(&ours, "k2", &["x\n```\n---\n```"]));
        let hand = "---\nwritten by hand\n";
        let out = merged(
            &format!("{ours}{hand}"),
            &format!("{theirs}{hand}---\nmore\n"),
        );
        assert_eq!(out.matches("written by hand").count(), 1, "{out}");
        assert!(out.ends_with("---\nmore\n"), "{out}");
    }

    #[test]
    fn blocks_are_known_by_their_marker_not_their_text() {
        let ours = ingested("", "k1", &["same"]);
        let edited = ours.replace("same", "same, edited");
        assert_eq!(merged(&ours, &edited), ours, "one capture: ours' text");
        let m = marker(1, "k1", 2, &crate::inbox::hash("same"));
        let other = format!("---\n{m}\nsame\n");
        assert_eq!(merged(&ours, &other), format!("{ours}{other}"));
        assert_eq!(
            merged("---\nno newline", "---\nthe end"),
            "---\nno newline\n---\nthe end\n"
        );
    }
}
