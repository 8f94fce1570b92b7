//! `sparks sync`: two devices, each a clone of one bare repository on disk (and, for the
//! transports, the same repository served by `git daemon` on loopback, and reached through the
//! `git` executable). Every test syncs real repositories and checks the files, the commits and
//! the manifest on both sides.

use crate::harness::{TestVault, git};
use crate::snapshot;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Two devices sharing a bare repository.
pub struct Devices {
    /// Holds the bare repository.
    pub hub: tempfile::TempDir,
    /// The first device (it made the vault).
    pub a: TestVault,
    /// The second (a clone).
    pub b: TestVault,
}

fn identity(v: &TestVault, name: &str) {
    git(v, &v.root, &["config", "user.name", name]);
    git(
        v,
        &v.root,
        &["config", "user.email", &format!("{name}@example.com")],
    );
}

impl Devices {
    /// A vault made on A, committed and pushed to a new bare repository; B cloned from it.
    pub fn new() -> Devices {
        Devices::with(|_| {})
    }

    /// [`Devices::new`], with `prepare` run on A's vault before its first commit.
    pub fn with(prepare: impl FnOnce(&TestVault)) -> Devices {
        let a = TestVault::new();
        prepare(&a);
        git(&a, &a.root, &["init", "-q", "-b", "main"]);
        identity(&a, "a");
        git(&a, &a.root, &["add", "-A"]);
        git(&a, &a.root, &["commit", "-qm", "the vault"]);
        let hub = tempfile::tempdir().unwrap();
        let bare = hub.path().join("vault.git");
        git(
            &a,
            hub.path(),
            &["init", "-q", "--bare", "-b", "main", "vault.git"],
        );
        git(
            &a,
            &a.root,
            &["remote", "add", "origin", bare.to_str().unwrap()],
        );
        git(&a, &a.root, &["push", "-q", "-u", "origin", "main"]);
        let b = TestVault::empty();
        git(
            &b,
            b.dir.path(),
            &["clone", "-q", bare.to_str().unwrap(), "vault"],
        );
        identity(&b, "b");
        b.run(&["scan"]).ok();
        a.run(&["scan"]).ok();
        // Each device's first sync registers the merge driver; A's commits .gitattributes.
        let first = sync(&a);
        assert_eq!(
            (first["attributes"].as_bool(), first["pushed"].as_bool()),
            (Some(true), Some(true)),
            "{first}"
        );
        let first = sync(&b);
        assert_eq!(
            first["attributes"], false,
            "B got them with A's commit: {first}"
        );
        Devices { hub, a, b }
    }

    /// The bare repository.
    pub fn bare(&self) -> PathBuf {
        self.hub.path().join("vault.git")
    }
}

/// `sparks sync --json` on `v`, which must succeed.
pub fn sync(v: &TestVault) -> Value {
    v.run(&["sync", "--json"]).ok().json()
}

/// HEAD's commit id in `dir`.
pub fn head(v: &TestVault, dir: &Path) -> String {
    git(v, dir, &["rev-parse", "HEAD"]).trim().to_string()
}

/// The remote's branch.
fn remote_head(d: &Devices) -> String {
    git(&d.a, &d.bare(), &["rev-parse", "main"])
        .trim()
        .to_string()
}

/// Every file of the vault's work tree (the manifest and run-time records aside) holds no
/// conflict marker.
#[track_caller]
pub fn no_markers(v: &TestVault) {
    for entry in walkdir::WalkDir::new(&v.root).into_iter().flatten() {
        let p = entry.path();
        if !entry.file_type().is_file() || p.components().any(|c| c.as_os_str() == ".git") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(p) else {
            continue;
        };
        for marker in ["<<<<<<<", ">>>>>>>", "\n=======\n"] {
            assert!(
                !text.contains(marker),
                "{} holds a conflict marker:\n{text}",
                p.display()
            );
        }
    }
}

/// The vault's files (its manifest, run-time records and `.git` aside).
fn work_tree(v: &TestVault) -> std::collections::BTreeMap<String, Vec<u8>> {
    crate::harness::tree(v)
        .into_iter()
        .filter(|(p, _)| !p.starts_with(".git/"))
        .collect()
}

/// The work tree is clean: everything committed.
#[track_caller]
pub(crate) fn clean(v: &TestVault) {
    let status = git(v, &v.root, &["status", "--porcelain"]);
    assert!(
        status.trim().is_empty(),
        "uncommitted after a sync:\n{status}"
    );
}

