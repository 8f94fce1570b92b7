-- Sparks manifest, schema 6: what each ingest did, so that it can be shown and undone.
--
-- Prepare records the wiki's pages (path and hash) as the batch finds them; finalize compares
-- them with the pages it leaves and records, per page, what the batch did (created, changed,
-- deleted), the lint issues the batch added, and what it removed from the inbox. `ingest
-- --revert` puts all of it back. Ingests opened before this schema have no row here and so no
-- provenance; nothing is invented for them.

-- One row per ingest prepare recorded a snapshot for.
CREATE TABLE IF NOT EXISTS ingest_provenance (
    ingest_id           INTEGER PRIMARY KEY REFERENCES ingests(id),
    base_commit         TEXT,          -- HEAD when prepare ran: where a page's content before is read
    lint_before         TEXT NOT NULL, -- JSON: the issues of the gate's checks before the batch
    lint_delta          TEXT,          -- JSON: those the batch added (set by finalize)
    inbox_before        BLOB,          -- the whole inbox before finalize removed the batch
    inbox_after         BLOB,          -- ...and after
    reverted_at         TEXT,          -- set when the ingest is reverted (its state reads 'reverted')
    revert_commit       TEXT,
    revert_inbox_before TEXT,          -- "<len>:<blake3>" of the inbox a revert is replacing,
    revert_inbox_after  TEXT           -- and of what it replaces it with (a rerun recognises it)
);

-- The wiki's pages when prepare opened the ingest; dropped by the next prepare.
CREATE TABLE IF NOT EXISTS ingest_snapshot (
    ingest_id INTEGER NOT NULL REFERENCES ingests(id),
    path      TEXT NOT NULL,
    hash      TEXT NOT NULL,               -- blake3 of the content, hex
    PRIMARY KEY (ingest_id, path)
) WITHOUT ROWID;

-- Contents of pages git cannot give back (no repository, or not committed as they are), by
-- hash: those of the latest snapshot, kept so that the next prepare copies only what changed.
CREATE TABLE IF NOT EXISTS page_blobs (
    hash    TEXT PRIMARY KEY,
    content BLOB NOT NULL
);

-- What each ingest did to each page it touched.
CREATE TABLE IF NOT EXISTS ingest_pages (
    ingest_id   INTEGER NOT NULL REFERENCES ingests(id),
    path        TEXT NOT NULL,
    action      TEXT NOT NULL CHECK (action IN ('created', 'changed', 'deleted')),
    before_hash TEXT,                      -- NULL for a created page
    after_hash  TEXT,                      -- NULL for a deleted page
    before      BLOB,                      -- the content before, when git cannot give it
    PRIMARY KEY (ingest_id, path)
);
CREATE INDEX IF NOT EXISTS ingest_pages_path ON ingest_pages(path);
