//! `sparks brief`.

use crate::harness::TestVault;
use crate::snapshot;

#[test]
fn the_window_is_calendar_days_ending_today() {
    let v = TestVault::new();
    let mut log = v.read("wiki/log.md");
    log.push_str("\n## [2026-04-24] ingest | too old\n- a\n\n## [2026-04-25] ingest | first day\n- b\n\n## [2026-05-01] ingest | today\n- c\n");
    v.write("wiki/log.md", log)
        .page("wiki/concepts/New.md", "New", "[[Other]]")
        .write(
            "wiki/concepts/Old.md",
            "---\ntitle: Old\ntype: concept\nmaturity: stable\nupdated: 2026-04-01\n---\n",
        )
        .write("raw/ideas/fresh.md", "x")
        .write("raw/inbox/2026-05-01.md", "archives are not new raw files")
        .set_mtime("raw/ideas/fresh.md", "2026-04-30")
        .set_mtime("raw/inbox/2026-05-01.md", "2026-05-01");
    v.run(&["tasks", "add", "--section", "A", "--text", "one"])
        .ok();
    v.run(&["tasks", "add", "--section", "A", "--text", "two"])
        .ok();
    v.run(&["scan"]).ok();
    let j = v.run(&["brief", "--days", "7", "--json"]).ok().json();
    assert_eq!(j["window"]["from"], "2026-04-25");
    let dates: Vec<&str> = j["log_entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["date"].as_str().unwrap())
        .collect();
    assert_eq!(dates, ["2026-05-01", "2026-04-25"]);
    let raw: Vec<&str> = j["new_raw"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(raw, ["raw/ideas/fresh.md"]);
    assert!(
        j["updated_wiki"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["path"] == "wiki/concepts/New.md")
    );
    assert!(
        !j["updated_wiki"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["path"] == "wiki/concepts/Old.md")
    );
    assert_eq!(
        j["revisit"]["seed_orphans"],
        serde_json::json!(["wiki/concepts/New.md"])
    );
    assert_eq!(j["tasks"]["open"], 2);
    assert_eq!(j["tasks"]["first"], serde_json::json!(["one", "two"]));
    let one = v.run(&["brief", "--days", "1", "--json"]).ok().json();
    assert_eq!(one["log_entries"].as_array().unwrap().len(), 1);
    // 0 or less means the default week, as in the original.
    for days in ["0", "-3"] {
        let j = v.run(&["brief", "--days", days, "--json"]).ok().json();
        assert_eq!(j["window"]["days"], 7, "--days {days}");
    }
    // The original's keys sit beside ours.
    assert!(
        j["window"]["since"]
            .as_str()
            .unwrap()
            .starts_with("2026-04-25T00:00:00"),
        "{j}"
    );
    assert!(j["window"]["now"].is_string(), "{j}");
    snapshot!(v, v.run(&["brief"]).ok().stdout);
}

#[test]
fn the_brief_sees_files_written_after_the_last_scan() {
    let v = TestVault::new();
    v.run(&["scan"]).ok();
    v.write("raw/ideas/late.md", "an idea written after the last scan")
        .set_mtime("raw/ideas/late.md", "2026-04-30")
        .page("wiki/concepts/Late.md", "Late", "A page nobody scanned.");
    let j = v.run(&["brief", "--json"]).ok().json();
    let raw: Vec<&str> = j["new_raw"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(raw, ["raw/ideas/late.md"], "{j}");
    let mtime = j["new_raw"][0]["mtime"].as_str().unwrap();
    assert!(
        mtime.starts_with("2026-04-30T") && mtime.ends_with('Z'),
        "{j}"
    );
    let pages = j["updated_wiki"].to_string();
    assert!(pages.contains("wiki/concepts/Late.md"), "{j}");
}

#[test]
fn text_lists_ten_a_group_and_counts_the_rest() {
    let v = TestVault::new();
    for i in 1..=14 {
        v.page(
            &format!("wiki/concepts/Thin{i:02}.md"),
            &format!("Thin {i}"),
            "Short.",
        );
    }
    for i in 1..=7 {
        v.run(&[
            "tasks",
            "add",
            "--section",
            "A",
            "--text",
            &format!("task {i}"),
        ])
        .ok();
    }
    v.run(&["scan"]).ok();
    let text = v.run(&["brief"]).ok().stdout;
    let thin = text
        .split("thin pages: 14\n")
        .nth(1)
        .expect("the thin group is counted");
    let listed: Vec<&str> = thin.lines().take_while(|l| l.starts_with("  ")).collect();
    assert_eq!(listed.len(), 11, "{text}");
    assert_eq!(listed[0], "  wiki/concepts/Thin01.md");
    assert_eq!(listed[10], "  … and 4 more");
    assert!(
        text.contains(
            "open tasks: 7\n  task 1\n  task 2\n  task 3\n  task 4\n  task 5\n  … and 2 more\n"
        ),
        "{text}"
    );
    // JSON keeps every item.
    let j = v.run(&["brief", "--json"]).ok().json();
    assert_eq!(j["revisit"]["thin"].as_array().map(Vec::len), Some(14));
    assert_eq!(j["tasks"]["open"], 7);
}

#[test]
fn days_must_be_a_whole_number_of_days() {
    let v = TestVault::new();
    for bad in ["x", "1.5"] {
        let run = v.run(&["brief", "--days", bad]).code(2);
        assert!(
            run.stderr.contains("expected a whole number of days"),
            "{bad}: {}",
            run.stderr
        );
    }
    let run = v.run(&["brief", "--days", "3661"]).code(2);
    assert!(run.stderr.contains("more than 3660"), "{}", run.stderr);
}
