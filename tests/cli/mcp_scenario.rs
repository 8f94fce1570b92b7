//! The MCP scenario of `sparks serve`: one vault taken through a whole ingest cycle by the
//! Python SDK's client while the CLI runs the same operations on a twin; every tool answers
//! exactly what its command prints with `--json`, and the raw protocol's errors (garbage on
//! stdin, an unknown tool, wrong arguments) leave the server serving.

use crate::mcp::{
    Step, call, check_tools, fixture, is_error, refused, replay, run_client, text, trees_page,
};
use crate::mcp_stdio::check_raw;
use serde_json::json;

/// Every tool, in the order an agent's session might call them, each beside the command it
/// answers for.
fn scenario() -> Vec<Step> {
    [
        ingest_steps(),
        lookup_steps(),
        writing_steps(),
        refusal_steps(),
        later_steps(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Status, scan and the first ingest, prepared and finalized.
fn ingest_steps() -> Vec<Step> {
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
    ]
}

/// Lint, fmt and the lookups.
fn lookup_steps() -> Vec<Step> {
    vec![
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
    ]
}

/// Index, the writing tools, a second ingest and its revert, describe.
fn writing_steps() -> Vec<Step> {
    vec![
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
    ]
}

/// Refusals and failures, each a tool error with the command's message.
fn refusal_steps() -> Vec<Step> {
    vec![
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
             duplicate-titles, invalid-frontmatter, missing-embeds, missing-frontmatter, \
             near-duplicates, orphans, stale-pages, sync-conflicts, thin-pages)\nhint: did you mean `orphans`?",
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
             collections, exit-codes, git, devices, config, model, template)",
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
    ]
}

/// More refusals; publish and sync, each refused or answered as its command; the server still
/// serving after them.
fn later_steps() -> Vec<Step> {
    vec![
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
        // A dry run of publish says what it would write (nothing private: the fixture's
        // pages say nothing of publishing); a folder outside the vault is refused.
        call(
            "sparks_publish",
            json!({"dry_run": true, "all": true}),
            &["publish", "--dry-run", "--all", "--json"],
            0,
        ),
        refused(
            "sparks_publish",
            json!({"out": "../elsewhere"}),
            "is not a folder inside the vault",
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
