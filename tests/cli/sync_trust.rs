//! `sparks sync` and a remote it does not trust: a commit that comes in cannot redirect this
//! device's sync (`[sync] remote`, `git_cli`), a remote URL's credentials are never shown, and
//! a commit takes a new file outside the vault's own layout only once git tracks it. On the
//! devices of `sync.rs`: clones of one bare repository.

use crate::harness::{TestVault, commit_all, git};
use crate::sync::{Devices, head, sync};
use serde_json::{Value, json};
use std::path::Path;

/// A new bare repository `name` beside the hub, added to `v` as the remote `name`.
fn another_remote(d: &Devices, v: &TestVault, name: &str) -> std::path::PathBuf {
    let bare = d.hub.path().join(format!("{name}.git"));
    git(
        v,
        d.hub.path(),
        &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()],
    );
    git(v, &v.root, &["remote", "add", name, bare.to_str().unwrap()]);
    bare
}

/// The refs of the bare repository at `bare` (empty when nothing was ever pushed there).
fn refs(v: &TestVault, bare: &Path) -> String {
    git(
        v,
        bare,
        &["for-each-ref", "--format=%(refname) %(objectname)"],
    )
}

/// `sparks.toml` of `v` with a `[sync]` table holding `line`.
fn with_sync(v: &TestVault, line: &str) -> String {
    format!("{}\n[sync]\n{line}\n", v.read("sparks.toml"))
}

#[test]
fn a_sync_remote_that_came_with_a_commit_is_not_applied() {
    let d = Devices::new();
    let evil = another_remote(&d, &d.b, "evil");
    // A commits a sparks.toml that names B's other remote, and pushes it to origin.
    d.a.write("sparks.toml", with_sync(&d.a, "remote = \"evil\""));
    git(&d.a, &d.a.root, &["commit", "-qam", "sync elsewhere"]);
    let r =
        d.a.run(&["sync", "--remote", "origin", "--json"])
            .ok()
            .json();
    assert_eq!(r["pushed"], true, "{r}");
    // B's first sync brings it in; the second, with a page of B's, must not follow it.
    let r = sync(&d.b);
    assert_eq!(r["fast_forward"], true, "{r}");
    assert!(d.b.read("sparks.toml").contains("remote = \"evil\""));
    d.b.page("wiki/concepts/Beta.md", "Beta", "From B.");
    let run = d.b.run(&["sync", "--json"]).ok();
    let r = run.json();
    assert_eq!(
        (&r["remote"], &r["pushed"]),
        (&json!("origin"), &json!(true))
    );
    assert_eq!(refs(&d.b, &evil), "", "nothing was pushed to evil");
    let origin = git(&d.b, &d.bare(), &["rev-parse", "main"]);
    assert_eq!(
        origin.trim(),
        head(&d.b, &d.b.root),
        "B's page went to origin"
    );
    // The report names the setting and how to accept it, in JSON and on stderr.
    let note = &r["not_applied"];
    assert_eq!(note.as_array().map(Vec::len), Some(1), "{r}");
    assert_eq!(
        (&note[0]["setting"], &note[0]["value"], &note[0]["applied"]),
        (&json!("[sync] remote"), &json!("evil"), &Value::Null),
        "{r}"
    );
    assert_eq!(
        note[0]["hint"], "if you trust it, run `sparks sync --remote evil`",
        "{r}"
    );
    assert!(
        run.stderr
            .contains("warning: [sync] remote = \"evil\" in sparks.toml is not applied"),
        "{}",
        run.stderr
    );
    let text = d.b.run(&["sync"]).ok();
    assert!(text.stderr.contains("is not applied"), "{}", text.stderr);
    assert!(
        text.stderr
            .contains("hint: if you trust it, run `sparks sync --remote evil`"),
        "{}",
        text.stderr
    );
    assert_eq!(refs(&d.b, &evil), "", "still nothing in evil");
    // Accepting it is a local act: a sync naming that remote; later syncs then use it.
    d.b.run(&["sync", "--remote", "evil", "--json"]).ok();
    d.b.page("wiki/concepts/Gamma.md", "Gamma", "From B, later.");
    let r = sync(&d.b);
    assert_eq!((&r["remote"], &r["pushed"]), (&json!("evil"), &json!(true)));
    assert_eq!(r["not_applied"], json!([]), "{r}");
    let kept = git(&d.b, &d.b.root, &["config", "--local", "sparks.syncRemote"]);
    assert_eq!(kept.trim(), "evil");
}

#[test]
fn a_sync_setting_edited_on_this_device_is_applied_and_kept() {
    let d = Devices::new();
    let backup = another_remote(&d, &d.b, "backup");
    d.b.write("sparks.toml", with_sync(&d.b, "remote = \"backup\""));
    let r = sync(&d.b);
    assert_eq!(
        (&r["remote"], &r["pushed"]),
        (&json!("backup"), &json!(true))
    );
    assert_eq!(r["not_applied"], json!([]), "{r}");
    assert_eq!(r["committed"]["files"], 1, "the edit is committed: {r}");
    let kept = git(&d.b, &d.b.root, &["config", "--local", "sparks.syncRemote"]);
    assert_eq!(kept.trim(), "backup", "kept in the local git config");
    // Committed now, it is still this device's setting.
    d.b.page("wiki/concepts/Beta.md", "Beta", "From B.");
    let r = sync(&d.b);
    assert_eq!(
        (&r["remote"], &r["pushed"]),
        (&json!("backup"), &json!(true))
    );
    assert!(refs(&d.b, &backup).contains(&head(&d.b, &d.b.root)));
}

