//! Property tests of the pure parsers and editors: whatever the input, the inbox splitter
//! keeps every entry through removal, a frontmatter edit applied twice equals once, and link
//! extraction never panics and never reports a link inside code.

#![allow(clippy::unwrap_used)]

use chrono::NaiveDate;
use proptest::prelude::*;
use sparks::inbox::Inbox;
use sparks::markdown::{edit, frontmatter, outline};

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 5, 1).unwrap()
}

/// A capture: a few lines of words, maybe a date line first, maybe a fenced block holding a
/// `---` line (which is content, not a separator).
fn capture() -> impl Strategy<Value = String> {
    let line = "[a-zA-Z0-9 ,.:!?#*>\\[\\]()-]{0,30}";
    (
        proptest::option::of(Just("2026-04-10".to_string())),
        proptest::collection::vec(line, 1..4),
        any::<bool>(),
    )
        .prop_map(|(date, lines, fence)| {
            let mut out = String::new();
            if let Some(d) = date {
                out.push_str(&d);
                out.push('\n');
            }
            out.push_str(&lines.join("\n"));
            if fence {
                out.push_str("\n```\n---\ninside\n```");
            }
            out
        })
        .prop_filter("a capture has text", |c| {
            c.lines()
                .any(|l| !l.trim().is_empty() && l.trim() != "2026-04-10" && l.trim() != "---")
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn split_then_remove_keeps_every_other_entry(
        captures in proptest::collection::vec(capture(), 1..8),
        crlf in any::<bool>(),
        remove_mask in any::<u8>(),
    ) {
        let nl = if crlf { "\r\n" } else { "\n" };
        let mut text = format!("# Inbox{nl}---{nl}");
        for c in &captures {
            text.push_str(&c.replace('\n', nl));
            text.push_str(nl);
            text.push_str("---");
            text.push_str(nl);
        }
        let inbox = Inbox::parse(text.as_bytes(), today()).unwrap();
        prop_assert_eq!(inbox.entries.len(), captures.len());
        let remove: Vec<usize> = (0..captures.len()).filter(|i| remove_mask & (1 << (i % 8)) != 0).collect();
        let out = inbox.without(text.as_bytes(), &remove);
        let again = Inbox::parse(&out, today()).unwrap();
        let kept: Vec<&str> = inbox.entries.iter().enumerate()
            .filter(|(i, _)| !remove.contains(i)).map(|(_, e)| e.content.as_str()).collect();
        let got: Vec<&str> = again.entries.iter().map(|e| e.content.as_str()).collect();
        prop_assert_eq!(got, kept);
        let head = format!("# Inbox{nl}---{nl}");
        prop_assert!(out.starts_with(head.as_bytes()));
    }

    #[test]
    fn the_inbox_parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = Inbox::parse(&bytes, today());
    }

    #[test]
    fn a_frontmatter_edit_twice_equals_once(
        tags in proptest::collection::vec("[#a-zA-Z0-9 _-]{1,12}", 0..5),
        title in "[a-zA-Z0-9 :#'\"-]{1,20}",
        updated in "(2026-0[1-9]-1[0-9]|yes|no|12:30)",
        crlf in any::<bool>(),
    ) {
        let nl = if crlf { "\r\n" } else { "\n" };
        let text = format!("---{nl}# keep me{nl}title: x{nl}tags: [old]{nl}updated: 2026-01-01{nl}---{nl}body{nl}");
        let once = edit::set_list(&text, "tags", &tags).unwrap();
        prop_assert_eq!(edit::set_list(&once, "tags", &tags).unwrap(), once.clone());
        let t1 = edit::set_scalar(&once, "title", &title).unwrap();
        prop_assert_eq!(edit::set_scalar(&t1, "title", &title).unwrap(), t1.clone());
        let u1 = edit::set_scalar(&t1, "updated", &updated).unwrap();
        prop_assert_eq!(edit::set_scalar(&u1, "updated", &updated).unwrap(), u1.clone());
        // The edits read back as the values set, and the rest is untouched.
        match frontmatter::split(&u1).block {
            frontmatter::Block::Valid(fm) => {
                prop_assert_eq!(fm.title.as_deref(), Some(title.as_str()));
                prop_assert_eq!(fm.updated.as_deref(), Some(updated.as_str()));
                prop_assert_eq!(fm.tags, tags.clone());
            }
            other => prop_assert!(false, "not valid after edits: {:?}\n{}", other, u1),
        }
        let tail = format!("body{nl}");
        prop_assert!(u1.contains("# keep me") && u1.ends_with(&tail));
    }

    #[test]
    fn links_are_never_found_in_code_and_extraction_never_panics(
        prose in proptest::collection::vec("[a-z \\[\\]|#^!.]{0,20}", 0..6),
        coded in "[a-z]{1,8}",
    ) {
        let body = format!(
            "{}\n`[[{coded}]]` and\n\n```\n[[{coded}]]\n```\n\n    [[{coded}]]\n\n<!-- [[{coded}]] -->\n",
            prose.join(" ")
        );
        let o = outline::outline(&body, 1);
        for l in &o.links {
            // A link found must be in the prose line, never in the code below it.
            prop_assert!(l.line == 1, "a link on line {}: {:?}", l.line, l);
        }
    }
}
