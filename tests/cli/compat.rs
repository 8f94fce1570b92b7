//! What a script written for the original `sparks` reads still reads the same: the original's
//! JSON keys (beside ours, where ours say more), its text where scripts parse it, its command
//! names. COMPATIBILITY.md lists every difference and why; these tests hold the "same" rows.

use crate::harness::{Run, TestVault};
use serde_json::{Value, json};

/// Every key the original printed in this object is present.
#[track_caller]
fn has_keys(v: &Value, keys: &[&str]) {
    for k in keys {
        assert!(
            v.get(k).is_some(),
            "the original's key {k:?} is missing: {v}"
        );
    }
}

#[test]
fn version_reads_sparks_version_and_completion_is_a_command() {
    let v = TestVault::empty();
    let out = v.run_in(v.dir.path(), &["--version"]).ok().stdout;
    assert!(out.starts_with("sparks version "), "{out}");
    let script = v.run_in(v.dir.path(), &["completion", "bash"]).ok().stdout;
    assert!(
        script.contains("sparks"),
        "the original's `completion` command"
    );
}

#[test]
fn status_json_has_the_originals_keys() {
    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "A", "One. Two. Three.")
        .capture(&["one", "two"]);
    v.run(&["scan"]).ok();
    let j = v.run(&["status", "--json"]).ok().json();
    has_keys(
        &j,
        &[
            "vault_root",
            "vault_name",
            "schema_version",
            "pages_by_type",
            "inbox_pending",
            "files",
        ],
    );
    assert_eq!(
        j["pages_by_type"],
        json!({"collection": 3, "concept": 1}),
        "{j}"
    );
    assert_eq!(j["inbox_pending"], 2);
    has_keys(&j["files"], &["total", "changed", "deleted"]);
    assert_eq!(j["files"]["total"], j["files"]["tracked"]);
    // A deleted file still counts in the original's total, in JSON and text alike.
    std::fs::remove_file(v.path("wiki/concepts/A.md")).unwrap();
    v.run(&["scan"]).ok();
    let j = v.run(&["status", "--json"]).ok().json();
    let total = j["files"]["total"].as_u64().unwrap();
    assert_eq!(total, j["files"]["tracked"].as_u64().unwrap() + 1);
    let text = v.run(&["status"]).ok().stdout;
    assert!(
        text.lines()
            .any(|l| l.starts_with(&format!("manifest: {total} files tracked, "))),
        "{text}"
    );
}

#[test]
fn scan_json_and_text_keep_the_originals_forms() {
    let v = TestVault::new();
    let j = v.run(&["scan", "--json"]).ok().json();
    has_keys(
        &j,
        &[
            "vault_root",
            "walked",
            "hashed",
            "skipped",
            "deleted",
            "errors",
            "duration_ns",
        ],
    );
    let text = v.run(&["scan"]).ok().stdout;
    let second = text.lines().nth(1).unwrap_or_default();
    assert!(
        second.starts_with("  walked: ")
            && second.contains("  skipped: ")
            && second.contains("  deleted: "),
        "{text}"
    );
    // The original's order, ours appended: a regex over the original's line still matches.
    assert!(second.find("hashed:") < second.find("skipped:"), "{second}");
    assert!(
        second.find("deleted:") < second.find("changed:"),
        "{second}"
    );
}

#[test]
fn query_rows_carry_sources_and_created() {
    let v = TestVault::new();
    v.page("wiki/concepts/A.md", "A", "Text.");
    v.run(&["scan"]).ok();
    let j = v.run(&["query", "--title", "A", "--json"]).ok().json();
    let row = &j["pages"][0];
    has_keys(
        row,
        &[
            "path", "title", "type", "maturity", "aliases", "sources", "created", "updated",
        ],
    );
    assert_eq!(row["sources"], json!(["raw/inbox/2026-05-01.md"]));
    assert_eq!(row["created"], "2026-05-01");
}

