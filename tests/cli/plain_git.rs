//! Plain git beside Sparks: a `git pull` or `rebase` that stopped on a conflict, its markers
//! committed by hand, a fresh `git clone`. A sync refuses to build on what git left unfinished
//! and never pushes a conflict marker; any command sets a clone up (the merge driver, the
//! folders git does not carry); lint's `conflict-markers` lists the files that hold them.

use crate::harness::{TestVault, git, git_output};
use crate::snapshot;
use crate::sync::{Devices, head, no_markers, sync};

const PAGE: &str = "wiki/concepts/Shared.md";

fn page(body: &str) -> String {
    format!("---\ntitle: Shared\ntype: concept\n---\n\n{body}\n")
}

/// Two devices sharing `Shared.md`; A's rewrite of its line is on the remote, B's own rewrite
/// of the same line committed on B with git alone.
fn rewritten_on_both() -> Devices {
    let d = Devices::with(|v| {
        v.write(PAGE, page("The first text."));
    });
    d.a.write(PAGE, page("A rewrote it."));
    sync(&d.a);
    d.b.write(PAGE, page("B rewrote it."));
    git(&d.b, &d.b.root, &["commit", "-qam", "B's rewrite"]);
    d
}

/// The remote's branch holds no conflict marker (`git grep` in the bare repository).
#[track_caller]
fn remote_has_no_markers(d: &Devices) {
    for marker in ["^<<<<<<<", "^>>>>>>>"] {
        let found = git_output(&d.a, &d.bare(), &["grep", "-n", "-e", marker, "main"]);
        assert_eq!(
            found.status.code(),
            Some(1),
            "the remote holds {marker}:\n{}",
            String::from_utf8_lossy(&found.stdout)
        );
    }
}

