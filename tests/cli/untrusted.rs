//! A remote is not trusted (issue 47): an attacker with push access to the vault's remote
//! (device A here, using plain git) plants files; the victim (device B, or a fresh clone)
//! syncs or pulls. Nothing planted may run, read or write outside the vault, change local
//! state, or have the victim push what lies outside the vault.

use crate::harness::{TestVault, git, sealed_record};
use crate::mcp_stdio::Served;
use crate::sync::{Devices, sync};
use serde_json::{Value, json};
use std::path::Path;

/// A page every device has, with its text.
const PAGE: &str = "wiki/concepts/Target.md";
const PAGE_TEXT: &str = "---\ntitle: Target\ntype: concept\n---\nA page the attacker knows.\n";

/// Devices with `PAGE` on both, and a folder outside every vault holding a secret.
fn devices() -> (Devices, tempfile::TempDir) {
    let d = Devices::with(|a| {
        a.write(PAGE, PAGE_TEXT);
    });
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "TOPSECRET-42\n").unwrap();
    (d, outside)
}

/// Commit everything on the attacker's side, run-time files forced past `.gitignore`, and
/// push it with plain git.
fn plant(a: &TestVault, message: &str) {
    git(a, &a.root, &["add", "-A", "-f"]);
    git(a, &a.root, &["commit", "-qm", message]);
    git(a, &a.root, &["push", "-q", "origin", "main"]);
}

/// A journal of an "interrupted" `sparks mv Target Pwned` whose plan writes the page's text
/// to `to`, written as an older Sparks wrote records (no seal: the attacker has no key).
fn plant_journal(a: &TestVault, to: &Path) {
    let hash = blake3::hash(PAGE_TEXT.as_bytes()).to_hex().to_string();
    let plan = json!({
        "kind": "mv", "from": PAGE, "to": to.to_str().unwrap(),
        "old_title": "Target", "title": "Pwned", "alias_added": false, "links_rewritten": 0,
        "files": [{"path": PAGE, "old": hash, "to": to.to_str().unwrap(), "new": hash}],
        "index": false, "collections": [], "token": "planted",
    });
    let request = json!({"page": "Target", "new": "Pwned", "no_alias": false}).to_string();
    let record = json!({
        "kind": "mv", "command": "sparks mv Target Pwned", "request": request, "pages": [],
        "step": null, "started_at": "2026-05-01T10:00:00+00:00", "pid": 1, "notes": {},
    });
    a.write(".sparks/journal-plan.json", format!("{plan}\n"));
    a.write(".sparks/journal.json", format!("{record}\n"));
    plant(a, "an innocent-looking commit");
}

