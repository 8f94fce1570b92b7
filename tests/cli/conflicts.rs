//! Conflict copies a sync leaves beside a page (`<name> (conflict YYYY-MM-DD).md`): files that
//! search finds and lint lists under `sync-conflicts`, never pages that take a name from the
//! page they are a copy of.

use crate::harness::{TestVault, page_text};
use serde_json::Value;

const PAGE: &str = "wiki/concepts/Shared.md";
const COPY: &str = "wiki/concepts/Shared (conflict 2026-05-01).md";

/// The frontmatter both versions of the page have: titled Shared, aliased Common.
fn shared(body: &str) -> String {
    page_text("Shared", "raw/notes.md", body).replacen(
        "maturity: seed\n",
        "maturity: seed\naliases: [Common]\n",
        1,
    )
}

/// A vault that lints clean but for the copy: `Shared.md` and `Other.md` link to each other
/// (by title and by alias), every page long enough, its source older than the pages.
fn vault_with_a_copy() -> TestVault {
    let prose = "It has sentences. It has more of them. It has enough.";
    let v = TestVault::new();
    v.write("raw/notes.md", "Notes.\n")
        .set_mtime("raw/notes.md", "2026-01-01")
        .write(
            PAGE,
            shared(&format!("This device's text. {prose} [[Other]]")),
        )
        .write(
            COPY,
            shared(&format!(
                "The other device's text, with zebras. {prose} [[Other]]"
            )),
        )
        .write(
            "wiki/concepts/Other.md",
            page_text(
                "Other",
                "raw/notes.md",
                &format!("See [[Shared]] and [[Common]]. {prose}"),
            ),
        );
    v
}

/// The `path` of each item of a JSON list.
fn paths(list: &Value) -> Vec<&str> {
    let items = list.as_array().unwrap();
    items.iter().map(|i| i["path"].as_str().unwrap()).collect()
}

/// The issues of `lint --json`, as (check, path) pairs.
fn issues(j: &Value) -> Vec<(String, String)> {
    let items = j["issues"].as_array().unwrap();
    let pair = |i: &Value| {
        (
            i["check"].as_str().unwrap().into(),
            i["path"].as_str().unwrap().into(),
        )
    };
    items.iter().map(pair).collect()
}

#[test]
fn a_copy_takes_no_name_from_its_page() {
    let v = vault_with_a_copy();
    // Both links, by title and by alias, reach the page: neither is ambiguous.
    for name in ["Shared", "Common", PAGE] {
        let j = v.run(&["query", "--links-to", name, "--json"]).ok().json();
        let mut linking = paths(&j["pages"]);
        linking.retain(|p| !p.starts_with("wiki/index"));
        assert_eq!(linking, ["wiki/concepts/Other.md"], "{name}: {j}");
    }
    let j = v
        .run(&["query", "--resolve", "Shared", "--json"])
        .ok()
        .json();
    assert_eq!(j["resolves_to"], PAGE, "{j}");
    assert_eq!(j["ambiguous"], false, "{j}");
    assert!(paths(&j["collisions"]).iter().all(|p| *p == PAGE), "{j}");
    // Not even its own file name makes it a link target.
    let j = v
        .run(&[
            "query",
            "--resolve",
            "Shared (conflict 2026-05-01)",
            "--json",
        ])
        .ok()
        .json();
    assert_eq!(
        (&j["exists"], &j["collisions"]),
        (&Value::Bool(false), &serde_json::json!([])),
        "{j}"
    );
}

#[test]
fn search_finds_the_copy_and_the_index_does_not_list_it() {
    let v = vault_with_a_copy();
    let j = v.run(&["search", "zebras", "--json"]).ok().json();
    assert_eq!(paths(&j["hits"]), [COPY], "{j}");
    v.run(&["index"]).ok();
    let index = v.read("wiki/index.md");
    assert!(index.contains("[[Shared]]"), "{index}");
    assert!(!index.contains("conflict"), "{index}");
    let status = v.run(&["status", "--json"]).ok().json();
    assert_eq!(status["pages_by_type"]["concept"], 2, "{status}");
}

