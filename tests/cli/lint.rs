//! `sparks lint`.

use crate::harness::TestVault;
use crate::snapshot;

#[test]
fn a_fresh_vault_lints_clean() {
    let v = TestVault::new();
    v.run(&["scan"]).ok();
    let run = v.run(&["lint"]).ok();
    assert_eq!(run.stdout, "No lint issues.\n");
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
    assert!(text.stdout.contains(&format!("{n} issues found.")));
    assert_eq!(
        j["counts"].as_object().unwrap().len(),
        13,
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
        "orphans (1):\n  wiki/entities/Cascade.md  no other page links here\n\n1 issue found.\n"
    );
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
    for args in [&["lint"][..], &["query", "--thin"], &["brief"]] {
        let run = v.run(args).code(1);
        assert!(
            run.stderr.contains(&format!("line {line}"))
                && run.stderr.contains("thin_below_sentences = \"three\"")
                && run.stderr.contains("expected a whole number"),
            "{args:?}: {}",
            run.stderr
        );
    }
}
