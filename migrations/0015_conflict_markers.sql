-- Sparks manifest, schema 15: which files hold git's conflict markers, and where the conflict
-- copies are.
--
-- A plain `git pull` (or merge, rebase, cherry-pick) that stops on a conflict writes
-- `<<<<<<<`, `=======` and `>>>>>>>` lines into the files it could not merge; lint's
-- `conflict-markers` lists them. Reading every file at each lint would cost more than the rest
-- of lint, so the scan notes it as it reads a file: the line of its first marker, 0 when it
-- holds none, NULL when it was not checked (a file of 4 MiB or more, not held in memory).
ALTER TABLE files ADD COLUMN markers INTEGER;

-- The files lint lists, found without reading every row.
CREATE INDEX files_markers ON files(path) WHERE markers > 0;

-- The conflict copies, which `status` now lists: found without reading every file name (a
-- copy's name key holds ` (conflict `; the names are judged by `vault::conflict_copy`).
CREATE INDEX files_copies ON files(path) WHERE deleted = 0 AND name_key LIKE '% (conflict %';

-- The Markdown files stored before this schema (the pages, the inbox, the archive) are read
-- again by the next scan, which fills the column in: their content is hashed as usual, and
-- nothing is parsed or indexed again unless it changed.
UPDATE files SET clock_ns = 0 WHERE deleted = 0 AND path LIKE '%.md';
