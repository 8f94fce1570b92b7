//! The renderer's tests: Markdown in, HTML out (through `render`), and heading slugs.

use super::*;
use crate::markdown::outline::outline;

/// Render `body`, resolving every link target with `resolve`.
fn with(body: &str, resolve: impl Fn(&Link) -> Target) -> Rendered {
    let o = outline(body, 1);
    render(body, &wikilinks(&o.links, resolve), Some("Title"))
}

/// The links `links`, each resolved with `resolve`.
fn wikilinks(links: &[Link], resolve: impl Fn(&Link) -> Target) -> Vec<WikiLink<'_>> {
    links
        .iter()
        .map(|link| WikiLink {
            link,
            target: resolve(link),
        })
        .collect()
}

fn html(body: &str) -> String {
    with(body, |_| Target::Broken).html
}

fn found(path: &str) -> Target {
    Target::Found {
        href: format!("/{path}"),
        path: path.to_string(),
        image: None,
        missing_anchor: None,
    }
}

/// Nothing that can run script survives: elements, handlers, URL schemes.
fn assert_inert(out: &str) {
    let lower = out.to_lowercase();
    for bad in [
        "<script",
        "onerror",
        "onload",
        "onclick",
        "javascript:",
        "data:",
        "<iframe",
        "<svg",
        "<object",
        "<embed",
        "<style",
        "style=",
        "<form",
        "<meta",
        "<base",
        "<link",
    ] {
        assert!(!lower.contains(bad), "{bad:?} survived in {out}");
    }
}

#[test]
fn script_tags_are_removed_with_their_content() {
    let out =
        html("Hello <script>window.pwned=1</script> world\n\n<script>\nalert(1)\n</script>\n");
    assert_inert(&out);
    assert!(!out.contains("pwned") && !out.contains("alert"), "{out}");
    assert!(out.contains("Hello") && out.contains("world"));
}

#[test]
fn event_handlers_are_removed() {
    let out = html("<img src=x onerror=alert(1)>\n\n<p onclick=\"alert(1)\">text</p>\n");
    assert_inert(&out);
    assert!(out.contains("<img src=\"x\">"), "{out}");
}

#[test]
fn javascript_and_data_urls_are_removed() {
    let out = html(
        "[x](javascript:alert(1)) [y](JaVaScRiPt:alert(1)) [z](  javascript:alert(1))\n\n\
         <a href=\"data:text/html,<script>alert(1)</script>\">d</a>\n\n\
         ![i](data:image/svg+xml;base64,PHN2Zz4=)\n\n\
         <a href=\"java&#x73;cript:alert(1)\">e</a>\n",
    );
    assert_inert(&out);
    assert!(out.contains(">x</a>") && out.contains(">d</a>"), "{out}");
}

#[test]
fn frames_svg_and_styles_are_removed() {
    let out = html(
        "<iframe src=\"https://evil.example\"></iframe>\n\n<svg onload=alert(1)><circle/></svg>\n\n\
         <div style=\"position:fixed\">x</div>\n\n<style>body{display:none}</style>\n\n\
         <object data=\"x\"></object><embed src=\"x\">\n\n<form action=\"/x\"><input type=text name=a></form>\n\n\
         <base href=\"https://evil.example/\"><meta http-equiv=refresh content=\"0;url=https://evil.example\">\n",
    );
    assert_inert(&out);
    assert!(
        out.contains("type=\"checkbox\""),
        "inputs become disabled checkboxes: {out}"
    );
}

#[test]
fn safe_markup_survives() {
    let out = html(
        "| a | b |\n|:--|--:|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~old~~ new\n\n\
         Text[^n].\n\n[^n]: The note.\n\n```rust\nlet x = 1 < 2;\n```\n\n<kbd>Ctrl</kbd> <https://example.com>\n",
    );
    assert!(
        out.contains("<table>") && out.contains("align=\"right\""),
        "{out}"
    );
    assert!(out.contains("checked") && out.contains("disabled"), "{out}");
    assert!(out.contains("<del>old</del>"), "{out}");
    assert!(
        out.contains("class=\"footnote-ref\"") && out.contains("id=\"fn-n\""),
        "{out}"
    );
    assert!(
        out.contains("class=\"language-rust\"") && out.contains("1 &lt; 2"),
        "{out}"
    );
    assert!(out.contains("<kbd>Ctrl</kbd>"));
    assert!(out.contains("href=\"https://example.com\""), "{out}");
    assert!(out.contains("rel=\"noopener noreferrer\""), "{out}");
}

