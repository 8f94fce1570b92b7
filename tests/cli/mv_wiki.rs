//! What `sparks mv` does to the rest of the vault: one commit of exactly the changed files, the
//! index and collections regenerated, fifty files with exactly as many rewrites as references,
//! a rename of case alone, a wiki larger than one read chunk, the H1 that repeats the old title,
//! and the pages it reads (only those that may hold a Markdown link).

use crate::harness::{TODAY, TestVault, commit_all, db, git, rows, tree};
use crate::mv::{OLD, fixture, page, target};

#[test]
fn one_commit_carries_exactly_the_changed_files_and_lint_finds_nothing_new() {
    let v = fixture();
    commit_all(&v);
    // Someone's unrelated work stays uncommitted.
    v.write(
        "wiki/concepts/Other.md",
        v.read("wiki/concepts/Other.md") + "Draft line.\n",
    );
    let lint = |v: &TestVault| v.run(&["lint", "--json"]).json()["counts"].clone();
    let issues_before = lint(&v);
    let j = v.run(&["mv", "Old Name", "New Name", "--json"]).ok().json();
    let sha = j["commit"].as_str().expect("a commit");
    assert_eq!(
        git(&v, &v.root, &["log", "-1", "--format=%s", sha]).trim(),
        "mv: Old Name → New Name"
    );
    let files = git(
        &v,
        &v.root,
        &["show", "--name-status", "--format=", "--no-renames", sha],
    );
    let mut files: Vec<&str> = files.lines().collect();
    files.sort();
    assert_eq!(
        files,
        [
            "A\twiki/concepts/New Name.md",
            "D\twiki/concepts/Old Name.md",
            "M\twiki/entities/Ref.md",
        ]
    );
    assert_eq!(
        git(&v, &v.root, &["status", "--porcelain"]).trim(),
        "M wiki/concepts/Other.md"
    );
    assert_eq!(lint(&v), issues_before);
}

#[test]
fn the_index_and_the_collections_that_listed_the_page_are_regenerated() {
    let v = TestVault::new();
    v.write(
        "wiki/entities/Zeta.md",
        "---\ntitle: Zeta\ntype: entity\nmaturity: working\ntags: [project]\nsources: [raw/notes.md]\n\
         created: 2026-04-01\nupdated: 2026-04-01\n---\n\nZeta is a project. See [[Alpha]].\n",
    );
    page(
        &v,
        "wiki/concepts/Alpha.md",
        "Alpha",
        "",
        "Alpha links [[Zeta]].",
    );
    page(&v, "wiki/concepts/Mid.md", "Mid", "", "Mid links [[Zeta]].");
    v.write("raw/notes.md", "notes\n");
    v.run(&["index"]).ok();
    v.run(&["collections", "regen", "--all"]).ok();
    let index = v.read("wiki/index.md");
    let described = index.replace("- [[Zeta]]", "- [[Zeta]] — the project page");
    v.write("wiki/index.md", &described);
    let j = v.run(&["mv", "Zeta", "Aardvark", "--json"]).ok().json();
    let files = j["files_changed"].as_array().unwrap();
    for f in ["wiki/index.md", "wiki/collections/Projects.md"] {
        assert!(files.iter().any(|x| x == f), "{f} in {files:?}");
    }
    let index = v.read("wiki/index.md");
    assert!(
        index.contains("- [[Aardvark]] — the project page"),
        "{index}"
    );
    assert!(!index.contains("Zeta]]"), "{index}");
    let projects = v.read("wiki/collections/Projects.md");
    assert!(
        projects.contains("[[Aardvark]]") && !projects.contains("[[Zeta]]"),
        "{projects}"
    );
    // What the index and the collections would write now is what they hold.
    let again = v.run(&["index", "--json"]).ok().json();
    assert_eq!(again["unchanged"], true, "{again}");
    let regen = v
        .run(&["collections", "regen", "--all", "--json"])
        .ok()
        .json();
    assert_eq!(regen["written"], 0, "{regen}");
}

