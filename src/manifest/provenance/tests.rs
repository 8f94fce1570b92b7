//! What prepare snapshots and finalize records, read back.

use super::snapshot::sync_rows;
use super::*;
use crate::manifest::{Manifest, ManifestError, NewEntry, Opened};
use std::collections::HashSet;

fn open_with(
    blobs: &[(&str, &[u8])],
    pages: &[(&str, &str)],
) -> (tempfile::TempDir, Manifest, i64) {
    let dir = tempfile::tempdir().unwrap();
    let mut m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
    let mut items: Vec<(String, Vec<u8>)> = blobs
        .iter()
        .map(|(h, b)| (h.to_string(), b.to_vec()))
        .collect();
    m.add_blobs(|| Ok::<_, ManifestError>(items.pop())).unwrap();
    let e = NewEntry {
        capture_date: "2026-04-10".into(),
        hash: "h".into(),
        content: "a".into(),
        hints: "{}".into(),
    };
    let snap = Snapshot {
        pages: pages
            .iter()
            .map(|(p, h)| (p.to_string(), h.to_string()))
            .collect(),
        base_commit: None,
        generation: 0,
        lint_before: Vec::new(),
    };
    let id = match m.open_ingest("k", "t", 0, &[e], Some(&snap)).unwrap() {
        Opened::New(id) => id,
        other => panic!("{other:?}"),
    };
    (dir, m, id)
}

#[test]
fn provenance_keeps_the_content_before_from_the_snapshot_blobs() {
    let (_d, mut m, id) = open_with(&[("hb", b"before")], &[("wiki/a.md", "hb")]);
    assert_eq!(
        m.snapshot(id).unwrap().unwrap().get("wiki/a.md"),
        Some(&"hb".to_string())
    );
    let changes = [
        PageChange {
            path: "wiki/a.md".into(),
            action: PageAction::Changed,
            before_hash: Some("hb".into()),
            after_hash: Some("ha".into()),
        },
        PageChange {
            path: "wiki/b.md".into(),
            action: PageAction::Created,
            before_hash: None,
            after_hash: Some("hc".into()),
        },
    ];
    m.record_provenance(id, &changes, "[]").unwrap();
    // Recording again (a resumed finalize) replaces, never adds.
    m.record_provenance(id, &changes, "[]").unwrap();
    let pages = m.ingest_pages(id).unwrap();
    assert_eq!(pages.len(), 2);
    assert_eq!((pages[0].1, pages[1].1), (true, false));
    assert_eq!(
        m.page_before(id, "wiki/a.md").unwrap().as_deref(),
        Some(&b"before"[..])
    );
    assert_eq!(m.page_before(id, "wiki/b.md").unwrap(), None);
    let rec = m.ingest_record(id).unwrap().unwrap();
    assert_eq!(rec.counts, (1, 1, 0));
    assert!(rec.snapshot);
    assert_eq!(
        m.ingests_touching(&["wiki/b.md".into()]).unwrap(),
        HashSet::from([id])
    );
}

#[test]
fn a_new_snapshot_lets_go_of_contents_it_does_not_need() {
    let (_d, m, _) = open_with(&[("h1", b"one"), ("h2", b"two")], &[("wiki/a.md", "h1")]);
    assert_eq!(m.blob_hashes().unwrap(), HashSet::from(["h1".to_string()]));
}

#[test]
fn an_ingest_without_a_snapshot_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
    let e = NewEntry {
        capture_date: "2026-04-10".into(),
        hash: "h".into(),
        content: "a".into(),
        hints: "{}".into(),
    };
    m.open_ingest("k", "t", 0, &[e], None).unwrap();
    assert_eq!(m.snapshot(1).unwrap(), None);
    assert!(!m.ingest_record(1).unwrap().unwrap().snapshot);
}

/// Bringing the kept rows up to date writes the rows that differ and no other: a changed
/// value, a new path, a path gone; input in any order.
#[test]
fn a_snapshot_writes_only_the_rows_that_differ() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
    let rows = |n: usize, changed: &[usize]| -> Vec<(String, String)> {
        (0..n)
            .map(|i| {
                let v = if changed.contains(&i) { "new" } else { "old" };
                (format!("wiki/p{i:04}.md"), format!("{v}{i}"))
            })
            .collect()
    };
    let path = m.path.clone();
    let mut sync = |rows: &[(String, String)]| -> u64 {
        let tx = m.immediate().unwrap();
        let before = tx.total_changes();
        sync_rows(&tx, &path, "wiki_snapshot", "hash", rows).unwrap();
        let written = tx.total_changes() - before;
        tx.commit().unwrap();
        written
    };
    assert_eq!(sync(&rows(1000, &[])), 1000);
    assert_eq!(sync(&rows(1000, &[])), 0, "nothing differs");
    let mut next = rows(1002, &[3, 500]);
    next.remove(7);
    next.reverse();
    assert_eq!(sync(&next), 2 + 1 + 2, "two changed, one gone, two new");
    assert_eq!(sync(&[]), 1001, "an empty wiki leaves no row");
    assert_eq!(sync(&next), 1001);
    let mut kept: Vec<(String, String)> = {
        let mut stmt = m
            .conn
            .prepare("SELECT path, hash FROM wiki_snapshot")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    kept.sort();
    next.sort();
    assert_eq!(kept, next);
}
