-- Sparks manifest, schema 9: what finalize reads of the snapshot is what changed since it;
-- lint reads fragment links from their index.
--
-- Finalize compared every page of prepare's snapshot with the manifest (a lookup each way per
-- page: a third of a finalize at 100,000 pages) and read back the lint issues of the whole
-- vault as one JSON text (9.5 MB at 100,000 pages, kept in every ingest's row forever and
-- rewritten whenever finalize updated that row).
--
-- Each scan that stores or deletes a file now stamps its row with the scan's generation, a
-- counter in `meta` (`files_gen`) that only grows; prepare records the generation its snapshot
-- saw, and finalize compares only the rows stamped after it. Snapshots recorded before this
-- schema have none (`snapshot_gen` is NULL) and are compared page by page as before.
ALTER TABLE files ADD COLUMN gen INTEGER NOT NULL DEFAULT 0;
CREATE INDEX files_gen ON files(gen);
ALTER TABLE ingest_provenance ADD COLUMN snapshot_gen INTEGER;

-- The issues of the gate's checks before the batch, one row per page that had any (a JSON
-- array of its issues); like the snapshot, dropped by the next prepare. Finalize reads the
-- rows of the pages the batch touched.
CREATE TABLE IF NOT EXISTS ingest_lint_before (
    ingest_id INTEGER NOT NULL REFERENCES ingests(id),
    path      TEXT NOT NULL,
    issues    TEXT NOT NULL,
    PRIMARY KEY (ingest_id, path)
) WITHOUT ROWID;

-- Only an open ingest still needs its issues before; they move, page by page.
INSERT INTO ingest_lint_before (ingest_id, path, issues)
SELECT p.ingest_id, json_extract(j.value, '$.path'), json_group_array(json(j.value))
FROM ingest_provenance p
JOIN ingests i ON i.id = p.ingest_id AND i.status = 'open',
     json_each(CASE WHEN json_valid(p.lint_before) THEN p.lint_before ELSE '[]' END) j
WHERE json_extract(j.value, '$.path') IS NOT NULL
GROUP BY p.ingest_id, json_extract(j.value, '$.path');

-- The column stays (SQLite cannot drop a NOT NULL constraint in place); it is empty from now.
UPDATE ingest_provenance SET lint_before = '';

-- Lint's check of fragments reads the target, heading and block of every link with a
-- fragment: from the index alone, instead of a lookup into `links` for each (half its time).
DROP INDEX IF EXISTS links_fragments;
CREATE INDEX links_fragments ON links(source, seq, status, resolved, heading_key, block)
    WHERE heading_key IS NOT NULL OR block IS NOT NULL;