#[test]
fn fifty_files_get_exactly_as_many_rewrites_as_they_have_references() {
    let v = TestVault::new();
    page(
        &v,
        "wiki/concepts/Hub.md",
        "Hub",
        "aliases: [Centre]\n",
        "The hub. ^top\n\n## Part\n\nText.",
    );
    // Each file draws its links from a fixed cycle of forms; the test counts the references it
    // writes (links by alias and links in code are none).
    let forms = [
        ("[[Hub]]", true),
        ("[[hub|the hub]]", true),
        ("[[Hub#Part]]", true),
        ("![[Hub#^top]]", true),
        ("[[concepts/Hub]]", true),
        ("[[Hub.md]]", true),
        ("[[Centre]]", false),
        ("`[[Hub]]`", false),
        ("[m](../concepts/Hub.md)", true),
        ("[[Elsewhere]]", false),
        ("| [[Hub\\|x]] |", true),
    ];
    let mut expected = 0;
    for i in 0..49 {
        let mut body = format!("File {i}.");
        for k in 0..(i % 5 + 1) {
            let (form, counts) = forms[(i * 3 + k) % forms.len()];
            body.push_str(&format!("\n\nLine {k}: {form}"));
            expected += counts as u64;
        }
        page(
            &v,
            &format!("wiki/entities/F{i:02}.md"),
            &format!("F{i:02}"),
            "",
            &body,
        );
    }
    v.write("raw/notes.md", "notes\n");
    let checks = [
        "broken-links",
        "broken-headings",
        "broken-blocks",
        "ambiguous-links",
    ];
    let lint = |v: &TestVault| {
        let counts = v.run(&["lint", "--json"]).json()["counts"].clone();
        checks.map(|c| counts[c].as_u64().unwrap())
    };
    let before = lint(&v);
    assert_eq!(before[0], 14, "the links to Elsewhere");
    let j = v.run(&["mv", "Hub", "Core", "--json"]).ok().json();
    assert_eq!(j["links_rewritten"], expected);
    let remaining: usize = (0..49)
        .map(|i| {
            let t = v.read(&format!("wiki/entities/F{i:02}.md"));
            t.matches("[[Hub").count()
                + t.matches("[[hub").count()
                + t.matches("Hub.md)").count()
                + t.matches("concepts/Hub]]").count()
        })
        .sum();
    let in_code: usize = (0..49)
        .map(|i| {
            v.read(&format!("wiki/entities/F{i:02}.md"))
                .matches("`[[Hub]]`")
                .count()
        })
        .sum();
    assert_eq!(remaining, in_code, "only the links in code still say Hub");
    assert_eq!(lint(&v), before, "{checks:?}");
}

