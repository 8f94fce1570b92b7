-- Sparks manifest, schema 5: the journal of an operation that rewrites several files.
--
-- `mv`, `merge` and `ingest --revert` write many files; each records its plan here before it
-- writes anything and removes the row when it is done. A row that is still here after the
-- process ended is an operation that was interrupted: running the same command again completes
-- it, and no other writing command runs until then. At most one row exists.

CREATE TABLE IF NOT EXISTS journal (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,              -- 'mv', 'merge', 'revert'
    command     TEXT NOT NULL,              -- the command as a person would run it again
    request     TEXT NOT NULL,              -- JSON: the request's arguments, to recognise a rerun
    plan        TEXT NOT NULL,              -- JSON: what the operation writes, as it decided it
    step        TEXT,                       -- the last step done
    started_at  TEXT NOT NULL               -- RFC 3339, local offset
);
CREATE UNIQUE INDEX IF NOT EXISTS journal_one ON journal((0));
