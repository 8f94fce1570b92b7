//! `sparks lint --fix`: exactly the reported bytes change, and a second run changes nothing.

use crate::harness::TestVault;
use crate::snapshot;
use std::collections::BTreeMap;

fn files(v: &TestVault) -> BTreeMap<String, String> {
    walkdir::WalkDir::new(v.path("wiki"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(&v.root)
                .unwrap()
                .display()
                .to_string();
            (rel, std::fs::read_to_string(e.path()).unwrap())
        })
        .collect()
}

fn fixable() -> TestVault {
    let v = TestVault::new();
    let long =
        "Enough prose here to keep this page from being reported as a thin page at all. ".repeat(4);
    v.write(
        "wiki/entities/Cascade.md",
        format!(
            "---\n# the engine page\ntitle: \"Cascade Engine\"   # quoted on purpose\ntype: entity\nmaturity: seed\n\
             tags: ['#GCP', Big Data, ok]\naliases: [CC4BQ]\nsources: [raw/a.md]\ncreated: 2026-03-01\nupdated: '2026-03-02'\n---\n\
             {long}\n\n[[Pebble]]\n"
        ),
    )
    .write(
        "wiki/concepts/Pebble.md",
        format!(
            "---\ntitle: Pebble\ntype: concept\nmaturity: seed\nsources: [raw/b.md]\ncreated: 2026-03-01\nupdated: 2026-04-01\n---\n\
             {long}\n\nSee [[cc4bq]], [[CC4BQ#Design|the design]], [[Cascade]] and `[[cc4bq]]` in code.\n\n| a | [[cc4bq\\|b]] |\n|---|---|\n"
        ),
    )
    .write("raw/a.md", "a")
    .write("raw/b.md", "b")
    .settle()
    .set_mtime("raw/a.md", "2026-03-20")
    .set_mtime("raw/b.md", "2026-03-01");
    v.run(&["scan"]).ok();
    v
}

