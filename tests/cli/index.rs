//! `sparks index`: grouping, sorting, what survives a rebuild, links that resolve, sharding,
//! dry runs, a stale manifest and a crash.

use crate::harness::{Run, TestVault};
use crate::snapshot;
use rusqlite::Connection;
use serde_json::{Value, json};

fn scan(v: &TestVault) {
    v.run(&["scan"]).ok();
}

fn index(v: &TestVault) -> Value {
    v.run(&["index", "--json"]).ok().json()
}

/// A page of a given type (`None`: no type) with valid frontmatter otherwise.
fn typed(v: &TestVault, rel: &str, title: &str, kind: Option<&str>) {
    let kind = kind.map_or(String::new(), |k| format!("type: {k}\n"));
    v.write(
        rel,
        format!(
            "---\ntitle: {title}\n{kind}maturity: seed\nsources: [raw/a.md]\ncreated: 2026-04-01\nupdated: 2026-04-01\n---\n\nText.\n"
        ),
    );
}

/// The body of wiki/index.md, after its frontmatter.
fn body(v: &TestVault, rel: &str) -> String {
    let text = v.read(rel);
    let end = text[3..].find("\n---\n").expect("a frontmatter block") + 3 + 5;
    text[end..].to_string()
}

/// Every link from `source` in the manifest: `target | status | resolved`.
fn links(v: &TestVault, source: &str) -> Vec<String> {
    let c = Connection::open(v.path("sparks.db")).unwrap();
    let mut stmt = c
        .prepare("SELECT target, status, coalesce(resolved, '-') FROM links WHERE source = ?1 ORDER BY seq")
        .unwrap();
    stmt.query_map([source], |r| {
        Ok(format!(
            "{} | {} | {}",
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// Scan, then check that every link of `source` resolves; returns the pages they resolve to.
fn resolved_targets(v: &TestVault, source: &str) -> Vec<String> {
    scan(v);
    let all = links(v, source);
    for l in &all {
        assert!(
            l.contains(" | resolved | "),
            "{source}: {l}\n{}",
            all.join("\n")
        );
    }
    let mut out: Vec<String> = all
        .iter()
        .map(|l| l.rsplit(" | ").next().unwrap().to_string())
        .collect();
    out.sort();
    out
}

/// Scan, lint, and return the issues about `wiki/index.md` or its shards.
fn lint_about_the_index(v: &TestVault) -> Vec<String> {
    scan(v);
    let lint = v.run(&["lint", "--json"]).json();
    lint["issues"]
        .as_array()
        .expect("issues is a list")
        .iter()
        .filter(|i| {
            i["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("wiki/index"))
        })
        .map(|i| i.to_string())
        .collect()
}

fn set_shard_above(v: &TestVault, n: usize) {
    let toml: Vec<String> = v
        .read("sparks.toml")
        .lines()
        .map(|l| {
            if l.starts_with("shard_above =") {
                format!("shard_above = {n}")
            } else {
                l.to_string()
            }
        })
        .collect();
    v.write("sparks.toml", toml.join("\n") + "\n");
}

fn with_today(v: &TestVault, today: &str, args: &[&str]) -> Run {
    v.cmd(args)
        .env("SPARKS_TODAY", today)
        .output()
        .unwrap()
        .into()
}

#[test]
fn groups_by_type_sorts_by_title_and_drops_no_page() {
    let v = TestVault::new();
    typed(&v, "wiki/entities/Zeta.md", "zeta", Some("entity"));
    typed(&v, "wiki/entities/Alpha.md", "Alpha", Some("entity"));
    typed(&v, "wiki/entities/beta.md", "beta", Some("entity"));
    typed(&v, "wiki/concepts/Caching.md", "Caching", Some("concept"));
    typed(&v, "wiki/summaries/Talk.md", "A Talk", Some("summary"));
    typed(
        &v,
        "wiki/synthesis/Big.md",
        "Big Picture",
        Some("synthesis"),
    );
    typed(&v, "wiki/entities/Cased.md", "Cased", Some("Entity"));
    typed(&v, "wiki/concepts/Untyped.md", "Untyped", None);
    v.write("wiki/concepts/bare.md", "No frontmatter at all.\n");
    scan(&v);
    let r = index(&v);
    assert_eq!(
        r["pages_by_type"],
        json!({"entity": 3, "concept": 1, "summary": 1, "synthesis": 1, "collection": 2, "other": 3}),
        "the original's key"
    );
    assert_eq!(r["descriptions_blank"], 11, "{r}");
    assert_eq!(
        r["output_path"].as_str(),
        Some(v.path("wiki/index.md").to_str().unwrap()),
        "the original's absolute path"
    );
    assert_eq!(
        r["bytes"].as_u64(),
        Some(v.read("wiki/index.md").len() as u64)
    );
    assert_eq!(
        (r["pages"].clone(), r["added"].clone(), r["written"].clone()),
        (json!(11), json!(11), json!(true))
    );
    snapshot!(v, body(&v, "wiki/index.md"));
}

#[test]
fn a_second_run_is_byte_identical_even_on_another_day() {
    let v = TestVault::new();
    typed(&v, "wiki/entities/A.md", "A", Some("entity"));
    scan(&v);
    index(&v);
    let first = v.read("wiki/index.md");
    let again = with_today(&v, "2026-05-09", &["index", "--json"])
        .ok()
        .json();
    assert_eq!(
        (again["unchanged"].clone(), again["written"].clone()),
        (json!(true), json!(false)),
        "{again}"
    );
    assert_eq!(again["diff"], json!([]));
    assert_eq!(v.read("wiki/index.md"), first);
    // The text report says so too.
    let text = with_today(&v, "2026-05-09", &["index"]).ok();
    assert!(
        text.stdout
            .starts_with("wiki/index.md is up to date: 3 pages"),
        "{}",
        text.stdout
    );
}

#[test]
fn descriptions_survive_a_rebuild_a_rename_and_a_move() {
    let v = TestVault::new();
    typed(&v, "wiki/entities/Cascade.md", "Cascade", Some("entity"));
    v.write(
        "wiki/concepts/caching-notes.md",
        "A page without frontmatter.\n",
    );
    scan(&v);
    index(&v);
    let edited = v
        .read("wiki/index.md")
        .replace("updated: 2026-05-01", "updated: 2026-04-20")
        .replace(
            "- [[Cascade]]\n",
            "- [[Cascade]] — Claude Code for BigQuery\n",
        )
        .replace(
            "- [[caching-notes]]\n",
            "- [[caching-notes]] — notes on caching\n",
        );
    v.write("wiki/index.md", edited);

    // Rebuilt with a new page: both descriptions stay, and `updated` moves to today.
    typed(&v, "wiki/entities/Pebble.md", "Pebble", Some("entity"));
    scan(&v);
    let r = with_today(&v, "2026-05-03", &["index", "--json"])
        .ok()
        .json();
    assert_eq!(
        (
            r["descriptions_kept"].clone(),
            r["kept"].clone(),
            r["added"].clone()
        ),
        (json!(2), json!(4), json!(1)),
        "{r}"
    );
    let text = v.read("wiki/index.md");
    assert!(
        text.contains("- [[Cascade]] — Claude Code for BigQuery\n"),
        "{text}"
    );
    assert!(
        text.contains("updated: 2026-05-03\n") && text.contains("created: 2026-05-01\n"),
        "{text}"
    );

    // The page file renamed (title kept), the other moved to another folder.
    std::fs::rename(
        v.path("wiki/entities/Cascade.md"),
        v.path("wiki/entities/Cascade Engine.md"),
    )
    .unwrap();
    std::fs::rename(
        v.path("wiki/concepts/caching-notes.md"),
        v.path("wiki/summaries/caching-notes.md"),
    )
    .unwrap();
    scan(&v);
    let r = index(&v);
    assert_eq!(
        (r["descriptions_kept"].clone(), r["removed"].clone()),
        (json!(2), json!(0)),
        "{r}"
    );
    let text = v.read("wiki/index.md");
    assert!(
        text.contains("- [[Cascade]] — Claude Code for BigQuery\n"),
        "{text}"
    );
    assert!(
        text.contains("- [[caching-notes]] — notes on caching\n"),
        "{text}"
    );
    assert_eq!(
        resolved_targets(&v, "wiki/index.md"),
        [
            "wiki/collections/Tasks.md",
            "wiki/entities/Cascade Engine.md",
            "wiki/entities/Pebble.md",
            "wiki/log.md",
            "wiki/summaries/caching-notes.md"
        ]
    );
}

#[test]
fn hand_written_lines_are_kept_in_order_before_the_sections() {
    let v = TestVault::new();
    typed(&v, "wiki/entities/Cascade.md", "Cascade", Some("entity"));
    v.write("raw/img/map.png", [1u8, 2, 3]);
    v.write(
        "wiki/index.md",
        "---\ntitle: Index\ntype: collection\nmaturity: working\ntags: [meta]  # kept\nsources: []\ncreated: 2026-01-01\nupdated: 2026-01-02\n---\n\n\
         # Wiki Index\n\nStart with [[Cascade]].\n\n## Entities\n\n- [[entities/Cascade]] — a tool (2 sources)\n\
         - [[Gone]] — a page that was deleted\n\nA note someone left between sections.\n\n## Reading order\n\n\
         - [[map.png]] — the map\n\n```text\n- [[Cascade]] — inside a code block\n## Entities\n```\n",
    );
    scan(&v);
    let r = index(&v);
    assert_eq!(
        (r["descriptions_kept"].clone(), r["removed"].clone()),
        (json!(1), json!(1)),
        "{r}"
    );
    let text = v.read("wiki/index.md");
    assert!(
        text.starts_with(
            "---\ntitle: Index\ntype: collection\nmaturity: working\ntags: [meta]  # kept\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("created: 2026-01-01\nupdated: 2026-05-01\n"),
        "{text}"
    );
    snapshot!(v, body(&v, "wiki/index.md"));
    let again = index(&v);
    assert_eq!(again["unchanged"], true, "{again}");
}

#[test]
fn an_old_index_without_frontmatter_gets_a_valid_one() {
    let v = TestVault::new();
    typed(&v, "wiki/entities/Cascade.md", "Cascade", Some("entity"));
    v.write(
        "wiki/index.md",
        "# Wiki Index\n\nAuto-generated by `sparks index`.\n\n## Entities\n\n- [[entities/Cascade]] — Claude Code for BigQuery (2 sources)\n",
    );
    scan(&v);
    index(&v);
    let text = v.read("wiki/index.md");
    assert!(
        text.starts_with("---\ntitle: Index\ntype: collection\nmaturity: working\nsources: []\ncreated: 2026-05-01\nupdated: 2026-05-01\n---\n\n# Wiki Index\n"),
        "{text}"
    );
    assert!(
        text.contains("- [[Cascade]] — Claude Code for BigQuery\n"),
        "{text}"
    );
    assert_eq!(lint_about_the_index(&v), Vec::<String>::new());
}

#[test]
fn duplicate_and_awkward_titles_get_links_that_resolve_to_their_page() {
    let v = TestVault::new();
    typed(&v, "wiki/concepts/One.md", "Same", Some("concept"));
    typed(&v, "wiki/entities/Two.md", "Same", Some("entity"));
    typed(
        &v,
        "wiki/concepts/CSharp.md",
        "C# in Depth",
        Some("concept"),
    );
    typed(&v, "wiki/concepts/CICD.md", "CI/CD", Some("concept"));
    typed(&v, "wiki/concepts/Index.md", "Index", Some("concept"));
    typed(&v, "wiki/entities/Pebble.md", "Pebble", Some("entity"));
    // A page without a title whose file name is another page's title.
    v.write("wiki/summaries/Pebble.md", "No frontmatter.\n");
    // Two pages named Twin; the short path of one also names a raw file.
    v.write("wiki/a/Twin.md", "x\n")
        .write("wiki/b/Twin.md", "x\n")
        .write("raw/a/Twin.md", "not a page\n");
    scan(&v);
    let r = index(&v);
    let pages = r["pages"].as_u64().unwrap() as usize;
    let text = body(&v, "wiki/index.md");
    assert!(
        text.contains("- [[concepts/One|Same]]\n") && text.contains("- [[entities/Two|Same]]\n"),
        "{text}"
    );
    assert!(
        text.contains("- [[concepts/CSharp|C# in Depth]]\n"),
        "{text}"
    );
    assert!(
        text.contains("- [[Pebble]]\n") && text.contains("- [[summaries/Pebble|Pebble]]\n"),
        "{text}"
    );
    assert!(
        text.contains("- [[wiki/a/Twin|Twin]]\n") && text.contains("- [[b/Twin|Twin]]\n"),
        "{text}"
    );
    let targets = resolved_targets(&v, "wiki/index.md");
    assert_eq!(targets.len(), pages, "{targets:?}");
    targets
        .windows(2)
        .for_each(|w| assert_ne!(w[0], w[1], "each page is listed once"));
}

#[test]
fn above_shard_above_each_type_gets_its_own_page() {
    let v = TestVault::new();
    set_shard_above(&v, 3);
    typed(&v, "wiki/entities/A.md", "A", Some("entity"));
    typed(&v, "wiki/entities/B.md", "B", Some("entity"));
    typed(&v, "wiki/concepts/C.md", "C", Some("concept"));
    scan(&v);
    let r = index(&v);
    assert_eq!(r["pages"], 5);
    let shards: Vec<&str> = r["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        shards,
        [
            "wiki/index/Entities.md",
            "wiki/index/Concepts.md",
            "wiki/index/Collections.md"
        ]
    );
    snapshot!(v, v.read("wiki/index.md"));
    snapshot!(v, v.read("wiki/index/Entities.md"));
    assert_eq!(
        resolved_targets(&v, "wiki/index.md"),
        [
            "wiki/index/Collections.md",
            "wiki/index/Concepts.md",
            "wiki/index/Entities.md"
        ]
    );
    assert_eq!(
        resolved_targets(&v, "wiki/index/Entities.md"),
        ["wiki/entities/A.md", "wiki/entities/B.md"]
    );
    assert_eq!(lint_about_the_index(&v), Vec::<String>::new());

    // A description written in a shard, and a note, survive; then a second run changes nothing.
    let shard = v
        .read("wiki/index/Entities.md")
        .replace("- [[A]]\n", "- [[A]] — the first\n");
    v.write(
        "wiki/index/Entities.md",
        shard.replace(
            "# Index of Entities\n",
            "# Index of Entities\n\nPeople and things.\n",
        ),
    );
    assert_eq!(index(&v)["descriptions_kept"], 1);
    assert_eq!(index(&v)["unchanged"], true);

    // Back under the threshold: the shards go, what was written in them comes back home.
    std::fs::remove_file(v.path("wiki/concepts/C.md")).unwrap();
    std::fs::remove_file(v.path("wiki/entities/B.md")).unwrap();
    scan(&v);
    let r = index(&v);
    assert_eq!(
        r["removed_shards"],
        json!([
            "wiki/index/Entities.md",
            "wiki/index/Concepts.md",
            "wiki/index/Collections.md"
        ])
    );
    assert!(!v.path("wiki/index/Entities.md").exists());
    let text = v.read("wiki/index.md");
    assert!(
        text.contains("- [[A]] — the first\n") && text.contains("\nPeople and things.\n"),
        "{text}"
    );
    assert!(!text.contains("[[index/"), "{text}");
    assert_eq!(index(&v)["unchanged"], true);
}

#[test]
fn dry_run_writes_nothing_and_shows_the_changed_lines() {
    let v = TestVault::new();
    typed(&v, "wiki/entities/A.md", "A", Some("entity"));
    set_shard_above(&v, 2);
    scan(&v);
    let before = v.read("wiki/index.md");
    let r = v.run(&["index", "--dry-run"]).ok();
    assert_eq!(v.read("wiki/index.md"), before);
    assert!(!v.path("wiki/index").exists());
    snapshot!(v, r.stdout);
    let j = v.run(&["index", "--dry-run", "--json"]).ok().json();
    assert_eq!(
        (
            j["dry_run"].clone(),
            j["written"].clone(),
            j["unchanged"].clone()
        ),
        (json!(true), json!(false), json!(false))
    );
    assert_eq!(j["diff"].as_array().unwrap().len(), 3, "{j}");
}

#[test]
fn pages_written_or_removed_since_the_last_scan_are_seen() {
    let v = TestVault::new();
    typed(&v, "wiki/entities/A.md", "A", Some("entity"));
    scan(&v);
    // No `sparks scan` after these: index brings the manifest up to date itself.
    typed(&v, "wiki/entities/New.md", "New", Some("entity"));
    std::fs::remove_file(v.path("wiki/entities/A.md")).unwrap();
    let j = v.run(&["index", "--dry-run", "--json"]).ok().json();
    assert_eq!(j["pages"], 3, "New, and the two collections: {j}");
    let r = v.run(&["index"]).ok();
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let index = v.read("wiki/index.md");
    assert!(index.contains("[[New]]"), "{index}");
    assert!(!index.contains("[[A]]"), "{index}");
    // The manifest records the index it wrote: a scan now finds nothing changed.
    let s = v.run(&["scan", "--json"]).ok().json();
    assert_eq!(s["changed"], 0, "{s}");
}

#[test]
fn tasks_written_by_sparks_never_make_the_index_stale() {
    let v = TestVault::new();
    typed(&v, "wiki/entities/A.md", "A", Some("entity"));
    scan(&v);
    v.run(&[
        "tasks",
        "add",
        "--section",
        "Home",
        "--text",
        "water the plants",
    ])
    .ok();
    v.run(&["done", "water"]).ok();
    let s = v.run(&["scan", "--json"]).ok().json();
    assert_eq!(s["changed"], 0, "tasks add and done recorded Tasks.md: {s}");
    index(&v);
}

#[test]
fn a_crash_after_a_step_leaves_whole_files_and_a_rerun_finishes() {
    let v = TestVault::new();
    set_shard_above(&v, 2);
    typed(&v, "wiki/entities/A.md", "A", Some("entity"));
    scan(&v);
    let before = v.read("wiki/index.md");
    let crashed: Run = v
        .cmd(&["index"])
        .env("SPARKS_FAULT_AT", "index.shards")
        .output()
        .unwrap()
        .into();
    assert_ne!(crashed.code, Some(0), "{crashed:?}");
    assert!(
        crashed.stderr.contains("index.shards"),
        "{}",
        crashed.stderr
    );
    assert_eq!(
        v.read("wiki/index.md"),
        before,
        "the index is written after the shards"
    );
    assert!(v.read("wiki/index/Entities.md").contains("- [[A]]\n"));
    let r = index(&v);
    assert_eq!(r["written"], true);
    let done = v.read("wiki/index.md");

    typed(&v, "wiki/entities/B.md", "B", Some("entity"));
    scan(&v);
    let crashed: Run = v
        .cmd(&["index"])
        .env("SPARKS_FAULT_AT", "index.write")
        .output()
        .unwrap()
        .into();
    assert_ne!(crashed.code, Some(0), "{crashed:?}");
    assert_ne!(v.read("wiki/index.md"), done, "written before the crash");
    assert_eq!(index(&v)["unchanged"], true);

    // Back under the threshold, crashed after the index took in a shard's note but before the
    // shards were removed: the rerun removes them and the note is there once.
    let shard = v
        .read("wiki/index/Entities.md")
        .replace("- [[A]]\n", "A note.\n\n- [[A]]\n");
    v.write("wiki/index/Entities.md", shard);
    set_shard_above(&v, 500);
    let crashed: Run = v
        .cmd(&["index"])
        .env("SPARKS_FAULT_AT", "index.write")
        .output()
        .unwrap()
        .into();
    assert_ne!(crashed.code, Some(0), "{crashed:?}");
    assert!(v.path("wiki/index/Entities.md").exists());
    assert!(v.read("wiki/index.md").contains("\nA note.\n"));
    let r = index(&v);
    assert_eq!(r["removed_shards"].as_array().map(Vec::len), Some(2), "{r}");
    assert_eq!(v.read("wiki/index.md").matches("A note.").count(), 1);
    assert!(
        !v.path("wiki/index").read_dir().unwrap().any(|_| true),
        "no shard is left"
    );
}