/// The paths a sync report says it did not take.
fn refused(report: &Value) -> Vec<String> {
    report["refused"]
        .as_array()
        .unwrap_or_else(|| panic!("no `refused` in {report}"))
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_journal_the_remote_planted_is_not_taken_by_sync_nor_run() {
    let (d, outside) = devices();
    let pwned = outside.path().join("pwned.md");
    plant_journal(&d.a, &pwned);

    let report = sync(&d.b);
    let not_taken = refused(&report);
    assert!(
        not_taken.contains(&".sparks/journal.json".to_string())
            && not_taken.contains(&".sparks/journal-plan.json".to_string()),
        "{report}"
    );
    assert!(!d.b.path(".sparks/journal.json").exists());
    assert!(
        sync(&d.b)["refused"] == json!([]),
        "the next sync finds nothing more"
    );
    // The command the planted journal asks for runs as a plain rename.
    d.b.run(&["mv", "Target", "Pwned"]).ok();
    assert!(!pwned.exists(), "the planted plan wrote outside the vault");
    assert!(d.b.path("wiki/concepts/Pwned.md").exists());
    // The remote holds no run-time file any more: the victim's sync took them out.
    let listed = git(&d.a, &d.bare(), &["ls-tree", "-r", "--name-only", "main"]);
    assert!(!listed.contains(".sparks/"), "{listed}");
}

/// A planted journal brought to B by a plain `git pull`; the file its plan would write.
fn journal_pulled() -> (Devices, tempfile::TempDir, std::path::PathBuf) {
    let (d, outside) = devices();
    let pwned = outside.path().join("pwned.md");
    plant_journal(&d.a, &pwned);
    pull(&d.b);
    (d, outside, pwned)
}

/// A plain `git pull` on `v`.
fn pull(v: &TestVault) {
    git(v, &v.root, &["pull", "-q", "--no-rebase", "origin", "main"]);
}

#[test]
fn a_journal_a_plain_git_pull_brought_is_set_aside_never_run() {
    let (d, _outside, pwned) = journal_pulled();
    assert!(
        d.b.path(".sparks/journal.json").exists(),
        "git put it there"
    );

    // The first writing command says what it found, and runs none of it.
    let r = d.b.run(&["capture", "a thought"]).code(1);
    assert!(
        r.stderr.contains("Sparks on this device did not write it")
            && r.stderr.contains("set aside"),
        "{}",
        r.stderr
    );
    assert!(!d.b.path(".sparks/journal.json").exists());
    assert!(!pwned.exists());
    // Then the vault works as before, and the rename the journal named writes nothing outside.
    d.b.run(&["capture", "a thought"]).ok();
    d.b.run(&["mv", "Target", "Pwned"]).ok();
    assert!(!pwned.exists(), "the planted plan wrote outside the vault");
    assert!(d.b.read("wiki/concepts/Pwned.md").contains("A page"));
}

#[test]
fn a_planted_journal_runs_nothing_over_mcp_either() {
    let (d, _outside, pwned) = journal_pulled();

    let mut mcp = Served::start(&d.b);
    let first = mcp.call("sparks_move", json!({"page": "Target", "new": "Pwned"}));
    assert_eq!(first["isError"], true, "{first}");
    let said = first.to_string();
    assert!(said.contains("set aside"), "{said}");
    assert!(!pwned.exists());
    let second = mcp.call("sparks_move", json!({"page": "Target", "new": "Pwned"}));
    assert_ne!(second["isError"], true, "{second}");
    drop(mcp);
    assert!(!pwned.exists(), "the planted plan wrote outside the vault");
    assert!(d.b.path("wiki/concepts/Pwned.md").exists());
}

#[test]
fn a_journal_whose_paths_leave_the_vault_is_refused_even_when_sealed_here() {
    // A record this device wrote (so sealed) whose plan names a path outside: refused too.
    let v = TestVault::new();
    v.write(PAGE, PAGE_TEXT);
    v.run(&["scan"]).ok();
    // An interrupted rename leaves a genuine journal.
    let r = v
        .cmd(&["mv", "Target", "Renamed"])
        .env("SPARKS_FAULT_AT", "mv.write")
        .output()
        .unwrap();
    assert!(!r.status.success());
    let plan = v.read(".sparks/journal-plan.json");
    assert!(plan.contains("sparks-seal: "), "records are sealed: {plan}");
    // Only the key's holder could reseal an edited plan; a bug could still write one, so the
    // paths are checked when it runs: here the plan is edited and resealed by hand.
    let outside = tempfile::tempdir().unwrap();
    let evil = outside.path().join("x.md");
    let body = plan
        .lines()
        .next()
        .unwrap()
        .replace("wiki/concepts/Renamed.md", evil.to_str().unwrap());
    std::fs::write(
        v.path(".sparks/journal-plan.json"),
        sealed_record(&v, "journal-plan.json", &body),
    )
    .unwrap();
    let r = v.run(&["mv", "Target", "Renamed"]).code(1);
    assert!(r.stderr.contains("set aside"), "{}", r.stderr);
    assert!(
        r.stderr.contains("not a path inside the vault"),
        "{}",
        r.stderr
    );
    assert!(!evil.exists());
}

/// Whether the remote's branch holds `needle` in any file.
#[cfg(unix)]
fn remote_holds(d: &Devices, needle: &str) -> bool {
    let out = std::process::Command::new("git")
        .args(["grep", "-q", needle, "main"])
        .current_dir(d.bare())
        .status()
        .unwrap();
    out.success()
}

#[cfg(unix)]
fn link(target: &Path, at: &Path) {
    let _ = std::fs::remove_file(at);
    let _ = std::fs::remove_dir_all(at);
    std::os::unix::fs::symlink(target, at).unwrap();
}

#[cfg(unix)]
#[test]
fn links_a_remote_sends_are_not_taken_and_push_nothing_from_outside() {
    let (d, outside) = devices();
    let secret = outside.path().join("secret.txt");
    for f in [
        "inbox.md",
        "wiki/index.md",
        ".gitattributes",
        "wiki/collections/Tasks.md",
    ] {
        link(&secret, &d.a.path(f));
    }
    plant(&d.a, "links");

    let report = sync(&d.b);
    let not_taken = refused(&report);
    for f in [
        "inbox.md",
        "wiki/index.md",
        ".gitattributes",
        "wiki/collections/Tasks.md",
    ] {
        assert!(not_taken.contains(&f.to_string()), "{f}: {report}");
        let meta = std::fs::symlink_metadata(d.b.path(f)).unwrap();
        assert!(!meta.file_type().is_symlink(), "{f} became a link");
    }
    // Everything that reads those files runs, on the vault's own text.
    d.b.run(&["capture", "after the attack"]).ok();
    d.b.run(&["tasks", "add", "--section", "Inbox", "--text", "a task"])
        .ok();
    d.b.run(&["index"]).ok();
    sync(&d.b);
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "TOPSECRET-42\n",
        "the file outside was written"
    );
    assert!(!remote_holds(&d, "TOPSECRET"), "the secret was pushed");
    assert!(d.b.read("inbox.md").contains("after the attack"));
}

