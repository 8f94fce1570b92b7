//! The index rule: `wiki/index.md` and its shards keep both sides' descriptions. `sparks
//! index` regenerates the pages from the merged vault afterwards and keeps each entry's
//! description, so the merge only has to carry descriptions over.
//!
//! An entry is a line `- [[Link]] — description` as `index` reads it (`index::page`), known by
//! its link's key. The result is this device's page, except that an entry whose description
//! the other side changed (against base) and this side did not gets the other's, and an entry
//! only the other side added is added after the entry it follows there (before this side's
//! first entry when it follows none, at the end when this side has none). An entry this side
//! removed stays removed; when both sides changed a description, this side's stays. A side
//! without the entry in base counts as having had no description.

use super::newline;
use crate::index::page::{self, BodyLine, DASH};
use crate::key::link_key;
use crate::markdown::frontmatter;
use std::collections::HashMap;

/// Merge three versions of an index page.
pub(super) fn merge(base: Option<&str>, ours: &str, theirs: &str) -> String {
    let nl = newline(ours);
    let o = Page::read(ours);
    let t = Page::read(theirs);
    let b = base.map(Page::read);
    let old = |k: &str| b.as_ref().and_then(|b| b.description(k));
    let mut lines: Vec<String> = Vec::with_capacity(o.lines.len());
    for (line, entry) in o.lines.iter().zip(&o.entries) {
        let changed = entry.as_ref().and_then(|(k, mine)| {
            let before = old(k).unwrap_or_default();
            let other = t.description(k)?;
            (mine == before && other != before).then(|| with_description(line, other))
        });
        lines.push(changed.unwrap_or_else(|| line.to_string()));
    }
    // (before which of ours' lines, the line)
    let first = o.entries.iter().position(Option::is_some);
    let mut added: Vec<(usize, String)> = Vec::new();
    let mut at = first.unwrap_or(o.lines.len());
    for (line, entry) in t.lines.iter().zip(&t.entries) {
        let Some((k, _)) = entry else { continue };
        if let Some(i) = o.index(k) {
            at = i + 1;
        } else if old(k).is_none() {
            added.push((at, format!("{}{nl}", line.trim_end_matches(['\n', '\r']))));
        }
    }
    let mut out = o.head.to_string();
    let mut added = added.into_iter().peekable();
    for i in 0..=lines.len() {
        while let Some((_, line)) = added.next_if(|(at, _)| *at == i) {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(nl);
            }
            out.push_str(&line);
        }
        if let Some(line) = lines.get(i) {
            out.push_str(line);
        }
    }
    out
}

/// `line` (an entry line) with the description `description` (none when empty), its line
/// ending kept.
fn with_description(line: &str, description: &str) -> String {
    let bare = line.trim_end_matches(['\n', '\r']);
    let end = &line[bare.len()..];
    let link = bare.find("]]").map_or(bare, |i| &bare[..i + 2]);
    if description.is_empty() {
        format!("{link}{end}")
    } else {
        format!("{link} {DASH} {description}{end}")
    }
}

/// A version of an index page: its frontmatter, its body lines (with their endings), and the
/// entry each line holds.
struct Page<'a> {
    head: &'a str,
    lines: Vec<&'a str>,
    entries: Vec<Option<(String, String)>>,
    by_key: HashMap<String, usize>,
}

impl<'a> Page<'a> {
    fn read(text: &'a str) -> Page<'a> {
        let body = frontmatter::split(text).body;
        let lines: Vec<&str> = body.split_inclusive('\n').collect();
        let entries: Vec<Option<(String, String)>> = page::parse(text)
            .lines
            .into_iter()
            .map(|l| match l {
                BodyLine::Entry(_, e) => Some((link_key(&e.target), e.description)),
                BodyLine::Text(_) | BodyLine::Section => None,
            })
            .collect();
        let mut by_key = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            if let Some((k, _)) = e {
                by_key.entry(k.clone()).or_insert(i);
            }
        }
        Page {
            head: &text[..text.len() - body.len()],
            lines,
            entries,
            by_key,
        }
    }

