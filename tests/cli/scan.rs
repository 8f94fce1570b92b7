//! `sparks scan`: change detection, bad input, unreadable paths, links.

use crate::harness::{TestVault, db, rows, undo_schema_9};
use crate::snapshot;

fn scan(v: &TestVault) -> serde_json::Value {
    v.run(&["scan", "--json"]).ok().json()
}

/// Where each link of `source` resolved: `target -> status resolved`.
fn links(v: &TestVault, source: &str) -> Vec<String> {
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

/// What a scan derives, table by table in a fixed order: `files` as `files_sql` selects it, then
/// every other table the scan writes, `tallies` as `tallies` names it (a table and a filter).
fn derived_rows(v: &TestVault, files_sql: &str, tallies: &str) -> Vec<Vec<String>> {
    let mut all = vec![rows(v, files_sql)];
    for (table, order) in [
        ("pages", "path"),
        ("tags", "path, tag_key"),
        ("aliases", "path, seq"),
        ("links", "source, seq"),
        ("headings", "path, seq"),
        ("blocks", "path, block_id"),
        ("page_sources", "path, seq"),
        (tallies, "key"),
    ] {
        all.push(rows(v, &format!("SELECT * FROM {table} ORDER BY {order}")));
    }
    all
}

/// A first scan sets aside the indexes and triggers of the tables it fills and builds them
/// once at the end: it must leave the manifest exactly as scans that met the files one at a
/// time leave it, the schema included.
#[test]
fn a_first_scan_builds_what_scans_one_file_at_a_time_build() {
    let v = TestVault::new();
    let steps: &[(&str, &str)] = &[
        (
            "wiki/entities/A.md",
            "---\ntitle: A\ntype: entity\naliases: [Alpha, First]\ntags: [x, y]\nsources: [./raw/notes/a.md, raw/b.md]\n---\n\n# Top\n\nSee [[B#Part]], [[Alpha]], [[#Top]], [[Nowhere]] and ![[pic.png]]. ^blk\n",
        ),
        (
            "wiki/concepts/B.md",
            "---\ntitle: B\ntype: concept\ntags: [x]\nsources: [raw/b.md]\n---\n\n## Part\n\n[[A#^blk]] [[First|one]] [[Twin]]\n",
        ),
        (
            "wiki/concepts/Twin.md",
            "---\ntitle: Twin\ntype: concept\n---\n\n[[A]]\n",
        ),
        (
            "wiki/entities/Twin.md",
            "---\ntitle: Twin\n---\n\n[[entities/Twin]]\n",
        ),
        ("wiki/broken.md", "---\ntitle: [unclosed\n---\n\n[[B]]\n"),
        ("raw/notes/a.md", "a raw note linking [[A]]\n"),
        ("raw/b.md", "plain\n"),
        ("raw/pic.png", "not really a picture"),
    ];
    for (rel, text) in steps {
        v.write(rel, text);
        scan(&v);
    }
    let dump = |v: &TestVault| {
        let mut all = derived_rows(
            v,
            "SELECT path, name_key, name_loose, path_key, hash, deleted, indexed FROM files ORDER BY path",
            "tallies",
        );
        all.push(rows(
            v,
            "SELECT type, name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name",
        ));
        all
    };
    let counts = |v: &TestVault| {
        let s = v.run(&["status", "--json"]).ok().json();
        (
            s["files"]["total"].clone(),
            s["pages"].clone(),
            s["pages_by_type"].clone(),
        )
    };
    let one_at_a_time = dump(&v);
    let counted = counts(&v);
    assert_eq!(counted.0, 13, "the eight files and init's five");
    assert!(
        one_at_a_time[9]
            .iter()
            .any(|r| r.contains("files_tally_insert")),
        "the triggers are part of what is compared"
    );
    for f in ["sparks.db", "sparks.db-wal", "sparks.db-shm"] {
        let _ = std::fs::remove_file(v.path(f));
    }
    scan(&v);
    let first = dump(&v);
    let names = [
        "files",
        "pages",
        "tags",
        "aliases",
        "links",
        "headings",
        "blocks",
        "page_sources",
        "tallies",
        "schema",
    ];
    for ((name, a), b) in names.iter().zip(&one_at_a_time).zip(&first) {
        assert_eq!(a, b, "{name} differs after a first scan");
    }
    assert_eq!(counts(&v), counted, "status counts from the tallies");
}

/// A page read again keeps the rows that did not change and updates only moved lines: after
/// every kind of edit, the manifest must be what a first scan of the same files builds.
#[test]
fn edits_leave_the_manifest_a_first_scan_would_build() {
    let v = TestVault::new();
    let page =
        |title: &str, extra: &str, body: &str| format!("---\ntitle: {title}\n{extra}---\n\n{body}");
    let a_body =
        "# One\n\nSee [[B]], [[Beta|the b]] and [[C#Two]]. ^first\n\n## Two\n\n[[#One]] text.\n";
    v.write(
        "wiki/A.md",
        page(
            "A",
            "type: concept\ntags: [x, y]\naliases: [Alpha]\n",
            a_body,
        ),
    )
    .write(
        "wiki/B.md",
        page(
            "B",
            "aliases: [Beta]\nsources: [raw/r.md]\n",
            "[[A]] [[Alpha]] ^b1\n",
        ),
    )
    .write(
        "wiki/C.md",
        page("C", "", "## Two\n\n[[A]] [[A2]] [[Gamma]]\n"),
    )
    .write("raw/r.md", "raw\n");
    let edits: Vec<(&str, String)> = vec![
        (
            "wiki/A.md",
            page(
                "A",
                "type: concept\ntags: [x, y]\naliases: [Alpha]\n",
                &format!("{a_body}\nAppended.\n"),
            ),
        ),
        (
            "wiki/A.md",
            page(
                "A",
                "type: concept\ntags: [x, y]\naliases: [Alpha]\n",
                &format!("Inserted first.\n\n{a_body}"),
            ),
        ),
        (
            "wiki/A.md",
            page(
                "A2",
                "type: concept\ntags: [x, y]\naliases: [Alpha]\n",
                a_body,
            ),
        ),
        (
            "wiki/B.md",
            page(
                "B",
                "aliases: [Gamma, Beta2]\nsources: [raw/r.md]\n",
                "[[A]] [[Alpha]] ^b1\n",
            ),
        ),
        (
            "wiki/A.md",
            page(
                "A2",
                "type: entity\ntags: [y, x, '#y', z]\naliases: [Alpha]\n",
                a_body,
            ),
        ),
        (
            "wiki/B.md",
            page(
                "B",
                "aliases: [Gamma, Beta2]\n",
                "## Renamed\n\n[[A]] [[Alpha]] ^b2\n",
            ),
        ),
        (
            "wiki/C.md",
            page("C", "", "## Two\n\n[[A|label]] [[A2]] [[Gamma]]\n"),
        ),
        (
            "wiki/C.md",
            page("C", "", "## Two\n\n[[B|label]] [[A2]] [[Gamma]]\n"),
        ),
        (
            "wiki/C.md",
            page(
                "C",
                "",
                "Moved.\n\n## Two\n\n[[B#Renamed|label]] [[A2]] ![[Gamma]]\n",
            ),
        ),
        (
            "wiki/A.md",
            "---\ntitle: [unclosed\n---\n\n[[B]]\n".to_string(),
        ),
        ("wiki/A.md", page("A", "tags: [x]\n", a_body)),
        ("wiki/C.md", page("C", "", "No links any more.\n")),
    ];
    // (A type no page has any more keeps a zero count.)
    let dump = |v: &TestVault| {
        derived_rows(
            v,
            "SELECT path, hash, deleted FROM files ORDER BY path",
            "tallies WHERE n <> 0",
        )
    };
    scan(&v);
    let db_files = ["sparks.db", "sparks.db-wal", "sparks.db-shm"];
    for (step, (rel, text)) in edits.iter().enumerate() {
        v.write(rel, text);
        scan(&v);
        let incremental = dump(&v);
        // Set the manifest aside, build one from scratch, compare, and put it back.
        for f in db_files {
            let _ = std::fs::rename(v.path(f), v.path(&format!("{f}.kept")));
        }
        scan(&v);
        assert_eq!(incremental, dump(&v), "after edit {step} of {rel}");
        for f in db_files {
            let _ = std::fs::remove_file(v.path(f));
            let _ = std::fs::rename(v.path(&format!("{f}.kept")), v.path(f));
        }
    }
    assert_eq!(
        links(&v, "wiki/B.md"),
        ["A | resolved | wiki/A.md", "Alpha | broken | -"],
        "the last edit of A dropped its alias"
    );
}

/// An edit that only moves lines updates the stored lines in place: the rows of the links
/// and headings stay (the same rowids), and no link is resolved again.
#[test]
fn an_edit_that_moves_lines_updates_them_in_place() {
    let v = TestVault::new();
    let body = "# Head\n\n[[B]] and [[C]]\n";
    v.page("wiki/A.md", "A", body)
        .page("wiki/B.md", "B", "")
        .page("wiki/C.md", "C", "");
    scan(&v);
    let ids = |v: &TestVault| {
        rows(
            v,
            "SELECT 'link', rowid, line FROM links WHERE source = 'wiki/A.md'
             UNION ALL SELECT 'heading', rowid, line FROM headings WHERE path = 'wiki/A.md'
             ORDER BY 1, 2",
        )
    };
    let before = ids(&v);
    v.page("wiki/A.md", "A", &format!("A new first line.\n\n{body}"));
    let report = scan(&v);
    assert_eq!(report["changed"], 1, "{report}");
    assert_eq!(report["resolved"], 0, "no link needed resolving: {report}");
    let moved: Vec<String> = before
        .iter()
        .map(|r| {
            let mut cols: Vec<&str> = r.split(" | ").collect();
            let line: i64 = cols[2].parse().unwrap();
            let line = (line + 2).to_string();
            cols[2] = &line;
            cols.join(" | ")
        })
        .collect();
    assert_eq!(ids(&v), moved, "same rows, lines two further down");
}

/// An edit of one link of a page (as `mv` makes in every page linking to the renamed one)
/// rewrites that link's row in place: the page's other links keep their rows and their
/// resolution, and only the new target is resolved.
#[test]
fn an_edited_link_is_rewritten_in_place() {
    let v = TestVault::new();
    v.page("wiki/A.md", "A", "[[B]] then [[C]]\n\n[[D]]\n")
        .page("wiki/B.md", "B", "")
        .page("wiki/C.md", "C", "")
        .page("wiki/D.md", "D", "")
        .page("wiki/E.md", "E", "");
    scan(&v);
    let ids = |v: &TestVault| {
        rows(
            v,
            "SELECT rowid, seq, target, status, resolved FROM links WHERE source = 'wiki/A.md'
             ORDER BY seq",
        )
    };
    let before = ids(&v);
    v.page("wiki/A.md", "A", "[[B]] then [[E|the e]]\n\n[[D]]\n");
    let report = scan(&v);
    assert_eq!(report["resolved"], 1, "only the new target: {report}");
    let after = ids(&v);
    let rowid = |r: &String| r.split(" | ").next().map(str::to_string);
    assert_eq!(
        after.iter().map(rowid).collect::<Vec<_>>(),
        before.iter().map(rowid).collect::<Vec<_>>(),
        "the same rows"
    );
    assert_eq!(after[0], before[0], "an unchanged link is left alone");
    assert_eq!(after[2], before[2], "an unchanged link is left alone");
    assert!(
        after[1].ends_with("| E | resolved | wiki/E.md"),
        "{after:?}"
    );
}

#[cfg(unix)]
mod unreadable {
    use super::*;
    use crate::harness::{chmod, open_to_nobody, run_unprivileged};

    #[test]
    fn an_unreadable_directory_is_reported_and_nothing_under_it_is_lost() {
        let v = TestVault::new();
        v.page("wiki/entities/A.md", "A", "[[B]]")
            .page("wiki/entities/B.md", "B", "[[A]]")
            .page("wiki/concepts/C.md", "C", "[[A]]")
            .settle();
        open_to_nobody(&v);
        run_unprivileged(&v, &["scan"]).ok();
        let before = rows(&v, "SELECT path, hash, deleted FROM files ORDER BY path");
        chmod(&v.path("wiki/entities"), "000");
        let run = run_unprivileged(&v, &["scan"]).code(1);
        chmod(&v.path("wiki/entities"), "755");
        assert!(run.stderr.contains("wiki/entities"), "{}", run.stderr);
        assert!(run.stdout.contains("deleted: 0"), "{}", run.stdout);
        assert_eq!(
            rows(&v, "SELECT path, hash, deleted FROM files ORDER BY path"),
            before
        );
        assert_eq!(
            links(&v, "wiki/concepts/C.md"),
            ["A | resolved | wiki/entities/A.md"]
        );
        let again = run_unprivileged(&v, &["scan", "--json"]).ok().json();
        assert_eq!(again["deleted"], 0);
        assert_eq!(
            rows(&v, "SELECT path, hash, deleted FROM files ORDER BY path"),
            before
        );
    }

    #[test]
    fn an_unreadable_file_is_reported_and_kept() {
        let v = TestVault::new();
        v.page("wiki/entities/A.md", "A", "x").settle();
        open_to_nobody(&v);
        run_unprivileged(&v, &["scan"]).ok();
        v.page("wiki/entities/A.md", "A2", "changed");
        chmod(&v.path("wiki/entities/A.md"), "000");
        let run = run_unprivileged(&v, &["scan", "--json"]).code(1);
        chmod(&v.path("wiki/entities/A.md"), "644");
        let j = run.json();
        assert_eq!(j["errors"][0]["path"], "wiki/entities/A.md", "{j}");
        assert_eq!(
            rows(
                &v,
                "SELECT title FROM pages WHERE path = 'wiki/entities/A.md'"
            ),
            ["A"]
        );
        run_unprivileged(&v, &["scan"]).ok();
        assert_eq!(
            rows(
                &v,
                "SELECT title FROM pages WHERE path = 'wiki/entities/A.md'"
            ),
            ["A2"]
        );
    }
}

#[test]
fn a_corrupt_manifest_is_a_clear_error_and_rebuild_recovers_the_derived_state() {
    let v = TestVault::new();
    v.page("wiki/entities/A.md", "A", "[[B]]")
        .page("wiki/entities/B.md", "B", "[[A]]");
    scan(&v);
    let links_before = links(&v, "wiki/entities/A.md");
    for f in ["sparks.db-wal", "sparks.db-shm"] {
        let _ = std::fs::remove_file(v.path(f));
    }
    // Truncated to half a page: no longer a database.
    let bytes = std::fs::read(v.path("sparks.db")).unwrap();
    std::fs::write(v.path("sparks.db"), &bytes[..100]).unwrap();
    let run = v.run(&["status"]).code(1);
    snapshot!(v, run.stderr, @r"
        error: manifest [VAULT]/sparks.db: database disk image is malformed
          caused by: Error code 11: The database disk image is malformed
        hint: the manifest is derived state: run `sparks scan --rebuild`, which sets it aside and builds a new one
        ");
    let run = v.run(&["scan", "--rebuild"]).ok();
    snapshot!(v, run.stderr, @r"
        set the old manifest aside as [VAULT]/sparks.db.old-[STAMP]
        warning: the history of ingests could not be carried over from [VAULT]/sparks.db.old-[STAMP] (manifest [VAULT]/sparks.db.old-[STAMP]: database disk image is malformed): the list of ingests starts afresh, and earlier ingests cannot be reverted
        ");
    assert_eq!(links(&v, "wiki/entities/A.md"), links_before);
    v.run(&["lint", "--check", "broken-links"]).ok();
}

#[test]
fn a_schema_1_manifest_is_migrated_and_reindexed_keeping_change_times() {
    let v = TestVault::new();
    v.page("wiki/concepts/Kept.md", "Kept", "unchanged lighthouse text")
        .page("wiki/concepts/Edited.md", "Edited", "old words")
        .settle();
    scan(&v);
    // Put the manifest back into schema 1's shape, as an older sparks left it.
    undo_schema_9(&v);
    db(&v)
        .execute_batch(
            "DROP TABLE search_wiki; DROP TABLE search_raw;
             CREATE VIRTUAL TABLE search_words USING fts5(scope UNINDEXED, title, aliases, tags, body);
             CREATE VIRTUAL TABLE search_tri USING fts5(scope UNINDEXED, title, aliases, body, tokenize = 'trigram');
             ALTER TABLE files DROP COLUMN indexed;
             DROP INDEX links_resolved_source; CREATE INDEX links_resolved ON links(resolved);
             DROP INDEX links_fragments; CREATE INDEX headings_key ON headings(path, key);
             ALTER TABLE pages DROP COLUMN sentences;
             ALTER TABLE pages ADD COLUMN words INTEGER NOT NULL DEFAULT 0;
             UPDATE files SET changed_ns = 12345;
             PRAGMA user_version = 1;",
        )
        .unwrap();
    v.write(
        "wiki/concepts/Edited.md",
        "---\ntitle: Edited\n---\nnew lighthouse words\n",
    )
    .settle();
    let report = scan(&v);
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    assert_eq!(
        rows(&v, "PRAGMA user_version"),
        [manifest_version().to_string()]
    );
    let hits = v.run(&["search", "lighthouse", "--json"]).ok().json();
    let mut paths: Vec<&str> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap())
        .collect();
    paths.sort();
    assert_eq!(paths, ["wiki/concepts/Edited.md", "wiki/concepts/Kept.md"]);
    assert_eq!(
        rows(
            &v,
            "SELECT path, changed_ns = 12345 FROM files WHERE path LIKE 'wiki/concepts/%' ORDER BY path"
        ),
        ["wiki/concepts/Edited.md | 0", "wiki/concepts/Kept.md | 1"],
        "an unchanged file keeps its change time; an edited one gets a new one"
    );
    assert_eq!(scan(&v)["hashed"], 0, "the reindex happens once");
}

#[test]
fn a_schema_2_manifest_is_read_again_for_obsidian_heading_keys() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Guide.md",
        "Guide",
        "## Part 1: Basics\n\nText.\n\n%%\n## Hidden\n%%\n",
    )
    .page(
        "wiki/concepts/Reader.md",
        "Reader",
        "[[Guide#Part 1 Basics]] [[Guide#Hidden]]",
    )
    .settle();
    scan(&v);
    // Put the heading keys back as schema 2 stored them (the name key, comments not
    // skipped), as an older sparks left them.
    undo_schema_9(&v);
    db(&v)
        .execute_batch(
            "UPDATE headings SET key = lower(text);
             UPDATE links SET heading_key = lower(heading) WHERE heading IS NOT NULL;
             INSERT INTO headings (path, seq, level, text, key, line)
               VALUES ('wiki/concepts/Guide.md', 9, 2, 'Hidden', 'hidden', 14);
             ALTER TABLE pages DROP COLUMN sentences;
             ALTER TABLE pages ADD COLUMN words INTEGER NOT NULL DEFAULT 0;
             PRAGMA user_version = 2;",
        )
        .unwrap();
    let report = scan(&v);
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    assert_eq!(
        rows(&v, "PRAGMA user_version"),
        [manifest_version().to_string()]
    );
    let lint = v
        .run(&["lint", "--check", "broken-headings", "--json"])
        .code(1)
        .json();
    let issues = lint["issues"].as_array().unwrap();
    assert_eq!(issues.len(), 1, "{lint}");
    assert!(
        issues[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("has no heading \"Hidden\""),
        "{lint}"
    );
    assert_eq!(scan(&v)["hashed"], 0, "the files are read again once");
}

#[test]
fn a_schema_2_manifest_counts_sentences_on_the_next_scan() {
    let v = TestVault::new();
    v.page("wiki/concepts/Short.md", "Short", "Only one sentence here.")
        .page("wiki/concepts/Long.md", "Long", "One. Two. Three. Four.")
        .settle();
    scan(&v);
    // Schema 2 counted words: these pages had plenty.
    undo_schema_9(&v);
    db(&v)
        .execute_batch(
            "ALTER TABLE pages DROP COLUMN sentences;
             ALTER TABLE pages ADD COLUMN words INTEGER NOT NULL DEFAULT 0;
             UPDATE pages SET words = 100;
             UPDATE files SET changed_ns = 12345;
             PRAGMA user_version = 2;",
        )
        .unwrap();
    // Migrated but not scanned: a count the page never had makes no page thin.
    let thin = |v: &TestVault| v.run(&["query", "--thin", "--no-refresh"]).ok().stdout;
    assert_eq!(thin(&v), "");
    assert_eq!(
        rows(&v, "PRAGMA user_version"),
        [manifest_version().to_string()]
    );
    let report = scan(&v);
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    assert_eq!(thin(&v), "wiki/concepts/Short.md\n");
    assert_eq!(
        rows(
            &v,
            "SELECT path, sentences, changed_ns = 12345 FROM files JOIN pages USING (path)
             WHERE path LIKE 'wiki/concepts/%' ORDER BY path"
        ),
        [
            "wiki/concepts/Long.md | 4 | 1",
            "wiki/concepts/Short.md | 1 | 1"
        ],
        "pages are recounted; their content did not change, nor does their change time"
    );
    assert_eq!(scan(&v)["hashed"], 0, "the recount happens once");
}

fn manifest_version() -> i64 {
    sparks::manifest::SCHEMA_VERSION
}

/// `scan --rebuild` of a manifest that still reads carries the history of ingests over (what
/// no file holds): `ingest --list` shows them, and the last can still be reverted.
#[test]
fn a_rebuild_keeps_the_history_of_ingests() {
    let v = TestVault::new();
    v.capture(&["2026-04-10\nalpha", "2026-04-11\nbravo"]);
    v.run(&["ingest", "--prepare", "--limit", "1"]).ok();
    v.page("wiki/concepts/Alpha.md", "Alpha", "Alpha. Two. Three.");
    v.run(&["ingest", "--finalize"]).ok();
    v.run(&["ingest", "--prepare"]).ok();
    let before = v.run(&["ingest", "--list", "--json"]).ok().json();
    let r = v.run(&["scan", "--rebuild", "--json"]).ok().json();
    assert_eq!(r["history_kept"], 2, "{r}");
    assert!(
        r["set_aside"][0]
            .as_str()
            .is_some_and(|p| p.contains("sparks.db.old-")),
        "{r}"
    );
    assert_eq!(v.run(&["ingest", "--list", "--json"]).ok().json(), before);
    // The open ingest is still open, and finalize completes it.
    let open = v.run(&["ingest", "--status"]).ok().json();
    assert_eq!(open["ingest_id"], 2, "{open}");
    v.run(&["ingest", "--finalize"]).ok();
    let reverted = v.run(&["ingest", "--revert", "1", "--json"]).ok().json();
    assert_eq!(reverted["reverted"], true, "{reverted}");
    assert!(v.read("inbox.md").contains("alpha"));
    assert!(!v.path("wiki/concepts/Alpha.md").exists());
}

/// Rebuilds in the same second never replace an earlier set-aside manifest.
#[test]
fn rebuilds_in_one_second_keep_every_set_aside_manifest() {
    let v = TestVault::new();
    for _ in 0..3 {
        v.run(&["scan", "--rebuild"]).ok();
    }
    let kept = std::fs::read_dir(&v.root)
        .unwrap()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("sparks.db.old-") && !n.ends_with("-wal") && !n.ends_with("-shm")
        })
        .count();
    assert_eq!(kept, 3);
}
