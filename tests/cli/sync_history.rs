//! The history of ingests travels with the vault (issue 48, item 7): an ingest finalized on
//! one device is listed, shown and reverted on another, by its token (the same on every
//! device) or its id there; deleting the manifest forgets none.

use crate::harness::{TODAY, TestVault, commit_all, delete_manifest, git};
use crate::sync::{Devices, inbox, sync};
use serde_json::Value;

/// The inbox's entries without their date lines (a revert puts an entry back with its capture
/// date when the inbox it came from is not recorded, as on another device).
fn undated(v: &TestVault) -> Vec<String> {
    inbox(v)
        .into_iter()
        .map(|e| {
            e.strip_prefix(&format!("{TODAY}\n"))
                .unwrap_or(&e)
                .to_string()
        })
        .collect()
}

/// An ingest of everything in the inbox (a page, a log block); its token.
fn ingest(v: &TestVault, page: &str) -> String {
    crate::sync_twice::ingest(v, page);
    let list: Value = v.run(&["ingest", "--list", "--json"]).ok().json();
    list["ingests"][0]["token"].as_str().unwrap().to_string()
}

#[test]
fn an_ingest_made_on_one_device_is_listed_shown_and_reverted_on_the_other() {
    let d = Devices::new();
    d.a.run(&["capture", "Travel note one"]).ok();
    d.a.run(&["capture", "Travel note two"]).ok();
    let token = ingest(&d.a, "Trip");
    sync(&d.a);
    sync(&d.b);

    let list: Value = d.b.run(&["ingest", "--list", "--json"]).ok().json();
    let ingests = list["ingests"].as_array().unwrap();
    assert_eq!(ingests.len(), 1, "{list}");
    let i = &ingests[0];
    assert_eq!(
        (i["token"].as_str(), i["imported"].as_bool()),
        (Some(token.as_str()), Some(true))
    );
    assert_eq!(i["number"], 1, "its number on A: {i}");
    assert_eq!(i["state"], "completed");
    assert_eq!(i["archived"], 2);

    let shown: Value = d.b.run(&["ingest", "--show", &token, "--json"]).ok().json();
    let firsts: Vec<&str> = shown["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["first_line"].as_str().unwrap())
        .collect();
    assert_eq!(firsts, ["Travel note one", "Travel note two"], "{shown}");
    let pages: Vec<&str> = shown["page_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert!(pages.contains(&"wiki/concepts/Trip.md"), "{shown}");
    // The same ingest by its id on B.
    let id = i["ingest_id"].as_i64().unwrap().to_string();
    let by_id: Value = d.b.run(&["ingest", "--show", &id, "--json"]).ok().json();
    assert_eq!(by_id["token"], shown["token"]);

    // And over MCP, by the token.
    let mut mcp = crate::mcp_stdio::Served::start(&d.b);
    let over_mcp = mcp.call("sparks_ingest_show", serde_json::json!({"id": token}));
    assert_eq!(
        over_mcp["structuredContent"]["token"], shown["token"],
        "{over_mcp}"
    );
    drop(mcp);

    // Taken back on B: the captures return to the inbox, the page and the archive blocks go.
    d.b.run(&["ingest", "--revert", &token, "--json"]).ok();
    assert_eq!(undated(&d.b), ["Travel note one", "Travel note two"]);
    assert!(!d.b.path("wiki/concepts/Trip.md").exists());
    let archive = d.b.path(&format!("raw/inbox/{TODAY}.md"));
    assert!(
        !archive.exists()
            || !std::fs::read_to_string(&archive)
                .unwrap()
                .contains("Travel note"),
        "the archive blocks went"
    );
    sync(&d.b);
    sync(&d.a);
    assert_eq!(undated(&d.a), ["Travel note one", "Travel note two"]);
    let on_a: Value = d.a.run(&["ingest", "--list", "--json"]).ok().json();
    assert_eq!(on_a["ingests"][0]["state"], "reverted", "{on_a}");
}

#[test]
fn deleting_the_manifest_forgets_no_ingest_of_a_vault_in_git() {
    let v = TestVault::new();
    git(&v, &v.root, &["init", "-q", "-b", "main"]);
    git(&v, &v.root, &["config", "user.name", "a"]);
    git(&v, &v.root, &["config", "user.email", "a@example.com"]);
    commit_all(&v);
    v.run(&["capture", "Kept in history"]).ok();
    let token = ingest(&v, "Kept");
    delete_manifest(&v);
    let list: Value = v.run(&["ingest", "--list", "--json"]).ok().json();
    let i = &list["ingests"][0];
    assert_eq!(i["token"], token.as_str(), "{list}");
    assert_eq!(i["state"], "completed");
    v.run(&["ingest", "--revert", &token]).ok();
    assert_eq!(undated(&v), ["Kept in history"]);
}