#[test]
fn a_rename_that_changes_only_the_case_leaves_one_file() {
    let v = TestVault::new();
    v.write("raw/notes.md", "notes\n");
    page(&v, "wiki/concepts/cascade.md", "cascade", "", "Text.");
    page(
        &v,
        "wiki/concepts/A.md",
        "A",
        "",
        "[[cascade]] and [[Cascade|c]].",
    );
    let j = v.run(&["mv", "cascade", "Cascade", "--json"]).ok().json();
    assert_eq!(j["to"], "wiki/concepts/Cascade.md");
    assert_eq!(j["alias_added"], false, "the same name, in another case");
    assert_eq!(j["links_rewritten"], 0, "both links still lead to the page");
    let names: Vec<String> = std::fs::read_dir(v.path("wiki/concepts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.contains(&"Cascade.md".to_string()), "{names:?}");
    assert!(!names.contains(&"cascade.md".to_string()), "{names:?}");
    assert!(
        v.read("wiki/concepts/Cascade.md")
            .starts_with("---\ntitle: Cascade\n")
    );
}

/// More pages than `mv` reads at a time (it keeps only the texts of the pages that refer to
/// the renamed one): references in every chunk are rewritten, Markdown links included, and
/// nothing else is touched.
#[test]
fn a_wiki_larger_than_one_read_chunk_is_rewritten_in_every_chunk() {
    let v = TestVault::new();
    target(&v);
    let pages = 2_300;
    let mut linking = Vec::new();
    for i in 0..pages {
        let rel = format!("wiki/concepts/p{i:04}.md");
        let body = match i % 500 {
            0 => "Links [[Old Name]] and [[Old Name|there]].".to_string(),
            250 => "A Markdown link: [it](Old%20Name.md).".to_string(),
            _ => format!("Only [[p{:04}]] here.", (i + 1) % pages),
        };
        if i % 250 == 0 {
            linking.push(rel.clone());
        }
        page(&v, &rel, &format!("P{i}"), "", &body);
    }
    v.run(&["scan"]).ok();
    let before = tree(&v);
    let out = v.run(&["mv", "Old Name", "New Name", "--json"]).ok().json();
    // Two wikilinks in each of 5 pages, one Markdown link in each of 5 others.
    assert_eq!(out["links_rewritten"], 15, "{out}");
    let after = tree(&v);
    for rel in &linking {
        let text = String::from_utf8_lossy(&after[rel.as_str()]);
        assert!(
            !text.contains("Old Name") && !text.contains("Old%20Name"),
            "{rel}: {text}"
        );
        assert!(text.contains(&format!("updated: {TODAY}")), "{rel}: {text}");
    }
    let untouched = before
        .iter()
        .filter(|(p, t)| after.get(*p) == Some(*t))
        .count();
    // Everything but the renamed page, the referrers and the regenerated index.
    let changed: Vec<&String> = before
        .keys()
        .filter(|p| after.get(*p) != before.get(*p))
        .collect();
    assert!(
        changed
            .iter()
            .all(|p| linking.contains(p) || p.as_str() == OLD || p.starts_with("wiki/index")),
        "{changed:?}"
    );
    assert!(untouched >= pages - linking.len(), "{untouched}");
}

#[test]
fn the_h1_that_repeats_the_old_title_becomes_the_new_title_and_its_links_follow() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Spaced repetition.md",
        "Spaced repetition",
        "# Spaced repetition\n\nReview at growing intervals; see [[#Spaced repetition]].\n\n## Spaced repetition\n\nA second heading so named stays.",
    );
    v.page(
        "wiki/concepts/Memory.md",
        "Memory",
        "[[Spaced repetition#Spaced repetition|the method]], [[Spaced repetition#Other]].",
    );
    v.settle();
    let j = v
        .run(&["mv", "Spaced repetition", "Spaced practice", "--json"])
        .ok()
        .json();
    assert_eq!(j["links_rewritten"], 3, "{j}");
    let page = v.read("wiki/concepts/Spaced practice.md");
    assert!(
        page.contains(
            "\n# Spaced practice\n\nReview at growing intervals; see [[#Spaced practice]].\n\n\
             ## Spaced repetition\n"
        ),
        "{page}"
    );
    assert!(
        v.read("wiki/concepts/Memory.md")
            .contains("[[Spaced practice#Spaced practice|the method]], [[Spaced practice#Other]].")
    );
    // The first link reaches the renamed H1; the second was broken before and stays so.
    let lint = v
        .run(&["lint", "--check", "broken-headings", "--json"])
        .json();
    assert_eq!(lint["counts"]["broken-headings"], 1, "{lint}");
    assert_eq!(lint["issues"][0]["line"], 10, "{lint}");
    // A page whose H1 is something else keeps it.
    v.page(
        "wiki/concepts/Habits.md",
        "Habits",
        "# What I know about habits\n\nText.",
    );
    v.run(&["mv", "Habits", "Routines"]).ok();
    assert!(
        v.read("wiki/concepts/Routines.md")
            .contains("# What I know about habits\n")
    );
}

