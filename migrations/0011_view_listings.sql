-- Sparks manifest, schema 11: the viewer's listings and `status` read indexes instead of file rows.
--
-- The viewer leaves out the pages of files marked deleted. It joined each page (each tag, for
-- the tag counts) to its file's row to read the mark: at 100,000 pages the tag counts looked
-- up 243,070 rows (0.9 s) and the index page 100,000. The files marked deleted are few; this
-- index holds only them, and a listing asks it whether a page's file is one.
CREATE INDEX IF NOT EXISTS files_deleted ON files(path) WHERE deleted = 1;

-- "Recently updated" is the first few pages in this order: read from the start of an index
-- instead of sorting every page.
CREATE INDEX IF NOT EXISTS pages_recent ON pages(updated DESC, title_key, path);

-- `status` counts the live files changed since the last ingest: the range of this index, and
-- each file's row read for its deletion mark. After a rename that rewrote 24,490 pages at
-- 100,000 pages that was 6,494 page reads, 50 ms of every `status`. With the mark in the index
-- the count reads the index alone.
DROP INDEX IF EXISTS files_changed;
CREATE INDEX files_changed ON files(changed_ns, deleted);
