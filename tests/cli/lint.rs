//! `sparks lint`.

use crate::harness::TestVault;
use crate::snapshot;

#[test]
fn a_fresh_vault_lints_clean() {
    let v = TestVault::new();
    v.run(&["scan"]).ok();
    let run = v.run(&["lint"]).ok();
    assert_eq!(run.stdout, "Vault health: OK (no lint issues).\n");
    let j = v.run(&["lint", "--json"]).ok().json();
    assert_eq!(j["total"], 0);
}

fn messy() -> TestVault {
    let v = TestVault::new();
    let long = "Plenty of prose words here to keep the page from being thin at all. ".repeat(4);
    v.write(
        "wiki/entities/Cascade.md",
        format!("---\ntitle: Cascade\ntype: entity\nmaturity: seed\naliases: [CC, K8s]\nsources: [raw/a.md]\ncreated: 2026-04-01\nupdated: 2026-04-01\n---\n# Design\n\nText. ^intro\n\n{long}\n"),
    )
    .write(
        "wiki/entities/Other.md",
        format!("---\ntitle: Other\ntype: Entity\nmaturity: seed\naliases: [cc]\ntags: ['#ai']\nsources: [raw/gone.md]\ncreated: 2026-04-01\nupdated: 2026-02-30\n---\n{long}\n\
         [[Cascade#Design]] [[Cascade#Nope]] [[Cascade#^intro]] [[Cascade#^nope]] [[CC]] [[Missing]] ![[gone.png]]\n\
         `[[InCode]]`\n"),
    )
    .write("wiki/concepts/Twin.md", format!("---\ntitle: Twin\ntype: concept\nmaturity: seed\naliases: [k8s]\nsources: [raw/a.md]\ncreated: 2026-04-01\nupdated: 2026-04-01\n---\n{long} [[Other]]\n"))
    .write("wiki/concepts/Dup1.md", format!("---\ntitle: Dup\ntype: concept\nmaturity: seed\nsources: [raw/a.md]\ncreated: 2026-04-01\nupdated: 2026-04-01\n---\n{long} [[Twin]]\n"))
    .write("wiki/concepts/Dup2.md", format!("---\ntitle: dup\ntype: concept\nmaturity: seed\nsources: [raw/a.md]\ncreated: 2026-04-01\nupdated: 2026-04-01\n---\n{long} [[Dup1]]\n"))
    .write("wiki/concepts/Broken.md", "---\ntitle: [unclosed\n---\n[[Other]]\n")
    .write("wiki/concepts/Bare.md", "just text [[Other]]\n")
    .write("raw/a.md", "a")
    .set_mtime("raw/a.md", "2026-03-01");
    v.run(&["scan"]).ok();
    v
}

#[test]
fn every_check_reports_with_file_and_line() {
    let v = messy();
    let run = v.run(&["lint"]).code(1);
    snapshot!(v, run.stdout);
}

#[test]
fn json_has_the_same_facts_and_exit_code() {
    let v = messy();
    let text = v.run(&["lint"]).code(1);
    let run = v.run(&["lint", "--json"]).code(1);
    let j = run.json();
    let n = j["issues"].as_array().unwrap().len();
    assert_eq!(j["total"], n);
    assert!(
        text.stdout.contains(&format!("{n} issue(s) across ")),
        "{}",
        text.stdout
    );
    assert_eq!(
        j["counts"].as_object().unwrap().len(),
        16,
        "every check is counted"
    );
}

#[test]
fn check_selects_and_unknown_names_are_usage_errors() {
    let v = messy();
    let j = v
        .run(&["lint", "--check", "broken-links", "--json"])
        .code(1)
        .json();
    assert!(
        j["issues"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["check"] == "broken-links")
    );
    assert_eq!(j["issues"].as_array().unwrap().len(), 1);
    let run = v.run(&["lint", "--check", "brokn-links"]).code(2);
    assert!(
        run.stderr.contains("brokn-links") && run.stderr.contains("broken-links"),
        "{}",
        run.stderr
    );
    v.run(&["lint", "--check", "dead-sources"]).code(1);
    v.run(&["lint", "--check", "broken-blocks", "--check", "orphans"])
        .code(1);
}

#[test]
fn a_fixed_vault_lints_clean_again() {
    let v = messy();
    for f in [
        "wiki/entities/Other.md",
        "wiki/concepts/Twin.md",
        "wiki/concepts/Broken.md",
        "wiki/concepts/Bare.md",
        "wiki/concepts/Dup1.md",
        "wiki/concepts/Dup2.md",
    ] {
        std::fs::remove_file(v.path(f)).unwrap();
    }
    v.run(&["scan"]).ok();
    let run = v.run(&["lint"]).code(1);
    // Cascade is left alone: an orphan now.
    assert_eq!(
        run.stdout,
        "orphans (1):\n  wiki/entities/Cascade.md  no other page links here\n\n1 issue(s) across 1 check(s).\n"
    );
}

