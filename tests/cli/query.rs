//! `sparks query`.

use crate::harness::TestVault;
use crate::snapshot;

/// A small wiki: pages with aliases, tags, links, a broken page and a stale one.
fn wiki() -> TestVault {
    let v = TestVault::new();
    let long = "A sentence of prose. ".repeat(3);
    v.write(
        "wiki/entities/Cascade.md",
        format!("---\ntitle: Cascade Engine\ntype: entity\nmaturity: stable\ntags: [gcp, Caching]\naliases: [CC4BQ, Cascade]\nsources: [raw/notes/cascade.md]\ncreated: 2026-04-01\nupdated: 2026-04-02\n---\n\n{long}\n"),
    )
    .write(
        "wiki/concepts/Pebble.md",
        format!("---\ntitle: Pebble Cache\ntype: concept\nmaturity: seed\ntags: ['#caching']\nsources: [raw/notes/pebble.md]\ncreated: 2026-04-03\nupdated: 2026-04-30\n---\n\nUses [[CC4BQ]] and [[Nowhere]]. {long}\n"),
    )
    .write(
        "wiki/synthesis/Landscape.md",
        "---\ntitle: Landscape\ntype: synthesis\nmaturity: working\nsources: [raw/notes/cascade.md]\ncreated: 2026-04-03\nupdated: 2026-04-03\n---\n\n[[cascade engine]], [[Pebble.md]] and `[[NotALink]]`.\n",
    )
    .write("wiki/concepts/Loose.md", "no frontmatter at all, [[Pebble Cache]]\n")
    .write("raw/notes/cascade.md", "raw")
    .write("raw/notes/pebble.md", "raw");
    v.settle();
    // The cascade source changed after Landscape's and Cascade's `updated:` dates.
    v.set_mtime("raw/notes/cascade.md", "2026-04-08")
        .set_mtime("raw/notes/pebble.md", "2026-04-03");
    v.run(&["scan"]).ok();
    v
}

fn paths(v: &TestVault, args: &[&str]) -> Vec<String> {
    let mut all = vec!["query"];
    all.extend_from_slice(args);
    v.run(&all)
        .ok()
        .stdout
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn frontmatter_filters() {
    let v = wiki();
    assert_eq!(
        paths(&v, &["--tag", "caching"]),
        ["wiki/concepts/Pebble.md", "wiki/entities/Cascade.md"]
    );
    assert_eq!(
        paths(&v, &["--tag", "#CACHING", "--type", "entity"]),
        ["wiki/entities/Cascade.md"]
    );
    assert_eq!(
        paths(&v, &["--title", "pebble cache"]),
        ["wiki/concepts/Pebble.md"]
    );
    assert_eq!(
        paths(&v, &["--alias", "cc4bq"]),
        ["wiki/entities/Cascade.md"]
    );
    assert_eq!(
        paths(&v, &["--maturity", "working", "--type", "synthesis"]),
        ["wiki/synthesis/Landscape.md"]
    );
    assert!(
        paths(&v, &["--type", "Entity"]).is_empty(),
        "types compare exactly"
    );
}

#[test]
fn graph_filters_resolve_names_like_links() {
    let v = wiki();
    // Pebble links to Cascade by alias, Landscape by title: both count.
    assert_eq!(
        paths(&v, &["--links-to", "Cascade Engine"]),
        ["wiki/concepts/Pebble.md", "wiki/synthesis/Landscape.md"]
    );
    assert_eq!(
        paths(&v, &["--links-to", "cc4bq"]),
        paths(&v, &["--links-to", "wiki/entities/Cascade.md"])
    );
    assert_eq!(
        paths(&v, &["--linked-from", "Landscape"]),
        ["wiki/concepts/Pebble.md", "wiki/entities/Cascade.md"]
    );
}

#[test]
fn links_to_a_name_no_page_has_lists_the_pages_that_link_to_it() {
    let v = wiki();
    // Pebble links to [[Nowhere]], a page nobody has written yet: the original listed it.
    assert_eq!(
        paths(&v, &["--links-to", "Nowhere"]),
        ["wiki/concepts/Pebble.md"]
    );
    assert_eq!(
        paths(&v, &["--links-to", "nowhere.md"]),
        ["wiki/concepts/Pebble.md"]
    );
    let j = v
        .run(&["query", "--links-to", "NOWHERE", "--json"])
        .ok()
        .json();
    assert_eq!(j["pages"][0]["path"], "wiki/concepts/Pebble.md");
    // Filters still combine: Pebble is no entity.
    assert!(paths(&v, &["--links-to", "Nowhere", "--type", "entity"]).is_empty());
    // A name nothing links to: no pages, exit 0, and stderr says so.
    let run = v.run(&["query", "--links-to", "Ghost"]).ok();
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "No page matches the query.\n");
    // --linked-from a page that does not exist is still an error naming it.
    let run = v.run(&["query", "--linked-from", "Ghost"]).code(1);
    assert!(run.stderr.contains("\"Ghost\""), "{}", run.stderr);
}