#[test]
fn wikilinks_with_labels_headings_and_blocks() {
    let body =
        "See [[Garden Plan#Soil Types|soil notes]], [[Cascade]], [[Note#^abc]] and [[Nope]].\n";
    let r = with(body, |l| match l.target.as_str() {
        "Garden Plan" => Target::Found {
            href: "/wiki/Garden%20Plan#soil-types".into(),
            path: "wiki/Garden Plan.md".into(),
            image: None,
            missing_anchor: None,
        },
        "Cascade" => found("wiki/Cascade"),
        "Note" => Target::Found {
            href: "/wiki/Note".into(),
            path: "wiki/Note.md".into(),
            image: None,
            missing_anchor: Some("block ^abc".into()),
        },
        _ => Target::Broken,
    });
    let h = &r.html;
    assert!(
        h.contains("<a class=\"wikilink\" href=\"/wiki/Garden%20Plan#soil-types\" title=\"wiki/Garden Plan.md\" rel=\"noopener noreferrer\">soil notes</a>"),
        "{h}"
    );
    assert!(h.contains(">Cascade</a>"), "{h}");
    assert!(h.contains("class=\"wikilink missing-anchor\""), "{h}");
    assert!(
        h.contains("title=\"wiki/Note.md has no block ^abc\""),
        "{h}"
    );
    assert!(
        h.contains(
            "<span class=\"wikilink broken\" title=\"no page or file matches “Nope”\">Nope</span>"
        ),
        "{h}"
    );
    assert!(!h.contains("[["), "no brackets left: {h}");
}

#[test]
fn ambiguous_links_point_to_a_search() {
    let r = with("[[Mercury]]\n", |_| Target::Ambiguous(2));
    assert!(
        r.html
            .contains("class=\"wikilink ambiguous\" href=\"/search?q=Mercury\""),
        "{}",
        r.html
    );
    assert!(r.html.contains("ambiguous: 2 pages match"), "{}", r.html);
}

#[test]
fn links_in_code_are_left_alone_and_labels_are_escaped() {
    let body = "`[[Inline]]`\n\n```\n[[Fenced]]\n```\n\n    [[Indented]]\n\n[[A|<b>bold</b> & co]] [[B|see [x]]]\n";
    let r = with(body, |l| found(&l.target));
    let h = &r.html;
    assert!(h.contains("<code>[[Inline]]</code>"), "{h}");
    assert!(
        h.contains("[[Fenced]]") && h.contains("[[Indented]]"),
        "{h}"
    );
    assert!(h.contains(">&lt;b&gt;bold&lt;/b&gt; &amp; co</a>"), "{h}");
    assert!(h.contains(">see [x</a>"), "{h}");
}

#[test]
fn a_label_with_emphasis_is_one_link() {
    let r = with("Read [[Cascade|*the* cascade]] now.\n", |l| {
        found(&l.target)
    });
    assert!(r.html.contains(">*the* cascade</a> now."), "{}", r.html);
    assert!(!r.html.contains("<em></em>"), "{}", r.html);
}

#[test]
fn links_in_tables_use_the_escaped_pipe() {
    let r = with("| a | b |\n|---|---|\n| [[Cascade\\|CC]] | x |\n", |l| {
        found(&l.target)
    });
    assert!(r.html.contains(">CC</a></td>"), "{}", r.html);
}

#[test]
fn embeds_of_images_are_inline_and_pages_are_links() {
    let r = with("![[diagram.png|300]]\n\n![[Other page]]\n", |l| {
        if l.target == "diagram.png" {
            Target::Found {
                href: "/wiki/diagram.png".into(),
                path: "wiki/diagram.png".into(),
                image: Some("/file/wiki/diagram.png".into()),
                missing_anchor: None,
            }
        } else {
            found("wiki/Other page")
        }
    });
    let h = &r.html;
    assert!(
        h.contains(
            "<img class=\"embed\" src=\"/file/wiki/diagram.png\" alt=\"diagram.png\" width=\"300\">"
        ),
        "{h}"
    );
    assert!(h.contains("class=\"wikilink embed\""), "{h}");
    assert!(!h.contains('!'), "the ! of an embed is consumed: {h}");
}

