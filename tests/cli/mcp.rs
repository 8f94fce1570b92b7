//! `sparks serve`, driven by the official Python MCP SDK (tests/mcp/client.py, run from the venv
//! that scripts/test-deps.sh makes): the client, the steps it takes, the twin vaults and the
//! replay that checks each tool's answer against its command's `--json` (the scenario is in
//! `mcp_scenario.rs`, the sessions in `mcp_sessions.rs`, arguments in `mcp_arguments.rs`), and
//! the help that lists every tool.

use crate::harness::{self, TODAY, TestVault};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every tool, sorted by name as `tools/list` sorts them.
pub(crate) const TOOLS: [&str; 27] = [
    "sparks_abort_ingest",
    "sparks_affected",
    "sparks_brief",
    "sparks_capture",
    "sparks_collections_regen",
    "sparks_describe",
    "sparks_done",
    "sparks_finalize_ingest",
    "sparks_fmt",
    "sparks_index",
    "sparks_ingest_list",
    "sparks_ingest_show",
    "sparks_ingest_status",
    "sparks_lint",
    "sparks_merge",
    "sparks_move",
    "sparks_prepare_ingest",
    "sparks_publish",
    "sparks_query",
    "sparks_related",
    "sparks_revert_ingest",
    "sparks_scan",
    "sparks_search",
    "sparks_status",
    "sparks_sync",
    "sparks_tasks_add",
    "sparks_tasks_list",
];

/// The tools that change nothing whatever their arguments. (lint, fmt, index and collections
/// regen write with `fix` or without `dry_run`, so they are not read-only.)
const READ_ONLY: [&str; 11] = [
    "sparks_affected",
    "sparks_brief",
    "sparks_describe",
    "sparks_ingest_list",
    "sparks_ingest_show",
    "sparks_ingest_status",
    "sparks_query",
    "sparks_related",
    "sparks_search",
    "sparks_status",
    "sparks_tasks_list",
];

/// The tools that must not claim to be idempotent.
const NOT_IDEMPOTENT: [&str; 6] = [
    "sparks_capture",
    "sparks_done",
    "sparks_merge",
    "sparks_move",
    "sparks_prepare_ingest",
    "sparks_revert_ingest",
];

/// The tools that may take away what they do not recreate: a revert takes an ingest's work
/// back, a merge deletes FROM.
const DESTRUCTIVE: [&str; 2] = ["sparks_merge", "sparks_revert_ingest"];

