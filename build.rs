//! Records the git commit the binary is built from, for `sparks --version`: `unknown` outside
//! a git checkout. Reruns only when HEAD or a branch moves, not on every build.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let mut commit = None;
    if Path::new(".git/HEAD").is_file() {
        // HEAD names a branch; a commit moves the branch's ref (loose or packed), not HEAD.
        for p in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
            if Path::new(p).exists() {
                println!("cargo:rerun-if-changed={p}");
            }
        }
        commit = Command::new("git")
            .args(["rev-parse", "--short", "HEAD"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
    }
    let commit = commit.unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SPARKS_COMMIT={commit}");
}
