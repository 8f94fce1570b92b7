//! `sparks related`: the pages nearest a page or a text, by meaning, words and links (issue
//! 52).

use crate::capture::with_stdin;
use crate::harness::TestVault;

/// The related pages' paths, best first.
fn related(v: &TestVault, args: &[&str]) -> Vec<String> {
    let mut all = vec!["related", "--json"];
    all.extend(args);
    v.run(&all).ok().json()["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

/// Pages on three subjects; none links to another.
fn subjects() -> TestVault {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Device Sync.md",
        "Device Sync",
        "Synchronise my notebook across computers with git, so both hold the same files.",
    )
    .page(
        "wiki/concepts/Omelette.md",
        "Omelette",
        "The recipe needs two eggs, butter and a hot pan.",
    )
    .page(
        "wiki/concepts/Compost.md",
        "Compost",
        "Kitchen scraps and leaves rot into soil for the garden beds.",
    );
    v
}

#[test]
fn a_page_without_links_finds_the_page_it_paraphrases() {
    let v = subjects();
    v.page(
        "wiki/concepts/Laptop and Phone.md",
        "Laptop and Phone",
        "Keeping the laptop and the phone identical: every document mirrored on both machines.",
    );
    v.run(&["scan"]).ok();
    let found = related(&v, &["Laptop and Phone"]);
    assert_eq!(found[0], "wiki/concepts/Device Sync.md", "{found:?}");
    assert!(
        !found.contains(&"wiki/concepts/Laptop and Phone.md".to_string()),
        "not itself"
    );
    let out = v
        .run(&["related", "Laptop and Phone", "--json"])
        .ok()
        .json();
    assert_eq!(out["page"], "wiki/concepts/Laptop and Phone.md");
    assert_eq!(out["hits"][0]["why"][0], "similar text");
    assert_eq!(out["hits"][0]["linked"], false);
}

#[test]
fn a_page_finds_what_its_neighbours_link_to_and_marks_what_it_links_to() {
    let v = subjects();
    // Two hubs link both to Compost and to Worms; Soil links to Compost. Soil's text shares no
    // word with Worms: only the graph ties them.
    v.page(
        "wiki/concepts/Worms.md",
        "Worms",
        "Red wrigglers eat scraps in a bin.",
    )
    .page(
        "wiki/concepts/Garden.md",
        "Garden",
        "See [[Compost]] and [[Worms]] and [[Soil]].",
    )
    .page(
        "wiki/concepts/Allotment.md",
        "Allotment",
        "Beds fed by [[Compost]] and [[Worms]].",
    )
    .page(
        "wiki/concepts/Soil.md",
        "Soil",
        "Loam holds water; it is fed with [[Compost]].",
    );
    v.run(&["scan"]).ok();
    let out = v.run(&["related", "Soil", "--json"]).ok().json();
    let hits = out["hits"].as_array().unwrap();
    let hit = |path: &str| hits.iter().find(|h| h["path"] == path).cloned();
    let worms = hit("wiki/concepts/Worms.md").expect("Worms, cited with Soil's neighbours");
    assert!(
        worms["why"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().starts_with("cited with it by")),
        "{worms}"
    );
    assert_eq!(worms["linked"], false);
    let compost = hit("wiki/concepts/Compost.md").expect("Compost, linked from Soil");
    assert_eq!(compost["linked"], true, "{compost}");
    assert_eq!(hit("wiki/concepts/Garden.md").unwrap()["linked"], false);
    // A related page the page links to is told apart in the human output too.
    let text = v.run(&["related", "Soil"]).ok().stdout;
    assert!(text.contains("Compost.md (Compost)"), "{text}");
    assert!(text.contains("linked already"), "{text}");
}

#[test]
fn a_text_is_read_from_the_argument_or_standard_input() {
    let v = subjects();
    v.run(&["scan"]).ok();
    let question = "keep every document identical on the laptop and the phone";
    assert_eq!(
        related(&v, &["--text", question])[0],
        "wiki/concepts/Device Sync.md"
    );
    for args in [
        &["related", "--json", "--text"][..],
        &["related", "--json", "--text", "-"],
    ] {
        let out = with_stdin(&v, args, question.as_bytes(), "related from stdin")
            .ok()
            .json();
        assert_eq!(out["page"], serde_json::Value::Null);
        assert_eq!(
            out["hits"][0]["path"], "wiki/concepts/Device Sync.md",
            "{args:?}"
        );
    }
    // Operators are not read: a leading minus is a word of the text.
    let out = v
        .run(&["related", "--json", "--text", "--", "-omelette", "eggs"])
        .ok()
        .json();
    assert_eq!(out["hits"][0]["path"], "wiki/concepts/Omelette.md");
}

#[test]
fn system_pages_generated_pages_and_conflict_copies_never_appear() {
    let v = subjects();
    let twin = "Synchronise my notebook across computers with git, so both hold the same files.";
    v.write(
        "wiki/concepts/Device Sync (conflict 2026-05-01).md",
        crate::harness::page_text("Device Sync", "", twin),
    );
    v.run(&["index"]).ok();
    v.run(&["scan"]).ok();
    let found = related(&v, &["--text", twin, "--limit", "50"]);
    assert_eq!(found[0], "wiki/concepts/Device Sync.md", "{found:?}");
    for f in &found {
        assert!(
            !f.contains("(conflict")
                && f != "wiki/index.md"
                && f != "wiki/log.md"
                && !f.starts_with("wiki/collections/"),
            "{f} in {found:?}"
        );
    }
    // The copy says what the page says, the index names it: neither is shown.
    assert_eq!(found, ["wiki/concepts/Device Sync.md"]);
}

#[test]
fn an_unknown_page_is_refused_naming_it_and_a_raw_file_is_not_a_page() {
    let v = subjects();
    v.write("raw/notes/idea.md", "An idea about compost.\n");
    v.run(&["scan"]).ok();
    let err = v.run(&["related", "Nothing Like This"]).code(1).stderr;
    assert!(err.contains("\"Nothing Like This\""), "{err}");
    let err = v.run(&["related", "raw/notes/idea.md"]).code(1).stderr;
    assert!(
        err.contains("raw/notes/idea.md is not a wiki page"),
        "{err}"
    );
    let usage = v.run(&["related"]).code(2).stderr;
    assert!(
        usage.contains("PAGE") || usage.contains("--text"),
        "{usage}"
    );
}

#[test]
fn prepare_says_where_each_capture_may_belong() {
    let v = subjects();
    v.capture(&[
        "Keep the laptop and the phone identical: mirror every document on both machines.",
        "Zxq vbn wrt plk.",
    ]);
    let out = v.run(&["ingest", "--prepare", "--json"]).ok().json();
    let entries = out["entries"].as_array().unwrap();
    let first = entries[0]["related"].as_array().unwrap();
    assert_eq!(
        first[0]["path"], "wiki/concepts/Device Sync.md",
        "{first:?}"
    );
    assert_eq!(first[0]["title"], "Device Sync");
    assert!(first[0]["score"].as_f64().unwrap() > 0.45, "{first:?}");
    assert!(first.len() <= 5);
    assert_eq!(
        entries[1]["related"],
        serde_json::json!([]),
        "nothing is close"
    );
    // The open batch, asked for again, says the same.
    let again = v.run(&["ingest", "--prepare", "--json"]).code(3).json();
    assert_eq!(again["entries"][0]["related"], entries[0]["related"]);
}

#[test]
fn prepare_in_an_empty_wiki_gives_every_entry_an_empty_list() {
    let v = TestVault::new();
    v.capture(&[
        "Synchronise my notebook across computers.",
        "Two eggs and butter.",
    ]);
    let out = v.run(&["ingest", "--prepare", "--json"]).ok().json();
    for e in out["entries"].as_array().unwrap() {
        assert_eq!(e["related"], serde_json::json!([]), "{e}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn mcp_related_takes_a_page_or_a_text() {
    use crate::mcp::{call, refused, replay, run_client};
    use serde_json::json;
    let (mcp, cli) = (subjects(), subjects());
    for v in [&mcp, &cli] {
        v.run(&["scan"]).ok();
    }
    let steps = vec![
        call(
            "sparks_related",
            json!({"page": "Device Sync", "limit": 2}),
            &["related", "Device Sync", "--limit", "2", "--json"],
            0,
        ),
        call(
            "sparks_related",
            json!({"text": "two eggs in a hot pan"}),
            &["related", "--text", "two eggs in a hot pan", "--json"],
            0,
        ),
        refused(
            "sparks_related",
            json!({"page": "Omelette", "text": "eggs"}),
            "give `page` or `text`, one of the two",
        ),
        refused(
            "sparks_related",
            json!({}),
            "give `page` or `text`, one of the two",
        ),
    ];
    let records = run_client(&mcp, &steps, false);
    replay(&mcp, &cli, &steps, &records);
}