/// The scan notes which pages hold a Markdown link to a path (schema 13), so that `mv` reads
/// those and the pages that wikilink to the page, not the whole wiki; a page stored before the
/// scan looked (NULL) is read as before, and its Markdown links are rewritten all the same.
#[test]
fn mv_reads_the_pages_that_may_hold_a_markdown_link_and_no_others() {
    let v = TestVault::new();
    target(&v);
    page(
        &v,
        "wiki/entities/Md.md",
        "Md",
        "",
        "See [it](../concepts/Old%20Name.md).",
    );
    page(
        &v,
        "wiki/entities/Web.md",
        "Web",
        "",
        "A [site](https://example.com), [here](#Top), `[code](x.md)` and [[Other]].",
    );
    page(&v, "wiki/entities/Plain.md", "Plain", "", "Nothing linked.");
    v.settle();
    v.run(&["scan"]).ok();
    let flagged = |v: &TestVault| {
        rows(
            v,
            "SELECT path || ' ' || ifnull(path_links, 'NULL') FROM pages
             WHERE path LIKE 'wiki/concepts/%' OR path LIKE 'wiki/entities/%' ORDER BY path",
        )
    };
    assert_eq!(
        flagged(&v),
        [
            "wiki/concepts/Old Name.md 0",
            "wiki/entities/Md.md 1",
            "wiki/entities/Plain.md 0",
            "wiki/entities/Web.md 0",
        ]
    );
    // An edit that adds one, and one that takes it away, are seen (the row updated in place).
    page(
        &v,
        "wiki/entities/Plain.md",
        "Plain",
        "",
        "Now an image: ![pic](<../concepts/Old Name.md>).",
    );
    page(&v, "wiki/entities/Md.md", "Md", "", "No link left.");
    v.run(&["scan"]).ok();
    assert_eq!(
        flagged(&v),
        [
            "wiki/concepts/Old Name.md 0",
            "wiki/entities/Md.md 0",
            "wiki/entities/Plain.md 1",
            "wiki/entities/Web.md 0",
        ]
    );
    // A manifest from before schema 13 does not know: every page may hold one, and is read.
    page(
        &v,
        "wiki/entities/Md.md",
        "Md",
        "",
        "Back: [it](../concepts/Old%20Name.md).",
    );
    v.run(&["scan"]).ok();
    db(&v)
        .execute_batch("UPDATE pages SET path_links = NULL")
        .unwrap();
    let j = v.run(&["mv", "Old Name", "New Name", "--json"]).ok().json();
    assert_eq!(
        j["files_changed"],
        serde_json::json!([
            "wiki/concepts/New Name.md",
            "wiki/entities/Md.md",
            "wiki/entities/Plain.md"
        ])
    );
    assert!(
        v.read("wiki/entities/Md.md")
            .contains("Back: [it](../concepts/New%20Name.md).")
    );
    assert!(
        v.read("wiki/entities/Plain.md")
            .contains("![pic](<../concepts/New Name.md>).")
    );
    // The scan that recorded the rewrites knows again.
    assert_eq!(
        flagged(&v),
        [
            "wiki/concepts/New Name.md 0",
            "wiki/entities/Md.md 1",
            "wiki/entities/Plain.md 1",
            "wiki/entities/Web.md NULL",
        ]
    );
}

/// A page the scan found no Markdown link to a path in is not read by `mv`: told (falsely)
/// that one page holds none, `mv` leaves its link alone and rewrites the page it was told of,
/// which proves the pages read are the ones the manifest names, not the whole wiki.
#[test]
fn mv_does_not_read_a_page_the_scan_found_no_markdown_link_in() {
    let v = TestVault::new();
    target(&v);
    let body = "See [it](../concepts/Old%20Name.md).";
    page(&v, "wiki/entities/Told.md", "Told", "", body);
    page(&v, "wiki/entities/Hidden.md", "Hidden", "", body);
    v.settle();
    v.run(&["scan"]).ok();
    db(&v)
        .execute_batch("UPDATE pages SET path_links = 0 WHERE path = 'wiki/entities/Hidden.md'")
        .unwrap();
    let hidden = v.read("wiki/entities/Hidden.md");
    let j = v.run(&["mv", "Old Name", "New Name", "--json"]).ok().json();
    assert_eq!(
        j["files_changed"],
        serde_json::json!(["wiki/concepts/New Name.md", "wiki/entities/Told.md"])
    );
    assert!(
        v.read("wiki/entities/Told.md")
            .contains("See [it](../concepts/New%20Name.md).")
    );
    assert_eq!(v.read("wiki/entities/Hidden.md"), hidden);
}
