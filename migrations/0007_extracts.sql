-- Sparks manifest, schema 7: what the collection extractors found in each source file, and
-- the counts, tag pages and citations that answered from a pass over the whole vault.
--
-- Regenerating a collection read every one of its source files (all the quote files for
-- Quotes and Books, all the web clippings and archive files for Bookmarks), so that finalizing
-- a batch of five captures cost as much as the vault's raw files. Each extractor's findings in
-- a file are kept here with the content hash they came from; regen reads again only the files
-- whose hash changed. Derived state like the rest: a row whose hash or build does not match is
-- ignored and replaced.

CREATE TABLE IF NOT EXISTS extracts (
    kind  TEXT NOT NULL,               -- the extractor (quotes, bookmarks, books-quoted, books, reading, media, ideas, ideas-captured)
    path  TEXT NOT NULL,               -- the source file, vault-relative
    hash  TEXT NOT NULL,               -- blake3 of the content it was found in
    build TEXT NOT NULL,               -- the sparks build that found it (another build's findings are not used)
    data  TEXT NOT NULL,               -- what was found, JSON
    PRIMARY KEY (kind, path)
) WITHOUT ROWID;

-- `query --tag T --limit N` reads the pages of a tag in path order from this index and stops
-- after N, instead of gathering every page of the tag (a third of the vault for a common one)
-- and looking each up in the table.
DROP INDEX IF EXISTS tags_key;
CREATE INDEX tags_key ON tags(tag_key, path);

-- What `status` counts, kept as the files and pages change: counting them took a pass over
-- every file and page, the cost of the vault for a glance at it. Keys: `files` and `deleted`
-- (live and deleted files), `pages`, and `type:<type>` for each page type.
CREATE TABLE IF NOT EXISTS tallies (
    key TEXT PRIMARY KEY,
    n   INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR REPLACE INTO tallies (key, n)
    SELECT 'files', count(*) FROM files WHERE deleted = 0
    UNION ALL SELECT 'deleted', count(*) FROM files WHERE deleted = 1
    UNION ALL SELECT 'pages', count(*) FROM pages
    UNION ALL SELECT 'type:' || type, count(*) FROM pages
              WHERE type IS NOT NULL AND type <> '' GROUP BY type;

CREATE TRIGGER IF NOT EXISTS files_tally_insert AFTER INSERT ON files BEGIN
    UPDATE tallies SET n = n + 1 WHERE key = iif(new.deleted, 'deleted', 'files');
END;
CREATE TRIGGER IF NOT EXISTS files_tally_update AFTER UPDATE OF deleted ON files
WHEN old.deleted IS NOT new.deleted BEGIN
    UPDATE tallies SET n = n - 1 WHERE key = iif(old.deleted, 'deleted', 'files');
    UPDATE tallies SET n = n + 1 WHERE key = iif(new.deleted, 'deleted', 'files');
END;
CREATE TRIGGER IF NOT EXISTS files_tally_delete AFTER DELETE ON files BEGIN
    UPDATE tallies SET n = n - 1 WHERE key = iif(old.deleted, 'deleted', 'files');
END;
CREATE TRIGGER IF NOT EXISTS pages_tally_insert AFTER INSERT ON pages BEGIN
    UPDATE tallies SET n = n + 1 WHERE key = 'pages';
    INSERT OR IGNORE INTO tallies (key, n)
        SELECT 'type:' || new.type, 0 WHERE new.type IS NOT NULL AND new.type <> '';
    UPDATE tallies SET n = n + 1 WHERE key = 'type:' || new.type;
END;
CREATE TRIGGER IF NOT EXISTS pages_tally_delete AFTER DELETE ON pages BEGIN
    UPDATE tallies SET n = n - 1 WHERE key = 'pages';
    UPDATE tallies SET n = n - 1 WHERE key = 'type:' || old.type;
END;
CREATE TRIGGER IF NOT EXISTS pages_tally_update AFTER UPDATE OF type ON pages
WHEN old.type IS NOT new.type BEGIN
    UPDATE tallies SET n = n - 1 WHERE key = 'type:' || old.type;
    INSERT OR IGNORE INTO tallies (key, n)
        SELECT 'type:' || new.type, 0 WHERE new.type IS NOT NULL AND new.type <> '';
    UPDATE tallies SET n = n + 1 WHERE key = 'type:' || new.type;
END;

-- Each page's `sources:` entries (a leading `./` dropped), kept as the pages change, so that
-- the viewer finds the pages citing a file in an index instead of reading every page's list.
CREATE TABLE IF NOT EXISTS page_sources (
    path   TEXT NOT NULL,                 -- the citing page
    seq    INTEGER NOT NULL,              -- the entry's position in its list
    source TEXT NOT NULL,                 -- the entry, `./` dropped
    PRIMARY KEY (path, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS page_sources_source ON page_sources(source);
INSERT OR REPLACE INTO page_sources (path, seq, source)
    SELECT p.path, s.key, CASE WHEN substr(s.value, 1, 2) = './' THEN substr(s.value, 3) ELSE s.value END
    FROM pages p, json_each(p.sources) s WHERE json_valid(p.sources) AND s.type = 'text';
CREATE TRIGGER IF NOT EXISTS pages_sources_insert AFTER INSERT ON pages
WHEN json_valid(new.sources) BEGIN
    INSERT OR REPLACE INTO page_sources (path, seq, source)
        SELECT new.path, s.key,
               CASE WHEN substr(s.value, 1, 2) = './' THEN substr(s.value, 3) ELSE s.value END
        FROM json_each(new.sources) s WHERE s.type = 'text';
END;
CREATE TRIGGER IF NOT EXISTS pages_sources_delete AFTER DELETE ON pages BEGIN
    DELETE FROM page_sources WHERE path = old.path;
END;
CREATE TRIGGER IF NOT EXISTS pages_sources_update AFTER UPDATE OF sources ON pages BEGIN
    DELETE FROM page_sources WHERE path = old.path;
    INSERT OR REPLACE INTO page_sources (path, seq, source)
        SELECT new.path, s.key,
               CASE WHEN substr(s.value, 1, 2) = './' THEN substr(s.value, 3) ELSE s.value END
        FROM json_each(new.sources) s WHERE json_valid(new.sources) AND s.type = 'text';
END;
