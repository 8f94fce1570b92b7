//! `sparks ingest` and the inbox inputs that must not lose or mangle a capture: CRLF, a leading
//! separator, a separator inside a fenced block, an impossible date, a 20 MB line, bytes that
//! are not UTF-8, a missing inbox, text without a separator, an entry larger than one MiB.

use crate::harness::TestVault;
use crate::ingest::{contents, finalize, inbox_contents, markers, prepare, status};
use crate::snapshot;

#[test]
fn crlf_inbox_keeps_crlf_for_the_rest() {
    let v = TestVault::new();
    v.write(
        "inbox.md",
        "# Inbox\r\n\r\nheader text\r\n\r\n---\r\n2026-04-05\r\nA line 1\r\nA line 2\r\n---\r\nB\r\n---\r\nC line 1\r\nC line 2\r\n",
    );
    let batch = prepare(&v, &["--limit", "2"]);
    assert_eq!(contents(&batch), ["A line 1\nA line 2", "B"]);
    assert_eq!(batch["entries"][0]["capture_date"], "2026-04-05");
    finalize(&v, &[]);
    assert_eq!(
        v.read("inbox.md"),
        "# Inbox\r\n\r\nheader text\r\n\r\n---\r\nC line 1\r\nC line 2\r\n"
    );
    assert!(
        v.read("raw/inbox/2026-04-05.md")
            .ends_with("\nA line 1\nA line 2\n")
    );
}

#[test]
fn an_inbox_may_start_with_a_separator() {
    let v = TestVault::new();
    v.write("inbox.md", "---\nfirst\n---\nsecond\n");
    let batch = prepare(&v, &["--limit", "1"]);
    assert_eq!(contents(&batch), ["first"]);
    assert_eq!(batch["remaining"], 1);
    finalize(&v, &[]);
    assert_eq!(v.read("inbox.md"), "---\nsecond\n");
    prepare(&v, &[]);
    finalize(&v, &[]);
    assert_eq!(v.read("inbox.md"), "---\n\n");
}

#[test]
fn a_separator_inside_a_fenced_block_is_content() {
    let v = TestVault::new();
    let note = "My note\n```yaml\n---\ntitle: X\n---\n```\nafter the fence";
    v.write("inbox.md", format!("# Inbox\n---\n{note}\n---\nnext\n"));
    let batch = prepare(&v, &["--limit", "1"]);
    assert_eq!(contents(&batch), [note]);
    assert_eq!(batch["remaining"], 1);
    finalize(&v, &[]);
    assert_eq!(v.read("inbox.md"), "# Inbox\n---\nnext\n");
    assert!(
        v.read("raw/inbox/2026-05-01.md")
            .ends_with(&format!(" -->\n{note}\n"))
    );
}

