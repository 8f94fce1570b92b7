//! Records the git commit the binary is built from, for `sparks --version`: `unknown` outside
//! a git checkout. Reruns only when HEAD or a branch moves, not on every build. In a linked
//! worktree `.git` is a file naming the real git directory; git itself says where HEAD and the
//! branches are.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let mut commit = None;
    if Path::new(".git").exists() {
        let dir = git(&["rev-parse", "--git-dir"]);
        let common = git(&["rev-parse", "--git-common-dir"]).or_else(|| dir.clone());
        // HEAD names a branch; a commit moves the branch's ref (loose or packed), not HEAD.
        let watched = [
            dir.map(|d| format!("{d}/HEAD")),
            common.as_ref().map(|c| format!("{c}/refs/heads")),
            common.as_ref().map(|c| format!("{c}/packed-refs")),
        ];
        for p in watched.into_iter().flatten() {
            if Path::new(&p).exists() {
                println!("cargo:rerun-if-changed={p}");
            }
        }
        commit = git(&["rev-parse", "--short", "HEAD"]);
    }
    let commit = commit.unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SPARKS_COMMIT={commit}");
}

/// What `git ARGS` prints, trimmed, if it succeeds and prints something.
fn git(args: &[&str]) -> Option<String> {
    Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}
