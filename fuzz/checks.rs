//! The properties the fuzz targets check, one function per target, each taking the raw input
//! bytes and panicking when a property fails. Shared by the cargo-fuzz targets
//! (`fuzz/fuzz_targets/*.rs`) and by `tests/fuzz_corpus.rs`, which replays the committed seed
//! corpus through the same checks on the stable toolchain, so neither can rot.
//!
//! Every check asserts something the code could get wrong, not only "no panic".

use chrono::NaiveDate;
use sparks::collections::{bookmarks, books, ideas, media, quotes, reading};
use sparks::inbox::{self, Hints, Inbox};
use sparks::markdown::{Block, Document, edit, frontmatter, outline};

/// A target's check: panics when a property fails.
pub type Check = fn(&[u8]);

/// Every target: its name (the folder under `fuzz/corpus/`) and its check.
pub const TARGETS: [(&str, Check); 5] = [
    ("inbox", check_inbox),
    ("frontmatter", check_frontmatter),
    ("edit", check_edit),
    ("links", check_links),
    ("collections", check_collections),
];

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 5, 1).unwrap_or_default()
}

/// The inbox splitter: entries are trimmed, hashed and found again after removing others;
/// removing nothing keeps every byte; hints only report what the entry says.
pub fn check_inbox(data: &[u8]) {
    let Ok(parsed) = Inbox::parse(data, today()) else {
        return;
    };
    assert_eq!(
        parsed.without(data, &[]),
        data,
        "removing nothing changed the file"
    );
    let pairs = |i: &Inbox| -> Vec<(NaiveDate, String)> {
        i.entries
            .iter()
            .map(|e| (e.capture_date, e.content.clone()))
            .collect()
    };
    for e in &parsed.entries {
        assert!(!e.content.is_empty(), "an empty entry at line {}", e.line);
        assert_eq!(e.content, e.content.trim(), "an untrimmed entry");
        assert!(!e.content.contains("\r\n"), "CRLF left in an entry");
        assert_eq!(e.hash, inbox::hash(&e.content));
        let hints = Hints::of(&e.content);
        for t in hints.tasks.iter().chain(&hints.bookmarks) {
            assert!(
                e.content.contains(t.as_str()),
                "hint {t:?} not in the entry"
            );
        }
    }
    // Remove every other entry, then all of them: the rest reparses to exactly what was kept.
    let all: Vec<usize> = (0..parsed.entries.len()).collect();
    for remove in [
        all.iter()
            .copied()
            .filter(|i| i % 2 == 0)
            .collect::<Vec<_>>(),
        all.clone(),
    ] {
        let out = parsed.without(data, &remove);
        let again = Inbox::parse(&out, today())
            .unwrap_or_else(|e| panic!("the inbox without {remove:?} no longer parses: {e}"));
        let kept: Vec<_> = pairs(&parsed)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !remove.contains(i))
            .map(|(_, p)| p)
            .collect();
        assert_eq!(
            pairs(&again),
            kept,
            "removing {remove:?} changed other entries"
        );
    }
}

/// Frontmatter splitting: the body is a suffix of the file and starts on the line reported;
/// every known key's line lies inside the block.
pub fn check_frontmatter(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let split = frontmatter::split(text);
    let unbommed = text.strip_prefix('\u{feff}').unwrap_or(text);
    assert!(unbommed.ends_with(split.body), "the body is not a suffix");
    let head = &unbommed[..unbommed.len() - split.body.len()];
    // A closing line without a newline ends the file: the (empty) body is on the next line.
    let unfinished = usize::from(!head.is_empty() && !head.ends_with('\n'));
    assert_eq!(
        split.body_line,
        1 + head.matches('\n').count() + unfinished,
        "the body does not start on the line reported"
    );
    match &split.block {
        Block::Valid(fm) => {
            for (key, line) in &fm.lines {
                assert!(
                    (2..split.body_line).contains(line),
                    "{key} on line {line}, outside the block (body at {})",
                    split.body_line
                );
            }
            for p in &fm.problems {
                assert!(
                    (2..split.body_line).contains(&p.line),
                    "{p:?} outside the block"
                );
            }
        }
        Block::Invalid { line, .. } => assert!(*line >= 1),
        Block::None => assert_eq!(split.body, unbommed),
    }
    let doc = Document::parse(text);
    assert_eq!(doc.body_line, split.body_line);
    for l in &doc.outline.links {
        assert!(l.line >= doc.body_line, "a link before the body: {l:?}");
    }
}

