-- Ingests brought in from git's history (issue 48): made on another device, or on this one
-- before its manifest was deleted. Each keeps the number it has on the device that made it,
-- which its archive markers and commit trailers carry; here it gets an id of its own. Its
-- token is the name that is the same on every device.
CREATE TABLE IF NOT EXISTS ingest_origins (
    ingest_id INTEGER PRIMARY KEY REFERENCES ingests(id),
    number    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS ingests_token ON ingests(token);
