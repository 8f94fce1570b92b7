//! `sparks mv`: every link form is rewritten in every context and nothing in code or raw/ is,
//! both PAGE forms and both NEW forms, every refusal leaves the vault as it was, `--dry-run`
//! writes nothing, the commit carries exactly the changed files, generated pages follow, and a
//! 50-file vault gets exactly as many rewrites as it has references.

use crate::harness::{TODAY, TestVault, commit_all, db, git, refused, rows, tree};
use crate::snapshot;

/// A page with full frontmatter, last updated 2026-04-01, and `extra` frontmatter lines.
fn page(v: &TestVault, rel: &str, title: &str, extra: &str, body: &str) {
    v.write(
        rel,
        format!(
            "---\ntitle: {title}\ntype: concept\nmaturity: seed\n{extra}sources: [raw/notes.md]\n\
             created: 2026-04-01\nupdated: 2026-04-01\n---\n\n{body}\n"
        ),
    );
}

const OLD: &str = "wiki/concepts/Old Name.md";

/// The page to rename, with a heading and a block, and an alias.
fn target(v: &TestVault) {
    page(
        v,
        OLD,
        "Old Name",
        "aliases: [Oldie]\n",
        "Old Name text. ^blk\n\n## Heading\n\nMore text. See [[Other]].",
    );
}

/// Every link form, in prose, a table, a list and a heading, next to code that must not change.
const REFS: &str = "Prose: [[Old Name]], [[old name]], [[Old Name|label]], [[Old Name#Heading]], \
[[Old Name#^blk]], ![[Old Name]], [[concepts/Old Name]], [[Old Name.md]], [[Oldie]], \
[md](../concepts/Old%20Name.md), [angle](<../concepts/Old Name.md>).

| col | link |
|---|---|
| a | [[Old Name\\|shown]] |