/// `sparks sync` on `v`, refused: its stderr.
#[track_caller]
fn refused_sync(v: &TestVault) -> String {
    let run = v.run(&["sync"]).code(1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    run.stderr
}

#[test]
fn a_sync_after_a_conflicted_pull_is_refused_and_pushes_no_marker() {
    let d = rewritten_on_both();
    let remote = head(&d.a, &d.bare());
    git(&d.b, &d.b.root, &["config", "pull.rebase", "false"]);
    let pulled = git_output(&d.b, &d.b.root, &["pull", "-q", "--no-edit"]);
    assert!(!pulled.status.success(), "the pull met a conflict");
    assert!(d.b.read(PAGE).contains("<<<<<<< "), "{}", d.b.read(PAGE));
    // Mid-merge: refused, nothing committed, the remote as it was.
    let b_head = head(&d.b, &d.b.root);
    snapshot!(d.b, refused_sync(&d.b), @r"
        error: git is in the middle of a merge in the repository holding [VAULT]: a plain git command stopped before it finished (on a conflict, most likely)
        hint: finish the merge with git (resolve each conflict, `git add` the file, `git commit`) or abort it with `git merge --abort`, then run `sparks sync` (after an abort, the sync merges the same commits itself, Sparks' own files by their meaning)
        ");
    assert_eq!(head(&d.b, &d.b.root), b_head);
    assert_eq!(head(&d.a, &d.bare()), remote);
    // The markers committed with git: refused, by file and line.
    git(
        &d.b,
        &d.b.root,
        &["commit", "-qam", "merged, markers and all"],
    );
    snapshot!(d.b, refused_sync(&d.b), @r"
        error: wiki/concepts/Shared.md (line 6) holds git's conflict markers (<<<<<<<, =======, >>>>>>>), which no Sparks commit takes and no sync pushes
        hint: in each file, keep the text that should stay between the markers and delete the marker lines, then run the command again
        ");
    let dry = d.b.run(&["sync", "--dry-run"]).code(1).stderr;
    assert!(dry.contains("conflict markers"), "{dry}");
    remote_has_no_markers(&d);
    assert_eq!(head(&d.a, &d.bare()), remote);
    // Fixed by hand: the sync commits the fix and pushes; no file anywhere holds a marker.
    d.b.write(PAGE, page("B rewrote it; A rewrote it."));
    sync(&d.b);
    remote_has_no_markers(&d);
    sync(&d.a);
    assert_eq!(d.a.read(PAGE), page("B rewrote it; A rewrote it."));
    no_markers(&d.a);
    no_markers(&d.b);
}

#[test]
fn a_stopped_rebase_is_refused_and_once_aborted_the_sync_merges_without_markers() {
    let d = rewritten_on_both();
    let pulled = git_output(&d.b, &d.b.root, &["pull", "-q", "--rebase"]);
    assert!(!pulled.status.success(), "the rebase met a conflict");
    let err = refused_sync(&d.b);
    assert!(err.contains("git is in the middle of a rebase"), "{err}");
    assert!(err.contains("`git rebase --abort`"), "{err}");
    git(&d.b, &d.b.root, &["rebase", "--abort"]);
    // As the hint says: the sync merges the same commits, keeping both texts.
    let r = sync(&d.b);
    let copy = format!(
        "wiki/concepts/Shared (conflict {}).md",
        crate::harness::TODAY
    );
    assert_eq!(r["conflicts"][0]["copy"], copy.as_str(), "{r}");
    assert_eq!(d.b.read(PAGE), page("B rewrote it."));
    assert_eq!(d.b.read(&copy), page("A rewrote it."));
    remote_has_no_markers(&d);
    no_markers(&d.b);
}

#[test]
fn a_marker_left_in_a_file_is_never_committed() {
    let d = Devices::new();
    let remote = head(&d.a, &d.bare());
    let before = head(&d.b, &d.b.root);
    let inbox = d.b.read("inbox.md");
    d.b.write(
        "inbox.md",
        format!("{inbox}<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> origin/main\n"),
    );
    let err = refused_sync(&d.b);
    let line = inbox.lines().count() + 1;
    assert!(
        err.contains(&format!(
            "inbox.md (line {line}) holds git's conflict markers"
        )),
        "{err}"
    );
    assert_eq!(head(&d.b, &d.b.root), before, "nothing committed");
    assert_eq!(head(&d.a, &d.bare()), remote, "nothing pushed");
}

#[test]
fn any_command_sets_a_fresh_clone_up_so_its_first_pull_merges_the_inbox_by_entries() {
    let d = Devices::new();
    let c = TestVault::empty();
    git(
        &c,
        c.dir.path(),
        &["clone", "-q", d.bare().to_str().unwrap(), "vault"],
    );
    git(&c, &c.root, &["config", "user.name", "c"]);
    git(&c, &c.root, &["config", "user.email", "c@example.com"]);
    git(&c, &c.root, &["config", "pull.rebase", "false"]);
    let driver = || git_output(&c, &c.root, &["config", "--local", "merge.sparks.driver"]);
    assert!(!driver().status.success(), "a clone has no driver");
    assert!(
        !c.path("wiki/synthesis").exists(),
        "git carries no empty folder"
    );
    // The cheapest of commands.
    c.run(&["status", "--no-refresh"]).ok();
    let registered = String::from_utf8_lossy(&driver().stdout).into_owned();
    assert!(
        registered.contains(crate::harness::bin())
            && registered.contains("merge-driver %O %A %B %P"),
        "{registered}"
    );
    for dir in sparks::vault::DIRS {
        assert!(c.path(dir).is_dir(), "{dir}");
    }
    // Set up once: the next command rewrites nothing.
    let config = c.path(".git/config");
    let written = std::fs::metadata(&config).unwrap().modified().unwrap();
    c.run(&["status", "--no-refresh"]).ok();
    assert_eq!(
        std::fs::metadata(&config).unwrap().modified().unwrap(),
        written
    );
    // Both capture; A syncs; C pulls with git alone: the driver merges the inbox by entries.
    d.a.run(&["capture", "From A"]).ok();
    sync(&d.a);
    c.run(&["capture", "From C"]).ok();
    git(&c, &c.root, &["commit", "-qam", "a capture on C"]);
    git(&c, &c.root, &["pull", "-q", "--no-edit"]);
    let inbox = c.read("inbox.md");
    assert!(
        inbox.contains("From A") && inbox.contains("From C"),
        "{inbox}"
    );
    no_markers(&c);
}

#[test]
fn lint_lists_the_files_that_hold_markers_with_the_line_and_a_clean_vault_lints_clean() {
    let v = TestVault::new();
    let clean = v
        .run(&["lint", "--check", "conflict-markers", "--json"])
        .ok()
        .json();
    assert_eq!(clean["total"], 0, "{clean}");
    assert_eq!(clean["counts"]["conflict-markers"], 0, "{clean}");
    let conflict = "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> 1a2b3c4 (B's capture)\n";
    let inbox = v.read("inbox.md");
    v.write("inbox.md", format!("{inbox}{conflict}"))
        .write(
            "wiki/concepts/Git.md",
            format!(
                "---\ntitle: Git\ntype: concept\n---\n\nHow a conflict looks:\n\n```\n{conflict}```\n"
            ),
        )
        .write("raw/notes.txt", format!("one\n{conflict}"))
        .write(PAGE, page("Fine.").replace("Fine.", &format!("Fine.\n{conflict}")));
    let j = v
        .run(&["lint", "--check", "conflict-markers", "--json"])
        .code(1)
        .json();
    let found: Vec<(String, u64)> = j["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            assert_eq!(i["check"], "conflict-markers", "{i}");
            (
                i["path"].as_str().unwrap().to_string(),
                i["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let inbox_line = inbox.lines().count() as u64 + 1;
    assert_eq!(
        found,
        [
            ("inbox.md".to_string(), inbox_line),
            ("raw/notes.txt".to_string(), 2),
            (PAGE.to_string(), 7),
        ],
        "the fenced example in Git.md is none: {j}"
    );
    let text = v.run(&["lint"]).code(1).stdout;
    assert!(text.contains("conflict-markers (3):"), "{text}");
    // Resolved: clean again.
    v.write("inbox.md", &inbox)
        .write("raw/notes.txt", "one\n")
        .write(PAGE, page("Fine."));
    let j = v
        .run(&["lint", "--check", "conflict-markers", "--json"])
        .ok()
        .json();
    assert_eq!(j["total"], 0, "{j}");
}

#[test]
fn a_manifest_from_before_the_check_finds_the_markers_already_there() {
    let v = TestVault::new();
    v.write(
        PAGE,
        page("<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> main"),
    )
    .settle();
    v.run(&["scan"]).ok();
    // The manifest as schema 13 left it, the page already read then.
    crate::old_schemas::undo_schema_15(&v);
    let j = v
        .run(&["lint", "--check", "conflict-markers", "--json"])
        .code(1)
        .json();
    assert_eq!(j["issues"][0]["path"], PAGE, "{j}");
    assert_eq!(j["issues"][0]["line"], 6, "{j}");
}