#[test]
fn fix_changes_exactly_the_reported_lines_and_only_once() {
    let v = fixable();
    let before = files(&v);
    let run = v.run(&["lint", "--fix", "--json"]);
    let j = run.json();
    let after = files(&v);
    let fixes = j["fixes"].as_array().unwrap();
    // Every line that changed is reported, and every reported change happened.
    let mut changed = Vec::new();
    for (path, old) in &before {
        let new = &after[path];
        let (a, b): (Vec<_>, Vec<_>) = (old.lines().collect(), new.lines().collect());
        assert_eq!(a.len(), b.len(), "{path}: line count");
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            if x != y {
                changed.push((path.clone(), i + 1, x.to_string(), y.to_string()));
            }
        }
    }
    let reported: Vec<_> = fixes
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap() as usize,
                f["before"].as_str().unwrap().to_string(),
                f["after"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut sorted = reported.clone();
    sorted.sort();
    changed.sort();
    assert_eq!(sorted, changed);
    let again = v.run(&["lint", "--fix", "--json"]).json();
    assert_eq!(again["fixes"], serde_json::json!([]));
    assert_eq!(files(&v), after, "a second --fix changes nothing");
    // What was fixed is no longer reported.
    let remaining: Vec<&str> = again["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["check"].as_str().unwrap())
        .collect();
    assert!(
        !remaining.contains(&"stale-pages") && !remaining.contains(&"invalid-frontmatter"),
        "{remaining:?}"
    );
    // Links by alias resolve to one page: no issue, so nothing to fix.
    assert_eq!(
        after["wiki/concepts/Pebble.md"], before["wiki/concepts/Pebble.md"],
        "only the stale date would change it, and Pebble is not stale"
    );
    let cascade = &after["wiki/entities/Cascade.md"];
    assert!(
        cascade.contains("title: \"Cascade Engine\"   # quoted on purpose"),
        "{cascade}"
    );
    assert!(cascade.contains("# the engine page"), "{cascade}");
    assert!(
        cascade.contains("updated: '2026-05-01'"),
        "quoting kept, date bumped: {cascade}"
    );
}

#[test]
fn fix_reports_each_change_in_text() {
    let v = fixable();
    snapshot!(v, v.run(&["lint", "--fix"]).code(1).stdout);
}

#[test]
fn check_limits_the_fixes() {
    let v = fixable();
    let j = v
        .run(&["lint", "--fix", "--check", "stale-pages", "--json"])
        .json();
    let reasons: Vec<&str> = j["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["stale page: updated set to today"]);
}

#[test]
fn lint_and_fmt_agree_on_tags_and_fix_them_alike() {
    let page = "---\ntitle: T\ntype: concept\nmaturity: seed\ntags: [People, \"#Local First, Tools\"]\n\
                sources: [raw/a.md]\ncreated: 2026-04-01\nupdated: 2026-04-02\n---\n";
    let vault = || {
        let v = TestVault::new();
        v.write("raw/a.md", "a\n").write("wiki/concepts/T.md", page);
        v.run(&["scan"]).ok();
        v
    };
    let (by_lint, by_fmt) = (vault(), vault());
    let messages = |issues: &serde_json::Value| -> Vec<String> {
        issues
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["path"] == "wiki/concepts/T.md")
            .map(|i| i["message"].as_str().unwrap().to_string())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    let lint = by_lint
        .run(&["lint", "--check", "invalid-frontmatter", "--json"])
        .code(1)
        .json();
    let fmt = by_fmt.run(&["fmt", "--check", "--json"]).code(1).json();
    let want = [
        "tag \"#Local First, Tools\" should be written as 2 tags: [local-first, tools]",
        "tag \"People\" should be written \"people\"",
    ];
    assert_eq!(messages(&lint["issues"]), want);
    assert_eq!(messages(&fmt["issues"]), want);
    by_lint
        .run(&["lint", "--fix", "--check", "invalid-frontmatter"])
        .ok();
    by_fmt.run(&["fmt", "--fix"]).ok();
    let fixed = by_lint.read("wiki/concepts/T.md");
    assert!(
        fixed.contains("\ntags: [people, local-first, tools]\n"),
        "{fixed}"
    );
    assert_eq!(fixed, by_fmt.read("wiki/concepts/T.md"));
}

#[test]
fn fix_leaves_alone_what_lint_calls_clean() {
    let v = TestVault::new();
    let long = "Enough prose to keep this page from being a thin page here. ".repeat(4);
    // Prose of its own: the same prose on two pages makes them near-duplicates.
    let other = "Apps that work without a network first, and sync their data when they can. \
                 They keep working on a train or a plane. Conflicts are merged later. Users \
                 rarely notice.";
    v.page(
        "wiki/concepts/Local-first software.md",
        "Local-first software",
        &format!("{long}\n\nSee [[Offline-first apps]]."),
    );
    v.write(
        "wiki/concepts/Offline-first apps.md",
        format!(
            "---\ntitle: Offline-first apps\ntype: concept\nmaturity: seed\naliases: [LoFi]\n\
             sources: [raw/inbox/2026-05-01.md]\ncreated: 2026-05-01\nupdated: 2026-05-01\n---\n\n\
             {other}\n\nBy path [[concepts/Local-first software]], by alias [[LoFi]], by file name \
             [[Offline-first apps.md]].\n"
        ),
    );
    v.write("raw/inbox/2026-05-01.md", "capture\n");
    v.settle()
        .set_mtime("raw/inbox/2026-05-01.md", "2026-04-30");
    let lint = v.run(&["lint"]).ok();
    assert!(lint.stdout.contains("Vault health: OK"), "{}", lint.stdout);
    let before = files(&v);
    let j = v.run(&["lint", "--fix", "--json"]).ok().json();
    assert_eq!(j["fixes"], serde_json::json!([]), "{j}");
    assert_eq!(
        files(&v),
        before,
        "lint --fix changed what lint called clean"
    );
}

#[test]
fn help_says_which_checks_fix_repairs_and_which_need_fmt() {
    let v = TestVault::empty();
    let help = v.run_in(v.dir.path(), &["lint", "--help"]).ok().stdout;
    assert!(
        help.contains("--fix repairs: invalid-frontmatter (tags only), stale-pages"),
        "{help}"
    );
    assert!(
        help.contains(
            "sparks fmt --fix repairs: invalid-frontmatter (key order, list shape, date form)"
        ),
        "{help}"
    );
}
