-- Sparks manifest, schema 4: a thin page is one with fewer sentences than
-- `[lint] thin_below_sentences` (the original's rule), no longer one with few words.
--
-- The word count gives way to a sentence count. NULL means "not counted yet": no page is
-- called thin on a count it never had. Every page is read again by the next scan, which
-- counts its sentences; the marked hash keeps its change time, since its content did not
-- change (see schema 2).

ALTER TABLE pages DROP COLUMN words;
ALTER TABLE pages ADD COLUMN sentences INTEGER;

UPDATE files
   SET hash = CASE WHEN substr(hash, 1, 8) = 'reindex:' THEN hash ELSE 'reindex:' || hash END,
       clock_ns = 0
 WHERE deleted = 0 AND path IN (SELECT path FROM pages);
