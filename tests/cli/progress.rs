//! The progress bar of long operations: drawn on a terminal (a pseudo-terminal here), naming
//! the phase and the count; never into a pipe, never with `--json` or `-q`, never before its
//! delay. `SPARKS_PROGRESS_DELAY_MS=0` stands in for a vault large enough to take half a
//! second.

use crate::filters::terminal;
use crate::harness::{TestVault, on_terminal};
use crate::snapshot;

/// A vault with some pages, raw files and collections to go through.
fn vault() -> TestVault {
    let v = TestVault::new();
    for i in 0..40 {
        v.page(
            &format!("wiki/concepts/Page {i}.md"),
            &format!("Page {i}"),
            &format!("About [[Page {}]]. It is short.", (i + 1) % 40),
        );
        v.write(
            &format!("raw/quotes/q{i}.md"),
            format!("> Quote {i}\n— Someone, Book {i}\n"),
        );
    }
    v
}

/// What the terminal showed for `args`, with the bar's delay set to `delay_ms`.
fn shown(v: &TestVault, args: &str, delay_ms: &str) -> String {
    on_terminal(
        &v.root,
        &v.home(),
        args,
        &[("SPARKS_PROGRESS_DELAY_MS", delay_ms)],
    )
}

#[test]
fn a_bar_names_the_phase_and_its_count_on_a_terminal() {
    let v = vault();
    // Each phase of a scan, the count of a known total as `done/total` (every file of the
    // vault is read), and the bar taken down before the report is printed: a frame left on
    // the terminal would be kept whole, on the report's line.
    let scan = shown(&v, "scan --full", "0");
    snapshot!(v, terminal(&scan), @r"
    [bar] walking: files …
    [bar] reading: files …/85
    [bar] resolving links: targets …/40
    [bar] indexing: files …/80
    Scanned [VAULT] in [N]ms
      walked: 85  hashed: 85  skipped: 0  deleted: 0  changed: 80  embedded: 40
    ");
    for (args, phase) in [
        ("lint", "checking: checks"),
        ("fmt --check", "reading: files"),
        ("index --dry-run", "writing: pages"),
        ("collections regen --all --dry-run", "writing: pages"),
    ] {
        let out = shown(&v, args, "0");
        assert!(out.contains(phase), "{args}: {out:?}");
    }
}

#[test]
fn no_bar_into_a_pipe_with_json_or_quiet_or_before_its_delay() {
    let v = vault();
    // stderr is a pipe here.
    let piped = v
        .cmd(&["scan", "--full"])
        .env("SPARKS_PROGRESS_DELAY_MS", "0")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&piped.stderr);
    assert!(!err.contains("files") && !err.contains('\x1b'), "{err:?}");
    for args in [
        "scan --full --json",
        "-q scan --full",
        "lint --json",
        "-q index",
    ] {
        let out = shown(&v, args, "0");
        assert!(
            !out.contains("reading: files")
                && !out.contains("walking: files")
                && !out.contains("checking: checks")
                && !out.contains("writing: pages"),
            "{args}: {out:?}"
        );
    }
    // A quick operation never shows one: the default delay is half a second, a minute here.
    let quick = shown(&v, "scan --full", "60000");
    assert!(!quick.contains("files "), "{quick:?}");
    assert!(quick.contains("Scanned"), "{quick:?}");
}
