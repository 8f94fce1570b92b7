//! One index page as text: an old page taken apart (its frontmatter, hand-written lines and
//! entry lines) and a new one put together. Pure; no I/O and no manifest.

use crate::markdown::edit::{self, Shape};
use crate::markdown::frontmatter::{self, Block};
use crate::schema::{MATURITIES, is_date};

/// The separator between an entry's link and its description (U+2014).
pub const DASH: &str = "—";

/// A bulleted line that starts with a wikilink, followed by nothing or by a description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryLine {
    /// The link target as written.
    pub target: String,
    /// The link's label, if it has one.
    pub label: Option<String>,
    /// The text after the link and its separator; may be empty.
    pub description: String,
}

/// A line of an old page's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyLine {
    /// Written by hand (or not recognised): kept.
    Text(String),
    /// Looks like an entry: kept, harvested or dropped once its link is resolved.
    Entry(String, EntryLine),
    /// A section heading the index generates.
    Section,
}

/// An old page taken apart.
#[derive(Debug, Clone, Default)]
pub struct OldPage {
    /// The frontmatter block, delimiters included, when it is readable.
    pub frontmatter: Option<String>,
    /// The body, line by line.
    pub lines: Vec<BodyLine>,
}

/// The section headings the index writes, and `## Synthesis` of older indexes.
const SECTIONS: [&str; 7] = [
    "Entities",
    "Concepts",
    "Summaries",
    "Syntheses",
    "Collections",
    "Other",
    "Synthesis",
];

/// Take an old page apart. Nothing inside a fenced code block is an entry or a heading.
pub fn parse(text: &str) -> OldPage {
    let split = frontmatter::split(text);
    let frontmatter = match split.block {
        Block::Valid(_) => Some(text[..text.len() - split.body.len()].to_string()),
        // A block that cannot be read is replaced; the body after it is kept.
        Block::Invalid { .. } | Block::None => None,
    };
    let mut lines = Vec::new();
    let mut fence: Option<char> = None;
    for line in split.body.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(c) = fence_char(line) {
            match fence {
                None => fence = Some(c),
                Some(open) if open == c => fence = None,
                Some(_) => {}
            }
            lines.push(BodyLine::Text(line.to_string()));
            continue;
        }
        if fence.is_some() {
            lines.push(BodyLine::Text(line.to_string()));
        } else if SECTIONS.iter().any(|s| {
            line.trim()
                .strip_prefix("## ")
                .is_some_and(|h| h.trim() == *s)
        }) {
            lines.push(BodyLine::Section);
        } else if let Some(e) = entry_line(line) {
            lines.push(BodyLine::Entry(line.to_string(), e));
        } else {
            lines.push(BodyLine::Text(line.to_string()));
        }
    }
    OldPage { frontmatter, lines }
}

fn fence_char(line: &str) -> Option<char> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let t = &line[indent..];
    (indent <= 3)
        .then(|| {
            ['`', '~']
                .into_iter()
                .find(|c| t.starts_with(&c.to_string().repeat(3)))
        })
        .flatten()
}

/// `- [[Target]]`, `- [[Target|Label]] — description` (also `*`/`+` bullets and `–`, `-` or
/// `:` separators). A trailing `(N sources)` of older indexes is dropped. A link with a heading
/// or block anchor, or one followed by more text without a separator, is not an entry.
pub fn entry_line(line: &str) -> Option<EntryLine> {
    let t = line.trim_start();
    let rest = ["- ", "* ", "+ "]
        .iter()
        .find_map(|b| t.strip_prefix(b))?
        .trim_start();
    let inner_and_after = rest.strip_prefix("[[")?;
    let end = inner_and_after.find("]]")?;
    let inner = &inner_and_after[..end];
    if inner.contains(['#', '\n']) || inner.contains("[[") {
        return None;
    }
    let (target, label) = match inner.find('|') {
        Some(p) => {
            let before = &inner[..p];
            let before = before.strip_suffix('\\').unwrap_or(before);
            (
                before,
                Some(inner[p + 1..].trim()).filter(|l| !l.is_empty()),
            )
        }
        None => (inner, None),
    };
    let target = target.trim();
    if target.is_empty() {
        return None;
    }
    let after = strip_source_count(inner_and_after[end + 2..].trim());
    let description = if after.is_empty() {
        ""
    } else {
        let sep = [DASH, "–", "-", ":"]
            .iter()
            .find(|s| after.starts_with(**s))?;
        strip_source_count(after[sep.len()..].trim())
    };
    Some(EntryLine {
        target: target.to_string(),
        label: label.map(str::to_string),
        description: description.to_string(),
    })
}

