-- Sparks manifest, schema 18: a token that changes whenever `meanings` does.
--
-- A search reads every vector; through SQLite's 4 KB pages that was a read call per page
-- (27 MB at 100,000 pages, half of a search's time). The manifest keeps a copy of `meanings`
-- in one file beside it (`sparks.db-meanings`), labelled with this token: a reader uses the
-- copy only when its label is the token it reads here, and otherwise rebuilds it. Every scan
-- that writes or deletes a vector draws a new token (`randomblob`), so a copy is never taken
-- for another manifest's or another moment's.

INSERT OR IGNORE INTO meta (key, value) VALUES ('meanings_token', lower(hex(randomblob(16))));
