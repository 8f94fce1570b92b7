//! Name keys: the one normal form in which titles, aliases, tags, file names and link targets
//! are compared (trimmed, lower-cased, Unicode NFC), so that `[[Café]]` typed on macOS (NFD)
//! finds `Café.md` written on Linux (NFC). Headings have a looser key of their own
//! ([`heading_key`]), the one Obsidian compares a link's `#Heading` with.

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

/// The comparison key of a name: trimmed, lower-cased, NFC.
pub fn key(name: &str) -> String {
    let name = name.trim();
    // Most names are ASCII, which is its own NFC: lower-casing is all there is to do. A scan
    // computes tens of keys a page, and the full path cost a twentieth of a cold scan.
    if name.is_ascii() {
        return name.to_ascii_lowercase();
    }
    let lower = name.to_lowercase();
    match is_nfc_quick(lower.chars()) {
        IsNormalized::Yes => lower,
        _ => lower.nfc().collect(),
    }
}

/// The link key of a link target or file path: like [`key`], with a trailing `.md` removed,
/// since `[[Note]]` and `[[Note.md]]` name the same page.
pub fn link_key(target: &str) -> String {
    let k = key(target);
    match k.strip_suffix(".md") {
        Some(stem) if !stem.is_empty() => stem.to_string(),
        _ => k,
    }
}

/// The loose key of a name: like [`key`], with every run of spaces, dashes and underscores
/// made one space. Two names with the same loose key are twins a person would confuse
/// (`Big Query`, `big-query`, `Big_Query`), which `query --resolve` reports before a page is
/// created.
pub fn loose_key(name: &str) -> String {
    let k = key(name);
    let mut out = String::with_capacity(k.len());
    for part in k.split(|c: char| c.is_whitespace() || c == '-' || c == '_') {
        if part.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

/// The characters Obsidian strips from both a heading and a link's `#Heading` before it
/// compares them: a link cannot carry most of them (`#`, `|`, `^`, `[`, `]`), and people drop
/// the rest (`?`, `:`, backticks) when they type one.
const HEADING_STRIPPED: &str = "!\"#$%&()*+,.:;<=>?@^`{|}~/[]\\";

/// The comparison key of a heading, and of a link's `#Heading`: like [`key`], with every
/// character of [`HEADING_STRIPPED`] made a space and every run of spaces one space, as
/// Obsidian compares them. `## Part 1: Basics` and `[[Page#Part 1 Basics]]` share a key, as do
/// ``### `wikilink` `` and ``[[Page#`wikilink`]]``.
pub fn heading_key(text: &str) -> String {
    let k = key(text);
    let mut out = String::with_capacity(k.len());
    let spaced = k
        .chars()
        .map(|c| if HEADING_STRIPPED.contains(c) { ' ' } else { c });
    for c in spaced {
        if c.is_whitespace() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// The heading key of a link's fragment: `[[Page#Part#Section]]` names the heading `Section`
/// (under `Part`), so only the last `#` part is compared.
pub fn link_heading_key(fragment: &str) -> String {
    heading_key(fragment.rsplit('#').next().unwrap_or(fragment))
}

/// The last `/`-separated component of a link key.
pub fn last_component(link_key: &str) -> &str {
    link_key.rsplit('/').next().unwrap_or(link_key)
}

/// The file name of a vault-relative path without its `.md` (in any case): what a link
/// names a page by (`wiki/a/Old Name.md` is `Old Name`; `wiki/a/pic.png` is `pic.png`).
pub fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    strip_md(name).unwrap_or(name)
}

/// A file name or path without its `.md`, in any case (`Note.MD` is Markdown too); `None`
/// when it does not end in `.md`. Safe on any text: `x.m💡` ends in no `.md`, and no byte of a
/// character is cut.
pub fn strip_md(name: &str) -> Option<&str> {
    let n = name.len().checked_sub(3)?;
    // `get` is `None` when `n` falls inside a character; `.md` is ASCII, so when the last
    // three bytes are it, `n` is a character boundary.
    name.get(n..)
        .filter(|ext| ext.eq_ignore_ascii_case(".md"))
        .map(|_| &name[..n])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nfd_and_nfc_agree() {
        assert_eq!(key("Cafe\u{301}"), key("Café"));
        assert_eq!(key(" CAFE\u{301} "), "café");
        assert_eq!(key("ÉCOLE"), "école");
    }

    #[test]
    fn case_and_space_fold() {
        assert_eq!(key("  Big Query "), "big query");
    }

    #[test]
    fn md_extension_is_dropped_only_for_markdown() {
        assert_eq!(link_key("Note.MD"), "note");
        assert_eq!(link_key("diagram.png"), "diagram.png");
        assert_eq!(link_key(".md"), ".md");
    }

    #[test]
    fn md_suffix_is_stripped_without_cutting_a_character() {
        assert_eq!(strip_md("wiki/Note.md"), Some("wiki/Note"));
        assert_eq!(strip_md("Note.MD"), Some("Note"));
        assert_eq!(strip_md(".md"), Some(""));
        assert_eq!(strip_md("md"), None);
        for name in [
            "x.m💡",
            "Ideas 💡",
            "💡",
            "wiki/photo 💡",
            "e\u{301}",
            "漢字",
            "שלום",
        ] {
            assert_eq!(strip_md(name), None, "{name}");
        }
        assert_eq!(strip_md("💡.md"), Some("💡"));
    }

    #[test]
    fn loose_twins() {
        assert_eq!(loose_key("Big-Query"), loose_key("big_query "));
        assert_eq!(loose_key("Big  Query"), "big query");
        assert_ne!(loose_key("BigQuery"), loose_key("Big Query"));
    }

    #[test]
    fn headings_compare_as_in_obsidian() {
        assert_eq!(
            heading_key("What is the Obsidian Hub?"),
            "what is the obsidian hub"
        );
        assert_eq!(heading_key("Part 1: Basics"), heading_key("Part 1 Basics"));
        assert_eq!(heading_key("`wikilink`"), "wikilink");
        assert_eq!(heading_key("`hasTag()`"), heading_key("hasTag"));
        assert_eq!(heading_key("  A  [b] | c#d^e  "), "a b c d e");
        assert_eq!(heading_key("Input/Output"), "input output");
        assert_eq!(heading_key("Cafe\u{301}!"), heading_key("café"));
        // Dashes, underscores and apostrophes are kept, as Obsidian keeps them.
        assert_ne!(heading_key("Step-by-step"), heading_key("Step by step"));
        assert_eq!(heading_key("What's new"), "what's new");
        assert_eq!(heading_key("???"), "");
        assert_eq!(link_heading_key("Part#Part 1: Basics"), "part 1 basics");
        assert_eq!(link_heading_key("Design"), "design");
    }

    #[test]
    fn last_component_of_path_form() {
        assert_eq!(last_component("entities/cascade"), "cascade");
        assert_eq!(last_component("cascade"), "cascade");
    }
}
