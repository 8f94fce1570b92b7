-- Sparks manifest, schema 17: what each page means, for search by meaning.
--
-- A page's readable text is cut into sections (at line ends, a few hundred words each) and
-- each section embedded by the model compiled into the binary (`src/embed.rs`): a unit vector
-- of 256 int8 components and a scale, 260 bytes. A section's id is its file's rowid times 64
-- plus its number, so a page's sections are one range of the primary key, and a search reads
-- the table in one pass. Raw files are found by their words alone.

CREATE TABLE meanings (id INTEGER PRIMARY KEY, vec BLOB NOT NULL);

-- Every page is read again by the next scan (its change time kept, since its content did not
-- change), and embedded then.
UPDATE files SET hash = 'reindex:' || hash, clock_ns = 0
WHERE deleted = 0 AND hash NOT LIKE 'reindex:%' AND path LIKE 'wiki/%';