- list [[Old Name]]
- [[old name#Heading|x]] and [[Other]]

## See [[Old Name]]

Code: `[[Old Name]]` and <!-- [[Old Name]] --> stay.

```
[[Old Name]] [md](../concepts/Old%20Name.md)
```

    [[Old Name]] indented";

const REWRITTEN: &str =
    "Prose: [[New Name]], [[New Name]], [[New Name|label]], [[New Name#Heading]], \
[[New Name#^blk]], ![[New Name]], [[concepts/New Name]], [[New Name.md]], [[Oldie]], \
[md](../concepts/New%20Name.md), [angle](<../concepts/New Name.md>).

| col | link |
|---|---|
| a | [[New Name\\|shown]] |

- list [[New Name]]
- [[New Name#Heading|x]] and [[Other]]

## See [[New Name]]

Code: `[[Old Name]]` and <!-- [[Old Name]] --> stay.

```
[[Old Name]] [md](../concepts/Old%20Name.md)
```

    [[Old Name]] indented";

/// References in REFS that name the page other than by alias, outside code.
const REFS_COUNT: u64 = 14;

fn fixture() -> TestVault {
    let v = TestVault::new();
    target(&v);
    page(
        &v,
        "wiki/concepts/Other.md",
        "Other",
        "",
        "Links back to [[Oldie]].",
    );
    page(&v, "wiki/entities/Ref.md", "Ref", "", REFS);
    v.write("raw/notes.md", "A raw note about [[Old Name]].\n");
    v.settle();
    v
}

fn frontmatter(title: &str, extra: &str, updated: &str) -> String {
    format!(
        "---\ntitle: {title}\ntype: concept\nmaturity: seed\n{extra}sources: [raw/notes.md]\n\
         created: 2026-04-01\nupdated: {updated}\n---\n\n"
    )
}

#[test]
fn every_link_form_is_rewritten_and_nothing_in_code_or_raw_is() {
    let v = fixture();
    let before = tree(&v);
    let j = v.run(&["mv", "Old Name", "New Name", "--json"]).ok().json();
    assert_eq!(j["from"], OLD);
    assert_eq!(j["to"], "wiki/concepts/New Name.md");
    assert_eq!(j["title"], "New Name");
    assert_eq!(j["alias_added"], true);
    assert_eq!(j["links_rewritten"], REFS_COUNT);
    assert_eq!(
        j["files_changed"],
        serde_json::json!(["wiki/concepts/New Name.md", "wiki/entities/Ref.md"])
    );
    assert_eq!(j["commit"], serde_json::Value::Null, "not a git repository");
    assert_eq!(j["dry_run"], false);
    assert_eq!(
        v.read("wiki/entities/Ref.md"),
        format!("{}{REWRITTEN}\n", frontmatter("Ref", "", TODAY))
    );
    assert_eq!(
        v.read("wiki/concepts/New Name.md"),
        format!(
            "{}Old Name text. ^blk\n\n## Heading\n\nMore text. See [[Other]].\n",
            frontmatter("New Name", "aliases: [Oldie, Old Name]\n", TODAY)
        )
    );
    assert!(!v.path(OLD).exists());
    // A link by alias, raw/ and everything else: byte for byte as before.
    let after = tree(&v);
    for (path, bytes) in &before {
        if path != OLD && path != "wiki/entities/Ref.md" {
            assert_eq!(after.get(path), Some(bytes), "{path}");
        }
    }
    // Every link that resolved still resolves, to the page under its new name.
    let links = rows(
        &v,
        "SELECT target, resolved FROM links WHERE source = 'wiki/entities/Ref.md' ORDER BY seq",
    );
    assert!(
        links
            .iter()
            .all(|l| l.ends_with("| wiki/concepts/New Name.md") || l.starts_with("Other |")),
        "{links:#?}"
    );
    let lint = v.run(&["lint", "--json"]).json();
    assert_eq!(lint["counts"]["broken-links"], 0, "{lint}");
    assert_eq!(lint["counts"]["broken-headings"], 0, "{lint}");
    assert_eq!(lint["counts"]["broken-blocks"], 0, "{lint}");
    v.run(&["fmt", "--check"]).ok();
}

#[test]
fn page_is_found_by_title_alias_file_name_or_path() {
    for name in ["Old Name", "oldie", "Old Name.md", OLD] {
        let v = fixture();
        let j = v.run(&["mv", name, "New Name", "--json"]).ok().json();
        assert_eq!(j["from"], OLD, "{name}");
        assert_eq!(j["links_rewritten"], REFS_COUNT, "{name}");
    }
    // A file whose name is not its title.
    let v = TestVault::new();
    page(&v, "wiki/concepts/cc4bq.md", "Cascade", "", "Text.");
    page(
        &v,
        "wiki/concepts/A.md",
        "A",
        "",
        "[[cc4bq]] and [[Cascade]].",
    );
    let j = v
        .run(&["mv", "cc4bq", "Cascade Engine", "--json"])
        .ok()
        .json();
    assert_eq!(j["to"], "wiki/concepts/Cascade Engine.md");
    assert!(
        v.read("wiki/concepts/A.md")
            .contains("[[Cascade Engine]] and [[Cascade Engine]]."),
    );
}

#[test]
fn new_as_a_path_moves_the_file_and_keeps_the_title_unless_the_name_changes() {
    let v = fixture();
    v.write(
        OLD,
        v.read(OLD).replace(
            "More text.",
            "More text, [o](Other.md) and [self](<Old Name.md#Heading>).",
        ),
    );
    let j = v
        .run(&["mv", "Old Name", "wiki/entities/Old Name.md", "--json"])
        .ok()
        .json();
    assert_eq!(j["to"], "wiki/entities/Old Name.md");
    assert_eq!(j["title"], "Old Name");
    assert_eq!(j["alias_added"], false, "the title did not change");
    let moved = v.read("wiki/entities/Old Name.md");
    assert!(moved.starts_with(&frontmatter("Old Name", "aliases: [Oldie]\n", TODAY)));
    assert!(
        moved.contains(
            "More text, [o](../concepts/Other.md) and [self](<Old Name.md#Heading>). See [[Other]]."
        ),
        "{moved}"
    );
    let r = v.read("wiki/entities/Ref.md");
    assert!(
        r.contains("[[Old Name]], [[old name]], [[Old Name|label]]"),
        "{r}"
    );
    assert!(r.contains("[[entities/Old Name]], [[Old Name.md]]"), "{r}");
    assert!(
        r.contains("[md](Old%20Name.md), [angle](<Old Name.md>)."),
        "{r}"
    );
    // A new file name renames the page too.
    let j = v
        .run(&["mv", "Old Name", "wiki/concepts/Newer.md", "--json"])
        .ok()
        .json();
    assert_eq!(j["title"], "Newer");
    assert_eq!(j["alias_added"], true);
    assert!(
        v.read("wiki/concepts/Newer.md")
            .contains("aliases: [Oldie, Old Name]\n")
    );
    let r = v.read("wiki/entities/Ref.md");
    assert!(r.contains("[[Newer]], [[Newer]], [[Newer|label]]"), "{r}");
    assert!(r.contains("[[concepts/Newer]], [[Newer.md]]"), "{r}");
    assert!(
        r.contains("[md](../concepts/Newer.md), [angle](<../concepts/Newer.md>)."),
        "{r}"
    );
}

#[test]
fn the_old_title_becomes_an_alias_unless_no_alias_and_the_new_one_is_no_alias() {
    let v = fixture();
    v.write(
        OLD,
        v.read(OLD)
            .replace("aliases: [Oldie]", "aliases: [Oldie, New Name]"),
    );
    let j = v.run(&["mv", "Old Name", "New Name", "--json"]).ok().json();
    assert_eq!(j["alias_added"], true);
    assert!(
        v.read("wiki/concepts/New Name.md")
            .contains("\naliases: [Oldie, Old Name]\n"),
        "the new title is no longer an alias"
    );
    let v = fixture();
    let j = v
        .run(&["mv", "Old Name", "New Name", "--no-alias", "--json"])
        .ok()
        .json();
    assert_eq!(j["alias_added"], false);
    assert!(
        v.read("wiki/concepts/New Name.md")
            .contains("\naliases: [Oldie]\n")
    );
    // Without the alias, every link by the old title had to be rewritten: none is broken.
    let lint = v.run(&["lint", "--json"]).json();
    assert_eq!(lint["counts"]["broken-links"], 0, "{lint}");
    // A page without aliases gets the key where the key order puts it.
    let v = TestVault::new();
    v.write("raw/notes.md", "notes\n");
    page(&v, "wiki/concepts/A.md", "A", "tags: [x]\n", "Text.");
    v.run(&["mv", "A", "B"]).ok();
    assert_eq!(
        v.read("wiki/concepts/B.md"),
        format!(
            "{}Text.\n",
            frontmatter("B", "tags: [x]\naliases: [A]\n", TODAY)
        )
    );
    v.run(&["fmt", "--check"]).ok();
}

#[test]
fn every_refusal_changes_nothing() {
    let v = fixture();
    page(
        &v,
        "wiki/concepts/Taken.md",
        "Taken",
        "aliases: [Alias Taken]\n",
        "x",
    );
    page(&v, "wiki/concepts/Big Query.md", "Big Query", "", "x");
    v.write(
        "wiki/entities/Dir.md/keep.txt",
        "a directory named like a page\n",
    );
    v.write(
        "wiki/collections/Projects.md",
        "---\ntitle: Projects\n---\n",
    );
    v.run(&["scan"]).ok();
    let refused = |args: &[&str], code: i32, says: &str| refused(&v, args, code, says);
    // NEW collides with what `query --resolve NEW` reports.
    refused(
        &["mv", "Old Name", "Taken"],
        1,
        "collides with the title of wiki/concepts/Taken.md",
    );
    refused(
        &["mv", "Old Name", "alias taken"],
        1,
        "collides with the alias of wiki/concepts/Taken.md",
    );
    refused(
        &["mv", "Old Name", "big-query"],
        1,
        "the similar title of wiki/concepts/Big Query.md",
    );
    refused(
        &["mv", "Old Name", "wiki/entities/Taken.md"],
        1,
        "collides with",
    );
    refused(
        &["mv", "Old Name", "wiki/entities/Dir.md"],
        1,
        "wiki/entities/Dir.md exists already",
    );
    // PAGE is generated, no wiki page, or nothing.
    refused(
        &["mv", "wiki/index.md", "Catalogue"],
        1,
        "is generated by sparks",
    );
    refused(
        &["mv", "Log", "Journal"],
        1,
        "wiki/log.md is generated by sparks",
    );
    refused(
        &["mv", "Tasks", "Todo"],
        1,
        "wiki/collections/Tasks.md is generated",
    );
    refused(
        &["mv", "Projects", "Work"],
        1,
        "wiki/collections/Projects.md is generated",
    );
    refused(
        &["mv", "raw/notes.md", "Notes"],
        1,
        "raw/notes.md is not a wiki page",
    );
    refused(
        &["mv", "Nothing Here", "X"],
        1,
        "no page is called \"Nothing Here\"",
    );
    refused(
        &["mv", "Old Name", "Old Name"],
        1,
        "is already called \"Old Name\"",
    );
    // NEW that is no title nor path: usage errors.
    refused(&["mv", "Old Name", "a/b"], 2, "cannot hold");
    refused(&["mv", "Old Name", "New.md"], 2, "names no folder");
    refused(&["mv", "Old Name", "raw/New.md"], 2, "is not under wiki/");
    refused(&["mv", "Old Name", "C++: a tour"], 2, "':'");
}

/// A name the file system cannot hold is refused before anything is journaled, and a first
/// write the file system refuses anyway leaves no journal: either way the next write runs.
#[test]
fn a_name_the_file_system_refuses_leaves_no_journal_behind() {
    let v = TestVault::new();
    target(&v);
    page(
        &v,
        "wiki/concepts/Other.md",
        "Other",
        "",
        "See [[Old Name]].",
    );
    v.write("wiki/concepts/notes.txt", "a file, not a folder\n");
    v.run(&["scan"]).ok();
    let journal = v.path(".sparks/journal.json");
    let long = "x".repeat(300);
    let r = v.run(&["mv", "Old Name", &long]).code(2);
    assert!(
        r.stderr.contains(&format!(
            "the file name \"{long}.md\" is 303 bytes long; a file system takes 255 at most"
        )),
        "{}",
        r.stderr
    );
    let long_folder = format!("wiki/{}/New.md", "d".repeat(256));
    refused(
        &v,
        &["mv", "Old Name", &long_folder],
        2,
        "is 256 bytes long",
    );
    assert!(!journal.exists());
    // The file system refuses the first write (a folder that is a file): the error, and no
    // journal to complete.
    let before = tree(&v);
    let r = v
        .run(&["mv", "Old Name", "wiki/concepts/notes.txt/New Name.md"])
        .code(1);
    assert!(r.stderr.contains("notes.txt"), "{}", r.stderr);
    assert!(!journal.exists(), "{}", r.stderr);
    assert!(tree(&v) == before, "nothing changed");
    v.run(&["capture", "x"]).ok();
    v.run(&["mv", "Old Name", "New Name"]).ok();
}

#[test]
fn dry_run_writes_nothing_and_shows_each_file_and_line() {
    let v = fixture();
    v.run(&["scan"]).ok();
    let before = tree(&v);
    let manifest_before = rows(&v, "SELECT path, hash FROM files ORDER BY path");
    let r = v.run(&["mv", "Old Name", "New Name", "--dry-run"]).ok();
    assert_eq!(tree(&v), before);
    assert_eq!(
        rows(&v, "SELECT path, hash FROM files ORDER BY path"),
        manifest_before
    );
    snapshot!(v, r.stdout);
    let j = v
        .run(&["mv", "Old Name", "New Name", "--dry-run", "--json"])
        .ok()
        .json();
    assert_eq!(tree(&v), before);
    assert_eq!(j["dry_run"], true);
    assert_eq!(j["links_rewritten"], REFS_COUNT);
    let changes = j["changes"].as_array().unwrap();
    assert_eq!(changes[0]["path"], "wiki/concepts/New Name.md");
    assert_eq!(changes[0]["moved_from"], OLD);
    assert_eq!(changes[1]["path"], "wiki/entities/Ref.md");
    assert_eq!(changes[1]["lines"][0]["before"], "updated: 2026-04-01");
    assert_eq!(changes[1]["lines"][0]["after"], format!("updated: {TODAY}"));
}

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
