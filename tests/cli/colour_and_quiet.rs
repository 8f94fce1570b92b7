//! The output rules of every command: colour (`--color`, NO_COLOR, CLICOLOR_FORCE, a
//! terminal), never in JSON, and `--quiet`, which leaves out warnings, status lines and the
//! reports of commands that act, never errors or data.

use crate::harness::{TestVault, command};
use crate::help::strip_ansi;
use crate::snapshot;

#[test]
fn colour_decorates_stderr_only_when_allowed() {
    let v = TestVault::empty();
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = command(v.dir.path(), &v.home());
        c.args(args).envs(env.iter().copied());
        crate::harness::Run::from(c.output().unwrap())
    };
    let plain = run(&["status"], &[]).code(1);
    assert!(!plain.stderr.contains('\x1b'), "not a terminal: no colour");
    assert!(plain.stderr.starts_with("error: no vault found"));

    let always = run(&["--color", "always", "status"], &[]).code(1);
    assert!(
        always
            .stderr
            .contains("\x1b[1;31merror\x1b[0m: no vault found")
    );
    assert!(
        always
            .stderr
            .contains("\x1b[1;36mhint\x1b[0m: run `sparks init`")
    );
    assert_eq!(
        strip_ansi(&always.stderr),
        plain.stderr,
        "the words say what the colour says"
    );
    let always = run(&["status", "--color=always"], &[("NO_COLOR", "1")]).code(1);
    assert!(
        always.stderr.contains('\x1b'),
        "--color always wins over NO_COLOR"
    );

    let forced = run(&["status"], &[("CLICOLOR_FORCE", "1")]).code(1);
    assert!(forced.stderr.contains('\x1b'));
    let no_color = run(&["status"], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).code(1);
    assert!(!no_color.stderr.contains('\x1b'), "NO_COLOR wins in auto");
    let never = run(&["--color", "never", "status"], &[("CLICOLOR_FORCE", "1")]).code(1);
    assert!(!never.stderr.contains('\x1b'));

    let bad = run(&["--color", "sometimes", "status"], &[]).code(2);
    assert!(bad.stderr.contains("sometimes"), "{}", bad.stderr);
}

