//! Provenance, undo and the strict gate (issue 19): what each ingest did (`ingest --show`,
//! `--list --page`), taking an ingest back (`--revert`) with and without git, and the later
//! changes that stop it; the lint delta and `--strict` are in `provenance_strict.rs`, the
//! reverts that cannot be simple (undated captures, refusals, a revert killed after each of its
//! steps) in `provenance_revert.rs`.

use crate::harness::{TestVault, files, git};
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
pub(crate) fn vault(in_git: bool) -> TestVault {
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
pub(crate) fn agent_writes(v: &TestVault) {
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
pub(crate) fn ingest(v: &TestVault) -> Value {
    v.run(&["ingest", "--prepare"]).ok();
    agent_writes(v);
    v.run(&["ingest", "--finalize", "--json"]).ok().json()
}

/// After the ingest: a late capture and a page written by hand.
pub(crate) fn life_goes_on(v: &TestVault) {
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

pub(crate) fn assert_same(got: &BTreeMap<String, Vec<u8>>, want: &BTreeMap<String, Vec<u8>>) {
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
pub(crate) fn page_actions(shown: &Value) -> Vec<(String, String)> {
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

pub(crate) fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
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
