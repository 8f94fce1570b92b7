//! `sparks view` for a reader. It shows embeds in place: a page, a section or a block of
//! another page, framed with a link to its source; nested embeds up to three deep; cycles,
//! missing targets and missing anchors as notices; whatever is embedded sanitised like the page
//! itself. A page that is not UTF-8 is named, not shown as garbage.

use crate::harness::TestVault;
use crate::view::{Server, has_foreign_script};

/// The vault: a host page embedding every form, and pages that nest, loop and attack.
fn fixture() -> TestVault {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Host.md",
        "Host",
        "Host intro.\n\n![[Whole]]\n\n![[Sections#Beta]]\n\n![[Blocks#^quote]]\n\n\
         ![[Nope]]\n\n![[Sections#Missing]]\n\n![[diagram.png]]\n\n![[report.pdf]]\n\n![[Evil]]\n",
    )
    .page(
        "wiki/concepts/Whole.md",
        "Whole",
        "# Whole\n\nWhole body text with a [[Sections|link]].\n",
    )
    .page(
        "wiki/concepts/Sections.md",
        "Sections",
        "## Alpha\n\nalpha text\n\n## Beta\n\nbeta text\n\n### Beta sub\n\nbeta sub text\n\n\
         ## Gamma\n\ngamma text\n",
    )
    .page(
        "wiki/concepts/Blocks.md",
        "Blocks",
        "first para\n\nthe quoted sentence ^quote\n\nlast para\n",
    )
    .page(
        "wiki/concepts/Evil.md",
        "Evil",
        "Evil text <script>window.pwned=1</script> <img src=x onerror=\"window.pwned=2\"> \
         [x](javascript:alert(1))\n",
    )
    .page(
        "wiki/concepts/Chain1.md",
        "Chain1",
        "chain1 text\n\n![[Chain2]]\n",
    )
    .page(
        "wiki/concepts/Chain2.md",
        "Chain2",
        "chain2 text\n\n![[Chain3]]\n",
    )
    .page(
        "wiki/concepts/Chain3.md",
        "Chain3",
        "chain3 text\n\n![[Chain4]]\n",
    )
    .page(
        "wiki/concepts/Chain4.md",
        "Chain4",
        "chain4 text\n\n![[Chain5]]\n",
    )
    .page("wiki/concepts/Chain5.md", "Chain5", "chain5 text\n")
    .page(
        "wiki/concepts/LoopA.md",
        "LoopA",
        "loop a text\n\n![[LoopB]]\n",
    )
    .page(
        "wiki/concepts/LoopB.md",
        "LoopB",
        "loop b text\n\n![[LoopA]]\n",
    )
    .page(
        "wiki/concepts/Mirror.md",
        "Mirror",
        "mirror text\n\n![[Mirror]]\n",
    )
    .write("wiki/diagram.png", b"\x89PNG\r\n\x1a\n")
    .write("wiki/report.pdf", b"%PDF-1.4\n");
    v.settle();
    v.run(&["scan"]).ok();
    v
}

/// The article of a page: what its file became.
fn article(html: &str) -> &str {
    let start = html.find("<article class=\"prose\">").expect("an article");
    let end = html.rfind("</article>").expect("its end");
    &html[start..end]
}

/// The text of the frame whose caption links to `href`, up to the next frame's start.
fn frame<'a>(html: &'a str, href: &str) -> &'a str {
    let caption = format!("<a class=\"embed-source\" href=\"{href}\"");
    let at = html
        .find(&caption)
        .unwrap_or_else(|| panic!("no frame of {href} in {html}"));
    let rest = &html[at..];
    let end = rest[1..]
        .find("<figure class=\"embed")
        .map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

#[test]
fn each_form_is_shown_in_a_frame_linking_to_its_source() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let page = s.get("/wiki/concepts/Host").status(200).text();
    let html = article(&page);
    // The whole page: its body without frontmatter, its leading H1 left to the caption.
    let whole = frame(html, "/wiki/concepts/Whole");
    assert!(whole.contains(">Whole</a></figcaption>"), "{whole}");
    assert!(whole.contains("Whole body text with a"), "{whole}");
    assert!(
        whole.contains("href=\"/wiki/concepts/Sections\""),
        "links inside resolve: {whole}"
    );
    for fm in ["title:", "sources:", "maturity", "<h1"] {
        assert!(!whole.contains(fm), "{fm:?} in {whole}");
    }
    // A section: to the next heading of its level, its subsections included.
    let beta = frame(html, "/wiki/concepts/Sections#beta");
    assert!(beta.contains(">Sections › Beta</a>"), "{beta}");
    assert!(
        beta.contains("beta text") && beta.contains("beta sub text"),
        "{beta}"
    );
    for other in ["alpha text", "gamma text"] {
        assert!(!beta.contains(other), "{other:?} in {beta}");
    }
    // A block: its paragraph alone.
    let block = frame(html, "/wiki/concepts/Blocks#block-quote");
    assert!(block.contains("the quoted sentence"), "{block}");
    assert!(
        !block.contains("first para") && !block.contains("last para"),
        "{block}"
    );
    // Frames replace their paragraph rather than break it.
    assert!(!html.contains("<p><figure"), "{html}");
    // A missing page and a missing heading: notices, not content.
    assert!(
        html.contains("Not embedded: no page or file matches “Nope”."),
        "{html}"
    );
    assert!(
        html.contains("Not embedded: wiki/concepts/Sections.md has no heading “Missing”."),
        "{html}"
    );
    // Images stay images; other attachments are links.
    assert!(
        html.contains("<img class=\"embed\" src=\"/file/wiki/diagram.png\""),
        "{html}"
    );
    assert!(
        html.contains("class=\"wikilink embed\" href=\"/wiki/report.pdf\""),
        "{html}"
    );
}

