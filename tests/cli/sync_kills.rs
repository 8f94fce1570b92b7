//! Sync under kills and hand edits (issue 48, items 2-4): every file a sync writes into the
//! work tree is written whole, the sync is recorded before the first one, the rerun finishes
//! it without overwriting what was written since the kill, and nothing else writes meanwhile.

use crate::harness::{TestVault, git};
use crate::sync::{Devices, head, inbox, no_markers, sync};
use serde_json::Value;

/// `sparks sync` on `v`, aborted right after `step` (the test fault hook).
fn sync_killed_after(v: &TestVault, step: &str) {
    let out = v
        .cmd(&["sync"])
        .env("SPARKS_FAULT_AT", step)
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "the sync was to stop after {step}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Each capture once: the entries of both devices' inboxes, sorted.
fn sorted(mut entries: Vec<String>) -> Vec<String> {
    entries.sort();
    entries
}

/// A: three captures, a page and a task, synced; B has not seen them.
fn a_has_news(d: &Devices) {
    for text in [
        "Alpha on the laptop",
        "Beta on the laptop",
        "Gamma on the laptop",
    ] {
        d.a.run(&["capture", text]).ok();
    }
    d.a.page(
        "wiki/concepts/Laptop.md",
        "Laptop",
        "Written on the laptop.",
    );
    d.a.run(&["tasks", "add", "--section", "Garden", "--text", "water"])
        .ok();
    sync(&d.a);
}

#[test]
fn a_kill_inside_a_fast_forward_leaves_files_whole_and_the_rerun_keeps_what_came_since() {
    let d = Devices::new();
    a_has_news(&d);
    let before = d.b.read("inbox.md");
    sync_killed_after(&d.b, "sync.write");

    // The inbox is the old text or the new one, never a part of either.
    let now = d.b.read("inbox.md");
    assert!(
        now == before || now == d.a.read("inbox.md"),
        "inbox.md half written:\n{now}"
    );
    let status: Value = d.b.run(&["status", "--json"]).ok().json();
    assert_eq!(status["unfinished"]["kind"], "sync", "{status}");
    // Nothing else writes while the sync is unfinished, and says what finishes it.
    let r = d.b.run(&["capture", "refused while unfinished"]).code(1);
    assert!(r.stderr.contains("sparks sync"), "{}", r.stderr);
    // A phone app appends to the inbox by itself meanwhile.
    d.b.capture(&["Appended by hand after the kill"]);

    let report = sync(&d.b);
    assert_eq!(report["fast_forward"], true, "{report}");
    let expected = sorted(vec![
        "Alpha on the laptop".into(),
        "Appended by hand after the kill".into(),
        "Beta on the laptop".into(),
        "Gamma on the laptop".into(),
    ]);
    assert_eq!(sorted(inbox(&d.b)), expected);
    assert!(d.b.read("wiki/collections/Tasks.md").contains("water"));
    assert!(d.b.path("wiki/concepts/Laptop.md").exists());
    assert!(d.b.run(&["status", "--json"]).ok().json()["unfinished"].is_null());
    // The hand capture went out with that sync; A has every capture once.
    sync(&d.a);
    assert_eq!(sorted(inbox(&d.a)), expected);
    for v in [&d.a, &d.b] {
        no_markers(v);
    }
}

#[test]
fn a_kill_after_the_files_and_before_the_branch_moves_is_finished_not_committed_as_local() {
    let d = Devices::new();
    a_has_news(&d);
    sync_killed_after(&d.b, "sync.forward");
    d.b.capture(&["Appended by hand"]);
    let report = sync(&d.b);
    // The rerun moved the branch to A's commit, then committed only the hand capture.
    let a_head = head(&d.a, &d.a.root);
    let parent = git(&d.b, &d.b.root, &["rev-parse", "HEAD~1"]);
    assert_eq!(parent.trim(), a_head, "{report}");
    let changed = git(
        &d.b,
        &d.b.root,
        &["show", "--name-only", "--format=", "HEAD"],
    );
    assert_eq!(changed.trim(), "inbox.md", "{report}");
    assert_eq!(
        sorted(inbox(&d.b)),
        sorted(vec![
            "Alpha on the laptop".into(),
            "Appended by hand".into(),
            "Beta on the laptop".into(),
            "Gamma on the laptop".into(),
        ])
    );
}

#[test]
fn a_kill_inside_a_merge_keeps_a_capture_made_after_it_and_loses_none() {
    let d = Devices::new();
    a_has_news(&d);
    d.b.run(&["capture", "Delta on the phone"]).ok();
    d.b.run(&["tasks", "add", "--section", "Garden", "--text", "weed"])
        .ok();
    sync_killed_after(&d.b, "sync.write");
    let status: Value = d.b.run(&["status", "--json"]).ok().json();
    assert_eq!(status["unfinished"]["kind"], "sync", "{status}");
    d.b.capture(&["Epsilon by hand after the kill"]);
    let report = sync(&d.b);
    assert!(report["merge"].is_string(), "{report}");
    sync(&d.a);
    let expected = sorted(vec![
        "Alpha on the laptop".into(),
        "Beta on the laptop".into(),
        "Delta on the phone".into(),
        "Epsilon by hand after the kill".into(),
        "Gamma on the laptop".into(),
    ]);
    for v in [&d.a, &d.b] {
        assert_eq!(sorted(inbox(v)), expected);
        let tasks = v.read("wiki/collections/Tasks.md");
        assert!(tasks.contains("water") && tasks.contains("weed"), "{tasks}");
        no_markers(v);
    }
    assert_eq!(head(&d.a, &d.a.root), head(&d.b, &d.b.root));
}

#[test]
fn lock_files_a_killed_fetch_left_are_cleared() {
    let d = Devices::new();
    a_has_news(&d);
    // What a Sparks killed inside libgit2's fetch leaves: its record and git's lock files.
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let record = format!(r#"{{"owner":"4242xgone","pid":4242,"started_ns":{started}}}"#);
    std::fs::create_dir_all(d.b.path(".sparks")).unwrap();
    std::fs::write(
        d.b.path(".sparks/commit.json"),
        crate::harness::sealed_record(&d.b, "commit.json", &record),
    )
    .unwrap();
    let pack = d.b.path(".git/objects/pack");
    std::fs::create_dir_all(&pack).unwrap();
    for lock in [".git/shallow.lock", ".git/objects/pack/pack-1234.idx.lock"] {
        std::fs::write(d.b.path(lock), "").unwrap();
    }
    sync(&d.b);
    for lock in [".git/shallow.lock", ".git/objects/pack/pack-1234.idx.lock"] {
        assert!(!d.b.path(lock).exists(), "{lock} was left");
    }
    assert!(inbox(&d.b).contains(&"Alpha on the laptop".to_string()));
}

/// Run `args`: it completes, or it is refused (exit 1) naming the unfinished sync.
fn done_or_waits_for_the_sync(v: &TestVault, args: &[&str]) -> bool {
    let r = v.run(args);
    match r.code {
        Some(0) => true,
        Some(1) if r.stderr.contains("sparks sync") => false,
        _ => panic!("{args:?}: {r:?}"),
    }
}

#[test]
fn a_capture_a_task_and_a_finalize_after_a_kill_at_each_sync_step_are_never_lost() {
    // With news of B's own the sync merges; without, it fast-forwards.
    for (step, b_news) in [
        ("sync.commit", true),
        ("sync.write", false),
        ("sync.write", true),
        ("sync.forward", false),
        ("sync.merge", true),
        ("sync.push", true),
    ] {
        let d = Devices::new();
        a_has_news(&d);
        if b_news {
            d.b.run(&["capture", "Phone before the kill"]).ok();
        }
        sync_killed_after(&d.b, step);
        let captured = done_or_waits_for_the_sync(&d.b, &["capture", "Phone after the kill"]);
        let tasked = done_or_waits_for_the_sync(
            &d.b,
            &["tasks", "add", "--section", "Garden", "--text", "prune"],
        );
        let prepared = done_or_waits_for_the_sync(&d.b, &["ingest", "--prepare"]);
        if prepared {
            d.b.run(&["ingest", "--finalize"]).ok();
        }
        sync(&d.b);
        // What waited for the sync is done now.
        if !captured {
            d.b.run(&["capture", "Phone after the kill"]).ok();
        }
        if !tasked {
            d.b.run(&["tasks", "add", "--section", "Garden", "--text", "prune"])
                .ok();
        }
        sync(&d.b);
        sync(&d.a);
        sync(&d.b);
        for v in [&d.a, &d.b] {
            let mut everywhere = inbox(v).join("\n");
            for (_, text) in crate::harness::archive_files(v) {
                everywhere.push_str(&text);
            }
            let mut captures = vec![
                "Alpha on the laptop",
                "Beta on the laptop",
                "Gamma on the laptop",
                "Phone after the kill",
            ];
            if b_news {
                captures.push("Phone before the kill");
            }
            for capture in captures {
                assert_eq!(
                    everywhere.matches(capture).count(),
                    1,
                    "{step}: {capture} once in the inbox or the archive:\n{everywhere}"
                );
            }
            let tasks = v.read("wiki/collections/Tasks.md");
            assert!(
                tasks.contains("water") && tasks.contains("prune"),
                "{step}: {tasks}"
            );
            no_markers(v);
        }
        assert_eq!(head(&d.a, &d.a.root), head(&d.b, &d.b.root), "{step}");
    }
}