#[test]
fn headings_get_ids_and_a_repeated_title_h1_is_dropped() {
    let r = with(
        "# Title\n\n## Soil Types\n\nx\n\n## Soil Types\n\n### `code` & [[Link|Label]]\n",
        |l| found(&l.target),
    );
    assert_eq!(r.dropped_h1.as_deref(), Some("Title"));
    assert!(!r.html.contains("<h1"), "{}", r.html);
    assert!(r.html.contains("<h2 id=\"soil-types\">"), "{}", r.html);
    assert!(r.html.contains("<h2 id=\"soil-types-1\">"), "{}", r.html);
    let ids: Vec<&str> = r.toc.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["soil-types", "soil-types-1", "code-link-label"]);
    assert_eq!(r.toc[2].text, "code & Label");
    // A different H1 is kept.
    let kept = render("# Other\n\ntext\n", &[], Some("Title"));
    assert!(kept.html.contains("<h1 id=\"other\">"), "{}", kept.html);
    assert!(kept.dropped_h1.is_none());
}

#[test]
fn link_anchors_match_heading_ids() {
    // A link carries the heading key; the page renders the heading text: same slug.
    assert_eq!(slug(&crate::key::key("Soil Types")), slug("Soil Types"));
    assert_eq!(slug("Ünïcode Ça va?"), "ünïcode-ça-va");
    assert_eq!(slug("a -- b__c"), "a-b-c");
    assert_eq!(slug("???"), "section");
    // Obsidian's comparison: what a link may leave out lands on the same id.
    assert_eq!(slug("Part 1: Basics"), slug("Part 1 Basics"));
    assert_eq!(slug("`wikilink`"), slug("wikilink"));
    assert_eq!(
        slug("What is the Obsidian Hub?"),
        "what-is-the-obsidian-hub"
    );
}

#[test]
fn bare_urls_become_links_outside_code_and_links() {
    let h = html(
        "See https://example.com/a_b_c?x=1&y=2. And (http://x.org/wiki/Foo_(bar)), \
         [https://in.brackets/].\n\n\
         `https://in.code` and [label](https://link.example) and <https://auto.example>.\n\n\
         ```\nhttps://in.fence\n```\n\n\
         <a href=\"https://author.example\">https://author.example/text</a>\n\n\
         xhttps://not.a.url and https:// and https://-bad and HTTPS://Upper.Example/Path\n",
    );
    for want in [
        "<a href=\"https://example.com/a_b_c?x=1&amp;y=2\" rel=\"noopener noreferrer\">https://example.com/a_b_c?x=1&amp;y=2</a>.",
        "(<a href=\"http://x.org/wiki/Foo_(bar)\" rel=\"noopener noreferrer\">http://x.org/wiki/Foo_(bar)</a>),",
        "[<a href=\"https://in.brackets/\" rel=\"noopener noreferrer\">https://in.brackets/</a>].",
        "<code>https://in.code</code>",
        ">label</a>",
        "https://in.fence\n</code>",
        ">HTTPS://Upper.Example/Path</a>",
    ] {
        assert!(h.contains(want), "{want:?} missing from {h}");
    }
    // One link each: the author's link, the labelled link and the autolink are not nested.
    assert_eq!(
        h.matches("href=\"https://author.example\"").count(),
        1,
        "{h}"
    );
    assert_eq!(h.matches("<a ").count(), 7, "{h}");
    for bare in ["xhttps://not.a.url", "https:// and", "https://-bad"] {
        assert!(h.contains(bare), "{bare:?} stays text: {h}");
    }
    assert_inert(&h);
}

#[test]
fn a_bare_javascript_or_data_url_stays_text() {
    let h = html("javascript:alert(1) data:text/html,x https://ok.example/?q=javascript:x\n");
    assert!(
        !h.contains("href=\"javascript") && !h.contains("href=\"data"),
        "{h}"
    );
    assert_eq!(h.matches("<a ").count(), 1, "{h}");
    assert!(
        h.contains("<a href=\"https://ok.example/?q=javascript:x\""),
        "{h}"
    );
}

