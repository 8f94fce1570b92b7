//! Names of any Unicode on the command line: the reported `mv Epsilon "Ideas 💡"`, a file whose
//! name ends in an emoji, a capture that starts with spaces. Each runs to the end, or is
//! refused with a message; none panics. `tests/unicode_names.rs` holds the property.

use crate::harness::TestVault;

#[test]
fn mv_to_a_title_ending_in_an_emoji_renames_the_page_and_rewrites_its_links() {
    let v = TestVault::new();
    v.page("wiki/concepts/Epsilon.md", "Epsilon", "Epsilon text.");
    v.page(
        "wiki/concepts/Beta.md",
        "Beta",
        "See [[Epsilon]], [[Epsilon|ep]] and [e](Epsilon.md).",
    );
    v.settle();
    let run = v.run(&["mv", "Epsilon", "Ideas 💡"]).ok();
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(v.path("wiki/concepts/Ideas 💡.md").is_file());
    assert!(!v.path("wiki/concepts/Epsilon.md").exists());
    assert!(
        v.read("wiki/concepts/Beta.md")
            .contains("See [[Ideas 💡]], [[Ideas 💡|ep]] and [e](Ideas%20💡.md)."),
        "{}",
        v.read("wiki/concepts/Beta.md")
    );
    let lint = v.run(&["lint", "--json"]).json();
    assert_eq!(lint["counts"]["broken-links"], 0, "{lint}");
}

#[test]
fn a_file_whose_name_ends_in_an_emoji_is_scanned_and_searched() {
    let v = TestVault::new();
    v.write("wiki/files/photo 💡", "bytes\n");
    v.write("raw/note 💡", "hello raw\n");
    v.page("wiki/concepts/Idea 💡.md", "Idea 💡", "An idea.");
    let run = v.run(&["scan"]).ok();
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let found = v.run(&["search", "idea"]).ok();
    assert!(
        found.stdout.contains("wiki/concepts/Idea 💡.md"),
        "{}",
        found.stdout
    );
}

#[test]
fn a_capture_that_starts_with_spaces_is_captured_without_them() {
    let v = TestVault::new();
    v.run(&["capture", "  💡 an idea"]).ok();
    let inbox = v.read("inbox.md");
    assert!(inbox.ends_with("\n💡 an idea\n---\n"), "{inbox}");
    assert!(!inbox.contains(" 💡"), "{inbox}");
}
