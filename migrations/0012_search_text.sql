-- Sparks manifest, schema 12: the search index holds all of what a file says, and only that.
--
-- An archive file's block markers (`<!-- sparks: ingest … blake3 … -->`) and `---`
-- separators were indexed with its captures, so `ingest`, `entry` or `blake3` found every
-- archive, and its snippet showed the markers. The scan now indexes the captures alone.
--
-- Files over 4 MiB were left out of the index: one long capture made a whole day of the
-- archive unsearchable. The scan now indexes a text of any size, a long one in pieces of at
-- most 1 MiB (one row each; `files.indexed` counts them, where it was 1 or 0).
--
-- Both are read and indexed again by the next scan (their change time kept, since their
-- content did not change).
UPDATE files SET hash = 'reindex:' || hash, clock_ns = 0
WHERE deleted = 0 AND hash NOT LIKE 'reindex:%'
  AND ((path LIKE 'raw/inbox/%.md' AND instr(substr(path, 11), '/') = 0)
       OR (indexed = 0 AND size > 4194304 AND (path LIKE 'wiki/%' OR path LIKE 'raw/%')));