#[test]
fn a_sync_transport_that_came_with_a_commit_is_not_applied() {
    let d = Devices::new();
    // Edited on B: applied.
    d.b.write("sparks.toml", with_sync(&d.b, "git_cli = true"));
    let r = sync(&d.b);
    assert_eq!(
        (&r["transport"], &r["pushed"]),
        (&json!("git"), &json!(true))
    );
    // A changes it by hand (applied on A) and pushes; B takes the commit in, twice.
    sync(&d.a);
    let config =
        d.a.read("sparks.toml")
            .replace("git_cli = true", "git_cli = false");
    d.a.write("sparks.toml", config);
    let r = sync(&d.a);
    assert_eq!(
        (&r["transport"], &r["pushed"]),
        (&json!("libgit2"), &json!(true))
    );
    sync(&d.b);
    assert!(d.b.read("sparks.toml").contains("git_cli = false"));
    let r = sync(&d.b);
    assert_eq!(r["transport"], "git", "{r}");
    assert_eq!(
        (
            &r["not_applied"][0]["setting"],
            &r["not_applied"][0]["applied"]
        ),
        (&json!("[sync] git_cli"), &json!("true")),
        "{r}"
    );
    assert_eq!(
        r["not_applied"][0]["hint"],
        "if you trust it, run `git config --unset sparks.syncGitCli`: the next `sparks sync` \
         applies the value in sparks.toml",
        "{r}"
    );
    // Forgetting the kept value is how to accept it.
    git(&d.b, &d.b.root, &["config", "--unset", "sparks.syncGitCli"]);
    let r = sync(&d.b);
    assert_eq!(
        (&r["transport"], &r["not_applied"]),
        (&json!("libgit2"), &json!([])),
        "{r}"
    );
}

#[test]
fn credentials_in_a_remote_url_are_never_shown() {
    const SECRET: &str = "s3cr3tT0ken";
    let v = TestVault::new();
    commit_all(&v);
    // Port 1: the connection is refused at once.
    let url = format!("http://user:{SECRET}@127.0.0.1:1/x.git");
    git(&v, &v.root, &["remote", "add", "origin", &url]);
    for args in [
        &["sync"][..],
        &["sync", "--json"],
        &["sync", "--dry-run"],
        &["sync", "--dry-run", "--json"],
        &["sync", "--remote", "origin", "--json"],
    ] {
        let r = v.run(args).code(1);
        let out = format!("{}\n{}", r.stdout, r.stderr);
        assert!(!out.contains(SECRET), "{args:?} showed the token:\n{out}");
        assert!(
            out.contains("http://***@127.0.0.1:1/x.git"),
            "{args:?} still names the remote:\n{out}"
        );
    }
}

#[test]
fn a_new_file_outside_the_vault_s_layout_is_committed_only_once_git_tracks_it() {
    let d = Devices::new();
    // A has something new: B's sync merges, and its merge commit must not take them either.
    d.a.page("wiki/concepts/Alpha.md", "Alpha", "From A.");
    sync(&d.a);
    d.b.write(".env", "TOKEN=s3cr3t\n");
    d.b.write("notes/x.md", "# Mine\n");
    d.b.page("wiki/concepts/Beta.md", "Beta", "From B.");
    let run = d.b.run(&["sync", "--json"]).ok();
    let r = run.json();
    assert_eq!(r["committed"]["files"], 1, "only the page: {r}");
    assert!(r["merge"].is_string(), "{r}");
    assert_eq!(r["not_committed"], json!([".env", "notes/x.md"]), "{r}");
    assert_eq!(
        r["not_committed_hint"],
        "to have one travel with the vault, run `git add PATH`, then run `sparks sync`",
        "{r}"
    );
    assert!(
        run.stderr.contains(
            "warning: 2 new files were not committed: new to git and not the vault's own \
             (.env, notes/x.md)"
        ),
        "{}",
        run.stderr
    );
    let tree = git(&d.b, &d.bare(), &["ls-tree", "-r", "--name-only", "main"]);
    assert!(tree.contains("wiki/concepts/Beta.md"), "{tree}");
    assert!(
        !tree.contains(".env") && !tree.contains("notes/"),
        "left out of every commit:\n{tree}"
    );
    sync(&d.a);
    assert!(!d.a.path(".env").exists() && !d.a.path("notes/x.md").exists());
    // A dry run says the same.
    let r = d.b.run(&["sync", "--dry-run", "--json"]).ok().json();
    assert_eq!(
        (&r["would_commit"], &r["not_committed"]),
        (&json!(0), &json!([".env", "notes/x.md"])),
        "{r}"
    );
    // Once git tracks it, the next sync commits it and it travels.
    git(&d.b, &d.b.root, &["add", ".env"]);
    let r = sync(&d.b);
    assert_eq!(
        (&r["committed"]["files"], &r["pushed"]),
        (&json!(1), &json!(true)),
        "{r}"
    );
    assert_eq!(r["not_committed"], json!(["notes/x.md"]), "{r}");
    assert_eq!(
        r["not_committed_hint"],
        "to have it travel with the vault, run `git add notes/x.md`, then run `sparks sync`",
        "{r}"
    );
    sync(&d.a);
    assert_eq!(d.a.read(".env"), "TOKEN=s3cr3t\n");
}
