//! `sparks affected`: which collections changed since the last completed ingest, and why.

use crate::harness::TestVault;
use crate::snapshot;
use serde_json::{Value, json};

fn affected(v: &TestVault) -> Value {
    v.run(&["affected", "--json"]).ok().json()
}

fn scan(v: &TestVault) {
    v.run(&["scan"]).ok();
}

/// Capture `entries`, then prepare and finalize one ingest of them.
fn ingest(v: &TestVault, entries: &[&str]) {
    v.capture(entries);
    v.run(&["ingest", "--prepare"]).ok();
    v.run(&["ingest", "--finalize", "--json"]).ok();
}

/// The files behind one collection; only affected collections have a `reason`, as in the
/// original.
fn reasons(a: &Value, name: &str) -> Vec<String> {
    match &a["reason"][name] {
        Value::Null => Vec::new(),
        list => list
            .as_array()
            .unwrap_or_else(|| panic!("reason.{name} is a list: {a}"))
            .iter()
            .map(|p| p.as_str().expect("a path").to_string())
            .collect(),
    }
}

fn set_glob(v: &TestVault, key: &str, glob: &str) {
    let mut toml = v.read("sparks.toml");
    toml.push_str(&format!("\n[collections.{key}]\nglob = \"{glob}\"\n"));
    v.write("sparks.toml", toml);
}

#[test]
fn without_an_ingest_every_source_counts_and_only_real_matches() {
    let v = TestVault::new();
    v.write(
        "raw/quotes/craft.md",
        "> Simplicity is prerequisite\n— Dijkstra\n",
    )
    .write("raw/quotes/cover.png", [137u8, 80, 78, 71])
    .write("raw/weblinks/2026-05.md", "https://example.com\n")
    .write("raw/media/film.md", "# Film\n")
    .write("raw/ideas/garden.md", "# Garden\nstatus: active\n")
    .page("wiki/entities/Sparks.md", "Sparks", "A project.")
    .page("wiki/concepts/Idea.md", "Idea", "Not an entity.");
    scan(&v);
    let a = affected(&v);
    assert_eq!(a["since"], Value::Null);
    assert_eq!(
        a["affected"],
        json!(["Bookmarks", "Books", "Ideas", "Media", "Projects", "Quotes"]),
        "sorted as the original sorted them"
    );
    assert_eq!(
        reasons(&a, "Quotes"),
        ["raw/quotes/craft.md"],
        "the file-name part of the glob counts"
    );
    assert_eq!(reasons(&a, "Projects"), ["wiki/entities/Sparks.md"]);
    assert_eq!(
        reasons(&a, "Books"),
        ["raw/quotes/craft.md"],
        "books are named in quote attributions"
    );
    let keys: Vec<&String> = a["reason"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["Bookmarks", "Books", "Ideas", "Media", "Projects", "Quotes"],
        "the original's `reason`: one key per affected collection, in the same order"
    );
    let text = v.run(&["affected"]).ok();
    assert!(
        text.stderr.contains("no completed ingest"),
        "{}",
        text.stderr
    );
    snapshot!(v, text.stdout);
}

#[test]
fn only_changes_after_the_last_ingest_count() {
    let v = TestVault::new();
    v.write("raw/quotes/old.md", "> Before the ingest\n")
        .page("wiki/entities/Old.md", "Old", "x");
    scan(&v);
    ingest(&v, &["2026-04-10\njust a thought"]);
    let a = affected(&v);
    assert!(a["since"].is_string(), "{a}");
    assert_eq!(reasons(&a, "Quotes"), Vec::<String>::new(), "{a}");
    assert_eq!(reasons(&a, "Projects"), Vec::<String>::new(), "{a}");

    v.write("raw/quotes/new.md", "> After the ingest\n")
        .page("wiki/entities/New.md", "New", "x")
        .page("wiki/concepts/Other.md", "Other", "not an entity");
    scan(&v);
    let a = affected(&v);
    assert_eq!(reasons(&a, "Quotes"), ["raw/quotes/new.md"]);
    assert_eq!(reasons(&a, "Projects"), ["wiki/entities/New.md"]);
    // Books read quote attributions too; the archived thought is no idea (no `idea:`).
    assert_eq!(a["affected"], json!(["Books", "Projects", "Quotes"]), "{a}");
}

