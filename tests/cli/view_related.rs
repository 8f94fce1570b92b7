//! `sparks view`'s "Related" section (issue 52): on each page, the pages nearest it that it
//! does not link to yet, in the page's HTML (no script needed), never itself, a system page or
//! a conflict copy.

use crate::harness::TestVault;
use crate::view::Server;

/// The `<section class="related">` of a page's HTML, when it has one.
fn related_section(html: &str) -> Option<&str> {
    let start = html.find("<section class=\"related\">")?;
    let end = html[start..].find("</section>")? + start;
    Some(&html[start..end])
}

#[test]
fn a_page_lists_the_near_pages_it_does_not_link_to_yet() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Device Sync.md",
        "Device Sync",
        "Synchronise my notebook across computers with git, so both hold the same files. \
         See [[Merge Driver]].",
    )
    .page(
        "wiki/concepts/Laptop and Phone.md",
        "Laptop and Phone",
        "Keeping the laptop and the phone identical: every document mirrored on both machines.",
    )
    .page(
        "wiki/concepts/Merge Driver.md",
        "Merge Driver",
        "Git merges the notebook's files from two computers line by line, keeping both sides.",
    )
    .page(
        "wiki/concepts/Omelette.md",
        "Omelette",
        "The recipe needs two eggs, butter and a hot pan.",
    )
    // A conflict copy of the paraphrase: a file, never suggested.
    .page(
        "wiki/concepts/Laptop and Phone (conflict 2026-05-01).md",
        "Laptop and Phone",
        "Keeping the laptop and the phone identical: every document mirrored on both machines.",
    );
    v.run(&["index"]).ok();
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let html = s.get("/wiki/concepts/Device%20Sync").status(200).text();
    let section = related_section(&html).unwrap_or_else(|| panic!("no Related section: {html}"));
    assert!(section.contains("<h2>Related</h2>"), "{section}");
    // The page it paraphrases, linked as any page is, and readable without a script.
    assert!(
        section.contains("href=\"/wiki/concepts/Laptop%20and%20Phone\">Laptop and Phone</a>"),
        "{section}"
    );
    // Not what it links to already, not itself, not a conflict copy, not the index.
    for absent in ["Merge%20Driver", "Device%20Sync", "conflict", "/wiki/index"] {
        assert!(!section.contains(absent), "{absent} in {section}");
    }
    // The same section on a second visit (found once per change of the manifest).
    let again = s.get("/wiki/concepts/Device%20Sync").status(200).text();
    assert_eq!(related_section(&again), Some(section));
    // A new page on the subject shows once the manifest has it.
    v.page(
        "wiki/concepts/Two Machines.md",
        "Two Machines",
        "Synchronise my notebook across computers with git so both hold the same files.",
    );
    v.run(&["scan"]).ok();
    let after = s.get("/wiki/concepts/Device%20Sync").status(200).text();
    let section = related_section(&after).expect("a Related section");
    assert!(section.contains("Two Machines"), "{section}");
}

#[test]
fn a_system_page_and_a_page_with_nothing_near_have_no_related_section() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Omelette.md",
        "Omelette",
        "The recipe needs two eggs, butter and a hot pan.",
    );
    v.run(&["index"]).ok();
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let page = s.get("/wiki/concepts/Omelette").status(200).text();
    assert!(related_section(&page).is_none(), "{page}");
    let index = s.get("/wiki/index").status(200).text();
    assert!(related_section(&index).is_none(), "{index}");
}
