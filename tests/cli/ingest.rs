//! `sparks ingest`: the two-phase ingest bound to a snapshot, batch limits, resume and abort
//! (the inbox inputs that must not lose or mangle a capture are in `ingest_inbox.rs`).

use crate::harness::{Run, TestVault};
use crate::snapshot;
use serde_json::Value;

/// Prepare with extra arguments and return the batch.
pub(crate) fn prepare(v: &TestVault, extra: &[&str]) -> Value {
    let mut args = vec!["ingest", "--prepare"];
    args.extend_from_slice(extra);
    v.run(&args).ok().json()
}

/// Finalize with extra arguments and return its JSON report.
pub(crate) fn finalize(v: &TestVault, extra: &[&str]) -> Value {
    let mut args = vec!["ingest", "--finalize", "--json"];
    args.extend_from_slice(extra);
    v.run(&args).ok().json()
}

/// The contents of a batch's entries.
pub(crate) fn contents(batch: &Value) -> Vec<String> {
    batch["entries"]
        .as_array()
        .expect("entries is a list")
        .iter()
        .map(|e| {
            e["content"]
                .as_str()
                .expect("content is a string")
                .to_string()
        })
        .collect()
}

/// The contents of the entries now in the inbox (by opening and aborting an ingest).
pub(crate) fn inbox_contents(v: &TestVault) -> Vec<String> {
    let batch = prepare(v, &["--limit", "0"]);
    if !batch["ingest_id"].is_null() {
        v.run(&["ingest", "--abort"]).ok();
    }
    contents(&batch)
}

/// Every archive file, concatenated in name order.
fn archive(v: &TestVault) -> String {
    let dir = v.path("raw/inbox");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("raw/inbox is a directory")
        .map(|e| e.expect("dir entry").path())
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("archive file"))
        .collect()
}

/// The marker lines of the archive.
pub(crate) fn markers(v: &TestVault) -> Vec<String> {
    archive(v)
        .lines()
        .filter(|l| l.starts_with("<!-- sparks: ingest "))
        .map(str::to_string)
        .collect()
}

pub(crate) fn status(v: &TestVault) -> Value {
    v.run(&["ingest", "--status"]).ok().json()
}

fn notes(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("capture number {i:02}")).collect()
}

fn capture_all(v: &TestVault, entries: &[String]) {
    let refs: Vec<&str> = entries.iter().map(String::as_str).collect();
    v.capture(&refs);
}

fn stdout_and_stderr(r: &Run) -> String {
    format!("--- stdout\n{}--- stderr\n{}", r.stdout, r.stderr)
}

#[test]
fn entries_appended_or_edited_after_prepare_stay_in_the_inbox() {
    let v = TestVault::new();
    v.capture(&["alpha first", "beta second", "gamma third"]);
    let batch = prepare(&v, &[]);
    assert_eq!(
        contents(&batch),
        ["alpha first", "beta second", "gamma third"]
    );

    let edited = v
        .read("inbox.md")
        .replace("beta second", "beta second, edited");
    v.write("inbox.md", edited);
    v.capture(&["delta after prepare"]);

    let r = v.run(&["ingest", "--finalize", "--json"]).ok();
    let f = r.json();
    assert_eq!(f["archived"], 2, "{f}");
    assert_eq!(f["changed"], 1, "{f}");
    assert_eq!(f["changed_entries"], serde_json::json!([2]));
    assert_eq!(f["remaining"], 2, "{f}");
    assert!(
        r.stderr
            .contains("entry 2 was edited or removed since prepare"),
        "{}",
        r.stderr
    );

    assert_eq!(
        inbox_contents(&v),
        ["beta second, edited", "delta after prepare"]
    );
    let archived = archive(&v);
    assert!(
        archived.contains("alpha first") && archived.contains("gamma third"),
        "{archived}"
    );
    assert!(
        !archived.contains("beta") && !archived.contains("delta"),
        "{archived}"
    );
}