#[cfg(unix)]
#[test]
fn a_folder_link_the_remote_sends_is_not_written_through() {
    let (d, outside) = devices();
    let target = outside.path().join("collections");
    std::fs::create_dir_all(&target).unwrap();
    link(&target, &d.a.path("wiki/collections"));
    plant(&d.a, "a folder link");

    let report = sync(&d.b);
    assert!(
        refused(&report).contains(&"wiki/collections".to_string()),
        "{report}"
    );
    d.b.write("raw/quotes/q.md", "> A quote.\n— Someone\n");
    d.b.run(&["collections", "regen", "--all"]).ok();
    sync(&d.b);
    let written: Vec<_> = std::fs::read_dir(&target).unwrap().collect();
    assert!(written.is_empty(), "written outside: {written:?}");
}

#[cfg(unix)]
#[test]
fn links_a_plain_git_pull_brought_stop_every_command_that_would_follow_them() {
    let (d, outside) = devices();
    let secret = outside.path().join("secret.txt");
    link(&secret, &d.a.path("inbox.md"));
    link(&secret, &d.a.path("wiki/collections/Tasks.md"));
    plant(&d.a, "links");
    pull(&d.b);
    assert!(
        std::fs::symlink_metadata(d.b.path("inbox.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    for args in [
        &["capture", "x"][..],
        &["tasks", "list"],
        &["tasks", "add", "--section", "Inbox", "--text", "t"],
        &["status"],
        &["sync"],
    ] {
        let r = d.b.run(args).code(1);
        assert!(
            r.stderr.contains("inbox.md is a symbolic link"),
            "{args:?}: {}",
            r.stderr
        );
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "TOPSECRET-42\n");
    assert!(!remote_holds(&d, "TOPSECRET"));
}

#[test]
fn a_planted_sync_record_and_manifest_change_no_local_state() {
    let (d, _outside) = devices();
    // The attacker's version of the page, in a commit the victim will fetch; then the page
    // put back, and a record of a "merge under way" that would put the attacker's version in.
    d.a.write(PAGE, "ATTACKER'S TEXT\n");
    plant(&d.a, "one");
    let tree = git(&d.a, &d.a.root, &["rev-parse", "HEAD^{tree}"]);
    let theirs = git(&d.a, &d.a.root, &["rev-parse", "HEAD"]);
    d.a.write(PAGE, PAGE_TEXT);
    let record = json!({
        "theirs": theirs.trim(), "tree": tree.trim(), "changed": [PAGE],
        "checked_out": false, "copies": [], "merged": [],
    });
    d.a.write(".sparks/sync.json", format!("{record}\n"));
    d.a.write("sparks.db", "not a database at all");
    plant(&d.a, "two");

    // The victim has edited the page (not committed yet).
    d.b.write(PAGE, format!("{PAGE_TEXT}The victim's own line.\n"));
    let report = sync(&d.b);
    let not_taken = refused(&report);
    assert!(
        not_taken.contains(&".sparks/sync.json".to_string())
            && not_taken.contains(&"sparks.db".to_string()),
        "{report}"
    );
    sync(&d.b);
    assert!(
        d.b.read(PAGE).contains("The victim's own line."),
        "the edit was overwritten: {}",
        d.b.read(PAGE)
    );
    let q =
        d.b.run(&["query", "--type", "concept", "--json"])
            .ok()
            .json();
    assert!(q.to_string().contains("Target"), "{q}");
}