#[test]
fn lint_sees_pages_written_after_the_last_scan() {
    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "A", "See [[B]].");
    v.run(&["scan"]).ok();
    // The agent writes B and lints without scanning: the link to B is not broken, and B's
    // own broken link is found.
    v.page(
        "wiki/concepts/B.md",
        "B",
        "Back to [[A]] and on to [[Nowhere]].",
    );
    let j = v
        .run(&["lint", "--check", "broken-links", "--json"])
        .code(1)
        .json();
    let issues = j["issues"].as_array().unwrap();
    assert_eq!(issues.len(), 1, "{j}");
    assert_eq!(issues[0]["path"], "wiki/concepts/B.md", "{j}");
    assert!(j.get("scan_errors").is_none(), "nothing unreadable: {j}");
}

/// `broken-headings` compares as Obsidian does: punctuation, backticks and spacing aside, so
/// the links Obsidian follows are not reported; headings in comments and code are no headings.
#[test]
fn heading_links_compare_as_obsidian_compares_them() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Zotero 101.md",
        "Zotero 101",
        "## Part 1: Basics\n\nText.\n\n## What is the Obsidian Hub?\n\nMore.\n\n### `wikilink`\n\n\
         ### `hasTag()`\n\n#### Step-by-step\n\n<!--\n## In a comment\n-->\n\n%%\n## In percent\n%%\n\n\
         ```\n## In code\n```\n",
    )
    .page(
        "wiki/concepts/Reader.md",
        "Reader",
        "[[Zotero 101#Part 1 Basics]] [[Zotero 101#What is the Obsidian Hub]] \
         [[Zotero 101#`wikilink`]] [[Zotero 101#hasTag]] [[Zotero 101#part 1:  basics]] \
         [[Zotero 101#Part 1 Basics#Step-by-step]]\n\n\
         [[Zotero 101#In a comment]] [[Zotero 101#In percent]] [[Zotero 101#In code]] \
         [[Zotero 101#Part 2]] [[Zotero 101#Step by step]]",
    );
    v.run(&["scan"]).ok();
    let j = v
        .run(&["lint", "--check", "broken-headings", "--json"])
        .code(1)
        .json();
    let messages: Vec<&str> = j["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["message"].as_str().unwrap())
        .collect();
    let reported: Vec<&str> = messages
        .iter()
        .map(|m| m.rsplit("has no heading ").next().unwrap())
        .collect();
    assert_eq!(
        reported,
        [
            "\"In a comment\"",
            "\"In percent\"",
            "\"In code\"",
            "\"Part 2\"",
            "\"Step by step\""
        ],
        "{messages:#?}"
    );
}

