//! `sparks fmt`: checks from disk, path and glob arguments, `--check`, `--fix`, `--json`.

use crate::harness::{TestVault, tree};
use crate::snapshot;

const HEAD: &str = "title: T\ntype: concept\nmaturity: seed\n";
const TAIL: &str = "sources: [raw/a.md]\ncreated: 2026-04-01\nupdated: 2026-04-02\n";

/// A vault with one page for each kind of issue, and one good page.
fn messy() -> TestVault {
    let v = TestVault::new();
    v.write("raw/a.md", "a\n")
        .write("wiki/concepts/Good.md", format!("---\n{HEAD}tags: [ok]\n{TAIL}---\nText.\n"))
        .write("wiki/concepts/NoBlock.md", "# Just text\n")
        .write("wiki/concepts/Unclosed.md", "---\ntitle: T\n\nText.\n")
        .write("wiki/concepts/BadYaml.md", format!("---\n{HEAD}tags: [a, b\n{TAIL}---\n"))
        .write("wiki/concepts/Fields.md", format!("---\ntype: Concept\nmaturity: ripe\n{TAIL}---\n"))
        .write("wiki/concepts/Tags.md", format!("---\n{HEAD}tags: ['#AI', two words]\n{TAIL}---\n"))
        .write("wiki/concepts/Scalar.md", format!("---\n{HEAD}tags: ai\n{TAIL}---\n"))
        .write(
            "wiki/concepts/Dates.md",
            format!("---\n{HEAD}sources: [raw/a.md]\ncreated: 2026/4/1\nupdated: 2026-02-30\n---\n"),
        )
        .write(
            "wiki/concepts/Sources.md",
            format!("---\n{HEAD}sources: [raw/gone.md, notes.md]\ncreated: 2026-04-03\nupdated: 2026-04-02\n---\n"),
        );
    v
}

#[test]
fn a_fresh_vault_passes() {
    let v = TestVault::new();
    let run = v.run(&["fmt"]).ok();
    assert!(run.stdout.starts_with("Frontmatter OK ("), "{}", run.stdout);
    let j = v.run(&["fmt", "--json"]).ok().json();
    assert_eq!(j["issues"], serde_json::json!([]));
    assert_eq!(j["fixes"], serde_json::json!([]));
    let checked = j["files_checked"].as_u64().unwrap();
    assert!(checked >= 3, "index, log and Tasks are checked: {j}");
    assert_eq!(run.stdout, format!("Frontmatter OK ({checked} files)\n"));
    let fixed = v.run(&["fmt", "--fix", "--json"]).ok().json();
    assert_eq!(
        fixed["fixes"],
        serde_json::json!([]),
        "generated pages are already in form"
    );
}

