//! Taking an ingest back when it is not simple (issue 19): an undated capture goes back with its
//! capture date, ingests that cannot be reverted say why, and a revert killed after each of its
//! steps completes when run again, or stops before it writes.

use crate::fault_matrix::with_fault;
use crate::faults::Disturb;
use crate::harness::{TestVault, files, git};
use crate::provenance::{assert_same, ingest, life_goes_on, vault};

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
