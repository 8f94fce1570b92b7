//! What the journal records of an interrupted `mv`, `merge` or revert: the operation's kind and
//! arguments, never a command line, which each front end words its own way (the CLI as the
//! command a person types again, the MCP server as the tool and its arguments); and a journal
//! an earlier Sparks wrote with a command line is still named and completed.

use crate::fault_matrix::with_fault;
use crate::harness::{TestVault, sealed_record};
use crate::mcp_stdio::Served;
use serde_json::{Value, json};

/// A page two others link to, and an `mv` of it killed after its first writes.
fn interrupted_move() -> TestVault {
    let v = TestVault::new();
    v.page("wiki/concepts/Old Name.md", "Old Name", "Old text.")
        .page("wiki/concepts/A.md", "A", "[[Old Name]] here.")
        .page("wiki/concepts/B.md", "B", "And [[Old Name]].");
    v.run(&["scan"]).ok();
    with_fault(&v, &["mv", "Old Name", "New Name"], "mv.write");
    v
}

/// The journal's record, without its seal.
fn record(v: &TestVault) -> Value {
    let text = v.read(".sparks/journal.json");
    let body = text.lines().next().expect("a record");
    serde_json::from_str(body).expect("a JSON record")
}

/// The CLI names the interrupted move as `named` and says the command that completes it, in
/// `status` and in the error of a write it refuses.
fn the_cli_says(v: &TestVault, named: &str) {
    let j = v.run(&["status", "--json"]).ok().json();
    assert_eq!(j["unfinished"]["kind"], "mv", "{j}");
    assert_eq!(j["unfinished"]["command"], AGAIN_CLI, "{j}");
    let refused = v
        .run(&["tasks", "add", "--section", "S", "--text", "t"])
        .code(1);
    let stderr = &refused.stderr;
    assert!(
        stderr.starts_with(&format!("error: {named} (started "))
            && stderr.contains(") was interrupted; it must be completed")
            && stderr.contains(&format!("hint: run `{AGAIN_CLI}` again")),
        "{stderr}"
    );
}

/// The command line that completes the move.
const AGAIN_CLI: &str = "sparks mv 'Old Name' 'New Name'";

/// The rerun completes the move, and the journal is gone.
fn completed_by_the_same_command(v: &TestVault) {
    let done = v.run(&["mv", "Old Name", "New Name", "--json"]).ok().json();
    assert_eq!(done["resumed"], true, "{done}");
    assert!(v.read("wiki/concepts/B.md").contains("[[New Name]]"));
    assert!(!v.path(".sparks/journal.json").exists(), "completed");
}

/// The text an MCP tool answered with.
fn said(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn an_interrupted_move_is_recorded_by_its_arguments_and_each_front_end_words_it() {
    let v = interrupted_move();
    let r = record(&v);
    assert_eq!(
        r["operation"],
        json!({"mv": {"page": "Old Name", "new": "New Name", "no_alias": false}}),
        "{r}"
    );
    assert!(!r.to_string().contains("sparks mv"), "no command line: {r}");
    let named = "the move of \"Old Name\" to \"New Name\"";
    the_cli_says(&v, named);
    // An MCP client is told the tool and its arguments, in a report and in an error.
    let mut s = Served::start(&v);
    let status = s.call("sparks_status", json!({}));
    let error = s.call("sparks_capture", json!({"text": "a thought"}));
    drop(s);
    let again = r#"call `sparks_move` again with `{"page":"Old Name","new":"New Name"}`"#;
    assert_eq!(status["structuredContent"]["unfinished"]["command"], again);
    assert_eq!(error["isError"], true, "{error}");
    let error = said(&error);
    assert!(
        error.starts_with(&format!("{named} (started "))
            && error.contains(again)
            && !error.contains("sparks mv"),
        "{error}"
    );
    completed_by_the_same_command(&v);
}

#[test]
fn a_journal_an_earlier_sparks_wrote_as_a_command_line_is_named_and_completed() {
    let v = interrupted_move();
    // The record as builds before this one wrote it: the command line, not the arguments.
    let mut old = record(&v);
    let fields = old.as_object_mut().expect("an object");
    fields
        .remove("operation")
        .expect("recorded by its arguments");
    fields.insert("command".into(), json!(AGAIN_CLI));
    v.write(
        ".sparks/journal.json",
        sealed_record(&v, "journal.json", &old.to_string()),
    );
    the_cli_says(&v, "a move");
    // An MCP client is told the tool, not the command line the record holds.
    let mut s = Served::start(&v);
    let error = said(&s.call("sparks_capture", json!({"text": "a thought"})));
    drop(s);
    assert!(
        error.contains("call `sparks_move` again with the same arguments")
            && !error.contains("sparks mv"),
        "{error}"
    );
    completed_by_the_same_command(&v);
}
