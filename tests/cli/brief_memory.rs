//! `brief` holds what it must of the vault, not the pages it lists: its lists are read from
//! the manifest as they are written (Linux: the child's peak resident size, from the kernel).

use crate::harness::{TODAY, TestVault, peak_kib};

/// A vault of 3,000 pages with titles of 4,000 bytes, scanned: the first `recent` were updated
/// today (in the brief's window), the others years ago. The vaults differ in their findings
/// alone: the manifest reads every page's row for the window either way.
fn vault(recent: usize) -> TestVault {
    let v = TestVault::new();
    let long = "word ".repeat(800);
    for i in 0..3000 {
        let updated = if i < recent { TODAY } else { "2020-01-01" };
        v.write(
            &format!("wiki/concepts/Page {i:04}.md"),
            format!(
                "---\ntitle: Page {i:04} {long}\ntype: concept\nmaturity: working\n\
                 created: 2020-01-01\nupdated: {updated}\n---\n\nOne. Two. Three.\n"
            ),
        );
    }
    v.run(&["scan"]).ok();
    v
}

/// 300 pages updated and 3,000 in vaults of the same size take the same memory, within 20%,
/// as JSON and as text. Measured in the debug build (`--json`): with the lists held (and
/// SQLite sorting whole rows in memory), 55.7 MB and then 75.6 MB (+36%); read as written,
/// only the paths sorted, 51.4 and 51.6 MB (+0.5%).
#[test]
fn memory_does_not_grow_with_the_pages_listed() {
    let (few, many) = (vault(300), vault(3000));
    let json = ["brief", "--json", "--no-refresh"];
    let updated = |v: &TestVault| {
        v.run(&json).ok().json()["updated_wiki"]
            .as_array()
            .map(Vec::len)
    };
    // The index, the log and Tasks were updated today too.
    assert_eq!((updated(&few), updated(&many)), (Some(303), Some(3003)));
    let text = ["brief", "--no-refresh"];
    let says = |v: &TestVault, n: &str| v.run(&text).ok().stdout.contains(n);
    assert!(says(&few, "pages updated: 303\n") && says(&many, "pages updated: 3003\n"));
    for (args, what) in [(&json[..], "brief --json"), (&text[..], "brief")] {
        let (a, b) = (peak_kib(&few, args), peak_kib(&many, args));
        eprintln!("{what}'s peak: {a} KiB with 300 pages updated, {b} KiB with 3,000");
        assert!(b * 10 <= a * 12, "{what}: {a} KiB, then {b} KiB");
    }
}
