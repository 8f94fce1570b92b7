-- Sparks manifest, schema 1. Derived state: deleting sparks.db and running `sparks scan`
-- rebuilds everything here except the history of ingests.

-- Every file the scan has seen. Rows of deleted files are kept (deleted = 1) so that status
-- can count them and a file that comes back is recognised; everything derived from a deleted
-- file (page, links, headings) is removed.
CREATE TABLE files (
    path        TEXT PRIMARY KEY,          -- vault-relative, forward slashes
    name_key    TEXT NOT NULL,             -- link key of the file name (`.md` dropped)
    name_loose  TEXT NOT NULL,             -- loose key of the same (spaces, dashes, underscores folded)
    path_key    TEXT NOT NULL,             -- link key of the whole path (`.md` dropped)
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    ctime_ns    INTEGER NOT NULL,
    inode       INTEGER NOT NULL,
    hash        TEXT NOT NULL,             -- blake3 of the content, hex
    clock_ns    INTEGER NOT NULL,          -- filesystem clock when the file was last read
    changed_ns  INTEGER NOT NULL,          -- wall clock when its content last changed
    deleted     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX files_name_key ON files(name_key) WHERE deleted = 0;
CREATE INDEX files_name_loose ON files(name_loose) WHERE deleted = 0;
CREATE INDEX files_changed ON files(changed_ns);

-- One row per Markdown file under wiki/, whether or not its frontmatter is valid.
CREATE TABLE pages (
    path        TEXT PRIMARY KEY REFERENCES files(path) ON DELETE CASCADE,
    frontmatter TEXT NOT NULL CHECK (frontmatter IN ('ok', 'none', 'invalid')),
    error       TEXT,                      -- why the block is invalid
    error_line  INTEGER,
    title       TEXT,
    title_key   TEXT,
    title_loose TEXT,
    type        TEXT,
    maturity    TEXT,
    created     TEXT,
    updated     TEXT,
    sources     TEXT NOT NULL DEFAULT '[]',   -- JSON array of strings
    problems    TEXT NOT NULL DEFAULT '[]',   -- JSON array of {key, line, message}
    key_lines   TEXT NOT NULL DEFAULT '[]',   -- JSON array of [key, line] for the known keys
    body_line   INTEGER NOT NULL DEFAULT 1,   -- first line after the frontmatter
    words       INTEGER NOT NULL DEFAULT 0    -- words of prose (no code, headings or markup)
);
CREATE INDEX pages_title_key ON pages(title_key);
CREATE INDEX pages_title_loose ON pages(title_loose);
CREATE INDEX pages_type ON pages(type);
CREATE INDEX pages_maturity ON pages(maturity);

CREATE TABLE tags (
    path    TEXT NOT NULL REFERENCES pages(path) ON DELETE CASCADE,
    tag     TEXT NOT NULL,
    tag_key TEXT NOT NULL,
    PRIMARY KEY (path, tag_key)
);
CREATE INDEX tags_key ON tags(tag_key);

CREATE TABLE aliases (
    path      TEXT NOT NULL REFERENCES pages(path) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    alias     TEXT NOT NULL,
    alias_key TEXT NOT NULL,
    alias_loose TEXT NOT NULL,
    PRIMARY KEY (path, seq)
);
CREATE INDEX aliases_key ON aliases(alias_key);
CREATE INDEX aliases_loose ON aliases(alias_loose);

-- Wikilinks and embeds, one row per occurrence.
CREATE TABLE links (
    source     TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    line       INTEGER NOT NULL,
    target     TEXT NOT NULL,              -- as written, without #fragment and |label
    target_key TEXT NOT NULL,              -- link key of target
    name_key   TEXT NOT NULL,              -- last component of target_key
    heading    TEXT,                       -- [[T#Heading]]
    heading_key TEXT,                      -- key of the heading's last `#` part
    block      TEXT,                       -- [[T#^block]]
    label      TEXT,                       -- [[T|label]]
    embed      INTEGER NOT NULL,           -- ![[T]]
    status     TEXT NOT NULL CHECK (status IN ('pending', 'resolved', 'broken', 'ambiguous')),
    resolved   TEXT,                       -- the target's path when status = 'resolved'
    candidates INTEGER NOT NULL DEFAULT 0, -- how many files an ambiguous link could mean
    PRIMARY KEY (source, seq)
);
CREATE INDEX links_target_key ON links(target_key);
CREATE INDEX links_name_key ON links(name_key);
CREATE INDEX links_resolved ON links(resolved);
CREATE INDEX links_status ON links(status) WHERE status <> 'resolved';

CREATE TABLE headings (
    path  TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
    seq   INTEGER NOT NULL,
    level INTEGER NOT NULL,
    text  TEXT NOT NULL,
    key   TEXT NOT NULL,
    line  INTEGER NOT NULL,
    PRIMARY KEY (path, seq)
);
CREATE INDEX headings_key ON headings(path, key);

CREATE TABLE blocks (
    path     TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
    block_id TEXT NOT NULL,
    line     INTEGER NOT NULL,
    PRIMARY KEY (path, block_id)
);

-- Ingests. The partial unique index makes "at most one open ingest" a property of the
-- database: two prepares racing cannot both insert.
CREATE TABLE ingests (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    token        TEXT NOT NULL,            -- unique across rebuilt manifests: ids restart at 1
    status       TEXT NOT NULL CHECK (status IN ('open', 'completed', 'aborted')),
    started_at   TEXT NOT NULL,            -- RFC 3339, local offset
    finished_at  TEXT,
    finished_ns  INTEGER,
    step         TEXT,                     -- last finalize step recorded as done
    remaining    INTEGER NOT NULL,         -- inbox entries left out of the batch at prepare
    archived     INTEGER,
    kept         INTEGER,
    changed      INTEGER,
    commit_sha   TEXT,
    commit_note  TEXT,                     -- why there is no commit
    inbox_before TEXT,                     -- "<len>:<blake3>" of the inbox finalize is replacing
    inbox_after  TEXT                      -- "<len>:<blake3>" of what it replaces it with
);
CREATE UNIQUE INDEX ingests_one_open ON ingests(status) WHERE status = 'open';

-- The batch an ingest handed out: exactly what finalize may archive.
CREATE TABLE ingest_entries (
    ingest_id    INTEGER NOT NULL REFERENCES ingests(id),
    id           INTEGER NOT NULL,         -- 1-based position in the batch
    capture_date TEXT NOT NULL,
    hash         TEXT NOT NULL,
    content      TEXT NOT NULL,
    hints        TEXT NOT NULL,            -- JSON
    outcome      TEXT CHECK (outcome IN ('archive', 'keep', 'changed')),
    PRIMARY KEY (ingest_id, id)
);

-- Full-text search over wiki pages (frontmatter stripped) and raw text files; the rowid is
-- the file's rowid in `files`. Words: Unicode-aware, accents folded. Trigrams: substrings, for
-- CJK text and identifiers such as gpt-4o that the word tokenizer splits.
CREATE VIRTUAL TABLE search_words USING fts5(
    scope UNINDEXED, title, aliases, tags, body,
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE search_tri USING fts5(
    scope UNINDEXED, title, aliases, body,
    tokenize = 'trigram remove_diacritics 1'
);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
