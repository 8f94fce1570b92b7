//! `sparks view`'s search box: the text searched as `sparks search` does, the hits beyond those
//! shown counted, and extracts in plain text.

use crate::harness::TestVault;
use crate::view::{Server, fixture, has_foreign_script};

/// The search box searches the text as `sparks search` does (same index, same order), shows
/// an extract of each hit with the words marked, and escapes everything it shows.
#[test]
fn the_search_box_searches_the_text_like_sparks_search() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    // A word of the body only: no title, alias or file name has it.
    let loam = s.get("/search?q=loam").status(200).text();
    assert!(loam.contains("1 page for “loam”"), "{loam}");
    assert!(
        loam.contains(">Garden Plan</a> <span class=\"badge\">entity</span><p class=\"snippet\">")
            && loam.contains("<mark>Loam</mark>, mostly."),
        "{loam}"
    );
    // The order of `sparks search`, hit for hit.
    for q in [
        "mercury",
        "cascade",
        "garden OR terraces",
        "\"design notes\"",
        "plan* -mercury",
    ] {
        let cli = v.run(&["search", "--json", "--", q]).ok().json();
        let want: Vec<&str> = cli["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["path"].as_str().unwrap())
            .collect();
        assert!(!want.is_empty(), "{q}: the CLI finds something");
        let html = s
            .get(&format!("/search?q={}", encode(q)))
            .status(200)
            .text();
        let hits = &html[html.find("<ol class=\"hits\">").expect("hits")..];
        let hits = &hits[..hits.find("</ol>").unwrap()];
        let got: Vec<&str> = hits
            .split("<span class=\"meta\">")
            .skip(1)
            .map(|m| &m[..m.find("</span>").unwrap()])
            .collect();
        assert_eq!(got, want, "{q}");
        assert!(
            html.contains(&format!("{} for", count(want.len()))),
            "{html}"
        );
    }
    // Markup the page holds is found by its words but is no text of the extract (the extract
    // is what a reader sees), and it never runs.
    let script = s.get("/search?q=window+pwned").status(200).text();
    assert!(script.contains("1 page for “window pwned”"), "{script}");
    assert!(
        !has_foreign_script(&script) && !script.contains("&lt;script"),
        "{script}"
    );
    // Raw captures on request, both together, the wiki by default.
    let raw = s.get("/search?q=capture&in=raw").status(200).text();
    assert!(
        raw.contains("1 file for “capture”") && raw.contains("raw/inbox/2026-05-01.md"),
        "{raw}"
    );
    assert!(raw.contains("<option value=\"raw\" selected>"), "{raw}");
    assert!(
        s.get("/search?q=capture")
            .text()
            .contains("0 pages for “capture”")
    );
    let all = s.get("/search?q=garden&in=all").status(200).text();
    assert!(
        all.contains("wiki/entities/Garden Plan.md") && all.contains("raw/inbox/2026-05-01.md"),
        "{all}"
    );
    let empty = s.get("/search").status(200).text();
    assert!(empty.contains("<code>sparks search</code>"), "{empty}");
}

/// Percent-encode a query value.
fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `N page(s)` as the search page counts.
fn count(n: usize) -> String {
    format!("{n} {}", if n == 1 { "page" } else { "pages" })
}

/// More hits than are shown: the rest are counted, not dropped.
#[test]
fn search_hits_beyond_the_shown_are_counted() {
    let v = TestVault::new();
    for i in 0..53 {
        v.page(
            &format!("wiki/concepts/Light {i:02}.md"),
            &format!("Light {i:02}"),
            "A lighthouse stands here.",
        );
    }
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let html = s.get("/search?q=lighthouse").status(200).text();
    assert!(html.contains("53 pages for “lighthouse”"), "{html}");
    assert_eq!(
        html.matches("<mark>lighthouse</mark>").count(),
        50,
        "{html}"
    );
    assert!(html.contains("… and 3 more"), "{html}");
}

/// An extract in the search box is plain text: no heading, embed, link or emphasis syntax,
/// link labels shown; an archive's markers and separators are not in it.
#[test]
fn search_extracts_are_plain_text() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Zebrafish.md",
        "Zebrafish",
        "# Zebrafish\n\n![[fin.png]]\n\nThey **regrow** fins; see [[Regeneration|regrowth]] and [[Fins#Rays]].",
    );
    v.write(
        "raw/inbox/2026-04-10.md",
        "---\n<!-- sparks: ingest 1 k entry 1 blake3 h -->\nZebrafish regrow fins.\n---\n\
         <!-- sparks: ingest 1 k entry 2 blake3 h -->\nAnother capture.\n",
    );
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let html = s.get("/search?q=regrow&in=all").status(200).text();
    let hits = &html[html.find("<ol class=\"hits\">").expect("hits")..];
    let hits = &hits[..hits.find("</ol>").unwrap()];
    assert!(
        hits.contains("fin.png They <mark>regrow</mark> fins; see regrowth and Fins &gt; Rays."),
        "{hits}"
    );
    assert!(
        hits.contains("Zebrafish <mark>regrow</mark> fins. Another capture."),
        "{hits}"
    );
    for syntax in ["# ", "![[", "[[", "**", "--&gt;", "---", "blake3"] {
        assert!(!hits.contains(syntax), "{syntax:?} in {hits}");
    }
}
