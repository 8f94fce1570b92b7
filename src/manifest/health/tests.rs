//! The source checks' rows and `lint`'s rules over them answer as the SQL they replaced, and
//! as `query --stale`'s condition.

use crate::lint::freshness;
use crate::manifest::{Manifest, sql};

/// The SQL the stale and dead-source checks were before they read the tables once: the
/// reference their answers must equal.
const STALE_SQL: &str = "SELECT p.path, p.updated, f.path,
           max(date(f.mtime_ns / 1000000000, 'unixepoch', 'localtime'))
    FROM pages p CROSS JOIN json_each(p.sources) s
    CROSS JOIN files f ON f.path = (CASE WHEN substr(s.value, 1, 2) = './'
                                         THEN substr(s.value, 3) ELSE s.value END)
    WHERE f.deleted = 0 AND date(p.updated) = p.updated
      AND date(f.mtime_ns / 1000000000, 'unixepoch', 'localtime') > p.updated
    GROUP BY p.path ORDER BY p.path";
const DEAD_SQL: &str = "WITH src AS (
      SELECT p.path AS page, s.key AS seq, s.value AS value,
             rtrim(CASE WHEN substr(s.value, 1, 2) = './' THEN substr(s.value, 3) ELSE s.value END, '/') AS x
      FROM pages p CROSS JOIN json_each(p.sources) s WHERE trim(s.value) <> '')
    SELECT page, value FROM src
    WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = src.x AND f.deleted = 0)
      AND NOT EXISTS (SELECT 1 FROM files f WHERE f.path > src.x || '/' AND f.path < src.x || '0'
                                              AND f.deleted = 0)
    ORDER BY page, seq";

#[test]
fn stale_and_dead_sources_answer_as_the_sql_did() {
    let dir = tempfile::tempdir().unwrap();
    let m = Manifest::open(&dir.path().join("sparks.db")).unwrap();
    let day = |d: &str| {
        let t = chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d")
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap();
        t.and_utc().timestamp() * 1_000_000_000
    };
    let files = [
        ("raw/a.md", "2026-04-10", 0),
        ("raw/a2.md", "2026-04-10", 0),
        ("raw/b.md", "2026-04-20", 0),
        ("raw/dir/deep/c.md", "2026-03-01", 0),
        ("raw/dirx.md", "2026-03-01", 0),
        ("raw/gone.md", "2026-05-01", 1),
        ("raw/gonedir/d.md", "2026-05-01", 1),
    ];
    for (path, date, deleted) in files {
        m.conn
            .execute(
                "INSERT INTO files (path, name_key, name_loose, path_key, size, mtime_ns,
                    ctime_ns, inode, hash, clock_ns, changed_ns, deleted)
                 VALUES (?1, ?1, ?1, ?1, 1, ?2, 0, 0, 'h', 0, 0, ?3)",
                rusqlite::params![path, day(date), deleted],
            )
            .unwrap();
    }
    let pages = [
        ("wiki/p7.md", "2026-01-01", r#"["raw/a2.md", "raw/a.md"]"#),
        (
            "wiki/p1.md",
            "2026-04-15",
            r#"["raw/a.md", "./raw/b.md", "raw/gone.md"]"#,
        ),
        ("wiki/p2.md", "2026-02-30", r#"["raw/b.md", "raw/nope.md"]"#),
        (
            "wiki/p3.md",
            "2026-01-01",
            r#"["raw/dir", "raw/dir/", "./raw/dir/deep", "raw/di", "raw/dirx.md", "  ", "",
               "raw/a.md", "raw/b.md", "raw/gonedir", "./", "/"]"#,
        ),
        ("wiki/p4.md", "2026-04-20", r#"["raw/b.md"]"#),
        ("wiki/p5.md", "2026-04-01T10:00", r#"["raw/b.md"]"#),
        ("wiki/p6.md", "2026-01-01", r#"["raw/a.md", "raw/a2.md"]"#),
        ("wiki/p8.md", "2026-01-01", "[]"),
    ];
    for (path, updated, sources) in pages {
        m.conn
            .execute_batch(&format!(
                "PRAGMA foreign_keys = OFF;
                 INSERT INTO pages (path, frontmatter, updated, sources)
                 VALUES ('{path}', 'ok', '{updated}', '{sources}');"
            ))
            .unwrap();
    }
    let rows = |sql: &str, n: usize| -> Vec<Vec<String>> {
        let mut stmt = m.conn.prepare(sql).unwrap();
        stmt.query_map([], |r| {
            (0..n)
                .map(|i| r.get::<_, String>(i))
                .collect::<rusqlite::Result<Vec<String>>>()
        })
        .unwrap()
        .map(|row| row.unwrap())
        .collect()
    };
    let stale: Vec<Vec<String>> = freshness::stale_pages(&m)
        .unwrap()
        .into_iter()
        .map(|s| vec![s.path, s.updated, s.source, s.changed])
        .collect();
    let dead: Vec<Vec<String>> = freshness::dead_sources(&m)
        .unwrap()
        .into_iter()
        .map(|d| vec![d.page, d.source])
        .collect();
    assert_eq!(stale, rows(STALE_SQL, 4));
    let stale_paths: Vec<Vec<String>> = stale.iter().map(|s| vec![s[0].clone()]).collect();
    assert_eq!(
        stale_paths,
        rows(
            &format!(
                "SELECT p.path FROM pages p WHERE {} ORDER BY p.path",
                sql::STALE
            ),
            1
        ),
        "query --stale's condition names the same pages"
    );
    assert_eq!(dead, rows(DEAD_SQL, 2));
    assert_eq!(stale.len(), 4, "{stale:?}");
    assert_eq!(dead.len(), 6, "{dead:?}");
    let (s, d) = freshness::stale_and_dead(&m).unwrap();
    assert_eq!((s.len(), d.len()), (stale.len(), dead.len()));
    let mut streamed = Vec::new();
    freshness::each_stale_path(&m, &mut |p| {
        streamed.push(vec![p]);
        std::ops::ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(
        streamed, stale_paths,
        "brief's stale pages, as they are judged"
    );
}
