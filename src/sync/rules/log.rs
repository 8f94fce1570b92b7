//! The log rule: `wiki/log.md` keeps the dated blocks of both sides, each once, in date order.
//!
//! A block is a `## [YYYY-MM-DD] …` heading (outside a code block, with a real date) and every
//! line up to the next one; what comes before the first is the header, this device's. A block
//! is known by its text, trimmed and with LF line endings. Three-way: a block either side
//! removed stays removed, so a block one side edited is the edited one, not both; a block
//! either side added is kept once. This device's blocks stay in their order, and each of the
//! other's new blocks goes after the last block of its date or earlier (after this device's of
//! the same date), separated by a blank line.

use super::{keyed, newline, with_newlines};
use crate::inbox::next_fence;
use crate::markdown::frontmatter::is_date;

/// Merge three versions of the log.
pub(super) fn merge(base: Option<&str>, ours: &str, theirs: &str) -> String {
    let (head, mine) = split(ours);
    let other = split(theirs).1;
    let old = base.map(|b| split(b).1).unwrap_or_default();
    let key = |blocks: &[Block<'_>]| blocks.iter().map(|b| b.key.clone()).collect::<Vec<_>>();
    let (keep, add) = keyed(&key(&old), &key(&mine), &key(&other));
    let nl = newline(ours);
    // (date, text, inserted)
    let mut pieces: Vec<(&str, String, bool)> = mine
        .iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(b, _)| (b.date, b.text.to_string(), false))
        .collect();
    for i in add {
        let b = &other[i];
        let at = pieces
            .iter()
            .rposition(|p| p.0 <= b.date)
            .map_or(0, |p| p + 1);
        let text = format!("{}{nl}", with_newlines(b.text.trim_end(), nl));
        pieces.insert(at, (b.date, text, true));
    }
    let mut out = head.to_string();
    let mut after_inserted = false;
    for (_, text, inserted) in pieces {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(nl);
        }
        let blank = out.is_empty() || out.ends_with(&format!("{nl}{nl}")) || out == nl;
        if (inserted || after_inserted) && !blank {
            out.push_str(nl);
        }
        out.push_str(&text);
        after_inserted = inserted;
    }
    out
}

/// A dated block of the log.
struct Block<'a> {
    /// Its heading's date.
    date: &'a str,
    /// Its bytes, heading to the next block.
    text: &'a str,
    /// What it is known by: trimmed, LF.
    key: String,
}

/// The header and the dated blocks of a log.
fn split(text: &str) -> (&str, Vec<Block<'_>>) {
    let mut starts = Vec::new();
    let mut fence = None;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if fence.is_none()
            && let Some(date) = heading_date(bare)
        {
            starts.push((pos, date));
        }
        fence = next_fence(fence, bare);
        pos += line.len();
    }
    let head = &text[..starts.first().map_or(text.len(), |s| s.0)];
    let ends = starts.iter().skip(1).map(|s| s.0).chain([text.len()]);
    let blocks = starts
        .iter()
        .zip(ends)
        .map(|(&(from, date), to)| Block {
            date,
            text: &text[from..to],
            key: text[from..to].replace("\r\n", "\n").trim().to_string(),
        })
        .collect();
    (head, blocks)
}

/// The date of a block heading, `## [YYYY-MM-DD] …`.
fn heading_date(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("## ")?.trim_start().strip_prefix('[')?;
    let date = rest.get(..10)?;
    (rest[10..].starts_with(']') && is_date(date)).then_some(date)
}

#[cfg(test)]
mod tests {
    use super::super::{Rule, assert_unchanged_sides_give_back_the_other};

    const HEAD: &str = "---\ntitle: Log\n---\n\n# Log\n\nWhat happened, oldest first.\n";

    fn block(date: &str, what: &str) -> String {
        format!("\n## [{date}] ingest | {what}\n- Created [[{what}]]\n")
    }

    fn log(blocks: &[(&str, &str)]) -> String {
        blocks
            .iter()
            .fold(HEAD.to_string(), |t, (d, w)| t + &block(d, w))
    }

    fn merged(base: Option<&str>, ours: &str, theirs: &str) -> String {
        super::super::merged(Rule::Log, base, ours, theirs)
    }

    #[test]
    fn two_ingests_of_one_day_keep_both_blocks_once_in_date_order() {
        let base = log(&[("2026-04-30", "old")]);
        let ours = log(&[("2026-04-30", "old"), ("2026-05-01", "laptop")]);
        let theirs = log(&[("2026-04-30", "old"), ("2026-05-01", "phone")]);
        let both = log(&[
            ("2026-04-30", "old"),
            ("2026-05-01", "laptop"),
            ("2026-05-01", "phone"),
        ]);
        assert_eq!(merged(Some(&base), &ours, &theirs), both);
        assert_eq!(merged(Some(&theirs), &both, &theirs), both);
        let earlier = log(&[("2026-04-30", "old"), ("2026-04-30", "phone, later")]);
        assert_eq!(
            merged(Some(&base), &ours, &earlier),
            log(&[
                ("2026-04-30", "old"),
                ("2026-04-30", "phone, later"),
                ("2026-05-01", "laptop"),
            ])
        );
    }

    #[test]
    fn unchanged_sides_give_back_the_other() {
        let base = log(&[("2026-04-30", "a")]);
        let ours = log(&[("2026-04-30", "a"), ("2026-05-02", "b")]);
        let theirs = log(&[("2026-04-30", "a"), ("2026-05-01", "c")]);
        assert_unchanged_sides_give_back_the_other(Rule::Log, &base, &ours, &theirs);
        assert_eq!(merged(None, HEAD, &theirs), theirs);
    }

    #[test]
    fn an_edited_block_replaces_its_old_text() {
        let base = log(&[("2026-04-30", "a"), ("2026-05-01", "typo")]);
        let ours = log(&[("2026-04-30", "a"), ("2026-05-01", "fixed")]);
        let theirs = log(&[
            ("2026-04-30", "a"),
            ("2026-05-01", "typo"),
            ("2026-05-02", "b"),
        ]);
        let out = merged(Some(&base), &ours, &theirs);
        assert_eq!(
            out,
            log(&[
                ("2026-04-30", "a"),
                ("2026-05-01", "fixed"),
                ("2026-05-02", "b")
            ])
        );
    }

    #[test]
    fn ours_header_line_endings_and_code_blocks() {
        let ours = log(&[("2026-05-01", "a")]).replace('\n', "\r\n");
        let theirs = format!(
            "# Their header\n{}```\n## [2026-04-01] not a block\n```\n",
            block("2026-05-02", "b")
        );
        let out = merged(None, &ours, &theirs);
        assert!(out.starts_with(&ours), "{out}");
        assert!(!out.replace("\r\n", "").contains('\n'), "{out:?}");
        assert_eq!(out.matches("not a block").count(), 1, "{out}");
        assert!(!out.contains("Their header"), "{out}");
    }
}
