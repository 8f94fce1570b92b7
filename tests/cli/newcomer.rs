//! What a newcomer meets before the first vault: the install step and version line of
//! GETTING_STARTED.md, what `make test` says it installs, and `make demo`'s walk through an
//! ingest (run here with the debug binaries), whose transcript the README shows.

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
        "node, npm and python3 with venv",
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

/// The first run is quick: `make demo` and `make test` build with the dev profile (the two
/// share one build; a fat-LTO release build alone took 6.5 minutes on 2 cores), and the
/// release binary is what `make release` builds, with the optimisation it ships with.
#[cfg(unix)]
#[test]
fn demo_and_test_build_quickly_and_release_keeps_its_optimisation() {
    let recipes = |target: &str| -> String {
        let out = Command::new("make")
            .args(["-n", "-C", ROOT, target])
            .env_remove("MAKEFLAGS")
            .output()
            .unwrap();
        assert!(out.status.success(), "make -n {target}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for target in ["demo", "test"] {
        let said = recipes(target);
        assert!(said.contains("cargo "), "{said}");
        assert!(
            !said.contains("--release") && !said.contains("/release/"),
            "make {target} builds or runs the release profile:\n{said}"
        );
    }
    assert!(recipes("release").contains("cargo build --release"));
    let manifest: toml::Table = read("Cargo.toml").parse().unwrap();
    let release = &manifest["profile"]["release"];
    assert_eq!(release["lto"].as_str(), Some("fat"), "{release}");
    assert_eq!(release["codegen-units"].as_integer(), Some(1), "{release}");
    let dev = &manifest["profile"]["dev"];
    assert_eq!(dev["debug"].as_str(), Some("line-tables-only"), "{dev}");
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

/// `sh [shell…] examples/demo.sh` with the binaries under test, the demo in `demo/` of `v`'s
/// folder, with no git configuration but the demo's own (`make demo` runs it in the user's
/// environment).
#[cfg(unix)]
fn demo(v: &TestVault, shell: &[&str]) -> Command {
    let mut sh = Command::new("sh");
    sh.args(shell)
        .arg(Path::new(ROOT).join("examples/demo.sh"))
        .current_dir(v.dir.path())
        .env("SPARKS", crate::harness::bin())
        .env("AGENT", standin_agent())
        .env("DEMO_DIR", v.dir.path().join("demo"))
        .env("HOME", v.home())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", v.home().join(".gitconfig"));
    sh
}

#[cfg(unix)]
#[test]
fn the_demo_shows_the_capture_that_arrives_while_the_agent_works() {
    let v = TestVault::empty();
    let out = demo(&v, &[]).output().unwrap();
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

/// Where the README holds the transcript of `make demo`.
const DEMO_START: &str = "<!-- demo:start -->\n";
const DEMO_END: &str = "<!-- demo:end -->";

/// The README's transcript of `make demo` is what the demo prints now, dates, times and commit
/// hashes aside. `SPARKS_UPDATE_README=1` (`make readme-demo`) writes this run's transcript
/// into the README instead.
#[cfg(unix)]
#[test]
fn the_readme_shows_what_make_demo_prints() {
    let readme_path = Path::new(ROOT).join("README.md");
    let readme = read("README.md");
    let start = readme
        .find(DEMO_START)
        .expect("README.md has <!-- demo:start -->")
        + DEMO_START.len();
    let end = readme[start..]
        .find(DEMO_END)
        .expect("README.md has <!-- demo:end -->")
        + start;
    let fresh = demo_transcript();
    if std::env::var_os("SPARKS_UPDATE_README").is_some_and(|v| v == "1") {
        let updated = format!("{}{fresh}{}", &readme[..start], &readme[end..]);
        std::fs::write(&readme_path, updated).unwrap();
        return;
    }
    let (shown, now) = (
        without_what_varies(&readme[start..end]),
        without_what_varies(&fresh),
    );
    if shown != now {
        let at = shown
            .lines()
            .zip(now.lines())
            .take_while(|(a, b)| a == b)
            .count();
        let near = |t: &str| {
            t.lines()
                .skip(at.saturating_sub(2))
                .take(6)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "README.md's transcript of `make demo` differs from what the demo prints, from its \
             line {}:\n--- README.md\n{}\n--- the demo\n{}\n(`make readme-demo` writes the demo's \
             transcript into README.md)",
            at + 1,
            near(&shown),
            near(&now)
        );
    }
}

/// A run of the demo as a terminal shows it (commands and output together), as the README
/// shows it: paths as `make demo` has them in the repository, `init`'s `created …` lines left
/// out, in a fenced block.
#[cfg(unix)]
fn demo_transcript() -> String {
    let v = TestVault::empty();
    // The commands go to stderr and their output to stdout: one pipe keeps their order.
    let out = demo(&v, &["-c", "exec sh \"$0\" 2>&1"])
        .env("TZ", "UTC")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the demo failed:\n{text}");
    let dir = v.dir.path().join("demo");
    let mut text = text.replace(crate::harness::bin(), "target/debug/sparks");
    for shown in [dir.clone(), dir.canonicalize().unwrap()] {
        text = text.replace(&shown.display().to_string(), "target/demo");
    }
    let lines: Vec<&str> = text
        .trim_start_matches('\n')
        .lines()
        .filter(|l| !l.starts_with("  created "))
        .collect();
    format!("```text\n{}\n```\n", lines.join("\n"))
}

/// `text` with what differs from one run of the demo to the next said as a placeholder: a
/// commit's hash, a date (`<date>`) and a time with its offset (`<date>T<time>`).
#[cfg(unix)]
fn without_what_varies(text: &str) -> String {
    let mut text = text.to_string();
    let commits: Vec<String> = text
        .split("Committed ")
        .skip(1)
        .filter_map(|rest| rest.split('.').next())
        .filter(|h| h.len() >= 7 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(String::from)
        .collect();
    for hash in commits {
        text = text.replace(&hash, "<commit>");
    }
    let digits = |b: &[u8]| b.iter().all(u8::is_ascii_digit);
    let date = |b: &[u8]| {
        b.len() >= 10
            && digits(&b[..4])
            && b[4] == b'-'
            && digits(&b[5..7])
            && b[7] == b'-'
            && digits(&b[8..10])
    };
    let time = |b: &[u8]| {
        b.len() >= 9
            && b[0] == b'T'
            && digits(&b[1..3])
            && b[3] == b':'
            && digits(&b[4..6])
            && b[6] == b':'
            && digits(&b[7..9])
    };
    let offset = |b: &[u8]| match b.first() {
        Some(b'Z') => 1,
        Some(b'+' | b'-')
            if b.len() >= 6 && digits(&b[1..3]) && b[3] == b':' && digits(&b[4..6]) =>
        {
            6
        }
        _ => 0,
    };
    let (bytes, mut out, mut i) = (text.as_bytes(), Vec::new(), 0);
    while i < bytes.len() {
        if date(&bytes[i..]) && (i == 0 || !bytes[i - 1].is_ascii_digit()) {
            out.extend_from_slice(b"<date>");
            i += 10;
            if time(&bytes[i..]) {
                out.extend_from_slice(b"T<time>");
                i += 9;
                i += offset(&bytes[i..]);
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}
