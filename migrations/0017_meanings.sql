-- Sparks manifest, schema 17: what each file means, for search by meaning.
--
-- A file's readable text is cut into sections (at line ends, a few hundred words each) and
-- each section embedded by the model compiled into the binary (`src/embed.rs`): a unit vector
-- of 256 int8 components and a scale, 260 bytes. One table per search scope, as the word index
-- has; a section's id is its file's rowid times 64 plus its number, so a file's sections are one
-- range of the primary key, and a search reads the table in one pass.

CREATE TABLE meaning_wiki (id INTEGER PRIMARY KEY, vec BLOB NOT NULL);
CREATE TABLE meaning_raw (id INTEGER PRIMARY KEY, vec BLOB NOT NULL);

-- Every text file is read again by the next scan (its change time kept, since its content did
-- not change), and embedded then.
UPDATE files SET hash = 'reindex:' || hash, clock_ns = 0
WHERE deleted = 0 AND hash NOT LIKE 'reindex:%' AND (path LIKE 'wiki/%' OR path LIKE 'raw/%');
