-- Every write, appended and never changed: when, by whom (the agent the
-- store was opened for: cli, an MCP client's name/version, ...), what,
-- to which note, and the note's version count after it (before, for a
-- purge).
CREATE TABLE IF NOT EXISTS operations (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    at      INTEGER NOT NULL,
    agent   TEXT    NOT NULL,
    op      TEXT    NOT NULL,
    note    TEXT    NOT NULL,
    version INTEGER NOT NULL,
    detail  TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS operations_note  ON operations(note, seq);
CREATE INDEX IF NOT EXISTS operations_agent ON operations(agent, seq);