#[test]
fn an_impossible_date_stays_content_with_a_warning() {
    let v = TestVault::new();
    v.capture(&["2026-13-45\nnote with a bad date"]);
    let r = v.run(&["ingest", "--prepare"]).ok();
    let batch = r.json();
    assert_eq!(
        batch["entries"][0]["content"],
        "2026-13-45\nnote with a bad date"
    );
    assert_eq!(batch["entries"][0]["capture_date"], crate::harness::TODAY);
    let warnings = batch["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1, "{batch}");
    let w = warnings[0].as_str().expect("text");
    assert!(w.contains("2026-13-45") && w.contains("line "), "{w}");
    assert!(
        r.stderr.contains("warning:") && r.stderr.contains("2026-13-45"),
        "{}",
        r.stderr
    );
    finalize(&v, &[]);
    assert!(
        v.read("raw/inbox/2026-05-01.md")
            .contains("\n2026-13-45\nnote with a bad date\n")
    );
}

#[test]
fn a_20_mb_single_line_capture_survives_intact() {
    let v = TestVault::new();
    let big: String = "0123456789abcdef".repeat(20 * 1024 * 1024 / 16);
    v.capture(&["short one", &format!("2026-04-20\n{big}")]);
    let r = v.run(&["ingest", "--prepare"]).ok();
    // Parsing 20 MB of JSON in a debug test binary is slow; the pretty-printed text is enough.
    let entry = format!(
        "\"id\": 2,\n      \"capture_date\": \"2026-04-20\",\n      \"content\": \"{big}\",\n"
    );
    assert!(r.stdout.contains(&entry), "the content is handed out whole");
    assert!(r.stdout.contains("\n  \"total\": 2,\n"));
    drop(r);
    let f = finalize(&v, &[]);
    assert_eq!(f["archived"], 2);
    let archived = v.read("raw/inbox/2026-04-20.md");
    assert!(
        archived.starts_with("---\n<!-- sparks: ingest 1 "),
        "{}",
        &archived[..200]
    );
    assert!(
        archived
            .lines()
            .nth(1)
            .is_some_and(|m| m.contains(" entry 2 blake3 "))
    );
    assert!(
        archived.ends_with(&format!(" -->\n{big}\n")),
        "the capture is archived byte for byte"
    );
    assert_eq!(
        archived.lines().count(),
        3,
        "one block: separator, marker, content"
    );
    assert!(!v.read("inbox.md").contains("0123456789"));
}

#[test]
fn non_utf8_bytes_are_refused_naming_the_line() {
    let v = TestVault::new();
    let bytes = b"# Inbox\n---\nfine\n---\ncaf\xe9 au lait\n".to_vec();
    v.write("inbox.md", &bytes);
    let r = v.run(&["ingest", "--prepare"]).code(1);
    snapshot!(v, r.stderr, @"error: inbox.md line 5 is not valid UTF-8; save the file as UTF-8 and try again");
    assert_eq!(std::fs::read(v.path("inbox.md")).expect("inbox"), bytes);
    assert!(status(&v)["ingest_id"].is_null(), "nothing was opened");

    // The same bytes arriving between prepare and finalize stop finalize before it changes
    // anything; once the file is fixed, finalize completes.
    v.write("inbox.md", "# Inbox\n---\nfine\n");
    prepare(&v, &[]);
    v.write("inbox.md", &bytes);
    let r = v.run(&["ingest", "--finalize"]).code(1);
    assert!(r.stderr.contains("line 5"), "{}", r.stderr);
    assert_eq!(std::fs::read(v.path("inbox.md")).expect("inbox"), bytes);
    assert!(markers(&v).is_empty());
    v.write("inbox.md", "# Inbox\n---\nfine\n---\ncafé au lait\n");
    finalize(&v, &[]);
    assert_eq!(inbox_contents(&v), ["café au lait"]);
}

#[test]
fn a_missing_inbox_is_a_clear_error() {
    let v = TestVault::new();
    std::fs::remove_file(v.path("inbox.md")).expect("remove");
    let r = v.run(&["ingest", "--prepare"]).code(1);
    assert!(r.stderr.contains("inbox.md does not exist"), "{}", r.stderr);
    assert!(r.stderr.contains("hint: run `sparks init`"), "{}", r.stderr);
    assert!(!v.path("inbox.md").exists(), "prepare creates nothing");
    snapshot!(v, r.stderr);
}

#[test]
fn text_without_a_separator_is_a_clear_error() {
    let v = TestVault::new();
    v.write("inbox.md", "idea one\nidea two\n");
    let r = v.run(&["ingest", "--prepare"]).code(1);
    assert!(r.stderr.contains("no `---` separator"), "{}", r.stderr);
    assert_eq!(v.read("inbox.md"), "idea one\nidea two\n");
    assert!(status(&v)["ingest_id"].is_null());
    snapshot!(v, r.stderr);
}

#[test]
fn prepare_warns_of_an_entry_larger_than_one_mib() {
    let v = TestVault::new();
    let long: String = "A long pasted article, one line of many.\n".repeat(30_000);
    assert!(long.len() > 1 << 20);
    v.capture(&["2026-04-10\nShort note.", &format!("2026-04-10\n{long}")]);
    let r = v.run(&["ingest", "--prepare"]).ok();
    let batch = r.json();
    let warnings: Vec<&str> = batch["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        [
            "entry 2 (captured 2026-04-10) is 1.2 MiB, more than 1 MiB: it may not fit in one read; \
          read it in parts, or keep it in the inbox (keep 2 at finalize) and tell the human"
        ],
        "{batch}"
    );
    assert!(
        r.stderr.contains("warning: entry 2 (captured 2026-04-10)"),
        "{}",
        r.stderr
    );
    // The open batch, shown again, says it again.
    let again = v.run(&["ingest", "--status"]).ok().json();
    assert_eq!(
        again["warnings"].as_array().map(Vec::len),
        Some(1),
        "{again}"
    );
}