    fn index(&self, key: &str) -> Option<usize> {
        self.by_key.get(key).copied()
    }

    fn description(&self, key: &str) -> Option<&str> {
        let i = self.index(key)?;
        self.entries[i].as_ref().map(|(_, d)| d.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Rule, assert_unchanged_sides_give_back_the_other};
    use super::*;

    /// An index page as `index` writes it, with `(link, description)` entries by section.
    fn index(sections: &[(&str, &[(&str, &str)])]) -> String {
        let sections: Vec<(Option<&str>, Vec<String>)> = sections
            .iter()
            .map(|(h, entries)| {
                let lines = entries
                    .iter()
                    .map(|(l, d)| match d {
                        &"" => format!("- [[{l}]]"),
                        d => format!("- [[{l}]] {DASH} {d}"),
                    })
                    .collect();
                (Some(*h), lines)
            })
            .collect();
        let preamble = page::preamble(vec!["Intro.".into()], "Index");
        let body = page::body(&preamble, &sections);
        page::compose(None, &body, "Index", "2026-05-01")
    }

    fn merged(base: Option<&str>, ours: &str, theirs: &str) -> String {
        super::super::merged(Rule::Index, base, ours, theirs)
    }

    #[test]
    fn the_other_sides_new_descriptions_and_entries_come_in() {
        let base = index(&[("Entities", &[("Ann", "a person"), ("Bo", "")])]);
        let ours = index(&[(
            "Entities",
            &[("Ann", "a person"), ("Bo", "ours"), ("Cy", "")],
        )]);
        let theirs = index(&[
            (
                "Entities",
                &[("Ann", "a painter"), ("Bo", "theirs"), ("Di", "new")],
            ),
            ("Concepts", &[("Flow", "a state")]),
        ]);
        let out = merged(Some(&base), &ours, &theirs);
        // Theirs' new entries follow the entry they follow there; `index` files them later.
        let want = index(&[(
            "Entities",
            &[
                ("Ann", "a painter"),
                ("Bo", "ours"),
                ("Di", "new"),
                ("Flow", "a state"),
                ("Cy", ""),
            ],
        )]);
        assert_eq!(out, want);
    }

    #[test]
    fn removed_here_stays_removed_and_an_empty_description_is_filled() {
        let base = index(&[("Entities", &[("Ann", "x"), ("Bo", "")])]);
        let ours = index(&[("Entities", &[("Bo", "")])]);
        let theirs = index(&[("Entities", &[("Ann", "y"), ("Bo", "filled"), ("Cy", "c")])]);
        let out = merged(Some(&base), &ours, &theirs);
        assert_eq!(
            out,
            index(&[("Entities", &[("Bo", "filled"), ("Cy", "c")])])
        );
        let out = merged(None, &index(&[("Entities", &[("Ann", "")])]), &theirs);
        assert!(out.contains(&format!("[[Ann]] {DASH} y")), "{out}");
    }

    #[test]
    fn unchanged_sides_give_back_the_other() {
        let base = index(&[("Entities", &[("Ann", "x"), ("Bo", "")])]);
        let ours = index(&[("Entities", &[("Ann", "x2"), ("Bo", ""), ("Cy", "c")])]);
        let theirs = index(&[("Entities", &[("Ann", "x"), ("Bo", "b"), ("Di", "d")])]);
        assert_unchanged_sides_give_back_the_other(Rule::Index, &base, &ours, &theirs);
    }

    #[test]
    fn code_blocks_crlf_and_a_page_without_entries() {
        let ours = "# Index\r\n\r\n```\r\n- [[Ann]] — in code\r\n```\r\n";
        let theirs = "# Index\n\n- [[Ann]] — real\n";
        let out = merged(None, ours, theirs);
        assert_eq!(out, format!("{ours}- [[Ann]] — real\r\n"));
        assert_eq!(with_description("- [[A|a]] — x\r\n", ""), "- [[A|a]]\r\n");
    }
}
