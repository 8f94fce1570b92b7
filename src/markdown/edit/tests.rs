//! The edits' tests: each checks the bytes it must change and the bytes it must keep. They
//! go through the public edits only, so they hold whatever shape the pieces take; one file
//! rather than one per piece for that reason, which is why it runs past 400 lines.

use super::*;
use crate::markdown::Frontmatter;

fn fm(text: &str) -> Frontmatter {
    match frontmatter::split(text).block {
        Block::Valid(f) => f,
        other => panic!("not a valid block: {other:?}\n{text}"),
    }
}

/// The body and every line of the block except those named, for comparing before/after.
fn others<'t>(text: &'t str, except: &[&str]) -> Vec<&'t str> {
    text.split_inclusive('\n')
        .filter(|l| !except.iter().any(|k| l.trim_start().starts_with(k)))
        .collect()
}

const PAGE: &str = "---\n# A page about caches\ntitle: Pebble Cache  # the name\ntype: concept\n\
                    maturity: 'seed'\ntags: [\"#Caching\", db]\naliases:\n  - pcache # short\n  - PC\n\
                    sources: [raw/a.md]\ncreated: 2026-03-02\nupdated: \"2026/03/09\"\nowner: me\n---\n\nBody: [[x]]\n";

#[test]
fn an_indented_or_flow_mapping_is_left_alone() {
    // Found by the `edit` fuzz target: a key added at column 0 broke the block.
    for text in [
        "---\n  title: x\n  tags:\n  - a\n---\nbody\n",
        "---\n{title: x}\n---\n",
    ] {
        assert!(matches!(frontmatter::split(text).block, Block::Valid(_)));
        assert_eq!(set_scalar(text, "updated", "2026-05-01"), None);
        assert_eq!(set_list(text, "tags", &["b"]), None);
        assert_eq!(reorder(text, &["tags"]), None);
    }
}

#[test]
fn an_edit_that_would_break_the_block_is_refused() {
    // Found by the `edit` fuzz target: the lines of a quoted scalar continued at column 0
    // were taken for keys and moved, and the block no longer read.
    let text = "---\ntype: concept\naliases:\n  - \"x\ntagq: [a, 'b\ntitle: y\"\n---\nbody\n";
    assert!(matches!(frontmatter::split(text).block, Block::Valid(_)));
    assert_eq!(reorder(text, &["title", "type", "tags"]), None);
    // A key line inside such a scalar is not a key: the value it seems to hold already is
    // no reason to report the edit done.
    let text = "---\naliases:\n  - \"x\ntitle: a value\ny\"\n---\n";
    assert!(matches!(frontmatter::split(text).block, Block::Valid(_)));
    assert_eq!(set_scalar(text, "title", "a value"), None);
    // And a list nested in a list: its inner items were taken for one folded item, so the
    // tags read back as `[a - b, c]`; refused rather than written wrong.
    let text = "---\ntags:\n- - a\n  - b\n---\n";
    assert_eq!(set_list(text, "tags", &["a", "b", "c"]), None);
    assert!(set_list("---\ntags:\n- a\n- b\n---\n", "tags", &["a", "b", "c"]).is_some());
}

#[test]
fn no_block_no_edit() {
    for text in [
        "# Just text\n",
        "---\ntitle: A\n",
        "---\ntitle: [a\n---\n",
        "---\n- a\n---\n",
        "",
    ] {
        assert_eq!(set_scalar(text, "title", "A"), None, "{text:?}");
        assert_eq!(set_list(text, "tags", &["a"]), None);
        assert_eq!(reorder(text, &frontmatter::KEY_ORDER), None);
        assert_eq!(keys(text), None);
    }
}