#[test]
fn finalize_json_has_the_originals_keys() {
    let v = TestVault::new();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(&v.root)
            .args(args)
            .env("GIT_CONFIG_GLOBAL", v.home().join(".gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .expect("git runs")
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    v.capture(&["2026-04-10\none", "2026-04-11\ntwo", "2026-04-11\nthree"]);
    v.run(&["ingest", "--prepare"]).ok();
    let finalize: Run = v
        .cmd(&["ingest", "--finalize", "--json"])
        .env("GIT_AUTHOR_NAME", "Ada")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .output()
        .unwrap()
        .into();
    let j = finalize.ok().json();
    has_keys(
        &j,
        &[
            "ingest_id",
            "entry_count",
            "archived_files",
            "commit_sha",
            "commit_skipped",
        ],
    );
    assert_eq!(j["entry_count"], 3);
    assert_eq!(j["archived_files"], 2, "two capture dates, two files: {j}");
    let sha = j["commit"].as_str().expect("a commit");
    assert_eq!(j["commit_sha"].as_str(), Some(&sha[..7]));
}

#[test]
fn done_json_has_matched_line_and_ambiguous() {
    let v = TestVault::new();
    v.run(&["tasks", "add", "--section", "A", "--text", "ship prepare"])
        .ok();
    v.run(&["tasks", "add", "--section", "A", "--text", "ship finalize"])
        .ok();
    let j = v.run(&["done", "ship", "--json"]).code(1).json();
    assert_eq!(j["ambiguous"], true, "{j}");
    assert_eq!((&j["matched"], &j["line"]), (&json!(""), &json!(0)));
    let j = v.run(&["done", "ship prepare", "--json"]).ok().json();
    assert_eq!(j["matched"], "ship prepare", "{j}");
    assert!(
        j["line"].as_u64().unwrap() > 0 && j.get("ambiguous").is_none(),
        "{j}"
    );
    // The original printed "No open task matching …" on stdout; a failure is on stderr only.
    let text = v.run(&["done", "nothing like it"]).code(1);
    assert_eq!(text.stdout, "");
    assert_eq!(
        text.stderr,
        "error: no open task matches \"nothing like it\"\n"
    );
}

#[test]
fn index_and_regen_json_have_output_path_and_bytes() {
    let v = TestVault::new();
    let index = v.run(&["index", "--dry-run", "--json"]).ok().json();
    has_keys(
        &index,
        &[
            "output_path",
            "bytes",
            "pages_by_type",
            "descriptions_kept",
            "descriptions_blank",
        ],
    );
    let regen = v
        .run(&["collections", "regen", "Quotes", "--json"])
        .ok()
        .json();
    let quotes = &regen["collections"][0];
    has_keys(quotes, &["name", "output_path", "bytes"]);
    let page = v.path("wiki/collections/Quotes.md");
    assert_eq!(quotes["output_path"].as_str(), page.to_str());
    assert_eq!(
        quotes["bytes"].as_u64(),
        Some(std::fs::metadata(&page).unwrap().len())
    );
    let dry = v
        .run(&["collections", "regen", "--all", "--dry-run"])
        .ok()
        .stdout;
    assert!(
        dry.starts_with("Dry run — no files were written.\n"),
        "{dry}"
    );
    assert!(dry.contains("7 collection(s) processed.\n"), "{dry}");
    let dry = v.run(&["index", "--dry-run"]).ok().stdout;
    assert!(dry.starts_with("Dry run — no files written.\n"), "{dry}");
}

#[test]
fn brief_json_has_since_now_and_mtime() {
    let v = TestVault::new();
    v.write("raw/ideas/x.md", "an idea")
        .set_mtime("raw/ideas/x.md", "2026-04-30");
    let j = v.run(&["brief", "--json"]).ok().json();
    has_keys(&j["window"], &["days", "since", "now"]);
    has_keys(&j["new_raw"][0], &["path", "mtime"]);
}

#[test]
fn lint_text_says_vault_health_ok_when_clean() {
    let v = TestVault::new();
    assert_eq!(
        v.run(&["lint"]).ok().stdout,
        "Vault health: OK (no lint issues).\n"
    );
}
