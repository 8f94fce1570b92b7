//! Help, shell integration and the output rules: `--help` of every command, completions,
//! `--version`, errors with hints, failures under `--json`, contract drift and a broken pipe
//! (colour and `--quiet` are in `colour_and_quiet.rs`).

use crate::harness::{TestVault, command};
use crate::snapshot;
use clap::CommandFactory;
use std::process::Stdio;

/// Every command path below `sparks`, parents before children (`["collections", "regen"]`);
/// hidden commands (the git merge driver, which git runs) aside.
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_string());
            out.push(path.clone());
            walk(sub, &path, out);
        }
    }
    let mut out = vec![Vec::new()];
    walk(&sparks::cli::Cli::command(), &[], &mut out);
    out
}

/// The ANSI escape sequences in `s` removed.
pub(crate) fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn every_command_and_flag_has_help_and_every_command_an_example() {
    fn check(cmd: &mut clap::Command, path: &str, problems: &mut Vec<String>) {
        if cmd.get_about().is_none() {
            problems.push(format!("{path}: no help text"));
        }
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if !matches!(id, "help" | "version") && arg.get_help().is_none() {
                problems.push(format!("{path}: argument {id} has no help text"));
            }
        }
        let long = cmd.render_long_help().to_string();
        if !long.contains("Example") {
            problems.push(format!("{path}: the long help shows no example"));
        }
        let subs: Vec<String> = cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| s.get_name().to_string())
            .filter(|n| n != "help")
            .collect();
        for name in subs {
            let sub = cmd.find_subcommand_mut(&name).unwrap();
            check(sub, &format!("{path} {name}"), problems);
        }
    }
    let mut cmd = sparks::cli::Cli::command();
    cmd.build();
    let mut problems = Vec::new();
    check(&mut cmd, "sparks", &mut problems);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn help_of_every_command() {
    let v = TestVault::empty();
    let paths = command_paths();
    assert!(paths.len() > 18, "{paths:?}");
    for path in paths {
        if path.last().is_some_and(|n| n == "help") {
            continue;
        }
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let run = v.run_in(v.dir.path(), &args).ok();
        assert_eq!(run.stderr, "", "{args:?}");
        assert!(!run.stdout.contains('\x1b'), "help to a pipe has no colour");
        let name = if path.is_empty() {
            "help_sparks".to_string()
        } else {
            format!("help_{}", path.join("_"))
        };
        insta::assert_snapshot!(name, run.stdout);
    }
}

#[test]
fn global_options_come_under_their_own_heading_after_a_command_s_own() {
    let v = TestVault::empty();
    for path in command_paths() {
        if path.is_empty() || path.last().is_some_and(|n| n == "help") {
            continue;
        }
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = v.run_in(v.dir.path(), &args).ok().stdout;
        let global = help
            .find("\nGlobal options:\n")
            .unwrap_or_else(|| panic!("{args:?} has no Global options heading:\n{help}"));
        let own = help.find("\nOptions:\n").expect("own options");
        assert!(
            own < global,
            "{args:?}: Global options come after the command's own"
        );
        for flag in ["--vault <PATH>", "--quiet", "--verbose", "--color <WHEN>"] {
            let at = help
                .find(flag)
                .unwrap_or_else(|| panic!("{args:?} lacks {flag}"));
            assert!(
                at > global,
                "{args:?}: {flag} is listed among the command's own options"
            );
        }
        assert!(
            !help.contains("Colour decorates"),
            "{args:?}: --color's long text belongs to `sparks --help` only"
        );
    }
    let top = v.run_in(v.dir.path(), &["--help"]).ok().stdout;
    assert!(
        top.contains("Colour (--color): colour decorates the error"),
        "{top}"
    );
}

#[test]
fn sparks_help_lists_every_command() {
    let v = TestVault::empty();
    let run = v.run_in(v.dir.path(), &["help"]).ok();
    for path in command_paths().iter().filter(|p| p.len() == 1) {
        assert!(run.stdout.contains(&format!("  {} ", path[0])), "{path:?}");
    }
}