/// `text` without a trailing `(1 source)` / `(N sources)`.
fn strip_source_count(text: &str) -> &str {
    let Some(open) = text.ends_with(')').then(|| text.rfind('(')).flatten() else {
        return text;
    };
    let inner = &text[open + 1..text.len() - 1];
    let count = inner
        .strip_suffix(" sources")
        .or_else(|| inner.strip_suffix(" source"));
    match count {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            text[..open].trim_end()
        }
        _ => text,
    }
}

/// The hand-written lines in order, tidied: runs of blank lines outside code blocks become one,
/// none at either end; a `# title` heading first when there is no level-1 heading.
pub fn preamble(lines: Vec<String>, title: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut fence: Option<char> = None;
    let mut has_h1 = false;
    for line in lines {
        if let Some(c) = fence_char(&line) {
            match fence {
                None => fence = Some(c),
                Some(open) if open == c => fence = None,
                Some(_) => {}
            }
        } else if fence.is_none() {
            if line.trim().is_empty() && out.last().is_none_or(|l| l.trim().is_empty()) {
                continue;
            }
            has_h1 |= line.starts_with("# ");
        }
        out.push(line);
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    if !has_h1 {
        let mut head = vec![format!("# {title}")];
        if !out.is_empty() {
            head.push(String::new());
        }
        head.append(&mut out);
        out = head;
    }
    out
}

/// A page's body: the preamble, then each section (a heading, if it has one, and its lines).
pub fn body(preamble: &[String], sections: &[(Option<&str>, Vec<String>)]) -> String {
    let mut out = String::from("\n");
    for l in preamble {
        out.push_str(l);
        out.push('\n');
    }
    for (heading, lines) in sections {
        out.push('\n');
        if let Some(h) = heading {
            out.push_str(&format!("## {h}\n\n"));
        }
        for l in lines {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

/// A new system page's frontmatter.
pub fn fresh_frontmatter(title: &str, today: &str) -> String {
    format!(
        "---\ntitle: {title}\ntype: collection\nmaturity: working\nsources: []\ncreated: {today}\nupdated: {today}\n---\n"
    )
}

/// The page `frontmatter + body`, with the keys the schema requires of a system page put right
/// and every other byte of the block kept. `updated` is left alone unless it is not a date
/// (or is before `created`): the caller bumps it when the content changed.
pub fn compose(frontmatter: Option<&str>, body: &str, title: &str, today: &str) -> String {
    let block = frontmatter.map_or_else(|| fresh_frontmatter(title, today), str::to_string);
    let mut text = format!("{block}{body}");
    let fm = match frontmatter::split(&text).block {
        Block::Valid(fm) => fm,
        _ => return format!("{}{body}", fresh_frontmatter(title, today)),
    };
    let mut set = |key: &str, value: &str| {
        if let Some(t) = edit::set_scalar(&text, key, value) {
            text = t;
        }
    };
    let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
    if blank(&fm.title) {
        set("title", title);
    }
    if fm.kind.as_deref().map(str::trim) != Some("collection") {
        set("type", "collection");
    }
    if !fm
        .maturity
        .as_deref()
        .is_some_and(|m| MATURITIES.contains(&m.trim()))
    {
        set("maturity", "working");
    }
    let created = match fm.created.as_deref().map(str::trim) {
        Some(c) if is_date(c) => c.to_string(),
        _ => {
            set("created", today);
            today.to_string()
        }
    };
    match fm.updated.as_deref().map(str::trim) {
        Some(u) if is_date(u) && u >= created.as_str() => {}
        _ => set("updated", today.max(created.as_str())),
    }
    let sources_ok = edit::shape(&text, "sources") == Some(Shape::List)
        && !fm.problems.iter().any(|p| p.key == "sources");
    if !sources_ok {
        let none: [&str; 0] = [];
        if let Some(t) = edit::set_list(&text, "sources", &none) {
            text = t;
        }
    }
    text
}

/// `text` with `updated:` set to `today`.
pub fn bump_updated(text: &str, today: &str) -> String {
    edit::set_scalar(text, "updated", today).unwrap_or_else(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(target: &str, label: Option<&str>, description: &str) -> Option<EntryLine> {
        Some(EntryLine {
            target: target.into(),
            label: label.map(str::to_string),
            description: description.into(),
        })
    }

    #[test]
    fn entry_lines() {
        assert_eq!(
            entry_line("- [[Cascade]] — Claude Code for BigQuery"),
            e("Cascade", None, "Claude Code for BigQuery")
        );
        assert_eq!(entry_line("- [[Cascade]]"), e("Cascade", None, ""));
        assert_eq!(
            entry_line("  * [[entities/Cascade|Cascade]] - a tool (2 sources)"),
            e("entities/Cascade", Some("Cascade"), "a tool")
        );
        assert_eq!(
            entry_line("- [[entities/Pebble]] (1 source)"),
            e("entities/Pebble", None, "")
        );
        assert_eq!(entry_line("- [[A]]: colon"), e("A", None, "colon"));
        assert_eq!(
            entry_line("- [[A]] — keeps (a remark)"),
            e("A", None, "keeps (a remark)")
        );
        for not in [
            "[[A]] — no bullet",
            "- [[A#Part]] — anchor",
            "- [[A]], [[B]]",
            "- see [[A]]",
            "- [[]]",
            "-[[A]]",
            "- [ ] [[A]]",
        ] {
            assert_eq!(entry_line(not), None, "{not}");
        }
    }

    #[test]
    fn parse_sorts_lines_and_respects_fences() {
        let page = parse(
            "---\ntitle: Index\n---\n\n# Index\n\nIntro.\n\n## Entities\n\n- [[A]] — x\n```\n- [[B]]\n## Concepts\n```\n## Reading\n",
        );
        assert!(
            page.frontmatter
                .as_deref()
                .is_some_and(|f| f.starts_with("---\ntitle: Index\n---\n"))
        );
        let kinds: Vec<&str> = page
            .lines
            .iter()
            .map(|l| match l {
                BodyLine::Text(_) => "text",
                BodyLine::Entry(..) => "entry",
                BodyLine::Section => "section",
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "text", "text", "text", "text", "text", "section", "text", "entry", "text", "text",
                "text", "text", "text"
            ]
        );
    }

    #[test]
    fn preamble_tidies_blank_lines_and_adds_a_title() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            preamble(lines(&["", "Intro", "", "", "More", ""]), "Index"),
            lines(&["# Index", "", "Intro", "", "More"])
        );
        assert_eq!(
            preamble(lines(&["# Wiki", "", "```", "", "", "```"]), "Index"),
            lines(&["# Wiki", "", "```", "", "", "```"])
        );
        assert_eq!(preamble(Vec::new(), "Index"), lines(&["# Index"]));
    }

    #[test]
    fn compose_keeps_the_block_and_fixes_what_the_schema_requires() {
        let body = "\n# Index\n";
        let kept = "---\ntitle: Index  # ours\ntype: collection\nmaturity: stable\nsources: []\ncreated: 2026-04-01\nupdated: 2026-04-02\n---\n";
        assert_eq!(
            compose(Some(kept), body, "Index", "2026-05-01"),
            format!("{kept}{body}")
        );
        let fixed = compose(
            Some("---\ntype: entity\nsources: raw/x.md\n---\n"),
            body,
            "Index",
            "2026-05-01",
        );
        let fm = match frontmatter::split(&fixed).block {
            Block::Valid(fm) => fm,
            other => panic!("{other:?}"),
        };
        assert!(
            crate::schema::validate(crate::vault::INDEX, &fm).is_empty(),
            "{fixed}"
        );
        assert!(fixed.ends_with(body));
        assert_eq!(
            compose(None, body, "Index", "2026-05-01"),
            format!("{}{body}", fresh_frontmatter("Index", "2026-05-01"))
        );
        assert!(bump_updated(kept, "2026-05-01").contains("updated: 2026-05-01\n"));
    }
}