#[test]
fn a_sync_with_nothing_new_commits_nothing_and_changes_no_file() {
    let d = Devices::new();
    let before = head(&d.a, &d.a.root);
    let tree = work_tree(&d.a);
    let r = sync(&d.a);
    assert_eq!(r["committed"], Value::Null, "{r}");
    assert_eq!(r["incoming"]["commits"], 0, "{r}");
    assert_eq!(r["outgoing"], 0, "{r}");
    assert_eq!(r["pushed"], false, "{r}");
    assert_eq!(head(&d.a, &d.a.root), before);
    assert_eq!(work_tree(&d.a), tree, "no file changed");
    let text = d.a.run(&["sync"]).ok().stdout;
    assert!(text.contains("nothing new on either side"), "{text}");
}

#[test]
fn a_page_written_on_one_device_reaches_the_other_and_its_manifest() {
    let d = Devices::new();
    d.a.page("wiki/concepts/Sprout.md", "Sprout", "Grows.");
    let r = sync(&d.a);
    assert_eq!(r["committed"]["files"], 1, "{r}");
    assert_eq!(r["outgoing"], 1, "{r}");
    assert_eq!(r["pushed"], true, "{r}");
    assert_eq!(remote_head(&d), head(&d.a, &d.a.root));
    let r = sync(&d.b);
    assert_eq!(r["fast_forward"], true, "{r}");
    assert_eq!(r["incoming"]["commits"], 1, "{r}");
    assert_eq!(
        r["incoming"]["subjects"][0],
        "sparks sync: changes on this device"
    );
    assert_eq!(
        r["changed"],
        serde_json::json!(["wiki/concepts/Sprout.md"]),
        "{r}"
    );
    assert_eq!(
        d.b.read("wiki/concepts/Sprout.md"),
        d.a.read("wiki/concepts/Sprout.md")
    );
    let q =
        d.b.run(&["query", "--no-refresh", "--type", "concept", "--json"])
            .ok()
            .json();
    assert_eq!(
        q["pages"][0]["path"], "wiki/concepts/Sprout.md",
        "the manifest knows it: {q}"
    );
    assert_eq!(head(&d.b, &d.b.root), remote_head(&d));
    clean(&d.b);
}

#[test]
fn devices_that_sync_in_turn_end_on_one_commit() {
    let d = Devices::new();
    d.a.page("wiki/concepts/Alpha.md", "Alpha", "From A.");
    d.b.page("wiki/concepts/Beta.md", "Beta", "From B.");
    sync(&d.a);
    let r = sync(&d.b);
    assert!(
        r["merge"].is_string(),
        "both sides had commits: a merge: {r}"
    );
    assert_eq!(r["pushed"], true, "{r}");
    // Only pages that exist or whose sources changed are regenerated: no collection page
    // appears that no device made.
    assert_eq!(
        r["regenerated"],
        serde_json::json!(["wiki/index.md"]),
        "{r}"
    );
    assert!(!d.b.path("wiki/collections/Quotes.md").exists());
    let r = sync(&d.a);
    assert_eq!(r["fast_forward"], true, "{r}");
    assert_eq!(sync(&d.b)["incoming"]["commits"], 0);
    let (ha, hb) = (head(&d.a, &d.a.root), head(&d.b, &d.b.root));
    assert_eq!(ha, hb, "one commit on both devices");
    assert_eq!(ha, remote_head(&d));
    for v in [&d.a, &d.b] {
        assert!(
            v.path("wiki/concepts/Alpha.md").exists() && v.path("wiki/concepts/Beta.md").exists()
        );
        clean(v);
        no_markers(v);
    }
    // The merge commit has both parents.
    let parents = git(&d.a, &d.a.root, &["log", "--merges", "--format=%P", "-1"]);
    assert_eq!(parents.split_whitespace().count(), 2, "{parents}");
}

