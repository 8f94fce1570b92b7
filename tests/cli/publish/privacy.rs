//! Private by default: nothing of a private page reaches any file of the site, and which
//! pages are published.

use super::links::check_links;
use super::*;

/// A vault where a private page (title, alias, tags, a body word, a heading, a block and an
/// attachment of its own) is linked, embedded (nested too) and cited by public pages, which it
/// links back to and shares a tag with; the vault's index, log, inbox and a raw capture name it.
fn leak_vault() -> TestVault {
    let v = TestVault::new();
    v.write(
        "wiki/concepts/zeta-private.md",
        "---\ntitle: Private Title Zeta\ntype: concept\naliases: [Hidden Thing]\n\
         tags: [secret-tag, shared]\ncreated: 2026-04-01\nupdated: 2026-04-25\n---\n\n\
         The zebra grazes where [[Garden Plan]] ends. ^stripe\n\n## Stripes\n\nBlack and white.\n\n\
         ![[zeta-diagram.png]]\n",
    )
    .write("wiki/zeta-diagram.png", PNG)
    .write(
        "wiki/concepts/Garden Plan.md",
        page(
            "Garden Plan",
            "concept",
            "publish: true\ntags: [shared, gardening]\nsources: [wiki/concepts/zeta-private.md]\n",
            "The beds follow [[Cascade]] and hide [[Hidden Thing]]; see \
             [[Hidden Thing#Stripes|the stripes]] and [[Hidden Thing#^stripe]].\n\n\
             ![[Hidden Thing]]\n\n![[Hidden Thing#Stripes]]",
        ),
    )
    .write(
        "wiki/concepts/Cascade.md",
        page(
            "Cascade",
            "concept",
            "publish: true\ntags: [shared]\n",
            "Terraces, planned in [[Garden Plan]], shown here whole:\n\n![[Garden Plan]]",
        ),
    )
    .write(
        "wiki/concepts/Loose Note.md",
        page(
            "Loose Note",
            "concept",
            "",
            "Says nothing of publishing; links [[Hidden Thing]].",
        ),
    )
    .write(
        "raw/inbox/2026-05-01.md",
        "# 2026-05-01\n\nZeta thoughts: the zebra.\n",
    )
    .capture(&["More on Private Title Zeta and its zebra."]);
    let log = v.read("wiki/log.md");
    v.write(
        "wiki/log.md",
        format!("{log}\n- 2026-05-01: made [[Private Title Zeta]] (zebra)\n"),
    );
    v.run(&["index"]).ok();
    assert!(
        v.read("wiki/index.md").contains("Private Title Zeta"),
        "the vault's index lists the private page, so that a publish of it would leak"
    );
    v.settle();
    v
}

/// Every mention of the private page in the files under `out` (their paths and bytes, case
/// folded): `path: needle`.
fn leaks(out: &Path) -> Vec<String> {
    let needles = ["zeta", "zeta-private", "secret-tag", "zebra"];
    let mut found = Vec::new();
    for (path, bytes) in files(out) {
        let bytes = bytes.to_ascii_lowercase();
        let path_lower = path.to_ascii_lowercase();
        for n in needles {
            let in_bytes = bytes.windows(n.len()).any(|w| w == n.as_bytes());
            if in_bytes || path_lower.contains(n) {
                found.push(format!("{path}: {n}"));
            }
        }
    }
    found
}