#[test]
fn completions_are_a_script_for_each_shell() {
    let v = TestVault::empty();
    for (shell, signature) in [
        ("bash", "complete -F _sparks"),
        ("zsh", "#compdef sparks"),
        ("fish", "complete -c sparks"),
    ] {
        let run = v.run_in(v.dir.path(), &["completions", shell]).ok();
        assert!(run.stdout.contains(signature), "{shell}:\n{}", run.stdout);
        for word in ["ingest", "finalize", "collections", "regen"] {
            assert!(run.stdout.contains(word), "{shell} lacks {word}");
        }
    }
    // The bash script parses.
    let script = v.run_in(v.dir.path(), &["completions", "bash"]).stdout;
    let file = v.dir.path().join("sparks.bash");
    std::fs::write(&file, script).unwrap();
    let status = std::process::Command::new("bash")
        .arg("-n")
        .arg(&file)
        .status()
        .unwrap();
    assert!(status.success());
    let unknown = v.run_in(v.dir.path(), &["completions", "tcsh"]).code(2);
    assert!(
        unknown.stderr.contains("possible values"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let v = TestVault::empty();
    let out = v.run_in(v.dir.path(), &["--version"]).ok().stdout;
    let rest = out
        .strip_prefix(&format!("sparks version {} (", env!("CARGO_PKG_VERSION")))
        .and_then(|r| r.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("{out:?}"));
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".git/HEAD");
    if rest == "unknown" {
        assert!(
            !checkout.exists(),
            "built in a checkout but no commit: {out}"
        );
        return;
    }
    assert!(
        rest.len() >= 7 && rest.chars().all(|c| c.is_ascii_hexdigit()),
        "{out:?}"
    );
    // The commit is one of this repository's.
    let known = std::process::Command::new("git")
        .args(["cat-file", "-e", &format!("{rest}^{{commit}}")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(known.success(), "{rest} is not a commit here");
}

#[test]
fn errors_end_with_a_hint() {
    let v = TestVault::empty();
    let none = v.run_in(v.dir.path(), &["status"]).code(1);
    assert_eq!(none.stdout, "");
    snapshot!(v, none.stderr);

    let v = TestVault::new();
    v.capture(&["one"]);
    v.run(&["ingest", "--prepare"]).ok();
    let again = v.run(&["ingest", "--prepare"]).code(3);
    again.json();
    snapshot!(v, again.stderr);

    let check = v.run(&["lint", "--check", "broken-link"]).code(2);
    assert_eq!(check.stdout, "");
    snapshot!(v, check.stderr);
}

#[test]
fn a_failure_under_json_is_one_json_object_on_stdout_with_the_same_exit_code() {
    let v = TestVault::empty();
    let none = v.run_in(v.dir.path(), &["status", "--json"]).code(1);
    // stdout is one object to parse; stderr says it for a person, as without --json.
    assert!(
        none.stderr.starts_with("error: no vault found"),
        "{}",
        none.stderr
    );
    let j = none.json();
    assert_eq!(
        j["error"]["message"]
            .as_str()
            .map(|m| m.starts_with("no vault found")),
        Some(true),
        "{j}"
    );
    assert!(j["error"]["hint"].is_string(), "{j}");
    assert_eq!(j["error"]["causes"], serde_json::json!([]));
    snapshot!(v, none.stdout);

    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "A", "Text.");
    v.run(&["scan"]).ok();
    // A refusal of a command that ran, and prepare, whose output is JSON unless asked not.
    let mv = v.run(&["mv", "Nothing", "B", "--json"]).code(1);
    assert!(
        mv.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"Nothing\"")
    );
    v.write("inbox.md", vec![0xff, 0xfe, b'\n']);
    let prepare = v.run(&["ingest", "--prepare"]).code(1);
    assert!(
        prepare.json()["error"]["message"].is_string(),
        "{}",
        prepare.stdout
    );
    let text = v.run(&["ingest", "--prepare", "--json=false"]).code(1);
    assert_eq!(text.stdout, "");
    assert!(text.stderr.starts_with("error: "), "{}", text.stderr);
    // Clap's own usage errors stay its text on stderr, exit 2.
    let usage = v.run(&["lint", "--bogus", "--json"]).code(2);
    assert_eq!(usage.stdout, "");
    assert!(usage.stderr.contains("--bogus"), "{}", usage.stderr);
    // A rule of the arguments the command checks is a usage error too (exit 2), and a
    // failure like any other under --json.
    let check = v.run(&["lint", "--check", "broken-link", "--json"]).code(2);
    assert!(
        check.json()["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("broken-link")),
        "{}",
        check.stdout
    );
    assert!(check.stderr.contains("broken-link"), "{}", check.stderr);
    let empty = v
        .run(&["tasks", "list", "--section", " ", "--json"])
        .code(2);
    assert!(
        empty.json()["error"]["message"].is_string(),
        "{}",
        empty.stdout
    );
    // Data with a non-zero exit is still the data: lint's issues, prepare's open batch.
    v.write("wiki/concepts/B.md", "no frontmatter\n");
    let lint = v.run(&["lint", "--json"]).code(1).json();
    assert!(lint["issues"].is_array(), "{lint}");
}

#[test]
fn contract_drift_is_a_warning_until_init_force_refreshes_it() {
    let v = TestVault::empty();
    v.run_in(v.dir.path(), &["init", "vault", "--agent", "claude"])
        .ok();
    v.run(&["scan"]).ok();
    let fresh = v.run(&["status", "--json"]).ok();
    assert_eq!(
        fresh.json()["contract"],
        serde_json::json!({"files": [{"file": "CLAUDE.md", "state": "current"}]})
    );
    assert_eq!(fresh.stderr, "");
    let lint_before = v.run(&["lint", "--json"]);
    assert_eq!(lint_before.json()["notes"], serde_json::json!([]));

    let mut edited = v.read("CLAUDE.md");
    edited.push_str("\nAlways answer in French.\n");
    std::fs::write(v.path("CLAUDE.md"), edited).unwrap();

    let status = v.run(&["status", "--json"]).ok();
    assert_eq!(status.json()["contract"]["files"][0]["state"], "differs");
    snapshot!(v, status.stderr);
    let text = v.run(&["status"]).ok();
    assert!(
        text.stdout.contains("contract: CLAUDE.md differs"),
        "{}",
        text.stdout
    );
    assert_eq!(text.stderr, status.stderr);

    let lint = v.run(&["lint", "--json"]);
    assert_eq!(
        lint.code, lint_before.code,
        "a note does not change the exit code"
    );
    let j = lint.json();
    assert_eq!(
        j["total"],
        lint_before.json()["total"],
        "a note is not an issue"
    );
    assert_eq!(
        j["notes"],
        serde_json::json!([{
            "kind": "contract-drift",
            "path": "CLAUDE.md",
            "message": "CLAUDE.md differs from the agent contract built into this sparks",
            "hint": "sparks init --agent claude --force"
        }])
    );
    assert!(
        lint.stderr.contains("warning: CLAUDE.md differs"),
        "{}",
        lint.stderr
    );
    assert!(
        lint.stderr
            .contains("hint: run `sparks init --agent claude --force`"),
        "{}",
        lint.stderr
    );

    v.run(&["init", "--agent", "claude", "--force"]).ok();
    let after = v.run(&["status", "--json"]).ok();
    assert_eq!(after.json()["contract"]["files"][0]["state"], "current");
    assert_eq!(after.stderr, "");
    let lint_after = v.run(&["lint", "--json"]);
    assert_eq!(lint_after.json()["notes"], serde_json::json!([]));
    assert_eq!(lint_after.stderr, "");
}

#[test]
fn other_agents_files_name_their_own_agent() {
    let v = TestVault::new();
    std::fs::write(v.path("AGENTS.md"), "old\n").unwrap();
    std::fs::write(v.path("GEMINI.md"), "old\n").unwrap();
    let run = v.run(&["status"]).ok();
    assert!(
        run.stderr.contains("`sparks init --agent codex --force`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("`sparks init --agent gemini --force`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout
            .contains("contract: AGENTS.md differs, GEMINI.md differs")
    );
}

#[test]
fn a_broken_pipe_ends_quietly() {
    let (v, vault) = (TestVault::empty(), TestVault::new());
    // `--json` too, past its writer's buffer: JSON is written as it is serialised, and the
    // serialiser's error wraps the pipe's.
    for i in 0..400 {
        let title = format!("Page {i:03} with a title long enough to fill the buffer soon");
        vault.page(&format!("wiki/concepts/Page {i}.md"), &title, "Text.");
    }
    let query = ["query", "--type", "concept", "--json"];
    assert!(
        vault.run(&query).ok().stdout.len() > 1 << 16,
        "past the buffer"
    );
    for (args, cwd) in [
        (&["describe"][..], v.dir.path()),
        (&["completions", "zsh"], v.dir.path()),
        (&query[..], &vault.root),
    ] {
        let mut c = command(cwd, &v.home());
        let mut child = c
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end before sparks writes: its write fails with EPIPE.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
}

#[test]
fn the_man_page_covers_every_command() {
    // What `make man` (examples/man.rs) renders, for the top-level page.
    let mut page = Vec::new();
    clap_mangen::Man::new(sparks::cli::Cli::command())
        .render(&mut page)
        .unwrap();
    let page = String::from_utf8(page).unwrap();
    assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{page}");
    assert!(page.contains(".TH sparks 1"), "{page}");
    for path in command_paths().iter().filter(|p| p.len() == 1) {
        assert!(
            page.contains(&format!("sparks\\-{}(1)", path[0])),
            "{path:?}"
        );
    }
}
