//! `sparks view`'s addresses and links: the original viewer's URLs answer directly, bare
//! URLs become links, the favicon answers, and heading links land on their heading.

use crate::harness::TestVault;
use crate::view::{Server, fixture};

/// The original viewer's URLs answer directly: a page at `/wiki/<path>` with or without `.md`,
/// a raw file at `/raw/<path>`, a tag at `/tag/<tag>` (the spec's name) and at `/tags/<tag>`
/// (the original's). The URLs of earlier versions of this viewer redirect to them.
#[test]
fn the_original_viewers_urls_answer_directly() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    for target in [
        "/wiki/entities/Garden%20Plan",
        "/wiki/entities/Garden%20Plan.md",
    ] {
        let r = s.get(target).status(200);
        assert_eq!(r.header("location"), "", "{target}");
        let html = r.text();
        assert!(
            html.contains("<h1 id=\"garden-plan\">Garden Plan</h1>") && html.contains("Loam"),
            "{target}: {html}"
        );
    }
    for target in ["/raw/inbox/2026-05-01", "/raw/inbox/2026-05-01.md"] {
        let html = s.get(target).status(200).text();
        assert!(html.contains("A capture about"), "{target}: {html}");
    }
    for target in [
        "/tag/gardening",
        "/tags/gardening",
        "/tags/Gardening",
        "/tags/%23gardening",
    ] {
        let html = s.get(target).status(200).text();
        assert!(html.contains("2 pages tagged."), "{target}: {html}");
    }
    for target in ["/tag/ai%2Fagents", "/tags/ai%2Fagents", "/tags/ai/agents"] {
        let html = s.get(target).status(200).text();
        assert!(html.contains("1 page tagged."), "{target}: {html}");
    }
    s.get("/tags/unknown").status(404);
    s.get("/wiki/missing").status(404);
    // Links, chips and the index use these URLs.
    let index = s.get("/").text();
    assert!(
        index.contains("href=\"/wiki/entities/Garden%20Plan\"")
            && index.contains("href=\"/tag/gardening\""),
        "{index}"
    );
    // Earlier forms redirect, once the file is known to exist.
    for (from, to) in [
        (
            "/page/wiki/entities/Garden%20Plan",
            "/wiki/entities/Garden%20Plan",
        ),
        (
            "/page/wiki/entities/Garden%20Plan.md",
            "/wiki/entities/Garden%20Plan",
        ),
        (
            "/page/wiki/concepts/Payload?source",
            "/wiki/concepts/Payload?source",
        ),
        ("/page/raw/inbox/2026-05-01.md", "/raw/inbox/2026-05-01"),
        ("/wiki", "/"),
        ("/wiki/", "/"),
        ("/tag", "/tags"),
        ("/tag/", "/tags"),
        ("/raw", "/raw/"),
    ] {
        assert_eq!(s.get(from).status(308).header("location"), to, "{from}");
    }
    s.get("/page/wiki/missing").status(404);
    // A file outside `wiki/` and `raw/` keeps its `/page/` URL.
    let inbox = s.get("/page/inbox").status(200);
    assert_eq!(inbox.header("location"), "");
}

/// Bare web addresses in a page are links (outside code), sanitised like any other link;
/// the browser's icon request is answered.
#[test]
fn bare_urls_are_links_and_the_favicon_answers() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Links.md",
        "Links",
        "Read https://example.com/a_b?x=1&y=2, or (see https://en.wikipedia.org/wiki/Rust_(programming_language)).\n\n\
         `https://in.code.example` and\n\n```\nhttps://in.fence.example\n```\n\n\
         javascript:alert(1) is text; <a href=\"https://author.example\">https://author.example/x</a>.",
    );
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let html = s.get("/wiki/concepts/Links").status(200).text();
    for want in [
        "<a href=\"https://example.com/a_b?x=1&amp;y=2\" rel=\"noopener noreferrer\">https://example.com/a_b?x=1&amp;y=2</a>,",
        "(see <a href=\"https://en.wikipedia.org/wiki/Rust_(programming_language)\" rel=\"noopener noreferrer\">",
        "<code>https://in.code.example</code>",
        "https://in.fence.example\n</code>",
        "<a href=\"https://author.example\" rel=\"noopener noreferrer\">https://author.example/x</a>",
    ] {
        assert!(html.contains(want), "{want:?} missing:\n{html}");
    }
    assert!(!html.contains("href=\"javascript"), "{html}");
    assert!(
        !html.contains("href=\"https://in."),
        "nothing in code is linked: {html}"
    );
    assert!(html.contains("<link rel=\"icon\" href=\"/favicon.ico\">"));

    let icon = s.get("/favicon.ico").status(200);
    assert_eq!(icon.header("content-type"), "image/x-icon");
    assert_eq!(&icon.body[..4], &[0, 0, 1, 0], "an ICO header");
    assert!(
        icon.body.windows(4).any(|w| w == b"\x89PNG"),
        "a PNG inside"
    );
}

/// A link to a heading lands on it when Obsidian's comparison finds it (punctuation, backticks
/// and spacing aside); a heading inside a `%%` comment is not there to land on.
#[test]
fn heading_links_land_on_headings_as_obsidian_compares_them() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Zotero 101.md",
        "Zotero 101",
        "## Part 1: Basics\n\nText.\n\n## What is the Obsidian Hub?\n\nMore.\n\n### `wikilink`\n\n\
         Even more.\n\n%%\n## Hidden\n%%\n\nBack to [[#Part 1 Basics]].",
    )
    .page(
        "wiki/concepts/Reader.md",
        "Reader",
        "[[Zotero 101#Part 1 Basics]], [[Zotero 101#What is the Obsidian Hub]], \
         [[Zotero 101#`wikilink`]] and [[Zotero 101#Hidden]].",
    );
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let target = s.get("/wiki/concepts/Zotero%20101").status(200).text();
    for id in ["part-1-basics", "what-is-the-obsidian-hub", "wikilink"] {
        assert!(target.contains(&format!(" id=\"{id}\">")), "{id}: {target}");
    }
    assert!(
        target.contains("href=\"#part-1-basics\""),
        "a link to a heading of the page itself: {target}"
    );
    let reader = s.get("/wiki/concepts/Reader").status(200).text();
    for id in ["part-1-basics", "what-is-the-obsidian-hub", "wikilink"] {
        assert!(
            reader.contains(&format!("href=\"/wiki/concepts/Zotero%20101#{id}\"")),
            "{id}: {reader}"
        );
    }
    assert_eq!(reader.matches("missing-anchor").count(), 1, "{reader}");
    assert!(reader.contains("has no heading “Hidden”"), "{reader}");
}
