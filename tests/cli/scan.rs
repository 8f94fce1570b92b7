//! `sparks scan`: change detection, bad input, links (the derived rows are in `scan_derived.rs`;
//! unreadable paths, a corrupt manifest, old schemas and rebuilds in `scan_recovery.rs`).

use crate::harness::{TestVault, rows};
use crate::snapshot;

pub(crate) fn scan(v: &TestVault) -> serde_json::Value {
    v.run(&["scan", "--json"]).ok().json()
}

/// Where each link of `source` resolved: `target -> status resolved`.
pub(crate) fn links(v: &TestVault, source: &str) -> Vec<String> {
    rows(
        v,
        &format!(
            "SELECT target, status, coalesce(resolved, '-') FROM links WHERE source = '{source}' ORDER BY seq"
        ),
    )
}

#[test]
fn second_scan_hashes_nothing() {
    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "A", "text")
        .write("raw/x.bin", [0u8, 159, 146, 150])
        .settle();
    let first = scan(&v);
    assert!(first["hashed"].as_u64().unwrap() >= 2);
    let second = scan(&v);
    assert_eq!(second["hashed"], 0, "{second}");
    assert_eq!(second["skipped"], first["walked"]);
}

#[cfg(target_os = "linux")]
#[test]
fn a_same_size_edit_with_its_mtime_put_back_is_seen() {
    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "Alpha", "Some text here.")
        .settle();
    scan(&v);
    use std::process::Command;
    let path = v.path("wiki/concepts/A.md");
    let stamp = Command::new("stat")
        .args(["-c", "%Y"])
        .arg(&path)
        .output()
        .unwrap();
    let stamp = String::from_utf8(stamp.stdout).unwrap().trim().to_string();
    let text = v
        .read("wiki/concepts/A.md")
        .replace("title: Alpha", "title: Omega");
    std::fs::write(&path, text).unwrap();
    let ok = Command::new("touch")
        .arg("-d")
        .arg(format!("@{stamp}"))
        .arg(&path)
        .status()
        .unwrap();
    assert!(ok.success());
    let again = scan(&v);
    assert_eq!(again["changed"], 1, "{again}");
    assert_eq!(
        rows(
            &v,
            "SELECT title FROM pages WHERE path = 'wiki/concepts/A.md'"
        ),
        ["Omega"]
    );
}

#[test]
fn a_file_edited_in_the_same_tick_as_the_scan_is_read_again() {
    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "A", "x");
    // Not settled: the files are as new as the scan's clock, so the next scan rereads them.
    scan(&v);
    let again = scan(&v);
    let third = scan(&v);
    assert!(again["hashed"].as_u64().unwrap() <= third["walked"].as_u64().unwrap());
    assert_eq!(
        third["hashed"], 0,
        "once read at a later clock, a file is trusted"
    );
}

#[test]
fn full_rereads_everything() {
    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "A", "x").settle();
    let first = scan(&v);
    let full = v.run(&["scan", "--full", "--json"]).ok().json();
    assert_eq!(full["hashed"], first["walked"]);
    assert_eq!(full["changed"], 0);
}

#[test]
fn an_edit_of_updated_alone_reaches_the_recent_pages_index() {
    let v = TestVault::new();
    let page = |updated: &str, body: &str| {
        format!("---\ntitle: A\ntype: concept\nupdated: {updated}\n---\n{body}\n")
    };
    // The pages in the order of the index the viewer's "recently updated" reads.
    let recent = "SELECT path || ' ' || updated FROM pages INDEXED BY pages_recent
                  WHERE path LIKE 'wiki/concepts/%' ORDER BY updated DESC, title_key, path";
    v.write("wiki/concepts/A.md", page("2026-01-01", "x"))
        .settle();
    scan(&v);
    v.write("wiki/concepts/A.md", page("2026-02-02", "x"))
        .settle();
    scan(&v);
    assert_eq!(rows(&v, recent), ["wiki/concepts/A.md 2026-02-02"]);
    v.write(
        "wiki/concepts/A.md",
        page("2026-02-02", "an edit of the body"),
    )
    .settle();
    scan(&v);
    assert_eq!(rows(&v, recent), ["wiki/concepts/A.md 2026-02-02"]);
    v.write(
        "wiki/concepts/A.md",
        page("2026-03-03", "an edit of the body"),
    )
    .settle();
    scan(&v);
    assert_eq!(rows(&v, recent), ["wiki/concepts/A.md 2026-03-03"]);
}