#[test]
fn keys_lines_and_shapes() {
    assert_eq!(
        keys(PAGE).unwrap(),
        [
            "title", "type", "maturity", "tags", "aliases", "sources", "created", "updated",
            "owner"
        ]
    );
    assert_eq!(key_line(PAGE, "title"), Some(3));
    assert_eq!(key_line(PAGE, "sources"), Some(10));
    assert_eq!(key_line(PAGE, "nope"), None);
    assert_eq!(shape(PAGE, "tags"), Some(Shape::List));
    assert_eq!(shape(PAGE, "aliases"), Some(Shape::List));
    assert_eq!(shape(PAGE, "title"), Some(Shape::Scalar));
    assert_eq!(shape(PAGE, "nope"), Some(Shape::Absent));
    assert_eq!(
        shape("---\ntags:\nm:\n  a: 1\n---\n", "tags"),
        Some(Shape::Empty)
    );
    assert_eq!(
        shape("---\ntags:\nm:\n  a: 1\n---\n", "m"),
        Some(Shape::Mapping)
    );
}

#[test]
fn set_scalar_changes_only_its_value() {
    let out = set_scalar(PAGE, "updated", "2026-03-09").unwrap();
    assert!(
        out.contains("\nupdated: \"2026-03-09\"\n"),
        "double quotes kept:\n{out}"
    );
    assert_eq!(others(&out, &["updated"]), others(PAGE, &["updated"]));
    let out = set_scalar(PAGE, "title", "Pebble").unwrap();
    assert!(
        out.contains("\ntitle: Pebble  # the name\n"),
        "comment kept:\n{out}"
    );
    let out = set_scalar(PAGE, "maturity", "working").unwrap();
    assert!(
        out.contains("\nmaturity: 'working'\n"),
        "single quotes kept:\n{out}"
    );
    assert_eq!(fm(&out).maturity.as_deref(), Some("working"));
}

#[test]
fn set_scalar_adds_an_absent_key_at_the_end() {
    let out = set_scalar("---\ntitle: A\n\n---\nbody\n", "updated", "2026-05-01").unwrap();
    assert_eq!(out, "---\ntitle: A\nupdated: 2026-05-01\n\n---\nbody\n");
    assert_eq!(
        set_scalar("---\n---\n", "title", "A").unwrap(),
        "---\ntitle: A\n---\n"
    );
}

#[test]
fn set_scalar_replaces_a_multiline_value() {
    let text = "---\ntitle: >  # folded\n  a long\n  title\n\ntype: concept\n---\n";
    let out = set_scalar(text, "title", "Short").unwrap();
    assert_eq!(out, "---\ntitle: Short  # folded\n\ntype: concept\n---\n");
    let out = set_scalar("---\ntitle:\n  - a\n---\n", "title", "A").unwrap();
    assert_eq!(out, "---\ntitle: A\n---\n");
}

#[test]
fn values_that_need_quotes_round_trip() {
    let nasty = [
        "a: b",
        "#tag",
        "[x]",
        "{x}",
        "*star",
        "&anchor",
        "!bang",
        "|pipe",
        ">gt",
        "'q",
        "\"dq",
        "%p",
        "@at",
        "`tick",
        "yes",
        "No",
        "true",
        "FALSE",
        "null",
        "~",
        " lead",
        "trail ",
        "42",
        "007",
        "3.14",
        "1e3",
        "0x1F",
        "12:30",
        "-",
        "- a",
        "? x",
        "a #b",
        "ends:",
        "it's",
        "tab\there",
        "line\nbreak",
        "",
        "\u{2028}",
        "back\\slash",
        "-1",
        ".inf",
        "on",
    ];
    for v in nasty {
        for (style, text) in [
            ("plain", "---\ntitle: x\n---\n"),
            ("single", "---\ntitle: 'x'\n---\n"),
            ("double", "---\ntitle: \"x\"\n---\n"),
            ("absent", "---\ntype: concept\n---\n"),
        ] {
            let out = set_scalar(text, "title", v).unwrap();
            assert_eq!(
                fm(&out).title.as_deref(),
                Some(v),
                "{v:?} ({style}) as\n{out}"
            );
        }
        let out = set_list(PAGE, "tags", &[v, "ok"]).unwrap();
        assert_eq!(fm(&out).tags, [v, "ok"], "{v:?} in a flow list:\n{out}");
        let out = set_list(PAGE, "aliases", &["pcache", v]).unwrap();
        assert_eq!(
            fm(&out).aliases,
            ["pcache", v],
            "{v:?} in a block list:\n{out}"
        );
    }
}

