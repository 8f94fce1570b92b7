//! `sparks view` draws the graph of links as inline SVG: `/graph` for the whole vault (the
//! most linked pages of a big one, with a note; `?tag=` and `?type=` narrow it) and each
//! page's neighbourhood in its sidebar. The tests read the nodes and edges back from the SVG's
//! `data-` attributes.

use crate::harness::TestVault;
use crate::view::{Server, has_foreign_script};
use std::collections::BTreeSet;

/// A links B and C, B links C, C links A, D links A; E links nothing. The index and a capture
/// link to pages too, and are no part of the graph.
fn fixture() -> TestVault {
    let v = TestVault::new();
    let page = |name: &str, kind: &str, tags: &str, body: &str| {
        format!("---\ntitle: {name}\ntype: {kind}\ntags: [{tags}]\n---\n\n{body}\n")
    };
    v.write(
        "wiki/a.md",
        page("Alpha", "concept", "", "See [[b]] and [[c]]."),
    )
    .write(
        "wiki/b.md",
        page("Beta", "entity", "", "See [[c]] twice: [[c]]."),
    )
    .write("wiki/c.md", page("Gamma", "concept", "", "Back to [[a]]."))
    .write("wiki/d.md", page("Delta", "entity", "x", "About [[a]]."))
    .write("wiki/e.md", page("Epsilon", "summary", "", "Alone."))
    .write("wiki/index.md", "[[a]] [[b]] [[c]] [[d]] [[e]]\n")
    .write(
        "raw/inbox/2026-05-01.md",
        "A capture about [[a]] and [[e]].\n",
    );
    v.settle();
    v.run(&["scan"]).ok();
    v
}

/// The nodes (paths) and edges (from, to) of the first SVG at or after `from` in `html`, and
/// the paths of the nodes marked as the page shown.
fn parse(html: &str, from: &str) -> (BTreeSet<String>, BTreeSet<(String, String)>, Vec<String>) {
    let start = html
        .find(from)
        .unwrap_or_else(|| panic!("no {from} in {html}"));
    let svg = &html[start..];
    let svg = &svg[svg.find("<svg").expect("an svg")..];
    let svg = &svg[..svg.find("</svg>").expect("its end")];
    let attr = |tag: &str, name: &str| -> String {
        let at = tag.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
        tag[at..at + tag[at..].find('"').unwrap()].to_string()
    };
    let mut nodes = BTreeSet::new();
    let mut current = Vec::new();
    for tag in svg.split("<a ").skip(1) {
        let tag = &tag[..tag.find('>').unwrap()];
        let path = attr(tag, "data-path");
        if tag.contains("aria-current=\"page\"") {
            current.push(path.clone());
        }
        nodes.insert(path);
    }
    let edges = svg
        .split("<line")
        .skip(1)
        .map(|tag| (attr(tag, "data-from"), attr(tag, "data-to")))
        .collect();
    (nodes, edges, current)
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| format!("wiki/{s}.md")).collect()
}

fn edges(items: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (format!("wiki/{a}.md"), format!("wiki/{b}.md")))
        .collect()
}

#[test]
fn the_whole_graph_has_every_page_and_link_but_the_index() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let html = s.get("/graph").status(200).text();
    let (nodes, found, current) = parse(&html, "<main>");
    // The new vault's log and task list are pages too.
    assert_eq!(
        nodes,
        set(&["a", "b", "c", "d", "e", "log", "collections/Tasks"])
    );
    assert_eq!(
        found,
        edges(&[("a", "b"), ("a", "c"), ("b", "c"), ("c", "a"), ("d", "a")])
    );
    assert!(current.is_empty());
    assert!(html.contains("7 pages, 5 links."), "{html}");
    assert!(html.contains("href=\"/wiki/a\""), "nodes are links: {html}");
    assert!(
        html.contains("<a class=\"node t-entity\" href=\"/wiki/b\""),
        "coloured by type: {html}"
    );
    assert!(!has_foreign_script(&html), "no script: {html}");
    assert!(
        html.contains("<a href=\"/graph\">Graph</a>"),
        "in the nav bar"
    );
}

#[test]
fn filters_narrow_the_graph() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let html = s.get("/graph?type=Entity").status(200).text();
    let (nodes, found, _) = parse(&html, "<main>");
    assert_eq!(nodes, set(&["b", "d"]));
    assert!(found.is_empty(), "{found:?}");
    assert!(
        html.contains("value=\"entity\""),
        "the form keeps the filter"
    );
    let html = s.get("/graph?tag=%23X").status(200).text();
    let (nodes, _, _) = parse(&html, "<main>");
    assert_eq!(nodes, set(&["d"]));
    let html = s.get("/graph?tag=nothing").status(200).text();
    assert!(html.contains("0 pages, 0 links."), "{html}");
}

#[test]
fn a_page_shows_its_neighbourhood_marked() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let html = s.get("/wiki/a").status(200).text();
    let (nodes, found, current) = parse(&html, "<section class=\"neighbourhood\">");
    assert_eq!(nodes, set(&["a", "b", "c", "d"]), "not the lone page");
    assert_eq!(
        found,
        edges(&[("a", "b"), ("a", "c"), ("b", "c"), ("c", "a"), ("d", "a")])
    );
    assert_eq!(current, ["wiki/a.md"]);
    // A page with no link either way has no graph.
    let html = s.get("/wiki/e").status(200).text();
    assert!(!html.contains("class=\"neighbourhood\""), "{html}");
}

#[test]
fn a_big_vault_draws_its_most_linked_pages_with_a_note() {
    let v = TestVault::new();
    v.write("wiki/hub.md", "---\ntitle: Hub\n---\n\nThe hub.\n");
    for i in 0..310 {
        v.write(
            &format!("wiki/p{i:03}.md"),
            format!("Page {i} links [[hub]].\n"),
        );
    }
    v.settle();
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let html = s.get("/graph").status(200).text();
    let (nodes, found, _) = parse(&html, "<main>");
    assert_eq!(nodes.len(), 300);
    assert!(nodes.contains("wiki/hub.md"), "the most linked page is in");
    // The hub, the vault's log and task list (no link either way, first by path), and 297.
    assert_eq!(found.len(), 297, "every page drawn links the hub");
    assert!(
        html.contains(
            "313 pages: too many to draw, so the 300 most linked are shown, with the 297 links"
        ),
        "{}",
        &html[html.find("<main>").unwrap()..][..600]
    );
    // The hub's neighbourhood stops at its first linking pages.
    let hub = s.get("/wiki/hub").status(200).text();
    let (nodes, _, _) = parse(&hub, "<section class=\"neighbourhood\">");
    assert_eq!(nodes.len(), 25, "the page and 24 of its 310 neighbours");
}
