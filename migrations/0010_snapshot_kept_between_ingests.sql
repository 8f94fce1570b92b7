-- Sparks manifest, schema 10: prepare's snapshot of the wiki is kept from one ingest to the
-- next and brought up to date, instead of written whole for each.
--
-- The snapshot (every page's hash) and the gate's lint issues before the batch were keyed by
-- ingest: each prepare deleted the previous ingest's rows and inserted its own, a write of
-- every page (a fifth of a prepare at 100,000 pages) though only the pages changed since the
-- last prepare differ. One snapshot, of the ingest named in `meta` (`snapshot_ingest`), is
-- kept now; prepare compares it with the wiki and writes the rows that differ.
CREATE TABLE wiki_snapshot (
    path TEXT PRIMARY KEY,
    hash TEXT NOT NULL                     -- blake3 of the content, hex
) WITHOUT ROWID;

CREATE TABLE wiki_lint_before (
    path   TEXT PRIMARY KEY,
    issues TEXT NOT NULL                   -- a JSON array of the page's issues
) WITHOUT ROWID;

-- Each prepare kept only its own ingest's rows, so the rows there are of the latest snapshot.
INSERT INTO meta (key, value)
SELECT 'snapshot_ingest', max(ingest_id) FROM ingest_provenance HAVING count(*) > 0;
INSERT INTO wiki_snapshot (path, hash)
SELECT path, hash FROM ingest_snapshot
WHERE ingest_id = (SELECT max(ingest_id) FROM ingest_provenance);
INSERT INTO wiki_lint_before (path, issues)
SELECT path, issues FROM ingest_lint_before
WHERE ingest_id = (SELECT max(ingest_id) FROM ingest_provenance);

DROP TABLE ingest_snapshot;
DROP TABLE ingest_lint_before;
