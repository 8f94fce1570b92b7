//! Provenance, undo and the strict gate (issue 19): what each ingest did (`ingest --show`,
//! `--list --page`), taking an ingest back (`--revert`) with and without git, conflicts, the
//! lint delta and `--strict`, and a revert killed after each of its steps.

use crate::fault_matrix::with_fault;
use crate::faults::Disturb;
use crate::harness::{TestVault, db, files, git, rows, undo_schema_9, undo_schema_10};
use crate::snapshot;
use serde_json::Value;
use std::collections::BTreeMap;

/// The captures of the ingest under test: dated, so that putting them back is byte for byte.
const CAPTURES: &[&str] = &[
    "2026-04-10\nalpha: the first capture",
    "2026-04-12\nbravo: https://example.com/bravo",
];

/// Captured after the ingest: a revert keeps it.
const LATE: &str = "2026-04-20\ncharlie: captured after the ingest";

/// A page written by hand after the ingest: a revert keeps it.
const HAND: &str = "wiki/concepts/Hand.md";

fn with_git(v: &TestVault) {
    git(v, &v.root, &["init", "-q"]);
    git(v, &v.root, &["config", "user.name", "Test"]);
    git(v, &v.root, &["config", "user.email", "test@example.com"]);
    git(v, &v.root, &["add", "-A"]);
    git(v, &v.root, &["commit", "-qm", "before"]);
}

/// A vault with one page (`Old`) and [`CAPTURES`] in the inbox; in a committed git repository
/// when `in_git`.
fn vault(in_git: bool) -> TestVault {
    vault_with(in_git, CAPTURES)
}

fn vault_with(in_git: bool, captures: &[&str]) -> TestVault {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Old.md",
        "Old",
        "Old is old. It stays. It is linked.",
    );
    v.capture(captures);
    v.settle();
    if in_git {
        with_git(&v);
    }
    v
}

/// The agent's work for [`CAPTURES`]: two pages created, `Old` changed.
fn agent_writes(v: &TestVault) {
    v.page(
        "wiki/concepts/Alpha.md",
        "Alpha",
        "Alpha links [[Old]]. Two. Three.",
    );
    v.page(
        "wiki/concepts/Bravo.md",
        "Bravo",
        "Bravo links [[Alpha]]. Two. Three.",
    );
    let old = v.read("wiki/concepts/Old.md");
    v.write(
        "wiki/concepts/Old.md",
        format!("{old}\nSee [[Alpha]] and [[Bravo]].\n"),
    );
}

/// Prepare, let the agent write, finalize; the finalize report.
fn ingest(v: &TestVault) -> Value {
    v.run(&["ingest", "--prepare"]).ok();
    agent_writes(v);
    v.run(&["ingest", "--finalize", "--json"]).ok().json()
}

/// After the ingest: a late capture and a page written by hand.
fn life_goes_on(v: &TestVault) {
    v.capture(&[LATE]);
    v.page(HAND, "Hand", "Written by hand. After the ingest. Kept.");
}

/// What a revert must leave: the vault before the ingest, plus the late capture and the page
/// written by hand.
fn expected(before: &BTreeMap<String, Vec<u8>>, v: &TestVault) -> BTreeMap<String, Vec<u8>> {
    let mut want = before.clone();
    let mut inbox = want["inbox.md"].clone();
    inbox.extend_from_slice(format!("{LATE}\n---\n").as_bytes());
    want.insert("inbox.md".into(), inbox);
    want.insert(HAND.into(), v.read(HAND).into_bytes());
    want
}

fn assert_same(got: &BTreeMap<String, Vec<u8>>, want: &BTreeMap<String, Vec<u8>>) {
    let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(got), names(want), "the same files");
    for (p, bytes) in want {
        assert_eq!(
            String::from_utf8_lossy(&got[p]),
            String::from_utf8_lossy(bytes),
            "{p}"
        );
    }
}

/// The pages an `ingest --show --json` lists, as (path, action).
fn page_actions(shown: &Value) -> Vec<(String, String)> {
    shown["page_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["path"].as_str().unwrap().into(),
                p["action"].as_str().unwrap().into(),
            )
        })
        .collect()
}

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(p, a)| (p.to_string(), a.to_string()))
        .collect()
}