#[test]
fn lint_lists_the_copy_until_it_is_gone() {
    let v = vault_with_a_copy();
    let run = v.run(&["lint", "--json"]).code(1);
    let j = run.json();
    assert_eq!(
        issues(&j),
        [("sync-conflicts".to_string(), COPY.to_string())],
        "no duplicate title or alias, no ambiguous link, no orphan: {j}"
    );
    let message = j["issues"][0]["message"].as_str().unwrap();
    for says in [PAGE, "2026-05-01", "delete this copy"] {
        assert!(message.contains(says), "{message}");
    }
    assert_eq!(j["counts"]["sync-conflicts"], 1, "{j}");
    let text = v.run(&["lint"]).code(1).stdout;
    assert!(
        text.contains(&format!("sync-conflicts (1):\n  {COPY}")),
        "{text}"
    );
    // Reconciled: the copy deleted, lint is clean.
    std::fs::remove_file(v.path(COPY)).unwrap();
    let j = v.run(&["lint", "--json"]).ok().json();
    assert_eq!(j["total"], 0, "{j}");
}

#[test]
fn the_copy_of_a_page_that_is_gone_says_so() {
    let v = vault_with_a_copy();
    std::fs::remove_file(v.path(PAGE)).unwrap();
    let j = v
        .run(&[
            "lint",
            "--json",
            "--check",
            "sync-conflicts",
            "broken-links",
        ])
        .code(1)
        .json();
    let found: Vec<(String, String)> = issues(&j);
    assert!(
        found.contains(&("sync-conflicts".to_string(), COPY.to_string())),
        "{j}"
    );
    // The copy does not stand in for the page: the links to it are broken.
    let broken = found.iter().filter(|(c, _)| c == "broken-links").count();
    assert_eq!(broken, 2, "{j}");
    let copy = j["issues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["check"] == "sync-conflicts")
        .unwrap();
    assert!(
        copy["message"]
            .as_str()
            .unwrap()
            .contains(&format!("{PAGE} no longer exists")),
        "{copy}"
    );
}

#[test]
fn collections_read_no_copy() {
    let v = TestVault::new();
    let entity = |body: &str| {
        format!(
            "---\ntitle: Garden\ntype: entity\nmaturity: working\ntags: [project]\n\
             sources: [raw/a.md]\ncreated: 2026-04-01\nupdated: 2026-04-01\n---\n{body}\n"
        )
    };
    v.write("raw/a.md", "a")
        .write("raw/quotes/q.md", "> Make it work first.\n— Kent Beck\n")
        .write(
            "raw/quotes/q (conflict 2026-05-01).md",
            "> Make it right next.\n— Kent Beck\n",
        )
        .write("wiki/entities/Garden.md", entity("Here."))
        .write(
            "wiki/entities/Garden (conflict 2026-05-01).md",
            entity("There."),
        );
    v.run(&["collections", "regen"]).ok();
    let quotes = v.read("wiki/collections/Quotes.md");
    assert!(quotes.contains("Make it work first."), "{quotes}");
    assert!(!quotes.contains("Make it right next."), "{quotes}");
    let projects = v.read("wiki/collections/Projects.md");
    assert_eq!(projects.matches("Garden").count(), 1, "{projects}");
    assert!(!projects.contains("conflict"), "{projects}");
}

/// Two devices that rewrote the same line of `Shared.md`: B synced last and made the copy; A
/// has not synced since.
fn copy_made_on_b() -> (crate::sync::Devices, String) {
    use crate::sync::{Devices, sync};
    let d = Devices::with(|v| {
        v.write(PAGE, shared("The first text."));
    });
    d.a.write(PAGE, shared("A rewrote it."));
    sync(&d.a);
    d.b.write(PAGE, shared("B rewrote it."));
    let r = sync(&d.b);
    assert_eq!(
        r["conflicts"],
        serde_json::json!([{"path": PAGE, "copy": COPY, "brought": false}]),
        "{r}"
    );
    (d, COPY.to_string())
}

#[test]
fn the_device_that_receives_a_copy_by_fast_forward_is_told_and_status_lists_it() {
    let (d, copy) = copy_made_on_b();
    let r = crate::sync::sync(&d.a);
    assert_eq!(r["fast_forward"], true, "{r}");
    assert_eq!(
        r["conflicts"],
        serde_json::json!([{"path": PAGE, "copy": copy, "brought": true}]),
        "{r}"
    );
    assert_eq!(d.a.read(&copy), shared("A rewrote it."), "A's own text");
    // Told in words too: the copy and the page it is a version of.
    d.b.run(&["capture", "Something else"]).ok();
    crate::sync::sync(&d.b);
    let text = d.a.run(&["sync"]).ok().stdout;
    assert!(!text.contains("conflict"), "a copy is told once: {text}");
    // Status lists the copy on both devices until it is reconciled.
    for v in [&d.a, &d.b] {
        let s = v.run(&["status", "--json"]).ok().json();
        assert_eq!(
            s["conflict_copies"],
            serde_json::json!([{"path": PAGE, "copy": copy}]),
            "{s}"
        );
        let text = v.run(&["status"]).ok().stdout;
        assert!(
            text.contains(&format!("conflict: {copy}, a version of {PAGE}")),
            "{text}"
        );
    }
    // Lint says the same, rightly, on both: on A the copy holds A's own text.
    let message = |v: &TestVault| {
        let j = v
            .run(&["lint", "--check", "sync-conflicts", "--json"])
            .code(1)
            .json();
        j["issues"][0]["message"].as_str().unwrap().to_string()
    };
    let (on_a, on_b) = (message(&d.a), message(&d.b));
    assert_eq!(on_a, on_b);
    assert!(!on_a.contains("other device's"), "{on_a}");
    assert!(
        on_a.contains(&format!(
            "the version of {PAGE} that a sync on 2026-05-01 kept beside it"
        )),
        "{on_a}"
    );
    // Reconciled on A: gone from status there.
    std::fs::remove_file(d.a.path(&copy)).unwrap();
    let s = d.a.run(&["status", "--json"]).ok().json();
    assert_eq!(s["conflict_copies"], serde_json::json!([]), "{s}");
}

#[test]
fn a_dry_run_names_the_copy_a_fast_forward_would_bring() {
    let (d, copy) = copy_made_on_b();
    let r = d.a.run(&["sync", "--dry-run", "--json"]).ok().json();
    assert_eq!(
        r["conflicts"],
        serde_json::json!([{"path": PAGE, "copy": copy, "brought": true}]),
        "{r}"
    );
    let text = d.a.run(&["sync", "--dry-run"]).ok().stdout;
    assert!(
        text.contains(&format!(
            "conflict copy from the remote: {copy}, the version of {PAGE}"
        )),
        "{text}"
    );
}

#[test]
fn the_viewer_marks_the_copy_and_its_page_each_linking_the_other() {
    let v = vault_with_a_copy();
    v.run(&["scan"]).ok();
    let server = crate::view::Server::start(&v, &["--no-watch"]);
    let page_href = "/wiki/concepts/Shared";
    let copy_href = "/wiki/concepts/Shared%20%28conflict%202026-05-01%29";
    let copy_page = server.get(copy_href).status(200).text();
    assert!(
        copy_page.contains("<h1>Shared (conflict copy, 2026-05-01)</h1>"),
        "{copy_page}"
    );
    let notice = |html: &str| -> String {
        let start = html.find("<p class=\"notice warn\">").expect("a notice");
        html[start..start + html[start..].find("</p>").unwrap()].to_string()
    };
    let on_copy = notice(&copy_page);
    assert!(on_copy.contains("This is a conflict copy"), "{on_copy}");
    assert!(
        on_copy.contains(&format!("<a href=\"{page_href}\">")),
        "{on_copy}"
    );
    let page = server.get(page_href).status(200).text();
    assert!(page.contains("<h1>Shared</h1>"), "{page}");
    let on_page = notice(&page);
    assert!(
        on_page.contains("A sync kept another version of this page"),
        "{on_page}"
    );
    assert!(
        on_page.contains(&format!("<a href=\"{copy_href}\">")),
        "{on_page}"
    );
    // Another page has no such notice.
    let other = server.get("/wiki/concepts/Other").status(200).text();
    assert!(!other.contains("notice warn"), "{other}");
}
