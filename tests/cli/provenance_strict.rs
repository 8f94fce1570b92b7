//! The lint delta of an ingest and `--strict` (issue 19): a batch that adds a broken link is
//! refused until fixed, a finalize that is not strict reports and keeps the delta, the pages
//! compared, and the snapshot kept between ingests, through the schema 8 and 9 migrations.

use crate::harness::{TestVault, db, rows};
use crate::old_schemas::{undo_schema_9, undo_schema_10};
use crate::provenance::{agent_writes, owned, page_actions, vault};
use serde_json::Value;

#[test]
fn strict_refuses_a_batch_that_adds_a_broken_link_and_accepts_it_once_fixed() {
    let v = vault(false);
    // A broken link that was there before the batch is not the batch's doing.
    let old = v.read("wiki/concepts/Old.md");
    v.write("wiki/concepts/Old.md", format!("{old}\n[[Long Gone]]\n"));
    v.run(&["ingest", "--prepare"]).ok();
    agent_writes(&v);
    v.page(
        "wiki/concepts/Alpha.md",
        "Alpha",
        "Alpha links [[Nowhere]]. Two. Three.",
    );
    let inbox = v.read("inbox.md");
    let refused = v
        .run(&["ingest", "--finalize", "--strict", "--json"])
        .code(1);
    // A refusal prints no report: under --json, the failure as JSON.
    let j = refused.json();
    assert_eq!(j["error"]["message"], "cannot finalize ingest 1", "{j}");
    assert!(
        j["error"]["causes"][0]
            .as_str()
            .is_some_and(|c| c.contains("Alpha.md:10: broken-links")),
        "{j}"
    );
    assert!(
        refused.stderr.contains(
            "wiki/concepts/Alpha.md:10: broken-links: [[Nowhere]] matches no page or file"
        ),
        "{}",
        refused.stderr
    );
    assert!(!refused.stderr.contains("Long Gone"), "{}", refused.stderr);
    assert_eq!(v.read("inbox.md"), inbox, "nothing archived");
    assert!(!v.path("raw/inbox/2026-04-10.md").exists());
    let open = v.run(&["ingest", "--status"]).ok().json();
    assert_eq!(open["ingest_id"], 1);
    assert!(open["step"].is_null(), "{open}");

    // Without --strict the same batch goes through and the delta is reported and kept.
    let config = v.read("sparks.toml");
    v.write(
        "sparks.toml",
        config.replace("strict = false", "strict = true"),
    );
    let again = v.run(&["ingest", "--finalize"]).code(1);
    assert!(
        again.stderr.contains("[[Nowhere]]"),
        "[ingest] strict = true"
    );

    v.page(
        "wiki/concepts/Alpha.md",
        "Alpha",
        "Alpha links [[Old]]. Two. Three.",
    );
    let f = v
        .run(&["ingest", "--finalize", "--strict", "--json"])
        .ok()
        .json();
    assert_eq!(f["archived"], 2, "{f}");
    assert_eq!(f["lint_delta"], serde_json::json!([]));
}

#[test]
fn a_finalize_that_is_not_strict_reports_and_keeps_the_lint_delta() {
    let v = vault(false);
    v.run(&["ingest", "--prepare"]).ok();
    agent_writes(&v);
    v.write("wiki/concepts/Bare.md", "No frontmatter. [[Alpha#Nope]]\n");
    let f = v.run(&["ingest", "--finalize", "--json"]).ok().json();
    let checks: Vec<&str> = f["lint_delta"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["check"].as_str().unwrap())
        .collect();
    assert_eq!(checks, ["broken-headings", "missing-frontmatter"], "{f}");
    assert_eq!(f["lint_delta"][0]["path"], "wiki/concepts/Bare.md");
    let shown = v.run(&["ingest", "--show", "1", "--json"]).ok().json();
    assert_eq!(shown["lint_delta"], f["lint_delta"]);
    let text = v.run(&["ingest", "--show", "1"]).ok().stdout;
    assert!(text.contains("the batch added 2 issues"), "{text}");
}

