//! `sparks capture`: one entry at the end of the inbox, from arguments or standard input,
//! refused when empty, never lost beside a finalize.

use crate::harness::{Run, TestVault, finish};
use std::io::Write;
use std::process::Stdio;

/// `sparks ARGS` with `input` on its standard input (`what` names it if it cannot run).
pub fn with_stdin(v: &TestVault, args: &[&str], input: &[u8], what: &str) -> Run {
    let mut child = v
        .cmd(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sparks");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input).expect("write stdin");
    drop(stdin);
    finish(child, what)
}

/// The contents of the inbox's entries, as prepare would hand them out.
fn entries(v: &TestVault) -> Vec<String> {
    let batch = v.run(&["ingest", "--prepare", "--limit", "0"]).ok().json();
    v.run(&["ingest", "--abort"]).ok();
    batch["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["content"].as_str().expect("content").to_string())
        .collect()
}

#[test]
fn words_standard_input_and_a_date_each_make_one_entry() {
    let v = TestVault::new();
    let before = v.read("inbox.md");
    let r = v.run(&["capture", "Read:", "the design notes"]).ok();
    assert!(
        r.stdout.contains("captured at inbox.md line"),
        "{}",
        r.stdout
    );
    let r = with_stdin(
        &v,
        &["capture", "--date", "2026-04-20", "--json"],
        b"\n> A quote on two lines\n> with its second line  \n\n",
        "capture from stdin",
    )
    .ok();
    let j = r.json();
    assert_eq!(j["capture_date"], "2026-04-20");
    assert_eq!(j["dated"], true);
    assert_eq!(
        j["content"],
        "> A quote on two lines\n> with its second line"
    );
    let dash = v
        .cmd(&["capture", "-"])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(
        dash.status.code(),
        Some(2),
        "empty standard input is refused"
    );
    assert_eq!(
        entries(&v),
        [
            "Read: the design notes",
            "> A quote on two lines\n> with its second line"
        ]
    );
    let after = v.read("inbox.md");
    assert!(
        after.starts_with(&before),
        "nothing before the captures moved"
    );
    assert!(after.ends_with("2026-04-20\n> A quote on two lines\n> with its second line\n---\n"));
}

#[test]
fn empty_text_a_separator_line_and_a_bad_date_are_refused_and_change_nothing() {
    let v = TestVault::new();
    let before = v.read("inbox.md");
    for (args, says) in [
        (vec!["capture", "  "], "the capture is empty"),
        (vec!["capture", "above\n---\nbelow"], "separates captures"),
        (
            vec!["capture", "x", "--date", "yesterday"],
            "is not a YYYY-MM-DD date",
        ),
    ] {
        let r = v.run(&args).code(2);
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
    }
    assert_eq!(v.read("inbox.md"), before);
}

#[test]
fn a_failed_capture_under_json_is_the_json_error_object_with_the_same_exit_code() {
    let v = TestVault::new();
    let before = v.read("inbox.md");
    // A value capture refuses (exit 2), then an inbox it cannot read (exit 1).
    let empty = v.run(&["capture", "  ", "--json"]).code(2);
    assert_eq!(
        empty.json()["error"]["message"],
        "the capture is empty",
        "{}",
        empty.stdout
    );
    assert!(
        empty.stderr.starts_with("error: the capture is empty"),
        "{}",
        empty.stderr
    );
    let bad_date = v.run(&["capture", "x", "--date", "soon", "--json"]).code(2);
    assert!(
        bad_date.json()["error"]["message"].is_string(),
        "{}",
        bad_date.stdout
    );
    assert_eq!(v.read("inbox.md"), before);
    std::fs::remove_file(v.path("inbox.md")).unwrap();
    std::fs::create_dir(v.path("inbox.md")).unwrap();
    v.run(&["capture", "a thought"]).code(1);
    let dir = v.run(&["capture", "a thought", "--json"]).code(1);
    let message = dir.json()["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(message.contains("inbox.md"), "names the path: {message}");
}

#[test]
fn captures_racing_finalizes_are_each_kept_exactly_once() {
    const ROUNDS: usize = 6;
    const PER_ROUND: usize = 5;
    let v = TestVault::new();
    v.run(&["capture", "the first capture"]).ok();
    let mut captured = vec!["the first capture".to_string()];
    for round in 0..ROUNDS {
        v.run(&["ingest", "--prepare", "--limit", "0"]).ok();
        let finalize = v
            .cmd(&["ingest", "--finalize", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn finalize");
        let captures: Vec<_> = (0..PER_ROUND)
            .map(|i| {
                let text = format!("round {round} capture {i}");
                captured.push(text.clone());
                v.cmd(&["capture", &text])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn capture")
            })
            .collect();
        finish(finalize, &format!("round {round}: finalize")).ok();
        for c in captures {
            finish(c, &format!("round {round}: capture")).ok();
        }
    }
    // Every capture is in the inbox or an archive, once.
    let mut everywhere = v.read("inbox.md");
    for entry in std::fs::read_dir(v.path("raw/inbox")).expect("archives") {
        everywhere.push_str(&std::fs::read_to_string(entry.expect("entry").path()).unwrap());
    }
    for text in &captured {
        assert_eq!(
            everywhere.matches(&format!("{text}\n")).count(),
            1,
            "{text}:\n{everywhere}"
        );
    }
}

/// A NUL byte is no text: a capture from standard input drops it, and the inbox stays a text
/// file (git and the search index would take a file holding one for binary).
#[test]
fn nul_bytes_are_dropped_from_a_capture() {
    let v = TestVault::new();
    let r = with_stdin(
        &v,
        &["capture", "--json"],
        b"nul\0 in\0 the middle\n\0\n",
        "capture from stdin",
    )
    .ok();
    assert_eq!(r.json()["content"], "nul in the middle");
    let inbox = v.read("inbox.md");
    assert!(!inbox.contains('\0'), "{inbox:?}");
    assert!(inbox.ends_with("nul in the middle\n---\n"), "{inbox:?}");
    // Nothing but NUL bytes is nothing.
    let r = with_stdin(&v, &["capture"], b"\0\0\n", "capture of NUL bytes").code(2);
    assert!(r.stderr.contains("the capture is empty"), "{}", r.stderr);
    assert_eq!(entries(&v), ["nul in the middle"]);
}

/// A capture that reached the inbox but that the manifest could not record (here `sparks.db`
/// is read-only) succeeds with a warning, in text and in `--json`: a caller that took an error
/// for "not captured" would capture it again. The next command that can write the manifest
/// records it.
#[cfg(unix)]
#[test]
fn a_capture_the_manifest_cannot_record_exits_0_with_a_warning() {
    use crate::harness::{chmod, open_to_nobody, run_unprivileged};
    let v = TestVault::new();
    v.run(&["scan"]).ok();
    open_to_nobody(&v);
    chmod(&v.path("sparks.db"), "444");
    let run = run_unprivileged(&v, &["capture", "--json", "kept once"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let warnings = run.json()["warnings"].clone();
    let warning = warnings[0].as_str().unwrap_or_default();
    assert!(
        warning.starts_with("the capture is in inbox.md, but the manifest could not record it")
            && warning.contains("sparks.db")
            && warning.ends_with("do not capture it again"),
        "{warnings}"
    );
    assert!(
        run.stderr.contains(&format!("warning: {warning}")),
        "{}",
        run.stderr
    );
    let run = run_unprivileged(&v, &["capture", "and another"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.starts_with("captured at inbox.md line"),
        "{run:?}"
    );
    assert!(
        run.stderr.contains("warning: the capture is in inbox.md"),
        "{run:?}"
    );
    chmod(&v.path("sparks.db"), "666");
    assert_eq!(entries(&v), ["kept once", "and another"]);
    // Recorded now: a capture that works says nothing more.
    let run = v.run(&["capture", "--json", "third"]).ok();
    assert_eq!(run.json()["warnings"], serde_json::json!([]));
    assert_eq!(run.stderr, "");
}