#[test]
fn show_lists_the_two_pages_created_and_the_one_changed() {
    // Captures that feed no collection: the batch's pages are the agent's three.
    let v = vault_with(
        false,
        &["2026-04-10\nalpha: plain", "2026-04-12\nbravo: plain"],
    );
    let f = ingest(&v);
    assert_eq!(f["lint_delta"], serde_json::json!([]), "{f}");
    let d = v.run(&["ingest", "--show", "1", "--json"]).ok().json();
    assert_eq!(
        page_actions(&d),
        owned(&[
            ("wiki/concepts/Alpha.md", "created"),
            ("wiki/concepts/Bravo.md", "created"),
            ("wiki/concepts/Old.md", "changed"),
        ])
    );
    assert_eq!(d["state"], "completed");
    assert_eq!(d["pages"]["created"], 2);
    assert_eq!(d["pages"]["changed"], 1);
    let entries = d["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["first_line"], "alpha: plain");
    assert_eq!(entries[0]["archived_to"], "raw/inbox/2026-04-10.md");
    let marker = entries[1]["marker"].as_str().unwrap();
    assert!(
        v.read("raw/inbox/2026-04-12.md").contains(marker),
        "the marker shown is the block's"
    );

    let mut s = insta::Settings::clone_current();
    s.add_filter(r"\d{4}-\d\d-\d\d \d\d:\d\d", "[WHEN]");
    s.bind(|| {
        snapshot!(v, v.run(&["ingest", "--show", "1"]).ok().stdout);
        snapshot!(v, v.run(&["ingest", "--list"]).ok().stdout);
    });
}

#[test]
fn list_page_is_a_page_history_across_three_ingests() {
    let v = TestVault::new();
    v.page("wiki/concepts/Other.md", "Other", "Other page. Two. Three.");
    let cycle = |capture: &str, work: &dyn Fn()| {
        v.capture(&[capture]);
        v.run(&["ingest", "--prepare"]).ok();
        work();
        v.run(&["ingest", "--finalize"]).ok();
    };
    cycle("one", &|| {
        v.page("wiki/concepts/Topic.md", "Topic", "First. Two. Three.");
    });
    cycle("two", &|| {
        v.page(
            "wiki/concepts/Other.md",
            "Other",
            "Other page, edited. Two. Three.",
        );
    });
    cycle("three", &|| {
        v.page(
            "wiki/concepts/Topic.md",
            "Topic",
            "Second version. Two. Three.",
        );
    });
    cycle("four", &|| {
        std::fs::remove_file(v.path("wiki/concepts/Topic.md")).unwrap();
    });
    // The page is gone: its history is still asked for by its name.
    let l = v
        .run(&["ingest", "--list", "--page", "Topic", "--json"])
        .ok()
        .json();
    let ids: Vec<i64> = l["ingests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["ingest_id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [4, 3, 1], "{l}");
    assert_eq!(l["paths"], serde_json::json!(["wiki/concepts/Topic.md"]));
    let other = v
        .run(&[
            "ingest",
            "--list",
            "--page",
            "wiki/concepts/Other.md",
            "--json",
        ])
        .ok()
        .json();
    assert_eq!(other["ingests"][0]["ingest_id"], 2, "{other}");
    assert_eq!(other["ingests"].as_array().unwrap().len(), 1);
    let all = v.run(&["ingest", "--list", "--json"]).ok().json();
    assert_eq!(all["ingests"].as_array().unwrap().len(), 4);
    assert_eq!(all["ingests"][0]["pages"]["deleted"], 1);
    let none = v.run(&["ingest", "--list", "--page", "Nowhere"]).code(1);
    assert!(none.stderr.contains("\"Nowhere\""), "{}", none.stderr);
}

fn revert_gives_back_the_vault_before(in_git: bool) {
    let v = vault(in_git);
    let before = files(&v);
    ingest(&v);
    life_goes_on(&v);
    let untouched = files(&v);
    let dry = v
        .run(&["ingest", "--revert", "1", "--dry-run", "--json"])
        .ok();
    assert_same(&files(&v), &untouched);
    let plan = dry.json();
    assert_eq!(plan["dry_run"], true);
    let pages: Vec<&str> = plan["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    // Bravo's URL fed Bookmarks: the page finalize's regen wrote counts as the batch's.
    assert_eq!(
        pages,
        [
            "wiki/collections/Bookmarks.md",
            "wiki/concepts/Alpha.md",
            "wiki/concepts/Bravo.md",
            "wiki/concepts/Old.md"
        ],
        "{plan}"
    );

    let r = v.run(&["ingest", "--revert", "1", "--json"]).ok().json();
    assert_eq!(r["reverted"], true, "{r}");
    assert_eq!(r["entries"].as_array().unwrap().len(), 2);
    assert_same(&files(&v), &expected(&before, &v));

    let shown = v.run(&["ingest", "--show", "1", "--json"]).ok().json();
    assert_eq!(shown["state"], "reverted");
    let again = v.run(&["ingest", "--revert", "1"]).code(1);
    assert!(
        again.stderr.contains("reverted already"),
        "{}",
        again.stderr
    );
    // The entries are back for the next ingest, ahead of the late capture.
    let next = v.run(&["ingest", "--prepare"]).ok().json();
    assert_eq!(next["entries"][0]["content"], "alpha: the first capture");
    assert_eq!(next["entries"][0]["capture_date"], "2026-04-10");
    assert_eq!(
        next["entries"][2]["content"],
        "charlie: captured after the ingest"
    );
    if in_git {
        assert!(r["commit"].is_string(), "{r}");
        let log = git(&v, &v.root, &["log", "--format=%s"]);
        assert_eq!(log.lines().next(), Some("revert: ingest 1"), "{log}");
        // Only what the revert wrote is committed: the page written by hand is not.
        let status = git(&v, &v.root, &["status", "--porcelain"]);
        assert!(status.contains("Hand.md"), "{status}");
        assert!(!status.contains("inbox.md"), "{status}");
    } else {
        assert!(r["commit_skipped"].is_string(), "{r}");
    }
}

#[test]
fn revert_in_a_git_vault_gives_back_the_vault_before_keeping_what_came_after() {
    revert_gives_back_the_vault_before(true);
}

#[test]
fn revert_without_git_gives_back_the_vault_before_keeping_what_came_after() {
    revert_gives_back_the_vault_before(false);
}

#[test]
fn a_page_changed_since_stops_the_revert_before_anything_is_written() {
    let v = vault(false);
    ingest(&v);
    // A later ingest changes Alpha; then Bravo is edited by hand.
    v.capture(&["delta: later"]);
    v.run(&["ingest", "--prepare"]).ok();
    v.page(
        "wiki/concepts/Alpha.md",
        "Alpha",
        "Alpha, rewritten. Two. Three.",
    );
    v.run(&["ingest", "--finalize"]).ok();
    let bravo = v.read("wiki/concepts/Bravo.md");
    v.write("wiki/concepts/Bravo.md", format!("{bravo}\nA hand edit.\n"));
    let before = files(&v);

    for dry in [true, false] {
        let mut args = vec!["ingest", "--revert", "1", "--json"];
        if dry {
            args.push("--dry-run");
        }
        let r = v.run(&args).code(1);
        let j = r.json();
        assert_eq!(j["reverted"], false);
        let conflicts: Vec<(String, String)> = j["conflicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["path"].as_str().unwrap().into(),
                    c["changed_by"].as_str().unwrap().into(),
                )
            })
            .collect();
        assert_eq!(
            conflicts,
            [
                ("wiki/concepts/Alpha.md".to_string(), "ingest 2".to_string()),
                (
                    "wiki/concepts/Bravo.md".to_string(),
                    "edited after ingest 1, not by an ingest".to_string()
                ),
            ],
            "dry run {dry}"
        );
        assert!(r.stderr.contains("was not reverted"), "{}", r.stderr);
        assert_same(&files(&v), &before);
    }
    let text = v.run(&["ingest", "--revert", "1"]).code(1).stdout;
    assert!(
        text.contains(
            "wiki/concepts/Alpha.md  created by the ingest, since then changed by ingest 2"
        ),
        "{text}"
    );
    // Reverting the later ingest first is the way out; then ingest 1's only conflict is the
    // hand edit.
    v.run(&["ingest", "--revert", "2"]).ok();
    let j = v.run(&["ingest", "--revert", "1", "--json"]).code(1).json();
    assert_eq!(j["conflicts"].as_array().unwrap().len(), 1, "{j}");
}

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