#[test]
fn no_result_says_so_on_stderr_only() {
    let v = wiki();
    let run = v.run(&["query", "--tag", "nothing-has-this"]).ok();
    assert_eq!(run.stdout, "", "stdout stays empty for scripts");
    assert_eq!(run.stderr, "No page matches the query.\n");
    let quiet = v.run(&["-q", "query", "--tag", "nothing-has-this"]).ok();
    assert_eq!((quiet.stdout.as_str(), quiet.stderr.as_str()), ("", ""));
    let json = v
        .run(&["query", "--tag", "nothing-has-this", "--json"])
        .ok();
    assert_eq!(json.json()["total"], 0);
    assert_eq!(json.stderr, "", "the JSON says it already");
    // A result says nothing on stderr.
    assert_eq!(v.run(&["query", "--tag", "gcp"]).ok().stderr, "");
}

#[test]
fn stale_orphan_thin() {
    let v = wiki();
    assert_eq!(
        paths(&v, &["--stale"]),
        ["wiki/entities/Cascade.md", "wiki/synthesis/Landscape.md"]
    );
    // Landscape: nothing links to it; Loose has no frontmatter, and nothing links to it either.
    assert_eq!(
        paths(&v, &["--orphan"]),
        ["wiki/concepts/Loose.md", "wiki/synthesis/Landscape.md"]
    );
    assert_eq!(
        paths(&v, &["--thin"]),
        ["wiki/concepts/Loose.md", "wiki/synthesis/Landscape.md"]
    );
}

#[test]
fn json_with_limit_says_it_was_cut() {
    let v = wiki();
    let run = v.run(&["query", "--limit", "2", "--json"]).ok();
    snapshot!(v, run.stdout);
    let j = run.json();
    assert_eq!(j["total"], 7);
    assert_eq!(j["truncated"], true);
    assert_eq!(j["pages"].as_array().unwrap().len(), 2);
    let all = v.run(&["query", "--json"]).ok().json();
    assert_eq!(all["truncated"], false);
}

#[test]
fn resolve_lists_every_collision() {
    let v = wiki();
    v.write("wiki/concepts/Big-Query.md", "---\ntitle: Big-Query\n---\n")
        .write("wiki/concepts/Caf\u{e9}.md", "x");
    v.run(&["scan"]).ok();
    let j = v
        .run(&["query", "--resolve", "cascade", "--json"])
        .ok()
        .json();
    assert_eq!(j["resolves_to"], "wiki/entities/Cascade.md");
    let vias: Vec<&str> = j["collisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["via"].as_str().unwrap())
        .collect();
    // The raw note named cascade is a link target too.
    assert_eq!(vias, ["alias", "file name", "file name"]);
    let j = v
        .run(&["query", "--resolve", "big_query", "--json"])
        .ok()
        .json();
    assert_eq!(j["exists"], false);
    assert_eq!(j["collisions"][0]["via"], "similar title");
    let j = v
        .run(&["query", "--resolve", "Cafe\u{301}", "--json"])
        .ok()
        .json();
    assert_eq!(
        j["resolves_to"], "wiki/concepts/Caf\u{e9}.md",
        "NFD finds NFC"
    );
    let j = v
        .run(&["query", "--resolve", "Brand New", "--json"])
        .ok()
        .json();
    assert_eq!(j["collisions"], serde_json::json!([]));
    snapshot!(v, v.run(&["query", "--resolve", "Cascade"]).ok().stdout);
}

#[test]
fn a_limit_that_is_not_a_whole_number_says_so() {
    let v = wiki();
    for bad in ["abc", "1.5", "99999999999999999999999"] {
        let run = v.run(&["query", "--limit", bad]).code(2);
        assert!(
            run.stderr
                .contains(&format!("invalid value '{bad}' for '--limit <N>'")),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("digit"), "{}", run.stderr);
    }
    let run = v.run(&["query", "--limit", "abc"]).code(2);
    assert!(
        run.stderr.contains("expected a whole number"),
        "{}",
        run.stderr
    );
    let run = v.run(&["search", "x", "--limit", "ten"]).code(2);
    assert!(
        run.stderr.contains("expected a whole number"),
        "{}",
        run.stderr
    );
    let run = v.run(&["ingest", "--prepare", "--limit", "ten"]).code(2);
    assert!(
        run.stderr.contains("expected a whole number"),
        "{}",
        run.stderr
    );
}
