//! Races, each repeated SPARKS_STRESS_ROUNDS times (a short default per test for `make test`;
//! `make stress` runs them with many more): concurrent prepares, a human appending to the
//! inbox while finalize rewrites it, and concurrent `tasks add` and `done` while a human
//! appends to `Tasks.md`. After every round the invariants are checked: one ingest open,
//! nothing lost, nothing done twice, nothing half-written.

use crate::harness::{self, Run, TestVault, finish};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

/// How many rounds a race runs: `SPARKS_STRESS_ROUNDS` if set, else `short`.
fn rounds(short: usize) -> usize {
    harness::number_from_env("SPARKS_STRESS_ROUNDS", short)
}

fn status(v: &TestVault) -> Value {
    v.run(&["ingest", "--status"]).ok().json()
}

/// Append `text` in one `write`, as an editor appending to the file would.
fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    f.write_all(text.as_bytes()).expect("append");
}

#[test]
fn concurrent_prepares_open_exactly_one_ingest() {
    const RACERS: usize = 8;
    let v = TestVault::new();
    v.capture(&["2026-04-20\nthe one capture", "and another"]);
    for round in 0..rounds(50) {
        let children: Vec<_> = (0..RACERS)
            .map(|_| {
                v.cmd(&["ingest", "--prepare"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn sparks")
            })
            .collect();
        let runs: Vec<Run> = children
            .into_iter()
            .map(|c| c.wait_with_output().expect("wait").into())
            .collect();
        let codes: Vec<Option<i32>> = runs.iter().map(|r| r.code).collect();
        let winners = codes.iter().filter(|c| **c == Some(0)).count();
        let waiting = codes.iter().filter(|c| **c == Some(3)).count();
        assert_eq!(
            (winners, waiting),
            (1, RACERS - 1),
            "round {round}: {runs:#?}"
        );
        let expected = round as i64 + 1;
        for r in &runs {
            let batch = r.json();
            assert_eq!(batch["ingest_id"], expected, "round {round}: {r:?}");
            assert_eq!(batch["total"], 2, "round {round}: {r:?}");
        }
        v.run(&["ingest", "--abort"]).ok();
    }
    assert!(status(&v)["ingest_id"].is_null());
}

#[test]
fn a_capture_appended_during_finalize_is_not_lost() {
    const MAX_APPENDS: usize = 15;
    let v = TestVault::new();
    let inbox = v.path("inbox.md");
    for round in 0..rounds(12) {
        let mine: Vec<String> = (0..3)
            .map(|i| format!("round {round} prepared {i}"))
            .collect();
        let refs: Vec<&str> = mine.iter().map(String::as_str).collect();
        v.capture(&refs);
        // Everything in the inbox, the previous rounds' appends included.
        let batch = v.run(&["ingest", "--prepare", "--limit", "0"]).ok().json();
        let prepared: Vec<String> = batch["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .map(|e| e["content"].as_str().expect("content").to_string())
            .collect();
        assert!(prepared.ends_with(&mine), "{batch}");

        let mut child = v
            .cmd(&["ingest", "--finalize", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn finalize");
        // Stagger the first append across rounds so that appends land at different moments
        // of finalize: before its plan, during the rewrite, after it. At most MAX_APPENDS per
        // round, so that a slow finalize cannot make the next round's batch grow without end.
        std::thread::sleep(Duration::from_millis((round % 4) as u64 * 5));
        let mut appended = Vec::new();
        while appended.len() < MAX_APPENDS {
            let text = format!("round {round} appended {}", appended.len());
            append(&inbox, &format!("{text}\n---\n"));
            appended.push(text);
            if child.try_wait().expect("try_wait").is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let r = finish(child, &format!("round {round}: finalize"));
        match r.code {
            Some(0) => {}
            // Appends every 2 ms can outrun the rewrite; finalize then gives up, changing
            // nothing, and a quiet retry completes it.
            Some(1) if r.stderr.contains("changed 20 times") => {
                v.run(&["ingest", "--finalize"]).ok();
            }
            _ => panic!("round {round}: finalize failed: {r:?}"),
        }
        let text = v.read("inbox.md");
        for a in &appended {
            assert_eq!(
                text.matches(&format!("\n{a}\n")).count(),
                1,
                "round {round}: {a} lost:\n{text}"
            );
        }
        for p in &prepared {
            assert!(
                !text.contains(&format!("\n{p}\n")),
                "round {round}: {p} still in the inbox:\n{text}"
            );
        }
        assert!(status(&v)["ingest_id"].is_null());
    }
}

const TASKS: &str = "wiki/collections/Tasks.md";

/// Several `tasks add` and `done` processes at once, and a human appending open tasks to the
/// end of `Tasks.md` in the meantime: every added task is there exactly once, every completed
/// one is marked once and no longer open, every appended line is still there, and no
/// temporary file is left behind.
#[test]
fn concurrent_tasks_add_and_done_lose_nothing() {
    const ADDERS: usize = 4;
    const DONERS: usize = 3;
    const APPENDS: usize = 6;
    let v = TestVault::new();
    let tasks = v.path(TASKS);
    for round in 0..rounds(6) {
        // The tasks this round completes, added one by one before the race.
        let old: Vec<String> = (0..DONERS)
            .map(|i| format!("round {round} old {i}"))
            .collect();
        for t in &old {
            v.run(&["tasks", "add", "--section", "Race", "--text", t])
                .ok();
        }
        let new: Vec<String> = (0..ADDERS)
            .map(|i| format!("round {round} new {i}"))
            .collect();
        let spawn = |args: &[&str]| {
            v.cmd(args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn sparks")
        };
        let mut children: Vec<(String, Child)> = Vec::new();
        for i in 0..ADDERS.max(DONERS) {
            if let Some(t) = new.get(i) {
                let args = ["tasks", "add", "--section", "Race", "--text", t];
                children.push((format!("add {t}"), spawn(&args)));
            }
            if let Some(t) = old.get(i) {
                children.push((format!("done {t}"), spawn(&["done", t])));
            }
        }
        // The human appends while the processes run, at moments that shift from round to
        // round.
        std::thread::sleep(Duration::from_millis((round % 3) as u64 * 4));
        let human: Vec<String> = (0..APPENDS)
            .map(|i| format!("round {round} human {i}"))
            .collect();
        for h in &human {
            append(&tasks, &format!("- [ ] {h}\n"));
            std::thread::sleep(Duration::from_millis(3));
        }
        for (what, child) in children {
            finish(child, &format!("round {round}: {what}")).ok();
        }
        let text = v.read(TASKS);
        let count = |line: &str| text.lines().filter(|l| *l == line).count();
        for t in new.iter().chain(&human) {
            assert_eq!(
                count(&format!("- [ ] {t}")),
                1,
                "round {round}: {t}\n{text}"
            );
        }
        for t in &old {
            assert_eq!(
                count(&format!("- [x] {t}")),
                1,
                "round {round}: {t} done\n{text}"
            );
            assert_eq!(
                count(&format!("- [ ] {t}")),
                0,
                "round {round}: {t} open\n{text}"
            );
        }
        assert!(
            text.ends_with('\n'),
            "round {round}: a half-written last line"
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(v.path("wiki/collections"))
        .expect("read wiki/collections")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}
