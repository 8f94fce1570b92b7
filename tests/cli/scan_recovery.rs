//! `sparks scan` on what went wrong before it: unreadable paths, a corrupt manifest, manifests
//! of older schemas migrated, and rebuilds that keep the history of ingests and every manifest
//! they set aside.

use crate::harness::{TestVault, db, rows};
use crate::old_schemas::undo_schema_9;
use crate::scan::{links, scan};
use crate::snapshot;

#[cfg(unix)]
mod unreadable {
    use super::*;
    use crate::harness::{chmod, open_to_nobody, run_unprivileged};

    #[test]
    fn an_unreadable_directory_is_reported_and_nothing_under_it_is_lost() {
        let v = TestVault::new();
        v.page("wiki/entities/A.md", "A", "[[B]]")
            .page("wiki/entities/B.md", "B", "[[A]]")
            .page("wiki/concepts/C.md", "C", "[[A]]")
            .settle();
        open_to_nobody(&v);
        run_unprivileged(&v, &["scan"]).ok();
        let before = rows(&v, "SELECT path, hash, deleted FROM files ORDER BY path");
        chmod(&v.path("wiki/entities"), "000");
        let run = run_unprivileged(&v, &["scan"]).code(1);
        chmod(&v.path("wiki/entities"), "755");
        assert!(run.stderr.contains("wiki/entities"), "{}", run.stderr);
        assert!(run.stdout.contains("deleted: 0"), "{}", run.stdout);
        assert_eq!(
            rows(&v, "SELECT path, hash, deleted FROM files ORDER BY path"),
            before
        );
        assert_eq!(
            links(&v, "wiki/concepts/C.md"),
            ["A | resolved | wiki/entities/A.md"]
        );
        let again = run_unprivileged(&v, &["scan", "--json"]).ok().json();
        assert_eq!(again["deleted"], 0);
        assert_eq!(
            rows(&v, "SELECT path, hash, deleted FROM files ORDER BY path"),
            before
        );
    }

    #[test]
    fn an_unreadable_file_is_reported_and_kept() {
        let v = TestVault::new();
        v.page("wiki/entities/A.md", "A", "x").settle();
        open_to_nobody(&v);
        run_unprivileged(&v, &["scan"]).ok();
        v.page("wiki/entities/A.md", "A2", "changed");
        chmod(&v.path("wiki/entities/A.md"), "000");
        let run = run_unprivileged(&v, &["scan", "--json"]).code(1);
        chmod(&v.path("wiki/entities/A.md"), "644");
        let j = run.json();
        assert_eq!(j["errors"][0]["path"], "wiki/entities/A.md", "{j}");
        assert_eq!(
            rows(
                &v,
                "SELECT title FROM pages WHERE path = 'wiki/entities/A.md'"
            ),
            ["A"]
        );
        run_unprivileged(&v, &["scan"]).ok();
        assert_eq!(
            rows(
                &v,
                "SELECT title FROM pages WHERE path = 'wiki/entities/A.md'"
            ),
            ["A2"]
        );
    }
}

