//! `sparks scan` and the rows derived from the files (links, headings, blocks, sentences): a
//! first scan builds what scans of one file at a time build, edits leave what a first scan
//! would build, and moved lines and edited links are updated in place.

use crate::harness::{TestVault, rows};
use crate::scan::{links, scan};

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

/// Page A's body in [`edits_leave_the_manifest_a_first_scan_would_build`].
const A_BODY: &str =
    "# One\n\nSee [[B]], [[Beta|the b]] and [[C#Two]]. ^first\n\n## Two\n\n[[#One]] text.\n";

/// A page's text: its title, the frontmatter lines `extra`, then `body`.
fn page(title: &str, extra: &str, body: &str) -> String {
    format!("---\ntitle: {title}\n{extra}---\n\n{body}")
}

/// Every kind of edit, in turn, of the pages A, B and C: appended and inserted text, a title,
/// aliases, type and tags changed, headings and blocks renamed, links relabelled, retargeted
/// and made an embed, frontmatter broken and mended, every link gone.
fn edits() -> Vec<(&'static str, String)> {
    let a_body = A_BODY;
    vec![
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
    ]
}

/// A page read again keeps the rows that did not change and updates only moved lines: after
/// every kind of edit, the manifest must be what a first scan of the same files builds.
#[test]
fn edits_leave_the_manifest_a_first_scan_would_build() {
    let v = TestVault::new();
    let a_body = A_BODY;
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
    let edits = edits();
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