#[test]
fn block_markers_become_anchors() {
    let h = html("A paragraph. ^intro\n\n- item ^item-2\n\n```\ncode ^notablock\n```\n\nx ^ y\n");
    assert!(
        h.contains("A paragraph.<span class=\"block-anchor\" id=\"block-intro\"></span>"),
        "{h}"
    );
    assert!(h.contains("id=\"block-item-2\""), "{h}");
    assert!(h.contains("code ^notablock"), "{h}");
    assert!(h.contains("x ^ y"), "{h}");
}

#[test]
fn author_ids_and_classes_are_filtered() {
    let h = html(
        "<span class=\"wikilink evil\" id=\"ok-id\">a</span> <span id=\"x&quot; onclick=\">b</span>\n",
    );
    assert!(h.contains("class=\"wikilink\" id=\"ok-id\""), "{h}");
    assert!(!h.contains("evil") && !h.contains("onclick"), "{h}");
}

/// A body with every kind of block the renderer makes, `n` times over.
fn long_body(n: usize) -> String {
    let mut body = String::from("# Title\n\nIntro with [[Alpha]] and https://example.com/a_b.\n\n");
    for i in 0..n {
        body.push_str(&format!(
            "## Part {i}\n\nA *para* with [[Alpha|a label]], ![[Beta]] and a note[^n{i}]. ^blk{i}\n\n\
             - item https://example.com/{i}\n  - nested `code`\n\n\
             > [!NOTE]\n> an alert\n\n\
             | a | b |\n|:-|-:|\n| x | y |\n\n\
             ```\ncode https://not.a.link/{i}\n```\n\n\
             [^n{i}]: The note, with [[Alpha]].\n\n---\n\n"
        ));
    }
    body
}

/// Render `body` in runs of `run` events, every link broken but `Alpha`: what it renders to,
/// and in how many runs.
fn in_runs(body: &str, title: Option<&str>, run: usize) -> (Rendered, usize) {
    let o = outline(body, 1);
    let links = wikilinks(&o.links, |link| match link.target.as_str() {
        "Alpha" => found("wiki/Alpha.md"),
        _ => Target::Broken,
    });
    render_in_runs(body, &links, title, "", run)
}

#[test]
fn a_body_rendered_a_block_at_a_time_is_the_body_rendered_whole() {
    for body in [
        long_body(30),
        format!("Before.\n\n{}", long_body(3)),
        format!(
            "<!-- a comment -->\n\n{}<!--\nlong\n-->\n\n{}",
            long_body(3),
            long_body(2)
        ),
        // The author's HTML spans blocks: from it on, the rest is rendered whole.
        format!(
            "{}<div>\n\nopen *across* blocks\n\n</div>\n\n{}",
            long_body(3),
            long_body(3)
        ),
        format!(
            "{}<b>bold\n\nstill</b> https://example.com/x\n",
            long_body(2)
        ),
    ] {
        for title in [Some("Title"), Some("Other"), None] {
            let (whole, _) = in_runs(&body, title, usize::MAX);
            for run in [1, 7, 64] {
                let (runs, _) = in_runs(&body, title, run);
                assert_eq!(runs.html, whole.html, "runs of {run}, title {title:?}");
                assert_eq!(runs.toc, whole.toc);
                assert_eq!(runs.dropped_h1, whole.dropped_h1);
            }
        }
    }
    let (whole, one) = in_runs(&long_body(30), Some("Title"), usize::MAX);
    assert_eq!(one, 1);
    assert_eq!(whole.dropped_h1.as_deref(), Some("Title"));
    assert!(whole.html.contains("footnote-back") && whole.html.contains("align="));
    assert!(whole.html.contains("<a href=\"https://example.com/7\""));
}

#[test]
fn a_long_body_is_rendered_in_runs_until_the_authors_html_but_for_a_comment() {
    let generated = format!("<!-- made by a tool -->\n\n{}", long_body(30));
    let (_, runs) = in_runs(&generated, None, 64);
    assert!(runs > 20, "{runs} runs: a comment opens nothing");
    let spanning = format!("{}<div>\n\n{}</div>\n", long_body(2), long_body(30));
    let (_, runs) = in_runs(&spanning, None, 64);
    assert!(
        (2..10).contains(&runs),
        "{runs} runs: one from the <div> on"
    );
}
