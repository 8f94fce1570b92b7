//! Crashes: finalize, prepare and abort killed after each of their steps and run again. The
//! races (many prepares at once, a human appending during finalize) are in `races.rs`.

use crate::harness::{Run, TestVault, archive_files, git};
use serde_json::Value;

/// The prepared batch of every crash test: several capture dates, one of them twice.
const BATCH: &[(&str, &str)] = &[
    ("2026-04-10", "alpha: first capture"),
    ("2026-04-10", "bravo: same day as alpha"),
    ("2026-04-12", "charlie: https://example.com/charlie"),
    ("2026-05-01", "delta: undated, so captured today"),
    ("2026-04-15", "- [ ] echo: a task"),
];

/// Captured after prepare: it must stay in the inbox.
const LATE: &str = "foxtrot: captured while the agent worked";

/// A vault that is its own git repository, with an identity.
fn repo_vault() -> TestVault {
    let v = TestVault::new();
    git(&v, &v.root, &["init", "-q"]);
    git(&v, &v.root, &["config", "user.name", "Test"]);
    git(&v, &v.root, &["config", "user.email", "test@example.com"]);
    v
}

fn run_with_fault(v: &TestVault, args: &[&str], step: &str) -> Run {
    v.cmd(args)
        .env("SPARKS_FAULT_AT", step)
        .output()
        .expect("run sparks")
        .into()
}

fn status(v: &TestVault) -> Value {
    v.run(&["ingest", "--status"]).ok().json()
}

/// Prepare [`BATCH`], capture [`LATE`], crash finalize after `step`, finalize again, and check
/// that nothing was lost or archived twice.
fn crash_after(step: &str, step_recorded: Option<&str>) {
    let v = repo_vault();
    let captures: Vec<String> = BATCH.iter().map(|(d, c)| format!("{d}\n{c}")).collect();
    let refs: Vec<&str> = captures.iter().map(String::as_str).collect();
    v.capture(&refs);
    let batch = v.run(&["ingest", "--prepare"]).ok().json();
    let id = batch["ingest_id"].as_i64().expect("an ingest was opened");
    assert_eq!(batch["total"], BATCH.len() as u64);
    v.capture(&[LATE]);

    let crashed = run_with_fault(&v, &["ingest", "--finalize"], &format!("finalize.{step}"));
    assert_eq!(
        crashed.code, None,
        "finalize was killed after {step}: {crashed:?}"
    );
    assert!(
        crashed
            .stderr
            .contains(&format!("fault injected after step finalize.{step}"))
    );
    let open = status(&v);
    assert_eq!(open["ingest_id"], id, "still open after a crash at {step}");
    assert_eq!(
        open["step"].as_str(),
        step_recorded,
        "the crashed step is not recorded: {open}"
    );

    let r = v.run(&["ingest", "--finalize", "--json"]).ok();
    let f = r.json();
    assert_eq!(f["ingest_id"], id);
    assert_eq!(f["resumed"], true, "{f}");
    assert_eq!(f["archived"], BATCH.len() as u64, "{f}");
    assert_eq!(f["remaining"], 1, "{f}");
    assert!(f["commit"].is_string(), "{f}");

    // Every prepared entry is archived exactly once, in the file of its capture date.
    let files = archive_files(&v);
    let all: String = files.iter().map(|(_, t)| t.as_str()).collect();
    let marker_lines: Vec<&str> = all
        .lines()
        .filter(|l| l.starts_with("<!-- sparks: "))
        .collect();
    assert_eq!(
        marker_lines.len(),
        BATCH.len(),
        "after a crash at {step}: {marker_lines:?}"
    );
    // Markers read `<!-- sparks: ingest ID TOKEN entry N blake3 HASH -->`; one token per ingest.
    let token = marker_lines[0]
        .strip_prefix(&format!("<!-- sparks: ingest {id} "))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("marker of ingest {id}: {}", marker_lines[0]))
        .to_string();
    for (i, (date, content)) in BATCH.iter().enumerate() {
        let entry = &batch["entries"][i];
        assert_eq!(entry["content"], *content);
        let marker = format!(
            "<!-- sparks: ingest {id} {token} entry {} blake3 {} -->",
            i + 1,
            entry["hash"].as_str().expect("hash")
        );
        assert_eq!(
            marker_lines.iter().filter(|l| **l == marker).count(),
            1,
            "{marker} in {marker_lines:?}"
        );
        assert_eq!(
            all.matches(content).count(),
            1,
            "{content} archived once after a crash at {step}"
        );
        let (_, text) = files
            .iter()
            .find(|(name, _)| *name == format!("{date}.md"))
            .unwrap_or_else(|| panic!("no archive for {date}: {files:?}"));
        assert!(
            text.contains(&format!("{marker}\n{content}\n")),
            "{date}.md:\n{text}"
        );
    }
    assert!(!all.contains(LATE));

    // The inbox holds exactly the capture made after prepare.
    let inbox = v.read("inbox.md");
    for (_, content) in BATCH {
        assert!(
            !inbox.contains(content),
            "{content} left in the inbox after a crash at {step}"
        );
    }
    assert_eq!(inbox.matches(LATE).count(), 1, "{inbox}");

    // The ingest is complete: nothing is open, and the next prepare takes the late capture.
    assert!(status(&v)["ingest_id"].is_null());
    let next = v.run(&["ingest", "--prepare"]).ok().json();
    assert_eq!(next["ingest_id"], id + 1);
    assert_eq!(next["entries"][0]["content"], LATE);
    assert_eq!(next["total"], 1);

    // Exactly one commit carries the ingest's trailer, and it left nothing of the vault out.
    let log = git(&v, &v.root, &["log", "--format=%B%x00"]);
    let trailer = format!("Sparks-Ingest: {id} {token}");
    let carrying = log
        .split('\0')
        .filter(|m| m.lines().any(|l| l.trim() == trailer))
        .count();
    assert_eq!(carrying, 1, "commits after a crash at {step}:\n{log}");
    assert_eq!(
        git(&v, &v.root, &["rev-list", "--count", "HEAD"]).trim(),
        "1"
    );
    assert_eq!(
        git(&v, &v.root, &["status", "--porcelain"]),
        "",
        "everything is committed"
    );
    let tree = git(&v, &v.root, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(!tree.contains("sparks.db"), "{tree}");
}

