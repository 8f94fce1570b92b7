//! Hostile vaults: huge files, odd names, a read-only vault. Each must give a clear answer
//! and lose nothing.

use crate::harness::TestVault;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;

#[test]
fn a_100_mb_file_and_a_million_line_file_are_scanned() {
    let v = TestVault::new();
    let big = v.path("raw/big.bin");
    let mut f = std::fs::File::create(&big).unwrap();
    let chunk = vec![0xA5u8; 1 << 20];
    for _ in 0..100 {
        f.write_all(&chunk).unwrap();
    }
    drop(f);
    let lines: String = (0..1_000_000).map(|i| format!("{i}\n")).collect();
    v.write("raw/lines.txt", lines);
    v.page("wiki/concepts/A.md", "A", "[[lines.txt]] and ![[big.bin]]");
    let j = v.run(&["scan", "--json"]).ok().json();
    assert_eq!(j["errors"], serde_json::json!([]));
    v.run(&["lint", "--check", "broken-links", "missing-embeds"])
        .ok();
    let again = v.run(&["scan", "--json"]).ok().json();
    assert!(again["hashed"].as_u64().unwrap() <= 3, "{again}");
}

#[test]
fn names_in_every_normalisation_form_are_twins_reported_not_guessed() {
    let v = TestVault::new();
    v.write("wiki/concepts/Caf\u{e9}.md", "nfc\n")
        .write("wiki/concepts/Cafe\u{301}.md", "nfd\n")
        .write("wiki/concepts/Links.md", "[[Café]]\n");
    v.run(&["scan"]).ok();
    let j = v
        .run(&["lint", "--check", "ambiguous-links", "--json"])
        .code(1)
        .json();
    assert_eq!(j["issues"][0]["path"], "wiki/concepts/Links.md", "{j}");
    let r = v.run(&["query", "--resolve", "CAFÉ", "--json"]).ok().json();
    assert_eq!(r["ambiguous"], true);
    assert_eq!(r["collisions"].as_array().unwrap().len(), 2);
}

#[test]
fn a_file_name_that_is_not_utf8_is_tracked_and_does_not_break_the_scan() {
    let v = TestVault::new();
    let name = std::ffi::OsStr::from_bytes(b"notes-\xff.md");
    std::fs::write(v.path("raw").join(name), "latin-1 name\n").unwrap();
    let j = v.run(&["scan", "--json"]).ok().json();
    assert_eq!(j["errors"], serde_json::json!([]));
    let again = v.run(&["scan", "--json"]).ok().json();
    assert_eq!(
        again["deleted"], 0,
        "the file is not taken for deleted: {again}"
    );
}

#[test]
fn a_read_only_vault_gives_a_clear_error_and_keeps_the_inbox() {
    let v = TestVault::new();
    v.capture(&["keep me"]);
    let inbox = v.read("inbox.md");
    v.run(&["ingest", "--prepare"]).ok();
    // As root, permission bits do not stop writes; a read-only inbox directory entry is
    // simulated by making raw/inbox a file, so the archive cannot be written.
    std::fs::remove_dir_all(v.path("raw/inbox")).unwrap();
    v.write("raw/inbox", "not a directory");
    let run = v.run(&["ingest", "--finalize"]).code(1);
    assert!(run.stderr.contains("raw/inbox"), "{}", run.stderr);
    assert_eq!(v.read("inbox.md"), inbox, "nothing removed from the inbox");
}