#[test]
fn a_corrupt_manifest_is_a_clear_error_and_rebuild_recovers_the_derived_state() {
    let v = TestVault::new();
    v.page("wiki/entities/A.md", "A", "[[B]]")
        .page("wiki/entities/B.md", "B", "[[A]]");
    scan(&v);
    let links_before = links(&v, "wiki/entities/A.md");
    for f in ["sparks.db-wal", "sparks.db-shm"] {
        let _ = std::fs::remove_file(v.path(f));
    }
    // Truncated to half a page: no longer a database.
    let bytes = std::fs::read(v.path("sparks.db")).unwrap();
    std::fs::write(v.path("sparks.db"), &bytes[..100]).unwrap();
    let run = v.run(&["status"]).code(1);
    snapshot!(v, run.stderr, @r"
        error: manifest [VAULT]/sparks.db: database disk image is malformed
          caused by: Error code 11: The database disk image is malformed
        hint: the manifest is derived state: run `sparks scan --rebuild`, which sets it aside and builds a new one
        ");
    let run = v.run(&["scan", "--rebuild"]).ok();
    snapshot!(v, run.stderr, @r"
        set the old manifest aside as [VAULT]/sparks.db.old-[STAMP]
        warning: the history of ingests could not be carried over from [VAULT]/sparks.db.old-[STAMP] (manifest [VAULT]/sparks.db.old-[STAMP]: database disk image is malformed): the list of ingests starts afresh, and earlier ingests cannot be reverted
        ");
    assert_eq!(links(&v, "wiki/entities/A.md"), links_before);
    v.run(&["lint", "--check", "broken-links"]).ok();
}

#[test]
fn a_schema_1_manifest_is_migrated_and_reindexed_keeping_change_times() {
    let v = TestVault::new();
    v.page("wiki/concepts/Kept.md", "Kept", "unchanged lighthouse text")
        .page("wiki/concepts/Edited.md", "Edited", "old words")
        .settle();
    scan(&v);
    // Put the manifest back into schema 1's shape, as an older sparks left it.
    undo_schema_9(&v);
    db(&v)
        .execute_batch(
            "DROP TABLE search_wiki; DROP TABLE search_raw;
             CREATE VIRTUAL TABLE search_words USING fts5(scope UNINDEXED, title, aliases, tags, body);
             CREATE VIRTUAL TABLE search_tri USING fts5(scope UNINDEXED, title, aliases, body, tokenize = 'trigram');
             ALTER TABLE files DROP COLUMN indexed;
             DROP INDEX links_resolved_source; CREATE INDEX links_resolved ON links(resolved);
             DROP INDEX links_fragments; CREATE INDEX headings_key ON headings(path, key);
             ALTER TABLE pages DROP COLUMN sentences;
             ALTER TABLE pages ADD COLUMN words INTEGER NOT NULL DEFAULT 0;
             UPDATE files SET changed_ns = 12345;
             PRAGMA user_version = 1;",
        )
        .unwrap();
    v.write(
        "wiki/concepts/Edited.md",
        "---\ntitle: Edited\n---\nnew lighthouse words\n",
    )
    .settle();
    let report = scan(&v);
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    assert_eq!(
        rows(&v, "PRAGMA user_version"),
        [manifest_version().to_string()]
    );
    let hits = v.run(&["search", "lighthouse", "--json"]).ok().json();
    let mut paths: Vec<&str> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap())
        .collect();
    paths.sort();
    assert_eq!(paths, ["wiki/concepts/Edited.md", "wiki/concepts/Kept.md"]);
    assert_eq!(
        rows(
            &v,
            "SELECT path, changed_ns = 12345 FROM files WHERE path LIKE 'wiki/concepts/%' ORDER BY path"
        ),
        ["wiki/concepts/Edited.md | 0", "wiki/concepts/Kept.md | 1"],
        "an unchanged file keeps its change time; an edited one gets a new one"
    );
    assert_eq!(scan(&v)["hashed"], 0, "the reindex happens once");
}

#[test]
fn a_schema_2_manifest_is_read_again_for_obsidian_heading_keys() {
    let v = TestVault::new();
    v.page(
        "wiki/concepts/Guide.md",
        "Guide",
        "## Part 1: Basics\n\nText.\n\n%%\n## Hidden\n%%\n",
    )
    .page(
        "wiki/concepts/Reader.md",
        "Reader",
        "[[Guide#Part 1 Basics]] [[Guide#Hidden]]",
    )
    .settle();
    scan(&v);
    // Put the heading keys back as schema 2 stored them (the name key, comments not
    // skipped), as an older sparks left them.
    undo_schema_9(&v);
    db(&v)
        .execute_batch(
            "UPDATE headings SET key = lower(text);
             UPDATE links SET heading_key = lower(heading) WHERE heading IS NOT NULL;
             INSERT INTO headings (path, seq, level, text, key, line)
               VALUES ('wiki/concepts/Guide.md', 9, 2, 'Hidden', 'hidden', 14);
             ALTER TABLE pages DROP COLUMN sentences;
             ALTER TABLE pages ADD COLUMN words INTEGER NOT NULL DEFAULT 0;
             PRAGMA user_version = 2;",
        )
        .unwrap();
    let report = scan(&v);
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    assert_eq!(
        rows(&v, "PRAGMA user_version"),
        [manifest_version().to_string()]
    );
    let lint = v
        .run(&["lint", "--check", "broken-headings", "--json"])
        .code(1)
        .json();
    let issues = lint["issues"].as_array().unwrap();
    assert_eq!(issues.len(), 1, "{lint}");
    assert!(
        issues[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("has no heading \"Hidden\""),
        "{lint}"
    );
    assert_eq!(scan(&v)["hashed"], 0, "the files are read again once");
}

#[test]
fn a_schema_2_manifest_counts_sentences_on_the_next_scan() {
    let v = TestVault::new();
    v.page("wiki/concepts/Short.md", "Short", "Only one sentence here.")
        .page("wiki/concepts/Long.md", "Long", "One. Two. Three. Four.")
        .settle();
    scan(&v);
    // Schema 2 counted words: these pages had plenty.
    undo_schema_9(&v);
    db(&v)
        .execute_batch(
            "ALTER TABLE pages DROP COLUMN sentences;
             ALTER TABLE pages ADD COLUMN words INTEGER NOT NULL DEFAULT 0;
             UPDATE pages SET words = 100;
             UPDATE files SET changed_ns = 12345;
             PRAGMA user_version = 2;",
        )
        .unwrap();
    // Migrated but not scanned: a count the page never had makes no page thin.
    let thin = |v: &TestVault| v.run(&["query", "--thin", "--no-refresh"]).ok().stdout;
    assert_eq!(thin(&v), "");
    assert_eq!(
        rows(&v, "PRAGMA user_version"),
        [manifest_version().to_string()]
    );
    let report = scan(&v);
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    assert_eq!(thin(&v), "wiki/concepts/Short.md\n");
    assert_eq!(
        rows(
            &v,
            "SELECT path, sentences, changed_ns = 12345 FROM files JOIN pages USING (path)
             WHERE path LIKE 'wiki/concepts/%' ORDER BY path"
        ),
        [
            "wiki/concepts/Long.md | 4 | 1",
            "wiki/concepts/Short.md | 1 | 1"
        ],
        "pages are recounted; their content did not change, nor does their change time"
    );
    assert_eq!(scan(&v)["hashed"], 0, "the recount happens once");
}

fn manifest_version() -> i64 {
    sparks::manifest::SCHEMA_VERSION
}

/// `scan --rebuild` of a manifest that still reads carries the history of ingests over (what
/// no file holds): `ingest --list` shows them, and the last can still be reverted.
#[test]
fn a_rebuild_keeps_the_history_of_ingests() {
    let v = TestVault::new();
    v.capture(&["2026-04-10\nalpha", "2026-04-11\nbravo"]);
    v.run(&["ingest", "--prepare", "--limit", "1"]).ok();
    v.page("wiki/concepts/Alpha.md", "Alpha", "Alpha. Two. Three.");
    v.run(&["ingest", "--finalize"]).ok();
    v.run(&["ingest", "--prepare"]).ok();
    let before = v.run(&["ingest", "--list", "--json"]).ok().json();
    let r = v.run(&["scan", "--rebuild", "--json"]).ok().json();
    assert_eq!(r["history_kept"], 2, "{r}");
    assert!(
        r["set_aside"][0]
            .as_str()
            .is_some_and(|p| p.contains("sparks.db.old-")),
        "{r}"
    );
    assert_eq!(v.run(&["ingest", "--list", "--json"]).ok().json(), before);
    // The open ingest is still open, and finalize completes it.
    let open = v.run(&["ingest", "--status"]).ok().json();
    assert_eq!(open["ingest_id"], 2, "{open}");
    v.run(&["ingest", "--finalize"]).ok();
    let reverted = v.run(&["ingest", "--revert", "1", "--json"]).ok().json();
    assert_eq!(reverted["reverted"], true, "{reverted}");
    assert!(v.read("inbox.md").contains("alpha"));
    assert!(!v.path("wiki/concepts/Alpha.md").exists());
}

/// Rebuilds in the same second never replace an earlier set-aside manifest.
#[test]
fn rebuilds_in_one_second_keep_every_set_aside_manifest() {
    let v = TestVault::new();
    for _ in 0..3 {
        v.run(&["scan", "--rebuild"]).ok();
    }
    let kept = std::fs::read_dir(&v.root)
        .unwrap()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("sparks.db.old-") && !n.ends_with("-wal") && !n.ends_with("-shm")
        })
        .count();
    assert_eq!(kept, 3);
}