#[test]
fn limit_takes_that_many_and_the_next_cycle_takes_the_next() {
    let v = TestVault::new();
    let all = notes(10);
    capture_all(&v, &all);

    let first = prepare(&v, &["--limit", "3"]);
    assert_eq!(contents(&first), all[..3]);
    assert_eq!(
        (first["total"].clone(), first["remaining"].clone()),
        (3.into(), 7.into())
    );
    let f = finalize(&v, &[]);
    assert_eq!(
        (f["archived"].clone(), f["remaining"].clone()),
        (3.into(), 7.into()),
        "{f}"
    );
    assert_eq!(inbox_contents(&v), all[3..]);

    let second = prepare(&v, &["--limit", "3"]);
    assert_ne!(second["ingest_id"], first["ingest_id"]);
    assert_eq!(contents(&second), all[3..6]);
    assert_eq!(second["remaining"], 4);
    finalize(&v, &[]);
    assert_eq!(inbox_contents(&v), all[6..]);
    assert_eq!(markers(&v).len(), 6);
    let archived = archive(&v);
    for n in &all[..6] {
        assert_eq!(
            archived.matches(n.as_str()).count(),
            1,
            "{n} in\n{archived}"
        );
    }
}

#[test]
fn limit_zero_takes_every_entry() {
    let v = TestVault::new();
    let all = notes(20);
    capture_all(&v, &all);
    let batch = prepare(&v, &["--limit", "0"]);
    assert_eq!(contents(&batch), all);
    assert_eq!(batch["remaining"], 0);
    finalize(&v, &[]);
    assert!(inbox_contents(&v).is_empty());
    assert_eq!(markers(&v).len(), 20);
}

#[test]
fn the_default_batch_is_the_configured_batch_size() {
    let v = TestVault::new();
    let all = notes(17);
    capture_all(&v, &all);
    let batch = prepare(&v, &[]);
    assert_eq!(
        (batch["total"].clone(), batch["remaining"].clone()),
        (15.into(), 2.into())
    );
    v.run(&["ingest", "--abort"]).ok();

    let config = v.read("sparks.toml");
    assert!(config.contains("batch_size = 15"), "{config}");
    v.write(
        "sparks.toml",
        config.replace("batch_size = 15", "batch_size = 4"),
    );
    let batch = prepare(&v, &[]);
    assert_eq!(contents(&batch), all[..4]);
    assert_eq!(batch["remaining"], 13);
    v.run(&["ingest", "--abort"]).ok();
    // An explicit limit wins over the configuration.
    assert_eq!(prepare(&v, &["--limit", "6"])["total"], 6);
}

#[test]
fn a_second_prepare_exits_3_and_hands_out_the_same_batch() {
    let v = TestVault::new();
    v.capture(&["2026-04-02\nfirst", "second"]);
    let first = prepare(&v, &[]);
    assert_eq!(first["already_in_progress"], false);
    v.capture(&["captured meanwhile"]);

    let r = v.run(&["ingest", "--prepare"]).code(3);
    let again = r.json();
    assert!(
        r.stderr.contains("ingest 1 is already open"),
        "{}",
        r.stderr
    );
    assert_eq!(again["ingest_id"], first["ingest_id"]);
    assert_eq!(again["entries"], first["entries"]);
    assert_eq!(again["started_at"], first["started_at"]);
    assert_eq!(again["already_in_progress"], true);
    assert_eq!(
        again["remaining"], 1,
        "the capture made meanwhile is left: {again}"
    );

    // Text output does not change the exit code.
    let text = v.run(&["ingest", "--prepare", "--json=false"]).code(3);
    assert!(
        text.stdout.contains("Ingest 1 in progress: 2 entries"),
        "{}",
        text.stdout
    );
    // --status shows the same batch and exits 0.
    assert_eq!(status(&v)["entries"], first["entries"]);
}

#[test]
fn an_empty_inbox_opens_nothing() {
    let v = TestVault::new();
    let before = v.read("inbox.md");
    let r = v.run(&["ingest", "--prepare"]).ok();
    let batch = r.json();
    assert!(batch["ingest_id"].is_null(), "{batch}");
    assert_eq!(batch["entries"], serde_json::json!([]));
    assert_eq!(batch["total"], 0);
    assert!(status(&v)["ingest_id"].is_null());
    assert_eq!(v.read("inbox.md"), before);
    let text = v.run(&["ingest", "--prepare", "--json=false"]).ok();
    assert_eq!(text.stdout, "The inbox is empty: nothing to ingest.\n");
    // Blank and date-only chunks are not entries either.
    v.write(
        "inbox.md",
        format!("{before}\n---\n2026-04-01\n---\n   \n---\n"),
    );
    assert!(prepare(&v, &[])["ingest_id"].is_null());
}