#[test]
fn a_page_edited_on_both_devices_keeps_both_texts() {
    let d = Devices::with(|v| {
        v.page(
            "wiki/concepts/Shared.md",
            "Shared",
            "First line.\n\nSecond line.",
        );
    });
    let page = |body: &str| format!("---\ntitle: Shared\ntype: concept\n---\n\n{body}\n");
    // Different lines: merged by lines, nothing copied.
    d.a.write(
        "wiki/concepts/Shared.md",
        page("First line, from A.\n\nSecond line."),
    );
    sync(&d.a);
    d.b.write(
        "wiki/concepts/Shared.md",
        page("First line.\n\nSecond line, from B."),
    );
    let r = sync(&d.b);
    assert_eq!(r["conflicts"], serde_json::json!([]), "{r}");
    assert_eq!(
        d.b.read("wiki/concepts/Shared.md"),
        page("First line, from A.\n\nSecond line, from B.")
    );
    sync(&d.a);
    // The same line: B's text stays on B; A's goes beside it.
    d.a.write("wiki/concepts/Shared.md", page("A rewrote everything."));
    sync(&d.a);
    d.b.write("wiki/concepts/Shared.md", page("B rewrote everything."));
    let r = sync(&d.b);
    let copy = format!(
        "wiki/concepts/Shared (conflict {}).md",
        crate::harness::TODAY
    );
    assert_eq!(
        r["conflicts"],
        serde_json::json!([{"path": "wiki/concepts/Shared.md", "copy": copy, "brought": false}]),
        "{r}"
    );
    assert_eq!(
        d.b.read("wiki/concepts/Shared.md"),
        page("B rewrote everything.")
    );
    assert_eq!(d.b.read(&copy), page("A rewrote everything."));
    no_markers(&d.b);
    clean(&d.b);
    let text = d.b.run(&["sync"]).ok().stdout;
    assert!(
        !text.contains("conflict:"),
        "reported once, by the sync that made it: {text}"
    );
    // A gets both texts too.
    sync(&d.a);
    assert_eq!(d.a.read(&copy), page("A rewrote everything."));
    assert_eq!(
        d.a.read("wiki/concepts/Shared.md"),
        page("B rewrote everything.")
    );
    // Lint lists the copy on B, and the copy's title makes no page's name ambiguous.
    let lint = d.b.run(&["lint", "--json"]).code(1).json();
    let of = |check: &str| -> Vec<&str> {
        let issues = lint["issues"].as_array().unwrap().iter();
        let found = issues.filter(|i| i["check"] == check);
        found.map(|i| i["path"].as_str().unwrap()).collect()
    };
    assert_eq!(of("sync-conflicts"), [copy.as_str()], "{lint}");
    assert_eq!(of("duplicate-titles"), Vec::<&str>::new(), "{lint}");
}

#[test]
fn a_dry_run_fetches_and_changes_nothing() {
    let d = Devices::new();
    d.a.page("wiki/concepts/Alpha.md", "Alpha", "From A.");
    sync(&d.a);
    d.b.page("wiki/concepts/Beta.md", "Beta", "From B.");
    let before = (head(&d.b, &d.b.root), work_tree(&d.b));
    let r = d.b.run(&["sync", "--dry-run", "--json"]).ok().json();
    assert_eq!(r["dry_run"], true);
    assert_eq!(r["would_commit"], 1, "{r}");
    assert_eq!(r["incoming"]["commits"], 1, "{r}");
    assert_eq!(
        r["changed"],
        serde_json::json!(["wiki/concepts/Alpha.md"]),
        "{r}"
    );
    assert_eq!(r["pushed"], false);
    assert_eq!(
        (head(&d.b, &d.b.root), work_tree(&d.b)),
        before,
        "nothing local changed"
    );
    assert!(!d.b.path("wiki/concepts/Alpha.md").exists());
    let text = d.b.run(&["sync", "--dry-run"]).ok().stdout;
    assert!(text.starts_with("dry run: nothing changed"), "{text}");
}

