//! `sparks mv`: every link form is rewritten in every context and nothing in code or raw/ is,
//! both PAGE forms and both NEW forms, every refusal leaves the vault as it was, and `--dry-run`
//! writes nothing; what a move does to the rest of the vault is in `mv_wiki.rs`.

use crate::harness::{TODAY, TestVault, refused, rows, tree};
use crate::snapshot;

/// A page with full frontmatter, last updated 2026-04-01, and `extra` frontmatter lines.
pub(crate) fn page(v: &TestVault, rel: &str, title: &str, extra: &str, body: &str) {
    v.write(
        rel,
        format!(
            "---\ntitle: {title}\ntype: concept\nmaturity: seed\n{extra}sources: [raw/notes.md]\n\
             created: 2026-04-01\nupdated: 2026-04-01\n---\n\n{body}\n"
        ),
    );
}

pub(crate) const OLD: &str = "wiki/concepts/Old Name.md";

/// The page to rename, with a heading and a block, and an alias.
pub(crate) fn target(v: &TestVault) {
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

pub(crate) fn fixture() -> TestVault {
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