#[test]
fn finalize_with_no_open_ingest_fails() {
    let v = TestVault::new();
    v.capture(&["not prepared"]);
    let r = v.run(&["ingest", "--finalize"]).code(1);
    assert!(r.stderr.contains("no ingest is open"), "{}", r.stderr);
    assert!(r.stderr.contains("sparks ingest --prepare"), "{}", r.stderr);
    assert_eq!(inbox_contents(&v), ["not prepared"]);
    assert!(!v.path("raw/inbox/2026-05-01.md").exists());
}

#[test]
fn keep_leaves_that_entry_in_the_inbox() {
    let v = TestVault::new();
    v.capture(&["one", "two", "three"]);
    prepare(&v, &[]);

    let r = v.run(&["ingest", "--finalize", "--keep", "9"]).code(1);
    assert!(r.stderr.contains("has no entry 9"), "{}", r.stderr);
    assert!(
        status(&v)["step"].is_null(),
        "a refused --keep plans nothing"
    );

    let f = finalize(&v, &["--keep", "2"]);
    assert_eq!(f["kept"], 1, "{f}");
    assert_eq!(f["kept_entries"], serde_json::json!([2]));
    assert_eq!(f["archived"], 2);
    assert_eq!(inbox_contents(&v), ["two"]);
    let archived = archive(&v);
    assert!(
        archived.contains("\none\n") && archived.contains("\nthree\n"),
        "{archived}"
    );
    assert!(!archived.contains("two"), "{archived}");
}

#[test]
fn abort_closes_the_ingest_and_changes_no_file() {
    let v = TestVault::new();
    v.capture(&["2026-04-03\nkeep me", "and me"]);
    let before = std::fs::read(v.path("inbox.md")).expect("inbox");
    let first = prepare(&v, &[]);
    let r = v.run(&["ingest", "--abort"]).ok();
    assert_eq!(
        r.stdout,
        "Aborted ingest 1; its 2 entries stay in the inbox.\n"
    );
    assert_eq!(std::fs::read(v.path("inbox.md")).expect("inbox"), before);
    assert!(status(&v)["ingest_id"].is_null());
    assert!(
        std::fs::read_dir(v.path("raw/inbox"))
            .expect("dir")
            .next()
            .is_none()
    );
    // Nothing open: abort again says so and succeeds; finalize has nothing to do.
    assert_eq!(
        v.run(&["ingest", "--abort"]).ok().stdout,
        "No ingest is open.\n"
    );
    v.run(&["ingest", "--finalize"]).code(1);
    // The next prepare opens a new ingest with the same entries.
    let second = prepare(&v, &[]);
    assert_eq!(second["ingest_id"], 2);
    assert_eq!(second["entries"], first["entries"]);
}

#[test]
fn abort_after_a_partial_finalize_is_refused() {
    let v = TestVault::new();
    v.capture(&["2026-04-04\nhalf done", "also half done"]);
    prepare(&v, &[]);
    let crashed: Run = v
        .cmd(&["ingest", "--finalize"])
        .env("SPARKS_FAULT_AT", "finalize.archive")
        .output()
        .expect("run")
        .into();
    assert_eq!(crashed.code, None, "killed by the fault hook: {crashed:?}");

    let r = v.run(&["ingest", "--abort"]).code(1);
    assert!(r.stderr.contains("partly finalized"), "{}", r.stderr);
    assert!(
        r.stderr.contains("run `sparks ingest --finalize` again"),
        "{}",
        r.stderr
    );
    assert_eq!(status(&v)["ingest_id"], 1, "the ingest stays open");

    let f = finalize(&v, &[]);
    assert_eq!(f["resumed"], true);
    assert_eq!(markers(&v).len(), 2);
    assert!(inbox_contents(&v).is_empty());
}