#[test]
fn plain_stays_plain_when_it_can() {
    for v in [
        "Pebble Cache",
        "2026-04-01",
        "C++",
        "gpt-4o",
        "a:b",
        "Café",
        "x-#1",
        "-x",
        "raw/inbox/2026-05-01.md",
    ] {
        let out = set_scalar("---\ntitle: x\n---\n", "title", v).unwrap();
        assert_eq!(out, format!("---\ntitle: {v}\n---\n"));
    }
    assert_eq!(
        set_scalar("---\ntitle: x\n---\n", "title", "2026").unwrap(),
        "---\ntitle: '2026'\n---\n"
    );
}

#[test]
fn set_list_keeps_a_flow_list_flow() {
    let out = set_list(PAGE, "tags", &["caching", "db"]).unwrap();
    assert!(
        out.contains("\ntags: [\"caching\", db]\n"),
        "the changed item keeps its quotes:\n{out}"
    );
    assert_eq!(others(&out, &["tags"]), others(PAGE, &["tags"]));
    let out = set_list("---\ntags: [ a,b ] # t\n---\n", "tags", &["a", "c"]).unwrap();
    assert_eq!(out, "---\ntags: [ a,c ] # t\n---\n");
    assert_eq!(
        set_list("---\ntags: [a]\n---\n", "tags", &[] as &[&str]).unwrap(),
        "---\ntags: []\n---\n"
    );
}

#[test]
fn set_list_keeps_a_block_list_block() {
    let out = set_list(PAGE, "aliases", &["pcache", "pebble"]).unwrap();
    assert!(
        out.contains("\naliases:\n  - pcache # short\n  - pebble\n"),
        "{out}"
    );
    assert_eq!(
        others(&out, &["- pebble", "- PC"]),
        others(PAGE, &["- pebble", "- PC"])
    );
    let text = "---\ntags:\n# first\n- '#A'\n- b   # bee\n\n- '#A'\n---\n";
    let out = set_list(text, "tags", &["a", "b"]).unwrap();
    assert_eq!(out, "---\ntags:\n# first\n- 'a'\n- b   # bee\n---\n");
    let out = set_list("---\ntags:\n  - a\n  - b\n---\n", "tags", &["a", "b", "c"]).unwrap();
    assert_eq!(out, "---\ntags:\n  - a\n  - b\n  - c\n---\n");
    let out = set_list(
        "---\ntags:\n  # about b\n  - b\n  - a\n---\n",
        "tags",
        &["a"],
    )
    .unwrap();
    assert_eq!(
        out, "---\ntags:\n  # about b\n  - a\n---\n",
        "a dropped item's comment stays"
    );
}

#[test]
fn a_single_value_becomes_a_flow_list() {
    assert_eq!(
        set_list("---\ntags: ai # t\n---\n", "tags", &["ai"]).unwrap(),
        "---\ntags: [ai] # t\n---\n"
    );
    assert_eq!(
        set_list("---\ntags: 'a b'\n---\n", "tags", &["a b"]).unwrap(),
        "---\ntags: ['a b']\n---\n"
    );
    assert_eq!(
        set_list("---\ntags: a,b\n---\n", "tags", &["a,b"]).unwrap(),
        "---\ntags: ['a,b']\n---\n"
    );
    assert_eq!(
        set_list("---\ntags:\n---\n", "tags", &["a"]).unwrap(),
        "---\ntags: [a]\n---\n"
    );
    assert_eq!(
        set_list("---\ntitle: A\n---\n", "tags", &["a"]).unwrap(),
        "---\ntitle: A\ntags: [a]\n---\n"
    );
    let out = set_list("---\nsources: raw/a.md\n---\n", "sources", &["raw/a.md"]).unwrap();
    assert_eq!(fm(&out).sources, ["raw/a.md"]);
    assert!(fm(&out).problems.is_empty());
}