/// A batch with everything around it that can happen to files between prepare and finalize,
/// scans in between; the pages `--show` then lists, as (path, action). With `every_page`, the
/// snapshot is stripped of its generation (as one recorded before schema 9 is): finalize
/// compares every page instead of the files stored or deleted since.
fn busy_batch(every_page: bool) -> Vec<(String, String)> {
    let v = TestVault::new();
    let pages = [
        "Kept", "Edited", "Reverted", "Gone", "Back", "Moved", "Early",
    ];
    for name in pages {
        v.page(
            &format!("wiki/concepts/{name}.md"),
            name,
            "A page. Two. Three.",
        );
    }
    v.write("raw/notes/n.md", "a note\n");
    v.capture(&["2026-04-10\nalpha: plain"]);
    v.settle();
    v.run(&["scan"]).ok();
    // Changed before prepare: not the batch's.
    v.page("wiki/concepts/Early.md", "Early", "Edited before prepare.");
    v.run(&["ingest", "--prepare"]).ok();
    if every_page {
        db(&v)
            .execute("UPDATE ingest_provenance SET snapshot_gen = NULL", [])
            .unwrap();
    }
    let original = v.read("wiki/concepts/Reverted.md");
    v.page("wiki/concepts/Edited.md", "Edited", "Edited by the batch.");
    v.page(
        "wiki/concepts/Reverted.md",
        "Reverted",
        "Edited, then put back.",
    );
    let back = v.read("wiki/concepts/Back.md");
    for gone in ["Gone", "Back"] {
        std::fs::remove_file(v.path(&format!("wiki/concepts/{gone}.md"))).unwrap();
    }
    v.run(&["scan"]).ok();
    v.write("wiki/concepts/Reverted.md", &original);
    v.write("wiki/concepts/Back.md", &back);
    std::fs::rename(
        v.path("wiki/concepts/Moved.md"),
        v.path("wiki/concepts/Moved there.md"),
    )
    .unwrap();
    v.page("wiki/concepts/New.md", "New", "Created by the batch.");
    v.write("raw/notes/n.md", "a note, edited\n");
    // A command that brings the manifest up to date on its own.
    v.run(&["query", "--tag", "none"]).ok();
    v.run(&["ingest", "--finalize"]).ok();
    page_actions(&v.run(&["ingest", "--show", "1", "--json"]).ok().json())
}

#[test]
fn finalize_compares_what_changed_since_prepare_as_comparing_every_page_would() {
    let since = busy_batch(false);
    assert_eq!(
        since,
        owned(&[
            ("wiki/concepts/Edited.md", "changed"),
            ("wiki/concepts/Gone.md", "deleted"),
            ("wiki/concepts/Moved there.md", "created"),
            ("wiki/concepts/Moved.md", "deleted"),
            ("wiki/concepts/New.md", "created"),
        ])
    );
    assert_eq!(busy_batch(true), since);
}

/// The snapshot kept between ingests, as rows, and the live pages with their hashes now.
fn kept_and_live(v: &TestVault) -> (Vec<String>, Vec<String>) {
    (
        rows(v, "SELECT path, hash FROM wiki_snapshot ORDER BY path"),
        rows(
            v,
            "SELECT f.path, f.hash FROM files f JOIN pages p ON p.path = f.path
             WHERE f.deleted = 0 ORDER BY f.path",
        ),
    )
}

#[test]
fn the_snapshot_kept_between_ingests_is_brought_up_to_date_by_each_prepare() {
    let v = vault(false);
    for name in ["One", "Two", "Three", "Four"] {
        v.page(
            &format!("wiki/concepts/{name}.md"),
            name,
            "A page. Two. Three.",
        );
    }
    v.write("wiki/concepts/Bare.md", "No frontmatter. [[Nowhere]]\n");
    v.capture(&["2026-04-10\nalpha: plain", "2026-04-11\nbeta: plain"]);
    v.settle();
    v.run(&["ingest", "--prepare", "--limit", "1"]).ok();
    let (kept, live) = kept_and_live(&v);
    assert!(kept.len() > 4 && kept == live, "{kept:?}");
    v.page("wiki/concepts/One.md", "One", "Edited by the first batch.");
    v.run(&["ingest", "--finalize"]).ok();
    // Between the ingests: edits, a deletion, a new page, a page's issue fixed, an aborted
    // ingest in between.
    v.page("wiki/concepts/Two.md", "Two", "Edited between the ingests.");
    std::fs::remove_file(v.path("wiki/concepts/Three.md")).unwrap();
    v.page("wiki/concepts/Five.md", "Five", "New between the ingests.");
    v.run(&["ingest", "--prepare", "--limit", "1"]).ok();
    v.run(&["ingest", "--abort"]).ok();
    v.write("wiki/concepts/Bare.md", "No frontmatter, no link.\n");
    v.run(&["ingest", "--prepare", "--limit", "1"]).ok();
    let (kept, live) = kept_and_live(&v);
    assert_eq!(
        kept, live,
        "the second prepare's snapshot is the wiki as it is"
    );
    let bare = rows(
        &v,
        "SELECT issues FROM wiki_lint_before WHERE path = 'wiki/concepts/Bare.md'",
    );
    assert!(
        bare.len() == 1 && !bare[0].contains("Nowhere"),
        "the fixed link's issue before is gone: {bare:?}"
    );
    // The batch: only its own changes are its.
    v.page(
        "wiki/concepts/Four.md",
        "Four",
        "Edited by the second batch.",
    );
    v.write("wiki/concepts/Bare.md", "No frontmatter. [[Nowhere]]\n");
    let f = v.run(&["ingest", "--finalize", "--json"]).ok().json();
    let id = f["ingest_id"].as_i64().unwrap().to_string();
    assert_eq!(
        concepts(&v.run(&["ingest", "--show", &id, "--json"]).ok().json()),
        owned(&[
            ("wiki/concepts/Bare.md", "changed"),
            ("wiki/concepts/Four.md", "changed"),
        ])
    );
    assert!(
        f["lint_delta"].to_string().contains("Nowhere"),
        "the issue the batch brought back is its: {f}"
    );
}

