//! Manifests put back into an older schema's shape, for the tests of migrations: each helper
//! undoes one migration (and those after it) on a vault's `sparks.db`.

use crate::harness::{TestVault, db};

/// Put a manifest back into schema 16's shape (migrations 18 and 17 undone): no meanings, no
/// token for their copy. (Migration 16, the word index made anew, can run twice: it is left.)
pub fn undo_schema_17(v: &TestVault) {
    db(v)
        .execute_batch(
            "DROP TABLE meanings;
             DELETE FROM meta WHERE key = 'meanings_token';
             PRAGMA user_version = 16;",
        )
        .unwrap();
}

/// Put a manifest back into schema 14's shape (migrations 18, 17 and 15 undone): no note of which
/// files hold conflict markers, no index of the conflict copies. (Migrations 14, the ingests
/// brought in from git, and 16 can run twice: they are left.)
pub fn undo_schema_15(v: &TestVault) {
    undo_schema_17(v);
    db(v)
        .execute_batch(
            "DROP INDEX files_markers;
             DROP INDEX files_copies;
             ALTER TABLE files DROP COLUMN markers;
             PRAGMA user_version = 14;",
        )
        .unwrap();
}

/// Put a manifest back into schema 12's shape (migrations 15, 14 and 13 undone): no note of
/// which pages hold a Markdown link to a path.
pub fn undo_schema_13(v: &TestVault) {
    undo_schema_15(v);
    db(v)
        .execute_batch(
            "DROP INDEX pages_path_links;
             ALTER TABLE pages DROP COLUMN path_links;
             PRAGMA user_version = 12;",
        )
        .unwrap();
}

/// Put a manifest back into schema 9's shape (migration 10 undone, and 13 first, the one after
/// it that cannot run twice): the snapshot and the lint issues before the batch kept under their
/// ingest's id.
pub fn undo_schema_10(v: &TestVault) {
    undo_schema_13(v);
    db(v)
        .execute_batch(
            "CREATE TABLE ingest_snapshot (
                 ingest_id INTEGER NOT NULL REFERENCES ingests(id),
                 path      TEXT NOT NULL,
                 hash      TEXT NOT NULL,
                 PRIMARY KEY (ingest_id, path)
             ) WITHOUT ROWID;
             CREATE TABLE ingest_lint_before (
                 ingest_id INTEGER NOT NULL REFERENCES ingests(id),
                 path      TEXT NOT NULL,
                 issues    TEXT NOT NULL,
                 PRIMARY KEY (ingest_id, path)
             ) WITHOUT ROWID;
             INSERT INTO ingest_snapshot (ingest_id, path, hash)
             SELECT CAST(m.value AS INTEGER), s.path, s.hash
             FROM wiki_snapshot s, meta m WHERE m.key = 'snapshot_ingest';
             INSERT INTO ingest_lint_before (ingest_id, path, issues)
             SELECT CAST(m.value AS INTEGER), l.path, l.issues
             FROM wiki_lint_before l, meta m WHERE m.key = 'snapshot_ingest';
             DROP TABLE wiki_snapshot;
             DROP TABLE wiki_lint_before;
             DELETE FROM meta WHERE key = 'snapshot_ingest';
             PRAGMA user_version = 9;",
        )
        .unwrap();
}

/// Put a manifest back into schema 8's shape (migrations 10 and 9 undone): no generations,
/// the lint issues before an ingest's batch not kept per page. Tests of older schemas start
/// here.
pub fn undo_schema_9(v: &TestVault) {
    undo_schema_10(v);
    db(v)
        .execute_batch(
            "ALTER TABLE ingest_provenance DROP COLUMN snapshot_gen;
             DROP TABLE ingest_lint_before;
             DROP INDEX files_gen;
             ALTER TABLE files DROP COLUMN gen;
             DELETE FROM meta WHERE key = 'files_gen';
             DROP INDEX links_fragments;
             CREATE INDEX links_fragments ON links(source, seq)
                 WHERE heading_key IS NOT NULL OR block IS NOT NULL;
             PRAGMA user_version = 8;",
        )
        .unwrap();
}
