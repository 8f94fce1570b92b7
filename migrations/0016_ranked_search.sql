-- Sparks manifest, schema 16: the search index stems English words and holds headings.
--
-- Search ranks pages by BM25 over their fields instead of requiring every word (see
-- `src/search/`). Two things the ranking needs are in the index itself:
-- - words are indexed by their stem (FTS5's `porter` tokenizer over `unicode61`), so that
--   "syncing" finds "synced"; text it cannot stem (CJK pairs, other scripts, numbers) is
--   indexed as before;
-- - a page's headings are a field of their own, weighted between its title and its body.
--
-- The tables are made anew (a tokenizer cannot be changed in place), and every file that was
-- in them is read and indexed again by the next scan, its change time kept since its content
-- did not change.

DROP TABLE search_wiki;
DROP TABLE search_raw;

CREATE VIRTUAL TABLE search_wiki USING fts5(
    title, aliases, tags, headings, body,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE search_raw USING fts5(
    title, aliases, tags, headings, body,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

UPDATE files SET hash = 'reindex:' || hash, clock_ns = 0
WHERE deleted = 0 AND indexed > 0 AND hash NOT LIKE 'reindex:%';
UPDATE files SET indexed = 0 WHERE indexed > 0;
