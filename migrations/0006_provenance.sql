-- Sparks manifest, schema 6: what each ingest did, so that it can be shown and undone.
--
-- Prepare records the wiki's pages (path and hash) as the batch finds them; finalize compares
-- them with the pages it leaves and records, per page, what the batch did (created, changed,
-- deleted), the lint issues the batch added, and what it removed from the inbox. `ingest
-- --revert` puts all of it back. Ingests finalized before this schema have no snapshot and so
-- no provenance; nothing is invented for them.

-- 1 when prepare recorded the wiki's pages for this ingest.
ALTER TABLE ingests ADD COLUMN snapshot INTEGER NOT NULL DEFAULT 0;
-- The commit HEAD was at when prepare ran: where a page's content before the batch is read.
ALTER TABLE ingests ADD COLUMN base_commit TEXT;
-- JSON: the lint issues (of the checks the gate uses) before the batch, and those it added.
ALTER TABLE ingests ADD COLUMN lint_before TEXT;
ALTER TABLE ingests ADD COLUMN lint_delta TEXT;
-- The whole inbox before and after finalize removed the batch from it.
ALTER TABLE ingests ADD COLUMN inbox_before_text BLOB;
ALTER TABLE ingests ADD COLUMN inbox_after_text BLOB;
-- Set when the ingest is reverted (its status stays 'completed'; its state reads 'reverted').
ALTER TABLE ingests ADD COLUMN reverted_at TEXT;
ALTER TABLE ingests ADD COLUMN revert_commit TEXT;
-- "<len>:<blake3>" of the inbox a revert is replacing and of what it replaces it with, so that
-- a revert run again after a crash recognises the rewrite it made.
ALTER TABLE ingests ADD COLUMN revert_inbox_before TEXT;
ALTER TABLE ingests ADD COLUMN revert_inbox_after TEXT;

-- The wiki's pages when prepare opened the ingest; dropped once the ingest is closed.
CREATE TABLE ingest_snapshot (
    ingest_id INTEGER NOT NULL REFERENCES ingests(id),
    path      TEXT NOT NULL,
    hash      TEXT NOT NULL,               -- blake3 of the content, hex
    PRIMARY KEY (ingest_id, path)
) WITHOUT ROWID;

-- Contents of pages git cannot give back (no repository, or not committed as they are), by
-- hash: those of the latest snapshot, kept so that the next prepare copies only what changed.
CREATE TABLE page_blobs (
    hash    TEXT PRIMARY KEY,
    content BLOB NOT NULL
);

-- What each ingest did to each page it touched.
CREATE TABLE ingest_pages (
    ingest_id   INTEGER NOT NULL REFERENCES ingests(id),
    path        TEXT NOT NULL,
    action      TEXT NOT NULL CHECK (action IN ('created', 'changed', 'deleted')),
    before_hash TEXT,                      -- NULL for a created page
    after_hash  TEXT,                      -- NULL for a deleted page
    before      BLOB,                      -- the content before, when git cannot give it
    PRIMARY KEY (ingest_id, path)
);
CREATE INDEX ingest_pages_path ON ingest_pages(path);
