//! `query` holds what it must of the vault, not the pages it finds: past a thousand, they are
//! counted, then read again from the manifest as they are written (Linux: the child's peak
//! resident size, from the kernel).

use crate::harness::{TODAY, TestVault, peak_kib};

/// A vault of 1,000 pages of 1,000 sources each, scanned: `hits` of them carry the tag `hit`,
/// the others `miss`. The vaults differ in their findings alone. A source is one letter: a
/// few bytes in the manifest, tens held as a string (SQLite's page cache, which grows with what
/// is read up to a bound, is not what this measures).
fn vault(hits: usize) -> TestVault {
    let v = TestVault::new();
    let sources = vec!["a"; 1000].join(", ");
    for i in 0..1000 {
        let mark = if i < hits { "hit" } else { "miss" };
        v.write(
            &format!("wiki/concepts/Page {i:04}.md"),
            format!(
                "---\ntitle: Page {i:04}\ntype: concept\nmaturity: seed\ntags: [{mark}]\n\
                 sources: [{sources}]\ncreated: {TODAY}\nupdated: {TODAY}\n---\n\nText.\n"
            ),
        );
    }
    v.run(&["scan"]).ok();
    v
}

/// 100 pages found and 1,000 in vaults of the same size take the same memory, within 20%, as
/// JSON and as text. Measured in the debug build (`--json`): with the pages held, 39.8 MB and
/// then 70.6 MB (+77%); read as written, 38.7 and 38.4 MB (-1%).
#[test]
fn memory_does_not_grow_with_the_pages_found() {
    let (few, many) = (vault(100), vault(1000));
    let json = ["query", "--tag", "hit", "--json", "--no-refresh"];
    let total = |v: &TestVault| v.run(&json).ok().json()["total"].clone();
    assert_eq!((total(&few), total(&many)), (100.into(), 1000.into()));
    let (a, b) = (peak_kib(&few, &json), peak_kib(&many, &json));
    eprintln!("query --json's peak: {a} KiB with 100 pages found, {b} KiB with 1,000");
    assert!(b * 10 <= a * 12, "{a} KiB, then {b} KiB");
    let text = ["query", "--tag", "hit", "--no-refresh"];
    let (a, b) = (peak_kib(&few, &text), peak_kib(&many, &text));
    eprintln!("query's peak: {a} KiB with 100 pages found, {b} KiB with 1,000");
    assert!(b * 10 <= a * 12, "{a} KiB, then {b} KiB");
}