#[test]
fn odd_list_forms_become_flow_lists() {
    let out = set_list("---\ntags: {a: 1} # t\n---\n", "tags", &["a"]).unwrap();
    assert_eq!(out, "---\ntags: [a] # t\n---\n");
    let out = set_list("---\ntags: [a,\n  b]\ntype: x\n---\n", "tags", &["a", "c"]).unwrap();
    assert_eq!(out, "---\ntags: [a, c]\ntype: x\n---\n");
    let out = set_list("---\ntags:\n  -\n  - b\n---\n", "tags", &["a", "b"]).unwrap();
    assert_eq!(fm(&out).tags, ["a", "b"], "{out}");
}

#[test]
fn edits_leave_other_fields_alone() {
    let base = fm(PAGE);
    let edits = [
        ("title", set_scalar(PAGE, "title", "New: title").unwrap()),
        ("tags", set_list(PAGE, "tags", &["x"]).unwrap()),
        ("aliases", set_list(PAGE, "aliases", &["y"]).unwrap()),
        (
            "updated",
            set_scalar(PAGE, "updated", "2026-01-01").unwrap(),
        ),
    ];
    for (key, out) in edits {
        let f = fm(&out);
        if key != "title" {
            assert_eq!(f.title, base.title, "{key}");
        }
        if key != "tags" {
            assert_eq!(f.tags, base.tags, "{key}");
        }
        if key != "aliases" {
            assert_eq!(f.aliases, base.aliases, "{key}");
        }
        if key != "updated" {
            assert_eq!(f.updated, base.updated, "{key}");
        }
        assert_eq!(
            (f.kind, f.maturity, f.sources, f.created),
            (
                base.kind.clone(),
                base.maturity.clone(),
                base.sources.clone(),
                base.created.clone()
            )
        );
        assert!(
            out.ends_with("---\n\nBody: [[x]]\n"),
            "the body is untouched"
        );
    }
}

#[test]
fn reorder_moves_keys_with_their_comments() {
    let text = "---\n# header\n\nextra: 1\n# the type\ntype: concept\ntags:\n  - a\n\ntitle: A # t\n\n---\nbody\n";
    let out = reorder(text, &frontmatter::KEY_ORDER).unwrap();
    assert_eq!(
        out,
        "---\n# header\n\ntitle: A # t\n# the type\ntype: concept\ntags:\n  - a\n\nextra: 1\n\n---\nbody\n"
    );
    let (a, b) = (fm(&out), fm(text));
    assert_eq!((a.title, a.kind, a.tags), (b.title, b.kind, b.tags));
    assert_eq!(reorder(&out, &frontmatter::KEY_ORDER).unwrap(), out);
}

#[test]
fn reorder_keeps_a_sorted_block_byte_for_byte() {
    assert_eq!(reorder(PAGE, &frontmatter::KEY_ORDER).unwrap(), PAGE);
}

#[test]
fn an_outline_answers_as_shape_and_reorder_do() {
    // `fmt` asks an outline instead of `shape` and `reorder`, which read the YAML again each.
    let moved = "---\n# header\n\nextra: 1\n# the type\ntype: concept\ntags:\n  - a\n\ntitle: A # t\n\n---\nbody\n";
    for text in [
        PAGE,
        moved,
        "---\ntitle: A\nowner: me\ntype: x\n---\n",
        "---\ntitle: A\nzeta: 1\nalpha: 2\n---\n",
        "---\ntags:\nm:\n  a: 1\nsources: raw/a.md\n---\n",
        "---\n---\nbody\n",
    ] {
        let split = frontmatter::split(text);
        let outline = Outline::of(text, &split).unwrap();
        for key in ["title", "tags", "aliases", "sources", "m", "nope"] {
            assert_eq!(
                Some(outline.shape(key)),
                shape(text, key),
                "{key} in {text}"
            );
        }
        let unchanged = reorder(text, &frontmatter::KEY_ORDER).unwrap() == text;
        assert_eq!(
            outline.in_order(&frontmatter::KEY_ORDER),
            unchanged,
            "{text}"
        );
    }
    assert!(
        !Outline::of(moved, &frontmatter::split(moved))
            .unwrap()
            .in_order(&frontmatter::KEY_ORDER)
    );
    for text in [
        "no block\n",
        "---\ntitle: [a\n---\n",
        "---\n  title: x\n---\n",
    ] {
        assert!(
            Outline::of(text, &frontmatter::split(text)).is_none(),
            "{text}"
        );
    }
}