#[test]
fn deleted_files_are_marked_and_come_back() {
    let v = TestVault::new();
    v.page("wiki/entities/A.md", "A", "x")
        .page("wiki/concepts/B.md", "B", "[[A]]")
        .settle();
    scan(&v);
    let moved = v.dir.path().join("A.md");
    std::fs::rename(v.path("wiki/entities/A.md"), &moved).unwrap();
    let gone = scan(&v);
    assert_eq!(gone["deleted"], 1);
    assert_eq!(links(&v, "wiki/concepts/B.md"), ["A | broken | -"]);
    std::fs::rename(&moved, v.path("wiki/entities/A.md")).unwrap();
    let back = scan(&v);
    assert_eq!(
        back["changed"], 1,
        "a file moved back is read again: {back}"
    );
    assert_eq!(
        links(&v, "wiki/concepts/B.md"),
        ["A | resolved | wiki/entities/A.md"]
    );
    assert_eq!(
        rows(&v, "SELECT count(*) FROM files WHERE deleted = 1"),
        ["0"]
    );
}

#[cfg(unix)]
#[test]
fn walk_rules() {
    let v = TestVault::new();
    v.write(".obsidian/workspace.json", "{}")
        .write("wiki/.hidden/x.md", "x")
        .write("node_modules/pkg/index.js", "x")
        .write("raw/notes.md", "x")
        .write("sparks.db-journal-like", "x");
    std::os::unix::fs::symlink(v.path("wiki"), v.path("wiki/loop")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", v.path("raw/outside")).unwrap();
    let r = scan(&v);
    assert_eq!(r["errors"], serde_json::json!([]));
    let paths = rows(&v, "SELECT path FROM files ORDER BY path");
    assert!(paths.contains(&"raw/notes.md".to_string()));
    for p in &paths {
        assert!(
            !p.contains(".obsidian") && !p.contains(".hidden") && !p.contains("node_modules"),
            "{p}"
        );
        assert!(
            !p.starts_with("sparks.db") && !p.contains("loop") && !p.contains("outside"),
            "{p}"
        );
    }
}

#[test]
fn bad_input_is_recorded_never_fatal() {
    let v = TestVault::new();
    v.write(
        "wiki/concepts/broken-yaml.md",
        "---\ntitle: A\ntags: [a, b\n---\nbody\n",
    )
    .write("wiki/concepts/no-frontmatter.md", "# Just text\n")
    .write("wiki/concepts/not-a-mapping.md", "---\n- a\n- b\n---\n")
    .write(
        "wiki/concepts/latin1.md",
        b"---\ntitle: Caf\xe9\n---\n".as_slice(),
    )
    .write("wiki/concepts/binary.md", [0u8, 1, 2, 255, 254])
    .write("wiki/concepts/empty.md", "")
    .write(
        "wiki/concepts/crlf.md",
        "---\r\ntitle: Crlf\r\ntype: concept\r\n---\r\n[[Bom]]\r\n",
    )
    .write(
        "wiki/concepts/bom.md",
        "\u{feff}---\ntitle: Bom\ntype: concept\n---\n[[Crlf]]\n",
    )
    .write(
        "wiki/concepts/scalar-tags.md",
        "---\ntitle: Scalar\ntags: ai\n---\n",
    )
    .write("raw/picture.png", [137u8, 80, 78, 71, 0, 0]);
    let r = v.run(&["scan", "--json"]).ok().json();
    assert_eq!(r["errors"], serde_json::json!([]));
    let pages = rows(
        &v,
        "SELECT substr(path, 15), frontmatter, coalesce(error_line, '-'), coalesce(title, '-'), problems
         FROM pages WHERE path LIKE 'wiki/concepts/%' ORDER BY path",
    );
    snapshot!(v, pages.join("\n"));
    assert_eq!(
        links(&v, "wiki/concepts/crlf.md"),
        ["Bom | resolved | wiki/concepts/bom.md"]
    );
    assert_eq!(
        links(&v, "wiki/concepts/bom.md"),
        ["Crlf | resolved | wiki/concepts/crlf.md"]
    );
}

#[test]
fn links_resolve_like_obsidian() {
    let v = TestVault::new();
    v.write(
        "wiki/entities/Cascade.md",
        "---\ntitle: Cascade Engine\ntype: entity\naliases: [CC4BQ]\n---\n# Design\n\nText. ^intro\n",
    )
    .write("wiki/concepts/Café.md", "no frontmatter, still a target\n")
    .write("raw/img/diagram.png", [1u8, 2, 3])
    .write("wiki/a/Twin.md", "x")
    .write("wiki/b/Twin.md", "x")
    .write("wiki/x/Shortest.md", "x")
    .write("wiki/x/y/Shortest.md", "x")
    .write("wiki/concepts/One.md", "---\ntitle: Same\n---\n")
    .write("wiki/concepts/Two.md", "---\ntitle: Same\n---\n")
    .write(
        "wiki/synthesis/Links.md",
        "---\ntitle: Links\n---\n\
         [[cascade engine]] [[cc4bq|label]] [[Cascade#Design]] [[Cascade#^intro]]\n\
         [[Cafe\u{301}]] ![[diagram.png]] [[entities/Cascade]] [[Cascade.md]]\n\
         | a | [[Cascade\\|CC]] |\n\
         [[Twin]] [[Shortest]] [[Same]] [[Nowhere]] [[#Local]]\n\
         `[[InCode]]`\n\n```\n[[InFence]]\n```\n",
    );
    scan(&v);
    let got = rows(
        &v,
        "SELECT target, coalesce(heading, ''), coalesce(block, ''), embed, status, coalesce(resolved, '-'), candidates
         FROM links WHERE source = 'wiki/synthesis/Links.md' ORDER BY seq",
    );
    snapshot!(v, got.join("\n"));
}

#[test]
fn a_title_change_re_resolves_the_links_that_depend_on_it() {
    let v = TestVault::new();
    v.write("wiki/entities/E.md", "---\ntitle: Old Name\n---\n")
        .write(
            "wiki/concepts/L.md",
            "---\ntitle: L\n---\n[[Old Name]] [[New Name]]\n",
        )
        .settle();
    scan(&v);
    assert_eq!(
        links(&v, "wiki/concepts/L.md"),
        [
            "Old Name | resolved | wiki/entities/E.md",
            "New Name | broken | -"
        ]
    );
    v.write("wiki/entities/E.md", "---\ntitle: New Name\n---\n")
        .settle();
    scan(&v);
    assert_eq!(
        links(&v, "wiki/concepts/L.md"),
        [
            "Old Name | broken | -",
            "New Name | resolved | wiki/entities/E.md"
        ]
    );
    v.write(
        "wiki/entities/F.md",
        "---\ntitle: G\naliases: [new name]\n---\n",
    )
    .settle();
    scan(&v);
    assert_eq!(
        links(&v, "wiki/concepts/L.md")[1],
        "New Name | resolved | wiki/entities/E.md",
        "title beats alias"
    );
    std::fs::remove_file(v.path("wiki/entities/E.md")).unwrap();
    scan(&v);
    assert_eq!(
        links(&v, "wiki/concepts/L.md")[1],
        "New Name | resolved | wiki/entities/F.md",
        "then the alias"
    );
}

#[test]
fn deleting_the_manifest_and_scanning_rebuilds_it() {
    let v = TestVault::new();
    v.page("wiki/entities/A.md", "A", "[[B]] [[C]]")
        .page("wiki/entities/B.md", "B", "[[A]]");
    scan(&v);
    let dump = |v: &TestVault| {
        [
            rows(v, "SELECT path, hash, deleted FROM files ORDER BY path"),
            rows(v, "SELECT * FROM pages ORDER BY path"),
            rows(
                v,
                "SELECT source, seq, target, status, resolved FROM links ORDER BY source, seq",
            ),
            rows(v, "SELECT * FROM headings ORDER BY path, seq"),
        ]
    };
    let before = dump(&v);
    for f in ["sparks.db", "sparks.db-wal", "sparks.db-shm"] {
        let _ = std::fs::remove_file(v.path(f));
    }
    scan(&v);
    assert_eq!(dump(&v), before);
}
