//! `sparks view` on the inbox's archive files (`raw/inbox/<date>.md`): a list of the captures
//! as the file holds them, each dated, the separators kept, never a page whose first capture
//! is taken for frontmatter and whose one-line captures are taken for headings.

use crate::harness::TestVault;
use crate::view::{Server, has_foreign_script};

/// A vault whose archive file for 2026-04-10 holds three captures, written by a real ingest.
fn archived() -> TestVault {
    let v = TestVault::new();
    v.page("wiki/entities/Garden Plan.md", "Garden Plan", "The plot.\n");
    v.capture(&[
        "2026-04-10\nBuy seeds",
        "2026-04-10\nSee [[Garden Plan]]",
        "2026-04-10\nWater the beans\n<script>window.pwned=1</script>",
    ]);
    v.run(&["ingest", "--prepare"]).ok();
    v.run(&["ingest", "--finalize"]).ok();
    v
}

#[test]
fn an_archive_file_shows_every_capture_with_its_date_and_no_heading() {
    let v = archived();
    let file = v.read("raw/inbox/2026-04-10.md");
    assert_eq!(
        file.matches("---\n").count(),
        3,
        "the file as ingest wrote it:\n{file}"
    );
    assert!(file.starts_with("---\n<!-- sparks: ingest "), "{file}");
    let s = Server::start(&v, &[]);
    let page = s.get("/raw/inbox/2026-04-10").status(200).text();
    let start = page.find("<article class=\"prose\">").expect("an article");
    let end = page.rfind("</article>").expect("its end");
    let html = &page[start..end];
    let at = |s: &str| {
        html.find(s)
            .unwrap_or_else(|| panic!("{s:?} missing:\n{html}"))
    };
    // All three, the first included, in the file's order, none made a heading.
    assert!(at("<p>Buy seeds</p>") < at("See <a class=\"wikilink\""));
    assert!(at("href=\"/wiki/entities/Garden%20Plan\"") < at("Water the beans"));
    for n in 1..=6 {
        assert!(!html.contains(&format!("<h{n}")), "a heading:\n{html}");
    }
    assert!(html.contains("3 captures"), "{html}");
    assert_eq!(
        html.matches("<hr class=\"separator\">").count(),
        3,
        "a separator above each capture:\n{html}"
    );
    assert_eq!(
        html.matches("<time datetime=\"2026-04-10\">2026-04-10</time> · ingest 1")
            .count(),
        3,
        "each capture dated, with its ingest:\n{html}"
    );
    assert!(!html.contains("sparks: ingest"), "no marker shown:\n{html}");
    assert!(!has_foreign_script(&page), "sanitised like a page:\n{page}");
    // The source is the file, as it is.
    let source = s.get("/raw/inbox/2026-04-10?source").status(200).text();
    let pre = source
        .split("<pre class=\"source\">")
        .nth(1)
        .and_then(|p| p.split("</pre>").next())
        .expect("the source");
    let unescaped = pre
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    assert_eq!(unescaped, file);
}
