//! `sparks sync` merging Sparks' own files made on two devices: captures exchanged once each, a
//! capture made while the other device ingested, two ingests of one day (archive, log, tasks,
//! index without markers), tasks done and added, and a plain `git pull` merging by the same
//! rules once `init` routed the files to the merge driver.

use crate::harness::{TestVault, git};
use crate::sync::{Devices, clean, head, inbox, no_markers, sync};

/// Add an open task under Garden with `sparks tasks add`.
fn task(v: &TestVault, text: &str) {
    v.run(&["tasks", "add", "--section", "Garden", "--text", text])
        .ok();
}

/// Capture `text` with `sparks capture`.
fn capture(v: &TestVault, text: &str) {
    v.run(&["capture", text]).ok();
}

/// An ingest of everything in the inbox: prepare, a page for it, a log block, finalize.
fn ingest(v: &TestVault, page: &str, log: &str) {
    v.run(&["ingest", "--prepare"]).ok();
    v.page(&format!("wiki/concepts/{page}.md"), page, "From an ingest.");
    let mut text = v.read("wiki/log.md");
    text.push_str(&format!(
        "\n## [{}] ingest | {log}\n\n- wrote [[{page}]]\n",
        crate::harness::TODAY
    ));
    v.write("wiki/log.md", text);
    v.run(&["ingest", "--finalize"]).ok();
}

#[test]
fn captures_made_on_both_devices_are_exchanged_once_each() {
    let d = Devices::new();
    capture(&d.a, "Seen on the laptop");
    capture(&d.b, "Seen on the phone");
    sync(&d.a);
    let r = sync(&d.b);
    assert_eq!(
        r["merged"],
        serde_json::json!(["inbox.md"]),
        "merged by entries: {r}"
    );
    sync(&d.a);
    for v in [&d.a, &d.b] {
        // B merged: its own capture first, then A's; A took B's merge as it is.
        assert_eq!(inbox(v), ["Seen on the phone", "Seen on the laptop"]);
        no_markers(v);
    }
}

#[test]
fn a_capture_made_while_the_other_device_ingested_survives_and_archived_ones_stay_archived() {
    let d = Devices::new();
    capture(&d.a, "First idea");
    capture(&d.a, "Second idea");
    sync(&d.a);
    sync(&d.b);
    assert_eq!(inbox(&d.b), ["First idea", "Second idea"]);
    // A ingests both while B captures a third.
    ingest(&d.a, "Ideas", "two ideas");
    capture(&d.b, "Third idea, on the phone");
    sync(&d.a);
    sync(&d.b);
    assert_eq!(
        inbox(&d.b),
        ["Third idea, on the phone"],
        "A's archived entries did not come back"
    );
    let archive = d.b.read(&format!("raw/inbox/{}.md", crate::harness::TODAY));
    assert!(
        archive.contains("First idea") && archive.contains("Second idea"),
        "{archive}"
    );
    sync(&d.a);
    assert_eq!(inbox(&d.a), ["Third idea, on the phone"]);
    // B ingests it; nothing comes back on either device.
    ingest(&d.b, "Phone", "the phone's idea");
    sync(&d.b);
    sync(&d.a);
    for v in [&d.a, &d.b] {
        assert!(inbox(v).is_empty(), "{:?}", inbox(v));
        no_markers(v);
        clean(v);
    }
}