#[test]
fn an_undated_capture_goes_back_with_its_capture_date() {
    let v = TestVault::new();
    v.capture(&["undated capture"]);
    v.run(&["ingest", "--prepare"]).ok();
    v.run(&["ingest", "--finalize"]).ok();
    v.run(&["ingest", "--revert", "1"]).ok();
    let inbox = v.read("inbox.md");
    assert!(
        inbox.ends_with(&format!(
            "---\n\n{}\nundated capture\n---\n",
            crate::harness::TODAY
        )),
        "{inbox}"
    );
    assert!(
        !v.path(&format!("raw/inbox/{}.md", crate::harness::TODAY))
            .exists()
    );
}

#[test]
fn ingests_that_cannot_be_reverted_say_why() {
    let v = vault(false);
    let id0 = v.run(&["ingest", "--revert", "0"]).code(2);
    assert!(id0.stderr.contains("no ingest id"), "{}", id0.stderr);
    let none = v.run(&["ingest", "--revert", "7"]).code(1);
    assert!(
        none.stderr.contains("there is no ingest 7"),
        "{}",
        none.stderr
    );
    v.run(&["ingest", "--prepare"]).ok();
    let open = v.run(&["ingest", "--revert", "1"]).code(1);
    assert!(open.stderr.contains("still open"), "{}", open.stderr);
    v.run(&["ingest", "--abort"]).ok();
    let aborted = v.run(&["ingest", "--revert", "1"]).code(1);
    assert!(aborted.stderr.contains("aborted"), "{}", aborted.stderr);
    v.run(&["ingest", "--prepare"]).ok();
    v.run(&["ingest", "--finalize"]).ok();
    // An ingest finalized by a sparks before provenance has no snapshot.
    crate::harness::db(&v)
        .execute("DELETE FROM ingest_provenance WHERE ingest_id = 2", [])
        .unwrap();
    let old = v.run(&["ingest", "--revert", "2"]).code(1);
    assert!(old.stderr.contains("earlier sparks"), "{}", old.stderr);
    let shown = v.run(&["ingest", "--show", "2"]).ok().stdout;
    assert!(shown.contains("not recorded"), "{shown}");
}