/// One step of the scenario.
pub(crate) enum Step {
    /// A tool call; the command (run on the twin vault) that must print the same JSON, and
    /// the command's exit code.
    Call {
        tool: &'static str,
        args: Value,
        cli: Vec<&'static str>,
        exit: i32,
    },
    /// A tool call that must be a tool error (`isError`) whose text contains `says`.
    Refused {
        tool: &'static str,
        args: Value,
        says: &'static str,
    },
    /// A call of a tool that does not exist.
    Unknown { tool: &'static str },
    /// Calls made at once; each must succeed.
    Parallel(Vec<(&'static str, Value)>),
    /// A file written into both vaults (as the agent writes pages).
    Write { path: &'static str, content: String },
}

pub(crate) fn call(tool: &'static str, args: Value, cli: &[&'static str], exit: i32) -> Step {
    Step::Call {
        tool,
        args,
        cli: cli.to_vec(),
        exit,
    }
}

pub(crate) fn refused(tool: &'static str, args: Value, says: &'static str) -> Step {
    Step::Refused { tool, args, says }
}

impl Step {
    /// The step as the client reads it.
    fn for_client(&self) -> Value {
        match self {
            Step::Call { tool, args, .. } | Step::Refused { tool, args, .. } => {
                json!({"tool": tool, "arguments": args})
            }
            Step::Unknown { tool } => json!({"tool": tool, "arguments": {}}),
            Step::Parallel(calls) => json!({"parallel": calls
                .iter()
                .map(|(tool, args)| json!({"tool": tool, "arguments": args}))
                .collect::<Vec<_>>()}),
            Step::Write { path, content } => json!({"write": path, "content": content}),
        }
    }
}

/// A vault with pages, a page with frontmatter to repair, and three captures.
pub(crate) fn fixture() -> TestVault {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/gardening.md",
        "Gardening",
        "Gardening is about [[Trees]], [[Compost]] and [[Missing Page]].",
    );
    v.write(
        "wiki/concepts/compost.md",
        "---\ntype: concept\ntitle: Compost\nmaturity: seed\ntags: [Soil Health]\n\
         sources: [raw/inbox/2026-04-01.md]\ncreated: 2026-04-01\nupdated: 2026-04-01\n---\n\n\
         Compost feeds [[Gardening]].\n",
    );
    v.capture(&[
        "TODO: call the nursery\nhttps://seeds.example/catalog",
        "> Plant trees. — anon",
        "book: The Overstory",
    ]);
    v.settle();
    v
}

pub(crate) fn trees_page() -> String {
    format!(
        "---\ntitle: Trees\ntype: concept\nmaturity: seed\nsources: [raw/inbox/{TODAY}.md]\n\
         created: {TODAY}\nupdated: {TODAY}\n---\n\nTrees are what [[Gardening]] plants: \
         captured from the nursery's catalogue and a quote.\n"
    )
}

/// The venv's Python, which the test needs and does not make.
fn python() -> PathBuf {
    let target = Path::new(harness::bin())
        .parent()
        .and_then(Path::parent)
        .expect("the binary is in <target>/<profile>/");
    let python = target.join("test-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test-deps.sh (make test does) to install the MCP SDK",
        python.display()
    );
    python
}

/// Run the client on `vault` with the scenario (and, with `raw`, the raw session), and return
/// what it printed, one value a line.
pub(crate) fn run_client(vault: &TestVault, steps: &[Step], raw: bool) -> Vec<Value> {
    run_client_with_stderr(vault, steps, raw).0
}

/// [`run_client`], and what the client and the servers it started wrote on stderr.
pub(crate) fn run_client_with_stderr(
    vault: &TestVault,
    steps: &[Step],
    raw: bool,
) -> (Vec<Value>, String) {
    let scenario = vault.dir.path().join("scenario.json");
    let client_steps: Vec<Value> = steps.iter().map(Step::for_client).collect();
    std::fs::write(&scenario, serde_json::to_vec(&client_steps).unwrap()).unwrap();
    let outside = match raw {
        true => vault.dir.path().join("outside"),
        false => PathBuf::from("-"),
    };
    if raw {
        std::fs::create_dir_all(&outside).unwrap();
    }
    // The client and the servers it starts get the environment every test command gets.
    let out = with_test_env(python(), vault)
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/client.py"))
        .arg(harness::bin())
        .arg(&vault.root)
        .arg(&scenario)
        .arg(&outside)
        .current_dir(vault.dir.path())
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the client failed ({})\n--- stdout\n{stdout}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let records = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("client line ({e}): {l}")))
        .collect();
    (records, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A report with what differs between two runs replaced: the vault's path, times, durations.
fn normal(text: &str, root: &Path) -> Value {
    let text = text.replace(&root.display().to_string(), "[VAULT]");
    let mut value: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"));
    scrub(&mut value);
    value
}

fn scrub(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "duration_ms" || k == "duration_ns" {
                    *x = json!("[N]");
                } else if k == "watch" && x.get("running").is_some() {
                    // The server watches the vault; the twin's commands run without a watcher.
                    *x = json!("[WATCH]");
                } else {
                    scrub(x);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(scrub),
        Value::String(s) if is_timestamp(s) => *s = "[TIME]".into(),
        Value::String(s) => *s = without_tokens(s),
        _ => {}
    }
}

/// `s` with each ingest's random token (16 hex digits, in archive markers) replaced.
fn without_tokens(s: &str) -> String {
    s.split(' ')
        .map(
            |w| match w.len() == 16 && w.bytes().all(|b| b.is_ascii_hexdigit()) {
                true => "[TOKEN]",
                false => w,
            },
        )
        .collect::<Vec<_>>()
        .join(" ")
}

/// `YYYY-MM-DDTHH:MM:SS…`
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 19
        && [4, 7].iter().all(|&i| b[i] == b'-')
        && b[10] == b'T'
        && [13, 16].iter().all(|&i| b[i] == b':')
        && [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
            .iter()
            .all(|&i| b[i].is_ascii_digit())
}

/// The text of a tool result.
pub(crate) fn text(result: &Value) -> String {
    let content = result["content"].as_array().expect("content is a list");
    assert_eq!(content.len(), 1, "one content block: {result}");
    assert_eq!(content[0]["type"], "text");
    content[0]["text"].as_str().expect("text").to_string()
}

pub(crate) fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}

/// Check each step's record against the step, running each call's command on the twin vault
/// `cli` at the same point of the scenario.
pub(crate) fn replay(mcp: &TestVault, cli: &TestVault, steps: &[Step], records: &[Value]) {
    let by_step: BTreeMap<u64, &Value> = records
        .iter()
        .filter_map(|r| Some((r["step"].as_u64()?, r)))
        .collect();
    assert_eq!(by_step.len(), steps.len(), "every step ran: {records:#?}");
    let stdout = records
        .iter()
        .find(|r| r["kind"] == "stdout")
        .expect("stdout checked");
    assert_eq!(
        stdout["problems"],
        json!([]),
        "stdout carried more than the protocol"
    );
    for (i, step) in steps.iter().enumerate() {
        let record = by_step[&(i as u64)];
        let at = format!("step {i} ({})", record["tool"]);
        match step {
            Step::Write { path, content } => {
                cli.write(path, content);
            }
            Step::Parallel(calls) => {
                let results = record["records"].as_array().expect("records");
                assert_eq!(results.len(), calls.len(), "{at}");
                for r in results {
                    assert!(!is_error(&r["result"]), "{at}: {r}");
                }
            }
            Step::Unknown { .. } => {
                assert_eq!(record["error"]["code"], -32602, "{at}: {record}");
            }
            Step::Refused { says, .. } => {
                let result = &record["result"];
                assert!(is_error(result), "{at}: not an error: {record}");
                let t = text(result);
                assert!(t.contains(says), "{at}: {t:?} does not say {says:?}");
            }
            Step::Call {
                tool,
                cli: args,
                exit,
                ..
            } => {
                let result = &record["result"];
                assert!(record.get("error").is_none(), "{at}: {record}");
                let run = cli.run(args);
                assert_eq!(
                    run.code,
                    Some(*exit),
                    "{at}: exit code of `sparks {}`\n--- stdout\n{}--- stderr\n{}",
                    args.join(" "),
                    run.stdout,
                    run.stderr
                );
                let t = text(result);
                if *tool == "sparks_describe" {
                    assert_eq!(t, run.stdout, "{at}");
                } else if is_error(result) {
                    // The message and causes the CLI prints on stderr; the hint says the same
                    // in the words of each front end: a tool, never a command line.
                    let ours =
                        format!("error: {t}\n").replace(&mcp.root.display().to_string(), "[VAULT]");
                    let theirs = run
                        .stderr
                        .replace(&cli.root.display().to_string(), "[VAULT]");
                    let (ours, our_hint) = ours.split_once("\nhint: ").unwrap_or((&ours, ""));
                    let (theirs, their_hint) =
                        theirs.split_once("\nhint: ").unwrap_or((&theirs, ""));
                    assert_eq!(ours, theirs, "{at}");
                    assert_eq!(our_hint.is_empty(), their_hint.is_empty(), "{at}");
                    assert!(
                        !our_hint.contains("sparks ") && !our_hint.contains(" --"),
                        "{at}: the hint names a command line: {our_hint}"
                    );
                } else {
                    assert_eq!(
                        normal(&t, &mcp.root),
                        normal(&run.stdout, &cli.root),
                        "{at}: the tool and `sparks {}` disagree",
                        args.join(" ")
                    );
                    let structured = result["structuredContent"].to_string();
                    assert_eq!(
                        normal(&structured, &mcp.root),
                        normal(&t, &mcp.root),
                        "{at}: structured content"
                    );
                }
            }
        }
    }
}

pub(crate) fn check_tools(record: &Value) {
    let tools = record["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, TOOLS);
    for t in tools {
        let name = t["name"].as_str().unwrap();
        let hints = &t["annotations"];
        assert_eq!(hints["readOnlyHint"], READ_ONLY.contains(&name), "{name}");
        assert_eq!(
            hints["destructiveHint"],
            DESTRUCTIVE.contains(&name),
            "{name}"
        );
        assert_eq!(
            hints["idempotentHint"],
            !NOT_IDEMPOTENT.contains(&name),
            "{name}"
        );
        // Only sync reaches beyond the vault: the git remote.
        assert_eq!(hints["openWorldHint"], name == "sparks_sync", "{name}");
        let schema = &t["inputSchema"];
        assert_eq!(schema["type"], "object", "{name}");
        assert_eq!(schema["additionalProperties"], false, "{name}");
        assert!(schema.get("$schema").is_none(), "{name}");
        let description = t["description"].as_str().unwrap_or_default();
        assert!(
            (20..=200).contains(&description.len()),
            "{name}: keep descriptions short: {description:?}"
        );
    }
    let tool = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap();
    let props = |n: &str| &tool(n)["inputSchema"]["properties"];
    assert_eq!(
        tool("sparks_done")["inputSchema"]["required"],
        json!(["query"])
    );
    assert_eq!(
        tool("sparks_tasks_add")["inputSchema"]["required"],
        json!(["section", "text"])
    );
    let checks = props("sparks_lint")["checks"]["items"]["enum"].clone();
    assert_eq!(checks.as_array().map(Vec::len), Some(16), "{checks}");
    assert!(
        checks
            .as_array()
            .unwrap()
            .contains(&json!("conflict-markers"))
    );
    assert!(checks.as_array().unwrap().contains(&json!("broken-links")));
    assert!(
        checks
            .as_array()
            .unwrap()
            .contains(&json!("sync-conflicts"))
    );
    assert_eq!(
        props("sparks_query")["type"]["enum"],
        json!(["entity", "concept", "summary", "synthesis", "collection"])
    );
    assert_eq!(
        props("sparks_query")["maturity"]["enum"],
        json!(["seed", "working", "stable", "historical"])
    );
    assert_eq!(props("sparks_prepare_ingest")["limit"]["type"], "integer");
    assert_eq!(props("sparks_finalize_ingest")["keep"]["type"], "array");
    assert_eq!(props("sparks_fmt")["fix"]["type"], "boolean");
    let query: Vec<&String> = props("sparks_query").as_object().unwrap().keys().collect();
    assert_eq!(
        query,
        [
            "title",
            "alias",
            "tag",
            "type",
            "maturity",
            "linked_from",
            "links_to",
            "stale",
            "orphan",
            "thin",
            "limit",
            "resolve"
        ]
    );
}

/// `program` with the environment every `sparks` the tests run gets (no git identity).
pub(crate) fn with_test_env(program: impl AsRef<std::ffi::OsStr>, v: &TestVault) -> Command {
    let template = harness::command(&v.root, &v.home());
    let mut cmd = Command::new(program);
    cmd.env_clear();
    for (k, val) in template.get_envs() {
        if let Some(val) = val {
            cmd.env(k, val);
        }
    }
    cmd
}

#[test]
fn the_help_lists_every_tool() {
    let v = TestVault::empty();
    let help = v.run_in(v.dir.path(), &["serve", "--help"]).ok().stdout;
    let help = help.replace('\n', " ");
    for tool in TOOLS {
        assert!(
            help.contains(tool),
            "{tool} is missing from `sparks serve --help`"
        );
    }
}