#[test]
fn an_unknown_fault_step_is_a_usage_error() {
    let v = TestVault::new();
    v.capture(&["x"]);
    let r: Run = v
        .cmd(&["ingest", "--prepare"])
        .env("SPARKS_FAULT_AT", "finalize.archiv")
        .output()
        .expect("run")
        .into();
    let r = r.code(2);
    assert!(r.stderr.contains("finalize.archiv"), "{}", r.stderr);
    assert!(status(&v)["ingest_id"].is_null(), "nothing ran");
}

#[test]
fn an_unwritable_archive_fails_finalize_and_a_retry_completes() {
    let v = TestVault::new();
    v.capture(&[
        "2026-04-06\nfirst date",
        "2026-04-07\nsecond date",
        "today's",
    ]);
    prepare(&v, &[]);
    let before = v.read("inbox.md");
    // Tests run as root, so permission bits would not stop the write: a file where the
    // archive directory should be does.
    std::fs::remove_dir(v.path("raw/inbox")).expect("empty dir");
    v.write("raw/inbox", "not a directory");

    let r = v.run(&["ingest", "--finalize"]).code(1);
    assert!(r.stderr.contains("raw/inbox"), "{}", r.stderr);
    assert!(r.stderr.contains("run it again"), "{}", r.stderr);
    assert_eq!(v.read("inbox.md"), before, "the inbox is untouched");
    assert_eq!(status(&v)["ingest_id"], 1);

    std::fs::remove_file(v.path("raw/inbox")).expect("remove");
    std::fs::create_dir(v.path("raw/inbox")).expect("mkdir");
    let f = finalize(&v, &[]);
    assert_eq!(f["archived"], 3);
    assert_eq!(f["resumed"], true);
    assert_eq!(
        f["archive_files"],
        serde_json::json!([
            "raw/inbox/2026-04-06.md",
            "raw/inbox/2026-04-07.md",
            "raw/inbox/2026-05-01.md"
        ])
    );
    let m = markers(&v);
    assert_eq!(m.len(), 3, "{m:?}");
    for (entry, text) in [(1, "first date"), (2, "second date"), (3, "today's")] {
        let mine = |l: &&String| {
            l.starts_with("<!-- sparks: ingest 1 ") && l.contains(&format!(" entry {entry} "))
        };
        assert_eq!(m.iter().filter(mine).count(), 1, "{m:?}");
        assert_eq!(archive(&v).matches(text).count(), 1);
    }
    assert!(inbox_contents(&v).is_empty());
}

#[test]
fn snapshot_of_prepare_json() {
    let v = TestVault::new();
    v.capture(&[
        "2026-04-10\nRead about [[Rust]] ownership https://doc.rust-lang.org/book/ today.",
        "- [ ] renew passport\nTODO: call the bank",
        "> The best way out is always through.\n— Robert Frost",
        "book: The Pragmatic Programmer\nto-read: Designing Data-Intensive Applications",
        "2026-13-45\nnot a date",
    ]);
    let r = v.run(&["ingest", "--prepare", "--limit", "4"]).ok();
    snapshot!(v, r.stdout);
    let again = v.run(&["ingest", "--prepare", "--json=false"]).code(3);
    snapshot!(v, stdout_and_stderr(&again));
}

#[test]
fn snapshot_of_finalize_text() {
    let v = TestVault::new();
    v.capture(&["2026-04-11\nfirst", "second", "third", "fourth"]);
    prepare(&v, &[]);
    let edited = v.read("inbox.md").replace("third", "third, edited");
    v.write("inbox.md", edited);
    v.capture(&["fifth, after prepare"]);
    let r = v.run(&["ingest", "--finalize", "--keep", "4"]).ok();
    snapshot!(v, stdout_and_stderr(&r));
    assert!(
        r.stdout
            .starts_with("Finalized ingest 1: 2 entries archived, 1 kept, 1 changed")
    );

    prepare(&v, &["--limit", "1"]);
    let r = v.run(&["ingest", "--finalize"]).ok();
    assert!(
        r.stdout
            .starts_with("Finalized ingest 2: 1 entry archived; 2 entries left"),
        "{}",
        r.stdout
    );
    snapshot!(v, stdout_and_stderr(&r));
}