#[test]
fn while_an_ingest_is_open_its_archive_files_are_not_dead_sources() {
    let v = TestVault::new();
    v.capture(&[
        "2026-04-20\nMet Dana about the review",
        "a capture of today",
    ]);
    v.run(&["ingest", "--prepare"]).ok();
    // Cited as the contract says, before finalize writes them; 2026-03-03 is no capture date
    // of this batch.
    v.write(
        "wiki/entities/Dana.md",
        "---\ntitle: Dana\ntype: entity\nmaturity: seed\n\
         sources: [raw/inbox/2026-04-20.md, raw/inbox/2026-05-01.md, raw/inbox/2026-03-03.md]\n\
         created: 2026-04-20\nupdated: 2026-05-01\n---\nDana leads the review.\n",
    );
    v.run(&["scan"]).ok();
    let dead = |v: &TestVault| -> Vec<String> {
        let lint = v.run(&["lint", "--check", "dead-sources", "--json"]).json();
        lint["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["message"].as_str().unwrap().to_string())
            .collect()
    };
    let fmt_dead = |v: &TestVault| -> Vec<String> {
        let fmt = v.run(&["fmt", "--check", "--json"]).json();
        fmt["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["message"].as_str().unwrap().to_string())
            .collect()
    };
    let only_the_other = ["source raw/inbox/2026-03-03.md does not exist"];
    assert_eq!(dead(&v), only_the_other);
    assert_eq!(fmt_dead(&v), only_the_other);

    // Only while it is open: aborted, nothing will write those files.
    v.run(&["ingest", "--abort"]).ok();
    assert_eq!(
        dead(&v),
        [
            "source raw/inbox/2026-04-20.md does not exist",
            "source raw/inbox/2026-05-01.md does not exist",
            "source raw/inbox/2026-03-03.md does not exist",
        ]
    );
    assert_eq!(fmt_dead(&v).len(), 3);

    // Finalized, they exist.
    v.run(&["ingest", "--prepare"]).ok();
    v.run(&["ingest", "--finalize"]).ok();
    assert_eq!(dead(&v), only_the_other);
    assert_eq!(fmt_dead(&v), only_the_other);
}

/// A page with valid frontmatter and this body, linked from an index-like hub so that only
/// the thin check can report it.
fn thin_vault(pages: &[(&str, &str)]) -> TestVault {
    let v = TestVault::new();
    for (name, body) in pages {
        v.page(&format!("wiki/concepts/{name}.md"), name, body);
    }
    v.write("raw/inbox/2026-05-01.md", "captures");
    v.run(&["scan"]).ok();
    v
}

fn thin_paths(v: &TestVault) -> Vec<String> {
    let j = v.run(&["lint", "--check", "thin-pages", "--json"]).json();
    j["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn thin_pages_have_fewer_than_three_sentences_as_in_the_original() {
    let twenty_three = "Sparks keeps a small wiki for you. Agents write its pages every day! \
                        Does it lint them? Yes, it does so every night.";
    assert_eq!(twenty_three.split_whitespace().count(), 23);
    let v = thin_vault(&[
        ("Four", twenty_three),
        (
            "Two",
            "Only two sentences live here. That is all there is to it.",
        ),
        ("Cjk", "知識は力なり。日々の記録を残す。ページを書く。"),
        (
            "Urls",
            "https://a.example/x.y\nhttps://b.example/docs/v1.2/index.html\n<https://c.example/a.b>",
        ),
        (
            "Numbers",
            "We shipped v0.3 and v1.2.5 with `x.y.z()` and pi at 3.14 in the docs. See [[Four]]",
        ),
        (
            "Code",
            "One sentence.\n\n```\nno. sentences. in. code.\n```\n\n    nor. here.\n",
        ),
    ]);
    let thin = thin_paths(&v);
    assert_eq!(
        thin,
        [
            "wiki/concepts/Code.md",
            "wiki/concepts/Numbers.md",
            "wiki/concepts/Two.md",
            "wiki/concepts/Urls.md"
        ]
    );
    // The message says the measure and the threshold.
    let run = v.run(&["lint", "--check", "thin-pages"]).code(1);
    assert!(
        run.stdout
            .contains("wiki/concepts/Two.md  2 sentences of prose (thin below 3)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("wiki/concepts/Urls.md  0 sentences of prose (thin below 3)"),
        "{}",
        run.stdout
    );
    // query --thin and brief apply the same rule.
    let query: Vec<String> = v
        .run(&["query", "--thin"])
        .ok()
        .stdout
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(query, thin);
    let brief = v.run(&["brief", "--json"]).ok().json();
    assert_eq!(brief["revisit"]["thin"], serde_json::json!(thin));
}

#[test]
fn the_thin_threshold_is_a_config_key() {
    let v = thin_vault(&[
        ("Four", "One. Two! Three? Four."),
        ("Two", "One sentence. Another one."),
    ]);
    assert_eq!(thin_paths(&v), ["wiki/concepts/Two.md"]);
    let config = v.read("sparks.toml");
    assert!(config.contains("thin_below_sentences = 3"), "{config}");
    let set = |n: &str| {
        v.write(
            "sparks.toml",
            config.replace(
                "thin_below_sentences = 3",
                &format!("thin_below_sentences = {n}"),
            ),
        );
    };
    set("5");
    assert_eq!(
        thin_paths(&v),
        ["wiki/concepts/Four.md", "wiki/concepts/Two.md"]
    );
    let run = v.run(&["lint", "--check", "thin-pages"]).code(1);
    assert!(run.stdout.contains("(thin below 5)"), "{}", run.stdout);
    assert_eq!(
        v.run(&["query", "--thin"]).ok().stdout,
        "wiki/concepts/Four.md\nwiki/concepts/Two.md\n"
    );
    set("2");
    assert!(thin_paths(&v).is_empty());
    v.run(&["lint", "--check", "thin-pages"]).ok();
    // A value that is not a whole number: every command refuses, naming the key and line.
    set("\"three\"");
    let line = v
        .read("sparks.toml")
        .lines()
        .position(|l| l.starts_with("thin_below_sentences"))
        .unwrap()
        + 1;
    insta::allow_duplicates! {
        for args in [&["lint"][..], &["query", "--thin"], &["brief"]] {
            let run = v.run(args).code(1);
            // The line is the key's own: `[LINE]` only if it is.
            let said = run.stderr.replace(&format!("line {line}"), "line [LINE]");
            snapshot!(v, said, @r#"
            error: invalid [VAULT]/sparks.toml: TOML parse error at line [LINE], column 24
               |
            24 | thin_below_sentences = "three"  # a page with fewer sentences of prose is thin
               |                        ^^^^^^^
            invalid type: string "three", expected a whole number (0 or more)
            "#);
        }
    }
}

/// `index.md` and `log.md` need no frontmatter, in any folder (the original's exemption);
/// any other page does.
#[test]
fn index_and_log_pages_are_exempt_from_missing_frontmatter() {
    let v = TestVault::new();
    v.write("wiki/index.md", "# Index\n\n- [[A]]\n")
        .write("wiki/log.md", "# Log\n\nAn entry.\n")
        .write("wiki/concepts/index.md", "# A folder's index\n")
        .write("wiki/concepts/Bare.md", "No frontmatter here.\n")
        .page("wiki/concepts/A.md", "A", "Alpha. Two. Three. [[Bare]]");
    let j = v
        .run(&["lint", "--check", "missing-frontmatter", "--json"])
        .code(1)
        .json();
    let paths: Vec<&str> = j["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter(|i| i["check"] == "missing-frontmatter")
        .filter_map(|i| i["path"].as_str())
        .collect();
    assert_eq!(paths, ["wiki/concepts/Bare.md"], "{j}");
}