#[test]
fn two_ingests_of_the_same_day_merge_archive_log_tasks_and_index_without_markers() {
    let d = Devices::new();
    capture(&d.a, "Laptop capture");
    task(&d.a, "Water the beans");
    ingest(&d.a, "Laptop", "the laptop's batch");
    capture(&d.b, "Phone capture");
    task(&d.b, "Buy seeds");
    ingest(&d.b, "Phone", "the phone's batch");
    sync(&d.a);
    let r = sync(&d.b);
    let merged: Vec<&str> = r["merged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let archive = format!("raw/inbox/{}.md", crate::harness::TODAY);
    for f in [archive.as_str(), "wiki/log.md", "wiki/collections/Tasks.md"] {
        assert!(merged.contains(&f), "{f} merged by its rule: {r}");
    }
    assert_eq!(r["conflicts"], serde_json::json!([]), "{r}");
    sync(&d.a);
    for v in [&d.a, &d.b] {
        no_markers(v);
        clean(v);
        let archive = v.read(&archive);
        for c in ["Laptop capture", "Phone capture"] {
            assert_eq!(
                archive.matches(c).count(),
                1,
                "{c} archived once:\n{archive}"
            );
        }
        let log = v.read("wiki/log.md");
        for b in ["the laptop's batch", "the phone's batch"] {
            assert_eq!(log.matches(b).count(), 1, "{b} logged once:\n{log}");
        }
        let tasks = v.read("wiki/collections/Tasks.md");
        for t in ["- [ ] Water the beans", "- [ ] Buy seeds"] {
            assert_eq!(tasks.matches(t).count(), 1, "{t}:\n{tasks}");
        }
        let index = v.read("wiki/index.md");
        assert!(
            index.contains("[[Laptop]]") && index.contains("[[Phone]]"),
            "the index lists both pages:\n{index}"
        );
        assert!(inbox(v).is_empty());
    }
    assert_eq!(head(&d.a, &d.a.root), head(&d.b, &d.b.root));
}

#[test]
fn a_task_done_on_one_device_and_another_added_on_the_other() {
    let d = Devices::new();
    task(&d.a, "Water the beans");
    sync(&d.a);
    sync(&d.b);
    d.a.run(&["done", "water"]).ok();
    task(&d.b, "Buy seeds");
    sync(&d.a);
    sync(&d.b);
    sync(&d.a);
    for v in [&d.a, &d.b] {
        let tasks = v.read("wiki/collections/Tasks.md");
        assert!(
            tasks.contains("- [x] Water the beans"),
            "done on A stays done:\n{tasks}"
        );
        assert!(
            tasks.contains("- [ ] Buy seeds"),
            "added on B is kept:\n{tasks}"
        );
        let open = v.run(&["tasks", "list", "--json"]).ok().json();
        assert_eq!(open["tasks"].as_array().map(Vec::len), Some(1), "{open}");
    }
}

#[test]
fn after_one_sync_a_plain_git_pull_merges_sparks_files_by_the_same_rules() {
    let d = Devices::new();
    capture(&d.a, "First idea");
    capture(&d.a, "Second idea");
    sync(&d.a);
    // B's one sync (in Devices::new) registered the driver there; the attributes came with
    // A's commit.
    sync(&d.b);
    let attributes = d.b.read(".gitattributes");
    assert!(
        attributes.contains("/inbox.md merge=sparks"),
        "{attributes}"
    );
    let driver = git(
        &d.b,
        &d.b.root,
        &["config", "--local", "merge.sparks.driver"],
    );
    assert!(driver.contains(" merge-driver %O %A %B %P"), "{driver}");
    // A ingests and pushes with git alone; B captures and pulls with git alone.
    ingest(&d.a, "Ideas", "two ideas");
    git(&d.a, &d.a.root, &["push", "-q"]);
    capture(&d.b, "Third idea, on the phone");
    git(&d.b, &d.b.root, &["commit", "-qam", "a capture"]);
    git(&d.b, &d.b.root, &["config", "pull.rebase", "false"]);
    git(&d.b, &d.b.root, &["pull", "-q", "--no-edit"]);
    assert_eq!(
        inbox(&d.b),
        ["Third idea, on the phone"],
        "A's archived entries did not come back"
    );
    no_markers(&d.b);
    clean(&d.b);
    let archive = d.b.read(&format!("raw/inbox/{}.md", crate::harness::TODAY));
    assert!(archive.contains("First idea"), "{archive}");
    // The driver refuses a file it has no rule for: git keeps its own conflict there.
    let out =
        d.b.cmd(&[
            "merge-driver",
            "/dev/null",
            "/dev/null",
            "/dev/null",
            "wiki/concepts/Ideas.md",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no rule for this file"));
}

#[test]
fn init_in_a_git_repository_routes_sparks_files_to_the_driver() {
    let v = TestVault::empty();
    std::fs::create_dir_all(&v.root).unwrap();
    git(&v, &v.root, &["init", "-q", "-b", "main"]);
    let r = v
        .run_in(v.dir.path(), &["init", "vault", "--json"])
        .ok()
        .json();
    assert!(
        r["paths_created"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == ".gitattributes"),
        "{r}"
    );
    let attributes = v.read(".gitattributes");
    for line in [
        "/inbox.md merge=sparks",
        "/raw/inbox/*.md merge=sparks",
        "/wiki/log.md merge=sparks",
        "/wiki/collections/Tasks.md merge=sparks",
    ] {
        assert!(
            attributes.lines().any(|l| l == line),
            "{line}:\n{attributes}"
        );
    }
    let driver = git(&v, &v.root, &["config", "--local", "merge.sparks.driver"]);
    assert!(
        driver.starts_with('\'') && driver.contains("merge-driver %O %A %B %P"),
        "{driver}"
    );
    // Outside git, init writes no attributes.
    let plain = TestVault::new();
    assert!(!plain.path(".gitattributes").exists());
}