#[test]
fn nothing_of_a_private_page_reaches_any_file_of_the_site() {
    let v = leak_vault();
    let out = v.path("site");
    let report = publish(&v, &[]);
    assert_eq!(report["published"], 2, "{report}");
    assert_eq!(leaks(&out), Vec::<String>::new());
    // Not vacuous: the public pages are there, the link shown as its text alone, the shared tag
    // listing them.
    let plan = text(&out, "wiki/concepts/Garden Plan/index.html");
    assert!(plan.contains("hide Hidden Thing;"), "{plan}");
    assert!(out.join(".sparks-publish.json").is_file());
    let shared = text(&out, "tag/shared/index.html");
    assert!(
        shared.contains("Garden Plan") && shared.contains("Cascade"),
        "{shared}"
    );
    let warnings = report["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w["page"] == "wiki/concepts/Garden Plan.md"
                && w["message"]
                    .as_str()
                    .unwrap()
                    .contains("wiki/concepts/zeta-private.md")),
        "a warning names the link to the private page: {report}"
    );

    // With --all, a page saying `publish: false` leaks no more, nor do the index, the log, a
    // conflict copy, the inbox or raw/.
    edit(
        &v,
        "wiki/concepts/zeta-private.md",
        "type: concept\n",
        "type: concept\npublish: false\n",
    );
    v.write(
        "wiki/concepts/Cascade (conflict 2026-05-01).md",
        page(
            "Cascade",
            "concept",
            "",
            "Zeta's zebra, in a conflict copy.",
        ),
    );
    let all = v.dir.path().join("all");
    let report = publish(&v, &[all.to_str().unwrap(), "--all"]);
    assert_eq!(report["published"], 3, "and Loose Note: {report}");
    assert!(all.join("wiki/concepts/Loose Note/index.html").is_file());
    assert_eq!(leaks(&all), Vec::<String>::new());
}

/// A vault of pages saying each thing of publishing, in two folders, and the pages never
/// published (the index, the log, Tasks, a conflict copy) saying `publish: true`.
fn choices_vault() -> TestVault {
    let v = TestVault::new();
    for (rel, front) in [
        ("wiki/concepts/Said Nothing.md", ""),
        ("wiki/concepts/Said True.md", "publish: true\n"),
        ("wiki/concepts/Said False.md", "publish: false\n"),
        ("wiki/concepts/Said Yes.md", "publish: \"yes\"\n"),
        ("wiki/entities/Included.md", ""),
        ("wiki/entities/Included But False.md", "publish: false\n"),
        (
            "wiki/concepts/Said True (conflict 2026-05-01).md",
            "publish: true\n",
        ),
    ] {
        let title = rel.rsplit('/').next().unwrap().trim_end_matches(".md");
        v.write(rel, page(title, "concept", front, "Words."));
    }
    v.run(&["index"]).ok();
    for rel in ["wiki/index.md", "wiki/log.md", "wiki/collections/Tasks.md"] {
        let text = v.read(rel);
        let with = match text.strip_prefix("---\n") {
            Some(rest) => format!("---\npublish: true\n{rest}"),
            None => format!("---\npublish: true\n---\n{text}"),
        };
        v.write(rel, with);
    }
    v
}

/// `paths` as a set.
fn set(paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|p| p.to_string()).collect()
}

