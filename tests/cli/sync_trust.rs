//! `sparks sync` and a remote it does not trust: a commit that comes in cannot redirect this
//! device's sync (`[sync] remote`, `git_cli`), a remote URL's credentials are never shown, and
//! a commit takes a new file outside the vault's own layout only once git tracks it. On the
//! devices of `sync.rs`: clones of one bare repository.

use crate::harness::{TestVault, commit_all, git};

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