#[test]
fn sync_is_refused_during_an_ingest_without_a_remote_and_outside_git() {
    let d = Devices::new();
    d.a.capture(&["An idea"]);
    d.a.run(&["ingest", "--prepare"]).ok();
    let before = head(&d.a, &d.a.root);
    let r = d.a.run(&["sync"]).code(1);
    snapshot!(d.a, r.stderr, @r"
        error: ingest 1 is open: a sync now would change the inbox under its batch
        hint: run `sparks ingest --finalize`, or run `sparks ingest --abort`, then run `sparks sync`
        ");
    assert_eq!(head(&d.a, &d.a.root), before, "nothing committed");
    // No such remote.
    d.b.write("wiki/concepts/Local.md", "local\n");
    let r = d.b.run(&["sync", "--remote", "elsewhere"]).code(1);
    snapshot!(d.b, r.stderr, @r#"
        error: the repository holding [VAULT] has no remote named "elsewhere"
        hint: make the vault a git repository with a remote (`git init`, `git remote add origin URL`, a first commit), or name another remote (the vault's sparks.toml can: [sync] remote)
        "#);
    assert_eq!(
        git(&d.b, &d.b.root, &["status", "--porcelain", "-uall"]).trim(),
        "?? wiki/concepts/Local.md"
    );
    // No repository at all.
    let v = TestVault::new();
    let r = v.run(&["sync"]).code(1);
    snapshot!(v, r.stderr, @r"
        error: [VAULT] is not inside a git work tree
        hint: make the vault a git repository with a remote (`git init`, `git remote add origin URL`, a first commit)
        ");
    // A bad remote name is a usage error.
    d.b.run(&["sync", "--remote", ""]).code(2);
}

/// A fault after each step, then a rerun: the sync completes, nothing lost or doubled.
#[test]
fn a_rerun_after_each_fault_step_completes_the_sync() {
    for step in ["sync.commit", "sync.merge", "sync.push"] {
        let d = Devices::new();
        d.a.page("wiki/concepts/Alpha.md", "Alpha", "From A.");
        sync(&d.a);
        d.b.page("wiki/concepts/Beta.md", "Beta", "From B.");
        let out =
            d.b.cmd(&["sync"])
                .env("SPARKS_FAULT_AT", step)
                .output()
                .unwrap();
        assert!(!out.status.success(), "{step}: the fault stopped it");
        let r = sync(&d.b);
        assert_eq!(
            head(&d.b, &d.b.root),
            remote_head(&d),
            "{step}: pushed: {r}"
        );
        for f in ["wiki/concepts/Alpha.md", "wiki/concepts/Beta.md"] {
            assert!(d.b.path(f).exists(), "{step}: {f}");
        }
        clean(&d.b);
        no_markers(&d.b);
        assert!(
            !d.b.path(".sparks/sync.json").exists(),
            "{step}: the record is gone"
        );
        // Exactly one merge, and B's change committed once.
        let log = git(&d.b, &d.b.root, &["log", "--format=%s"]);
        let merges = log
            .lines()
            .filter(|l| l.starts_with("sparks sync: merge"))
            .count();
        let locals = log
            .lines()
            .filter(|l| *l == "sparks sync: changes on this device")
            .count();
        assert_eq!((merges, locals), (1, 2), "{step}:\n{log}");
        sync(&d.a);
        assert!(d.a.path("wiki/concepts/Beta.md").exists(), "{step}");
    }
}

#[test]
fn the_git_executable_carries_the_transfers_when_asked() {
    let d = Devices::new();
    let config = d.b.read("sparks.toml");
    d.b.write("sparks.toml", format!("{config}\n[sync]\ngit_cli = true\n"));
    d.a.page("wiki/concepts/Alpha.md", "Alpha", "From A.");
    sync(&d.a);
    d.b.page("wiki/concepts/Beta.md", "Beta", "From B.");
    let r = sync(&d.b);
    assert_eq!(r["transport"], "git", "{r}");
    assert_eq!(r["pushed"], true, "{r}");
    assert_eq!(head(&d.b, &d.b.root), remote_head(&d));
    assert!(d.b.path("wiki/concepts/Alpha.md").exists());
}

/// The same flow with the repository served by `git daemon` on loopback (`git://`, which the
/// `git` executable carries, bounded by a timeout).
#[test]
fn a_repository_served_by_git_daemon() {
    let d = Devices::new();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let daemon = std::process::Command::new("git")
        .args([
            "daemon",
            "--reuseaddr",
            "--export-all",
            "--enable=receive-pack",
            "--listen=127.0.0.1",
            &format!("--port={port}"),
            &format!("--base-path={}", d.hub.path().display()),
        ])
        .arg(d.hub.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("git daemon");
    // Stopped however the test ends.
    let _daemon = Killed(daemon);
    let url = format!("git://127.0.0.1:{port}/vault.git");
    // Wait for it to listen.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "git daemon did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    for v in [&d.a, &d.b] {
        git(v, &v.root, &["remote", "set-url", "origin", &url]);
    }
    d.a.page("wiki/concepts/Alpha.md", "Alpha", "From A.");
    let r = sync(&d.a);
    assert_eq!(
        (r["transport"].as_str(), r["pushed"].as_bool()),
        (Some("git"), Some(true)),
        "{r}"
    );
    d.b.page("wiki/concepts/Beta.md", "Beta", "From B.");
    let r = sync(&d.b);
    assert!(r["merge"].is_string(), "{r}");
    sync(&d.a);
    assert_eq!(head(&d.a, &d.a.root), head(&d.b, &d.b.root));
}

/// A child process killed when dropped.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The entries of the inbox, as the ingest reads them.
pub fn inbox(v: &TestVault) -> Vec<String> {
    let text = v.read("inbox.md");
    let body = text.split_once("\n---\n").map_or("", |(_, b)| b);
    body.split("\n---\n")
        .map(|e| e.trim().trim_end_matches("---").trim().to_string())
        .filter(|e| !e.is_empty())
        .collect()
}
