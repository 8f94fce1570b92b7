-- Sparks manifest, schema 6: what the collection extractors found in each source file.
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