#[test]
fn crash_after_plan_then_finalize_again() {
    crash_after("plan", Some("plan"));
}

#[test]
fn crash_after_archive_then_finalize_again() {
    crash_after("archive", Some("plan"));
}

#[test]
fn crash_after_inbox_then_finalize_again() {
    crash_after("inbox", Some("archive"));
}

#[test]
fn crash_after_scan_then_finalize_again() {
    crash_after("scan", Some("inbox"));
}

#[test]
fn crash_after_regen_then_finalize_again() {
    crash_after("regen", Some("scan"));
}

#[test]
fn crash_after_commit_then_finalize_again() {
    crash_after("commit", Some("regen"));
}

#[test]
fn crash_after_prepare_opens_a_resumable_ingest() {
    let v = TestVault::new();
    v.capture(&["one", "two"]);
    let crashed = run_with_fault(&v, &["ingest", "--prepare"], "prepare.open");
    assert_eq!(crashed.code, None);
    let r = v.run(&["ingest", "--prepare"]).code(3);
    let batch = r.json();
    assert_eq!(batch["ingest_id"], 1);
    assert_eq!(batch["total"], 2);
    assert_eq!(batch["already_in_progress"], true);
    let f = v.run(&["ingest", "--finalize", "--json"]).ok().json();
    assert_eq!(f["archived"], 2);
}

#[test]
fn crash_after_abort_leaves_it_aborted() {
    let v = TestVault::new();
    v.capture(&["one", "two"]);
    let before = std::fs::read(v.path("inbox.md")).expect("inbox");
    v.run(&["ingest", "--prepare"]).ok();
    let crashed = run_with_fault(&v, &["ingest", "--abort"], "abort.close");
    assert_eq!(crashed.code, None);
    assert!(status(&v)["ingest_id"].is_null());
    assert_eq!(std::fs::read(v.path("inbox.md")).expect("inbox"), before);
    assert_eq!(v.run(&["ingest", "--prepare"]).ok().json()["ingest_id"], 2);
}

/// A capture identical to one of the batch, made after prepare, is a new capture: finalize
/// must leave it in the inbox even when it resumes after the inbox step.
#[test]
fn a_resumed_finalize_keeps_an_identical_capture_made_after_prepare() {
    let v = TestVault::new();
    v.capture(&["buy milk", "call the plumber"]);
    v.run(&["ingest", "--prepare"]).ok();
    v.capture(&["buy milk"]);
    let crashed = run_with_fault(&v, &["ingest", "--finalize"], "finalize.inbox");
    assert_eq!(crashed.code, None);
    assert_eq!(
        v.read("inbox.md").matches("\nbuy milk\n").count(),
        1,
        "the late capture is there"
    );
    v.run(&["ingest", "--finalize"]).ok();
    let inbox = v.read("inbox.md");
    assert_eq!(
        inbox.matches("\nbuy milk\n").count(),
        1,
        "the late capture was lost:\n{inbox}"
    );
}