#[test]
fn each_kind_of_issue_is_reported_with_its_line() {
    let v = messy();
    let run = v.run(&["fmt"]).code(1);
    snapshot!(v, run.stdout);
    let j = v.run(&["fmt", "--json"]).code(1).json();
    let at = |path: &str, key: &str| -> Vec<u64> {
        j["issues"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| {
                i["path"] == format!("wiki/concepts/{path}")
                    && i["key"].as_str().unwrap_or("-") == key
            })
            .map(|i| i["line"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(at("NoBlock.md", "-"), [1]);
    assert_eq!(at("Unclosed.md", "-"), [1]);
    assert!(at("BadYaml.md", "-")[0] >= 5, "the YAML error's line: {j}");
    assert_eq!(
        at("Fields.md", "title"),
        [1],
        "a missing key points at the block"
    );
    assert_eq!(at("Fields.md", "type"), [2]);
    assert_eq!(at("Fields.md", "maturity"), [3]);
    assert_eq!(at("Tags.md", "tags"), [5, 5]);
    assert_eq!(at("Scalar.md", "tags"), [5]);
    assert_eq!(at("Dates.md", "created"), [6]);
    assert_eq!(at("Dates.md", "updated"), [7]);
    assert_eq!(
        at("Sources.md", "sources"),
        [5, 5, 5],
        "not raw/, and two that do not exist"
    );
    assert_eq!(at("Sources.md", "updated"), [7], "updated before created");
    assert_eq!(at("Good.md", "-"), Vec::<u64>::new());
    assert_eq!(j["files_with_issues"], 8);
    assert_eq!(j["files_fixed"], 0);
}

#[test]
fn json_has_the_same_facts_and_exit_code() {
    let v = messy();
    let text = v.run(&["fmt"]).code(1);
    let run = v.run(&["fmt", "--json"]).code(1);
    snapshot!(v, run.stdout);
    let j = run.json();
    let issues = j["issues"].as_array().unwrap();
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        issues.len() + 1,
        "one line per issue and a summary"
    );
    for (i, line) in issues.iter().zip(&lines) {
        let key = i["key"]
            .as_str()
            .map(|k| format!("{k}: "))
            .unwrap_or_default();
        assert_eq!(
            *line,
            format!(
                "{}:{}: {key}{}",
                i["path"].as_str().unwrap(),
                i["line"],
                i["message"].as_str().unwrap()
            )
        );
    }
    assert_eq!(
        lines.last().unwrap(),
        &format!(
            "{} frontmatter issues in {} files",
            issues.len(),
            j["files_with_issues"]
        )
    );
    // A clean selection exits 0 with --json too.
    v.run(&["fmt", "wiki/concepts/Good.md", "--json"]).ok();
}

#[test]
fn a_path_a_directory_or_a_glob_selects_files() {
    let v = messy();
    v.write("wiki/.drafts/Hidden.md", "no block\n")
        .write("wiki/concepts/deep/Nested.md", "no block\n")
        .write("wiki/concepts/picture.png", "not markdown")
        .write("raw/notes.md", "no block either\n");
    let paths = |args: &[&str], code: i32| -> Vec<String> {
        let j = v
            .run(&[&["fmt", "--json"], args].concat())
            .code(code)
            .json();
        let mut p: Vec<String> = j["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["path"].as_str().unwrap().to_string())
            .collect();
        p.dedup();
        p
    };
    assert_eq!(
        paths(&["wiki/concepts/Scalar.md"], 1),
        ["wiki/concepts/Scalar.md"]
    );
    assert_eq!(paths(&["./wiki/concepts/Good.md"], 0), Vec::<String>::new());
    assert_eq!(
        paths(&["wiki/concepts/deep"], 1),
        ["wiki/concepts/deep/Nested.md"]
    );
    assert_eq!(
        paths(&["wiki/concepts/*.md"], 1).len(),
        8,
        "`*` stays in its directory"
    );
    assert_eq!(
        paths(&["wiki/**/N*.md"], 1),
        ["wiki/concepts/NoBlock.md", "wiki/concepts/deep/Nested.md"]
    );
    assert_eq!(paths(&["raw/*.md"], 1), ["raw/a.md", "raw/notes.md"]);
    let all = paths(&[], 1);
    assert!(
        !all.iter()
            .any(|p| p.contains(".drafts") || p.starts_with("raw/")),
        "{all:?}"
    );
    assert!(all.contains(&"wiki/concepts/deep/Nested.md".to_string()));

    let none = v.run(&["fmt", "wiki/nothing/*.md"]).ok();
    assert_eq!(none.stdout, "Frontmatter OK (0 files)\n");
    assert!(
        none.stderr.contains("no Markdown file matches"),
        "{}",
        none.stderr
    );
    let missing = v.run(&["fmt", "wiki/concepts/Nope.md"]).code(1);
    assert!(
        missing
            .stderr
            .contains("no file or directory \"wiki/concepts/Nope.md\" in the vault"),
        "{}",
        missing.stderr
    );
    let outside = v.run(&["fmt", "../elsewhere"]).code(1);
    assert!(
        outside.stderr.contains("outside the vault"),
        "{}",
        outside.stderr
    );
    let bad = v.run(&["fmt", "wiki/[x.md"]).code(1);
    assert!(bad.stderr.contains("not a valid glob"), "{}", bad.stderr);
}

#[test]
fn check_and_plain_fmt_write_nothing() {
    let v = messy();
    let before = tree(&v);
    v.run(&["fmt", "--check"]).code(1);
    v.run(&["fmt", "--check", "--json"]).code(1);
    v.run(&["fmt"]).code(1);
    assert_eq!(tree(&v), before);
    let both = v.run(&["fmt", "--check", "--fix"]).code(2);
    assert!(
        both.stderr.contains("cannot be used with"),
        "{}",
        both.stderr
    );
    assert_eq!(tree(&v), before);
}

/// A page in key order whose tags, aliases and dates need fixing, with comments and quoting.
const IN_ORDER: &str = "---\n\
# Written by hand.\n\
title: \"Pebble: a cache\"  # quoted because of the colon\n\
type: concept\n\
maturity: 'seed'\n\
tags: [\"#Caching\", Data Bases, caching]  # keep this comment\n\
aliases: pcache\n\
sources:\n\
  - raw/a.md   # the note\n\
created: '2026/3/2'\n\
updated: 2026-03-09T10:30  # time dropped\n\
extra: { keep: as is }\n\
---\n\
\n\
# Pebble\n\
\n\
tags: [not, frontmatter]\n";

#[test]
fn fix_changes_exactly_the_reported_bytes() {
    let v = TestVault::new();
    v.write("raw/a.md", "a\n")
        .write("wiki/concepts/Pebble.md", IN_ORDER);
    let crlf = IN_ORDER.replace('\n', "\r\n");
    v.write("wiki/concepts/Crlf.md", crlf.replace("Pebble", "Crlf"));
    let before = tree(&v);
    let run = v.run(&["fmt", "--fix"]).ok();
    snapshot!(v, run.stdout);
    let after = tree(&v);
    let changed: Vec<&String> = after.keys().filter(|k| after[*k] != before[*k]).collect();
    assert_eq!(
        changed,
        ["wiki/concepts/Crlf.md", "wiki/concepts/Pebble.md"]
    );

    let new = v.read("wiki/concepts/Pebble.md");
    let old_lines: Vec<&str> = IN_ORDER.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    assert_eq!(old_lines.len(), new_lines.len());
    let diff: Vec<(&str, &str)> = old_lines
        .iter()
        .zip(&new_lines)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (*a, *b))
        .collect();
    assert_eq!(
        diff,
        [
            (
                "tags: [\"#Caching\", Data Bases, caching]  # keep this comment",
                "tags: [caching, data-bases]  # keep this comment"
            ),
            ("aliases: pcache", "aliases: [pcache]"),
            ("created: '2026/3/2'", "created: '2026-03-02'"),
            (
                "updated: 2026-03-09T10:30  # time dropped",
                "updated: 2026-03-09  # time dropped"
            ),
        ]
    );
    assert_eq!(
        v.read("wiki/concepts/Crlf.md"),
        new.replace('\n', "\r\n").replace("Pebble", "Crlf"),
        "CRLF kept"
    );

    let j = v.run(&["fmt", "--json"]).ok().json();
    assert_eq!(j["issues"], serde_json::json!([]), "nothing remains");
    let again = v.run(&["fmt", "--fix", "--json"]).ok().json();
    assert_eq!(again["fixes"], serde_json::json!([]));
    assert_eq!(again["files_fixed"], 0);
    assert_eq!(tree(&v), after, "a second --fix changes no byte");
}

#[test]
fn fix_reorders_keys_with_their_comments_and_reports_what_remains() {
    let v = TestVault::new();
    let text = "---\nextra: 1\nupdated: 2026-04-02\n# the kind\ntype: concept\ntags: [ok]\ntitle: T\n\
                sources: [raw/a.md]\ncreated: 2026-04-01\n---\nBody.\n";
    v.write("raw/a.md", "a\n").write("wiki/concepts/T.md", text);
    let j = v.run(&["fmt", "--fix", "--json"]).code(1).json();
    assert_eq!(
        v.read("wiki/concepts/T.md"),
        "---\ntitle: T\n# the kind\ntype: concept\ntags: [ok]\nsources: [raw/a.md]\ncreated: 2026-04-01\n\
         updated: 2026-04-02\nextra: 1\n---\nBody.\n"
    );
    assert_eq!(j["fixes"].as_array().unwrap().len(), 1);
    assert_eq!(j["fixes"][0]["key"], serde_json::Value::Null);
    assert_eq!(
        j["fixes"][0]["before"],
        "extra, updated, type, tags, title, sources, created"
    );
    assert_eq!(j["files_fixed"], 1);
    let remaining: Vec<&str> = j["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        remaining,
        ["maturity"],
        "a missing field is reported, never invented"
    );
    let text = v.run(&["fmt", "--fix"]).code(1);
    assert_eq!(
        text.stdout,
        "wiki/concepts/T.md:1: maturity: missing required field: maturity\n1 frontmatter issue in 1 file\n"
    );
}

#[test]
fn a_crash_after_a_write_leaves_whole_files() {
    let v = TestVault::new();
    v.write("raw/a.md", "a\n")
        .write(
            "wiki/concepts/A.md",
            format!("---\n{HEAD}tags: ai\n{TAIL}---\n"),
        )
        .write(
            "wiki/concepts/B.md",
            format!("---\n{HEAD}tags: bee\n{TAIL}---\n"),
        );
    let mut c = v.cmd(&["fmt", "--fix"]);
    c.env("SPARKS_FAULT_AT", "fmt.write");
    let out = c.output().unwrap();
    assert!(!out.status.success());
    assert!(v.read("wiki/concepts/A.md").contains("\ntags: [ai]\n"));
    assert!(
        v.read("wiki/concepts/B.md").contains("\ntags: bee\n"),
        "the next file is untouched"
    );
    let j = v.run(&["fmt", "--fix", "--json"]).ok().json();
    assert_eq!(j["files_fixed"], 1);
    assert!(v.read("wiki/concepts/B.md").contains("\ntags: [bee]\n"));
}

/// The frontmatter example of the contract this binary embeds, verbatim (§5's YAML block).
fn contract_example(v: &TestVault) -> String {
    let contract = v.run(&["describe"]).ok().stdout;
    let pages = &contract[contract.find("## 5. Pages").expect("a §5")..];
    let start = pages.find("```yaml\n").expect("a YAML example in §5") + "```yaml\n".len();
    let end = start + pages[start..].find("```").expect("the example ends");
    pages[start..end].to_string()
}

#[test]
fn the_contracts_own_example_passes_check_and_fix_leaves_it_alone() {
    let v = TestVault::new();
    let example = contract_example(&v);
    assert!(example.starts_with("---\ntitle: "), "{example}");
    // The sources it cites exist, as they would after the ingest it describes.
    for line in example.lines().filter(|l| l.starts_with("sources:")) {
        for s in line["sources:".len()..]
            .trim()
            .trim_matches(['[', ']'])
            .split(',')
        {
            v.write(s.trim(), "a capture\n");
        }
    }
    let page = format!("{example}\nDana leads the design review.\n");
    v.write("wiki/entities/Example.md", &page);
    v.run(&["fmt", "--check", "wiki/entities/Example.md"]).ok();
    let fixed = v
        .run(&["fmt", "--fix", "--json", "wiki/entities/Example.md"])
        .ok()
        .json();
    assert_eq!(fixed["fixes"], serde_json::json!([]), "{fixed}");
    assert_eq!(v.read("wiki/entities/Example.md"), page);
}

#[test]
fn check_fails_on_everything_fix_changes() {
    let v = TestVault::new();
    let example = contract_example(&v);
    v.write("raw/inbox/2026-04-20.md", "a capture\n");
    // The contract's example with one tag, `People`, and the keys in another order.
    let tags = example
        .lines()
        .find(|l| l.starts_with("tags:"))
        .expect("the example has tags")
        .to_string();
    let people = example.replace(&tags, "tags: [People]");
    let open = example
        .strip_suffix("---\n")
        .expect("the example closes its block");
    let moved = format!("{}{tags}\n---\n", open.replace(&format!("{tags}\n"), ""));
    for (name, text) in [("People.md", &people), ("Moved.md", &moved)] {
        let rel = format!("wiki/entities/{name}");
        v.write(&rel, format!("{text}\nBody.\n"));
        let check = v.run(&["fmt", "--check", &rel]).code(1);
        let fix = v.run(&["fmt", "--fix", &rel]).ok();
        assert!(fix.stdout.contains("fixed"), "{}", fix.stdout);
        v.run(&["fmt", "--check", &rel]).ok();
        snapshot!(
            v,
            format!("{}--- after --fix\n{}", check.stdout, v.read(&rel))
        );
    }
}

#[test]
fn comma_separated_tags_are_split() {
    let v = TestVault::new();
    v.write("raw/a.md", "a\n").write(
        "wiki/concepts/T.md",
        format!("---\n{HEAD}tags: \"#Local First, Tools\"\n{TAIL}---\nText.\n"),
    );
    let check = v.run(&["fmt", "--check", "--json"]).code(1).json();
    let messages: Vec<&str> = check["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.contains(
            &"tag \"#Local First, Tools\" should be written as 2 tags: [local-first, tools]"
        ),
        "{messages:?}"
    );
    v.run(&["fmt", "--fix"]).ok();
    assert!(
        v.read("wiki/concepts/T.md")
            .contains("\ntags: [local-first, tools]\n"),
        "{}",
        v.read("wiki/concepts/T.md")
    );
}