#[test]
fn crlf_is_kept() {
    let text = PAGE.replace('\n', "\r\n");
    let edits = [
        set_scalar(&text, "updated", "2026-03-10").unwrap(),
        set_scalar(&text, "new", "x").unwrap(),
        set_list(&text, "tags", &["caching", "db"]).unwrap(),
        set_list(&text, "aliases", &["pcache", "pebble", "more"]).unwrap(),
        reorder(
            &text.replace("title:", "zzz: 1\r\ntitle:"),
            &frontmatter::KEY_ORDER,
        )
        .unwrap(),
    ];
    for out in edits {
        assert_eq!(
            out.matches('\n').count(),
            out.matches("\r\n").count(),
            "{out:?}"
        );
        fm(&out);
    }
}

#[test]
fn a_bom_is_kept() {
    let text = format!("\u{feff}{PAGE}");
    let out = set_scalar(&text, "title", "B").unwrap();
    assert!(out.starts_with("\u{feff}---\n"));
    assert_eq!(fm(&out).title.as_deref(), Some("B"));
    assert!(
        reorder(&text, &["owner"])
            .unwrap()
            .starts_with("\u{feff}---\nowner: me\n# A page about caches\ntitle:")
    );
}

#[test]
fn an_edit_applied_twice_equals_once() {
    let once = set_scalar(PAGE, "created", "2026-03-01").unwrap();
    assert_eq!(set_scalar(&once, "created", "2026-03-01").unwrap(), once);
    let once = set_scalar(PAGE, "title", "a: b").unwrap();
    assert_eq!(set_scalar(&once, "title", "a: b").unwrap(), once);
    let once = set_list(PAGE, "tags", &["caching", "db"]).unwrap();
    assert_eq!(set_list(&once, "tags", &["caching", "db"]).unwrap(), once);
    let once = set_list("---\ntags: ai\n---\n", "tags", &["ai"]).unwrap();
    assert_eq!(set_list(&once, "tags", &["ai"]).unwrap(), once);
    let once = set_list(PAGE, "aliases", &["x", "pcache"]).unwrap();
    assert_eq!(set_list(&once, "aliases", &["x", "pcache"]).unwrap(), once);
    let text = "---\nupdated: x\nz: 1\ntitle: A\n---\n";
    let once = reorder(text, &frontmatter::KEY_ORDER).unwrap();
    assert_eq!(reorder(&once, &frontmatter::KEY_ORDER).unwrap(), once);
}

#[test]
fn an_unchanged_value_changes_nothing() {
    assert_eq!(set_scalar(PAGE, "title", "Pebble Cache").unwrap(), PAGE);
    assert_eq!(
        set_scalar("---\ntitle: 42\n---\n", "title", "42").unwrap(),
        "---\ntitle: 42\n---\n"
    );
    assert_eq!(set_list(PAGE, "aliases", &["pcache", "PC"]).unwrap(), PAGE);
}

#[test]
fn an_absent_key_goes_where_the_key_order_puts_it() {
    let text = "---\ntitle: A\ntype: concept\n# where it came from\nsources: [x]\nupdated: 2026-01-01\nextra: 1\n---\nbody\n";
    assert_eq!(
        set_list(text, "aliases", &["Old A"]).unwrap(),
        "---\ntitle: A\ntype: concept\naliases: [Old A]\n# where it came from\nsources: [x]\nupdated: 2026-01-01\nextra: 1\n---\nbody\n"
    );
    assert_eq!(
        set_scalar("---\ntype: concept\n---\n", "title", "A").unwrap(),
        "---\ntitle: A\ntype: concept\n---\n"
    );
    // A key outside the order, or the last in it, goes after the last entry.
    assert_eq!(
        set_scalar("---\ntitle: A\nextra: 1\n---\n", "updated", "2026-05-01").unwrap(),
        "---\ntitle: A\nextra: 1\nupdated: 2026-05-01\n---\n"
    );
    assert_eq!(
        set_scalar("---\ntitle: A\n---\n", "owner", "me").unwrap(),
        "---\ntitle: A\nowner: me\n---\n"
    );
}