/// A revert killed after `step`, then run again (the manifest left as it is, rebuilt or
/// deleted in between), ends where an uninterrupted one ends, with one revert commit and no
/// entry put back twice: its journal in `.sparks/` holds all it needs.
fn revert_killed_after(step: &str) {
    let make = || {
        let v = vault(true);
        ingest(&v);
        life_goes_on(&v);
        v
    };
    let clean = make();
    clean.run(&["ingest", "--revert", "1"]).ok();
    for disturb in [Disturb::Nothing, Disturb::Rebuild, Disturb::DeleteManifest] {
        revert_killed_after_then(step, disturb, &make, &clean);
    }
}

fn revert_killed_after_then(
    step: &str,
    disturb: Disturb,
    make: &dyn Fn() -> TestVault,
    clean: &TestVault,
) {
    let v = make();
    with_fault(&v, &["ingest", "--revert", "1"], &format!("revert.{step}"));
    disturb.apply(&v);
    let status = v.run(&["status"]).ok().stdout;
    assert!(status.contains("sparks ingest --revert 1"), "{status}");
    let blocked = v.run(&["ingest", "--prepare"]).code(1);
    assert!(
        blocked.stderr.contains("was interrupted"),
        "{}",
        blocked.stderr
    );
    let r = v.run(&["ingest", "--revert", "1", "--json"]).ok().json();
    assert_eq!(
        (r["reverted"].clone(), r["resumed"].clone()),
        (true.into(), true.into())
    );
    assert_same(&files(&v), &files(clean));
    assert_eq!(
        v.read("inbox.md").matches("alpha: the first").count(),
        1,
        "{step} then {disturb:?}"
    );
    let log = git(&v, &v.root, &["log", "--format=%s"]);
    assert_eq!(log.matches("revert: ingest 1").count(), 1, "{log}");
    assert!(crate::harness::run_records(&v).is_empty());
    assert!(v.run(&["ingest", "--prepare"]).ok().json()["ingest_id"].is_i64());
}

#[test]
fn a_revert_killed_after_the_inbox_completes_when_run_again() {
    revert_killed_after("inbox");
}

#[test]
fn a_revert_killed_after_the_archive_completes_when_run_again() {
    revert_killed_after("archive");
}

#[test]
fn a_revert_killed_after_the_pages_completes_when_run_again() {
    revert_killed_after("pages");
}

#[test]
fn a_revert_killed_after_the_commit_completes_when_run_again() {
    revert_killed_after("commit");
}

