-- Sparks manifest, schema 8: the links still to resolve, found by their target.
--
-- A scan resolves the new links of each key they name (`status = 'pending'`). The partial
-- index on `status` alone found them by reading every pending link once per key: after a
-- rename rewrote 2,400 pages (36,000 pending links, 5,000 keys) that was 180 million rows and
-- 16 seconds. With the key in the index each key reads only its own pending links. Lint's
-- queries, which ask for `status <> 'resolved'`, use its first column as before.

DROP INDEX IF EXISTS links_status;
CREATE INDEX links_status ON links(status, target_key) WHERE status <> 'resolved';