#[test]
fn what_the_last_ingest_archived_counts_by_what_it_holds() {
    let v = TestVault::new();
    ingest(
        &v,
        &[
            "book: Dune",
            "to-read: SICP",
            "> a quote, captured",
            "idea: a garden bot",
        ],
    );
    let a = affected(&v);
    let archive = "raw/inbox/2026-05-01.md";
    assert_eq!(
        a["affected"],
        json!(["Books", "Ideas", "Quotes", "ReadingList"]),
        "{a}"
    );
    for name in ["Quotes", "Books", "ReadingList", "Ideas"] {
        assert_eq!(reasons(&a, name), [archive], "{name}: {a}");
    }

    // The next ingest archives to another date: an idea, no book and nothing to read.
    ingest(&v, &["2026-04-10\nidea: plain thought"]);
    let a = affected(&v);
    assert_eq!(a["affected"], json!(["Ideas"]), "{a}");
    assert_eq!(reasons(&a, "Ideas"), ["raw/inbox/2026-04-10.md"]);

    // An archive file edited later is read too.
    let mut text = v.read("raw/inbox/2026-04-10.md");
    text.push_str("to-read: The Mythical Man-Month\n");
    v.write("raw/inbox/2026-04-10.md", text);
    scan(&v);
    let a = affected(&v);
    assert_eq!(a["affected"], json!(["Ideas", "ReadingList"]), "{a}");
}

#[test]
fn a_deleted_source_counts() {
    let v = TestVault::new();
    v.write("raw/quotes/a.md", "> one\n")
        .write("raw/quotes/b.md", "> two\n")
        .page("wiki/entities/Gone.md", "Gone", "x");
    scan(&v);
    ingest(&v, &["2026-04-10\nthought"]);
    std::fs::remove_file(v.path("raw/quotes/b.md")).unwrap();
    std::fs::remove_file(v.path("wiki/entities/Gone.md")).unwrap();
    scan(&v);
    let a = affected(&v);
    assert_eq!(reasons(&a, "Quotes"), ["raw/quotes/b.md"], "{a}");
    assert_eq!(reasons(&a, "Projects"), ["wiki/entities/Gone.md"], "{a}");
    assert_eq!(reasons(&a, "Bookmarks"), Vec::<String>::new());
}

#[test]
fn a_glob_override_is_matched_whole() {
    let v = TestVault::new();
    set_glob(&v, "quotes", "raw/quotes/*.md");
    set_glob(&v, "media", "raw/clips/**/*.txt");
    v.write("raw/quotes/top.md", "> top\n")
        .write(
            "raw/quotes/deep/nested.md",
            "> nested: * stays in one folder\n",
        )
        .write("raw/quotes/notes.txt", "> wrong extension\n")
        .write("raw/media/film.md", "# not a source any more\n")
        .write("raw/clips/a/b/c.txt", "a clip\n");
    scan(&v);
    let a = affected(&v);
    assert_eq!(reasons(&a, "Quotes"), ["raw/quotes/top.md"], "{a}");
    assert_eq!(reasons(&a, "Media"), ["raw/clips/a/b/c.txt"], "{a}");
}

#[test]
fn a_glob_that_leaves_the_vault_is_an_error() {
    let v = TestVault::new();
    set_glob(&v, "ideas", "../elsewhere/*.md");
    let r = v.run(&["affected"]).code(1);
    assert!(r.stderr.contains("[collections.ideas]"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
}

#[test]
fn files_written_after_the_last_scan_count_without_a_scan() {
    let v = TestVault::new();
    ingest(&v, &["2026-04-10\njust a thought"]);
    assert_eq!(v.run(&["affected"]).ok().stdout, "none\n");
    // Nobody runs `sparks scan`: affected sees the disk all the same.
    v.write(
        "raw/quotes/new.md",
        "> Written after the last scan\n— Anon\n",
    );
    let a = affected(&v);
    assert_eq!(a["affected"], json!(["Books", "Quotes"]), "{a}");
    assert_eq!(reasons(&a, "Quotes"), ["raw/quotes/new.md"]);
    let text = v.run(&["affected"]).ok();
    assert_eq!(
        text.stdout, "Books,Quotes\n",
        "the original's text: names, commas"
    );
    assert!(
        text.stderr.contains("Quotes: raw/quotes/new.md"),
        "the files behind each go to stderr: {}",
        text.stderr
    );
    assert_eq!(v.run(&["-q", "affected"]).ok().stderr, "");
}

#[test]
fn json_is_the_originals_shape_when_nothing_changed() {
    let v = TestVault::new();
    ingest(&v, &["2026-04-10\njust a thought"]);
    let a = affected(&v);
    assert_eq!(a["affected"], json!([]));
    assert_eq!(a["reason"], json!({}));
    assert!(
        a.get("scan_errors").is_none() && a.get("manifest_as_of").is_none(),
        "{a}"
    );
}