/// The byte-preserving frontmatter editor. The input is the file, then optionally a NUL byte
/// and a value. An edit applied twice equals once, leaves the body alone, and reads back as
/// the value set; reordering twice equals once and keeps the keys.
pub fn check_edit(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let (text, value) = input.split_once('\0').unwrap_or((input, "a value"));
    // The editor may refuse a block it cannot edit safely (an indented or flow mapping, a
    // quoted or block scalar spanning lines), but never a valid block of one-line plain
    // `key: value` lines.
    // Characters YAML cannot hold unescaped (controls other than tab and newline, U+FFFE,
    // U+FFFF) are not asked for (dates, titles, tags) and refusing them is safe.
    let printable = |c: char| {
        matches!(c, '\t' | '\n' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{fffd}')
            || c >= '\u{10000}'
    };
    let plain = matches!(frontmatter::split(text).block, Block::Valid(_))
        && value.chars().all(printable)
        && yaml_lines(text).all(|l| {
            let (key, value) = l.split_once(':').unwrap_or((l, ""));
            l.starts_with(|c: char| c.is_ascii_alphanumeric())
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
                && (value.is_empty() || value.starts_with(' '))
                && !value
                    .trim_start()
                    .starts_with(['"', '\'', '|', '>', '{', '[', '&', '*', '!'])
        });
    let body = frontmatter::split(text).body;
    let fm_of = |out: &str| match frontmatter::split(out).block {
        Block::Valid(fm) => fm,
        other => panic!("the edit broke the block: {other:?}\n{out}"),
    };
    for key in ["title", "updated", "status"] {
        let Some(once) = edit::set_scalar(text, key, value) else {
            assert!(!plain, "set_scalar refused a block of plain one-line keys");
            continue;
        };
        assert_eq!(
            edit::set_scalar(&once, key, value).as_deref(),
            Some(once.as_str())
        );
        assert_eq!(
            frontmatter::split(&once).body,
            body,
            "set_scalar({key}) changed the body"
        );
        let fm = fm_of(&once);
        match key {
            "title" => assert_eq!(fm.title.as_deref(), Some(value), "title reads back"),
            "updated" => assert_eq!(fm.updated.as_deref(), Some(value), "updated reads back"),
            _ => {}
        }
    }
    let items: Vec<&str> = value.split(',').collect();
    if let Some(once) = edit::set_list(text, "tags", &items) {
        assert_eq!(
            edit::set_list(&once, "tags", &items).as_deref(),
            Some(once.as_str())
        );
        assert_eq!(
            frontmatter::split(&once).body,
            body,
            "set_list changed the body"
        );
        assert_eq!(fm_of(&once).tags, items, "tags read back");
    }
    if let Some(sorted) = edit::reorder(text, &["title", "type", "tags"]) {
        assert_eq!(
            edit::reorder(&sorted, &["title", "type", "tags"]),
            Some(sorted.clone())
        );
        let mut before = edit::keys(text).unwrap_or_default();
        let mut after = edit::keys(&sorted).unwrap_or_default();
        before.sort();
        after.sort();
        assert_eq!(before, after, "reorder lost or added keys");
        assert_eq!(
            frontmatter::split(&sorted).body,
            body,
            "reorder changed the body"
        );
    }
}

/// The lines of the frontmatter block that are neither blank nor a column-0 comment.
fn yaml_lines(text: &str) -> impl Iterator<Item = &str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .skip(1)
        .map(|l| l.trim_end_matches('\r'))
        .take_while(|l| !matches!(l.trim_end(), "---" | "..."))
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
}

