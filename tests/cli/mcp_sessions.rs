//! `sparks serve` over a session: a finalize that fails part way and writes in parallel, files
//! written after the last scan or after the session started, a remote URL's credentials never
//! told, and a capture the manifest cannot record.

use crate::harness::{self, TestVault};
use crate::mcp::{
    Step, call, is_error, refused, replay, run_client, run_client_with_stderr, text, with_test_env,
};
use serde_json::{Value, json};

fn git_init(v: &TestVault) {
    let out = with_test_env("git", v)
        .args(["init", "-q"])
        .current_dir(&v.root)
        .output()
        .expect("git init");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_finalize_that_fails_part_way_says_what_was_done_and_parallel_writes_all_land() {
    // A repository without an identity: finalize archives, rewrites the inbox and scans, then
    // cannot commit.
    let twins = [TestVault::new(), TestVault::new()];
    for v in &twins {
        git_init(v);
        v.capture(&["first", "second"]);
    }
    let [mcp, cli] = twins;
    let texts: Vec<String> = (1..=8).map(|i| format!("task number {i}")).collect();
    let steps = vec![
        call(
            "sparks_prepare_ingest",
            json!({}),
            &["ingest", "--prepare"],
            0,
        ),
        call(
            "sparks_finalize_ingest",
            json!({}),
            &["ingest", "--finalize", "--json"],
            1,
        ),
        call(
            "sparks_ingest_status",
            json!({}),
            &["ingest", "--status"],
            0,
        ),
        call(
            "sparks_prepare_ingest",
            json!({}),
            &["ingest", "--prepare"],
            3,
        ),
        Step::Parallel(
            texts
                .iter()
                .map(|t| ("sparks_tasks_add", json!({"section": "Now", "text": t})))
                .collect(),
        ),
    ];
    let records = run_client(&mcp, &steps, false);
    let finalize = records
        .iter()
        .find(|r| r["step"] == 1)
        .expect("finalize ran");
    assert_eq!(finalize["tool"], "sparks_finalize_ingest");
    let t = text(&finalize["result"]);
    assert!(
        t.starts_with("finalize of ingest 1 stopped after plan, archive, inbox, scan"),
        "{t}"
    );
    assert!(
        t.contains("\n  caused by: ") && t.contains("\nhint: "),
        "{t}"
    );
    replay(&mcp, &cli, &steps, &records);
    let tasks = mcp.read("wiki/collections/Tasks.md");
    for t in &texts {
        assert_eq!(
            tasks.matches(&format!("- [ ] {t}\n")).count(),
            1,
            "{t}:\n{tasks}"
        );
    }
}

/// Two scanned vaults: one for the server, one for the commands it must agree with.
fn scanned_twins() -> [TestVault; 2] {
    let twins = [TestVault::new(), TestVault::new()];
    for v in &twins {
        v.run(&["scan"]).ok();
    }
    twins
}

/// The JSON result of a scenario's step.
fn result_of(records: &[Value], step: usize) -> Value {
    let r = records
        .iter()
        .find(|r| r["step"] == step)
        .unwrap_or_else(|| panic!("step {step} ran"));
    serde_json::from_str::<Value>(&text(&r["result"])).expect("a JSON result")
}

#[test]
fn regen_and_affected_see_a_file_written_after_the_last_scan() {
    let [mcp, cli] = scanned_twins();
    let steps = vec![
        // Nobody scans after this write.
        Step::Write {
            path: "raw/quotes/fresh.md",
            content: "> Simplicity is prerequisite for reliability.\n— Edsger Dijkstra\n".into(),
        },
        call("sparks_affected", json!({}), &["affected", "--json"], 0),
        call(
            "sparks_collections_regen",
            json!({}),
            &["collections", "regen", "--json"],
            0,
        ),
    ];
    let records = run_client(&mcp, &steps, false);
    let result = |step: usize| result_of(&records, step);
    assert_eq!(
        result(1)["reason"]["Quotes"],
        json!(["raw/quotes/fresh.md"])
    );
    let regen = result(2);
    let quotes = regen["collections"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["name"] == "Quotes")
        .unwrap_or_else(|| panic!("Quotes was regenerated: {regen}"));
    assert_eq!(quotes["status"], "written", "{regen}");
    assert!(
        mcp.read("wiki/collections/Quotes.md")
            .contains("Simplicity is prerequisite"),
        "the quote reached the page"
    );
    replay(&mcp, &cli, &steps, &records);
}

#[test]
fn a_page_written_after_the_session_started_is_in_every_answer() {
    let [mcp, cli] = scanned_twins();
    let steps = vec![
        call("sparks_status", json!({}), &["status", "--json"], 0),
        // Nobody scans after this write; the server's watcher (or the call's own refresh) sees it.
        Step::Write {
            path: "wiki/concepts/Latecomer.md",
            content: harness::page_text("Latecomer", "raw/inbox/2026-05-01.md", "Came late."),
        },
        call(
            "sparks_query",
            json!({"resolve": "Latecomer"}),
            &["query", "--resolve", "Latecomer", "--json"],
            0,
        ),
        call(
            "sparks_search",
            json!({"query": "late"}),
            &["search", "late", "--json"],
            0,
        ),
    ];
    let records = run_client(&mcp, &steps, false);
    let result = |step: usize| result_of(&records, step);
    assert_eq!(result(2)["resolves_to"], "wiki/concepts/Latecomer.md");
    assert_eq!(result(3)["total"], 1, "{}", result(3));
    replay(&mcp, &cli, &steps, &records);
}

#[test]
fn sparks_sync_never_tells_a_remote_url_s_credentials() {
    const SECRET: &str = "s3cr3tT0ken";
    let v = TestVault::new();
    harness::commit_all(&v);
    // Port 1: the connection is refused at once.
    let url = format!("http://user:{SECRET}@127.0.0.1:1/x.git");
    harness::git(&v, &v.root, &["remote", "add", "origin", &url]);
    let steps = vec![
        refused("sparks_sync", json!({}), "cannot fetch from origin"),
        refused("sparks_sync", json!({"dry_run": true}), "cannot fetch"),
        refused("sparks_sync", json!({"remote": "origin"}), "cannot fetch"),
    ];
    let (records, stderr) = run_client_with_stderr(&v, &steps, false);
    let calls: Vec<&Value> = records.iter().filter(|r| r["kind"] == "call").collect();
    assert_eq!(calls.len(), 3, "{records:?}");
    for r in calls {
        let text = text(&r["result"]);
        assert!(is_error(&r["result"]), "{r}");
        assert!(!text.contains(SECRET), "the token was told: {text}");
        assert!(text.contains("http://***@127.0.0.1:1/x.git"), "{text}");
    }
    assert!(
        !stderr.contains(SECRET),
        "the token reached stderr:\n{stderr}"
    );
}

/// `sparks_capture` whose entry reached the inbox but that the manifest could not record (held
/// by another process past the 30 s a write waits) answers with the capture and a warning, not
/// a tool error: an agent that took an error for "not captured" would capture it again.
#[test]
fn sparks_capture_the_manifest_cannot_record_answers_with_a_warning() {
    let v = TestVault::new();
    v.run(&["scan"]).ok();
    let held = harness::db(&v);
    held.execute_batch("BEGIN IMMEDIATE").unwrap();
    let steps = vec![call("sparks_capture", json!({"text": "kept once"}), &[], 0)];
    let records = run_client(&v, &steps, false);
    held.execute_batch("ROLLBACK").unwrap();
    let calls: Vec<&Value> = records.iter().filter(|r| r["kind"] == "call").collect();
    assert_eq!(calls.len(), 1, "{records:?}");
    assert!(!is_error(&calls[0]["result"]), "{}", calls[0]);
    let captured: Value = serde_json::from_str(&text(&calls[0]["result"])).unwrap();
    assert_eq!(captured["content"], "kept once", "{captured}");
    let warning = captured["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains("the manifest could not record it")
            && warning.contains("database is locked")
            && warning.ends_with("do not capture it again"),
        "{captured}"
    );
    assert_eq!(v.read("inbox.md").matches("kept once").count(), 1);
}
