//! What a newcomer meets before the first vault: the install step and version line of
//! GETTING_STARTED.md, what `make test` says it installs, and `make demo`'s walk through an
//! ingest (run here with the debug binaries).

use crate::harness::TestVault;
use std::path::Path;
#[cfg(unix)]
use std::path::PathBuf;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap()
}

/// GETTING_STARTED.md's install step says what the binary and the Makefile do.
#[test]
fn getting_started_installs_and_shows_the_version_as_the_binary_does() {
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/GETTING_STARTED.md"))
        .unwrap();
    let makefile =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Makefile")).unwrap();
    let install = "cargo install --path . --locked";
    assert!(
        guide.contains(&format!("\n{install} ")),
        "the guide installs with {install}"
    );
    assert!(makefile.contains("$(CARGO) install --path . --locked"));
    let line = guide
        .lines()
        .find(|l| l.starts_with("sparks --version"))
        .expect("the guide shows `sparks --version`");
    let shown = line.split("# ").nth(1).expect("with its output").trim();
    let v = TestVault::empty();
    let actual = v.run_in(v.dir.path(), &["--version"]).ok().stdout;
    // The same words and version; the commit is whatever the binary was built from.
    let shape = |s: &str| -> String {
        let s = s.split(':').next().unwrap().trim();
        match s.rfind(" (") {
            Some(i) => s[..i].to_string(),
            None => s.to_string(),
        }
    };
    assert_eq!(shape(shown), shape(actual.trim()), "{line}");
    assert!(actual.trim().ends_with(')'), "{actual}");
}

/// `make test` says first what it installs beyond cargo and why, and `--plan` installs nothing.
#[test]
fn make_test_says_first_what_it_installs_and_why() {
    let makefile = read("Makefile");
    let recipe = &makefile[makefile.find("\ntest:\n").expect("a test target")..];
    let first = recipe.lines().nth(2).unwrap().trim();
    assert_eq!(first, "bash scripts/test-deps.sh --plan", "{recipe}");
    let target = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/test-deps.sh"))
        .arg("--plan")
        .env("CARGO_TARGET_DIR", target.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    for what in [
        "chromium, the Debian package",
        "the viewer's browser test",
        "playwright-core from npm",
        "official MCP Python SDK",
        "the client of the MCP test",
        "missing: will be installed",
    ] {
        assert!(said.contains(what), "{what:?} is not said:\n{said}");
    }
    assert_eq!(
        std::fs::read_dir(target.path()).unwrap().count(),
        0,
        "--plan installs nothing"
    );
}

/// The stand-in agent of `make demo`, built next to the binary under test (cargo builds the
/// examples for `cargo test`; built here when only this test binary was).
#[cfg(unix)]
fn standin_agent() -> PathBuf {
    let bin = Path::new(crate::harness::bin());
    let agent = bin.parent().unwrap().join("examples/standin_agent");
    if !agent.exists() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--example", "standin_agent"])
            .current_dir(ROOT)
            .status()
            .unwrap();
        assert!(status.success(), "cargo build --example standin_agent");
    }
    agent
}

#[cfg(unix)]
#[test]
fn the_demo_shows_the_capture_that_arrives_while_the_agent_works() {
    let v = TestVault::empty();
    let out = Command::new("sh")
        .arg(Path::new(ROOT).join("examples/demo.sh"))
        .current_dir(v.dir.path())
        .env("SPARKS", crate::harness::bin())
        .env("AGENT", standin_agent())
        .env("DEMO_DIR", v.dir.path().join("demo"))
        .env("HOME", v.home())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", v.home().join(".gitconfig"))
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The commands are shown on stderr, what they print on stdout: together, as on a terminal.
    assert!(
        stderr.contains("\n$ tail -n 2 inbox.md\n"),
        "the demo shows the inbox after the capture:\n{stderr}"
    );
    let shown = stdout
        .split("A capture arrives while the agent works; it is not part of the batch:\n")
        .nth(1)
        .expect("the demo says a capture arrives");
    assert!(
        shown.starts_with("---\nCaptured during the ingest: stays in the inbox.\n"),
        "the capture itself is shown:\n{shown}"
    );
    assert!(
        stdout.contains("Finalized ingest 1: 3 entries archived; 3 entries left in the inbox.")
    );
}