#[test]
fn a_page_is_published_when_it_says_so_or_the_configuration_does() {
    let v = choices_vault();
    let out = |name: &str| v.dir.path().join(name);

    let report = publish(&v, &[out("default").to_str().unwrap()]);
    assert_eq!(
        published(&out("default")),
        set(&["wiki/concepts/Said True.md"])
    );
    assert_eq!(report["published"], 1);
    let yes_warning = |report: &Value| {
        report["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["page"] == "wiki/concepts/Said Yes.md")
            .cloned()
    };
    let w = yes_warning(&report).expect("`publish: \"yes\"` is warned of");
    assert_eq!(w["line"], 4, "{w}");
    assert!(w["message"].as_str().unwrap().contains("publish"), "{w}");

    let report = publish(&v, &[out("all").to_str().unwrap(), "--all"]);
    let everything = set(&[
        "wiki/concepts/Said Nothing.md",
        "wiki/concepts/Said True.md",
        "wiki/entities/Included.md",
    ]);
    assert_eq!(published(&out("all")), everything);
    assert_eq!(report["published"], 3);
    assert!(
        yes_warning(&report).is_some(),
        "not published under --all either: {report}"
    );
    for never in ["wiki/index/", "wiki/log/", "wiki/collections/Tasks/"] {
        assert!(!out("all").join(never).exists(), "{never}");
    }

    edit(
        &v,
        "sparks.toml",
        "include = []",
        "include = [\"wiki/entities/**\"]",
    );
    publish(&v, &[out("include").to_str().unwrap()]);
    assert_eq!(
        published(&out("include")),
        set(&["wiki/concepts/Said True.md", "wiki/entities/Included.md"])
    );

    edit(
        &v,
        "sparks.toml",
        "include = [\"wiki/entities/**\"]",
        "include = []",
    );
    edit(&v, "sparks.toml", "all = false", "all = true");
    publish(&v, &[out("configured").to_str().unwrap()]);
    assert_eq!(published(&out("configured")), everything);

    // The page was read by the last publish into this folder: its warning is not forgotten.
    let again = publish(&v, &[out("configured").to_str().unwrap()]);
    assert!(list(&again, "written").is_empty(), "{again}");
    assert!(yes_warning(&again).is_some(), "{again}");
}

/// Links written as Markdown paths lead where wikilinks would: to a published page, to a file
/// the page carries along; a private page, a file that is not there and a raw capture show
/// their text alone. The manifest records wikilinks alone, so the publish reads these links
/// itself: a page linked only so that becomes private makes its linking page again.
#[test]
fn a_markdown_link_leads_to_a_published_page_or_file_or_shows_its_text_alone() {
    let v = leak_vault();
    let cascade = v.read("wiki/concepts/Cascade.md");
    v.write("wiki/concepts/public-figure.png", PNG)
        .write(
            "wiki/concepts/Orchard.md",
            page("Orchard", "concept", "publish: true\n", "Apples."),
        )
        .write(
            "wiki/concepts/Cascade.md",
            format!(
                "{cascade}\nSee [the plan](Garden%20Plan.md), [the trees](<Orchard.md>), \
                 [a secret](zeta-private.md), ![a figure](public-figure.png), \
                 ![a diagram](../missing.png) and [a capture](../../raw/inbox/2026-05-01.md).\n"
            ),
        )
        .settle();
    let out = v.path("site");
    let report = publish(&v, &[]);
    assert_eq!(check_links(&out, None).broken, Vec::<String>::new());
    assert_eq!(leaks(&out), Vec::<String>::new());
    let html = text(&out, "wiki/concepts/Cascade/index.html");
    for expected in [
        "<a href=\"../../../wiki/concepts/Garden%20Plan/\" rel=\"noopener noreferrer\">the plan</a>",
        "<a href=\"../../../wiki/concepts/Orchard/\" rel=\"noopener noreferrer\">the trees</a>",
        " a secret, ",
        "src=\"../../../file/wiki/concepts/public-figure.png\"",
        " a diagram and a capture.",
    ] {
        assert!(html.contains(expected), "{expected} in {html}");
    }
    assert!(out.join("file/wiki/concepts/public-figure.png").is_file());
    let md = text(&out, "wiki/concepts/Cascade.md");
    assert!(
        md.contains(
            "See [the plan](../../wiki/concepts/Garden%20Plan.md), \
             [the trees](<../../wiki/concepts/Orchard.md>), a secret, \
             ![a figure](../../file/wiki/concepts/public-figure.png), a diagram and a capture."
        ),
        "{md}"
    );
    let warned = report["warnings"].to_string();
    assert!(
        warned.contains("links to wiki/concepts/zeta-private.md"),
        "{warned}"
    );

    // Orchard made private: Cascade, which links to it only by a Markdown link, is made again.
    let orchard = v.read("wiki/concepts/Orchard.md");
    v.write(
        "wiki/concepts/Orchard.md",
        orchard.replace("publish: true", "publish: false"),
    )
    .settle();
    let again = publish(&v, &[]);
    assert!(
        list(&again, "written").contains(&"wiki/concepts/Cascade/index.html".to_string()),
        "{again}"
    );
    let html = text(&out, "wiki/concepts/Cascade/index.html");
    assert!(!html.contains("Orchard"), "{html}");
    assert!(html.contains(" the trees, "), "{html}");
    assert_eq!(check_links(&out, None).broken, Vec::<String>::new());
}