#[test]
fn embeds_nest_three_deep_and_no_deeper() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let html = s.get("/wiki/concepts/Chain1").status(200).text();
    let html = article(&html);
    for shown in ["chain1 text", "chain2 text", "chain3 text", "chain4 text"] {
        assert!(html.contains(shown), "{shown:?} missing: {html}");
    }
    assert!(!html.contains("chain5 text"), "{html}");
    assert!(
        html.contains("Not embedded: embeds nest 3 deep at most; open Chain5 to read it."),
        "{html}"
    );
    assert!(html.contains("href=\"/wiki/concepts/Chain5\""), "{html}");
    // Anchor ids inside embeds are their own.
    assert_eq!(
        html.matches("<figure class=\"embed\">").count(),
        3,
        "{html}"
    );
}

#[test]
fn a_cycle_is_a_notice_not_a_loop() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let html = s.get("/wiki/concepts/LoopA").status(200).text();
    let html = article(&html);
    assert_eq!(html.matches("loop a text").count(), 1, "{html}");
    assert_eq!(html.matches("loop b text").count(), 1, "{html}");
    assert!(
        html.contains("Not embedded: LoopA embeds itself here"),
        "{html}"
    );
    let html = s.get("/wiki/concepts/Mirror").status(200).text();
    let html = article(&html);
    assert_eq!(html.matches("mirror text").count(), 1, "{html}");
    assert!(
        html.contains("Not embedded: Mirror embeds itself here"),
        "{html}"
    );
}

#[test]
fn what_is_embedded_is_sanitised() {
    let v = fixture();
    let s = Server::start(&v, &[]);
    let page = s.get("/wiki/concepts/Host").status(200).text();
    let evil = frame(article(&page), "/wiki/concepts/Evil");
    assert!(evil.contains("Evil text"), "{evil}");
    let lower = evil.to_lowercase();
    for bad in ["<script", "onerror", "javascript:", "pwned"] {
        assert!(!lower.contains(bad), "{bad:?} survived: {evil}");
    }
    assert!(!has_foreign_script(&page), "{page}");
}

/// A Markdown file that is not UTF-8 is named in a notice, alone or embedded, not shown as
/// garbage.
#[test]
fn a_page_that_is_not_utf8_is_named_not_shown() {
    let v = TestVault::new();
    v.write("wiki/concepts/Latin.md", b"caf\xe9 cr\xe8me\n")
        .page("wiki/concepts/Menu.md", "Menu", "![[Latin]]\n");
    v.settle();
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let page = s.get("/wiki/concepts/Latin").status(200).text();
    assert!(
        page.contains(
            "<code>wiki/concepts/Latin.md</code> is not UTF-8 text (the first byte that is not is at offset 3)"
        ),
        "{page}"
    );
    assert!(
        !page.contains('\u{fffd}') && !page.contains("caf"),
        "{page}"
    );
    let menu = s.get("/wiki/concepts/Menu").status(200).text();
    assert!(
        menu.contains("Not embedded: wiki/concepts/Latin.md is not UTF-8 text"),
        "{menu}"
    );
}

/// A page of `n` bytes or a little more: lines of words, a heading now and then.
fn large_body(n: usize) -> String {
    let mut body = String::with_capacity(n + 100);
    let mut i = 0;
    while body.len() < n {
        if i % 100 == 0 {
            body.push_str(&format!("## Part {i}\n\n"));
        }
        body.push_str(&format!(
            "line {i} of a long page, words and words and words.\n\n"
        ));
        i += 1;
    }
    body
}

/// Embeds are bounded by the bytes they render as well as by their count: a page embedding a
/// large page a hundred times shows it once, then notices that link to it, and answers.
#[test]
fn embeds_stop_at_two_megabytes_of_text_per_page() {
    let v = TestVault::new();
    v.page("wiki/concepts/Big.md", "Big", &large_body(1_200_000))
        .page("wiki/concepts/Small.md", "Small", "small text\n")
        .page(
            "wiki/concepts/Many.md",
            "Many",
            &format!("{}![[Small]]\n", "![[Big]]\n\n".repeat(100)),
        );
    v.settle();
    v.run(&["scan"]).ok();
    let s = Server::start(&v, &[]);
    let started = std::time::Instant::now();
    let page = s.get("/wiki/concepts/Many").status(200).text();
    let html = article(&page);
    // Generous: an unbounded render of this page takes minutes in a debug build.
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
    // The first embed fits; a second would pass 2 MB, so it and every one after is a notice,
    // each in a frame linking to the page, and none counts against the 64 embeds.
    assert_eq!(html.matches("line 11999 of a long page").count(), 1);
    let notice = "Not embedded: embeds show 2 MB of text per page at most; open Big to read it.";
    assert_eq!(html.matches(notice).count(), 99, "{}", &html[..2000]);
    assert_eq!(
        html.matches("<a class=\"embed-source\" href=\"/wiki/concepts/Big\"")
            .count(),
        100
    );
    assert!(!html.contains("already shows 64 embeds"));
    // What fits in the room left is still shown.
    assert!(html.contains("small text"));
}
