//! The archive rule: `raw/inbox/<date>.md` is the union of both sides' blocks, each once.
//!
//! A block Sparks wrote is known by its marker's ingest token and entry number, never by its
//! text: the same words captured on two devices are two captures, and both stay. `raw/` is
//! append-only, so nothing either side has is dropped, but for one case where the base matters:
//! a capture archived on both devices, whose block of this side's a merge on the other side left
//! out for its own ([`merge_once`]); that choice stands. Blocks without a marker (written by
//! hand) are known by their bytes. This device's file stays as it is and the other's new blocks
//! follow, in its order: every block of one file has the file's capture date, and a marker
//! carries no time that would order two devices' ingests.
//!
//! A block starts at a `---` line outside a code block (a capture may hold a fenced `---`), or
//! at any `---` line followed by a marker, which Sparks writes only at a block's start.

use crate::archive::{Marker, parse_marker};
use crate::inbox::next_fence;
use std::collections::{HashMap, HashSet};

/// Merge two versions of an archive file (`base`: their common ancestor's, if any).
pub(super) fn merge(base: Option<&str>, ours: &str, theirs: &str) -> String {
    merge_once(base, ours, theirs, &mut HashMap::new()).0
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
///
/// Such a choice, made by an earlier merge, stands in every later one, whichever side made
/// it: a block of the base's that one side left out while it holds a block of its own of the
/// same capture (another ingest) is not brought back by the other side. Where the other side
/// left out this side's block, this side's block goes and the other's comes in, so that the
/// capture stays archived once, by the same block on both sides.
pub fn merge_once(
    base: Option<&str>,
    ours: &str,
    theirs: &str,
    budget: &mut HashMap<String, usize>,
) -> (String, Vec<Twice>) {
    let key = |m: &Marker| (m.token.clone(), m.entry);
    let markers_of = |blocks: &[Block<'_>]| -> HashSet<(String, u32)> {
        blocks
            .iter()
            .filter_map(|b| b.marker.as_ref())
            .map(key)
            .collect()
    };
    let mine = blocks(ours);
    let other = blocks(theirs);
    let before = markers_of(&blocks(base.unwrap_or_default()));
    let kept = markers_of(&other);
    let mut markers = markers_of(&mine);
    // This side's blocks the other side left out for a block of its own of the same capture.
    let replaced: HashSet<(String, u32)> = mine
        .iter()
        .filter_map(|b| b.marker.as_ref())
        .filter(|m| before.contains(&key(m)) && !kept.contains(&key(m)))
        .filter(|m| {
            other
                .iter()
                .filter_map(|b| b.marker.as_ref())
                .any(|t| t.hash == m.hash && t.token != m.token && !markers.contains(&key(t)))
        })
        .map(key)
        .collect();
    let stays = |b: &&Block<'_>| {
        b.marker
            .as_ref()
            .is_none_or(|m| !replaced.contains(&key(m)))
    };
    let hand: HashSet<&str> = mine
        .iter()
        .filter(|b| b.marker.is_none())
        .map(|b| b.text)
        .collect();
    let mut twice = Vec::new();
    let mut out: String = match replaced.is_empty() {
        true => ours.to_string(),
        false => mine.iter().filter(stays).map(|b| b.text).collect(),
    };
    let mut appended = false;
    for block in other {
        let new = match &block.marker {
            Some(m) => markers.insert(key(m)),
            None => !block.text.trim().is_empty() && !hand.contains(block.text),
        };
        if !new {
            continue;
        }
        // A block of the base's that this side left out for one of its own (the same choice,
        // made here): not added back.
        if let Some(m) = &block.marker
            && before.contains(&key(m))
            && mine
                .iter()
                .filter(stays)
                .filter_map(|b| b.marker.as_ref())
                .any(|o| o.hash == m.hash && o.token != m.token)
        {
            continue;
        }
        if let Some(m) = &block.marker
            && let Some(left) = budget.get_mut(&m.hash).filter(|n| **n > 0)
            && let Some(mine) = mine
                .iter()
                .filter(stays)
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
        appended = true;
    }
    if appended && !out.ends_with('\n') {
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
    use std::collections::HashMap;

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

    /// Both devices archived "buy milk" from their common inbox; the phone's merge kept its own
    /// block and left the laptop's out. The laptop, which archived more meanwhile, then merges
    /// the phone's merge: the phone's choice stands, or the capture would be archived twice.
    #[test]
    fn a_block_the_other_side_left_out_for_its_own_stays_out() {
        let start = ingested("", "k0", &["earlier"]);
        let laptop = ingested(&start, "laptop", &["buy milk"]);
        let phone = ingested(&start, "phone", &["buy milk", "call Ann"]);
        let mut budget = HashMap::from([(crate::inbox::hash("buy milk"), 1)]);
        let (on_phone, twice) = super::merge_once(Some(&start), &phone, &laptop, &mut budget);
        assert_eq!((on_phone.as_str(), twice.len()), (phone.as_str(), 1));

        let laptop_more = ingested(&laptop, "laptop2", &["water the plants"]);
        let out = super::super::merged(Rule::Archive, Some(&laptop), &laptop_more, &on_phone);
        assert_eq!(out.matches("buy milk").count(), 1, "{out}");
        assert!(
            out.contains("phone") && !out.contains("laptop\""),
            "the phone's block: {out}"
        );
        for kept in ["earlier", "call Ann", "water the plants"] {
            assert_eq!(out.matches(kept).count(), 1, "{kept}: {out}");
        }
        // The phone then takes the laptop's merge as it is (a fast-forward), and a merge the
        // other way round keeps it once too.
        let back = super::super::merged(Rule::Archive, Some(&laptop), &on_phone, &laptop_more);
        assert_eq!(back.matches("buy milk").count(), 1, "{back}");
        // Without that base the same words in two ingests are two captures, and both stay.
        assert_eq!(
            merged(&laptop_more, &on_phone).matches("buy milk").count(),
            2
        );
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
