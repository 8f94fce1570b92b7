-- Sparks manifest, schema 12: the search index holds what a file says, not its scaffolding.
--
-- An archive file's block markers (`<!-- sparks: ingest … blake3 … -->`) and `---`
-- separators were indexed with its captures, so `ingest`, `entry` or `blake3` found every
-- archive, and its snippet showed the markers. The scan now indexes the captures alone; the
-- archives indexed before are read and indexed again by the next scan (their change time
-- kept, since their content did not change).
UPDATE files SET hash = 'reindex:' || hash, clock_ns = 0
WHERE deleted = 0 AND hash NOT LIKE 'reindex:%'
  AND path LIKE 'raw/inbox/%.md' AND instr(substr(path, 11), '/') = 0;