#[test]
fn an_inbox_that_cannot_be_read_stops_the_revert_before_it_writes() {
    let v = vault(false);
    ingest(&v);
    v.write("inbox.md", "captures without any separator\n");
    let before = files(&v);
    let r = v.run(&["ingest", "--revert", "1"]).code(1);
    assert!(r.stderr.contains("separator"), "{}", r.stderr);
    assert_same(&files(&v), &before);
    // Nothing was journaled: other commands still write.
    v.run(&["tasks", "add", "--section", "S", "--text", "t"])
        .ok();
}

/// An ingest that adds a task and creates `Zebra`, then a `done`, then an `mv` or a `merge`:
/// the revert is refused, naming each later command, newest first, and how to undo it; done
/// that way, the revert goes through.
#[test]
fn a_revert_stopped_by_later_commands_names_them_and_the_order_to_undo_in() {
    let v = vault(true);
    v.run(&["ingest", "--prepare"]).ok();
    v.page(
        "wiki/concepts/Zebra.md",
        "Zebra",
        "# Zebra\n\nA zebra. Two. Three.",
    );
    v.run(&["tasks", "add", "--section", "Home", "--text", "Email Dana"])
        .ok();
    v.run(&["ingest", "--finalize"]).ok();
    v.run(&["done", "email dana"]).ok();
    let r = v.run(&["ingest", "--revert", "1"]).code(1);
    assert!(
        r.stdout.contains(
            "wiki/collections/Tasks.md  changed by the ingest, since then ticked \"Email Dana\" by `done`"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("tick \"Email Dana\" open again in wiki/collections/Tasks.md"),
        "{}",
        r.stderr
    );
    // The mv comes after the done: it is named first, with its commit.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let mv = v.run(&["mv", "Zebra", "Zebras", "--json"]).ok().json();
    let sha = mv["commit"].as_str().unwrap().to_string();
    let j = v.run(&["ingest", "--revert", "1", "--json"]).code(1).json();
    let conflicts = j["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 2, "{j}");
    assert_eq!(conflicts[0]["path"], "wiki/concepts/Zebra.md");
    assert_eq!(
        conflicts[0]["later"],
        serde_json::json!({
            "command": "mv",
            "undo": {"action": "move", "page": "wiki/concepts/Zebras.md", "new": "wiki/concepts/Zebra.md"},
            "commit": sha
        })
    );
    assert_eq!(conflicts[1]["later"]["command"], "done");
    assert_eq!(
        conflicts[1]["later"]["undo"],
        serde_json::json!({"action": "untick", "path": "wiki/collections/Tasks.md", "tasks": ["Email Dana"]})
    );
    let text = v.run(&["ingest", "--revert", "1"]).code(1);
    snapshot!(
        v,
        format!("{}{}", text.stdout, text.stderr).replace(&sha[..7], "[SHORT SHA]")
    );
    // Undone as the hint says, newest first, the revert goes through.
    git(&v, &v.root, &["revert", "--no-edit", &sha]);
    let tasks = v.read("wiki/collections/Tasks.md");
    v.write(
        "wiki/collections/Tasks.md",
        tasks.replace("- [x] Email Dana", "- [ ] Email Dana"),
    );
    let done = v.run(&["ingest", "--revert", "1", "--json"]).ok().json();
    assert_eq!(done["reverted"], true, "{done}");
    assert!(!v.path("wiki/concepts/Zebra.md").exists());
    assert!(!v.path("wiki/concepts/Zebras.md").exists());
}

#[test]
fn a_revert_stopped_by_a_later_merge_names_it() {
    let v = vault(false);
    v.run(&["ingest", "--prepare"]).ok();
    v.page("wiki/concepts/Zebra.md", "Zebra", "Stripes. Two. Three.");
    v.run(&["ingest", "--finalize"]).ok();
    v.run(&["merge", "Zebra", "Old"]).ok();
    let j = v.run(&["ingest", "--revert", "1", "--json"]).code(1).json();
    assert_eq!(
        j["conflicts"][0]["changed_by"], "merged into wiki/concepts/Old.md by `merge`",
        "{j}"
    );
    assert_eq!(
        j["conflicts"][0]["later"]["commit"],
        Value::Null,
        "no git here"
    );
    let r = v.run(&["ingest", "--revert", "1"]).code(1);
    assert!(
        r.stderr.contains(
            "put wiki/concepts/Zebra.md back (from a backup) and take its section out of \
             wiki/concepts/Old.md: no command takes a merge back"
        ),
        "{}",
        r.stderr
    );
}
