//! Counts a person reads agree in number: at one, the noun is singular (`1 day`, `1 file`,
//! `1 link`, `1 entry`), whatever the command. Every count goes through
//! `output::count`; the `(s)` forms the original prints literally (`issue(s) across
//! check(s)`, `collection(s) processed`) are kept, as scripts match them.

use crate::harness::{TODAY, TestVault};

#[test]
fn a_brief_of_one_day() {
    let v = TestVault::new();
    let out = v.run(&["brief", "--days", "1"]).ok().stdout;
    assert!(
        out.starts_with(&format!("Brief for {TODAY} to {TODAY} (1 day)\n")),
        "{out}"
    );
}

#[test]
fn a_manifest_of_one_file() {
    let v = TestVault::empty();
    v.write("sparks.toml", "[git]\nauto_commit = false\n");
    v.run(&["scan"]).ok();
    let out = v.run(&["status"]).ok().stdout;
    assert!(
        out.contains("manifest: 1 file tracked, 1 changed since last ingest, 0 deleted\n"),
        "{out}"
    );
}

#[test]
fn one_link_in_one_file_and_one_entry() {
    let v = TestVault::new();
    v.page("wiki/concepts/Alpha.md", "Alpha", "Alpha text.")
        .page("wiki/concepts/Beta.md", "Beta", "See [[Alpha]].");
    v.run(&["scan"]).ok();
    let out = v.run(&["mv", "Alpha", "Gamma"]).ok().stdout;
    assert!(
        out.contains("\nRewrote 1 link in 2 files\n"),
        "the page and Beta: {out}"
    );
    let out = v.run(&["capture", "one idea"]).ok().stdout;
    assert!(out.ends_with("; 1 entry pending\n"), "{out}");
}
