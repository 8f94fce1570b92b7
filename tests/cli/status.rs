//! `sparks status`.

use crate::harness::TestVault;
use crate::snapshot;

#[test]
fn fresh_vault() {
    let v = TestVault::new();
    v.run(&["scan"]).ok();
    snapshot!(v, v.run(&["status"]).ok().stdout);
}

#[test]
fn counts_pages_with_real_plurals_and_pending_entries() {
    let v = TestVault::new();
    v.page("wiki/entities/A.md", "A", "a")
        .write("wiki/entities/B.md", "---\ntitle: B\ntype: entity\n---\n")
        .write("wiki/summaries/S.md", "---\ntitle: S\ntype: summary\n---\n")
        .write("wiki/concepts/X.md", "---\ntitle: X\ntype: Entity\n---\n")
        .write("wiki/concepts/none.md", "no frontmatter\n")
        .capture(&["one", "2026-04-01\ntwo", "2026-04-02"]);
    std::fs::remove_file(v.path("wiki/log.md")).unwrap();
    v.run(&["scan"]).ok();
    let run = v.run(&["status", "--json"]).ok();
    let j = run.json();
    let labels: Vec<&str> = j["page_counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect();
    // A: concept; B: entity; index and Tasks: collection; X has a non-canonical type.
    assert_eq!(
        labels,
        [
            "1 entity",
            "1 concept",
            "1 summary",
            "0 syntheses",
            "2 collections",
            "1 Entity"
        ]
    );
    assert_eq!(
        j["inbox"]["pending"], 2,
        "a date-only chunk is not pending, as for prepare"
    );
    let prepare = v.run(&["ingest", "--prepare"]).ok().json();
    assert_eq!(prepare["total"], 2);
    let status = v.run(&["status"]).ok().stdout;
    snapshot!(v, status);
}

#[test]
fn deleted_and_changed_since_the_last_ingest() {
    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "A", "a")
        .page("wiki/concepts/B.md", "B", "b");
    v.run(&["scan"]).ok();
    v.capture(&["x"]);
    v.run(&["ingest", "--prepare"]).ok();
    v.run(&["ingest", "--finalize"]).ok();
    std::thread::sleep(std::time::Duration::from_millis(20));
    v.page("wiki/concepts/A.md", "A", "a changed");
    std::fs::remove_file(v.path("wiki/concepts/B.md")).unwrap();
    v.run(&["scan"]).ok();
    let j = v.run(&["status", "--json"]).ok().json();
    assert_eq!(j["files"]["changed_since_ingest"], 1);
    assert_eq!(j["files"]["deleted"], 1);
}

#[test]
fn shows_the_open_ingest() {
    let v = TestVault::new();
    v.capture(&["a", "b", "c"]);
    v.run(&["ingest", "--prepare", "--limit", "2"]).ok();
    let j = v.run(&["status", "--json"]).ok().json();
    assert_eq!(j["open_ingest"]["id"], 1);
    assert_eq!(j["open_ingest"]["entries"], 2);
    assert!(
        v.run(&["status"])
            .ok()
            .stdout
            .contains("ingest: 1 open since")
    );
}

#[test]
fn a_malformed_inbox_is_reported_not_counted_as_empty() {
    let v = TestVault::new();
    v.write("inbox.md", "idea one\nidea two\n");
    let j = v.run(&["status", "--json"]).ok().json();
    assert!(j["inbox"]["error"].as_str().unwrap().contains("separator"));
}

#[test]
fn an_interrupted_operation_is_shown_and_blocks_other_writes_until_rerun() {
    let v = TestVault::new();
    v.run(&["scan"]).ok();
    // What an `mv` interrupted after its writes leaves in the journal.
    crate::harness::db(&v)
        .execute(
            "INSERT INTO journal (kind, command, request, plan, step, started_at)
             VALUES ('mv', 'sparks mv \"Old\" \"New\"', '{}', '[]', 'write',
                     '2026-05-01T10:00:00+00:00')",
            [],
        )
        .unwrap();
    let j = v.run(&["status", "--json"]).ok().json();
    assert_eq!(
        j["unfinished"]["command"], "sparks mv \"Old\" \"New\"",
        "{j}"
    );
    assert_eq!(j["unfinished"]["step"], "write");
    let text = v.run(&["status"]).ok().stdout;
    assert!(
        text.contains("unfinished: `sparks mv \"Old\" \"New\"` stopped after write; run it again"),
        "{text}"
    );
    // A command that writes is refused, and says what to run; nothing is written.
    let before = v.read("wiki/collections/Tasks.md");
    let r = v
        .run(&["tasks", "add", "--section", "Home", "--text", "x"])
        .code(1);
    assert!(
        r.stderr.contains("was interrupted after write"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("hint: run `sparks mv \"Old\" \"New\"` again"),
        "{}",
        r.stderr
    );
    assert_eq!(v.read("wiki/collections/Tasks.md"), before);
    // Reading goes on: lookups and lint (which only refreshes the derived manifest).
    v.run(&["query", "--type", "collection"]).ok();
    v.run(&["lint"]).ok();
    v.run(&["index", "--dry-run"]).ok();
    v.run(&["index"]).code(1);
}
