-- Sparks manifest, schema 2: full-text search that stores no copy of the vault.
--
-- Schema 1 kept two FTS5 tables with their own copies of every text: a word index and a
-- trigram index (for CJK and substrings). Both copies, and trigrams of every body, made the
-- first scan of a large vault tens of times slower than reading it. Schema 2 has one word
-- index per scope, contentless (snippets are cut from the files themselves), and CJK runs are
-- indexed as overlapping character pairs beside the text (see `src/cjk.rs`), which the word
-- tokenizer finds as ordinary tokens.

DROP TABLE search_words;
DROP TABLE search_tri;

CREATE VIRTUAL TABLE search_wiki USING fts5(
    title, aliases, tags, body,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE search_raw USING fts5(
    title, aliases, tags, body,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);

-- Whether the file's text is in its scope's search table (which one follows from its path).
ALTER TABLE files ADD COLUMN indexed INTEGER NOT NULL DEFAULT 0;

-- Every live file is read and indexed again by the next scan; the marked hash keeps its
-- change time, since its content did not change.
UPDATE files SET hash = 'reindex:' || hash, clock_ns = 0 WHERE deleted = 0;

-- `query --links-to` and the orphan rule look up links by target, then by source.
CREATE INDEX links_resolved_source ON links(resolved, source);
DROP INDEX links_resolved;

-- `lint`'s fragment check visits only the links that name a heading or a block.
CREATE INDEX links_fragments ON links(source, seq) WHERE heading_key IS NOT NULL OR block IS NOT NULL;

-- A page has few headings: its primary key (path, seq) finds them as fast as this index did,
-- which every scan had to write.
DROP INDEX headings_key;