#[test]
fn an_open_ingest_from_schema_9_keeps_its_snapshot_through_the_migration() {
    let v = vault(false);
    for name in ["Kept", "Edited", "Gone"] {
        v.page(
            &format!("wiki/concepts/{name}.md"),
            name,
            "A page. Two. Three.",
        );
    }
    v.capture(&["2026-04-10\nalpha: plain"]);
    v.settle();
    v.run(&["ingest", "--prepare"]).ok();
    undo_schema_10(&v);
    assert_eq!(rows(&v, "PRAGMA user_version"), ["9"]);
    v.page("wiki/concepts/Edited.md", "Edited", "Edited by the batch.");
    std::fs::remove_file(v.path("wiki/concepts/Gone.md")).unwrap();
    let f = v.run(&["ingest", "--finalize", "--json"]).ok().json();
    assert!(
        !f["warnings"].to_string().contains("no snapshot"),
        "{}",
        f["warnings"]
    );
    assert_eq!(
        concepts(&v.run(&["ingest", "--show", "1", "--json"]).ok().json()),
        owned(&[
            ("wiki/concepts/Edited.md", "changed"),
            ("wiki/concepts/Gone.md", "deleted"),
        ])
    );
}

/// The page actions of an ingest shown, but for the collection pages its regen wrote.
fn concepts(shown: &Value) -> Vec<(String, String)> {
    let mut actions = page_actions(shown);
    actions.retain(|(p, _)| !p.starts_with("wiki/collections/"));
    actions
}

#[test]
fn an_open_ingest_from_schema_8_keeps_its_lint_issues_before_through_the_migration() {
    let v = vault(false);
    v.write("wiki/concepts/Bare.md", "No frontmatter. [[Nowhere]]\n");
    v.settle();
    v.run(&["ingest", "--prepare"]).ok();
    // The manifest as schema 8 left it: the issues before as one JSON text in the ingest's
    // row, no generations.
    let c = db(&v);
    let issues: String = c
        .query_row(
            "SELECT json_group_array(json(value)) FROM wiki_lint_before, json_each(issues)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(issues.contains("Nowhere"), "{issues}");
    c.execute(
        "UPDATE ingest_provenance SET lint_before = ?1",
        [issues.as_str()],
    )
    .unwrap();
    drop(c);
    undo_schema_9(&v);
    // The batch edits the page with the old issues and adds one of its own.
    v.write(
        "wiki/concepts/Bare.md",
        "No frontmatter, still. [[Nowhere]] and [[Neither]]\n",
    );
    let f = v.run(&["ingest", "--finalize", "--json"]).ok().json();
    let messages: Vec<&str> = f["lint_delta"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 1, "{f}");
    assert!(messages[0].contains("Neither"), "{f}");
    let show = v.run(&["ingest", "--show", "1", "--json"]).ok().json();
    assert_eq!(show["pages"]["changed"], 1, "{show}");
    assert_eq!(
        rows(
            &v,
            "SELECT count(*) FROM ingest_provenance WHERE lint_before <> ''"
        ),
        ["0"],
        "the whole-vault text is not kept"
    );
}
