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

/// A path built from the pieces an attacker would use: names, `.`, `..`, empty components,
/// a leading `/`.
fn hostile_path() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        Just(String::new()),
        Just(".".to_string()),
        Just("..".to_string()),
        Just("...".to_string()),
        Just("..md".to_string()),
        "[a-z]{1,4}",
        "[a-z]{1,3}\\.md",
    ];
    (any::<bool>(), proptest::collection::vec(part, 0..6)).prop_map(|(slash, parts)| {
        let joined = parts.join("/");
        if slash { format!("/{joined}") } else { joined }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever the path, one `Vault::checked` lets through lands strictly inside the vault,
    /// even once `..` is folded.
    #[test]
    fn no_path_the_vault_accepts_leads_outside(rel in hostile_path()) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("vault");
        fs_err::create_dir_all(root.join("wiki")).unwrap();
        fs_err::write(root.join(sparks::config::CONFIG_FILE), "").unwrap();
        let vault = sparks::vault::Vault::open(&root).unwrap();
        if let Ok(p) = vault.checked(&rel) {
            let folded = sparks::vault::absolute(&p).unwrap();
            prop_assert!(folded.starts_with(&root) && folded != root, "{:?} -> {:?}", rel, folded);
            prop_assert!(sparks::vault::check_relative(&rel).is_ok());
        }
    }

    /// No bytes at all, nor a record with a seal that is not this device's, is believed by the
    /// run-time record readers: each says it is refused (or cannot read it), never acts on it.
    #[test]
    fn no_record_this_device_did_not_seal_is_believed(
        body in proptest::collection::vec(any::<u8>(), 0..200),
        seal in "[0-9a-f]{64}",
        sealed in any::<bool>(),
        which in 0usize..3,
    ) {
        use sparks::runstate::{RunDir, SyncMerge};
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::of(dir.path());
        // A genuine record first, so that this device's key exists.
        let genuine = SyncMerge {
            theirs: "a".into(), tree: "b".into(), changed: vec![], checked_out: false,
            copies: vec![], merged: vec![], from: None, forward: None, started_at: String::new(),
        };
        run.sync_merging(&genuine).unwrap();
        prop_assert_eq!(run.sync_merge().unwrap(), Some(genuine));
        let mut bytes = body.clone();
        if sealed {
            bytes.extend_from_slice(format!("\nsparks-seal: {seal}\n").as_bytes());
        }
        let name = ["sync.json", "journal.json", "ingest.json"][which];
        fs_err::write(run.path().join(name), &bytes).unwrap();
        let believed = match which {
            0 => run.sync_merge().map(|r| r.is_some()),
            1 => run.journaled().map(|r| r.is_some()),
            _ => run.open_ingest().map(|r| r.is_some()),
        };
        prop_assert!(believed.is_err(), "{:?} believed: {:?}", String::from_utf8_lossy(&bytes), believed);
        prop_assert!(!run.path().join(name).exists(), "it was set aside");
    }
}