/// Link extraction: every link is a `[[…]]` span on the line reported, on one line; and a link
/// planted in inline code, a fenced block or a comment after the text is never reported.
pub fn check_links(data: &[u8]) {
    let Ok(prose) = std::str::from_utf8(data) else {
        return;
    };
    let o = outline::outline(prose, 7);
    for l in &o.links {
        let span = &prose[l.span.clone()];
        assert!(
            span.starts_with("[[") && span.ends_with("]]"),
            "{l:?} spans {span:?}"
        );
        assert!(!span.contains('\n'), "a link across lines: {l:?}");
        assert_eq!(
            l.line,
            7 + prose[..l.span.start].matches('\n').count(),
            "{l:?}"
        );
        assert_eq!(l.embed, prose[..l.span.start].ends_with('!'), "{l:?}");
    }
    for w in o.links.windows(2) {
        assert!(w[0].span.end <= w[1].span.start, "overlapping links {w:?}");
    }
    // An open fence in the text would turn the planted fence inside out, and raw HTML blocks
    // such as an unclosed `<pre>` would swallow the planted lines as HTML, which is not code;
    // leave those inputs to the checks above.
    if prose.contains(['<', '`', '~']) {
        return;
    }
    let body = format!(
        "{prose}\n\n`[[PlantedInline]]`\n\n```\n[[PlantedFence]]\n```\n\n<!-- [[PlantedComment]] -->\n"
    );
    for l in outline::outline(&body, 1).links {
        assert!(
            l.span.start < prose.len(),
            "a link in code or a comment: {l:?} in {body:?}"
        );
    }
}

/// Every collection extractor over one file's text: quotes, bookmarks, books (attributions
/// and `book:` lines), the reading list, ideas (notes and `idea:` lines) and media. What an
/// extractor reports comes from the text, trimmed, on one line where it must be.
pub fn check_collections(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    let path = "raw/fuzz/input.md";

    for q in quotes::parse(text, path) {
        assert!(
            !q.text.is_empty() && q.text == q.text.trim(),
            "quote {:?}",
            q.text
        );
        for line in q.text.lines() {
            assert!(text.contains(line), "quote line {line:?} not in the file");
        }
        assert_eq!(q.source, path);
        if let Some(a) = &q.attribution {
            assert!(
                !a.is_empty() && a == a.trim() && !a.contains('\n'),
                "attribution {a:?}"
            );
            assert!(
                text.contains(a.as_str()),
                "attribution {a:?} not in the file"
            );
            if let Some(title) = books::title_of(a) {
                assert!(
                    !title.is_empty() && a.contains(title),
                    "book {title:?} of {a:?}"
                );
            }
        }
    }
    for b in bookmarks::parse(text) {
        assert!(
            b.url.starts_with("http://") || b.url.starts_with("https://"),
            "{b:?}"
        );
        assert!(
            text.contains(b.url.as_str()),
            "url {:?} not in the file",
            b.url
        );
        assert!(!b.url.chars().any(char::is_whitespace), "{b:?}");
        assert!(!b.description.contains('\n'), "{b:?}");
    }
    for labelled in [
        books::noted(text).collect::<Vec<_>>(),
        reading::items(text).collect(),
        ideas::captured(text).collect(),
    ] {
        for item in labelled {
            assert!(!item.is_empty() && item == item.trim(), "item {item:?}");
            assert!(!item.contains('\n'), "item {item:?} spans lines");
            assert!(text.contains(item), "item {item:?} not in the file");
        }
    }
    let idea = ideas::parse(text, path);
    assert!(!idea.status.is_empty(), "an empty status");
    assert_eq!(
        idea.status,
        idea.status.to_lowercase(),
        "status not lower-cased"
    );
    assert_eq!(idea.source, path);
    let note = media::parse(text, path);
    if let Some(url) = &note.url {
        assert!(url.starts_with("http"), "media url {url:?}");
        assert!(
            text.contains(url.as_str()),
            "media url {url:?} not in the file"
        );
    }
}
