//! `sparks sync` and a remote it does not trust: a commit that comes in cannot redirect this
//! device's sync (`[sync] remote`, `git_cli`), a remote URL's credentials are never shown, and
//! a commit takes a new file outside the vault's own layout only once git tracks it. On the
//! devices of `sync.rs`: clones of one bare repository.

use crate::harness::{TestVault, commit_all, git};
use crate::sync::{Devices, sync};
use serde_json::json;

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
