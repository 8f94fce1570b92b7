-- Sparks manifest, schema 3: heading keys compared as Obsidian compares them.
--
-- `headings.key` and `links.heading_key` were the plain name key (trimmed, lower-cased, NFC),
-- so `[[Page#Part 1 Basics]]` missed `## Part 1: Basics`. Schema 3 stores the heading key of
-- `src/key.rs` (Obsidian's special characters made spaces, spaces collapsed), which only a
-- reading of the file can compute; headings inside `%%` comments are no longer stored either.

-- Every live file is read again by the next scan; the marked hash keeps its change time,
-- since its content did not change. A file schema 2 already marked (a manifest migrated from
-- schema 1 in the same open) keeps its one mark, which the scan recognises.
UPDATE files SET hash = 'reindex:' || hash, clock_ns = 0
WHERE deleted = 0 AND hash NOT LIKE 'reindex:%';