#[cfg(target_os = "linux")]
#[test]
fn auto_colours_a_terminal_unless_no_color() {
    let v = TestVault::empty();
    // `script` runs sparks on a pseudo-terminal; its output is the terminal's.
    let on_terminal =
        |env: &[(&str, &str)]| crate::harness::on_terminal(v.dir.path(), &v.home(), "status", env);
    // Escapes written as `^[`.
    let written_out = |shown: String| shown.replace("\r\n", "\n").replace('\x1b', "^[");
    snapshot!(v, written_out(on_terminal(&[])), @r"
    ^[[1;31merror^[[0m: no vault found in [TMP] or any parent directory
    ^[[1;36mhint^[[0m: run `sparks init` to create a vault, or pass --vault PATH (or set SPARKS_VAULT)
    ");
    snapshot!(v, written_out(on_terminal(&[("NO_COLOR", "1")])), @r"
    error: no vault found in [TMP] or any parent directory
    hint: run `sparks init` to create a vault, or pass --vault PATH (or set SPARKS_VAULT)
    ");
}

#[test]
fn json_is_never_coloured() {
    let v = TestVault::empty();
    v.run_in(v.dir.path(), &["init", "vault", "--agent", "claude"])
        .ok();
    std::fs::write(v.path("CLAUDE.md"), "my own rules\n").unwrap();
    v.run(&["scan"]).ok();
    for args in [
        &["--color", "always", "status", "--json"][..],
        &["--color", "always", "lint", "--json"],
        &["--color", "always", "ingest", "--prepare"],
    ] {
        let mut c = v.cmd(args);
        c.env("CLICOLOR_FORCE", "1");
        let run = crate::harness::Run::from(c.output().unwrap());
        assert!(!run.stdout.contains('\x1b'), "{args:?}: {}", run.stdout);
        run.json();
        if args[2] != "ingest" {
            assert!(
                run.stderr
                    .contains("\x1b[1;33mwarning\x1b[0m: CLAUDE.md differs"),
                "{args:?}: {}",
                run.stderr
            );
        }
    }
}

#[test]
fn quiet_silences_warnings_and_status_lines_but_not_errors() {
    let v = TestVault::empty();
    v.run_in(v.dir.path(), &["init", "vault", "--agent", "claude"])
        .ok();
    std::fs::write(v.path("CLAUDE.md"), "my own rules\n").unwrap();
    // Both from the manifest as it is: a refresh each would stamp its own "last scan" time,
    // and two runs may straddle a second.
    v.run(&["scan"]).ok();
    let loud = v.run(&["status", "--no-refresh"]).ok();
    assert!(loud.stderr.contains("warning:"), "{}", loud.stderr);
    let quiet = v.run(&["-q", "status", "--no-refresh"]).ok();
    assert_eq!(quiet.stderr, "");
    assert_eq!(quiet.stdout, loud.stdout, "quiet changes no data");

    let affected = v.run(&["affected"]).ok();
    assert!(affected.stderr.contains("no completed ingest"));
    assert_eq!(v.run(&["affected", "--quiet"]).ok().stderr, "");

    let err = v.run_in(v.dir.path(), &["--quiet", "status"]).code(1);
    assert!(
        err.stderr.contains("error: no vault found"),
        "{}",
        err.stderr
    );
    assert!(err.stderr.contains("hint: "), "{}", err.stderr);

    let both = v.run(&["-q", "-v", "status"]).code(2);
    assert!(
        both.stderr.contains("cannot be used with"),
        "{}",
        both.stderr
    );
}

#[test]
fn color_always_colours_human_output_on_stdout_even_into_a_pipe() {
    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "A", "A link to [[Nowhere]].");
    let lint = v.run(&["--color", "always", "lint"]).code(1);
    assert!(
        lint.stdout.contains("\x1b[1;31mbroken-links\x1b[0m (1):"),
        "{:?}",
        lint.stdout
    );
    let plain = v.run(&["lint"]).code(1);
    assert!(
        !plain.stdout.contains('\x1b'),
        "a pipe gets no colour in auto"
    );
    assert_eq!(
        strip_ansi(&lint.stdout),
        plain.stdout,
        "the words say what the colour says"
    );
    let status = v.run(&["status", "--color=always", "--no-refresh"]).ok();
    assert!(
        status.stdout.starts_with("\x1b[1mvault:\x1b[0m "),
        "{:?}",
        status.stdout
    );
    assert_eq!(
        strip_ansi(&status.stdout),
        v.run(&["status", "--no-refresh"]).ok().stdout
    );
    let never = v.run(&["--color", "never", "lint"]).code(1);
    assert!(!never.stdout.contains('\x1b'));
    // Data for scripts stays plain whatever the flag: paths, names, JSON.
    let query = v
        .run(&["--color", "always", "query", "--type", "concept"])
        .ok();
    assert_eq!(query.stdout, "wiki/concepts/A.md\n");
}

#[test]
fn quiet_leaves_out_the_reports_of_commands_that_act_but_not_data() {
    let v = TestVault::new();
    v.capture(&["to-read: SICP"]);
    for args in [
        &["-q", "scan"][..],
        &["-q", "collections", "regen", "--all"],
        &["-q", "index"],
        &[
            "-q",
            "tasks",
            "add",
            "--section",
            "Home",
            "--text",
            "water the plants",
        ],
        &["-q", "done", "water"],
    ] {
        let run = v.run(args).ok();
        assert_eq!(
            (run.stdout.as_str(), run.stderr.as_str()),
            ("", ""),
            "{args:?}"
        );
    }
    v.run(&["ingest", "--prepare"]).ok();
    let finalize = v.run(&["-q", "ingest", "--finalize"]).ok();
    assert_eq!(
        finalize.stdout, "",
        "the summary and the commit line are reports"
    );
    // --json is data asked for: quiet leaves it alone.
    let json = v.run(&["-q", "scan", "--json"]).ok();
    assert!(json.json()["walked"].is_number());
    // So are the answers of commands that exist to print them.
    assert_eq!(
        v.run(&["-q", "query", "--title", "Tasks"]).ok().stdout,
        "wiki/collections/Tasks.md\n"
    );
    v.page("wiki/concepts/A.md", "A", "A link to [[Nowhere]].");
    assert!(
        v.run(&["-q", "lint"])
            .code(1)
            .stdout
            .contains("broken-links (1):")
    );
}
