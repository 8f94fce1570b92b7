//! `sparks serve`, driven by the official Python MCP SDK (tests/mcp/client.py, run from the venv
//! that scripts/test-deps.sh makes). The client takes one vault through a whole ingest cycle
//! while the CLI runs the same operations on a twin vault: every tool must answer exactly the
//! JSON its command prints with `--json`, whatever that command's exit code. Then garbage on
//! stdin, an unknown tool and wrong arguments each get an error, and the server keeps serving.

use crate::harness::{self, TODAY, TestVault};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every tool, sorted by name as `tools/list` sorts them.
const TOOLS: [&str; 25] = [
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
    "sparks_query",
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
const READ_ONLY: [&str; 10] = [
    "sparks_affected",
    "sparks_brief",
    "sparks_describe",
    "sparks_ingest_list",
    "sparks_ingest_show",
    "sparks_ingest_status",
    "sparks_query",
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

fn call(tool: &'static str, args: Value, cli: &[&'static str], exit: i32) -> Step {
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
fn fixture() -> TestVault {
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

fn trees_page() -> String {
    format!(
        "---\ntitle: Trees\ntype: concept\nmaturity: seed\nsources: [raw/inbox/{TODAY}.md]\n\
         created: {TODAY}\nupdated: {TODAY}\n---\n\nTrees are what [[Gardening]] plants: \
         captured from the nursery's catalogue and a quote.\n"
    )
}

fn scenario() -> Vec<Step> {
    vec![
        call("sparks_status", json!({}), &["status", "--json"], 0),
        call("sparks_scan", json!({}), &["scan", "--json"], 0),
        call(
            "sparks_prepare_ingest",
            json!({"limit": 2}),
            &["ingest", "--prepare", "--limit", "2"],
            0,
        ),
        call(
            "sparks_ingest_status",
            json!({}),
            &["ingest", "--status"],
            0,
        ),
        // A second prepare returns the open batch: exit 3 in the CLI, a plain result here.
        call(
            "sparks_prepare_ingest",
            json!({}),
            &["ingest", "--prepare"],
            3,
        ),
        Step::Write {
            path: "wiki/concepts/trees.md",
            content: trees_page(),
        },
        call(
            "sparks_finalize_ingest",
            json!({"message": "ingest: trees", "keep": "[2]"}),
            &[
                "ingest",
                "--finalize",
                "-m",
                "ingest: trees",
                "--keep",
                "2",
                "--json",
            ],
            0,
        ),
        call(
            "sparks_ingest_list",
            json!({}),
            &["ingest", "--list", "--json"],
            0,
        ),
        call(
            "sparks_ingest_show",
            json!({"id": 1}),
            &["ingest", "--show", "1", "--json"],
            0,
        ),
        call(
            "sparks_revert_ingest",
            json!({"id": "1", "dry_run": true}),
            &["ingest", "--revert", "1", "--dry-run", "--json"],
            0,
        ),
        call(
            "sparks_query",
            json!({"type": "concept"}),
            &["query", "--type", "concept", "--json"],
            0,
        ),
        call(
            "sparks_query",
            json!({"links_to": "Trees", "limit": "5"}),
            &["query", "--links-to", "Trees", "--limit", "5", "--json"],
            0,
        ),
        // A name no page has yet: the pages whose links name it, as the original listed them.
        call(
            "sparks_query",
            json!({"links_to": "gardening"}),
            &["query", "--links-to", "gardening", "--json"],
            0,
        ),
        call(
            "sparks_query",
            json!({"resolve": "trees"}),
            &["query", "--resolve", "trees", "--json"],
            0,
        ),
        call("sparks_lint", json!({}), &["lint", "--json"], 1),
        call(
            "sparks_lint",
            json!({"checks": "[\"broken-links\"]"}),
            &["lint", "--check", "broken-links", "--json"],
            1,
        ),
        call("sparks_fmt", json!({}), &["fmt", "--json"], 1),
        call(
            "sparks_lint",
            json!({"fix": true}),
            &["lint", "--fix", "--json"],
            1,
        ),
        call(
            "sparks_tasks_add",
            json!({"section": "Garden", "text": "call the nursery"}),
            &[
                "tasks",
                "add",
                "--section",
                "Garden",
                "--text",
                "call the nursery",
                "--json",
            ],
            0,
        ),
        call(
            "sparks_tasks_add",
            json!({"section": "Garden", "text": "water the trees"}),
            &[
                "tasks",
                "add",
                "--section",
                "Garden",
                "--text",
                "water the trees",
                "--json",
            ],
            0,
        ),
        call(
            "sparks_tasks_add",
            json!({"section": "Garden", "text": "water the roses"}),
            &[
                "tasks",
                "add",
                "--section",
                "Garden",
                "--text",
                "water the roses",
                "--json",
            ],
            0,
        ),
        call(
            "sparks_done",
            json!({"query": "nursery"}),
            &["done", "nursery", "--json"],
            0,
        ),
        // Ambiguous: exit 1 in the CLI, a plain result listing the candidates here.
        call(
            "sparks_done",
            json!({"query": "water"}),
            &["done", "water", "--json"],
            1,
        ),
        call(
            "sparks_tasks_list",
            json!({"all": true}),
            &["tasks", "list", "--all", "--json"],
            0,
        ),
        call(
            "sparks_tasks_list",
            json!({"section": "garden"}),
            &["tasks", "list", "--section", "garden", "--json"],
            0,
        ),
        call(
            "sparks_scan",
            json!({"full": "true"}),
            &["scan", "--full", "--json"],
            0,
        ),
        call("sparks_affected", json!({}), &["affected", "--json"], 0),
        call(
            "sparks_index",
            json!({"dry_run": true}),
            &["index", "--dry-run", "--json"],
            0,
        ),
        call("sparks_index", json!({}), &["index", "--json"], 0),
        call(
            "sparks_move",
            json!({"page": "Compost", "new": "Humus", "dry_run": true}),
            &["mv", "Compost", "Humus", "--dry-run", "--json"],
            0,
        ),
        call(
            "sparks_move",
            json!({"page": "Compost", "new": "Humus"}),
            &["mv", "Compost", "Humus", "--json"],
            0,
        ),
        call(
            "sparks_merge",
            json!({"from": "Humus", "into": "gardening"}),
            &["merge", "Humus", "gardening", "--json"],
            0,
        ),
        call(
            "sparks_search",
            json!({"query": "trees"}),
            &["search", "trees", "--json"],
            0,
        ),
        call(
            "sparks_search",
            json!({"query": "nursery", "in": "raw", "limit": 3}),
            &["search", "nursery", "--in", "raw", "--limit", "3", "--json"],
            0,
        ),
        call(
            "sparks_collections_regen",
            json!({"dry_run": true}),
            &["collections", "regen", "--dry-run", "--json"],
            0,
        ),
        call(
            "sparks_collections_regen",
            json!({"names": "[\"Quotes\", \"reading list\"]"}),
            &["collections", "regen", "Quotes", "reading list", "--json"],
            0,
        ),
        call(
            "sparks_fmt",
            json!({"path": "wiki/concepts", "fix": true}),
            &["fmt", "wiki/concepts", "--fix", "--json"],
            1,
        ),
        call(
            "sparks_fmt",
            json!({"path": "wiki/concepts/trees.md", "check": true}),
            &["fmt", "wiki/concepts/trees.md", "--check", "--json"],
            0,
        ),
        call(
            "sparks_brief",
            json!({"days": "7"}),
            &["brief", "--days", "7", "--json"],
            0,
        ),
        // A second ingest, opened and released.
        call(
            "sparks_prepare_ingest",
            json!({}),
            &["ingest", "--prepare"],
            0,
        ),
        call(
            "sparks_abort_ingest",
            json!({}),
            &["ingest", "--abort", "--json"],
            0,
        ),
        call(
            "sparks_ingest_status",
            json!({}),
            &["ingest", "--status"],
            0,
        ),
        // The first ingest taken back: its capture returns to the inbox, its pages go.
        call(
            "sparks_revert_ingest",
            json!({"id": 1}),
            &["ingest", "--revert", "1", "--json"],
            0,
        ),
        call(
            "sparks_ingest_list",
            json!({"page": "Trees"}),
            &["ingest", "--list", "--page", "Trees", "--json"],
            0,
        ),
        call("sparks_describe", json!({}), &["describe"], 0),
        call(
            "sparks_describe",
            json!({"topic": "ingest"}),
            &["describe", "ingest"],
            0,
        ),
        // `sync` is another name of the devices topic, in both front ends.
        call(
            "sparks_describe",
            json!({"topic": "sync"}),
            &["describe", "devices"],
            0,
        ),
        // A real failure is a tool error with the CLI's message.
        call(
            "sparks_finalize_ingest",
            json!({}),
            &["ingest", "--finalize", "--json"],
            1,
        ),
        Step::Unknown {
            tool: "sparks_nope",
        },
        refused(
            "sparks_prepare_ingest",
            json!({"limit": "ten"}),
            "limit: expected a whole number, got \"ten\"",
        ),
        refused(
            "sparks_lint",
            json!({"checks": ["orphan"]}),
            "there is no lint check called \"orphan\" (checks: ambiguous-links, broken-blocks, \
             broken-headings, broken-links, conflict-markers, dead-sources, duplicate-aliases, \
             duplicate-titles, invalid-frontmatter, missing-embeds, missing-frontmatter, orphans, \
             stale-pages, sync-conflicts, thin-pages)\nhint: did you mean `orphans`?",
        ),
        refused(
            "sparks_query",
            json!({"stale": "yes"}),
            "stale: invalid type",
        ),
        refused(
            "sparks_query",
            json!({"type": "entities"}),
            "type: \"entities\" is not one of",
        ),
        refused(
            "sparks_tasks_add",
            json!({"section": "Garden"}),
            "missing field `text`",
        ),
        refused(
            "sparks_describe",
            json!({"topic": "everything"}),
            "there is no topic called \"everything\" (topics: ingest, commands, links, tasks, \
             collections, exit-codes, git, devices, config, template)",
        ),
        refused(
            "sparks_scan",
            json!({"fulll": true}),
            "unknown field `fulll`",
        ),
        refused(
            "sparks_query",
            json!({"resolve": "x", "tag": "y"}),
            "resolve cannot be combined",
        ),
        refused(
            "sparks_brief",
            json!({"days": 4000}),
            "days: 4000 days is more than 3660",
        ),
        refused(
            "sparks_collections_regen",
            json!({"names": ["Quotes"], "all": true}),
            "names and all cannot be combined",
        ),
        refused(
            "sparks_collections_regen",
            json!({"names": ["Tasks"]}),
            "Tasks is never regenerated",
        ),
        refused(
            "sparks_revert_ingest",
            json!({"dry_run": true}),
            "missing field `id`",
        ),
        refused("sparks_ingest_show", json!({"id": 0}), "0 is no ingest id"),
        refused(
            "sparks_ingest_show",
            json!({"id": 99}),
            "there is no ingest 99",
        ),
        refused(
            "sparks_search",
            json!({"query": "x", "in": "web"}),
            "in: \"web\" is not one of wiki, raw, all",
        ),
        refused(
            "sparks_move",
            json!({"page": "Trees", "new": "a/b"}),
            "cannot hold",
        ),
        refused(
            "sparks_merge",
            json!({"from": "Gardening", "into": "gardening"}),
            "cannot be merged into itself",
        ),
        call(
            "sparks_capture",
            json!({"text": "Seed swap on Saturday\nbring the tomato seeds", "date": "2026-04-29"}),
            &[
                "capture",
                "Seed swap on Saturday\nbring the tomato seeds",
                "--date",
                "2026-04-29",
                "--json",
            ],
            0,
        ),
        refused(
            "sparks_capture",
            json!({"text": "  "}),
            "the capture is empty",
        ),
        // A vault outside git cannot sync: the same error as the command's, and a hint that
        // names no command line.
        call(
            "sparks_sync",
            json!({"dry_run": true}),
            &["sync", "--dry-run"],
            1,
        ),
        // ...and the server is still serving.
        call("sparks_status", json!({}), &["status", "--json"], 0),
    ]
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
fn run_client_with_stderr(vault: &TestVault, steps: &[Step], raw: bool) -> (Vec<Value>, String) {
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

#[test]
fn every_tool_answers_what_its_command_prints_and_errors_leave_it_serving() {
    let mcp = fixture();
    let cli = fixture();
    let steps = scenario();
    let records = run_client(&mcp, &steps, true);

    let init = records
        .iter()
        .find(|r| r["kind"] == "initialize")
        .expect("initialized");
    assert_eq!(init["result"]["serverInfo"]["name"], "sparks");
    assert_eq!(
        init["result"]["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    assert!(
        init["seconds"].as_f64().unwrap() < 5.0,
        "the handshake waited: {init}"
    );

    check_tools(
        records
            .iter()
            .find(|r| r["kind"] == "tools")
            .expect("tools listed"),
    );

    replay(&mcp, &cli, &steps, &records);
    // The vaults were changed alike.
    for rel in [
        "inbox.md",
        "wiki/collections/Tasks.md",
        "wiki/index.md",
        "wiki/concepts/gardening.md",
    ] {
        assert_eq!(mcp.read(rel), cli.read(rel), "{rel}");
    }
    // Compost was renamed Humus, then merged into Gardening, in both.
    for v in [&mcp, &cli] {
        assert!(!v.path("wiki/concepts/compost.md").exists());
        assert!(!v.path("wiki/concepts/Humus.md").exists());
        assert!(
            v.read("wiki/concepts/gardening.md")
                .contains("\n## Humus\n")
        );
    }
    check_raw(&records);
    // Finalize with no open ingest: the hint names the tool that opens one, the CLI's the
    // command.
    let finalize = records
        .iter()
        .filter(|r| r["tool"] == "sparks_finalize_ingest" && is_error(&r["result"]))
        .map(|r| text(&r["result"]))
        .collect::<Vec<_>>();
    assert_eq!(finalize.len(), 1, "{finalize:?}");
    assert!(
        finalize[0].ends_with("\nhint: call `sparks_prepare_ingest` first"),
        "{}",
        finalize[0]
    );
    let run = cli.run(&["ingest", "--finalize"]);
    assert!(
        run.stderr
            .ends_with("\nhint: run `sparks ingest --prepare` first\n"),
        "{}",
        run.stderr
    );
}

/// Check each step's record against the step, running each call's command on the twin vault
/// `cli` at the same point of the scenario.
fn replay(mcp: &TestVault, cli: &TestVault, steps: &[Step], records: &[Value]) {
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

fn check_tools(record: &Value) {
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
    assert_eq!(checks.as_array().map(Vec::len), Some(15), "{checks}");
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

/// The raw session: a server started outside any vault, fed garbage.
fn check_raw(records: &[Value]) {
    let raw = |what: &str| -> &Value {
        records
            .iter()
            .find(|r| r["kind"] == "raw" && r["what"] == what)
            .unwrap_or_else(|| panic!("raw {what}: {records:#?}"))
    };
    let messages = |what: &str| -> Vec<Value> {
        raw(what)["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["message"].clone())
            .collect()
    };
    // No vault needed to start: the handshake opens nothing.
    let init = messages("initialize");
    assert_eq!(
        init.last().unwrap()["result"]["serverInfo"]["name"],
        "sparks"
    );
    // A line that is not JSON: a parse error, and the next request is answered.
    let garbage = messages("garbage");
    assert_eq!(garbage.len(), 2, "{garbage:?}");
    assert_eq!(garbage[0]["error"]["code"], -32700, "{garbage:?}");
    assert_eq!(garbage[1], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    // JSON that is no JSON-RPC message: an invalid request, and the next one is answered.
    let wrong = messages("not_json_rpc");
    assert_eq!(wrong.len(), 2, "{wrong:?}");
    assert_eq!(wrong[0]["error"]["code"], -32600, "{wrong:?}");
    assert_eq!(wrong[1]["id"], 4);
    // The whole tool list stays small (its size is in the README).
    let list = &raw("tools_list")["messages"].as_array().unwrap()[0];
    let bytes = list["bytes"].as_u64().unwrap();
    eprintln!("tools/list: {bytes} bytes, about {} tokens", bytes / 4);
    assert!(bytes < 13_500, "tools/list is {bytes} bytes");
    assert_eq!(
        list["message"]["result"]["tools"].as_array().map(Vec::len),
        Some(TOOLS.len())
    );
    // Outside a vault, a tool that needs one is a tool error that says so...
    let status = &messages("no_vault")[0]["result"];
    assert!(is_error(status), "{status}");
    let t = text(status);
    assert!(t.starts_with("no vault found in "), "{t}");
    assert!(t.contains("hint: "), "{t}");
    // ...and one that needs none works.
    let describe = &messages("describe")[0]["result"];
    assert!(!is_error(describe), "{describe}");
    assert!(text(describe).len() > 1000);
    // Closing stdin ends the server cleanly.
    assert_eq!(raw("exit")["code"], 0);
}

/// `program` with the environment every `sparks` the tests run gets (no git identity).
fn with_test_env(program: impl AsRef<std::ffi::OsStr>, v: &TestVault) -> Command {
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

fn git_init(v: &TestVault) {
    let out = with_test_env("git", v)
        .args(["init", "-q"])
        .current_dir(&v.root)
        .output()
        .expect("git init");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_finalize_that_fails_part_way_says_what_was_done_and_parallel_writes_all_land() {
    // A repository without an identity: finalize archives, rewrites the inbox and scans, then
    // cannot commit.
    let twins = [TestVault::new(), TestVault::new()];
    for v in &twins {
        git_init(v);
        v.capture(&["first", "second"]);
    }
    let [mcp, cli] = twins;
    let texts: Vec<String> = (1..=8).map(|i| format!("task number {i}")).collect();
    let steps = vec![
        call(
            "sparks_prepare_ingest",
            json!({}),
            &["ingest", "--prepare"],
            0,
        ),
        call(
            "sparks_finalize_ingest",
            json!({}),
            &["ingest", "--finalize", "--json"],
            1,
        ),
        call(
            "sparks_ingest_status",
            json!({}),
            &["ingest", "--status"],
            0,
        ),
        call(
            "sparks_prepare_ingest",
            json!({}),
            &["ingest", "--prepare"],
            3,
        ),
        Step::Parallel(
            texts
                .iter()
                .map(|t| ("sparks_tasks_add", json!({"section": "Now", "text": t})))
                .collect(),
        ),
    ];
    let records = run_client(&mcp, &steps, false);
    let finalize = records
        .iter()
        .find(|r| r["step"] == 1)
        .expect("finalize ran");
    assert_eq!(finalize["tool"], "sparks_finalize_ingest");
    let t = text(&finalize["result"]);
    assert!(
        t.starts_with("finalize of ingest 1 stopped after plan, archive, inbox, scan"),
        "{t}"
    );
    assert!(
        t.contains("\n  caused by: ") && t.contains("\nhint: "),
        "{t}"
    );
    replay(&mcp, &cli, &steps, &records);
    let tasks = mcp.read("wiki/collections/Tasks.md");
    for t in &texts {
        assert_eq!(
            tasks.matches(&format!("- [ ] {t}\n")).count(),
            1,
            "{t}:\n{tasks}"
        );
    }
}

/// Two scanned vaults: one for the server, one for the commands it must agree with.
fn scanned_twins() -> [TestVault; 2] {
    let twins = [TestVault::new(), TestVault::new()];
    for v in &twins {
        v.run(&["scan"]).ok();
    }
    twins
}

/// The JSON result of a scenario's step.
fn result_of(records: &[Value], step: usize) -> Value {
    let r = records
        .iter()
        .find(|r| r["step"] == step)
        .unwrap_or_else(|| panic!("step {step} ran"));
    serde_json::from_str::<Value>(&text(&r["result"])).expect("a JSON result")
}

#[test]
fn regen_and_affected_see_a_file_written_after_the_last_scan() {
    let [mcp, cli] = scanned_twins();
    let steps = vec![
        // Nobody scans after this write.
        Step::Write {
            path: "raw/quotes/fresh.md",
            content: "> Simplicity is prerequisite for reliability.\n— Edsger Dijkstra\n".into(),
        },
        call("sparks_affected", json!({}), &["affected", "--json"], 0),
        call(
            "sparks_collections_regen",
            json!({}),
            &["collections", "regen", "--json"],
            0,
        ),
    ];
    let records = run_client(&mcp, &steps, false);
    let result = |step: usize| result_of(&records, step);
    assert_eq!(
        result(1)["reason"]["Quotes"],
        json!(["raw/quotes/fresh.md"])
    );
    let regen = result(2);
    let quotes = regen["collections"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["name"] == "Quotes")
        .unwrap_or_else(|| panic!("Quotes was regenerated: {regen}"));
    assert_eq!(quotes["status"], "written", "{regen}");
    assert!(
        mcp.read("wiki/collections/Quotes.md")
            .contains("Simplicity is prerequisite"),
        "the quote reached the page"
    );
    replay(&mcp, &cli, &steps, &records);
}

#[test]
fn a_page_written_after_the_session_started_is_in_every_answer() {
    let [mcp, cli] = scanned_twins();
    let steps = vec![
        call("sparks_status", json!({}), &["status", "--json"], 0),
        // Nobody scans after this write; the server's watcher (or the call's own refresh) sees it.
        Step::Write {
            path: "wiki/concepts/Latecomer.md",
            content: harness::page_text("Latecomer", "raw/inbox/2026-05-01.md", "Came late."),
        },
        call(
            "sparks_query",
            json!({"resolve": "Latecomer"}),
            &["query", "--resolve", "Latecomer", "--json"],
            0,
        ),
        call(
            "sparks_search",
            json!({"query": "late"}),
            &["search", "late", "--json"],
            0,
        ),
    ];
    let records = run_client(&mcp, &steps, false);
    let result = |step: usize| result_of(&records, step);
    assert_eq!(result(2)["resolves_to"], "wiki/concepts/Latecomer.md");
    assert_eq!(result(3)["total"], 1, "{}", result(3));
    replay(&mcp, &cli, &steps, &records);
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

#[test]
fn sparks_sync_never_tells_a_remote_url_s_credentials() {
    const SECRET: &str = "s3cr3tT0ken";
    let v = TestVault::new();
    harness::commit_all(&v);
    // Port 1: the connection is refused at once.
    let url = format!("http://user:{SECRET}@127.0.0.1:1/x.git");
    harness::git(&v, &v.root, &["remote", "add", "origin", &url]);
    let steps = vec![
        refused("sparks_sync", json!({}), "cannot fetch from origin"),
        refused("sparks_sync", json!({"dry_run": true}), "cannot fetch"),
        refused("sparks_sync", json!({"remote": "origin"}), "cannot fetch"),
    ];
    let (records, stderr) = run_client_with_stderr(&v, &steps, false);
    let calls: Vec<&Value> = records.iter().filter(|r| r["kind"] == "call").collect();
    assert_eq!(calls.len(), 3, "{records:?}");
    for r in calls {
        let text = text(&r["result"]);
        assert!(is_error(&r["result"]), "{r}");
        assert!(!text.contains(SECRET), "the token was told: {text}");
        assert!(text.contains("http://***@127.0.0.1:1/x.git"), "{text}");
    }
    assert!(
        !stderr.contains(SECRET),
        "the token reached stderr:\n{stderr}"
    );
}

/// `sparks_capture` whose entry reached the inbox but that the manifest could not record (held
/// by another process past the 30 s a write waits) answers with the capture and a warning, not
/// a tool error: an agent that took an error for "not captured" would capture it again.
#[test]
fn sparks_capture_the_manifest_cannot_record_answers_with_a_warning() {
    let v = TestVault::new();
    v.run(&["scan"]).ok();
    let held = harness::db(&v);
    held.execute_batch("BEGIN IMMEDIATE").unwrap();
    let steps = vec![call("sparks_capture", json!({"text": "kept once"}), &[], 0)];
    let records = run_client(&v, &steps, false);
    held.execute_batch("ROLLBACK").unwrap();
    let calls: Vec<&Value> = records.iter().filter(|r| r["kind"] == "call").collect();
    assert_eq!(calls.len(), 1, "{records:?}");
    assert!(!is_error(&calls[0]["result"]), "{}", calls[0]);
    let captured: Value = serde_json::from_str(&text(&calls[0]["result"])).unwrap();
    assert_eq!(captured["content"], "kept once", "{captured}");
    let warning = captured["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains("the manifest could not record it")
            && warning.contains("database is locked")
            && warning.ends_with("do not capture it again"),
        "{captured}"
    );
    assert_eq!(v.read("inbox.md").matches("kept once").count(), 1);
}
